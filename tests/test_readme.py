"""The README's examples run, and print what the README shows.

- A ```` ```console ```` block holds commands (``$ evalmc ...``, continued by a trailing
  backslash), each followed by its output; each runs in this process (``evalmc.cli.main``)
  from a copy of the examples folder, and its output must match the README's line for line
  (trailing spaces aside). The slowest commands (``SLOW``) run whole only under
  ``pytest -m slow``; by default a lighter run of each (one value of a parameter list, or
  without a peer's criterion) must print the README's rows of what it keeps, cell for cell.
- A ```` ```python ```` block followed by a ```` ``` ```` output block runs as a script (in
  this process) and must print that output; a Python block without output defines
  functions, and each must be the one of the same name in ``tests/examples/my_test.py``,
  which the commands load.
- Every file a command names exists in the repository, under ``tests/`` or ``figures/``.
- ``tests/examples/make.py`` writes the very example files shipped.
"""

import ast
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalmc.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "tests" / "examples"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def _blocks(with_gaps=False):
    """``(language, body, line)`` of every fenced block of the README, and with `with_gaps`
    whether only blank lines separate it from the next block."""
    text = (ROOT / "README.md").read_text()
    found = list(FENCE.finditer(text))
    gaps = [not text[m.end():nxt.start()].strip()
            for m, nxt in zip(found, found[1:], strict=False)] + [False]
    blocks = [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in found]
    return list(zip(blocks, gaps, strict=True)) if with_gaps else blocks


def _commands():
    """``(line, command, expected output)`` of every command of the console blocks."""
    out = []
    for lang, body, line in _blocks():
        if lang != "console":
            continue
        lines = body.splitlines()
        i = 0
        while i < len(lines):
            assert lines[i].startswith("$ "), f"README line {line + 1 + i}: expected '$ '"
            start, command = i, lines[i][2:]
            while command.endswith("\\"):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            i += 1
            output = []
            while i < len(lines) and not lines[i].startswith("$ "):
                output.append(lines[i])
                i += 1
            while output and not output[-1].strip():  # the blank line between two commands
                output.pop()
            out.append((line + 1 + start, command, output))
    return out


def _python_runs():
    """``(line, code, expected output)`` of each Python block followed by an output block."""
    blocks = _blocks(with_gaps=True)
    return [(line, body, nxt[1].splitlines())
            for ((lang, body, line), adjacent), (nxt, _) in zip(blocks, blocks[1:], strict=False)
            if lang == "python" and adjacent and nxt[0] == ""]


def _sandbox(tmp_path) -> Path:
    """A folder where the README's relative paths resolve: the examples copied, figures/
    readable."""
    shutil.copytree(EXAMPLES, tmp_path / "tests" / "examples")
    (tmp_path / "figures").symlink_to(ROOT / "figures", target_is_directory=True)
    return tmp_path


def _same(found: str, expected: list[str]):
    assert [line.rstrip() for line in found.rstrip("\n").split("\n")] == [
        line.rstrip() for line in expected], found


def test_the_readme_has_examples_of_every_kind():
    assert len(_commands()) >= 10 and _python_runs()
    assert all(lang in ("bash", "console", "python", "text", "") for lang, _, _ in _blocks())


#: README commands whose whole run is deselected by default (``pytest -m slow`` runs them),
#: each with a lighter run of the same command that prints some of its rows: (a part of the
#: command, what the lighter run leaves out, why). A condition's rows do not depend on the
#: other conditions of the grid, nor a criterion's on the other criteria (its streams are keyed
#: by the condition's parameters and the criterion's name), so the lighter run's rows must be
#: the README's, cell for cell.
SLOW = {
    "--criterion deepsig:aso": (("--criterion", "deepsig:aso"),
                                "deepsig's ASO takes 3-4 s a call: the peer's time"),
    "evalmc coverage --scenario normal": (
        ("--param", "n_a=3,5,10,20", "n_a=3"),
        "20,000 bootstrap intervals at each of four sizes: 25-30 s"),
    "my_test.py:yuen": (("--criterion", "tests/examples/my_test.py:yuen"),
                        "scipy's trimmed t-test, 1.7 ms a call, 20,000 calls: 15-30 s"),
    "--criterion bootstrap-df1": (("--criterion", "bootstrap-df1"),
                                  "the dF1 bootstrap's 5000 replicates, 4000 sets: 10-20 s"),
}


def _slow(command):
    return next((key for key in SLOW if key in command), None)


def _lighter(argv, change):
    """`argv` without the option `change` names (``(option, value)``), or with one value of
    a parameter list (``(option, values, value)``)."""
    out = list(argv)
    for i in range(len(out) - 1):
        if (out[i], out[i + 1]) == change[:2]:
            return out[:i] + out[i + 2:] if len(change) == 2 else [*out[:i + 1], change[2],
                                                                   *out[i + 2:]]
    raise AssertionError(f"the README command no longer has {' '.join(change[:2])}")


