"""Subcommands of ``evalmc``: one module each, with ``register(subparsers)``.

A module's ``register`` adds its parser and sets ``run`` (``args -> exit status``) as its default;
``COMMANDS`` (:mod:`evalmc.commands.registry`) lists the modules. Shared here: the error type for
bad input and the writers of result tables.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

class UsageError(Exception):
    """Bad command-line input: reported in one line, exit status 2.

    Examples
    --------
    >>> from evalmc.cli import main
    >>> from evalmc.commands import UsageError
    >>> issubclass(UsageError, Exception)
    True
    >>> main(["ranks", "runs.csv", "--alpha", "2"])  # the message goes to stderr
    2
    """


FORMATS = ("table", "csv", "json")


def emit(frame: pd.DataFrame, fmt: str, out: str | None = None) -> None:
    """Write `frame` as ``table``, ``csv`` or ``json`` (a list of records) to `out` or stdout.

    Parameters
    ----------
    frame : DataFrame
        The results; a table shows every missing value (NaN or None) as ``-``, CSV as an
        empty cell, JSON as null.
    fmt : {'table', 'csv', 'json'}
        The format (``--format``).
    out : str, optional
        File to write (:func:`write`); default: stdout.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.commands import emit
    >>> frame = pd.DataFrame({"model": ["A", "B"], "score": [0.9, float("nan")]})
    >>> emit(frame, "table")
    model  score
        A    0.9
        B      -
    >>> emit(frame, "csv")
    model,score
    A,0.9
    B,
    """
    if fmt == "json":
        text = frame.to_json(orient="records", indent=2, double_precision=10)
    elif fmt == "csv":
        text = frame.to_csv(index=False)
    else:
        text = frame.mask(frame.isna()).to_string(index=False, na_rep="-")  # None as NaN
    write(text, out)


def write(text: str, out: str | None = None) -> None:
    """`text` (a newline added if missing) to stdout, or to the regular file `out`, written
    whole or not at all: a temporary file beside it is renamed over it.

    A symbolic link is written through (its target is replaced, the link kept); anything but
    a regular file or a new name (a device, a pipe, a directory) is refused.

    Parameters
    ----------
    text : str
        What to write.
    out : str, optional
        File to write; default, or ``'-'``: stdout.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> from evalmc.commands import write
    >>> write("size 0.0500")
    size 0.0500
    >>> tmp = tempfile.TemporaryDirectory()
    >>> target = pathlib.Path(tmp.name) / "result.txt"
    >>> write("size 0.0500", str(target))
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('size 0.0500\\n', ['result.txt'])
    >>> tmp.cleanup()
    """
    text = text if text.endswith("\n") else text + "\n"
    if not out or out == "-":
        print(text, end="")
        return
    check_writable(out)
    target = Path(os.path.realpath(out))
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        partial.write_text(text)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def json_text(value) -> str:
    """`value` as indented JSON, floats at full precision and NaN as null (JSON has no NaN).

    Parameters
    ----------
    value : dict, list or scalar
        Plain Python values, nested in dicts, lists and tuples.

    Returns
    -------
    str

    Examples
    --------
    >>> from evalmc.commands import json_text
    >>> print(json_text({"p": float("nan"), "rates": [0.05, 1 / 3]}))
    {
      "p": null,
      "rates": [
        0.05,
        0.3333333333333333
      ]
    }
    """
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
    """``--format`` and ``--out``, shared by every command that prints results.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser, given the two options.
    formats : tuple of str
        The choices of ``--format``, the first its default.

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import add_output_options
    >>> parser = argparse.ArgumentParser(prog="evalmc demo")
    >>> add_output_options(parser)
    >>> vars(parser.parse_args(["--format", "csv"]))
    {'format': 'csv', 'out': None}
    """
    parser.add_argument("--format", choices=formats, default=formats[0],
                        help="table for reading, csv or json for programs (default "
                             "%(default)s)")
    parser.add_argument("--out", metavar="FILE", help="write the results to FILE instead of "
                                                      "stdout ('-': stdout)")


def add_table_options(parser) -> None:
    """The options of commands reading run tables: long format and the missing-value policy.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser, given ``--model``, ``--score`` and ``--dropna/--no-dropna``.

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import add_table_options
    >>> parser = argparse.ArgumentParser(prog="evalmc demo")
    >>> add_table_options(parser)
    >>> vars(parser.parse_args(["--no-dropna"]))
    {'model': None, 'score': None, 'dropna': False}
    """
    parser.add_argument("--model", metavar="COL", help="long format (one row per run): the "
                        "column naming each run's model; with --score")
    parser.add_argument("--score", metavar="COL", help="long format: the column of scores")
    parser.add_argument("--dropna", action=argparse.BooleanOptionalAction, default=True,
                        help="skip missing values and count them (default); --no-dropna "
                             "makes one an error")


def load_table(args, pair_by: str | None = None):
    """The command's CSV file as a table, wide (one column per model) when ``--model`` and
    ``--score`` give it in long format; bad input raises UsageError.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options: ``file``, ``model`` and ``score``.
    pair_by : str, optional
        Long format: the column keying the rows of the wide table (seed, split, data set);
        default: each model's i-th run makes row i.

    Returns
    -------
    DataFrame
        The file as read, or in wide form: `pair_by` (if given), then a column per model.

    Examples
    --------
    >>> import argparse
    >>> import pathlib
    >>> import tempfile
    >>> from evalmc.commands import load_table
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(tmp.name) / "runs.csv"
    >>> _ = path.write_text("model,seed,score\\nA,0,0.91\\nA,1,0.93\\nB,0,0.90\\nB,1,0.91\\n")
    >>> load_table(argparse.Namespace(file=str(path), model="model", score="score"), "seed")
      seed     A     B
    0    0  0.91  0.90
    1    1  0.93  0.91
    >>> tmp.cleanup()
    """
    from evalmc.inputs.tables import read_table, wide

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
    """Raise UsageError unless `path` can be written: checked before any work is done.

    A regular file (or a symbolic link to one) or a new name in a writable directory passes;
    ``'-'`` passes for ``--out`` only (standard output). A device, a pipe or a socket is refused:
    the result is written to a temporary file renamed over the target, which would replace it.

    Parameters
    ----------
    path : str
        The file to be written.
    option : str
        The option naming it, for the message.

    Examples
    --------
    >>> from evalmc.commands import check_writable
    >>> check_writable("-")
    >>> check_writable("/nonexistent/folder/out.csv")
    Traceback (most recent call last):
    ...
    evalmc.commands.UsageError: `--out` must be a file in a writable directory; got \
