"""``evalmc compare``: is pipeline A better than B on your own paired runs?

The verdicts of :func:`evalmc.compare` on the runs of a CSV file. Pairing: without
``--pair-by``, row i's A score is paired with row i's B score; with it, the A and B scores of
the rows sharing a key are paired (each key may hold one A and one B score). A pair with a
missing score (empty cell or NaN) is dropped and reported on stderr; a cell that is not a
number is an error.
"""

from __future__ import annotations

import json
import sys

from evalmc.commands import UsageError, check_writable, int_arg

#: As ``evalmc.criteria.outperform.GAMMA``, ``N_RESAMPLES`` and ``DELTA_PAPER``, the defaults of
#: :func:`evalmc.compare` (a test keeps them equal; the criteria are not imported to parse).
GAMMA = 0.75
N_RESAMPLES = 1000
DELTA_PAPER = 1.9952


def register(sub) -> None:
    parser = sub.add_parser("compare", help="P(A>B) test and other verdicts on your own runs")
    parser.add_argument("file", metavar="FILE.csv", help="CSV file of run scores")
    parser.add_argument("--a", required=True, metavar="COL", help="column of A's scores")
    parser.add_argument("--b", required=True, metavar="COL", help="column of B's scores")
    parser.add_argument("--pair-by", metavar="COL",
                        help="column keying the pairs (seed, split); default: pair by row")
    parser.add_argument("--gamma", type=float, default=GAMMA,
                        help="smallest meaningful P(A>B) (default %(default)s)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="1 - confidence of the interval; level of the t-test")
    parser.add_argument("--beta", type=float, default=0.05,
                        help="false-negative rate for Noether's sample size")
    parser.add_argument("--resamples", type=int_arg("resamples"), default=N_RESAMPLES,
                        help="bootstrap resamples B")
    parser.add_argument("--delta", type=float, default=DELTA_PAPER,
                        help="threshold of the single-point and average verdicts, in sigmas")
    parser.add_argument("--sigma", type=float,
                        help="sd of one run's score (default: pooled sd of A's and B's runs)")
    parser.add_argument("--seed", type=int_arg("seed"), default=0, help="seed of the bootstrap")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument("--plot", metavar="FILE.png", help="plot the bootstrap distribution")
    parser.set_defaults(run=run)


def read_pairs(path: str, col_a: str, col_b: str, pair_by: str | None = None):
    """Paired scores of A and B from a CSV file.

    Returns
    -------
    a, b : ndarray, shape (k,)
    dropped : list of str
        The pairs dropped for a missing score, as ``'row N'`` or ``'COL=KEY'``.
    """
    import numpy as np
    import pandas as pd

    try:
        frame = pd.read_csv(path)
    except (FileNotFoundError, IsADirectoryError):
        raise UsageError(f"`FILE` must be an existing CSV file; got {path!r}.") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise UsageError(f"`FILE` {path!r} is not a readable CSV file: {err}") from None
    for option, col in (("--a", col_a), ("--b", col_b), ("--pair-by", pair_by)):
        if col is not None and col not in frame.columns:
            valid = ", ".join(map(str, frame.columns))
            raise UsageError(f"`{option}` {col!r} is not a column of {path!r}; its columns: "
                             f"{valid}.")
    a, b = _numbers(frame, col_a, "--a"), _numbers(frame, col_b, "--b")
    if pair_by is None:
        labels = [f"row {i + 1}" for i in range(len(frame))]
    else:
        keys = frame[pair_by]
        if keys.isna().any():
            row = int(np.flatnonzero(keys.isna())[0])
            raise UsageError(f"`--pair-by` {pair_by!r} must have a key on every row; data row "
                             f"{row + 1} has none.")
        a, b = _by_key(keys, a, "A", pair_by), _by_key(keys, b, "B", pair_by)
        a, b = a.align(b)
        labels = [f"{pair_by}={key}" for key in a.index]
        a, b = a.to_numpy(), b.to_numpy()
    has_a, has_b = ~np.isnan(a), ~np.isnan(b)
    dropped = [label for label, x, y in zip(labels, has_a, has_b, strict=True) if x != y]
    keep = has_a & has_b
    if keep.sum() < 2:
        raise UsageError(f"`--a` and `--b` need at least 2 complete pairs; got {keep.sum()}"
                         + (f" ({len(dropped)} pairs miss a score)" if dropped else "") + ".")
    return a[keep], b[keep], dropped


def _numbers(frame, col, option):
    import numpy as np
    import pandas as pd

    raw = frame[col]
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero((np.isnan(values) & raw.notna().to_numpy()) | np.isinf(values))
    if bad.size:
        row = int(bad[0])
        raise UsageError(f"`{option}` column {col!r} must hold numbers (empty = missing); data "
                         f"row {row + 1} has {raw.iloc[row]!r}.")
    return values


def _by_key(keys, values, side, pair_by):
    import pandas as pd

    present = pd.Series(values, index=keys.to_numpy()).dropna()
    dup = present.index[present.index.duplicated()]
    if len(dup):
        raise UsageError(f"`--pair-by` key {pair_by}={dup[0]} has more than one score for "
                         f"{side}; each key may hold one score per pipeline.")
    return present.reindex(pd.unique(keys.to_numpy()))


def run(args) -> int:
    if args.plot:
        check_writable(args.plot, "--plot")
    from evalmc.comparison import compare
    from evalmc.sims.validation import check_int

    check_int("resamples", args.resamples, low=1)

    a, b, dropped = read_pairs(args.file, args.a, args.b, args.pair_by)
    if dropped:
        shown = ", ".join(dropped[:5]) + (", ..." if len(dropped) > 5 else "")
        print(f"evalmc: dropped {len(dropped)} pair(s) with only one score: {shown}",
              file=sys.stderr)
    res = compare(a, b, gamma=args.gamma, alpha=args.alpha, beta=args.beta,
                  n_resamples=args.resamples, delta=args.delta, sigma=args.sigma, seed=args.seed)
    result = {**res.to_dict(), "n_dropped": len(dropped)}
    if args.plot:
        res.plot().savefig(args.plot, dpi=120)
    if args.format == "json":
        print(json.dumps(result, indent=2))
        return 0
    print(f"pairs k = {result['k']} ({result['wins']} won by A, {result['ties']} ties counted "
          f"one half, {result['n_dropped']} dropped)")
    print(f"P(A>B) = {result['p_a_beats_b']:.4f}, {1 - args.alpha:.0%} percentile-bootstrap "
          f"interval [{result['ci_low']:.4f}, {result['ci_high']:.4f}] (B = {args.resamples})")
    print(f"conclusion (gamma = {args.gamma}): {result['conclusion']}")
    print(f"Noether sample size for gamma = {args.gamma}: {result['noether_n']} pairs")
    print(f"other criteria (delta = {args.delta:g} sigma = {result['delta']:.4g}):")
    for name, verdict in result["criteria"].items():
        print(f"  {name:<16} {verdict}")
    return 0
