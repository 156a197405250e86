"""``evalmc describe``: the descriptive report of run results, one row per column of scores.

Its ``iqr`` is the median of the upper half of the runs minus that of the lower half (the
median left out when n is odd), as the table's last line says; numpy's default percentiles
interpolate, and differ on few runs.

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
    """Add ``evalmc describe`` to `sub`, with :func:`run` as its default; its arguments: the runs'
    file and the columns to describe.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import describe
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> describe.register(sub)
    >>> args = sub.choices["describe"].parse_args(["runs.csv", "--col", "A", "--col", "B"])
    >>> args.col, args.dropna, args.run is describe.run
    (['A', 'B'], True, True)
    """
    parser = sub.add_parser(
        "describe", help="median, IQR (medians of the upper and lower halves), min, max, "
        "mean, sd, skewness, normality of run results")
    parser.add_argument("file", metavar="FILE.csv", help="CSV file, one run per row")
    parser.add_argument("--col", action="append", metavar="C",
                        help="column to describe (repeatable); default: every column of scores "
                             "(long format: every model)")
    parser.add_argument("--best", choices=("min", "max"), default="min",
                        help="which end of the scores is best, for the flag of mean - sd below "
                             "the best run (min, for errors and losses; the default) or mean + "
                             "sd above it (max)")
    add_table_options(parser)
    add_output_options(parser)
    parser.add_argument("--plot", metavar="FILE.png",
                        help="also write histograms and box-whiskers beside mean ± sd")
    parser.set_defaults(run=run)


def run(args) -> int:
    """The descriptive report of the file's columns of scores: write it, and the plot.

    Parameters
    ----------
    args : argparse.Namespace
        The options of the parser :func:`register` adds.

    Returns
    -------
    int
        The exit status: 0.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> import pandas as pd
    >>> from evalmc.cli import main
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path, out = pathlib.Path(tmp.name) / "runs.csv", str(pathlib.Path(tmp.name) / "out.csv")
    >>> _ = path.write_text("seed,A,B\\n0,0.91,0.90\\n1,0.93,0.91\\n2,0.90,0.91\\n"
    ...                     "3,0.94,0.92\\n4,0.92,0.90\\n")
    >>> main(["describe", str(path), "--col", "A", "--col", "B", "--format", "csv", "--out", out])
    0
    >>> pd.read_csv(out)[["column", "n", "mean", "sd", "median", "shapiro_p"]].round(4)
      column  n   mean      sd  median  shapiro_p
    0      A  5  0.920  0.0158    0.92     0.9672
    1      B  5  0.908  0.0084    0.91     0.3140
    >>> tmp.cleanup()
    """
    for path, option in ((args.plot, "--plot"), (args.out, "--out")):
        if path:
            check_writable(path, option)
    from evalmc.estimators.describe import IQR_NOTE, describe_columns
    from evalmc.inputs.tables import check_wide, ids_note, numeric_column, score_columns

    frame = load_table(args)
    text, ids = [], {}
    if args.col:
        missing = [c for c in args.col if c not in frame.columns]
        if missing:
            raise UsageError(f"`--col` {missing[0]!r} is not a column of {args.file!r}; its "
                             f"columns: {', '.join(map(str, frame.columns))}.")
        columns = args.col
    else:
        columns, text, ids = score_columns(frame)
        if not columns:
            raise UsageError(f"`FILE` {args.file!r} has no column of numbers; its columns: "
                             f"{', '.join(map(str, frame.columns))}.")
        check_wide(frame, text, option="FILE", fix="give --model COL --score COL to describe "
                   "each model, or name columns with --col to pool the rows")
    numbers = {c: numeric_column(frame, c, option="--col") for c in columns}
    report = describe_columns(numbers, columns, dropna=args.dropna, best=args.best)
    if text:
        print(f"evalmc: not described (not numbers): {', '.join(text)}", file=sys.stderr)
    if ids:
        print(f"evalmc: not described (ids): {ids_note(ids)}; --col C describes one",
              file=sys.stderr)
    if args.format == "json":  # full precision: K-S and Shapiro p-values can be ~1e-12
        write(json_text(report.to_dict(orient="records")), args.out)
    elif args.format == "csv":
        write(report.to_csv(index=False), args.out)
    else:
        note = f"\n{IQR_NOTE}" if report["iqr"].notna().any() else ""
        write(report.to_string(index=False, na_rep="-") + note, args.out)
    if args.plot:
        import numpy as np

        from evalmc.plots import report_figure

        samples = {c: v[~np.isnan(v)] for c, v in numbers.items()}
        report_figure({c: v for c, v in samples.items() if v.size >= 2}).savefig(args.plot,
                                                                                  dpi=120)
    return 0
