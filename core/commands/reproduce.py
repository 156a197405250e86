"""``evalmc reproduce``: regenerate the papers' figures and check them against their numbers."""

from __future__ import annotations

import sys

from evalmc.commands import int_arg

#: Each paper's figures, as ``evalmc.reproductions.<paper>.FIGURES`` names them (a test keeps
#: them equal; the papers' modules are not imported to parse).
FIGURES = {
    "bajgar2018": ("boon-normal", "fig1", "fig2", "fig3"),
    "keller2005": ("fig1", "fig2", "fig1-exact", "fig2-exact"),
    "giles1997": ("fig2", "fig3", "fig4", "fig5", "fig6", "testsize", "fig7", "fig8"),
    "bouthillier2021": ("fig6", "sensitivity", "figc1", "figi6", "eq7", "fpbias"),
    "cvtests": ("size-j", "size-k", "tests", "replicability"),
}


def register(sub) -> None:
    listing = "; ".join(f"{paper}: {', '.join(names)}" for paper, names in FIGURES.items())
    parser = sub.add_parser(
        "reproduce", help="regenerate papers' figures and check targets",
        description="Regenerate the figures of the reproduced papers, write them with a "
                    f"REPORT.md of the papers' numbers beside ours. Papers and figures: {listing}.")
    parser.add_argument("spec", metavar="PAPER[.FIGURE]|all",
                        help=f"all, a paper ({', '.join(FIGURES)}) or one figure, e.g. "
                             "giles1997.fig2")
    parser.add_argument("--scale", choices=("quick", "paper"), default="quick")
    parser.add_argument("--out", help="output directory (default: figures/ for the paper "
                                      "scale, figures/quick/ for the quick one)")
    parser.add_argument("--jobs", type=int_arg("jobs"), default=1)
    parser.add_argument("--cache", help="directory of finished blocks: a stopped run resumes "
                                        "from it")
    parser.add_argument("--check", action="store_true",
                        help="exit with status 1 when a judged target is missed")
    parser.set_defaults(run=run)


def run(args) -> int:
    from evalmc.commands import check_cache
    from evalmc.reproductions.runner import reproduce

    check_cache(args.cache)
    checks = reproduce(args.spec, scale=args.scale, out=args.out, n_jobs=args.jobs,
                       cache=args.cache,
                       log=lambda line: print(line, file=sys.stderr))
    from evalmc.reproductions.report import missed, tally_text  # after names are checked

    failed = missed(checks)
    print(tally_text(checks) + (f"; missed: {', '.join(failed)}" if failed else ""))
    return 1 if args.check and failed else 0
