"""``evalmc coverage``: bias, SE, RMSE, coverage and width of estimators under a scenario."""

from __future__ import annotations

from evalmc.commands import (
    UsageError,
    add_run_options,
    add_target_options,
    check_cache,
    check_writable,
    emit,
    int_arg,
    parse_grid,
)
from evalmc.commands.calibrate import SCENARIO_HELP
from evalmc.engine.options import REPS
from evalmc.estimators.registry import ESTIMATORS, TARGETS


def register(sub) -> None:
    """Add ``evalmc coverage`` to `sub`, with :func:`run` as its default; its arguments: the
    scenario, its grid, the estimators, the target and the run options.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import coverage
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> coverage.register(sub)
    >>> args = sub.choices["coverage"].parse_args(["--scenario", "normal", "--estimator",
    ...                                            "t-interval"])
    >>> args.target, args.estimator, args.run is coverage.run
    ('mean-a', ['t-interval'], True)
    """
    cov = sub.add_parser("coverage", help="bias, SE, RMSE, coverage and width of estimators")
    cov.add_argument("--scenario", required=True, metavar="NAME", help=SCENARIO_HELP)
    cov.add_argument("--param", action="append", default=[], metavar="KEY=V1,V2,...",
                     help="scenario parameter; several values make a grid (repeatable)")
    cov.add_argument("--estimator", action="append", required=True, metavar="NAME",
                     help=f"{', '.join(ESTIMATORS)} (name(key=value,...) with its parameters: "
                          "evalmc list), or path/to/file.py:function returning "
                          "an estimate, (low, high) or (estimate, low, high) (repeatable)")
    cov.add_argument("--target", default="mean-a",
                     help=f"the estimand: {' or '.join(TARGETS)}, or a number "
                          "(default %(default)s)")
    cov.add_argument("--reps", type=int_arg("reps"), default=REPS,
                     help="replications per condition")
    add_target_options(cov)
    add_run_options(cov)
    cov.add_argument("--plot", metavar="PATH", help="save a figure of coverage against the "
                                                    "parameter that varies")
    cov.set_defaults(run=run)


def run(args) -> int:
    """Bias, SE, RMSE, coverage and width of the estimators: write the summary, and the plot.

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
    >>> out = str(pathlib.Path(tmp.name) / "coverage.csv")
    >>> main(["coverage", "--scenario", "normal", "--estimator", "t-interval", "--reps", "200",
    ...       "--quiet", "--format", "csv", "--out", out])
    0
    >>> pd.read_csv(out)[["n_a", "estimator", "level", "bias", "coverage", "width"]].round(4)
       n_a   estimator  level    bias  coverage  width
    0   10  t-interval   0.95 -0.0004     0.945  1.349

    Until the coverage is known within 0.01 (of a point estimator: the bias):

    >>> main(["coverage", "--scenario", "normal", "--estimator", "t-interval",
    ...       "--target-mcse", "0.01", "--quiet", "--format", "csv", "--out", out])
    0
    >>> pd.read_csv(out)[["n_a", "coverage", "n_reps", "target_met"]]
       n_a  coverage  n_reps  target_met
    0   10    0.9485    2000        True
    >>> tmp.cleanup()
    """
    from evalmc.sims import get_scenario
    from evalmc.study.design import default_grid

    grid = parse_grid(args.scenario, args.param)
    scenario = get_scenario(args.scenario)
    grid = grid or default_grid(scenario)
    for name in args.estimator:  # names and arguments, from the registry
        if not (":" in name and name.rsplit(":", 1)[0].endswith(".py")):
            try:
                ESTIMATORS.resolve(name)
            except ValueError as err:
                raise UsageError(str(err)) from None
    target = args.target
    if target not in TARGETS:
        try:
            target = float(target)
        except ValueError:
            raise UsageError(f"`target` must be {' or '.join(TARGETS)} or a number; got "
                             f"{args.target!r}.") from None
    for path, option in ((args.out, "--out"), (args.plot, "--plot")):
        if path:
            check_writable(path, option)
    check_cache(args.cache)
    from evalmc.study.estimation import run_estimation

    result = run_estimation(grid, scenario, args.estimator, n_reps=args.reps,
                            seed=args.seed, target=target, block_size=args.block_size,
                            n_jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                            cache=args.cache, task_seconds=args.task_seconds,
                            progress=False if args.quiet else None,
                            target_mcse=args.target_mcse, max_reps=args.max_reps)
    emit(result.summary, args.format, args.out)
    if args.plot:
        result.plot(measure="coverage").savefig(args.plot, dpi=120)
    return 0
