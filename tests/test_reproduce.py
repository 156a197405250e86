import importlib
import json
import re
import sys
import types

import pandas as pd
import pytest
from matplotlib.figure import Figure as MplFigure

import evalmc.reproductions
from evalmc.cli import main
from evalmc.registry import Entry, Registry
from evalmc.reproductions import runner
from evalmc.reproductions.registry import FIGURES
from evalmc.reproductions.report import (
    Figure,
    Target,
    Targets,
    layout_problems,
    tally_text,
)
from evalmc.reproductions.runner import figures

TARGETS = Targets([
    Target("X1", "y at 1 is 2", paper="2", source='"y(1) = 2" (Sec 1)', tolerance="±0.1",
           value=2.0, tol=0.1),
    Target("X2", "y grows", paper="increasing", source='"y grows" (Sec 2)'),
    Target("X3", "y at 2", paper="not stated", source='"y is large at 2" (Sec 3)',
           role="finding"),
    Target("X4", "y at 0 is 0", paper="0", source='"we start at 0" (Sec 1)',
           role="calibration", value=0.0, tol=0.0),
])


def _plot(data):
    fig = MplFigure()
    fig.add_subplot().plot(data["x"], data["y"])
    return fig


def _checks(data, scale):
    y = data["y"]
    return [TARGETS.within("X1", float(y[1])),
            TARGETS.holds("X2", ours="decreasing", passed=False, note="made up to fail"),
            TARGETS.finding("X3", ours=f"{y[2]:g}"),
            TARGETS.within("X4", float(y[0]))]


@pytest.fixture
def fake_paper(monkeypatch):
    module = types.ModuleType("evalmc.reproductions.fake2000")
    module.FIG1 = Figure("A line. Parameters: none.", lambda scale, runs: pd.DataFrame(
        {"x": [0, 1, 2], "y": [0.0, 2.0, 4.0 if scale == "paper" else 3.0]}), _plot, _checks,
        title="Fake 2000, Fig 1: a line")
    monkeypatch.setitem(sys.modules, "evalmc.reproductions.fake2000", module)
    monkeypatch.setattr(evalmc.reproductions, "PAPERS", ("fake2000",))
    monkeypatch.setattr(runner, "FIGURES", Registry("figure", [Entry(
        "fake2000.fig1", "evalmc.reproductions.fake2000:FIG1", "Fake 2000",
        facts={"paper": "fake2000", "figure": "fig1"})]))


