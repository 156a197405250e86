"""``evalmc compare``: is pipeline A better than B on your own paired runs?

The P(A>B) test of Bouthillier et al. (2021) with its percentile-bootstrap interval and
three-way conclusion, beside the single-point, average and one-sided t-test verdicts, and
Noether's number of runs for the chosen gamma.

Pairing: without ``--pair-by``, row i's A score is paired with row i's B score; with it, the A
and B scores of the rows sharing a key are paired (each key may hold one A and one B score).
A pair with a missing score (empty cell or NaN) is dropped and reported on stderr; a cell that
is not a number is an error. A tie counts one half in P(A>B).
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd

from evalmc.commands import UsageError, check_writable, int_arg
from evalmc.criteria.outperform import (
    CONCLUSIONS,
    DELTA_PAPER,
    GAMMA,
    N_RESAMPLES,
    average_delta,
    bootstrap_pmf,
    outperform_test,
    single_point,
    t_oracle,
)
from evalmc.power import noether_sample_size
from evalmc.sims.base import Batch
from evalmc.sims.validation import check_float, check_int


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
    raw = frame[col]
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero((np.isnan(values) & raw.notna().to_numpy()) | np.isinf(values))
    if bad.size:
        row = int(bad[0])
        raise UsageError(f"`{option}` column {col!r} must hold numbers (empty = missing); data "
                         f"row {row + 1} has {raw.iloc[row]!r}.")
    return values


def _by_key(keys, values, side, pair_by):
    present = pd.Series(values, index=keys.to_numpy()).dropna()
    dup = present.index[present.index.duplicated()]
    if len(dup):
        raise UsageError(f"`--pair-by` key {pair_by}={dup[0]} has more than one score for "
                         f"{side}; each key may hold one score per pipeline.")
    return present.reindex(pd.unique(keys.to_numpy()))


def compare(a, b, *, gamma=GAMMA, alpha=0.05, beta=0.05, n_resamples=N_RESAMPLES,
            delta=DELTA_PAPER, sigma=None, seed=0) -> dict:
    """The P(A>B) test and the other verdicts on one set of paired runs (see module doc)."""
    k = a.size
    delta = check_float("delta", delta)
    if sigma is None:
        sigma = float(np.sqrt((np.var(a, ddof=1) + np.var(b, ddof=1)) / 2))
    sigma = check_float("sigma", sigma, low=0, open_low=True)
    seed = check_int("seed", seed, low=0)
    beta = check_float("beta", beta, low=0, high=1, open_low=True, open_high=True)
    wins, ties = int(np.sum(a > b)), int(np.sum(a == b))
    res = outperform_test([wins], [ties], k, gamma=gamma, alpha=alpha, n_resamples=n_resamples,
                          rng=np.random.default_rng(seed))
    batch = Batch(a[None, :], b[None, :], paired=True)
    verdicts = {
        "prob-outperform": CONCLUSIONS[int(res.conclusion[0])],
        "single-point": single_point(delta * sigma)(batch, None).reject[0],
        "average-delta": average_delta(delta * sigma)(batch, None).reject[0],
        "t-oracle": t_oracle(batch).decisions(alpha)[0],
    }
    return {
        "k": k,
        "wins": wins,
        "ties": ties,
        "p_a_beats_b": float(res.p_a_beats_b[0]),
        "ci_low": float(res.ci_low[0]),
        "ci_high": float(res.ci_high[0]),
        "conclusion": CONCLUSIONS[int(res.conclusion[0])],
        "gamma": gamma,
        "alpha": alpha,
        "resamples": n_resamples,
        "noether_n": noether_sample_size(gamma, alpha=alpha, beta=beta),
        "sigma": sigma,
        "delta": delta * sigma,
        "criteria": {name: v if isinstance(v, str) else ("A better" if v else "not better")
                     for name, v in verdicts.items()},
    }


def plot_bootstrap(result: dict):
    """The exact bootstrap distribution of P(A>B), its interval, 0.5 and gamma."""
    from matplotlib.figure import Figure

    k = result["k"]
    pmf = bootstrap_pmf([result["wins"]], [result["ties"]], k)[0]
    values = np.arange(2 * k + 1) / (2 * k)
    fig = Figure(figsize=(6, 3.5), layout="constrained")
    ax = fig.add_subplot()
    ax.bar(values, pmf, width=0.8 / (2 * k), color="C0")
    ax.axvspan(result["ci_low"], result["ci_high"], color="C0", alpha=0.15,
               label=f"{1 - result['alpha']:.0%} interval")
    ax.axvline(0.5, color="k", ls="--", lw=0.8, label="0.5")
    ax.axvline(result["gamma"], color="C3", ls="--", lw=0.8, label=f"gamma = {result['gamma']}")
    ax.set(xlabel="P(A > B) of a bootstrap resample", ylabel="probability", xlim=(0, 1),
           title=f"P(A>B) = {result['p_a_beats_b']:.3f} over {k} pairs: {result['conclusion']}")
    ax.legend(fontsize=8)
    return fig


def run(args) -> int:
    if args.plot:
        check_writable(args.plot, "--plot")
    check_int("resamples", args.resamples, low=1)
    a, b, dropped = read_pairs(args.file, args.a, args.b, args.pair_by)
    if dropped:
        shown = ", ".join(dropped[:5]) + (", ..." if len(dropped) > 5 else "")
        print(f"evalmc: dropped {len(dropped)} pair(s) with only one score: {shown}",
              file=sys.stderr)
    result = compare(a, b, gamma=args.gamma, alpha=args.alpha, beta=args.beta,
                     n_resamples=args.resamples, delta=args.delta, sigma=args.sigma,
                     seed=args.seed)
    result["n_dropped"] = len(dropped)
    if args.plot:
        plot_bootstrap(result).savefig(args.plot, dpi=120)
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
