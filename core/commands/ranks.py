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
    """Add ``evalmc ranks`` to `sub`, with :func:`run` as its default; its arguments: the file of
    scores, ``--alpha`` and the table options.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import ranks
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> ranks.register(sub)
    >>> args = sub.choices["ranks"].parse_args(["scores.csv", "--alpha", "0.1"])
    >>> args.alpha, args.pair_by, args.run is ranks.run
    (0.1, None, True)
    """
    parser = sub.add_parser("ranks", help="several models over several data sets: Friedman, "
                            "Nemenyi, Wilcoxon-Holm and the critical-difference diagram")
    parser.add_argument("file", metavar="FILE.csv", help="one row per data set, one numeric "
                        "column per model; columns of text and ids are left out")
    parser.add_argument("--col", action="append", metavar="C", help="a model's column "
                        "(repeatable); default: every column of scores")
    parser.add_argument("--pair-by", metavar="COL", help="long format: the column naming "
                        "each run's data set")
    parser.add_argument("--best", choices=("max", "min"), default="max",
                        help="the best score: max (default) or min (errors, losses)")
    parser.add_argument("--alpha", type=float_arg("alpha"), default=0.05)
    add_table_options(parser)
    add_output_options(parser)
    parser.add_argument("--plot", metavar="FILE.png", help="also draw the critical-difference "
                        "diagram")
    parser.set_defaults(run=run)


def run(args) -> int:
    """Mean ranks, Friedman, Nemenyi and Wilcoxon-Holm of the file's models; the CD diagram.

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
    >>> from evalmc.cli import main
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(tmp.name) / "scores.csv"
    >>> _ = path.write_text("A,B,C\\n0.9,0.8,0.7\\n0.8,0.7,0.9\\n0.7,0.6,0.5\\n0.9,0.7,0.6\\n")
    >>> main(["ranks", str(path)])
    3 models on 4 data sets; Friedman chi-square 3.500, p = 0.174; Nemenyi critical
    difference 1.657 at alpha 0.05
    model_i model_j  rank_i  rank_j  nemenyi_p  wilcoxon_holm_p
          A       B    1.25    2.25   0.333499            0.375
          A       C    1.25    2.50   0.180509            0.500
          B       C    2.25    2.50   0.933422            0.750
    0
    >>> tmp.cleanup()
    """
    from evalmc.analysis.ranks import ranks
    from evalmc.inputs.checks import check_float
    from evalmc.inputs.tables import check_wide, ids_note, numeric_column, score_columns

    check_float("alpha", args.alpha, low=0, high=1, open_low=True, open_high=True)  # as ranks()
    for path, option in ((args.plot, "--plot"), (args.out, "--out")):
        if path:
            check_writable(path, option)
    if args.pair_by and args.model is None:
        raise UsageError("`--pair-by` goes with --model and --score (long format); a wide file "
                         "has one row per data set.")
    table = load_table(args, args.pair_by)
    models, text, ids = (args.col, [], {}) if args.col else score_columns(
        table, exclude=(args.pair_by,))
    if not args.col:
        check_wide(table, text, option="FILE", fix="give --model COL --score COL --pair-by "
                   "DATASET, or name the models' columns with --col")
    res = ranks({c: numeric_column(table, c, option="--col" if args.col else "FILE")
                 for c in models}, alpha=args.alpha, dropna=args.dropna, best=args.best)
    if text:
        print(f"evalmc: not models (not numbers): {', '.join(text)}", file=sys.stderr)
    if ids:
        print(f"evalmc: not models (ids): {ids_note(ids)}; --col C ranks one", file=sys.stderr)
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
