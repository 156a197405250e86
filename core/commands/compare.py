"""``evalmc compare``: which of pipelines A and B is better on your own runs, if either, and by
how much?

The verdicts and tests of :func:`evalmc.compare` on the runs of a CSV file, wide (a column per
pipeline, ``--a`` and ``--b`` name them) or long (``--model COL --score COL``: ``--a`` and
``--b`` name models); ``--best min`` reads lower scores (losses) as better. Pairing: with
``--pair-by``, the A and B scores sharing a key are paired (each key may hold one A and one B
score); without it, row i's A score is paired with row i's B score in a wide file, and in a
long file each model's i-th run, said on stderr (the file cannot show that they share a seed),
unless a long file has a column that may key the runs (a seed, a split, ...): then
``--pair-by`` (or ``--unpaired``) must say which, rather than trusting the file's order.
``--unpaired`` reads independent runs (``compare_unpaired``), and ``--models`` compares every
pair of several models, the p-values adjusted by Holm, each pair's P(A>B) verdict not
(``conclusion_unadjusted``; ``compare_models``, both in :mod:`evalmc.analysis.comparison`).
A pair (or, unpaired, a run) with a missing score is dropped and reported on stderr (or, with
``--no-dropna``, an error); a cell that is not a number is an error.
"""

from __future__ import annotations

import math
import sys

