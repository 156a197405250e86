"""``evalmc ranks``: k models over d data sets (Demsar 2006): mean ranks, Friedman, Nemenyi,
Wilcoxon-Holm, and the critical-difference diagram.

Wide: one row per data set, one column of scores per model (columns of text are left out and
named on stderr). Long: ``--model COL --score COL --pair-by DATASET``, one run per model and
data set, or several (seeds) averaged with ``--mean-runs``. A data set missing a model's score
is dropped and counted (or an error with ``--no-dropna``). The first line says which scores
rank first (``--best``); scores named like losses or errors ranked highest-first are pointed
out on stderr.
"""

from __future__ import annotations

import re
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
    >>> args.alpha, args.pair_by, args.mean_runs, args.run is ranks.run
    (0.1, None, False, True)
    """
    parser = sub.add_parser("ranks", help="several models over several data sets: Friedman, "
                            "Nemenyi, Wilcoxon-Holm and the critical-difference diagram")
    parser.add_argument("file", metavar="FILE.csv", help="one row per data set, one numeric "
                        "column per model; columns of text and ids are left out")
    parser.add_argument("--col", action="append", metavar="C", help="a model's column "
                        "(repeatable); default: every column of scores")
    parser.add_argument("--pair-by", metavar="COL", help="long format: the column naming "
                        "each run's data set")
    parser.add_argument("--mean-runs", action="store_true", help="long format: average each "
                        "model's runs on a data set (several seeds) before ranking; without "
                        "it, a data set holds one run per model")
    parser.add_argument("--best", choices=("max", "min"), default="max",
                        help="the best score: max (default) or min (errors, losses)")
    parser.add_argument("--alpha", type=float_arg("alpha"), default=0.05)
    add_table_options(parser)
    add_output_options(parser)
    parser.add_argument("--plot", metavar="FILE.png", help="also draw the critical-difference "
                        "diagram")
    parser.set_defaults(run=run)


def _check_args(args) -> None:
    """The options' rules, before the file is read."""
    from evalmc.inputs.checks import check_float

    check_float("alpha", args.alpha, low=0, high=1, open_low=True, open_high=True)  # as ranks()
    for path, option in ((args.plot, "--plot"), (args.out, "--out")):
        if path:
            check_writable(path, option)
    if args.pair_by and args.model is None:
        raise UsageError("`--pair-by` goes with --model and --score (long format); a wide file "
                         "has one row per data set.")
    if args.mean_runs and not (args.model and args.pair_by):
        raise UsageError("`--mean-runs` averages a long file's runs of each model on each data "
                         "set: give it with --model COL --score COL --pair-by DATASET.")


