"""``evalmc gate``: what a research loop's keep rule costs before the loop runs. For K
candidates tried in turn against a baseline, a few runs each, the noise and the gain of a
real candidate, each keep rule's P(any false keep), false keeps, power to keep a real
candidate, runs spent and overstatement of the final score, with their Monte Carlo errors
(:func:`evalmc.study.gate.run_gate`); the run noise Gaussian, skewed, multimodal or the user's
own baseline runs (``--noise``), and with ``--rerun`` the bias of the final score corrected by
fresh runs. With ``--solve``, a rule's threshold and runs solved for targets, on any of those
noises and within a ``--budget`` of runs a loop.
"""

from __future__ import annotations

from pathlib import Path

from evalmc.commands import (
    UsageError,
    add_output_options,
    check_writable,
    emit,
    float_arg,
    int_arg,
)

#: Replications by default: MCSE at most 0.0016 on a rate (0.5), in about a second per rule.
REPS = 100_000
#: Loops of a solve by default, and of its check (MCSE 0.0015 on a P(any false keep) of 0.05).
SOLVE_REPS = 20_000


def register(sub) -> None:
    """Add ``evalmc gate`` to `sub`, with :func:`run` as its default; its arguments: the
    loop's design, the rules and the run options.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import gate
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> gate.register(sub)
    >>> args = sub.choices["gate"].parse_args(["--candidates", "20", "--runs", "3"])
    >>> args.candidates, args.runs, args.base_runs, args.rule, args.run is gate.run
    (20, 3, None, None, True)
    >>> args.noise, args.sd, args.rerun
    ('normal', None, 0)
    """
    parser = sub.add_parser("gate", help="what a loop's keep rule costs: false keeps, power, "
                            "runs and the final gain's overstatement, for K candidates tried "
                            "against a baseline")
    parser.add_argument("--candidates", type=int_arg("candidates"), default=50,
                        help="candidates K tried in turn (default 50)")
    parser.add_argument("--runs", type=int_arg("runs"), default=1,
                        help="runs of each candidate (default 1)")
    parser.add_argument("--base-runs", type=int_arg("base_runs"), default=None,
                        help="runs of the baseline (default 2; with --solve, as many as each "
                             "candidate's, at least 2)")
    parser.add_argument("--sd", type=float_arg("sd"), default=None,
                        help="sd of a run's score (default 1; with a --noise FILE, the sd of "
                             "its runs)")
    parser.add_argument("--noise", default="normal", metavar="NAME|FILE",
                        help="shape of a run's noise, scaled to --sd: normal (default), "
                             "skew-normal, mixture, with their parameters, e.g. "
                             "'skew-normal(skew=-6)', or a CSV FILE of your baseline's run "
                             "scores, resampled about their mean")
    parser.add_argument("--noise-column", default="", metavar="COL",
                        help="column of scores of the --noise FILE (default: its only one)")
    parser.add_argument("--rerun", type=int_arg("rerun"), default=0,
                        help="fresh runs, on new seeds, of the final reported model: adds "
                             "the bias of their mean, `corrected` (default 0: no rerun)")
    parser.add_argument("--share", type=float_arg("share"), default=0.0,
                        help="share of candidates with a real effect: round(share K) of them "
                             "(default 0: all null)")
    parser.add_argument("--gain", type=float_arg("gain"), default=1.0,
                        help="true gain (effect) of a real candidate (default 1)")
    parser.add_argument("--rho", type=float_arg("rho"), default=0.0,
                        help="correlation of two runs on one seed, in [0, 1) (default 0: runs "
                             "independent)")
    parser.add_argument("--baseline", choices=("fixed", "replace"), default="fixed",
                        help="'fixed', or 'replace': each kept candidate becomes the baseline")
    parser.add_argument("--looks", type=int_arg("looks"), default=1,
                        help="looks a rule may take at a candidate, --runs more runs each, "
                             "before it decides (default 1: decide once)")
    parser.add_argument("--rule", action="append", metavar="NAME",
                        help="a keep rule (repeatable; default every keep-* criterion of "
                             "`evalmc list` that fits the design), e.g. 'keep-noise-floor(k=3)', "
                             "or one's own as file.py:function")
    parser.add_argument("--reps", type=int_arg("reps"), default=None,
                        help=f"loops simulated (default {REPS:,}; with --solve, "
                             f"{SOLVE_REPS:,} for the solve and as many fresh ones to check it)")
    solve = parser.add_argument_group(
        "solving a rule for targets (--solve): one candidate of effect --effect among K - 1 "
        "nulls, a fixed baseline measured as often as the candidates (at least twice)")
    solve.add_argument("--solve", action="store_true",
                       help="solve each --rule's threshold (default: keep-noise-floor's k, "
                            "keep-bonferroni's alpha), and the runs per candidate when --runs "
                            "fall short, then check it on fresh loops beside the eye-set rules")
    solve.add_argument("--max-false", type=float_arg("max_false"), default=0.05,
                       help="target P(any false keep) per loop (default 0.05)")
    solve.add_argument("--power", type=float_arg("power"), default=0.8,
                       help="target probability of keeping the real candidate (default 0.8)")
    solve.add_argument("--effect", type=float_arg("effect"), default=1.0,
                       help="the real candidate's true effect (default 1)")
    solve.add_argument("--max-runs", type=int_arg("max_runs"), default=256,
                       help="the largest runs per candidate searched (default 256)")
    solve.add_argument("--budget", type=int_arg("budget"), default=None,
                       help="runs a loop may spend, the baseline's included: the solved runs "
                            "per candidate fit it, or the budget the targets need is said "
                            "(default: no budget)")
    parser.add_argument("--seed", type=int_arg("seed"), default=0)
    parser.add_argument("--jobs", type=int_arg("jobs"), default=1,
                        help="workers; -1 for all cores")
    add_output_options(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def run(args) -> int:
    """Measure the keep rules on the loop and print their operating characteristics.

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
    >>> main(["gate", "--rule", "keep-ratchet", "--reps", "1000", "--quiet", "--format",
    ...       "csv"])  # doctest: +ELLIPSIS
    rule,loops,any_false,any_false_mcse,false_keeps,false_keeps_mcse,power,power_mcse,...
    keep-ratchet,1000,0.979,0.00453...
    0
    """
    if args.out:
        check_writable(args.out, "--out")
    if args.solve:
        return _solve(args)
    if args.budget is not None:
        raise UsageError("`--budget` applies only with `--solve`: it bounds the runs the "
                         "solve searches.")
    args.reps = REPS if args.reps is None else args.reps
    args.base_runs = 2 if args.base_runs is None else args.base_runs
    if args.reps < 1:
        raise UsageError(f"`--reps` must be at least 1; got {args.reps}.")
    from evalmc.criteria import get_criterion
    from evalmc.sims import get_scenario
    from evalmc.study.gate import RULES, SEQUENTIAL, run_gate

    params = {"candidates": args.candidates, "runs": args.runs, "base_runs": args.base_runs,
              "sd": args.sd, "share": args.share, "gain": args.gain, "rho": args.rho,
              "baseline": args.baseline, "noise": _noise(args), "rerun": args.rerun,
              "looks": args.looks}
    try:
        if args.sd is None:
            from evalmc.sims.noise import RunNoise

            params["sd"] = RunNoise(params["noise"]).runs_sd or 1.0
        rules = args.rule
        if not rules:
            loop = get_scenario("loop")(**params)
            names = RULES + (SEQUENTIAL if args.looks > 1 else ())
            rules = [name for name in names if _fits(get_criterion(name).test, loop)]
        table = run_gate(params, rules, n_reps=args.reps, seed=args.seed, n_jobs=args.jobs,
                         progress=False if args.quiet else None)
    except ValueError as err:
        text = str(err)
        for name in params:
            text = text.replace(f"`{name}`", f"`--{name.replace('_', '-')}`")
        text = text.replace("`column`", "`--noise-column`")
        raise UsageError(text) from None
    emit(table.round(4) if args.format == "table" else table, args.format, args.out)
    return 0


def _noise(args) -> str:
    """The loop's `noise`: ``--noise`` as given, or ``empirical(file=...)`` of a FILE."""
    if Path(args.noise).is_file():
        column = f",column={args.noise_column}" if args.noise_column else ""
        return f"empirical(file={args.noise}{column})"
    if args.noise_column:
        raise UsageError("`--noise-column` names a column of a `--noise` FILE; "
                         f"{args.noise!r} is not a file.")
    from evalmc.registry import parse_spec
    from evalmc.sims.noise import NOISES

    try:
        name = parse_spec(args.noise)[0]
    except ValueError:
        name = None
    if name not in NOISES:
        raise UsageError(f"`--noise` must be a CSV FILE or one of {', '.join(NOISES)}, with "
                         f"their parameters (e.g. 'skew-normal(skew=-6)'); got "
                         f"{args.noise!r}, not a file.")
    return args.noise


def _fits(rule, loop) -> bool:
    """Whether the keep `rule` can run on loops of the scenario `loop`."""
    try:
        rule.check(loop.runs, loop.base_runs, loop.baseline, loop.looks)
    except ValueError:
        return False
    return True


def _solve(args) -> int:
    """``--solve``: the rules' thresholds (and runs) for the targets, checked, with the
    eye-set rules beside them (:func:`evalmc.study.gate_solve.solve_gate`)."""
    from evalmc.study.gate_solve import SOLVED, solve_gate

    for flag, value, default in (("share", args.share, 0.0), ("gain", args.gain, 1.0),
                                 ("baseline", args.baseline, "fixed"), ("looks", args.looks, 1),
                                 ("rerun", args.rerun, 0)):
        if value != default:
            raise UsageError(f"`--{flag}` does not apply with `--solve`: it draws one candidate "
                             "of effect `--effect` against a fixed baseline, each rule "
                             "deciding once, without a rerun.")
    reps = SOLVE_REPS if args.reps is None else args.reps
    params = {"candidates": args.candidates, "runs": args.runs, "sd": args.sd, "rho": args.rho,
              "noise": _noise(args)}
    if args.base_runs is not None:
        params["base_runs"] = args.base_runs
    try:
        if args.sd is None:
            from evalmc.sims.noise import RunNoise

            params["sd"] = RunNoise(params["noise"]).runs_sd or 1.0
        sol = solve_gate(params, args.rule or SOLVED, max_false=args.max_false,
                         power=args.power, effect=args.effect, n_reps=reps, seed=args.seed,
                         max_runs=args.max_runs, budget=args.budget, n_jobs=args.jobs,
                         progress=False if args.quiet else None)
    except ValueError as err:
        text = str(err)
        for name in ("candidates", "runs", "base_runs", "sd", "rho", "noise", "max_false",
                     "power", "effect", "max_runs", "budget", "n_reps", "rules"):
            text = text.replace(f"`{name}`", "`--" + {"n_reps": "reps", "rules": "rule"}.get(
                name, name).replace("_", "-") + "`")
        text = text.replace("`column`", "`--noise-column`")
        raise UsageError(text) from None
    if args.format == "table":
        text = sol.report() + "\n"
        if args.out:
            from pathlib import Path

            Path(args.out).write_text(text)
        else:
            print(text, end="")
    else:
        emit(sol.table, args.format, args.out)
    return 0
