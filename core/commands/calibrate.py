"""``evalmc calibrate``: size and power of criteria under a scenario, over a grid."""

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
from evalmc.criteria.registry import CRITERIA
from evalmc.engine.options import REPS
from evalmc.sims import SCENARIOS

SCENARIO_HELP = f"data-generating process: {', '.join(SCENARIOS)} (evalmc list: parameters)"


def register(sub) -> None:
    """Add ``evalmc calibrate`` to `sub`, with :func:`run` as its default; its arguments: the
    scenario, its grid, the criteria and the run options.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import calibrate
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> calibrate.register(sub)
    >>> args = sub.choices["calibrate"].parse_args(["--scenario", "normal", "--criterion",
    ...                                             "welch-t", "--param", "n_a=5,10"])
    >>> args.param, args.reps, args.alpha, args.run is calibrate.run
    (['n_a=5,10'], 10000, '0.05', True)
    """
    cal = sub.add_parser("calibrate", help="size and power of criteria under a scenario")
    cal.add_argument("--scenario", required=True, metavar="NAME", help=SCENARIO_HELP)
    cal.add_argument("--param", action="append", default=[], metavar="KEY=V1,V2,...",
                     help="scenario parameter; several values make a grid (repeatable)")
    cal.add_argument("--criterion", action="append", required=True, metavar="NAME",
                     help=f"built-in: {', '.join(CRITERIA)}; or name(key=value,...), "
                          "path/to/file.py:function, module:function (repeatable; evalmc list "
                          "describes each)")
    cal.add_argument("--reps", type=int_arg("reps"), default=REPS,
                     help="replications per condition")
    add_target_options(cal)
    cal.add_argument("--alpha", default="0.05", help="level(s), comma-separated")
    cal.add_argument("--plot", metavar="FILE", help="also draw the rates (PNG, PDF or SVG): "
                     "against the first parameter with several values, a panel per value of "
                     "the second, a line per criterion and values of the others")
    add_run_options(cal)
    cal.set_defaults(run=run)


def run(args) -> int:
    """Rejection rates of the criteria over the scenario's grid: write the summary, and the plot.

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
    >>> out = str(pathlib.Path(tmp.name) / "rates.csv")
    >>> main(["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--param",
    ...       "n_a=5,10", "--reps", "200", "--seed", "1", "--quiet", "--format", "csv",
    ...       "--out", out])
    0
    >>> pd.read_csv(out)[["n_a", "criterion", "rate", "ci_low", "ci_high"]].round(4)
       n_a criterion   rate  ci_low  ci_high
    0    5   welch-t  0.030  0.0138   0.0639
    1   10   welch-t  0.055  0.0310   0.0958

    Until every size is known within 0.006, 5,000 replications at most:

    >>> main(["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--param",
    ...       "n_a=5,10", "--target-mcse", "0.006", "--max-reps", "5000", "--block-size",
    ...       "500", "--seed", "1", "--quiet", "--format", "csv", "--out", out])
    0
    >>> pd.read_csv(out)[["n_a", "rate", "n_reps", "target_met"]]
       n_a    rate  n_reps  target_met
    0    5  0.0485    2000        True
    1   10  0.0515    2000        True
    >>> tmp.cleanup()
    """
    grid = parse_grid(args.scenario, args.param)  # names and types, from the registry

    from evalmc.sims import get_scenario
    from evalmc.study.calibration import calibrate

    scenario = get_scenario(args.scenario)
    alphas = []
    for text in args.alpha.split(","):
        try:
            alphas.append(float(text))
        except ValueError:
            raise UsageError(f"`alpha` must be in (0, 1); got {text!r}.") from None
    if args.out:
        check_writable(args.out)
    if args.plot:
        check_writable(args.plot, "--plot")
        varying = [key for key, values in grid.items() if len(values) > 1]
        if not varying:
            raise UsageError("`--plot` needs a --param with several values for its x axis.")
    check_cache(args.cache)
    result = calibrate(scenario, args.criterion, params=grid, n_reps=args.reps, alpha=alphas,
                       seed=args.seed, n_jobs=args.jobs, backend=args.backend,
                       scheduler=args.scheduler, cache=args.cache, block_size=args.block_size,
                       task_seconds=args.task_seconds, progress=False if args.quiet else None,
                       target_mcse=args.target_mcse, max_reps=args.max_reps)
    # loaded with the study: after the validation
    from evalmc.study.rates import POWER_SIGN, reps_title

    summary = result.summary
    table = summary.drop(columns=list(POWER_SIGN), errors="ignore")  # in CSV and JSON only
    emit(table if args.format == "table" else summary, args.format, args.out)
    if args.plot:
        from evalmc.plots import rate_panels

        fixed = ", ".join(f"{k}={v[0]:g}" if isinstance(v[0], float) else f"{k}={v[0]}"
                          for k, v in grid.items() if len(v) == 1)
        panel = varying[1] if len(varying) > 1 else None
        truths = set(summary["truth"])
        what = ("Size" if truths == {"null"} else "Power" if truths == {"alternative"}
                else "Rejection rate")
        fig = rate_panels(summary, x=varying[0], panel=panel, series=varying[2:],
                          title=f"{what} of each criterion by {varying[0]}"
                                + (f", a panel per {panel}" if panel else "")
                                + f" ({args.scenario}; {reps_title(result)}"
                                + (f"; {fixed}" if fixed else "") + ")")
        fig.savefig(args.plot, dpi=150)
    return 0
