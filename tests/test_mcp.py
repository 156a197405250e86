"""``evalmc mcp``: the MCP SDK's own client starts the server over stdio (``python -m evalmc
mcp``) and calls its four tools in one session; each answer is what the command line prints
for the same options (and its warning line, if any), and a bad input is a tool error carrying
the command line's one line."""

import os
import sys
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from evalmc.cli import build_parser, main

ROOT = Path(__file__).parents[1]
MODELS = str(ROOT / "tests" / "examples" / "models.csv")

#: (tool, its inputs, the same command line): small runs, each seed and format not the default.
CALLS = [
    ("gate", {"rule": ["keep-ratchet", "keep-noise-floor(k=3)"], "candidates": 20, "runs": 2,
              "share": 0.1, "reps": 2000, "seed": 1, "format": "csv"},
     ["gate", "--rule", "keep-ratchet", "--rule", "keep-noise-floor(k=3)", "--candidates", "20",
      "--runs", "2", "--share", "0.1", "--reps", "2000", "--seed", "1", "--format", "csv"]),
    ("plan", {"scenario": "paired-normal", "param": ["shift=0.5", "rho=0.5"],
              "criterion": ["paired-t"], "solve": "n", "max_reps": 3000, "seed": 1,
              "format": "json"},
     ["plan", "--scenario", "paired-normal", "--param", "shift=0.5", "--param", "rho=0.5",
      "--criterion", "paired-t", "--solve", "n", "--max-reps", "3000", "--seed", "1",
      "--format", "json"]),
    ("calibrate", {"scenario": "normal", "param": ["n_a=5,10", "sd_a=2"],
                   "criterion": ["welch-t", "student-t"], "reps": 500, "alpha": "0.05,0.1",
                   "seed": 2, "jobs": 64},
     ["calibrate", "--scenario", "normal", "--param", "n_a=5,10", "--param", "sd_a=2",
      "--criterion", "welch-t", "--criterion", "student-t", "--reps", "500", "--alpha",
      "0.05,0.1", "--seed", "2", "--jobs", "64"]),  # more workers than cores: a warning
    ("audit", {"file": [MODELS], "a": "large", "b": "medium", "metric": "correct",
               "item": "question", "cluster": "subject", "criterion": ["clustered-z",
               "paired-items"], "estimator": ["clustered-interval"], "delta": "0.05",
               "reps": 200, "reps_alt": 50, "refits": 0, "seed": 1},
     ["audit", MODELS, "--a", "large", "--b", "medium", "--metric", "correct", "--item",
      "question", "--cluster", "subject", "--criterion", "clustered-z", "--criterion",
      "paired-items", "--estimator", "clustered-interval", "--delta", "0.05", "--reps", "200",
      "--reps-alt", "50", "--refits", "0", "--seed", "1"]),
]

#: Bad inputs, each refused by the command in its own words: a rule broken, a text for an
#: integer, a required option missing, two criteria where one is taken, a missing file.
BAD = [
    ("gate", {"reps": 0}, ["gate", "--reps", "0"]),
    ("gate", {"reps": "many"}, ["gate", "--reps", "many"]),
    ("plan", {"scenario": "normal", "solve": "n_a"},
     ["plan", "--scenario", "normal", "--solve", "n_a"]),
    ("plan", {"scenario": "normal", "criterion": ["welch-t", "student-t"], "solve": "n_a"},
     ["plan", "--scenario", "normal", "--criterion", "welch-t", "--criterion", "student-t",
      "--solve", "n_a"]),
    ("audit", {"file": [str(ROOT / "no-such-file.csv")], "a": "x", "b": "y"},
     ["audit", str(ROOT / "no-such-file.csv"), "--a", "x", "--b", "y"]),
]


