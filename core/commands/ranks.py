"""``evalmc ranks``: k models over d data sets (Demsar 2006): mean ranks, Friedman, Nemenyi,
Wilcoxon-Holm, and the critical-difference diagram."""

from __future__ import annotations

from evalmc.commands import UsageError, check_writable, emit, float_arg


def register(sub) -> None:
    parser = sub.add_parser("ranks", help="several models over several data sets: Friedman, "
                            "Nemenyi, Wilcoxon-Holm and the critical-difference diagram")
    parser.add_argument("file", metavar="FILE.csv", help="one row per data set, one numeric "
                        "column per model (higher is better); other columns are ignored")
    parser.add_argument("--alpha", type=float_arg("alpha"), default=0.05)
    parser.add_argument("--plot", metavar="FILE.png", help="also draw the critical-difference "
                        "diagram")
    parser.set_defaults(run=run)


def run(args) -> int:
    import numpy as np
    from scipy.stats import studentized_range

    from evalmc.commands.describe import _read
    from evalmc.criteria.ranks import friedman, mean_ranks, nemenyi, wilcoxon_holm
    from evalmc.sims.base import Batch

    if not 0 < args.alpha < 1:
        raise UsageError(f"`alpha` must be in (0, 1); got {args.alpha}.")
    frame = _read(args.file).select_dtypes("number").dropna()
    d, k = frame.shape
    if k < 2 or d < 2:
        raise UsageError(f"`FILE` needs 2 numeric model columns and 2 data set rows at least "
                         f"(complete rows); got {k} and {d}.")
    if args.plot:
        check_writable(args.plot, "--plot")
    table = frame.to_numpy(float)[None]
    batch = Batch(table[:, :, 0], table[:, :, 1], paired=True, table=table)
    ranks = mean_ranks(table)[0]
    cd = studentized_range.ppf(1 - args.alpha, k, np.inf) / np.sqrt(2) * np.sqrt(
        k * (k + 1) / (6 * d))
    fried = friedman(batch)
    print(f"{k} models on {d} data sets; Friedman chi-square {fried.statistic[0]:.3f}, "
          f"p = {fried.pvalue[0]:.3g}; Nemenyi critical difference {cd:.3f} at alpha "
          f"{args.alpha:g}")
    import pandas as pd

    names = list(frame.columns)
    rows = []
    for i in range(k):
        for j in range(i + 1, k):
            rows.append({"model_i": names[i], "model_j": names[j],
                         "rank_i": ranks[i], "rank_j": ranks[j],
                         "nemenyi_p": nemenyi(batch, pair=(i, j)).pvalue[0],
                         "wilcoxon_holm_p": wilcoxon_holm(batch, pair=(i, j)).pvalue[0]})
    emit(pd.DataFrame(rows), "table")
    if args.plot:
        from evalmc.plots import critical_difference

        fig = critical_difference(dict(zip(names, ranks, strict=True)), cd,
                                  title=f"Critical difference (Nemenyi, alpha {args.alpha:g}),"
                                        f" {k} models on {d} data sets")
        fig.savefig(args.plot, dpi=150)
    return 0