from evalmc.commands import (
    UsageError,
    add_output_options,
    add_table_options,
    check_writable,
    int_arg,
    json_text,
    load_table,
    write,
)
from evalmc.criteria.registry import DELTA_PAPER, GAMMA
from evalmc.criteria.registry import OUTPERFORM_RESAMPLES as N_RESAMPLES
from evalmc.estimators.registry import BEST


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
    >>> args.gamma, args.pair_by, args.best, args.unpaired, args.run is compare.run
    (0.75, None, 'max', False, True)
    """
    parser = sub.add_parser("compare", help="P(A>B) test and other verdicts on your own runs")
    parser.add_argument("file", metavar="FILE.csv", help="CSV file of run scores")
    parser.add_argument("--a", metavar="NAME",
                        help="column of A's scores (long format: A's model name)")
    parser.add_argument("--b", metavar="NAME",
                        help="column of B's scores (long format: B's model name)")
    parser.add_argument("--models", nargs="+", metavar="NAME",
                        help="instead of --a and --b: several models, every pair compared, "
                             "the p-values adjusted by Holm")
    parser.add_argument("--pair-by", metavar="COL",
                        help="column keying the pairs (seed, split); default: pair by row (a "
                             "long file: by each model's run order, refused when a column such "
                             "as seed may key the runs)")
    parser.add_argument("--unpaired", action="store_true",
                        help="independent runs: Welch's t, Mann-Whitney's U and a permutation "
                             "test, with no pairing")
    parser.add_argument("--best", choices=BEST, default="max",
                        help="max: higher scores are better (accuracy); min: lower (loss, "
                             "error) (default %(default)s)")
    parser.add_argument("--gamma", type=float, default=GAMMA,
                        help="smallest meaningful P(A>B) (default %(default)s)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="1 - confidence of the intervals; level of the t-oracle verdict")
    parser.add_argument("--beta", type=float, default=0.05,
                        help="false-negative rate for Noether's sample size")
    parser.add_argument("--resamples", type=int_arg("resamples"), default=N_RESAMPLES,
                        help="bootstrap resamples B, at most 10^7 (default %(default)s)")
    parser.add_argument("--delta", type=float, default=DELTA_PAPER,
                        help="threshold of the single-point and average verdicts, in sigmas, "
                             ">= 0: A (B) better when its score beats the other's by over "
                             "delta x sigma (default %(default)s)")
    parser.add_argument("--sigma", type=float,
                        help="sd of one run's score (default: pooled sd of A's and B's runs)")
    parser.add_argument("--seed", type=int_arg("seed"), default=0,
                        help="seed of the bootstrap and of the random permutations")
    add_table_options(parser)
    add_output_options(parser)
    parser.add_argument("--plot", metavar="FILE.png", help="plot the bootstrap distribution")
    parser.set_defaults(run=run)


def run(args) -> int:
    """The verdicts and tests on A and B's runs of the file: write them, and the plot.

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
    pairs k = 5 (4 won by A, 0 ties counted one half, 0 dropped), paired by seed; higher scores
    are better
    P(A>B) = 0.8000, 95% percentile-bootstrap interval [0.4000, 1.0000] (B = 1000)
    conclusion (two-sided, gamma = 0.75): not significant
    caveat: k = 5 pairs is below Noether's 29 for gamma = 0.75 (alpha = 0.05, beta = 0.05):
    with equal models this test says 'A better' with probability 0.0313 and 'B better' with
    probability 0.0313 at k = 5.
    Noether sample size for gamma = 0.75: 29 pairs
    mean difference A - B = 0.012, 95% paired t interval [-0.004189, 0.02819]
    tests of A = B, two-sided:
      paired-t            t = 2.05798 (df 4)   p = 0.1087  assumes normal differences (or many
      pairs)
      wilcoxon            R+ = 13.5            p = 0.1875  assumes symmetric differences; zero
      differences dropped
      permutation-paired  mean(A - B) = 0.012  p = 0.1875  assumes exchangeable signs of the
      differences
    other criteria, two-sided (threshold delta x sigma = 1.9952 x 0.01265 = 0.02524):
      prob-outperform  not significant
      single-point     no difference shown
      average-delta    no difference shown
      t-oracle         no difference shown
    0
    >>> tmp.cleanup()
    """
    _check_args(args)
    frame = load_table(args, args.pair_by)
    frame.attrs["long"] = args.model is not None
    if args.models:
        return _compare_models(frame, args)
    if args.unpaired:
        a, b, n_dropped = _independent_runs(frame, args)
        pairing = None
    else:
        a, b, n_dropped = _paired_runs(frame, args)
        pairing = _pairing(args)
    try:
        res = _compare_two(a, b, args)
    except KeyboardInterrupt:
        return _interrupted()
    _say_pairing(args)
    result = {**res.to_dict(), "n_dropped": n_dropped, "pairing": pairing}
    if args.plot:
        res.plot().savefig(args.plot, dpi=120)
    if args.format == "json":
        write(json_text(result), args.out)
    elif args.format == "csv":
        write(res.to_frame().to_csv(index=False), args.out)
    else:
        write(_table(result, args), args.out)
    return 0


def _check_args(args) -> None:
    """Refuse bad options before any work (UsageError; ValueError for the resamples): the
    files to write, the models named, the pairing and the resamples."""
    for path, option in ((args.plot, "--plot"), (args.out, "--out")):
        if path:
            check_writable(path, option)
    _check_combination(args)
    from evalmc.analysis.comparison import MAX_RESAMPLES
    from evalmc.inputs.checks import check_int

    check_int("resamples", args.resamples, low=1, high=MAX_RESAMPLES)
    if not 0 <= args.delta < math.inf:
        raise UsageError("`--delta` must be a number >= 0: the threshold in sigmas is read both "
                         "ways (A better when A - B > delta sigma, B better when B - A > delta "
                         f"sigma); got {args.delta}.")
    if args.model is not None and args.pair_by is None and not args.unpaired:
        _refuse_order_pairing(args)


def _check_combination(args) -> None:
    """Raise UsageError unless the options name the models to compare once, and pair (or
    plot) them in a way that goes together."""
    if args.models is not None and (args.a or args.b or len(args.models) < 2):
        raise UsageError("`--models` must name at least 2 models, without `--a` and `--b`; got "
                         f"{args.models}.")
    if args.models is None and not (args.a and args.b):
        raise UsageError("`--a` and `--b` must name the two pipelines to compare (or "
                         "`--models` several).")
    if args.unpaired and args.pair_by:
        raise UsageError("`--unpaired` and `--pair-by` exclude each other: unpaired runs have "
                         "no pairing key.")
    if args.plot and (args.unpaired or args.models):
        raise UsageError("`--plot` draws the bootstrap law of two models' paired runs; it does "
                         "not go with `--unpaired` or `--models`.")


def _pairing(args) -> str:
    """What paired runs are paired by: the ``--pair-by`` key, or their row (wide file) or run
    order (long file)."""
    return args.pair_by or ("run order" if args.model is not None else "row")


def _paired_runs(frame, args):
    """A's and B's paired scores, the pairs missing a score dropped and reported on stderr
    (or an error without `args.dropna`), and how many were dropped."""
    from evalmc.inputs.tables import read_pairs

    a, b, dropped = read_pairs(frame, args.a, args.b, args.pair_by, dropna=args.dropna)
    if dropped:
        shown = ", ".join(dropped[:5]) + (", ..." if len(dropped) > 5 else "")
        print(f"evalmc: dropped {len(dropped)} pair(s) missing a score: {shown}",
              file=sys.stderr)
    return a, b, len(dropped)


def _say_pairing(args) -> None:
    """Say on stderr that runs are paired by their row (or run order), no ``--pair-by`` given:
    right only when A's and B's i-th runs share a seed or split, which the file cannot show."""
    if args.pair_by is None and not args.unpaired:
        by = ("run order (each model's i-th run together)" if args.model is not None
              else "row (row i's scores together)")
        print(f"evalmc: runs paired by {by}, as no --pair-by was given: right only when they "
              "share a seed or split; give --unpaired for independent runs, or --pair-by COL "
              "to pair by a key.", file=sys.stderr)


def _compare_two(a, b, args):
    """:func:`~evalmc.analysis.comparison.compare` (or, unpaired, ``compare_unpaired``) of
    A's and B's scores with the command's options."""
    from evalmc.analysis.comparison import compare, compare_unpaired

    if args.unpaired:
        return compare_unpaired(a, b, alpha=args.alpha, best=args.best, seed=args.seed)
    return compare(a, b, gamma=args.gamma, alpha=args.alpha, beta=args.beta,
                   n_resamples=args.resamples, delta=args.delta, sigma=args.sigma,
                   seed=args.seed, best=args.best)


