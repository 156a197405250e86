"""``evalmc mcp``: ``gate``, ``plan``, ``calibrate`` and ``audit`` as the tools of a Model
Context Protocol server on standard input and output, for a client that calls tools. The SDK
comes with the extra ``evalmc[mcp]``.

A tool's inputs are its command's options, read from the command's own parser, so an option
added to ``evalmc gate`` is an input of the ``gate`` tool with nothing to add here; the schema
types each as the parser reads it (an integer, a number, one of its choices, a list for a
repeatable option, a boolean for a flag). A call writes the inputs as the command's arguments
and runs the command line's ``main`` on them, in the server's process and one call at a time:
the command checks every value, so a bad input is a tool error carrying the command's own
one-line message, and the answer is what the command prints. Files are paths on the server's
machine. ``--out`` and ``--quiet`` are not inputs: the answer is returned, and no progress bar
is drawn.
"""

from __future__ import annotations

import argparse
import contextlib
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
        import mcp.server.lowlevel  # noqa: F401
    except ImportError:
        raise UsageError('`evalmc mcp` needs the MCP SDK: pip install "evalmc[mcp]"') from None
    import anyio

    anyio.run(_serve)
    return 0


async def _serve() -> None:
    """Serve :func:`server` on standard input and output until the client closes them."""
    from mcp.server.stdio import stdio_server

    app = server()
    async with stdio_server() as (read, write):
        await app.run(read, write, app.create_initialization_options())


def server():
    """The MCP server of the tools ``gate``, ``plan``, ``calibrate`` and ``audit``, not started:
    it lists :func:`tools` and answers a call with :func:`call`, run in a worker thread.

    Returns
    -------
    mcp.server.lowlevel.Server

    Examples
    --------
    >>> from evalmc.mcp_server import server
    >>> server().name
    'evalmc'
    """
    import anyio
    from mcp.server.lowlevel import Server
    from mcp.types import ListToolsResult

    from evalmc import __version__

    listed = tools()

    async def list_tools(ctx, params):
        return ListToolsResult(tools=listed)

    async def call_tool(ctx, params):
        return await anyio.to_thread.run_sync(call, params.name, params.arguments)

    return Server("evalmc", version=__version__, on_list_tools=list_tools,
                  on_call_tool=call_tool, instructions=(
                      "Monte Carlo checks of ML evaluation procedures. Each tool is the evalmc "
                      "command of its name: its inputs are the command's options, its answer "
                      "what the command prints."))


def tools() -> list:
    """The tools, one per command of :data:`TOOLS`: its description, and as its input schema the
    command's options (but ``--out`` and ``--quiet``), typed and required as its parser reads
    them.

    Returns
    -------
    list of mcp.types.Tool

    Examples
    --------
    >>> from evalmc.mcp_server import tools
    >>> gate = tools()[0]
    >>> gate.name, gate.input_schema["properties"]["base_runs"]
    ('gate', {'type': 'integer', 'default': 2, 'description': '--base-runs: runs of the \
baseline (default 2)'})
    """
    from mcp.types import Tool

    return [Tool(name=name, description=_about(_commands()[name]),
                 input_schema=_schema(_inputs(name))) for name in TOOLS]


def call(name: str, arguments: dict | None = None):
    """Run the tool `name` on `arguments` (JSON values by input name) as ``evalmc <name> ...
    --quiet``: what it printed (then its warning line, if any), or its one-line error as a tool
    error. Inputs are checked by the command itself, so a bad one gets the command's message.

    Parameters
    ----------
    name : str
        A tool, one of :data:`TOOLS`.
    arguments : dict, optional
        Its inputs: ``{"reps": 1000}`` for ``--reps 1000``; a list for a repeatable option,
        true for a flag.

    Returns
    -------
    mcp.types.CallToolResult

    Examples
    --------
    >>> from evalmc.mcp_server import call
    >>> answer = call("gate", {"rule": ["keep-ratchet"], "reps": 1000, "format": "csv"})
    >>> print(answer.content[0].text)  # doctest: +ELLIPSIS
    rule,loops,any_false,any_false_mcse,false_keeps,false_keeps_mcse,power,power_mcse,...
    keep-ratchet,1000,0.979,0.00453...
    >>> answer = call("gate", {"reps": 0})
    >>> answer.is_error, answer.content[0].text
    (True, 'evalmc: error: `--reps` must be at least 1; got 0.')
    """
    try:
        if name not in TOOLS:
            raise UsageError(f"unknown tool {name!r}; the tools: {', '.join(TOOLS)}.")
        argv = _argv(name, _inputs(name), arguments or {})
    except UsageError as err:
        return _result([f"evalmc: error: {err}"], is_error=True)
    return _answer(name, argv)