def _evalmc(argv, sandbox, capsys, monkeypatch):
    """What ``evalmc ARGV`` prints, run in this process from `sandbox`."""
    assert argv[0] == "evalmc", "a console example runs evalmc"
    monkeypatch.chdir(sandbox)
    capsys.readouterr()
    code = main(argv[1:])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _cells(lines):
    header, *rows = [line.split() for line in lines]
    assert all(len(row) == len(header) for row in rows), "a table cell holds a space"
    return header, [dict(zip(header, row, strict=True)) for row in rows]


def _same_cell(found, shown):
    if found == shown:
        return True
    try:
        return float(found) == float(shown)  # a column's format follows its values
    except ValueError:
        return False


def _rows_shown(found: str, expected: list[str]):
    """Every row of the table `found` is the README's row of the same condition, criterion
    (or estimator) and level, cell for cell, and in the README's order; a column the README
    has and `found` has not is empty ('-') in the README's rows."""
    header, rows = _cells(found.rstrip("\n").split("\n"))
    shown_header, shown = _cells(expected)
    assert set(header) <= set(shown_header), (header, shown_header)
    keys = [k for k in ("condition_id", "criterion", "estimator", "alpha") if k in header]
    where = {tuple(row[k] for k in keys): i for i, row in enumerate(shown)}
    at = []
    for row in rows:
        key = tuple(row[k] for k in keys)
        assert key in where, f"no README row for {key}"
        want = shown[where[key]]
        assert all(_same_cell(row[c], want[c]) for c in header), (row, want)
        assert all(want[c] == "-" for c in shown_header if c not in header), want
        at.append(where[key])
    assert rows and at == sorted(at), at


def _command_params():
    return [pytest.param(line, command, expected, id=f"line{line}",
                         marks=[pytest.mark.slow] if _slow(command) else [])
            for line, command, expected in _commands()]


@pytest.mark.parametrize(("line", "command", "expected"), _command_params())
def test_command_prints_what_the_readme_shows(tmp_path, capsys, monkeypatch, line, command,
                                              expected):
    out = _evalmc(shlex.split(command), _sandbox(tmp_path), capsys, monkeypatch)
    _same(out, expected)


@pytest.mark.parametrize(("line", "command", "expected"),
                         [c for c in _commands() if _slow(c[1])],
                         ids=[f"line{c[0]}" for c in _commands() if _slow(c[1])])
def test_part_of_a_slow_command_prints_the_readmes_rows(tmp_path, capsys, monkeypatch, line,
                                                        command, expected):
    change, _ = SLOW[_slow(command)]
    out = _evalmc(_lighter(shlex.split(command), change), _sandbox(tmp_path), capsys,
                  monkeypatch)
    _rows_shown(out, expected)


def test_every_slow_entry_names_a_readme_command():
    commands = [command for _, command, _ in _commands()]
    for key in SLOW:
        assert sum(key in command for command in commands) == 1, key


@pytest.mark.parametrize(("line", "code", "expected"), _python_runs(),
                         ids=[f"line{c[0]}" for c in _python_runs()])
def test_python_example_prints_what_the_readme_shows(tmp_path, capsys, monkeypatch, line, code,
                                                     expected):
    monkeypatch.chdir(_sandbox(tmp_path))
    capsys.readouterr()
    exec(compile(code, f"README.md, line {line}", "exec"), {"__name__": "__readme__"})
    _same(capsys.readouterr().out, expected)


def test_python_functions_of_the_readme_are_the_shipped_ones():
    shipped = {node.name: ast.dump(node) for node in ast.parse(
        (EXAMPLES / "my_test.py").read_text()).body if isinstance(node, ast.FunctionDef)}
    run = {line for line, _, _ in _python_runs()}
    defined = [node for lang, body, line in _blocks() if lang == "python" and line not in run
               for node in ast.parse(body).body if isinstance(node, ast.FunctionDef)]
    assert {node.name for node in defined} == set(shipped)
    for node in defined:
        assert ast.dump(node) == shipped[node.name], node.name


def test_every_file_a_command_names_is_shipped():
    named = {token.split("=")[-1].split(":")[0] for _, command, _ in _commands()  # file=PATH too
             for token in shlex.split(command)
             if re.search(r"\.(csv|py)(:\w+)?$", token) and "/" in token}
    assert named, "the commands name example files"
    for path in named:
        assert path.split("/")[0] in ("tests", "figures") and (ROOT / path).is_file(), path


def test_make_writes_the_shipped_example_files(tmp_path):
    subprocess.run([sys.executable, str(EXAMPLES / "make.py"), str(tmp_path)], check=True)
    for made in tmp_path.iterdir():
        assert made.read_bytes() == (EXAMPLES / made.name).read_bytes(), made.name
    assert {p.name for p in tmp_path.iterdir()} == {"runs.csv", "pairs.csv", "teacher_runs.csv"}
