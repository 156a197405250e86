import json
import sys
import types

import pandas as pd
import pytest
from matplotlib.figure import Figure as MplFigure

import evalmc.reproductions
from evalmc.cli import main
from evalmc.reproductions.report import Figure, holds, within


def _plot(data):
    fig = MplFigure()
    fig.add_subplot().plot(data["x"], data["y"])
    return fig


def _checks(data, scale):
    return [within("X1", "y at 1 is 2", paper=2.0, ours=float(data["y"][1]), tol=0.1),
            holds("X2", "y grows", paper="increasing", ours="decreasing", passed=False,
                  note="made up to fail")]


@pytest.fixture
def fake_paper(monkeypatch):
    module = types.ModuleType("evalmc.reproductions.fake2000")
    module.FIGURES = [Figure("fig1", "A line.", lambda scale, runs: pd.DataFrame(
        {"x": [0, 1, 2], "y": [0.0, 2.0, 4.0 if scale == "paper" else 3.0]}), _plot, _checks)]
    monkeypatch.setitem(sys.modules, "evalmc.reproductions.fake2000", module)
    monkeypatch.setattr(evalmc.reproductions, "PAPERS", ("fake2000",))


def test_reproduce_writes_png_csv_checks_and_report(fake_paper, tmp_path, capsys):
    assert main(["reproduce", "fake2000.fig1", "--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert out == "1/2 targets met; missed: X2\n"
    assert "fake2000.fig1: 1/2 targets met (missed: X2)" in err
    assert (tmp_path / "fake2000" / "fig1.png").stat().st_size > 1000
    assert pd.read_csv(tmp_path / "fake2000" / "fig1.csv")["y"].tolist() == [0, 2, 3]
    record = json.loads((tmp_path / "fake2000" / "fig1.checks.json").read_text())
    assert record["scale"] == "quick" and record["checks"][0]["passed"] is True
    report = (tmp_path / "REPORT.md").read_text()
    assert "| X1 | y at 1 is 2 | 2 | 2 | ±0.1 | pass |  |" in report
    assert "| X2 | y grows | increasing | decreasing | - | FAIL | made up to fail |" in report


def test_check_flag_exits_1_on_a_missed_target(fake_paper, tmp_path):
    assert main(["reproduce", "all", "--out", str(tmp_path), "--check"]) == 1


def test_quick_scale_does_not_touch_committed_figures(fake_paper, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["reproduce", "fake2000"]) == 0
    assert (tmp_path / "figures" / "quick" / "fake2000" / "fig1.csv").exists()
    assert not (tmp_path / "figures" / "fake2000").exists()


@pytest.mark.parametrize(("spec", "match"), [
    ("nope", "unknown paper 'nope'; valid: all, fake2000"),
    ("fake2000.fig9", "unknown figure 'fig9' of fake2000; valid: fig1"),
])
def test_unknown_names(fake_paper, capsys, spec, match):
    assert main(["reproduce", spec]) == 2
    assert match in capsys.readouterr().err