def test_reproduce_writes_png_csv_checks_and_report(fake_paper, tmp_path, capsys):
    assert main(["reproduce", "fake2000.fig1", "--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    summary = "1/2 targets met, 1/1 calibration checks met, 1 finding"
    assert out == summary + "; missed: X2\n"
    assert f"fake2000.fig1: {summary} (missed: X2)" in err
    assert (tmp_path / "fake2000" / "fig1.png").stat().st_size > 1000
    assert pd.read_csv(tmp_path / "fake2000" / "fig1.csv")["y"].tolist() == [0, 2, 3]
    record = json.loads((tmp_path / "fake2000" / "fig1.checks.json").read_text())
    assert record["scale"] == "quick" and record["checks"][0]["passed"] is True
    caption = (tmp_path / "fake2000" / "fig1.md").read_text()
    assert caption.startswith("# Fake 2000, Fig 1: a line\n\n![Fake 2000, Fig 1: a line](fig1.png)")
    assert "A line. Parameters: none." in caption
    report = (tmp_path / "REPORT.md").read_text()
    assert "### fig1: Fake 2000, Fig 1: a line" in report
    assert "A line. Parameters: none." in report
    assert "| X1 | y at 1 is 2 | 2 | 2 | ±0.1 | target | pass |  |" in report
    row = "| X2 | y grows | increasing | decreasing | - | target | FAIL | made up to fail |"
    assert row in report
    assert "| X3 | y at 2 | not stated | 3 | - | finding | finding |  |" in report
    assert "| X4 | y at 0 is 0 | 0 | 0 | - | calibration | pass |  |" in report
    assert '- **X2**: "y grows" (Sec 2)' in report
    assert "All papers: 1/2 targets met, 1/1 calibration checks met, 1 finding." in report


def test_check_flag_exits_1_on_a_missed_target(fake_paper, tmp_path):
    assert main(["reproduce", "all", "--out", str(tmp_path), "--check"]) == 1


def test_quick_scale_does_not_touch_committed_figures(fake_paper, tmp_path, monkeypatch,
                                                      capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["reproduce", "fake2000"]) == 0
    where = tmp_path / "figures" / "quick"  # said in full: the default folder is relative
    assert capsys.readouterr().err.endswith(
        f"wrote 1 figure (PNG, data CSV, caption) under {where}; report: "
        f"{where / 'REPORT.md'}\n")
    assert (tmp_path / "figures" / "quick" / "fake2000" / "fig1.csv").exists()
    assert not (tmp_path / "figures" / "fake2000").exists()


@pytest.mark.parametrize(("spec", "match"), [
    ("nope", "unknown paper 'nope'; valid: all, fake2000"),
    ("fake2000.fig9", "unknown figure 'fig9' of fake2000; valid: fig1"),
])
def test_unknown_names(fake_paper, capsys, spec, match):
    assert main(["reproduce", spec]) == 2
    assert match in capsys.readouterr().err


def test_targets_table_rules():
    with pytest.raises(ValueError, match="duplicate target id 'X1'"):
        Targets([TARGETS["X1"], TARGETS["X1"]])
    with pytest.raises(ValueError, match="`role` must be one of"):
        Target("Y", "c", paper="p", source="s", role="guess")
    with pytest.raises(ValueError, match="`source` must quote the paper"):
        Target("Y", "c", paper="p", source=" ")
    with pytest.raises(ValueError, match="give both `value` and `tol`"):
        Target("Y", "c", paper="p", source="s", value=1.0)
    with pytest.raises(ValueError, match="X3 is a finding"):
        TARGETS.holds("X3", ours="x", passed=True)
    with pytest.raises(ValueError, match="X2 has no numeric"):
        TARGETS.within("X2", 1.0)
    with pytest.raises(KeyError, match="no target 'X9'"):
        TARGETS["X9"]
    assert TARGETS.within("X1", 2.1 + 1e-9).passed is False
    assert TARGETS.within("X1", float("nan")).passed is False
    assert TARGETS.ids == ["X1", "X2", "X3", "X4"]
    assert tally_text([]) == "no targets"


def test_layout_problems_flag_crowded_panels_and_overlaps():
    fig = MplFigure(figsize=(6, 3))
    left, right = fig.subplots(1, 2)
    for i in range(7):
        left.plot([0, 1, 2], [i, i, i])
    left.axhline(0.05)  # a reference line is not a curve
    left.plot([0, 1, 2], [0, 1, 2], "o")  # nor are markers alone
    left.set_title("crowded")
    right.plot([0, 1, 2], [0, 1, 2], label="a long label")
    right.set_title("right")
    right.legend(loc="upper left", bbox_to_anchor=(-1.2, 1))  # over the left panel
    problems = layout_problems(fig)
    assert "crowded: 7 curves (at most 6)" in problems
    assert "crowded overlaps right" in problems


def test_layout_problems_pass_a_clean_figure():
    fig = MplFigure(figsize=(8, 3), layout="constrained")
    for ax in fig.subplots(1, 2):
        ax.plot([0, 1, 2], [0, 1, 4], label="y")
        ax.set_title("a panel")
        ax.legend()
    fig.suptitle("Fake 2000, Fig 1")
    assert layout_problems(fig) == []


@pytest.mark.parametrize("paper", evalmc.reproductions.PAPERS)
def test_every_paper_declares_its_targets_and_titles_its_figures(paper):
    module = importlib.import_module(f"evalmc.reproductions.{paper}")
    assert isinstance(module.TARGETS, Targets) and len(module.TARGETS)
    # A paper whose text is in the project is quoted; the papers of a survey of classic
    # findings (cvtests), whose texts are not, are paraphrased and say so; a paper whose
    # abstract alone is at hand (bowyer2025) quotes it or says it paraphrases.
    quoted = paper != "cvtests"
    for target in module.TARGETS:
        rule = '"' in target.source if quoted else "(paraphrased)" in target.source
        if paper == "bowyer2025":
            rule = '"' in target.source or "(paraphrased)" in target.source
        assert rule, f"{paper} {target.id}: the source must quote the paper, or say it " \
                     "paraphrases it"
    # the first author of each work its registry row cites: "Keller, Bengio, Wong 2005" -> Keller
    citation = next(e.description for e in FIGURES.values() if e.facts["paper"] == paper)
    surnames = tuple(work.split(",")[0].split()[0] for work in citation.split(";"))
    for figure in figures(paper):
        assert figure.title.startswith(surnames), f"{paper}.{figure.name}: title's authors"
        assert re.search(r"\b(19|20)\d\d\b", figure.title), f"{paper}.{figure.name}: year"
        assert 40 < len(figure.caption) < 1500, f"{paper}.{figure.name}: caption length"
