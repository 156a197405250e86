"""``evalmc plan``: the design size, or the minimum detectable effect, that gives a criterion
a target power, solved by simulation (:func:`evalmc.plan`); with ``--cost``, the cheapest
design of two sizes with a cost per unit each and the frontier of power against cost
(:func:`evalmc.plan_cost`)."""

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
    and the power sought, the null, the search's bounds, two sizes with their unit costs
    (``--cost``, ``--unit-costs``), and the run options.

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
    parser.add_argument("--criterion", required=True, action="append", metavar="NAME",
                        help="the criterion, one: a built-in name, name(key=value,...), "
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
    parser.add_argument("--cost", metavar="FIRST[=V1,V2,...]",
                        help="two sizes with a cost each: --solve the second is solved at "
                             "each value of the first, listed or (without values) searched, "
                             "and the cheapest design is reported with the frontier of power "
                             "against cost")
    parser.add_argument("--unit-costs", metavar="C1,C2",
                        help="with --cost: the cost of one unit of the first size and of the "
                             "second, both > 0 (default 1,1)")
    parser.add_argument("--plot", metavar="FILE.png", help="save the power curve (with "
                        "--cost: the frontier of power against cost)")
    add_run_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    """Solve the plan; write its table (or CSV, JSON) and the power curve (with ``--cost``:
    the designs, the cheapest, and the frontier of power against cost).

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
    n,34,33,35,0.8,0.815625,...,robust,15600,11
    0

    Two sizes, a run of B costing four of A's: the cheapest design of those listed.

    >>> main(["plan", "--scenario", "normal", "--param", "shift=1", "--criterion",
    ...       "student-t", "--solve", "n_b", "--cost", "n_a=16,24", "--unit-costs", "1,4",
    ...       "--seed", "1", "--quiet"])  # doctest: +ELLIPSIS
    cheapest design with power 0.8: n_a=24, n_b=14 [13, 14], cost 80 [76, 80]
    ...
    0
    """
    criterion = _one_criterion(args.criterion)
    given = _single(parse_grid(args.scenario, args.param), "--param")
    null = _single(parse_grid(args.scenario, args.null), "--null")
    for path, option in ((args.out, "--out"), (args.plot, "--plot")):
        if path:
            check_writable(path, option)
    check_cache(args.cache)
    from evalmc.sims import get_scenario
    from evalmc.study.plan import MAX_REPS, plan

    cost = _cost_options(args) if args.cost or args.unit_costs else None
    scenario = get_scenario(args.scenario)
    bounds = _bounds(args)
    if cost is not None:
        return _run_cost(args, scenario, criterion, given, null, bounds, cost)
    result = plan(scenario, criterion, solve=args.solve, power=args.power,
                  alpha=args.alpha, params=given, null=null or None, tie=args.tie,
                  tol=args.tol, max_reps=args.max_reps or MAX_REPS, seed=args.seed,
                  n_jobs=args.jobs, backend=args.backend, cache=args.cache,
                  progress=not args.quiet and None, **bounds)
    return _write(args, result, lambda: result.summary().to_csv(index=False))


def _one_criterion(given: list) -> str:
    """The one ``--criterion``: a plan solves for one criterion's power, so more are refused
    (not the last kept)."""
    if len(given) > 1:
        raise UsageError(f"`--criterion` takes one criterion in `plan` (a plan solves for one "
                         f"criterion's power); got {len(given)}: {', '.join(given)}. Run a "
                         "plan for each.")
    return given[0]


def _single(grid: dict, option: str) -> dict:
    """The one value of each parameter of `grid`, from ``--param`` or ``--null``."""
    for key, values in grid.items():
        if len(values) != 1:
            raise UsageError(f"`{option}` {key} takes one value; got {len(values)}.")
    return {key: values[0] for key, values in grid.items()}


def _bounds(args) -> dict:
    """``--low`` and ``--high``, integers when the parameter solved is one."""
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
    return bounds


def _cost_options(args) -> tuple:
    """``--cost FIRST[=V1,...]`` and ``--unit-costs C1,C2`` checked: ``(first, values,
    costs)``, `values` None when the first size is to be searched."""
    if not args.cost:
        raise UsageError("`--unit-costs` goes with `--cost FIRST[=V1,V2,...]`.")
    first, sep, text = args.cost.partition("=")
    if not first or sep and not text.strip(","):
        raise UsageError(f"`--cost` must be FIRST or FIRST=V1,V2,... (a size, and its values "
                         f"if not searched); got {args.cost!r}.")
    _check_sizes(args, first)
    values = _cost_values(text) if sep else None
    costs = _unit_costs(args.unit_costs) if args.unit_costs else (1.0, 1.0)
    if args.tie:
        raise UsageError("`--tie` does not go with `--cost`: the two sizes vary apart.")
    return first, values, costs


def _check_sizes(args, first) -> None:
    """The size of ``--cost`` and ``--solve``: two different integer parameters."""
    if first == args.solve:
        raise UsageError(f"`--cost` must name a size other than `--solve` {args.solve}; got "
                         f"{first!r}.")
    params = {p.name: p for p in SCENARIOS[args.scenario].params}
    if params.get(first) is None or params[first].kind is not int:
        raise UsageError(f"`--cost` must name an integer parameter of scenario "
                         f"{args.scenario!r}; got {first!r}.")
    if params.get(args.solve) is None or params[args.solve].kind is not int:
        raise UsageError(f"with `--cost`, `--solve` must be an integer parameter (the second "
                         f"size); got {args.solve!r}.")


def _cost_values(text) -> list:
    """The values ``V1,V2,...`` of ``--cost``: positive integers."""
    values = []
    for v in text.split(","):
        try:
            values.append(int(v))
        except ValueError:
            raise UsageError(f"`--cost` values must be positive integers; got {v!r}.") from None
        if values[-1] < 1:
            raise UsageError(f"`--cost` values must be positive integers; got {v!r}.")
    return values


def _unit_costs(text) -> tuple:
    """``--unit-costs C1,C2``: two positive finite numbers."""
    try:
        costs = tuple(float(c) for c in text.split(","))
    except ValueError:
        raise UsageError(f"`--unit-costs` must be two numbers C1,C2; got {text!r}.") from None
    if len(costs) != 2 or not all(c > 0 and c < float("inf") for c in costs):
        raise UsageError(f"`--unit-costs` must be two positive numbers C1,C2; got {text!r}.")
    return costs


def _run_cost(args, scenario, criterion, given, null, bounds, cost) -> int:
    """``--cost``: :func:`evalmc.plan_cost`, its table (or CSV, JSON) and frontier figure."""
    from evalmc.study.plan import MAX_REPS, plan_cost

    first, values, costs = cost
    if first in given:
        raise UsageError(f"`{first}` takes the values of `--cost`: leave it out of `--param`.")
    high = {} if bounds["high"] is None else {"high": bounds["high"]}
    result = plan_cost(scenario, criterion, sizes=(first, args.solve), values=values,
                       unit_costs=costs, power=args.power, alpha=args.alpha, params=given,
                       null=null or None, seed=args.seed, low=bounds["low"], tol=args.tol,
                       max_reps=args.max_reps or MAX_REPS, n_jobs=args.jobs,
                       backend=args.backend, cache=args.cache,
                       progress=not args.quiet and None, **high)
    return _write(args, result, lambda: _cost_csv(result, first))


def _cost_csv(result, first) -> str:
    """The designs as CSV, the cheapest flagged."""
    table = result.designs.copy()
    table["cheapest"] = table[first] == result.best[first]
    return table.to_csv(index=False)


def _write(args, result, csv) -> int:
    """Write `result` as ``--format`` asks (`csv()` its CSV), and its figure with ``--plot``."""
    if args.format == "json":
        write(json_text(result.to_dict()), args.out)
    elif args.format == "csv":
        write(csv(), args.out)
    else:
        write(result.report(), args.out)
    if args.plot:
        result.plot().savefig(args.plot, dpi=130)
    return 0
