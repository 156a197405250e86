import importlib
import json
import re
import sys
import types
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure as MplFigure

import evalmc.reproductions
from evalmc.cli import main
from evalmc.registry import Entry, Registry
from evalmc.reproductions import runner
from evalmc.reproductions.registry import FIGURES
from evalmc.reproductions.report import (
    Check,
    Figure,
    Target,
    Targets,
    agree,
    combine,
    headline,
    layout_problems,
    tally,
    tally_text,
    write_report,
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
    summary = ("2 claims: 1 reproduced, 0 contradicted with evidence, 0 inconclusive, 1 missed; "
               "1/1 calibration checks met; 1 finding")
    assert out == summary + "; FAIL: X2\n"
    assert f"fake2000.fig1: {summary} (FAIL: X2)" in err
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
    assert f"All papers: {summary}." in report
    assert "| fake2000 | 2 | 1 | 0 | 0 | 1 | 1/1 | - | 1 |" in report


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


def _row(id, role="target", passed=True, evidence=False, note=""):
    return Check(id, "c", "p", "o", "-", passed, note=note, role=role, evidence=evidence)


def test_headline_counts_claims_by_outcome():
    one = [_row("A1"), _row("A2", passed=None, note="inconclusive: a coin flip"),
           _row("A3", passed=False, evidence=True, note="the cause, measured"),
           _row("A4", passed=False, note="cause undetermined"),
           _row("A5", role="finding", passed=None), _row("A6", role="calibration"),
           _row("A7", role="extension", passed=None, note="inconclusive: one run"),
           _row("A8", role="extension", passed=False)]
    two = [_row("B1"), _row("B2", passed=None, note="inconclusive")]
    assert [c.outcome for c in one[:5]] == ["reproduced", "inconclusive", "contradicted",
                                            "missed", "finding"]
    assert [c.result for c in one[4:]] == ["finding", "pass", "inconclusive", "FAIL"]
    assert tally(one)["target"] == {"reproduced": 1, "contradicted": 1, "inconclusive": 1,
                                    "missed": 1}
    assert headline({"one": one, "two": two})[2:] == [
        "| one | 4 | 1 | 1 | 1 | 1 | 1/1 | 0/2 (1 inconclusive) | 1 |",
        "| two | 2 | 1 | 0 | 1 | 0 | - | - | 0 |",
        "| all papers | 6 | 2 | 1 | 2 | 1 | 1/1 | 0/2 (1 inconclusive) | 1 |"]
    assert tally_text(two) == ("2 claims: 1 reproduced, 0 contradicted with evidence, "
                               "1 inconclusive, 0 missed")


def test_folded_claims_count_once():
    """A claim made at three levels, or under two readings of the paper's interval, is one row
    whose sub-checks combine by its rule: all must hold, readings must agree."""
    assert combine([True, True, True]) is True
    assert combine([True, None, True]) is None and combine([True, None, False]) is False
    assert agree([True, True]) is True and agree([False, False]) is False
    assert agree([True, False]) is None and agree([None, None]) is None
    from evalmc.reproductions import keller2005

    rows = [{"panel": p, "definition": d, "n": n, "criterion": c, "alpha": a, "rate": 0.8 * a,
             "mcse": 0.001, "std": 0.01, "categories": 3}
            for p in "abcd" for d in keller2005.DEFINITIONS for n in (100, 1000, 6000)
            for c in keller2005.TESTS for a in keller2005.ALPHAS]
    checks = [c for c in keller2005.check_fig1(pd.DataFrame(rows), "quick")
              if c.role == "target"]
    assert [c.id for c in checks] == ["K1", "K2", "K3-size", "K4", "K5", "K7-size", "K7-d"]
    assert sum(tally(checks)["target"].values()) == 7  # K1: 3 levels, K4: 4, K5: 2 -> 1 each


def test_inconclusive_and_evidence_rules():
    with pytest.raises(ValueError, match="X2 is inconclusive: its `note` must state the rule"):
        TARGETS.holds("X2", ours="x", passed=None)
    with pytest.raises(ValueError, match="`evidence` marks a FAIL whose `note` states"):
        TARGETS.holds("X2", ours="x", passed=False, evidence=True)
    assert TARGETS.holds("X2", ours="x", passed=True, evidence=True).evidence is False
    assert TARGETS.holds("X2", ours="x", passed=None, note="inconclusive: a coin flip").result \
        == "inconclusive"
    with pytest.raises(ValueError, match="X2 must be judged"):
        TARGETS.finding("X2", ours="x")


ROOT = Path(__file__).resolve().parents[1]


def test_committed_report_is_the_code_s(tmp_path):
    """figures/REPORT.md is what write_report makes of the committed checks."""
    for path in (ROOT / "figures").glob("*/*.checks.json"):
        (tmp_path / path.parent.name).mkdir(exist_ok=True)
        (tmp_path / path.parent.name / path.name).write_text(path.read_text())
    assert write_report(tmp_path).read_text() == (ROOT / "figures" / "REPORT.md").read_text()


def test_readme_table_matches_the_report_headline():
    """Each paper's row of the README's table gives the report's claims by outcome."""
    records = [json.loads(p.read_text()) for p in (ROOT / "figures").glob("*/*.checks.json")]
    readme = (ROOT / "README.md").read_text()
    for paper in evalmc.reproductions.PAPERS:
        counts = tally([Check(**c) for r in records if r["paper"] == paper
                        for c in r["checks"]])["target"]
        cell = (f"{counts['reproduced']} / {counts['contradicted']} / "
                f"{counts['inconclusive']} / {counts['missed']} of {sum(counts.values())}")
        row = next(line for line in readme.splitlines()
                   if line.startswith("| ") and f"`{paper}`" in line)
        assert f"| {cell} |" in row, (paper, cell, row)


#: The re-judged rows' outcomes at the paper scale, from the committed data.
REJUDGED = {
    "keller2005.fig1": {"K1": "reproduced", "K3-size": "reproduced", "K4": "contradicted",
                        "K5": "reproduced", "K7-d": "contradicted"},
    "keller2005.fig2": {"K3-power": "reproduced", "K8": "reproduced"},
    "giles1997.fig2": {"G6 FIR no gains": "inconclusive", "G6 FIR gains": "inconclusive"},
    "giles1997.fig3": {"G6c": "inconclusive", "G6f": "inconclusive", "G6g": "inconclusive"},
    "giles1997.fig4": {"G1 K=5": "inconclusive", "G1 K=10": "reproduced",
                       "G1 K=15": "inconclusive"},
    "giles1997.fig5": {"G4 K=1": "inconclusive", "G4 K=5": "inconclusive"},
    "giles1997.teachersweep": {"G2": "contradicted", "G3": "contradicted",
                               "G5": "contradicted"},
}


@pytest.mark.parametrize("spec", REJUDGED)
def test_committed_checks_are_the_checks_of_the_committed_data(spec):
    """Each re-judged figure's committed checks are what its check makes of its committed CSV,
    and its moved rows come to the outcomes the report gives."""
    from dataclasses import asdict

    paper, name = spec.split(".")
    record = json.loads((ROOT / "figures" / paper / f"{name}.checks.json").read_text())
    data = pd.read_csv(ROOT / "figures" / paper / f"{name}.csv")
    checks = FIGURES.entry(spec).load().check(data, record["scale"])
    assert [asdict(c) for c in checks] == record["checks"]
    assert {c.id: c.outcome for c in checks if c.id in REJUDGED[spec]} == REJUDGED[spec]
