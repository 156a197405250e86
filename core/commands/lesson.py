"""``evalmc lesson``: a classic pitfall of evaluation as one small study, figure and page.

``evalmc lesson list`` lists the lessons; ``evalmc lesson ID`` runs one into ``--out``;
``evalmc lesson all`` writes the gallery with its index; ``evalmc lesson grade ID
FILE.py:function`` judges a student's own test on the lesson's study.
"""

from __future__ import annotations

import sys

import evalmc.lessons as _lessons
from evalmc.commands import UsageError, emit, float_arg, int_arg

#: The default folders: one lesson's files, and the gallery's.
DEFAULT_OUT = "lessons"
GALLERY_OUT = "figures/lessons"
#: Seconds each call of a graded test may take: ``evalmc.lessons.grading.TIMEOUT``, written
#: here so that the parser imports no numerical library (a test checks they agree).
TIMEOUT = 10.0


#: It writes figures and pages into its --out folder instead of printing results (so it has
#: no --format of results: tests/test_cli_conventions.py).
PRINTS = False


def register(sub) -> None:
    """Add ``evalmc lesson`` to `sub`, with :func:`run` as its default; its arguments: what to do
    (``list``, ``all``, ``grade ID FILE.py:function`` or a lesson's id), the scale, the student's
    seed, the folder, the workers, the time limit of each call of a graded test and the format
    of what it prints.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import lesson
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> lesson.register(sub)
    >>> args = sub.choices["lesson"].parse_args(["rerun", "--student-seed", "7"])
    >>> args.words, args.scale, args.student_seed, args.timeout, args.run is lesson.run
    (['rerun'], 'class', 7, 10.0, True)
    """
    parser = sub.add_parser(
        "lesson", help="run a lesson: one pitfall, one figure, one page",
        description="Each classic pitfall of evaluation as one small study with a figure, a "
                    "CSV and a page (Markdown) for teaching. `evalmc lesson list` lists them; "
                    "`evalmc lesson ID` runs one; `evalmc lesson all` writes the gallery and "
                    "its index; `evalmc lesson grade ID FILE.py:function` reports a "
                    "student's test's size and power beside the lesson's references, with a "
                    "verdict; the student's function runs in a worker process, each call "
                    "within --timeout seconds. Lessons: "
                    f"{', '.join(_lessons.LESSONS)}.")
    parser.add_argument("words", nargs="+", metavar="list|all|ID|grade ID FILE.py:function")
    parser.add_argument("--scale", choices=("class", "full"), default="class",
                        help="class: seconds, for showing in class (default); full: more "
                             "replications")
    parser.add_argument("--student-seed", type=int_arg("student-seed"), default=0,
                        help="the study's seed: each student other data, the same lesson "
                             "(default %(default)s)")
    parser.add_argument("--jobs", type=int_arg("jobs"), default=1,
                        help="workers; -1 for all cores")
    parser.add_argument("--timeout", type=float_arg("timeout"), default=TIMEOUT,
                        metavar="SECONDS",
                        help="for `grade`: seconds each call of the student's function may "
                             "take before grading stops and its worker process is killed "
                             "(default %(default)g)")
    parser.add_argument("--out", metavar="DIR",
                        help=f"folder of the figure, CSV and page (default {DEFAULT_OUT}/; "
                             f"{GALLERY_OUT}/ for `all`)")
    parser.add_argument(
        "--format", choices=("table", "csv", "json"), default="table",
        help="how `list` and `grade` print their table (default %(default)s)")
    parser.set_defaults(run=run)


def run(args) -> int:
    """List, run, gather or grade lessons, as `args.words` says.

    Parameters
    ----------
    args : argparse.Namespace
        The options of the parser :func:`register` adds.

    Returns
    -------
    int
        0; for ``grade``, 1 when the student's test fails the lesson's rule, or grading stops
        on it (a call past ``--timeout``, or failures), and 130 when interrupted (Ctrl-C); the
        message names the student's function.

    Examples
    --------
    >>> from evalmc.cli import main
    >>> main(["lesson", "list", "--format", "csv"])  # doctest: +ELLIPSIS
    lesson,summary,grades
    single-run,...
    >>> main(["lesson", "no-such-lesson"])  # the valid names go to stderr
    2
    """
    first, rest = args.words[0], args.words[1:]
    if first == "list":
        _no_more(rest, "list")
        return _list(args)
    if first == "grade":
        if len(rest) != 2:
            raise UsageError("`evalmc lesson grade` takes a lesson and a test: grade ID "
                             "FILE.py:function.")
        return _grade(args, *rest)
    if first == "all":
        _no_more(rest, "all")
        return _gallery(args)
    _no_more(rest, "ID")
    return _one(args, first)


def _no_more(rest, what: str) -> None:
    if rest:
        raise UsageError(f"`evalmc lesson {what}` takes no more arguments; got "
                         f"{' '.join(rest)!r}.")


def _check(name: str) -> None:
    try:
        _lessons.LESSONS.entry(name)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _list(args) -> int:
    import pandas as pd

    rows = [{"lesson": name, "summary": entry.description,
             "grades": "yes" if entry.facts.get("grades") else "no"}
            for name, entry in _lessons.LESSONS.items()]
    emit(pd.DataFrame(rows), args.format)
    return 0


def _one(args, name: str) -> int:
    _check(name)
    from evalmc.lessons.runner import lesson

    res = lesson(name, scale=args.scale, student_seed=args.student_seed,
                 out=args.out or DEFAULT_OUT, n_jobs=args.jobs)
    print(f"{name}: {res.headline.text()} ({res.seconds:.1f} s)")
    print("wrote " + ", ".join(str(f) for f in res.files))
    return 0


def _gallery(args) -> int:
    if args.scale != "class" or args.student_seed != 0:
        raise UsageError("`evalmc lesson all` writes the gallery at the class scale and seed "
                         "0; run one lesson for another scale or seed.")
    from evalmc.lessons.runner import write_gallery

    write_gallery(args.out or GALLERY_OUT, n_jobs=args.jobs, log=print)
    return 0


def _grade(args, name: str, test: str) -> int:
    _check(name)
    from evalmc.lessons.grading import GradeStopped, grade

    try:
        res = grade(name, test, scale=args.scale, seed=args.student_seed, n_jobs=args.jobs,
                    timeout=args.timeout)
    except GradeStopped as err:
        print(f"evalmc: stopped: {str(err).replace('`timeout`', '--timeout SECONDS')}",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"evalmc: interrupted while grading the student's test {test!r} on lesson "
              f"{name}.", file=sys.stderr)
        return 130
    emit(res.table, args.format)
    verdict = "PASS" if res.passed else "FAIL"
    print(f"{verdict}: {res.criterion} on lesson {name}: {res.reason}",
          file=sys.stdout if args.format == "table" else sys.stderr)
    return 0 if res.passed else 1