def _interrupted() -> int:
    """Report on stderr that Ctrl-C stopped the comparison before anything was written, and
    return its exit status."""
    print("evalmc: interrupted; nothing was written.", file=sys.stderr)
    return 130


def _compare_models(frame, args) -> int:
    """Every pair of ``args.models``: the table of
    :func:`evalmc.analysis.comparison.compare_models`, written."""
    import pandas as pd

    from evalmc.analysis.comparison import compare_models, level_label
    from evalmc.inputs.tables import key_column, numeric_column

    table = pd.DataFrame({name: numeric_column(frame, name, option="--models")
                          for name in args.models})
    if args.pair_by and args.model is None:  # a wide file: one row per key
        keys = key_column(frame, args.pair_by, option="--pair-by").to_numpy()
        counts = table.notna().groupby(keys, sort=False).sum().stack()
        if (counts > 1).any():
            key, name = counts[counts > 1].index[0]
            raise ValueError(f"`--pair-by` key {args.pair_by}={key} has more than one score "
                             f"for {name!r}; each key may hold one score per model.")
        table = table.groupby(keys, sort=False).first()
    missing = table.isna().sum() if not (args.unpaired and args.model is not None) else (
        pd.Series(frame.attrs.get("missing", {}), dtype=int))  # a long table pads its models
    if not args.dropna and missing.any():
        raise ValueError(f"`--models` {missing[missing > 0].index[0]!r} misses a score; without "
                         "--no-dropna missing scores are skipped and counted.")
    try:
        result = compare_models(table, paired=not args.unpaired, alpha=args.alpha,
                                best=args.best, gamma=args.gamma, n_resamples=args.resamples,
                                seed=args.seed)
    except KeyboardInterrupt:
        return _interrupted()
    _say_pairing(args)
    if args.format == "json":  # full precision, NaN as null
        write(json_text(result.to_dict(orient="records")), args.out)
        return 0
    if args.format == "csv":
        write(result.to_csv(index=False), args.out)
        return 0
    pairing = "independent runs" if args.unpaired else f"paired by {_pairing(args)}"
    better = "higher" if args.best == "max" else "lower (--best min)"
    head = (f"{len(args.models)} models, {len(result)} pairs, {pairing}; {better} scores are "
            f"better; mean difference model_a - model_b with its "
            f"{level_label(args.alpha)} t interval; p-values two-sided, _holm adjusted by Holm "
            f"over the {len(result)} pairs"
            + ("" if args.unpaired else f"; conclusion_unadjusted: each pair's P(A>B) test "
               f"(gamma {args.gamma:g}, alpha {args.alpha:g}) on its own, not adjusted"))
    write(head + "\n" + result.to_string(index=False, na_rep="-"), args.out)
    return 0


