"""``evalmc bench``: each workload timed for evalmc and its peer, side by side."""

from __future__ import annotations

from evalmc.commands import add_output_options, emit

#: As the keys of ``evalmc.bench.workloads.WORKLOADS`` on a machine of 2 cores (a test keeps
#: them equal; the benchmarks are not imported to parse). More cores add ``study-N-threads``.
WORKLOADS = (
    "paired-t-size", "wilcoxon-ties", "user-vectorized", "bayes-signed-rank", "aso",
    "mlp-training", "boon-bootstrap-ci", "fig6-outperform", "compare-1e6-pairs",
    "bootstrap-df1-size", "cv-corrected-t", "cli-help", "cli-list", "cli-bad-argument",
    "study-2-threads", "study-2-threads-block-10000", "study-loky-2", "study-dask-2",
    "study-numpy", "study-memory",
)


def register(sub) -> None:
    parser = sub.add_parser(
        "bench", help="time evalmc against its peers, side by side",
        description="Time each workload for evalmc and its peer in one run. Workloads: "
                    f"{', '.join(WORKLOADS)} (and study-N-threads with N cores, above 2). A "
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
