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
    from evalmc.analysis.ranks import ranks
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
    res = ranks({c: numeric_column(table, c, option="FILE") for c in models},
                alpha=args.alpha, dropna=args.dropna)
    if res.dropped:
        print(f"evalmc: dropped {res.dropped} data set(s) missing a model's score",
              file=sys.stderr)
    if args.format == "json":
        write(json_text(res.to_dict()), args.out)
    elif args.format == "csv":
        emit(res.pairs, "csv", args.out)
    else:
        write(res.headline() + "\n" + res.pairs.to_string(index=False), args.out)
    if args.plot:
        res.plot().savefig(args.plot, dpi=150)
    return 0
