"""The README's examples run, and print what the README shows.

- A ```` ```console ```` block holds commands (``$ evalmc ...``, continued by a trailing
  backslash), each followed by its output; each runs from a copy of the examples folder, and
  its output must match the README's line for line (trailing spaces aside).
- A ```` ```python ```` block followed by a ```` ``` ```` output block runs as a script and
  must print that output; a Python block without output defines functions, and each must be
  the one of the same name in ``tests/examples/my_test.py``, which the commands load.
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


@pytest.mark.parametrize(("line", "command", "expected"), _commands(),
                         ids=[f"line{c[0]}" for c in _commands()])
def test_command_prints_what_the_readme_shows(tmp_path, line, command, expected):
    argv = shlex.split(command)
    assert argv[0] == "evalmc", f"README line {line}: a console example runs evalmc"
    proc = subprocess.run([sys.executable, "-m", "evalmc", *argv[1:]], cwd=_sandbox(tmp_path),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    _same(proc.stdout, expected)


@pytest.mark.parametrize(("line", "code", "expected"), _python_runs(),
                         ids=[f"line{c[0]}" for c in _python_runs()])
def test_python_example_prints_what_the_readme_shows(tmp_path, line, code, expected):
    proc = subprocess.run([sys.executable, "-c", code], cwd=_sandbox(tmp_path),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    _same(proc.stdout, expected)


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
    named = {token.split(":")[0] for _, command, _ in _commands()
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