def _commands() -> dict:
    """The parsers of the ``evalmc`` subcommands, by name."""
    from evalmc.cli import build_parser

    return next(a for a in build_parser()._actions if a.dest == "command").choices


def _inputs(name: str) -> list:
    """The options of ``evalmc <name>`` that are inputs of its tool, in the parser's order."""
    return [a for a in _commands()[name]._actions if a.dest not in _LEFT_OUT]


def _schema(actions) -> dict:
    """The JSON schema of a tool's inputs: each option typed as its parser reads it (an
    integer, a number, text, one of its choices; a list when it repeats or takes several
    values; a boolean for a flag), with its default and help; the required ones required."""
    properties = {}
    for action in actions:
        kind = getattr(action.type, "kind", action.type)
        spec = {"type": {int: "integer", float: "number"}.get(kind, "string")}
        if action.choices:
            spec["enum"] = list(action.choices)
        if action.nargs == 0:
            spec = {"type": "boolean", "default": bool(action.default)}
        elif isinstance(action, argparse._AppendAction) or action.nargs in ("+", "*"):
            spec = {"type": "array", "items": spec}
        elif action.default is not None:
            spec["default"] = action.default
        properties[action.dest] = {**spec, "description": _help(action)}
    return {"type": "object", "properties": properties,
            "required": [a.dest for a in actions if a.required]}


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


def _argv(name: str, actions, arguments: dict) -> list:
    """The command's arguments for the inputs `arguments` of its tool, each value written as
    given (``--option=VALUE``: a value may start with '-'; a list's items one by one), for the
    command to check; ``--quiet`` last. An input that is no option of the tool is refused."""
    known = {a.dest: a for a in actions}
    for key in arguments:
        if key not in known:
            raise UsageError(f"`{key}` is not an input of the {name} tool; its inputs: "
                             f"{', '.join(known)}.")
    positional, options = [], []
    for action in actions:
        value = arguments.get(action.dest)
        if value is None:
            continue
        option = max(action.option_strings, key=len) if action.option_strings else None
        texts = [_text(v) for v in value] if isinstance(value, list) else [_text(value)]
        if option is None:
            positional += texts
        elif action.nargs == 0 and isinstance(value, bool):
            if isinstance(action, argparse.BooleanOptionalAction):
                options.append(action.option_strings[0 if value else 1])
            elif value != bool(action.default):
                options.append(option)
        elif isinstance(action, argparse._AppendAction):
            options += [f"{option}={t}" for t in texts]
        elif action.nargs in ("+", "*"):
            options += [option, *texts]
        else:  # a list, or a value given to a flag, is written whole: the command refuses it
            options.append(f"{option}={_text(value)}")
    return [*positional, *options, "--quiet"]


def _text(value) -> str:
    """An input's value as the command line writes it: a float in full, a list or an object
    as JSON."""
    import json

    if isinstance(value, (list, dict, bool)):
        return json.dumps(value)
    return repr(value) if isinstance(value, float) else str(value)


def _answer(name: str, argv: list):
    """Run ``evalmc <name> <argv>`` as the command line does: what it printed (and its
    warning line), or its error line as a tool error; stderr is read from the command's first
    line on, which leaves out what a library logged before it."""
    from evalmc.cli import main

    out, said = io.StringIO(), io.StringIO()
    with _ONE_AT_A_TIME, contextlib.redirect_stdout(out), contextlib.redirect_stderr(said):
        status = main([name, *argv])
    lines = said.getvalue().splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("evalmc: ")), len(lines))
    said = "\n".join(lines[first:])
    if status != 0:
        return _result([said or f"evalmc {name}: exit status {status}"], is_error=True)
    return _result([out.getvalue()] + ([said] if said else []))


def _result(texts: list, is_error: bool = False):
    from mcp.types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=t) for t in texts],
                          is_error=is_error)
