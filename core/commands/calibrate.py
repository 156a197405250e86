"""``evalmc calibrate``: size and power of criteria under a scenario, over a grid."""

from __future__ import annotations

from pathlib import Path

from evalmc.commands import UsageError, check_writable, emit, int_arg

#: As ``evalmc.study.BACKENDS`` and ``DEFAULT_BLOCK_SIZE`` (a test keeps them equal; the engine
#: is not imported to parse).
BACKENDS = ("threads", "loky", "dask")
BLOCK_SIZE = 1000


def register(sub) -> None:
    cal = sub.add_parser("calibrate", help="size and power of criteria under a scenario")
    cal.add_argument("--scenario", required=True, help="data-generating process (see list)")
    cal.add_argument("--param", action="append", default=[], metavar="KEY=V1,V2,...",
                     help="scenario parameter; several values make a grid (repeatable)")
    cal.add_argument("--criterion", action="append", required=True, metavar="NAME",
                     help="built-in name or path/to/file.py:function (repeatable)")
    cal.add_argument("--reps", type=int_arg("reps"), default=10_000,
                     help="replications per condition")
    cal.add_argument("--alpha", default="0.05", help="level(s), comma-separated")
    cal.add_argument("--seed", type=int_arg("seed"), default=0)
    cal.add_argument("--jobs", type=int_arg("jobs"), default=1, help="workers; -1 for all cores")
    cal.add_argument("--backend", choices=BACKENDS, default="threads")
    cal.add_argument("--scheduler", help="dask scheduler address (with --backend dask)")
    cal.add_argument("--cache", help="directory of finished blocks: a re-run resumes from it")
    cal.add_argument("--block-size", type=int_arg("block-size"), default=BLOCK_SIZE,
                     help="replications per block (default %(default)s)")
    cal.add_argument("--format", choices=("table", "csv", "json"), default="table")
    cal.add_argument("--out", help="write the summary to this file instead of stdout")
    cal.add_argument("--quiet", action="store_true", help="no progress bar")
    cal.set_defaults(run=run)


def run(args) -> int:
    from evalmc.calibration import calibrate
    from evalmc.sims import get_scenario

    scenario = get_scenario(args.scenario)
    grid = {}
    for item in args.param:
        key, sep, text = item.partition("=")
        if not sep or not key or not text:
            raise UsageError(f"`--param` must be KEY=VALUE[,VALUE...]; got {item!r}.")
        if key in grid:
            raise UsageError(f"`--param` {key} is given twice; list its values once, "
                             "comma-separated.")
        grid[key] = [scenario.coerce(key, v.strip()) for v in text.split(",")]
    alphas = []
    for text in args.alpha.split(","):
        try:
            alphas.append(float(text))
        except ValueError:
            raise UsageError(f"`alpha` must be a number in (0, 1); got {text!r}.") from None
    if args.out:
        check_writable(args.out)
    if args.cache and Path(args.cache).exists() and not Path(args.cache).is_dir():
        raise UsageError(f"`--cache` must be a directory (or not exist yet); got {args.cache!r}.")
    result = calibrate(scenario, args.criterion, params=grid, reps=args.reps, alpha=alphas,
                       seed=args.seed, jobs=args.jobs, backend=args.backend,
                       scheduler=args.scheduler, cache=args.cache, block_size=args.block_size,
                       progress=False if args.quiet else None)
    emit(result.summary, args.format, args.out)
    return 0
