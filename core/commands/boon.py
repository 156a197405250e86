"""``evalmc boon``: Boo_n of your own runs, non-parametric and Gaussian, with intervals."""

from __future__ import annotations

import json
import sys

from evalmc.commands import check_writable, int_arg

#: As ``evalmc.estimators.boon.BEST`` and ``CI_METHODS`` (a test keeps them equal; the
#: estimators are not imported to parse).
BEST = ("max", "min")
CI_METHODS = ("percentile", "smoothed")


def register(sub) -> None:
    parser = sub.add_parser("boon", help="expected best-out-of-n (Boo_n) of runs in a CSV")
    parser.add_argument("file", metavar="FILE.csv")
    parser.add_argument("--n", type=int_arg("n"), required=True, help="pool size n")
    parser.add_argument("--test", default="", help="column of test scores (default: the only "
                                                   "numeric column)")
    parser.add_argument("--val", help="column of validation scores choosing the best run "
                                      "(default: the test scores)")
    parser.add_argument("--best", choices=BEST, default="max")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--method", choices=CI_METHODS, default="percentile",
                        help="bootstrap: resample runs, or smoothed with a Gaussian kernel")
    parser.add_argument("--resamples", type=int_arg("resamples"), default=10_000)
    parser.add_argument("--seed", type=int_arg("seed"), default=0)
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument("--plot", metavar="FILE.png", help="histogram with the estimates")
    parser.set_defaults(run=run)


def summarise(test, val, *, n, best, confidence, method, resamples, seed) -> dict:
    """The ``evalmc boon`` record: Boo_n estimates with intervals, mean, median, m, n."""
    import numpy as np

    from evalmc.estimators.boon import boon_interval

    record = {"n": n, "m": int(test.size)}
    for estimator in ("nonparametric", "parametric"):
        res = boon_interval(test, val, n=n, estimator=estimator, method=method,
                            confidence=confidence, n_resamples=resamples, best=best,
                            rng=np.random.default_rng(seed))
        record[estimator] = res.estimate
        record[f"{estimator}_ci"] = [res.low, res.high]
    record["mean"] = float(test.mean())
    record["median"] = float(np.median(test))
    return record


def run(args) -> int:
    import pandas as pd

    from evalmc.sims.scores import read_scores

    if args.plot:
        check_writable(args.plot, "--plot")
    test = read_scores(args.file, args.test, option="--test")
    val = read_scores(args.file, args.val, option="--val") if args.val else None
    record = summarise(test, val, n=args.n, best=args.best, confidence=args.confidence,
                       method=args.method, resamples=args.resamples, seed=args.seed)
    if test.size < args.n:
        print(f"evalmc: warning: m = {test.size} runs is fewer than n = {args.n}: Boo_n "
              "extrapolates beyond the runs you have.", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(record, indent=2))
    else:
        rows = [(k, f"{v[0]:.6g} to {v[1]:.6g}" if isinstance(v, list) else f"{v:.6g}")
                for k, v in record.items()]
        print(pd.DataFrame(rows, columns=["quantity", "value"]).to_string(index=False))
    if args.plot:
        _plot(test, val, record).savefig(args.plot, dpi=120)
    return 0


def _plot(test, val, record):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9 if val is not None else 5, 3.8), layout="constrained")
    axes = fig.subplots(1, 2 if val is not None else 1, squeeze=False)[0]
    axes[0].hist(test, bins="auto", color="0.75")
    for key, style in (("mean", ":"), ("median", "-."), ("nonparametric", "-"),
                       ("parametric", "--")):
        axes[0].axvline(record[key], ls=style, color="k", label=f"{key} {record[key]:.4g}")
    axes[0].set(xlabel="test score", ylabel="runs",
                title=f"Boo_{record['n']} of {record['m']} runs")
    axes[0].legend(fontsize=8)
    if val is not None:
        axes[1].scatter(val, test, s=8)
        axes[1].set(xlabel="validation score", ylabel="test score")
    return fig
