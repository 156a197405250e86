"""``evalmc ranks``: k models over d data sets (Demsar 2006): mean ranks, Friedman, Nemenyi,
Wilcoxon-Holm, and the critical-difference diagram.

Wide: one row per data set, one column of scores per model (columns of text are left out and
named on stderr). Long: ``--model COL --score COL --pair-by DATASET``. A data set missing a
model's score is dropped and counted (or an error with ``--no-dropna``).
"""

from __future__ import annotations

import sys

from evalmc.commands import (
    UsageError,
    add_output_options,
    add_table_options,
    check_writable,
    emit,
    float_arg,
    json_text,
    load_table,
    write,
)


def register(sub) -> None:
    parser = sub.add_parser("ranks", help="several models over several data sets: Friedman, "
                            "Nemenyi, Wilcoxon-Holm and the critical-difference diagram")
    parser.add_argument("file", metavar="FILE.csv", help="one row per data set, one numeric "
                        "column per model (higher is better); other columns are ignored")
    parser.add_argument("--pair-by", metavar="COL", help="long format: the column naming "
                        "each run's data set")
    parser.add_argument("--alpha", type=float_arg("alpha"), default=0.05)
    add_table_options(parser)
    add_output_options(parser)
    parser.add_argument("--plot", metavar="FILE.png", help="also draw the critical-difference "
                        "diagram")
    parser.set_defaults(run=run)


def run(args) -> int:
    import numpy as np
    import pandas as pd
    from scipy.stats import studentized_range

    from evalmc.criteria.ranks import friedman, mean_ranks, nemenyi, wilcoxon_holm
    from evalmc.sims.base import Batch
    from evalmc.sims.tables import numeric_column, score_columns

    if not 0 < args.alpha < 1:
        raise UsageError(f"`alpha` must be in (0, 1); got {args.alpha}.")
    for path, option in ((args.plot, "--plot"), (args.out, "--out")):
        if path:
            check_writable(path, option)
    if args.pair_by and args.model is None:
        raise UsageError("`--pair-by` goes with --model and --score (long format); a wide file "
                         "has one row per data set.")
    table = load_table(args, args.pair_by)
    models, text = score_columns(table, exclude=(args.pair_by,))
    if text:
        print(f"evalmc: not models (not numbers): {', '.join(text)}", file=sys.stderr)
    frame = pd.DataFrame({c: numeric_column(table, c, option="FILE") for c in models})
    incomplete = int(frame.isna().any(axis=1).sum())
    if incomplete and not args.dropna:
        row = int(np.flatnonzero(frame.isna().any(axis=1))[0])
        raise UsageError(f"data set {row + 1} misses a model's score; without --no-dropna "
                         "such data sets are dropped and counted.")
    if incomplete:
        print(f"evalmc: dropped {incomplete} data set(s) missing a model's score",
              file=sys.stderr)
    frame = frame.dropna()
    d, k = frame.shape
    if k < 2 or d < 2:
        raise UsageError(f"`FILE` needs 2 models and 2 complete data sets at least; got {k} "
                         f"and {d}.")
    table = frame.to_numpy(float)[None]
    batch = Batch(table[:, :, 0], table[:, :, 1], paired=True, table=table)
    ranks = mean_ranks(table)[0]
    cd = studentized_range.ppf(1 - args.alpha, k, np.inf) / np.sqrt(2) * np.sqrt(
        k * (k + 1) / (6 * d))
    fried = friedman(batch)
    head = (f"{k} models on {d} data sets; Friedman chi-square {fried.statistic[0]:.3f}, "
            f"p = {fried.pvalue[0]:.3g}; Nemenyi critical difference {cd:.3f} at alpha "
            f"{args.alpha:g}")
    names = list(frame.columns)
    rows = []
    for i in range(k):
        for j in range(i + 1, k):
            rows.append({"model_i": names[i], "model_j": names[j],
                         "rank_i": ranks[i], "rank_j": ranks[j],
                         "nemenyi_p": nemenyi(batch, pair=(i, j)).pvalue[0],
                         "wilcoxon_holm_p": wilcoxon_holm(batch, pair=(i, j)).pvalue[0]})
    pairs = pd.DataFrame(rows)
    if args.format == "json":
        write(json_text({"models": k, "data_sets": d, "dropped": incomplete,
                         "friedman_chi2": float(fried.statistic[0]),
                         "friedman_p": float(fried.pvalue[0]), "critical_difference": float(cd),
                         "alpha": args.alpha, "pairs": pairs.to_dict(orient="records")}),
              args.out)
    elif args.format == "csv":
        emit(pairs, "csv", args.out)
    else:
        write(head + "\n" + pairs.to_string(index=False), args.out)
    if args.plot:
        from evalmc.plots import critical_difference

        fig = critical_difference(dict(zip(names, ranks, strict=True)), cd,
                                  title=f"Critical difference (Nemenyi, alpha {args.alpha:g}),"
                                        f" {k} models on {d} data sets")
        fig.savefig(args.plot, dpi=150)
    return 0
