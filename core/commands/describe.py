"""``evalmc describe``: the descriptive report of run results, one row per CSV column."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from evalmc.commands import UsageError, check_writable, emit


def register(sub) -> None:
    parser = sub.add_parser(
        "describe", help="median, IQR, min, max, mean, sd, skewness, normality of run results")
    parser.add_argument("file", metavar="FILE.csv", help="CSV file, one run per row")
    parser.add_argument("--col", action="append", metavar="C",
                        help="column to describe (repeatable); default: every numeric column")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="also write histograms and box-whiskers beside mean ± sd")
    parser.set_defaults(run=run)


def run(args) -> int:
    from evalmc.estimators.describe import describe_columns

    frame = _read(args.file)
    if args.col:
        missing = [c for c in args.col if c not in frame.columns]
        if missing:
            raise UsageError(f"`--col` {missing[0]!r} is not a column of {args.file!r}; its "
                             f"columns: {', '.join(map(str, frame.columns))}.")
    if args.plot:
        check_writable(args.plot, "--plot")
    report = describe_columns(frame, args.col)
    if args.format == "json":  # full precision: K-S and Shapiro p-values can be ~1e-12
        print(json.dumps(report.to_dict(orient="records"), indent=2))
    else:
        emit(report, "table")
    if args.plot:
        from evalmc.plots import report_figure

        samples = {c: frame[c].to_numpy(dtype=float) for c in report["column"]}
        report_figure(samples).savefig(args.plot, dpi=120)
    return 0


if TYPE_CHECKING:
    import pandas as pd


def _read(file: str) -> pd.DataFrame:
    import pandas as pd

    if not Path(file).is_file():
        raise UsageError(f"`FILE` must be an existing CSV file; got {file!r}.")
    try:
        return pd.read_csv(file)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise UsageError(f"`FILE` {file!r} is not a readable CSV file: {err}") from None
