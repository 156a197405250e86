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
    "evalmc.commands.reproduce",
    "evalmc.commands.bench",
    "evalmc.commands.boon",
    "evalmc.commands.describe",
    "evalmc.commands.compare",
)


class UsageError(Exception):
    """Bad command-line input: reported in one line, exit status 2."""


def emit(frame: pd.DataFrame, fmt: str, out: str | None = None) -> None:
    """Write `frame` as ``table``, ``csv`` or ``json`` (a list of records) to `out` or stdout."""
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
        print(text, end="")


def check_writable(path: str, option: str = "--out") -> None:
    """Raise UsageError unless `path` can be written: checked before any work is done."""
    parent = Path(path).resolve().parent
    if Path(path).is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK):
        raise UsageError(f"`{option}` must be a file in a writable directory; got {path!r}.")


def int_arg(name: str):
    """An argparse type that reads an integer and names the option when it cannot."""
    def parse(text):
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"`{name}` must be an integer; got {text!r}.") from None
    parse.__name__ = name
    return parse
