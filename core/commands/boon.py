"""``evalmc boon``: Boo_n of your own runs, non-parametric and Gaussian, with intervals.

The runs are a column of a wide file (``--test COL``), or a model of a long one (``--model COL
--score COL --test MODEL``, where ``--val COL`` names a second score column). Missing scores are
skipped and counted on stderr (or an error with ``--no-dropna``); with ``--val``, a run missing
either score is skipped.
"""

from __future__ import annotations

import sys
import warnings

from evalmc.commands import (
    UsageError,
    add_output_options,
    add_table_options,
    check_writable,
    int_arg,
    json_text,
    load_table,
    write,
)
from evalmc.estimators.registry import BEST, CI_METHODS


def register(sub) -> None:
    """Add ``evalmc boon`` to `sub`, with :func:`run` as its default; its arguments: the runs' file,
    ``--n`` and the options of the estimates.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import boon
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> boon.register(sub)
    >>> args = sub.choices["boon"].parse_args(["runs.csv", "--n", "5"])
    >>> args.n, args.method, args.resamples, args.run is boon.run
    (5, 'percentile', 10000, True)
    """
    parser = sub.add_parser("boon", help="expected best-out-of-n (Boo_n) of runs in a CSV")
    parser.add_argument("file", metavar="FILE.csv")
    parser.add_argument("--n", type=int_arg("n"), required=True, help="pool size n")
    parser.add_argument("--test", default="", help="column of test scores (long format: the "
                        "model; default: the only one)")
    parser.add_argument("--val", help="column of validation scores choosing the best run "
                                      "(default: the test scores)")
    parser.add_argument("--best", choices=BEST, default="max")
    parser.add_argument("--level", "--confidence", type=float, default=0.95,
                        help="confidence level of the intervals (default %(default)s)")
    parser.add_argument("--method", choices=CI_METHODS, default="percentile",
                        help="bootstrap: resample runs, or smoothed with a Gaussian kernel")
    parser.add_argument("--resamples", type=int_arg("resamples"), default=10_000)
    parser.add_argument("--seed", type=int_arg("seed"), default=0)
    add_table_options(parser)
    add_output_options(parser)
    parser.add_argument("--plot", metavar="FILE.png", help="histogram with the estimates")
    parser.set_defaults(run=run)


def summarise(test, val, *, n, best, level, method, resamples, seed) -> dict:
    """The ``evalmc boon`` record: ``n``, ``m``, the ``nonparametric`` and ``parametric`` Boo_n
    estimates, each with its ``*_ci`` ``[low, high]``, and the test scores' ``mean`` and ``median``;
    the Gaussian estimate (or its interval) is NaN, with a warning, where the validation scores are
    all equal."""
    import numpy as np

    from evalmc.estimators.boon import boon_interval

    record = {"n": n, "m": int(test.size)}
    for estimator in ("nonparametric", "parametric"):
        with np.errstate(invalid="ignore", divide="ignore"):  # said below, with the reason
            res = boon_interval(test, val, n=n, estimator=estimator, method=method,
                                level=level, n_resamples=resamples, best=best,
                                seed=np.random.default_rng(seed))
        record[estimator] = res.estimate
        record[f"{estimator}_ci"] = [res.low, res.high]
    if np.isnan(record["parametric"]):
        warnings.warn("parametric and parametric_ci are undefined: the validation scores are "
                      "all equal, so they have no correlation with the test scores; "
                      "nonparametric stands",
                      stacklevel=2)
    elif np.isnan(record["parametric_ci"]).any():
        warnings.warn(f"parametric_ci is undefined: in {np.isnan(res.replicates).sum()} of "
                      f"{resamples} resamples the validation scores are all equal (no "
                      "correlation with the test scores); it needs more runs of distinct "
                      "validation scores, or --method smoothed", stacklevel=2)
    record["mean"] = float(test.mean())
    record["median"] = float(np.median(test))
    return record


