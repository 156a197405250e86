"""Subcommands of ``evalmc``: one module each, with ``register(subparsers)``.

A module's ``register`` adds its parser and sets ``run`` (``args -> exit status``) as its default.
Shared here: the error type for bad input and the writers of result tables.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: Modules of the subcommands, in the order ``evalmc --help`` lists them.
COMMANDS = (
    "evalmc.commands.listing",
    "evalmc.commands.calibrate",
    "evalmc.commands.coverage",
    "evalmc.commands.reproduce",
    "evalmc.commands.bench",
    "evalmc.commands.boon",
    "evalmc.commands.describe",
    "evalmc.commands.compare",
    "evalmc.commands.ranks",
)


class UsageError(Exception):
    """Bad command-line input: reported in one line, exit status 2."""


FORMATS = ("table", "csv", "json")


def emit(frame: pd.DataFrame, fmt: str, out: str | None = None) -> None:
    """Write `frame` as ``table``, ``csv`` or ``json`` (a list of records) to `out` or stdout."""
    if fmt == "json":
        text = frame.to_json(orient="records", indent=2, double_precision=10)
    elif fmt == "csv":
        text = frame.to_csv(index=False)
    else:
        text = frame.to_string(index=False, na_rep="-")
    write(text, out)


def write(text: str, out: str | None = None) -> None:
    """`text` (a newline added if missing) to stdout, or to the file `out`, written whole or
    not at all: a temporary file beside it is renamed over it."""
    text = text if text.endswith("\n") else text + "\n"
    if not out:
        print(text, end="")
        return
    target = Path(out)
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        partial.write_text(text)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def json_text(value) -> str:
    """`value` as indented JSON, floats at full precision and NaN as null (JSON has no NaN)."""
    import json
    import math

    def clean(x):
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        return x

    return json.dumps(clean(value), indent=2)


def add_output_options(parser, formats=FORMATS) -> None:
    """``--format`` and ``--out``, shared by every command that prints results."""
    parser.add_argument("--format", choices=formats, default=formats[0],
                        help="table for reading, csv or json for programs (default "
                             "%(default)s)")
    parser.add_argument("--out", metavar="FILE", help="write the results to FILE instead of "
                                                      "stdout")


def add_table_options(parser) -> None:
    """The options of commands reading run tables: long format and the missing-value policy."""
    parser.add_argument("--model", metavar="COL", help="long format (one row per run): the "
                        "column naming each run's model; with --score")
    parser.add_argument("--score", metavar="COL", help="long format: the column of scores")
    parser.add_argument("--dropna", action=argparse.BooleanOptionalAction, default=True,
                        help="skip missing values and count them (default); --no-dropna "
                             "makes one an error")


def load_table(args, pair_by: str | None = None):
    """The command's CSV file as a table, wide (one column per model) when ``--model`` and
    ``--score`` give it in long format; bad input raises UsageError."""
    from evalmc.sims.tables import read_table, wide

    if (args.model is None) != (args.score is None):
        raise UsageError("`--model` and `--score` go together: they read a long-format file "
                         "(one row per run).")
    try:
        frame = read_table(args.file)
        if args.model is not None:
            frame = wide(frame, args.model, args.score, pair_by)
    except ValueError as err:
        raise UsageError(str(err)) from None
    return frame


def check_writable(path: str, option: str = "--out") -> None:
    """Raise UsageError unless `path` can be written: checked before any work is done."""
    parent = Path(path).resolve().parent
    if Path(path).is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK):
        raise UsageError(f"`{option}` must be a file in a writable directory; got {path!r}.")


def float_arg(name: str):
    """An argparse type that reads a number and names the option when it cannot."""
    return _typed_arg(name, float, "a number")


def int_arg(name: str):
    """An argparse type that reads an integer and names the option when it cannot."""
    return _typed_arg(name, int, "an integer")


def _typed_arg(name: str, kind, rule: str):
    def parse(text):
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"`{name}` must be {rule}; got {text!r}.") from None
    parse.__name__ = name
    return parse


def parse_grid(scenario: str, items) -> dict:
    """``--param KEY=V1,V2`` options as a grid of the typed parameter values of the scenario
    called `scenario`, read from its registry row (no numerical library is imported)."""
    from evalmc.sims import SCENARIOS, get_scenario

    if scenario not in SCENARIOS:
        get_scenario(scenario)  # raises, naming the valid scenarios
    entry = SCENARIOS[scenario]
    params = {p.name: p for p in entry.params}
    grid = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key or not text:
            raise UsageError(f"`--param` must be KEY=VALUE[,VALUE...]; got {item!r}.")
        if key in grid:
            raise UsageError(f"`--param` {key} is given twice; list its values once, "
                             "comma-separated.")
        if key not in params:
            raise UsageError(f"unknown parameter `{key}` for scenario {scenario!r}; valid "
                             f"parameters: {', '.join(params)}.")
        grid[key] = [params[key].coerce(v.strip()) for v in text.split(",")]
    return grid


def check_cache(path: str | None) -> None:
    """Raise UsageError if `path` exists and is not a directory."""
    if path and Path(path).exists() and not Path(path).is_dir():
        raise UsageError(f"`--cache` must be a directory (or not exist yet); got {path!r}.")


def add_run_options(parser) -> None:
    """The options every Monte Carlo command shares: seed, workers, cache, output."""
    from evalmc.engine.options import BACKENDS, BLOCK_SIZE, TASK_SECONDS

    parser.add_argument("--seed", type=int_arg("seed"), default=0)
    parser.add_argument("--jobs", type=int_arg("jobs"), default=1,
                        help="workers; -1 for all cores")
    parser.add_argument("--backend", choices=BACKENDS,
                        help="default: threads, or loky processes for your own Python "
                             "functions with --jobs above 1")
    parser.add_argument("--scheduler", help="dask scheduler address (with --backend dask)")
    parser.add_argument("--cache", help="directory of finished blocks: a re-run resumes from it")
    parser.add_argument("--block-size", type=int_arg("block-size"), default=BLOCK_SIZE,
                        help="replications per block (default %(default)s)")
    parser.add_argument("--task-seconds", type=float_arg("task-seconds"), default=TASK_SECONDS,
                        help="target duration of a task sent to a worker (default "
                             "%(default)s)")
    parser.add_argument("--format", choices=("table", "csv", "json"), default="table")
    parser.add_argument("--out", help="write the summary to this file instead of stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
