"""``evalmc reproduce``: regenerate the papers' figures and check them against their numbers."""

from __future__ import annotations

import sys

from evalmc.commands import int_arg
from evalmc.reproductions.registry import FIGURES, PAPERS

#: It writes figures and the report into its --out folder instead of printing results (so it has
#: no --format of results: tests/test_cli_conventions.py).
PRINTS = False


def register(sub) -> None:
    """Add ``evalmc reproduce`` to `sub`, with :func:`run` as its default; its arguments: the
    figures to make, their scale, folder, workers and cache.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import reproduce
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> reproduce.register(sub)
    >>> args = sub.choices["reproduce"].parse_args(["giles1997.fig2", "--check"])
    >>> args.spec, args.scale, args.check, args.run is reproduce.run
    ('giles1997.fig2', 'quick', True, True)
    """
    listing = "; ".join(f"{paper}: " + ", ".join(e.facts["figure"] for e in FIGURES.values()
                                                  if e.facts["paper"] == paper)
                        for paper in PAPERS)
    parser = sub.add_parser(
        "reproduce", help="regenerate papers' figures and check targets",
        description="Regenerate the figures of the reproduced papers, write them with a "
                    f"REPORT.md of the papers' numbers beside ours. Papers and figures: {listing}.")
    parser.add_argument("spec", metavar="PAPER[.FIGURE]|all",
                        help=f"all, a paper ({', '.join(PAPERS)}) or one figure, e.g. "
                             "giles1997.fig2")
    parser.add_argument("--scale", choices=("quick", "paper"), default="quick")
    parser.add_argument("--out", help="output directory (default: figures/ for the paper "
                                      "scale, figures/quick/ for the quick one)")
    parser.add_argument("--jobs", type=int_arg("jobs"), default=1)
    parser.add_argument("--cache", help="directory of finished blocks: a stopped run resumes "
                                        "from it")
    parser.add_argument("--check", action="store_true",
                        help="exit with status 1 when a judged check fails")
    parser.set_defaults(run=run)


def run(args) -> int:
    """Regenerate the figures of `args.spec`, print the tally of the claims by outcome.

    Parameters
    ----------
    args : argparse.Namespace
        The options of the parser :func:`register` adds.

    Returns
    -------
    int
        The exit status: 1 when ``--check`` is given and a judged check fails (FAIL; an
        inconclusive row does not), else 0.

    Notes
    -----
    Even at the quick scale a figure takes seconds; the example only shows that the
    specification is checked before any work starts.

    Examples
    --------
    >>> from evalmc.cli import main
    >>> main(["reproduce", "no-such-paper"])  # the valid papers go to stderr
    2
    """
    from evalmc.commands import check_cache
    from evalmc.reproductions.runner import reproduce

    check_cache(args.cache)
    checks = reproduce(args.spec, scale=args.scale, out=args.out, n_jobs=args.jobs,
                       cache=args.cache,
                       log=lambda line: print(line, file=sys.stderr))
    from evalmc.reproductions.report import failed, tally_text  # after names are checked

    fails = failed(checks)
    print(tally_text(checks) + (f"; FAIL: {', '.join(fails)}" if fails else ""))
    return 1 if args.check and fails else 0