def _session(log: Path):
    """The tools listed and the answers to `CALLS` and `BAD` in one stdio session with a
    server started as ``python -m evalmc mcp`` (its stderr written to `log`)."""
    server = StdioServerParameters(command=sys.executable, args=["-m", "evalmc", "mcp"],
                                   env=dict(os.environ), cwd=str(ROOT))

    async def talk():
        with open(log, "w") as errlog:
            async with stdio_client(server, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as client:
                await client.initialize()
                tools = (await client.list_tools()).tools
                answers = [await client.call_tool(name, inputs) for name, inputs, _ in CALLS + BAD]
        return tools, answers

    return anyio.run(talk)


def _command_line(argv, capsys):
    status = main([*argv, "--quiet"])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_sdk_client_gets_what_the_command_line_prints(tmp_path, capsys):
    """One session (a test of its own: xdist would start a module's fixture on each worker)."""
    from evalmc.mcp_server import tools as listed

    tools, answers = _session(tmp_path / "server.log")
    log = (tmp_path / "server.log").read_text()
    assert [(t.name, t.input_schema) for t in tools] == [(t.name, t.input_schema)
                                                         for t in listed()]
    for (name, inputs, argv), answer in zip(CALLS, answers[:len(CALLS)], strict=True):
        status, out, err = _command_line(argv, capsys)
        assert status == 0 and out
        if inputs.get("jobs", 1) > os.cpu_count():
            assert err.startswith("evalmc: warning: `n_jobs` = 64 is more than")
        assert not answer.is_error, (name, answer.content, log)
        assert [c.text for c in answer.content] == [out] + ([err.strip()] if err else []), name
    for (name, _, argv), answer in zip(BAD, answers[len(CALLS):], strict=True):
        status, out, err = _command_line(argv, capsys)
        assert status == 2 and err.startswith("evalmc: error: ") and err.count("\n") == 1
        assert answer.is_error and [c.text for c in answer.content] == [err.strip()], name


def test_the_tools_inputs_are_the_commands_options_typed():
    """Every option of a command but --help, --out and --quiet is an input of its tool, typed
    as its parser reads it; the required ones are required."""
    from evalmc.mcp_server import tools

    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    listed = {tool.name: tool.input_schema for tool in tools()}
    assert list(listed) == ["gate", "plan", "calibrate", "audit"]
    for name, schema in listed.items():
        actions = [a for a in commands[name]._actions if a.dest not in ("help", "out", "quiet")]
        assert list(schema["properties"]) == [a.dest for a in actions]
        assert schema["required"] == [a.dest for a in actions if a.required]
    gate = listed["gate"]["properties"]
    assert (gate["candidates"]["type"], gate["sd"]["type"]) == ("integer", "number")
    assert (gate["candidates"]["default"], gate["baseline"]["enum"]) == (50, ["fixed", "replace"])
    assert gate["rule"]["type"] == "array" and gate["rule"]["items"] == {"type": "string"}
    assert listed["audit"]["properties"]["common"] == {
        "type": "boolean", "default": False, "description": "--common: keep the items both "
        "models have; by default models scored on different items are refused"}
    assert listed["audit"]["required"] == ["file"]


def test_every_input_reaches_its_option(monkeypatch):
    """Each input given a value other than its default is read by the command's parser as that
    value (checked on every option of the four commands, as they are defined now)."""
    from evalmc import mcp_server

    seen = {}
    monkeypatch.setattr(mcp_server, "_answer", lambda name, argv: seen.update({name: argv}))
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    for tool in mcp_server.tools():
        actions = {a.dest: a for a in commands[tool.name]._actions}
        given = {}
        for dest, spec in tool.input_schema["properties"].items():
            kind = getattr(actions[dest].type, "kind", actions[dest].type)
            if kind not in (None, int, float, str):
                continue  # a reader of its own, given the text as it is
            given[dest] = _other_value(spec)
        mcp_server.call(tool.name, given)
        args = commands[tool.name].parse_args(seen[tool.name])
        assert {dest: getattr(args, dest) for dest in given} == given
        assert args.quiet and args.out is None


def _other_value(spec):
    """A value of the JSON schema `spec` other than its default."""
    if "enum" in spec:
        return [v for v in spec["enum"] if v != spec.get("default")][0]
    if spec["type"] == "array":
        return [_other_value(spec["items"]), _other_value(spec["items"])]
    return {"integer": 7, "number": 0.25, "boolean": not spec.get("default"),
            "string": "x"}[spec["type"]]


def test_a_librarys_log_before_the_commands_line_is_left_out(monkeypatch):
    import evalmc.cli
    from evalmc.mcp_server import call

    def main(argv):
        print("INFO:distributed.scheduler:Scheduler started", file=sys.stderr)
        print("result", file=sys.stdout)
        print("evalmc: warning: something to know", file=sys.stderr)
        return 0

    monkeypatch.setattr(evalmc.cli, "main", main)
    answer = call("gate", {})
    assert not answer.is_error
    assert [c.text for c in answer.content] == ["result\n", "evalmc: warning: something to know"]


def test_without_the_sdk_it_says_how_to_install_it(monkeypatch, capsys):
    for name in ("mcp", "mcp.server", "mcp.server.lowlevel"):
        monkeypatch.setitem(sys.modules, name, None)
    assert main(["mcp"]) == 2
    assert capsys.readouterr().err == ('evalmc: error: `evalmc mcp` needs the MCP SDK: '
                                       'pip install "evalmc[mcp]"\n')