def _say_left_out(text, ids, dropped) -> None:
    """Name on stderr the columns that are not models and the data sets dropped."""
    from evalmc.inputs.tables import ids_note

    if text:
        print(f"evalmc: not models (not numbers): {', '.join(text)}", file=sys.stderr)
    if ids:
        print(f"evalmc: not models (ids): {ids_note(ids)}; --col C ranks one", file=sys.stderr)
    if dropped:
        print(f"evalmc: dropped {dropped} data set(s) missing a model's score",
              file=sys.stderr)


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
    3 models on 4 data sets, higher scores better; Friedman chi-square 3.500, p = 0.174;
    Nemenyi critical difference 1.657 at alpha 0.05
    model_i model_j  rank_i  rank_j  nemenyi_p  wilcoxon_holm_p
          A       B    1.25    2.25   0.333499            0.375
          A       C    1.25    2.50   0.180509            0.500
          B       C    2.25    2.50   0.933422            0.750
    0
    >>> tmp.cleanup()
    """
    from evalmc.analysis.ranks import ranks
    from evalmc.inputs.tables import check_wide, numeric_column, score_columns

    _check_args(args)
    table = _mean_runs(args) if args.mean_runs else _one_run_each(args)
    models, text, ids = (args.col, [], {}) if args.col else score_columns(
        table, exclude=(args.pair_by,))
    if args.best == "max":
        _say_if_losses([str(m) for m in models] if args.model is None else [args.score])
    if not args.col:
        check_wide(table, text, option="FILE", fix="give --model COL --score COL --pair-by "
                   "DATASET, or name the models' columns with --col")
    res = ranks({c: numeric_column(table, c, option="--col" if args.col else "FILE")
                 for c in models}, alpha=args.alpha, dropna=args.dropna, best=args.best)
    _say_left_out(text, ids, res.dropped)
    if args.format == "json":
        write(json_text(res.to_dict()), args.out)
    elif args.format == "csv":
        emit(res.pairs, "csv", args.out)
    else:
        write(res.headline() + "\n" + res.pairs.to_string(index=False), args.out)
    if args.plot:
        res.plot().savefig(args.plot, dpi=150)
    return 0


def _one_run_each(args):
    """The file as a table of one score per data set and model; a data set holding several
    runs of a model is refused, naming ``--mean-runs``."""
    try:
        return load_table(args, args.pair_by)
    except UsageError as err:
        if args.pair_by and "two runs of model" in str(err):
            raise UsageError(f"{str(err).rstrip('.')}; --mean-runs averages them.") from None
        raise


def _mean_runs(args):
    """The long file as a table of each model's mean score per data set (missing scores
    skipped, or an error without ``args.dropna``), the runs averaged said on stderr."""
    import numpy as np
    import pandas as pd

    from evalmc.inputs.tables import drop_missing, key_column, numeric_column, read_table, wide

    try:
        frame = read_table(args.file)
        for option, col in (("--model", args.model), ("--pair-by", args.pair_by)):
            if col not in frame.columns:
                raise ValueError(f"`{option}` {col!r} is not a column of {args.file!r}; its "
                                 f"columns: {', '.join(map(str, frame.columns))}.")
        values = numeric_column(frame, args.score, option="--score")
        drop_missing(values, dropna=args.dropna, option="--score", column=args.score)
        runs = pd.DataFrame({
            args.pair_by: key_column(frame, args.pair_by, option="--pair-by").to_numpy(),
            args.model: key_column(frame, args.model, option="--model").to_numpy(),
            args.score: values})
        scores = runs.groupby([args.pair_by, args.model], sort=False)[args.score]
        means, counts = scores.mean().reset_index(), scores.count()
        means.attrs.update(frame.attrs, decimal=".")
        table = wide(means, args.model, args.score, args.pair_by)
    except ValueError as err:
        raise UsageError(str(err)) from None
    skipped = int(np.isnan(values).sum())
    low, high = int(counts[counts > 0].min()), int(counts.max())
    print(f"evalmc: averaged {int(counts.sum())} runs into {int((counts > 0).sum())} means of "
          f"a model on a data set ({low if low == high else f'{low} to {high}'} runs each"
          + (f"; {skipped} missing score(s) skipped" if skipped else "") + ")", file=sys.stderr)
    return table


#: Words of a column name that read like a loss or an error (lower is better).
_LOSS_WORDS = re.compile(r"loss|error|err|mse|rmse|mae|nll|nmse|perplexity|ppl|wer|cer|regret")


def _say_if_losses(names) -> None:
    """Say on stderr which of `names` read like losses or errors, ranked highest-first."""
    losses = [name for name in names if any(
        _LOSS_WORDS.fullmatch(word) or word.endswith(("loss", "error"))
        for word in re.split(r"[^a-z0-9]+", name.lower()))]
    if losses:
        shown = ", ".join(map(repr, losses[:3])) + (", ..." if len(losses) > 3 else "")
        print(f"evalmc: {shown} read{'s' * (len(losses) == 1)} like a loss or an error, but "
              "higher scores rank first (--best max): give --best min if lower is better.",
              file=sys.stderr)
