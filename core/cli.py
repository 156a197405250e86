"""The ``evalmc`` command: list, calibrate, bench.

Bad input ends with one line on stderr naming the parameter and the rule, and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import pandas as pd

from core.criteria import CRITERIA, get_criterion
from core.study import BACKENDS, DEFAULT_BLOCK_SIZE, StudyError, make_design, run_study
from sims import SCENARIOS, get_scenario

FORMATS = ("table", "csv", "json")


class UsageError(Exception):
    """Bad command-line input: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="evalmc", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    lst = sub.add_parser("list", help="scenarios and criteria, with parameters and defaults")
    lst.add_argument("--format", choices=("table", "json"), default="table")

    cal = sub.add_parser("calibrate", help="size and power of criteria under a scenario")
    cal.add_argument("--scenario", required=True, help="data-generating process (see list)")
    cal.add_argument("--param", action="append", default=[], metavar="KEY=V1,V2,...",
                     help="scenario parameter; several values make a grid (repeatable)")
    cal.add_argument("--criterion", action="append", required=True, metavar="NAME",
                     help="built-in name or path/to/file.py:function (repeatable)")
    cal.add_argument("--reps", type=_int("reps"), default=10_000, help="replications per condition")
    cal.add_argument("--alpha", default="0.05", help="level(s), comma-separated")
    cal.add_argument("--seed", type=_int("seed"), default=0)
    cal.add_argument("--jobs", type=_int("jobs"), default=1, help="workers; -1 for all cores")
    cal.add_argument("--backend", choices=BACKENDS, default="threads")
    cal.add_argument("--scheduler", help="dask scheduler address (with --backend dask)")
    cal.add_argument("--cache", help="directory of finished blocks: a re-run resumes from it")
    cal.add_argument("--block-size", type=_int("block-size"), default=DEFAULT_BLOCK_SIZE)
    cal.add_argument("--format", choices=FORMATS, default="table")
    cal.add_argument("--out", help="write the summary to this file instead of stdout")
    cal.add_argument("--quiet", action="store_true", help="no progress bar")

    bench = sub.add_parser("bench", help="time evalmc against its peers, side by side")
    bench.add_argument("--only", metavar="NAME", help="run one workload")
    bench.add_argument("--format", choices=("table", "json"), default="table")
    return parser


def main(argv=None) -> int:
    """Entry point of the ``evalmc`` console script; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        return {"list": _list, "calibrate": _calibrate, "bench": _bench}[args.command](args)
    except (UsageError, ValueError) as err:
        print(f"evalmc: error: {err}", file=sys.stderr)
        return 2
    except StudyError as err:
        print(f"evalmc: stopped: {err}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into a reader that stopped early, e.g. `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("evalmc: interrupted; finished blocks are kept in --cache, if given: re-run the "
              "same command to resume.", file=sys.stderr)
        return 130


def _list(args) -> int:
    scenarios = {
        name: {"description": cls.description,
               "parameters": {f.name: {"default": f.default, "doc": f.metadata["doc"]}
                              for f in cls.parameters()}}
        for name, cls in SCENARIOS.items()
    }
    criteria = {name: {"description": c.description, "paired": c.paired}
                for name, c in CRITERIA.items()}
    if args.format == "json":
        print(json.dumps({"scenarios": scenarios, "criteria": criteria}, indent=2))
        return 0
    print("Scenarios (--scenario NAME --param KEY=VALUE):")
    for name, spec in scenarios.items():
        print(f"\n  {name}: {spec['description']}")
        for key, p in spec["parameters"].items():
            print(f"    {key:<10} {p['default']!r:<10} {p['doc']}")
    print("\nCriteria (--criterion NAME, or path/to/file.py:function):")
    for name, spec in criteria.items():
        paired = " [needs paired samples]" if spec["paired"] else ""
        print(f"  {name:<13} {spec['description']}{paired}")
    return 0


def _calibrate(args) -> int:
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
    criteria = [get_criterion(c) for c in args.criterion]
    if args.out:
        _check_writable(args.out)
    result = run_study(
        make_design(**grid) if grid else _default_design(scenario),
        scenario, criteria, n_reps=args.reps, seed=args.seed, alpha=alphas,
        block_size=args.block_size, n_jobs=args.jobs, backend=args.backend, cache=args.cache,
        progress=False if args.quiet else None, scheduler=args.scheduler,
    )
    _emit(result.summary, args.format, args.out)
    return 0


def _bench(args) -> int:
    from core.bench import run_benchmarks

    _emit(run_benchmarks(only=args.only), args.format, None)
    return 0


def _default_design(scenario):
    first = scenario.parameters()[0]
    return make_design(**{first.name: first.default})


def _emit(frame: pd.DataFrame, fmt: str, out: str | None) -> None:
    if fmt == "json":
        text = frame.to_json(orient="records", indent=2, double_precision=10)
    elif fmt == "csv":
        text = frame.to_csv(index=False)
    else:
        text = frame.to_string(index=False, na_rep="-")
    text = text if text.endswith("\n") else text + "\n"
    if out:
        Path(out).write_text(text)
    else:
        sys.stdout.write(text)


def _check_writable(path: str) -> None:
    parent = Path(path).resolve().parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise UsageError(f"`--out` must be a file in a writable directory; got {path!r}.")


def _int(name):
    def parse(text):
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"`{name}` must be an integer; got {text!r}.") \
                from None
    parse.__name__ = name
    return parse


if __name__ == "__main__":
    sys.exit(main())
