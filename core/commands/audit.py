"""``evalmc audit``: on data like your evaluation's, which tests hold their level, how much
power they have, and whether their intervals cover (:func:`evalmc.audit`)."""

from __future__ import annotations

from evalmc.commands import (
    UsageError,
    add_run_options,
    check_cache,
    check_writable,
    int_arg,
    json_text,
    write,
)
from evalmc.engine.options import AUDIT_ALT_REPS as ALT_REPS
from evalmc.engine.options import AUDIT_REPS as NULL_REPS


def register(sub) -> None:
    """Add ``evalmc audit`` to `sub`, with :func:`run` as its default; its arguments: the item-level
    file, the two models, what to read, the procedures and intervals, the differences, and the run
    options.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import audit
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> audit.register(sub)
    >>> args = sub.choices["audit"].parse_args(["items.csv", "--a", "x", "--b", "y",
    ...                                         "--delta", "0.01,0.02"])
    >>> args.file, args.delta, args.reps, args.run is audit.run
    (['items.csv'], '0.01,0.02', 5300, True)
    """
    parser = sub.add_parser("audit", help="size, power and coverage of the tests and error "
                                          "bars of your own evaluation, on data like it")
    parser.add_argument("file", metavar="FILE", nargs="+",
                        help="item-level results: CSV or JSONL table (model, item, score), "
                             "lm-evaluation-harness samples_*.jsonl or .json, results file or "
                             "output folder, inspect_ai .json or .eval; several files (a log "
                             "per model) are stacked")
    parser.add_argument("--a", metavar="MODEL", help="model A")
    parser.add_argument("--b", metavar="MODEL", help="model B")
    parser.add_argument("--models", nargs="+", metavar="MODEL",
                        help="instead of --a and --b: several models, every pair audited on "
                             "its own, the p-values adjusted by Holm over the pairs")
    parser.add_argument("--metric", help="the score: a table's column (default score), a "
                                         "harness metric (acc) or an inspect_ai scorer")
    parser.add_argument("--item", default="item", metavar="COL",
                        help="a table's column of item ids (default %(default)s)")
    parser.add_argument("--model", metavar="COL",
                        help="a table's column of model names (default model)")
    parser.add_argument("--cluster", metavar="COL",
                        help="column (or doc/metadata field) of the items' clusters")
    parser.add_argument("--sample", metavar="COL",
                        help="a table's column of sample indices (repeated generations)")
    parser.add_argument("--fmt", choices=("csv", "jsonl", "lm-eval", "lm-eval-array",
                                          "lm-eval-results", "lm-eval-folder", "inspect"),
                        help="the file's format (default: from its name and content)")
    parser.add_argument("--task", action="append", metavar="NAME",
                        help="an lm-evaluation-harness task (or group) to read, repeatable; "
                             "default: every task of a results file or folder")
    parser.add_argument("--label", action="append", metavar="FILE=NAME",
                        help="the model name of the scores in FILE (a file or folder, or a "
                             "file's name), repeatable: tells two runs of one model apart")
    parser.add_argument("--common", action="store_true",
                        help="keep the items both models have; by default models scored on "
                             "different items are refused")
    parser.add_argument("--delta", default="", metavar="D1,D2,...",
                        help="differences A - B in score points at which to report power")
    parser.add_argument("--criterion", action="append", metavar="NAME",
                        help="a procedure (criterion, or file.py:function) to audit, "
                             "repeatable; default: the usual ones for your data")
    parser.add_argument("--estimator", action="append", metavar="NAME",
                        help="an interval of the difference to audit, repeatable")
    parser.add_argument("--alpha", type=float, default=0.05, help="level of the procedures")
    parser.add_argument("--reps", type=int_arg("reps"), default=NULL_REPS,
                        help="replications under the null (default %(default)s: MCSE of a 5%% "
                             "size at most 0.003)")
    parser.add_argument("--reps-alt", type=int_arg("reps-alt"), default=ALT_REPS,
                        help="replications under each alternative (default %(default)s)")
    parser.add_argument("--plot", metavar="FILE.png", help="save the audit's figure")
    parser.add_argument("--report", metavar="FILE.md",
                        help="also write the audit as Markdown: its tables, recommendation "
                             "and figure (FILE.png beside it; with --models, FILE-k.png for "
                             "pair k)")
    add_run_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    """Audit the procedures and intervals on data simulated like the file; write the report.

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
    See :func:`evalmc.study.audit.audit` and the README's worked example.
    """
    try:
        deltas = [float(d) for d in args.delta.split(",") if d.strip()]
    except ValueError:
        raise UsageError(f"`--delta` must be numbers separated by commas; got "
                         f"{args.delta!r}.") from None
    _check_models(args)
    for path, option in ((args.out, "--out"), (args.plot, "--plot"), (args.report, "--report")):
        if path:
            check_writable(path, option)
    check_cache(args.cache)
    options = {"metric": args.metric, "cluster": args.cluster, "sample": args.sample,
               "item": args.item, "model": args.model, "fmt": args.fmt, "tasks": args.task,
               "labels": _labels(args.label), "common": args.common, "deltas": deltas,
               "criteria": args.criterion, "estimators": args.estimator, "alpha": args.alpha,
               "n_reps": args.reps, "n_reps_alt": args.reps_alt, "seed": args.seed,
               "n_jobs": args.jobs, "backend": args.backend, "cache": args.cache,
               "progress": False if args.quiet else None}
    if args.models:
        from evalmc.study.audit_models import audit_models

        result = audit_models(args.file, args.models, **options)
        table = result.table
    else:
        from evalmc.study.audit import audit

        result = audit(args.file, args.a, args.b, **options)
        table = result.verdicts.merge(result.sizes, on="procedure").merge(
            result.detectable, on="procedure")
    if args.format == "json":
        write(json_text(result.to_dict()), args.out)
    elif args.format == "csv":
        write(table.to_csv(index=False), args.out)
    else:
        write(result.report(), args.out)
    if args.plot:
        result.plot().savefig(args.plot, dpi=120)
    if args.report:
        result.markdown(args.report)
    return 0


def _check_models(args) -> None:
    """Raise UsageError unless the models are named once: ``--a`` and ``--b``, or
    ``--models`` (at least two, distinct, without ``--plot``)."""
    if args.models is not None:
        if args.a or args.b or len(args.models) < 2 or len(set(args.models)) < len(args.models):
            raise UsageError("`--models` must name at least 2 distinct models, without `--a` "
                             f"and `--b`; got {args.models}.")
        if args.plot:
            raise UsageError("`--plot` draws one pair's audit; with `--models`, `--report "
                             "FILE.md` writes each pair's figure.")
    elif not (args.a and args.b):
        raise UsageError("`--a` and `--b` must name the two models to audit (or `--models` "
                         "several).")


def _labels(given) -> dict | None:
    """The ``--label FILE=NAME`` options as a dict (None when there are none)."""
    if not given:
        return None
    labels = {}
    for text in given:
        file, _, name = text.rpartition("=")
        if not file or not name.strip():
            raise UsageError(f"`--label` must be FILE=NAME; got {text!r}.")
        labels[file] = name
    return labels
