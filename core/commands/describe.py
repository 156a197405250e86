"""``evalmc describe``: the descriptive report of run results, one row per column of scores.

Every column of scores is described unless ``--col`` names some; a column of text (model
names, say) is left out and named on stderr, never silently. Missing values are skipped and
counted (``n_missing``), or an error with ``--no-dropna``.
"""

from __future__ import annotations

import sys

from evalmc.commands import (
    UsageError,
    add_output_options,
    add_table_options,
    check_writable,
    json_text,
    load_table,
    write,
)


def register(sub) -> None:
    parser = sub.add_parser(
        "describe", help="median, IQR, min, max, mean, sd, skewness, normality of run results")
    parser.add_argument("file", metavar="FILE.csv", help="CSV file, one run per row")
    parser.add_argument("--col", action="append", metavar="C",
                        help="column to describe (repeatable); default: every column of scores "
                             "(long format: every model)")
    add_table_options(parser)
    add_output_options(parser)
    parser.add_argument("--plot", metavar="FILE.png",
                        help="also write histograms and box-whiskers beside mean ± sd")
    parser.set_defaults(run=run)


def run(args) -> int:
    for path, option in ((args.plot, "--plot"), (args.out, "--out")):
        if path:
            check_writable(path, option)
    from evalmc.estimators.describe import describe_columns
    from evalmc.sims.tables import numeric_column, score_columns

    frame = load_table(args)
    if args.col:
        missing = [c for c in args.col if c not in frame.columns]
        if missing:
            raise UsageError(f"`--col` {missing[0]!r} is not a column of {args.file!r}; its "
                             f"columns: {', '.join(map(str, frame.columns))}.")
        columns = args.col
    else:
        columns, text = score_columns(frame)
        if not columns:
            raise UsageError(f"`FILE` {args.file!r} has no column of numbers; its columns: "
                             f"{', '.join(map(str, frame.columns))}.")
        if text:
            print(f"evalmc: not described (not numbers): {', '.join(text)}", file=sys.stderr)
    numbers = {c: numeric_column(frame, c, option="--col") for c in columns}
    report = describe_columns(numbers, columns, dropna=args.dropna)
    if args.format == "json":  # full precision: K-S and Shapiro p-values can be ~1e-12
        write(json_text(report.to_dict(orient="records")), args.out)
    elif args.format == "csv":
        write(report.to_csv(index=False), args.out)
    else:
        write(report.to_string(index=False, na_rep="-"), args.out)
    if args.plot:
        import numpy as np

        from evalmc.plots import report_figure

        samples = {c: v[~np.isnan(v)] for c, v in numbers.items()}
        report_figure({c: v for c, v in samples.items() if v.size >= 2}).savefig(args.plot,
                                                                                  dpi=120)
    return 0
