"""``evalmc bench``: each workload timed for evalmc and its peer, side by side."""

from __future__ import annotations

from evalmc.commands import emit


def register(sub) -> None:
    parser = sub.add_parser("bench", help="time evalmc against its peers, side by side")
    parser.add_argument("--only", metavar="NAME", help="run one workload")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.set_defaults(run=run)


def run(args) -> int:
    from evalmc.bench import run_benchmarks

    emit(run_benchmarks(only=args.only), args.format)
    return 0
