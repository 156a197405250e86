"""``evalmc bench``: each workload timed for evalmc and its peer, side by side."""

from __future__ import annotations

from evalmc.bench.registry import WORKLOADS
from evalmc.commands import add_output_options, emit


def register(sub) -> None:
    """Add ``evalmc bench`` to `sub`, with :func:`run` as its default; its options: ``--only``,
    ``--format`` and ``--out``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import bench
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> bench.register(sub)
    >>> args = sub.choices["bench"].parse_args(["--only", "paired-t-size"])
    >>> args.only, args.format, args.run is bench.run
    ('paired-t-size', 'table', True)
    """
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
    """Time the workloads (all, or ``--only`` one) and write their table.

    Parameters
    ----------
    args : argparse.Namespace
        The options of the parser :func:`register` adds.

    Returns
    -------
    int
        The exit status: 0.

    Notes
    -----
    Every workload takes seconds to minutes; the example only shows that a name is checked
    before any work starts.

    Examples
    --------
    >>> from evalmc.cli import main
    >>> main(["bench", "--only", "no-such-workload"])  # the valid names go to stderr
    2
    """
    from evalmc.commands import check_writable

    if args.out:
        check_writable(args.out)
    from evalmc.bench.workloads import run_benchmarks

    emit(run_benchmarks(only=args.only), args.format, args.out)
    return 0
