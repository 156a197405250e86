"""``evalmc mcp``: ``gate``, ``plan``, ``calibrate`` and ``audit`` as the tools of a Model
Context Protocol server on standard input and output, for a client that calls tools. The SDK
comes with the extra ``evalmc[mcp]``.

A tool's inputs are its command's options, read from the command's own parser: an option added
to ``evalmc gate`` is an input of the ``gate`` tool, typed as the parser reads it (an integer, a
number, one of its choices, a list for a repeatable option, a flag). A call runs the command as
``evalmc`` does, in the server's process and one at a time, and answers with what it prints;
bad input is a tool error carrying the command's one-line message. Files are paths on the
server's machine. ``--out`` and ``--quiet`` are not inputs: the answer is returned, and no
progress bar is drawn.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import io
import threading

from evalmc.commands import UsageError

#: The commands served, each as the tool of its name.
TOOLS = ("gate", "plan", "calibrate", "audit")

#: It speaks the protocol on standard input and output: it has no ``--out`` or ``--format``.
SERVES = True

_LEFT_OUT = ("help", "out", "quiet")  # options that are no tool's inputs
_ONE_AT_A_TIME = threading.Lock()  # a call takes over the process's sys.stdout and sys.stderr


def register(sub) -> None:
    """Add ``evalmc mcp`` to `sub`, with :func:`run` as its default; it takes no options.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``evalmc`` parser (``add_subparsers()``).

    Examples
    --------
    >>> import argparse
    >>> from evalmc import mcp_server
    >>> sub = argparse.ArgumentParser(prog="evalmc").add_subparsers()
    >>> mcp_server.register(sub)
    >>> sub.choices["mcp"].parse_args([]).run is mcp_server.run
    True
    """
    parser = sub.add_parser("mcp", help="serve gate, plan, calibrate and audit as tools of an "
                            "MCP server on stdin/stdout (needs evalmc[mcp])")
    parser.set_defaults(run=run)


def run(args) -> int:
    """Serve the tools of :func:`server` on standard input and output until the client closes
    them; without the SDK, a usage error saying how to install it.

    Parameters
    ----------
    args : argparse.Namespace
        The options of the parser :func:`register` adds (none).

    Returns
    -------
    int
        The exit status: 0.

    Examples
    --------
    A client starts ``evalmc mcp`` (or ``python -m evalmc mcp``) and talks to it; see
    :func:`server` for the tools it serves.
    """
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise UsageError('`evalmc mcp` needs the MCP SDK: pip install "evalmc[mcp]"') from None
    server().run("stdio")
    return 0


def server():
    """The MCP server of the tools ``gate``, ``plan``, ``calibrate`` and ``audit``, not started.

    Each tool takes its command's options (``base_runs`` for ``--base-runs``; ``file``, a list
    of paths, for audit's files) and answers with what ``evalmc <command> ... --quiet`` prints.

    Returns
    -------
    mcp.server.mcpserver.MCPServer

    Examples
    --------
    >>> import anyio
    >>> from evalmc.mcp_server import server
    >>> app = server()
    >>> [tool.name for tool in anyio.run(app.list_tools)]
    ['gate', 'plan', 'calibrate', 'audit']
    >>> answer = anyio.run(app.call_tool, "gate", {"rule": ["keep-ratchet"], "reps": 1000,
    ...                                            "format": "csv"})
    >>> print(answer.content[0].text)  # doctest: +ELLIPSIS
    rule,loops,any_false,any_false_mcse,false_keeps,false_keeps_mcse,power,power_mcse,...
    keep-ratchet,1000,0.979,0.00453...
    >>> anyio.run(app.call_tool, "gate", {"reps": 0}).content[0].text
    'evalmc: error: `--reps` must be at least 1; got 0.'
    """
    from mcp.server.mcpserver import MCPServer

    from evalmc import __version__
    from evalmc.cli import build_parser

    app = MCPServer("evalmc", version=__version__, instructions=(
        "Monte Carlo checks of ML evaluation procedures. Each tool is the evalmc command of its "
        "name: its inputs are the command's options, its answer what the command prints."))
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    for name in TOOLS:
        app.add_tool(_tool(name, commands[name]), name=name, description=_about(commands[name]),
                     structured_output=False)
    return app


def _tool(name: str, parser: argparse.ArgumentParser):
    """A function running ``evalmc <name>``: keyword-only parameters typed from `parser`'s
    options, answering a ``CallToolResult`` of what the command printed or said."""
    actions = [a for a in parser._actions if a.dest not in _LEFT_OUT]

    def call(**given):
        return _answer(name, _argv(actions, given))

    call.__name__ = name
    call.__signature__ = inspect.Signature([_parameter(a) for a in actions])
    return call


def _parameter(action: argparse.Action) -> inspect.Parameter:
    """The typed keyword parameter of one option of a command: its type or choices, a list
    when it repeats or takes several values, a bool for a flag; required as in the parser."""
    from typing import Annotated, Literal

    from pydantic import Field

    kind = getattr(action.type, "kind", action.type)
    kind = kind if kind in (int, float) else str  # a reader of its own is given the text
    if action.choices:
        kind = Literal[tuple(action.choices)]
    default = None
    if action.nargs == 0:
        kind, default = bool, bool(action.default)
    elif isinstance(action, argparse._AppendAction) or action.nargs in ("+", "*"):
        kind = list[kind]
    elif action.default is not None:
        default = action.default
    if action.required:
        default = inspect.Parameter.empty
    elif default is None:
        kind = kind | None
    return inspect.Parameter(action.dest, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[kind, Field(description=_help(action))])


def _help(action: argparse.Action) -> str:
    """The option and its help, as ``evalmc <command> --help`` shows it."""
    name = max(action.option_strings, key=len) if action.option_strings else action.dest
    text = (action.help or "") % {**vars(action), "prog": "evalmc"}
    return f"{name}: {text}" if text else name


def _about(parser: argparse.ArgumentParser) -> str:
    """A tool's description: its command module's first paragraph, and what it answers."""
    import re
    import sys

    module = sys.modules[parser.get_default("run").__module__]
    first = " ".join(module.__doc__.split("\n\n")[0].split()).replace("``", "`")
    first = re.sub(r":\w+:`", "`", first)  # a Sphinx role, :func:`evalmc.plan`, as `evalmc.plan`
    return (f"{first} Answers with what `{parser.prog} ... --quiet` prints; files are paths "
            "on the server's machine.")


def _argv(actions, given: dict) -> list:
    """The command's arguments for the values `given` to its tool: each value that is not the
    option's default, written ``--option=VALUE`` (a value may start with '-'), and ``--quiet``."""
    positional, options = [], []
    for action in actions:
        value = given.get(action.dest)
        if value is None or (value == action.default and not action.required):
            continue
        texts = [_text(v) for v in value] if isinstance(value, list) else [_text(value)]
        name = max(action.option_strings, key=len) if action.option_strings else None
        if name is None:
            positional += texts
        elif isinstance(action, argparse.BooleanOptionalAction):
            options.append(action.option_strings[0 if value else 1])
        elif action.nargs == 0:
            options.append(name)
        elif isinstance(action, argparse._AppendAction):
            options += [f"{name}={t}" for t in texts]
        elif isinstance(value, list):
            options += [name, *texts]
        else:
            options.append(f"{name}={texts[0]}")
    return [*positional, *options, "--quiet"]


def _text(value) -> str:
    return repr(value) if isinstance(value, float) else str(value)  # a float in full


def _answer(name: str, argv: list):
    """Run ``evalmc <name> <argv>`` as the command line does: what it printed, or what it
    said on stderr as a tool error when it failed."""
    from mcp.types import CallToolResult, TextContent

    from evalmc.cli import main

    out, said = io.StringIO(), io.StringIO()
    with _ONE_AT_A_TIME, contextlib.redirect_stdout(out), contextlib.redirect_stderr(said):
        status = main([name, *argv])
    said = said.getvalue().strip()
    if status != 0:
        text = said or f"evalmc {name}: exit status {status}"
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
    texts = [out.getvalue()] + ([said] if said else [])  # a warning line, as the command says
    return CallToolResult(content=[TextContent(type="text", text=t) for t in texts])
