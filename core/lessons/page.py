"""A lesson's page (Markdown), the gallery's index, and the fingerprint that dates a page.

A page embeds the fingerprint of what made it: the source of the lesson's module and of the
lesson framework, the lesson's own row of the registry (whose summary the page quotes), the
scale and the seed; another lesson's row or module does not date it, and a page holds nothing
that changes from one run to the next (no wall-clock time). A page whose fingerprint differs
from the one the code gives now is out of date, which a test can tell without running the study
again.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect

from evalmc.lessons.base import Lesson

#: Modules of the framework whose source every fingerprint covers.
FRAMEWORK = ("evalmc.lessons.base", "evalmc.lessons.figures", "evalmc.lessons.page",
             "evalmc.lessons.studies")
_MARK = "<!-- lesson-fingerprint: "


def fingerprint(lesson: Lesson, scale: str, seed: int) -> str:
    """A digest of the code and inputs that make `lesson`'s page at `scale` and `seed`.

    Parameters
    ----------
    lesson : Lesson
    scale : str
    seed : int

    Returns
    -------
    str
        16 hexadecimal digits.

    Examples
    --------
    >>> from evalmc.lessons import get_lesson
    >>> from evalmc.lessons.page import fingerprint
    >>> lesson = get_lesson("rerun")
    >>> fingerprint(lesson, "class", 0) == fingerprint(lesson, "class", 1)
    False
    """
    from evalmc.lessons import LESSONS

    digest = hashlib.sha256(f"{lesson.id}|{scale}|{seed}|{LESSONS[lesson.id]!r}".encode())
    for name in (*FRAMEWORK, inspect.getmodule(lesson.compute).__name__):
        digest.update(inspect.getsource(importlib.import_module(name)).encode())
    return digest.hexdigest()[:16]


def page_fingerprint(text: str) -> str | None:
    """The fingerprint embedded in a page's text, or None.

    Parameters
    ----------
    text : str

    Returns
    -------
    str or None

    Examples
    --------
    >>> from evalmc.lessons.page import page_fingerprint
    >>> page_fingerprint("# x\\n<!-- lesson-fingerprint: 0123abcd -->\\n")
    '0123abcd'
    """
    for line in text.splitlines():
        if line.startswith(_MARK):
            return line[len(_MARK):].split()[0]
    return None


def render(lesson: Lesson, headline, *, scale: str, seed: int, n_reps: int,
           used: str | None = None) -> str:
    """The lesson's page: question, predict-first questions, result, answers, why, what to do.

    Parameters
    ----------
    lesson : Lesson
    headline : Headline
        The lesson's number with its Monte Carlo standard error.
    scale : str
    seed : int
        The (student) seed the study ran with.
    n_reps : int
        Replications per condition.
    used : str, optional
        The replications the study used, in words (:meth:`Lesson.used`); default: `n_reps`
        per condition.

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    >>> from evalmc.lessons import get_lesson
    >>> from evalmc.lessons.base import Headline
    >>> from evalmc.lessons.page import render
    >>> text = render(get_lesson("rerun"), Headline("size", 0.2, 0.01), scale="class",
    ...               seed=0, n_reps=1000)
    >>> text.splitlines()[0]
    '# Re-running until significant'
    """
    from evalmc.lessons import LESSONS

    used = f"{n_reps:,} replications per condition" if used is None else used
    lines = [f"# {lesson.name}", "",
             f"*{LESSONS[lesson.id].description}*", "",
             "## The question", "", lesson.question, "",
             "## Predict first", ""]
    lines += [f"{i}. {q}" for i, q in enumerate(lesson.predict, 1)]
    lines += ["", "## What the simulation shows", "",
              f"![{lesson.title}]({lesson.id}.png)", "",
              f"**{headline.text()}**; {used}, seed {seed}, "
              f"`{scale}` scale. The shaded bands in the figure are two "
              f"Monte Carlo standard errors either side; the numbers are in "
              f"[{lesson.id}.csv]({lesson.id}.csv).", ""]
    if lesson.published is not None:
        pub = lesson.published
        lines += [f"Published: {pub.value} ({pub.source}); ours: "
                  f"{headline.value:.{headline.digits}f}." + (f" {pub.note}" if pub.note
                                                              else ""), ""]
    lines += ["## Answers", ""]
    lines += [f"{i}. {a}" for i, a in enumerate(lesson.answers, 1)]
    lines += ["", "## Why", "", lesson.explanation, "",
              "## What to do instead", "", lesson.instead, "",
              "## Run it yourself", "",
              f"    evalmc lesson {lesson.id} --scale {scale} --student-seed {seed}", ""]
    if lesson.grading is not None:
        lines += ["Grade your own test on this lesson's study (its size must lie in Bradley's "
                  "band, its power within 0.05 of the best reference's):", "",
                  f"    evalmc lesson grade {lesson.id} my_test.py:my_test", ""]
    lines += [f"{_MARK}{fingerprint(lesson, scale, seed)} -->", ""]
    return "\n".join(lines)


def index(rows) -> str:
    """The gallery's index: a line and a thumbnail link per lesson.

    Parameters
    ----------
    rows : iterable of (id, summary, headline text)

    Returns
    -------
    str
        Markdown.

    Examples
    --------
    >>> from evalmc.lessons.page import index
    >>> print(index([("rerun", "re-running until significant", "size: 0.226")]).splitlines()[6])
    | [rerun](rerun.md) | re-running until significant | size: 0.226 | \
[![rerun](rerun.png)](rerun.md) |
    """
    lines = ["# Lessons", "",
             "Each classic pitfall of evaluation as one small study, one figure and one page, "
             "at the class scale (`evalmc lesson all --out figures/lessons`).", "",
             "| lesson | the pitfall | the number | figure |", "|---|---|---|---|"]
    lines += [f"| [{i}]({i}.md) | {summary} | {head} | [![{i}]({i}.png)]({i}.md) |"
              for i, summary, head in rows]
    return "\n".join([*lines, ""])
