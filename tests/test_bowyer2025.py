import json

import numpy as np
import pandas as pd
import pytest
from figure_checks import layout_of, quick_reproduction

from evalmc.reproductions import PAPERS, bowyer2025
from evalmc.reproductions.report import Runs
from evalmc.reproductions.runner import figures
from evalmc.stats.binomial import prior_coverage


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """The quick-scale figures: CI's main job's, or computed here (figure_checks.py)."""
    return quick_reproduction("bowyer2025", tmp_path_factory)


def test_registered():
    assert "bowyer2025" in PAPERS
    assert [f.name for f in figures("bowyer2025")] == ["iid", "iid-sim", "mismatch",
                                                       "clustered", "independent", "paired",
                                                       "paired-mismatch"]


def test_quick_scale_reports_every_target_once(quick):
    out, _ = quick
    ids = [c["id"] for f in figures("bowyer2025") for c in json.loads(
        (out / "bowyer2025" / f"{f.name}.checks.json").read_text())["checks"]]
    assert sorted(ids) == sorted(bowyer2025.TARGETS.ids)


def test_quick_scale_meets_every_target(quick):
    _, checks = quick
    assert [i for i, c in checks.items() if c.passed is False] == []


def test_figures_read_cleanly(quick):
    out, _ = quick
    problems = layout_of("bowyer2025", out)
    assert not any(problems.values()), problems


def test_exact_table_matches_its_sums():
    """The figures' exact rows are prior_coverage of the bounds, and the paper's grid of
    levels is 1 - linspace(0.005, 0.2, 100), which 95% is not on (so it is added)."""
    table = bowyer2025.compute_iid("quick", Runs())
    row = table[(table["method"] == "wald") & (table["n"] == 10) & ~table["on_grid"]].iloc[0]
    from evalmc.estimators.proportions import bounds

    assert row["level"] == 0.95
    assert row["coverage"] == pytest.approx(prior_coverage(*bounds("wald", 10, 0.95)))
    assert not np.isclose(bowyer2025.LEVELS, 0.95).any()
    assert bowyer2025.LEVELS[[0, -1]].tolist() == pytest.approx([0.995, 0.8])


def test_coverage_error_is_the_mean_gap_over_the_grid():
    table = pd.DataFrame({"prior": "p", "method": "m", "n": 3, "level": [0.8, 0.9, 0.95],
                          "coverage": [0.7, 0.9, 0.5], "on_grid": [True, True, False]})
    assert bowyer2025.coverage_error(table)["error"].tolist() == pytest.approx([0.05])


def test_clustered_check_judges_the_bayes_interval_with_its_mcse():
    data = pd.DataFrame({"method": ["clustered-wald", "clustered-bayes", "wilson"] * 2,
                         "n": [10] * 3 + [30] * 3,
                         "coverage": [0.45, 0.975, 0.7, 0.8, 0.95, 0.7],
                         "coverage_mcse": [0.03, 0.01, 0.03, 0.03, 0.01, 0.03]})
    checks = {c.id: c for c in bowyer2025.check_clustered(data, "quick")}
    assert checks["C2"].passed  # 0.025 off, within 0.02 + 2 MCSE
    data.loc[1, "coverage"] = 0.99
    checks = {c.id: c for c in bowyer2025.check_clustered(data, "quick")}
    assert not checks["C2"].passed


@pytest.mark.slow
def test_paper_scale_meets_its_targets(tmp_path):
    from evalmc.reproductions.runner import reproduce

    checks = reproduce("bowyer2025", scale="paper", out=tmp_path, n_jobs=2,
                       log=lambda _: None)
    assert [c.id for c in checks if c.passed is False] == []