def _refuse_order_pairing(args) -> None:
    """Raise UsageError when the long file has a column that may key its runs: pairing each
    model's i-th run would trust the file's order."""
    from evalmc.inputs.tables import key_word, read_table

    keys = [str(c) for c in read_table(args.file).columns
            if c not in (args.model, args.score) and key_word(c)]
    if keys:
        raise UsageError(f"`--pair-by` is needed: runs of a long file are otherwise paired by "
                         f"their order, and its column {keys[0]!r} may key them; give "
                         f"`--pair-by {keys[0]}` (or `--unpaired` for independent runs).")


def _independent_runs(frame, args):
    """A's and B's scores as two samples, their missing values dropped (or an error without
    `args.dropna`), and how many were dropped."""
    import numpy as np

    from evalmc.inputs.tables import numeric_column

    samples, dropped = [], 0
    for option, column in (("--a", args.a), ("--b", args.b)):
        values = numeric_column(frame, column, option=option)
        missing = (frame.attrs.get("missing", {}).get(column, 0) if args.model is not None
                   else int(np.isnan(values).sum()))  # a long table pads its shorter models
        if missing and not args.dropna:
            raise ValueError(f"`{option}` {column!r} has {missing} missing score(s); without "
                             "--no-dropna missing values are skipped and counted.")
        samples.append(values[~np.isnan(values)])
        dropped += missing
    if dropped:
        print(f"evalmc: dropped {dropped} missing score(s)", file=sys.stderr)
    return *samples, dropped


def _tests_lines(result: dict, level: str, method: str) -> list[str]:
    """The mean difference with its interval, and the tests of A = B, one line each."""
    cells = [(t["test"], f"{t['statistic_name']} = {t['statistic']:.6g}"
              + (f" (df {t['df']:.6g})" if t["df"] is not None else ""),
              f"p = {t['p_value']:.4g}" if math.isfinite(t["p_value"]) else "p -",
              t["assumes"]) for t in result["tests"]]
    widths = [max(len(c[i]) for c in cells) for i in range(3)]
    return [
        f"mean difference A - B = {result['mean_difference']:.4g}, {level} {method} interval "
        f"[{result['diff_low']:.4g}, {result['diff_high']:.4g}]",
        "tests of A = B, two-sided:",
        *("  " + "  ".join(c[i].ljust(widths[i]) for i in range(3)) + "  assumes " + c[3]
          for c in cells),
    ]


def _table(result: dict, args) -> str:
    from evalmc.analysis.comparison import level_label

    level = level_label(args.alpha)
    better, beats = (("higher scores are better", "P(A>B)") if args.best == "max"
                     else ("lower scores are better (--best min)", "P(A<B)"))
    if args.unpaired:
        return "\n".join([
            f"runs n_a = {result['n_a']}, n_b = {result['n_b']}, independent ("
            f"{result['n_dropped']} missing dropped); {better}",
            f"{beats} = {result['p_a_beats_b']:.4f} (U / (n_a n_b) of Mann-Whitney, ties "
            "counted one half)",
            *_tests_lines(result, level, "Welch t"),
        ])
    lines = [
        f"pairs k = {result['k']} ({result['wins']} won by A, {result['ties']} ties counted one "
        f"half, {result['n_dropped']} dropped), paired by {result['pairing']}; {better}",
        f"{beats} = {result['p_a_beats_b']:.4f}, {level} percentile-bootstrap "
        f"interval [{result['ci_low']:.4f}, {result['ci_high']:.4f}] (B = {args.resamples})",
        f"conclusion (two-sided, gamma = {args.gamma}): {result['conclusion']}",
        *(f"caveat: {line}" for line in result["caveats"]),
        f"Noether sample size for gamma = {args.gamma}: {result['noether_n']} pairs",
        *_tests_lines(result, level, "paired t"),
        f"other criteria, two-sided (threshold delta x sigma = {result['delta']:g} x "
        f"{result['sigma']:.4g} = {result['threshold']:.4g}):",
        *(f"  {name:<16} {verdict}" for name, verdict in result["criteria"].items()),
    ]
    return "\n".join(lines)