def run(args) -> int:
    """Estimate Boo_n of the runs in the file, with intervals; write them, and the plot.

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
    >>> path = pathlib.Path(tmp.name) / "runs.csv"
    >>> _ = path.write_text("seed,A\\n0,0.91\\n1,0.93\\n2,0.90\\n3,0.94\\n4,0.92\\n")
    >>> main(["boon", str(path), "--test", "A", "--n", "3", "--resamples", "200"])
            quantity                value
                   n                    3
                   m                    5
       nonparametric                0.932
    nonparametric_ci  0.917162 to 0.93912
          parametric             0.933381
       parametric_ci 0.918435 to 0.942498
                mean                 0.92
              median                 0.92
    0
    >>> tmp.cleanup()
    """
    for path, option in ((args.plot, "--plot"), (args.out, "--out")):
        if path:
            check_writable(path, option)
    test, val, dropped = _runs(args)
    if dropped:
        print(f"evalmc: skipped {dropped} run(s) missing a score", file=sys.stderr)
    record = summarise(test, val, n=args.n, best=args.best, level=args.level,
                       method=args.method, resamples=args.resamples, seed=args.seed)
    if test.size < args.n:
        print(f"evalmc: warning: m = {test.size} runs is fewer than n = {args.n}: Boo_n "
              "extrapolates beyond the runs you have.", file=sys.stderr)
    if args.format == "json":
        write(json_text(record), args.out)
    else:
        import pandas as pd

        rows = [(k, f"{v[0]:.6g} to {v[1]:.6g}" if isinstance(v, list) else f"{v:.6g}")
                for k, v in record.items()]
        if args.format == "csv":
            flat = {k: v for key, value in record.items() for k, v in (
                ((key, value),) if not isinstance(value, list)
                else ((f"{key}_low", value[0]), (f"{key}_high", value[1])))}
            write(pd.DataFrame([flat]).to_csv(index=False), args.out)
        else:
            write(pd.DataFrame(rows, columns=["quantity", "value"]).to_string(index=False),
                  args.out)
    if args.plot:
        _plot(test, val, record).savefig(args.plot, dpi=120)
    return 0


def _runs(args):
    """Test scores, validation scores (or None) and the count of runs skipped for a missing
    score, from the command's file."""
    import numpy as np

    from evalmc.inputs.tables import numeric_column, only_score_column
    from evalmc.sims.scores import score_column

    frame = load_table(args)
    test_col = args.test or only_score_column(
        frame, option="--test", fix="give --model COL --score COL --test MODEL for one "
        "model's runs, or name the column with --test to use every row")
    if args.val is None:
        test = score_column(frame, test_col, option="--test", dropna=args.dropna)
        return test, None, _missing(frame, test_col)
    if args.model is not None:
        val_frame, val_col = load_table(_with(args, score=args.val)), test_col
    else:
        val_frame, val_col = frame, args.val
    test = numeric_column(frame, test_col, option="--test")
    val = numeric_column(val_frame, val_col, option="--val")
    missing = np.isnan(test) | np.isnan(val)
    skipped = int(missing.sum()) if args.model is None else (
        _missing(frame, test_col) + _missing(val_frame, val_col))
    if skipped and not args.dropna:
        raise UsageError(f"`--test` {test_col!r} or `--val` misses a score; without "
                         "--no-dropna runs missing one are skipped and counted.")
    test, val = test[~missing], val[~missing]
    if test.size < 2 or np.ptp(test) == 0:
        raise UsageError(f"`--test` {test_col!r} needs at least 2 distinct scores; got "
                         f"{test.size} complete runs.")
    return test, val, skipped


def _missing(frame, column) -> int:
    """Runs of `column` whose score cell is empty (in long format, not the runs a model lacks)."""
    if "missing" in frame.attrs:
        return int(frame.attrs["missing"].get(str(column), 0))
    return int(frame[column].isna().sum())


def _with(args, **changes):
    import argparse

    return argparse.Namespace(**{**vars(args), **changes})


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
