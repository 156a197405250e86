"""``evalmc compare``: which of pipelines A and B is better on your own paired runs, if either?

The verdicts of :func:`evalmc.compare` on the runs of a CSV file, wide (a column per pipeline,
``--a`` and ``--b`` name them) or long (``--model COL --score COL``: ``--a`` and ``--b`` name
models). Pairing: without ``--pair-by``, row i's A score is paired with row i's B score (in long
format, each model's i-th run); with it, the A and B scores sharing a key are paired (each key
may hold one A and one B score). A pair with a missing score is dropped and reported on stderr
(or, with ``--no-dropna``, an error); a cell that is not a number is an error.
"""

from __future__ import annotations

import json
import sys

from evalmc.commands import (
    add_output_options,
    add_table_options,
    check_writable,
    int_arg,
    load_table,
    write,
)
from evalmc.criteria.registry import DELTA_PAPER, GAMMA
from evalmc.criteria.registry import OUTPERFORM_RESAMPLES as N_RESAMPLES


def register(sub) -> None:
    """Add ``evalmc compare`` to `sub`, with :func:`run` as its default.

    Its arguments: the runs' file, ``--a``, ``--b`` and the test's options.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import compare
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> compare.register(sub)
    >>> args = sub.choices["compare"].parse_args(["runs.csv", "--a", "A", "--b", "B"])
    >>> args.gamma, args.pair_by, args.run is compare.run
    (0.75, None, True)
    """
    parser = sub.add_parser("compare", help="P(A>B) test and other verdicts on your own runs")
    parser.add_argument("file", metavar="FILE.csv", help="CSV file of run scores")
    parser.add_argument("--a", required=True, metavar="NAME",
                        help="column of A's scores (long format: A's model name)")
    parser.add_argument("--b", required=True, metavar="NAME",
                        help="column of B's scores (long format: B's model name)")
    parser.add_argument("--pair-by", metavar="COL",
                        help="column keying the pairs (seed, split); default: pair by row")
    parser.add_argument("--gamma", type=float, default=GAMMA,
                        help="smallest meaningful P(A>B) (default %(default)s)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="1 - confidence of the interval; level of the t-test")
    parser.add_argument("--beta", type=float, default=0.05,
                        help="false-negative rate for Noether's sample size")
    parser.add_argument("--resamples", type=int_arg("resamples"), default=N_RESAMPLES,
                        help="bootstrap resamples B, at most 10^7 (default %(default)s)")
    parser.add_argument("--delta", type=float, default=DELTA_PAPER,
                        help="threshold of the single-point and average verdicts, in sigmas")
    parser.add_argument("--sigma", type=float,
                        help="sd of one run's score (default: pooled sd of A's and B's runs)")
    parser.add_argument("--seed", type=int_arg("seed"), default=0, help="seed of the bootstrap")
    add_table_options(parser)
    add_output_options(parser)
    parser.add_argument("--plot", metavar="FILE.png", help="plot the bootstrap distribution")
    parser.set_defaults(run=run)


def run(args) -> int:
    """The verdicts on A and B's paired runs of the file: write them, and the plot.

    Parameters
    ----------
    args : argparse.Namespace
        The options of the parser :func:`register` adds.

    Returns
    -------
    int
        The exit status: 0, or 130 when interrupted (Ctrl-C) before writing.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> from evalmc.cli import main
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(tmp.name) / "runs.csv"
    >>> _ = path.write_text("seed,A,B\\n0,0.91,0.90\\n1,0.93,0.91\\n2,0.90,0.91\\n"
    ...                     "3,0.94,0.92\\n4,0.92,0.90\\n")
    >>> main(["compare", str(path), "--a", "A", "--b", "B", "--pair-by", "seed"])
    pairs k = 5 (4 won by A, 0 ties counted one half, 0 dropped)
    P(A>B) = 0.8000, 95% percentile-bootstrap interval [0.4000, 1.0000] (B = 1000)
    conclusion (two-sided, gamma = 0.75): not significant
    caveat: k = 5 pairs is below Noether's 29 for gamma = 0.75 (alpha = 0.05, beta = 0.05):
    with equal models this test says 'A better' with probability 0.0313 and 'B better' with
    probability 0.0313 at k = 5.
    Noether sample size for gamma = 0.75: 29 pairs
    other criteria, two-sided (delta = 1.9952 sigma = 0.02524):
      prob-outperform  not significant
      single-point     no difference shown
      average-delta    no difference shown
      t-oracle         no difference shown
    0
    >>> tmp.cleanup()
    """
    for path, option in ((args.plot, "--plot"), (args.out, "--out")):
        if path:
            check_writable(path, option)
    from evalmc.analysis.comparison import MAX_RESAMPLES, compare, level_label
    from evalmc.sims.validation import check_int

    check_int("resamples", args.resamples, low=1, high=MAX_RESAMPLES)
    frame = load_table(args, args.pair_by)
    frame.attrs["long"] = args.model is not None
    from evalmc.sims.tables import read_pairs

    a, b, dropped = read_pairs(frame, args.a, args.b, args.pair_by, dropna=args.dropna)
    if dropped:
        shown = ", ".join(dropped[:5]) + (", ..." if len(dropped) > 5 else "")
        print(f"evalmc: dropped {len(dropped)} pair(s) missing a score: {shown}",
              file=sys.stderr)
    try:
        res = compare(a, b, gamma=args.gamma, alpha=args.alpha, beta=args.beta,
                      n_resamples=args.resamples, delta=args.delta, sigma=args.sigma,
                      seed=args.seed)
    except KeyboardInterrupt:
        print("evalmc: interrupted; nothing was written.", file=sys.stderr)
        return 130
    result = {**res.to_dict(), "n_dropped": len(dropped)}
    if args.plot:
        res.plot().savefig(args.plot, dpi=120)
    if args.format == "json":
        write(json.dumps(result, indent=2), args.out)
    elif args.format == "csv":
        write(res.to_frame().to_csv(index=False), args.out)
    else:
        write(_table(result, args, level_label(args.alpha)), args.out)
    return 0


def _table(result: dict, args, level: str) -> str:
    lines = [
        f"pairs k = {result['k']} ({result['wins']} won by A, {result['ties']} ties counted one "
        f"half, {result['n_dropped']} dropped)",
        f"P(A>B) = {result['p_a_beats_b']:.4f}, {level} percentile-bootstrap "
        f"interval [{result['ci_low']:.4f}, {result['ci_high']:.4f}] (B = {args.resamples})",
        f"conclusion (two-sided, gamma = {args.gamma}): {result['conclusion']}",
        *(f"caveat: {line}" for line in result["caveats"]),
        f"Noether sample size for gamma = {args.gamma}: {result['noether_n']} pairs",
        f"other criteria, two-sided (delta = {args.delta:g} sigma = {result['delta']:.4g}):",
        *(f"  {name:<16} {verdict}" for name, verdict in result["criteria"].items()),
    ]
    return "\n".join(lines)
