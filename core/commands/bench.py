"""``evalmc bench``: each workload timed for evalmc and its peer, side by side."""

from __future__ import annotations

from evalmc.bench.registry import WORKLOADS
from evalmc.commands import add_output_options, emit


def register(sub) -> None:
    parser = sub.add_parser(
        "bench", help="time evalmc against its peers, side by side",
        description="Time each workload for evalmc and its peer in one run. Workloads: "
                    f"{', '.join(WORKLOADS)}. A "
                    "workload whose peer is not installed is skipped with one line naming the "
                    "extra to install (evalmc[bench], evalmc[dist]).")
    parser.add_argument("--only", metavar="NAME", help="run one workload (names above)")
    add_output_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from evalmc.commands import check_writable

    if args.out:
        check_writable(args.out)
    from evalmc.bench.workloads import run_benchmarks

    emit(run_benchmarks(only=args.only), args.format, args.out)
    return 0
