"""One set of command-line conventions: --format and --out wherever results are printed,
--version, help naming the valid names, and names the parser keeps in step with the library."""

import importlib
import json
import subprocess
import sys
import warnings

import pytest

import evalmc
from evalmc.cli import build_parser, main


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return action.choices


def _module(command):
    return importlib.import_module(_subparsers()[command].get_default("run").__module__)


def _prints(command) -> bool:
    """Whether a subcommand prints results: its module says ``PRINTS = False`` when it writes
    files into its --out folder instead, ``SERVES = True`` when it speaks a protocol on stdin
    and stdout (``evalmc mcp``)."""
    module = _module(command)
    return getattr(module, "PRINTS", True) and not getattr(module, "SERVES", False)


def test_every_module_of_commands_is_a_subcommand():
    from evalmc.commands.registry import COMMANDS

    modules = {p.get_default("run").__module__ for p in _subparsers().values()}
    assert modules == set(COMMANDS)


@pytest.mark.parametrize("command", list(_subparsers()))
def test_every_command_has_out_and_every_printing_one_format(command):
    options = {a.dest: a for a in _subparsers()[command]._actions}
    assert ("out" in options) != getattr(_module(command), "SERVES", False)
    if _prints(command):
        assert tuple(options["format"].choices) == ("table", "csv", "json")
        assert options["format"].default == "table"


def test_format_and_out_are_one_definition_shared():
    """Every printing command's --format and --out read the same: one helper defines them."""
    options = {(a.dest, a.metavar, a.help) for command in _subparsers() if _prints(command)
               for a in _subparsers()[command]._actions if a.dest in ("format", "out")}
    assert sorted(dest for dest, _, _ in options) == ["format", "out"]


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out == f"evalmc {evalmc.__version__}\n"


def test_help_names_every_registered_name_and_each_loads_as_named(monkeypatch):
    from evalmc.bench.registry import WORKLOADS
    from evalmc.criteria import CRITERIA, get_criterion
    from evalmc.reproductions.registry import FIGURES, PAPERS
    from evalmc.reproductions.report import Figure
    from evalmc.sims import SCENARIOS, get_scenario

    monkeypatch.setenv("COLUMNS", "10000")  # no wrapping inside a name
    helps = {name: parser.format_help() for name, parser in _subparsers().items()}
    assert len(SCENARIOS) >= 13 and len(CRITERIA) >= 45
    for name in SCENARIOS:  # the registry's row is the class the study runs
        cls = get_scenario(name)
        assert (cls.name, [f.name for f in cls.parameters()]) == (
            name, [p.name for p in SCENARIOS[name].params])
        assert f" {name}," in helps["calibrate"] or f" {name} (" in helps["calibrate"]
        assert f" {name}," in helps["coverage"] or f" {name} (" in helps["coverage"]
    for name in CRITERIA:
        crit = get_criterion(name)
        assert (crit.name, crit.paired) == (name, CRITERIA[name].facts.get("paired", False))
        assert f" {name}," in helps["calibrate"] or f" {name};" in helps["calibrate"]
    for name, entry in FIGURES.items():  # every row is a figure of its paper's module
        paper, figure = name.split(".")
        assert isinstance(entry.load(), Figure) and f" {figure}" in helps["reproduce"]
    assert all(f"{paper}: " in helps["reproduce"] for paper in PAPERS)
    for name, entry in WORKLOADS.items():  # every row loads its workload's factory
        assert callable(entry.load()) and f" {name}" in helps["bench"]


def test_bench_skips_a_workload_whose_peer_is_missing(monkeypatch, capsys):
    import evalmc.bench.workloads

    real = importlib.util.find_spec
    monkeypatch.setattr(evalmc.bench.workloads.importlib.util, "find_spec",
                        lambda name, *a: None if name == "deepsig" else real(name, *a))
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main(["bench", "--only", "aso", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert out == "workload,peer,ours_s,peer_s,ratio,ours,peer_result\n"
    assert err == ("evalmc: warning: skipped the aso workload: it needs deepsig; install "
                   "evalmc[bench] to run it\n")


@pytest.mark.parametrize(("argv", "check"), [
    (["list", "--format", "json"], lambda text: "welch-t" in json.loads(text)["criteria"]),
    (["compare", "RUNS", "--a", "A", "--b", "B", "--format", "csv"],
     lambda text: text.startswith("criterion,verdict,")),
    (["describe", "RUNS", "--format", "csv"], lambda text: text.startswith("column,n,mean,")),
    (["boon", "RUNS", "--test", "A", "--n", "3", "--format", "json"],
     lambda text: json.loads(text)["n"] == 3),
])
def test_out_writes_the_file_and_nothing_on_stdout(tmp_path, capsys, argv, check):
    runs = tmp_path / "runs.csv"
    runs.write_text("A,B\n" + "".join(f"{0.9 + i / 100},{0.88 + (i % 3) / 100}\n"
                                       for i in range(8)))
    target = tmp_path / "result.txt"
    argv = [str(runs) if a == "RUNS" else a for a in argv]
    assert main([*argv, "--out", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert check(target.read_text())
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_out_in_a_missing_directory_is_refused_before_any_work(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "evalmc", "list", "--out",
                           str(tmp_path / "no" / "x.csv")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith("evalmc: error: `--out` must be a file in a writable")


def test_a_table_marks_every_missing_value_with_a_dash(capsys):
    """None (bradley off the null, with pandas 2) and NaN print alike in a console table;
    CSV leaves the cell empty and JSON writes null."""
    import numpy as np
    import pandas as pd

    from evalmc.commands import emit

    frame = pd.DataFrame({"criterion": ["welch-t", "aso"], "alpha": [0.05, np.nan],
                          "bradley": pd.Series(["robust", None], dtype=object),
                          "n_reps": [100, 100]})
    emit(frame, "table")
    assert capsys.readouterr().out.splitlines() == [
        "criterion  alpha bradley  n_reps",
        "  welch-t   0.05  robust     100",
        "      aso      -       -     100"]
    emit(frame, "csv")
    assert capsys.readouterr().out.splitlines()[1:] == ["welch-t,0.05,robust,100", "aso,,,100"]
    emit(frame, "json")
    assert json.loads(capsys.readouterr().out)[1] == {"criterion": "aso", "alpha": None,
                                                      "bradley": None, "n_reps": 100}
