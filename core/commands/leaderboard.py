"""``evalmc leaderboard``: how often a leaderboard's rank claims are wrong, on the designs of
the side-by-side table (:data:`evalmc.study.leaderboard.DESIGNS`): each rank procedure's
familywise false-claim rate, simultaneous coverage of the true ranks, mean rank-set length and
power, with their Monte Carlo errors; ``evalmc leaderboard FILE`` audits a real board
(:mod:`evalmc.study.board_audit`).
"""

from __future__ import annotations

from evalmc.commands import UsageError, add_output_options, check_writable, emit, int_arg, write

#: The designs' letters (kept here so that ``evalmc --help`` loads no numerical library).
DESIGN_LETTERS = ("a", "b", "c", "d")


def register(sub) -> None:
    """Add ``evalmc leaderboard`` to `sub`, with :func:`run` as its default; its arguments: the
    designs, the procedures, the boards and the run options.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import leaderboard
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> leaderboard.register(sub)
    >>> args = sub.choices["leaderboard"].parse_args(["--design", "b", "--reps", "50"])
    >>> args.design, args.reps, args.procedure, args.run is leaderboard.run
    (['b'], 50, None, True)
    """
    parser = sub.add_parser("leaderboard", help="how often a leaderboard's rank claims are "
                            "wrong: rank procedures on arenas and item boards of known truth, "
                            "or on boards like a real one (FILE)")
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="a real board: battles (model_a, model_b, winner[, prompt]; CSV, "
                             "JSON Lines or a JSON array) or items (model, item[, cluster], "
                             "score: 0/1 or continuous): fitted, its procedures calibrated on "
                             "boards like it, read with the best-calibrated one")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="with FILE: the familywise false-claim rate to hold (default 0.05)")
    parser.add_argument("--cluster", metavar="COLUMN",
                        help="with a FILE of items: the column of the items' clusters")
    parser.add_argument("--prompt-sd", type=float, default=None,
                        help="with a FILE of battles: sd of the prompt x model effect of the "
                             "simulated boards (default: estimated from the board)")
    parser.add_argument("--design", action="append", choices=DESIGN_LETTERS,
                        help="(a) 10 models, 3 tied at the top, 5,000 battles; (b) as (a), 100 "
                             "prompts reused; (c) as (a), adaptive pairing; (d) 20 models x 500 "
                             "items in 20 clusters (repeatable; default all)")
    parser.add_argument("--procedure", action="append", metavar="NAME",
                        help="a rank procedure (repeatable; default the board-* criteria of "
                             "`evalmc list`, and for the table the battle bootstrap with 500 "
                             "and 1,000 rounds too), e.g. 'board-bootstrap(n_boot=500)', or "
                             "your own, path/to/file.py:function (tests/examples/"
                             "my_rank_procedure.py says how it is called)")
    parser.add_argument("--reps", type=int_arg("reps"), default=None,
                        help="boards per design (default 400, the quick scale; the paper's is "
                             "4,000; with FILE, 200)")
    parser.add_argument("--seed", type=int_arg("seed"), default=0)
    parser.add_argument("--jobs", type=int_arg("jobs"), default=1,
                        help="workers; -1 for all cores")
    add_output_options(parser)
    parser.add_argument("--plot", metavar="FILE.png", help="also draw the table's figure")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def run(args) -> int:
    """Measure the procedures on the designs and print the table (and draw it).

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
    >>> main(["leaderboard", "--design", "a", "--procedure", "board-holm", "--reps", "50",
    ...       "--quiet", "--format", "csv"])  # doctest: +ELLIPSIS
    design,label,procedure,models,boards,failed,false_claim,false_claim_mcse,coverage,...
    a,"(a) 10 models, 3 tied at top, 5,000 battles",board-holm,10,50,0,0.0,0.0,1.0,...
    0
    """
    for path, option in ((args.plot, "--plot"), (args.out, "--out")):
        if path:
            check_writable(path, option)
    if args.reps is not None and args.reps < 1:
        raise UsageError(f"`--reps` must be at least 1; got {args.reps}.")
    if args.file is not None:
        return _audit(args)
    for given, option in ((args.cluster, "--cluster"), (args.prompt_sd, "--prompt-sd")):
        if given is not None:
            raise UsageError(f"`{option}` reads a real board: give its FILE.")
    from evalmc.study.leaderboard import TABLE_PROCEDURES, leaderboard_table

    table = leaderboard_table("".join(args.design or DESIGN_LETTERS),
                              procedures=args.procedure or TABLE_PROCEDURES, n_reps=args.reps,
                              seed=args.seed, n_jobs=args.jobs,
                              progress=False if args.quiet else None)
    shown = table.drop(columns="label").round(4) if args.format == "table" else table
    emit(shown, args.format, args.out)
    if args.plot:
        from evalmc.plots import leaderboard_figure

        leaderboard_figure(table).savefig(args.plot, dpi=120)
    return 0


def _audit(args) -> int:
    """``evalmc leaderboard FILE``: the audit of a real board, as text or its models' table."""
    if args.design or args.plot:
        raise UsageError("`--design` and `--plot` are for the side-by-side table; with FILE "
                         "the boards are simulated like the file's.")
    from evalmc.study.board_audit import audit_board
    from evalmc.study.leaderboard import PROCEDURES

    audit = audit_board(args.file, args.procedure or PROCEDURES, alpha=args.alpha,
                        n_reps=200 if args.reps is None else args.reps, seed=args.seed,
                        cluster=args.cluster, prompt_sd=args.prompt_sd, n_jobs=args.jobs,
                        progress=False if args.quiet else None)
    if args.format == "table":
        write(audit.report(), args.out)
    else:
        emit(audit.table, args.format, args.out)
    return 0
