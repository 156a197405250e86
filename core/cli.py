"""The ``evalmc`` command.

Bad input ends with one line on stderr naming the parameter and the rule, and exit status 2;
nothing already computed is lost (studies given ``--cache`` keep every finished block).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import os
import re
import sys
import warnings

from evalmc import __version__
from evalmc.commands import UsageError
from evalmc.commands.registry import COMMANDS
from evalmc.engine.options import check_interrupted, ctrl_c_noted, noting_ctrl_c


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(_hint(message))


def _hint(message: str) -> str:
    """argparse's `message`, with how to give a value that starts with '-' when an option
    missed its value (argparse takes ``--unit-costs -1,4``'s value for an option)."""
    found = re.fullmatch(r"argument (\S+): expected one argument", message)
    if not found:
        return message
    option = found[1].split("/")[-1]  # the long form of -d/--delta
    return f"{message} (a value that starts with '-' is written {option}=VALUE)"


def build_parser() -> argparse.ArgumentParser:
    """The ``evalmc`` parser, a subparser per module of ``COMMANDS``; a parse error raises
    :class:`~evalmc.commands.UsageError`, which :func:`main` reports in one line."""
    parser = _Parser(prog="evalmc", description="Monte Carlo testbed for ML evaluation methods.")
    parser.add_argument("--version", action="version", version=f"evalmc {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``evalmc`` console script, `argv` default ``sys.argv[1:]``: returns 0, 1
    when a study stops on an analysis's errors or a judged target is missed, 2 for bad input (one
    line on stderr), 130 when interrupted; the warnings raised are said at the end in one line."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        try:
            return _run(argv)
        finally:
            _summarise(seen)


def _run(argv) -> int:
    args = None
    with noting_ctrl_c():
        try:
            args = build_parser().parse_args(argv)
            status = args.run(args)
            if status != 130:  # unless the command said it was interrupted
                check_interrupted()  # Ctrl-C noted while a library ran, which went on
            return status
        except KeyboardInterrupt:
            return _interrupted(args)
        except Exception as err:
            if _by_ctrl_c(err):  # Ctrl-C that a library turned into another error
                return _interrupted(args)
            return _failed(err, args)


def _failed(err: Exception, args) -> int:
    """The status of an error `err` of the command: 2 for bad input (one line said), 0 for a
    reader that stopped early, 1 for a study stopped on its errors; anything else raised."""
    if isinstance(err, (UsageError, ValueError)):
        print(f"evalmc: error: {_in_option_words(str(err), args)}", file=sys.stderr)
        return 2
    if isinstance(err, BrokenPipeError):  # output piped into a reader that stopped, e.g. `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    if isinstance(err, OSError):  # an unreadable file, an unreachable scheduler: no trace
        print(f"evalmc: error: {err}", file=sys.stderr)
        return 2
    if not _is_study_error(err):
        raise err
    print(f"evalmc: stopped: {err}", file=sys.stderr)
    return 1


def _interrupted(args) -> int:
    """Say that the command was interrupted (and, for a study, that its finished blocks are
    kept in its cache); the status 130."""
    keep = ("; finished blocks are kept in --cache, if given: re-run the same command to "
            "resume" if hasattr(args, "cache") else "")
    print(f"evalmc: interrupted{keep}.", file=sys.stderr)
    return 130


def _by_ctrl_c(err: BaseException) -> bool:
    """Whether `err` came of Ctrl-C: it was noted (:func:`~evalmc.engine.options.noting_ctrl_c`;
    a library may have cleared the KeyboardInterrupt and failed later on what it left half
    done, as an import cut short does), or a KeyboardInterrupt is among its causes."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return ctrl_c_noted()


#: Keywords of the Python functions whose command-line option has another name: the
#: option's destination, and the option.
_OPTIONS = {"n_reps": ("reps", "--reps"), "block_size": ("block_size", "--block-size"),
            "target_mcse": ("target_mcse", "--target-mcse"),
            "max_reps": ("max_reps", "--max-reps"), "n_jobs": ("jobs", "--jobs"),
            "n_reps_alt": ("reps_alt", "--reps-alt"),
            "n_resamples": ("resamples", "--resamples"), "timeout": ("timeout", "--timeout"),
            "criteria": ("criterion", "--criterion"), "estimators": ("estimator", "--estimator"),
            "null": ("null", "--null")}


def _in_option_words(text: str, args) -> str:
    """`text` with the Python keywords it names in backquotes (```n_reps```) given as the
    command's options (```--reps```), where the command has that option."""
    for keyword, (dest, option) in _OPTIONS.items():
        if f"`{keyword}`" in text and hasattr(args, dest):
            text = text.replace(f"`{keyword}`", f"`{option}`")
    return text


def _summarise(seen) -> None:
    """One line for the warnings in `seen`: each distinct text once, with its count; the
    failures of one analysis with one first error in several conditions (an engine's
    ``FailureWarning``), as one text with their range."""
    counts = collections.Counter()
    groups: dict = {}
    for w in seen:
        if hasattr(w.message, "failed"):
            groups.setdefault((w.message.name, w.message.first), []).append(w.message)
        else:
            counts[str(w.message)] += 1
    for (name, first), group in groups.items():
        if len(group) == 1:
            counts[str(group[0])] += 1
            continue
        rates = [g.failed / g.done for g in group]
        counts[f"{name!r} failed in {min(rates):.1%} to {max(rates):.1%} of the replications "
               f"of {len(group)} conditions (the most in condition "
               f"{group[rates.index(max(rates))].condition}): their rates and estimates are "
               f"over those that did not fail (first error: {first})"] += 1
    if counts:
        texts = [text + (f" (x{n})" if n > 1 else "") for text, n in counts.items()]
        print(f"evalmc: warning: {'; '.join(texts)}", file=sys.stderr)


def _is_study_error(err: Exception) -> bool:
    """Whether `err` is a StudyError; only a loaded engine can raise one, so the command
    line, which must start fast, does not import the engine to catch it."""
    scheduler = sys.modules.get("evalmc.engine.scheduler")
    return scheduler is not None and isinstance(err, scheduler.StudyError)
