"""``evalmc plan``: the design size, or the minimum detectable effect, that gives a criterion
a target power, solved by simulation (:func:`evalmc.plan`)."""

from __future__ import annotations

from evalmc.commands import (
    UsageError,
    add_run_options,
    check_cache,
    check_writable,
    float_arg,
    int_arg,
    json_text,
    parse_grid,
    write,
)
from evalmc.sims import SCENARIOS

SCENARIO_HELP = f"data-generating process: {', '.join(SCENARIOS)} (evalmc list: parameters)"


def register(sub) -> None:
    """Add ``evalmc plan`` to `sub`, with :func:`run` as its default.

    Its arguments: the scenario and its fixed parameters, the criterion, the parameter solved
    and the power sought, the null, the search's bounds, and the run options.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import plan
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> plan.register(sub)
    >>> args = sub.choices["plan"].parse_args(["--scenario", "paired-normal", "--criterion",
    ...                                        "paired-t", "--solve", "n", "--param",
    ...                                        "shift=0.5"])
    >>> args.solve, args.power, args.alpha, args.run is plan.run
    ('n', 0.8, 0.05, True)
    """
    parser = sub.add_parser("plan", help="how many runs, items or data sets for a target "
                                         "power, or the minimum detectable effect")
    parser.add_argument("--scenario", required=True, metavar="NAME", help=SCENARIO_HELP)
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a fixed scenario parameter, the effect to detect among them "
                             "(shift=0.5) (repeatable)")
    parser.add_argument("--criterion", required=True, metavar="NAME",
                        help="the criterion: a built-in name, name(key=value,...), "
                             "path/to/file.py:function or module:function")
    parser.add_argument("--solve", required=True, metavar="PARAM",
                        help="the parameter solved: an integer one (n, n_a, n_items...) for "
                             "the smallest size, shift or delta for the minimum detectable "
                             "effect")
    parser.add_argument("--power", type=float_arg("power"), default=0.8,
                        help="target power (default %(default)s)")
    parser.add_argument("--alpha", type=float_arg("alpha"), default=0.05,
                        help="level (default %(default)s)")
    parser.add_argument("--null", action="append", default=[], metavar="KEY=VALUE",
                        help="parameters of the null condition for the size (default: shift "
                             "or delta at its default) (repeatable)")
    parser.add_argument("--tie", action="append", default=[], metavar="PARAM",
                        help="an integer parameter kept equal to the solved one (--solve n_a "
                             "--tie n_b: equal groups) (repeatable)")
    parser.add_argument("--low", type=float_arg("low"), help="where the search starts "
                        "(default 2, or 0.1 for an effect)")
    parser.add_argument("--high", type=float_arg("high"), help="the largest value tried")
    parser.add_argument("--tol", type=float_arg("tol"), help="relative half-width of the "
                        "interval at which to stop (default 0.1 for a size, or three "
                        "consecutive values; 0.05 for an effect)")
    parser.add_argument("--max-reps", type=int_arg("max-reps"), default=None,
                        help="cap of replications in all (default 400000)")
    parser.add_argument("--plot", metavar="FILE.png", help="save the power curve")
    add_run_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    """Solve the plan; write its table (or CSV, JSON) and the power curve.

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
    >>> from evalmc.cli import main
    >>> main(["plan", "--scenario", "paired-normal", "--param", "shift=0.5", "--param",
    ...       "rho=0.5", "--criterion", "paired-t", "--solve", "n", "--format", "csv",
    ...       "--quiet"])  # doctest: +ELLIPSIS
    solve,value,ci_low,ci_high,target,power,power_mcse,size,size_mcse,bradley,n_reps,points
    n,34,33,34,0.8,0.81125,...,robust,13200,11
    0
    """
    given = _single(parse_grid(args.scenario, args.param), "--param")
    null = _single(parse_grid(args.scenario, args.null), "--null")
    for path, option in ((args.out, "--out"), (args.plot, "--plot")):
        if path:
            check_writable(path, option)
    check_cache(args.cache)
    from evalmc.sims import get_scenario
    from evalmc.study.plan import MAX_REPS, plan

    scenario = get_scenario(args.scenario)
    params = {p.name: p for p in SCENARIOS[args.scenario].params}
    kind = params[args.solve].kind if args.solve in params else None
    bounds = {}
    for label in ("low", "high"):
        value = getattr(args, label)
        if value is not None and kind is int:
            if not value.is_integer():
                raise UsageError(f"`--{label}` must be an integer for {args.solve}, an integer "
                                 f"parameter; got {value:g}.")
            value = int(value)
        bounds[label] = value
    result = plan(scenario, args.criterion, solve=args.solve, power=args.power,
                  alpha=args.alpha, params=given, null=null or None, tie=args.tie,
                  tol=args.tol, max_reps=args.max_reps or MAX_REPS, seed=args.seed,
                  n_jobs=args.jobs, backend=args.backend, cache=args.cache,
                  progress=not args.quiet and None, **bounds)
    if args.format == "json":
        write(json_text(result.to_dict()), args.out)
    elif args.format == "csv":
        write(result.summary().to_csv(index=False), args.out)
    else:
        write(result.report(), args.out)
    if args.plot:
        result.plot().savefig(args.plot, dpi=130)
    return 0


def _single(grid: dict, option: str) -> dict:
    for key, values in grid.items():
        if len(values) != 1:
            raise UsageError(f"`{option}` {key} takes one value; got {len(values)}.")
    return {key: values[0] for key, values in grid.items()}