'/nonexistent/folder/out.csv'.
    >>> check_writable("/dev/null")
    Traceback (most recent call last):
    ...
    evalmc.commands.UsageError: `--out` must be a regular file (or '-' for standard output); \
got '/dev/null', a special file.
    """
    if path == "-":
        if option == "--out":
            return
        raise UsageError(f"`{option}` must be a file name; '-' (standard output) is for --out "
                         "only.")
    target = Path(os.path.realpath(path))  # a symbolic link is written through to its target
    if target.exists() and not target.is_dir() and not target.is_file():
        rule = "a regular file" + (" (or '-' for standard output)" if option == "--out" else "")
        raise UsageError(f"`{option}` must be {rule}; got {path!r}, a special file.")
    parent = target.parent
    if target.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK):
        raise UsageError(f"`{option}` must be a file in a writable directory; got {path!r}.")


def float_arg(name: str):
    """An argparse type that reads a number and names the option when it cannot.

    Parameters
    ----------
    name : str
        The option's name, for the message.

    Returns
    -------
    callable
        ``text -> float``, raising ``argparse.ArgumentTypeError``.

    Examples
    --------
    >>> from evalmc.commands import float_arg
    >>> float_arg("alpha")("0.1")
    0.1
    """
    return _typed_arg(name, float, "a number")


def int_arg(name: str):
    """An argparse type that reads an integer and names the option when it cannot.

    Parameters
    ----------
    name : str
        The option's name, for the message.

    Returns
    -------
    callable
        ``text -> int``, raising ``argparse.ArgumentTypeError``.

    Examples
    --------
    >>> from evalmc.commands import int_arg
    >>> int_arg("reps")("12")
    12
    >>> int_arg("reps")("1.5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: `reps` must be an integer; got '1.5'.
    """
    return _typed_arg(name, int, "an integer")


def _typed_arg(name: str, kind, rule: str):
    def parse(text):
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"`{name}` must be {rule}; got {text!r}.") from None
    parse.__name__ = name
    parse.kind = kind  # the type it reads, for the MCP tools' typed inputs (evalmc.mcp_server)
    return parse


def parse_grid(scenario: str, items) -> dict:
    """``--param KEY=V1,V2`` options as a grid of the typed parameter values of the scenario
    called `scenario`, read from its registry row (no numerical library is imported). A text
    value naming an existing file (``file=a,b.csv``) is one value, not split.

    Parameters
    ----------
    scenario : str
        A scenario's name (``evalmc.SCENARIOS``).
    items : iterable of str
        The ``--param`` values, each ``KEY=V1[,V2...]``.

    Returns
    -------
    dict
        Parameter name to the list of its values, each of the parameter's type.

    Examples
    --------
    >>> from evalmc.commands import parse_grid
    >>> parse_grid("normal", ["n_a=5,10", "sd_a=2"])
    {'n_a': [5, 10], 'sd_a': [2.0]}
    """
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
        whole = params[key].kind is str and Path(text).is_file()  # a file named with a comma
        grid[key] = [params[key].coerce(v.strip()) for v in ([text] if whole else text.split(","))]
    return grid


def check_cache(path: str | None) -> None:
    """Raise UsageError if `path` exists and is not a directory.

    Parameters
    ----------
    path : str or None
        The ``--cache`` option; None or a directory yet to be made passes.

    Examples
    --------
    >>> import tempfile
    >>> from evalmc.commands import check_cache
    >>> check_cache(None)
    >>> with tempfile.NamedTemporaryFile() as handle:
    ...     check_cache(handle.name)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evalmc.commands.UsageError: `--cache` must be a directory (or not exist yet); got ...
    """
    if path and Path(path).exists() and not Path(path).is_dir():
        raise UsageError(f"`--cache` must be a directory (or not exist yet); got {path!r}.")


def add_target_options(parser) -> None:
    """``--target-mcse`` and ``--max-reps``: stop each condition at a precision, with a cap.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser (``calibrate``, ``coverage``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import add_target_options
    >>> parser = argparse.ArgumentParser(prog="evalmc demo")
    >>> add_target_options(parser)
    >>> vars(parser.parse_args(["--target-mcse", "0.002"]))
    {'target_mcse': 0.002, 'max_reps': None}
    """
    parser.add_argument("--target-mcse", type=float_arg("target-mcse"), metavar="SE",
                        help="run each condition block by block until the Monte Carlo error "
                             "of every rate is at most SE (checked after each block from the "
                             "second, at the least favourable rate of its 95%% Wilson "
                             "interval); --reps is then the cap")
    parser.add_argument("--max-reps", type=int_arg("max-reps"), metavar="N",
                        help="with --target-mcse: the cap of replications per condition "
                             "(default --reps)")


def add_run_options(parser) -> None:
    """The options every Monte Carlo command shares: seed, workers, cache, output.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> import argparse
    >>> from evalmc.commands import add_run_options
    >>> parser = argparse.ArgumentParser(prog="evalmc demo")
    >>> add_run_options(parser)
    >>> args = parser.parse_args(["--jobs", "2"])
    >>> args.seed, args.jobs, args.backend, args.format, args.quiet
    (0, 2, None, 'table', False)
    """
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
                        help="replications per block (default %(default)s; fewer for a "
                             "condition whose scores would pass 256 MiB a block)")
    parser.add_argument("--task-seconds", type=float_arg("task-seconds"), default=TASK_SECONDS,
                        help="target duration of a task sent to a worker (default "
                             "%(default)s)")
    add_output_options(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
