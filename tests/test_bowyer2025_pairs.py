"""The comparison figures of Bowyer, Aitchison and Ivanova (2025) at the quick scale: their
data, their targets and their layout (reproductions/bowyer2025_pairs.py)."""

import numpy as np
import pandas as pd
import pytest

from evalmc.reproductions import bowyer2025_pairs as pairs
from evalmc.reproductions.report import Runs, layout_problems


@pytest.fixture(scope="module")
def quick():
    """Each figure's quick-scale data, computed once."""
    return {fig.title: fig.compute("quick", Runs()) for fig in pairs.FIGURES}


def test_quick_scale_targets(quick):
    for fig in pairs.FIGURES:
        checks = fig.check(quick[fig.title], "quick")
        missed = [c.id for c in checks if c.passed is False]
        assert not missed, (fig.title, [(c.id, c.ours) for c in checks])


def test_figures_read_cleanly(quick):
    for fig in pairs.FIGURES:
        drawn = fig.plot(quick[fig.title])
        drawn.suptitle(fig.title)
        assert layout_problems(drawn) == [], fig.title


def test_quick_scale_data(quick):
    spec = pairs.SCALE["quick"]
    indep = quick[pairs.INDEPENDENT.title]
    assert set(indep["interval"]) == set(pairs.INDEPENDENT_INTERVALS)
    assert sorted(indep["n"].unique()) == list(spec["ns"])
    assert (indep["n_reps"] == spec["thetas"] * spec["reps"][0]).all()
    # the exact sum and the simulation over the same theta pairs agree within 4 MCSE
    assert (abs(indep["coverage"] - indep["exact"]) <= 4 * indep["coverage_mcse"]).all()
    paired = quick[pairs.PAIRED.title]
    assert set(paired["interval"]) == set(pairs.PAIRED_INTERVALS)
    mismatch = quick[pairs.PAIRED_MISMATCH.title]
    assert list(dict.fromkeys(mismatch["prior"])) == list(pairs.PRIORS)[1:]


def test_pooled_coverage_and_its_error():
    summary = pd.DataFrame({"n": [3, 3], "interval": ["clt-diff"] * 2,
                            "level": [0.95, 0.95], "coverage": [0.8, 0.9],
                            "coverage_mcse": [0.04, 0.03], "width": [1.0, 2.0],
                            "n_reps": [100, 100]})
    row = pairs._pooled(summary).iloc[0]
    assert (row["interval"], row["coverage"], row["width"], row["n_reps"]) == (
        "clt-diff", pytest.approx(0.85), 1.5, 200)
    assert row["coverage_mcse"] == pytest.approx(0.025)


def test_checks_can_fail(quick):
    """Nominal coverage everywhere: the CLT's under-coverage targets miss."""
    flat = quick[pairs.INDEPENDENT.title].assign(coverage=0.95)
    checks = {c.id: c for c in pairs.check_independent(flat, "quick")}
    assert checks["BP1"].passed is False and checks["BP2"].passed is True
    flat = quick[pairs.PAIRED.title].assign(coverage=0.95)
    assert not {c.id: c for c in pairs.check_paired(flat, "quick")}["BP4"].passed


def test_thetas_are_the_prior_draws():
    theta_a, theta_b = pairs.draw_thetas("B ~ Beta(100, 20)", 2000)
    assert abs(theta_b.mean() - 100 / 120) < 0.003 and abs(theta_a.mean() - 0.5) < 0.03
    again = pairs.draw_thetas("B ~ Beta(100, 20)", 2000)
    np.testing.assert_array_equal(theta_b, again[1])


@pytest.mark.slow
def test_paper_scale_targets():
    for fig in pairs.FIGURES:
        data = fig.compute("paper", Runs(n_jobs=2))
        missed = [c.id for c in fig.check(data, "paper") if c.passed is False]
        assert not missed, fig.title
