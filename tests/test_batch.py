"""Shapes and the data a batch holds are checked before any kernel reads them."""

import re

import numpy as np
import pytest

from evalmc.criteria import CRITERIA, get_criterion
from evalmc.sims import SCENARIOS, get_scenario
from evalmc.sims.base import Batch, Scenario, row_mean_var
from evalmc.sims.scores import ValTestBatch
from evalmc.study.estimation import run_estimation
from evalmc.study.rates import run_study


def test_row_mean_var_refuses_a_y_of_another_width():
    with pytest.raises(ValueError, match=r"`y` must have the shape of `x`, \(2, 5\); got \(2, 3\)"):
        row_mean_var(np.ones((2, 5)), np.ones((2, 3)))


def test_row_mean_var_refuses_fewer_than_two_columns():
    with pytest.raises(ValueError, match="`x` must be a 2-D array with at least 2 columns"):
        row_mean_var(np.ones((3, 1)))


def test_row_mean_var_matches_numpy():
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((2, 4, 7))
    mean, var = row_mean_var(x, y)
    np.testing.assert_allclose(mean, (x - y).mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(var, (x - y).var(axis=1, ddof=1), rtol=1e-12)


def test_paired_batch_needs_equal_widths():
    with pytest.raises(ValueError, match="need as many runs of A as of B; got 5 and 3"):
        Batch(np.ones((2, 5)), np.ones((2, 3)), paired=True)


def test_batch_needs_one_row_per_replication_on_both_sides():
    with pytest.raises(ValueError, match=r"got shapes \(2, 5\) and \(3, 5\)"):
        Batch(np.ones((2, 5)), np.ones((3, 5)), paired=False)


@pytest.mark.parametrize("name", [n for n, c in CRITERIA.items()
                                  if c.facts.get("paired") and c.facts.get("needs") is None])
def test_paired_criteria_never_see_unequal_widths(name):
    """A paired criterion reads a[i, j] and b[i, j] together: an unpaired batch of unequal widths
    is refused before any kernel runs."""
    rng = np.random.default_rng(0)
    batch = Batch(rng.standard_normal((4, 6)), rng.standard_normal((4, 3)), paired=False)
    with pytest.raises(ValueError, match=f"criterion '{name}' needs paired samples of equal width"):
        get_criterion(name)(batch, rng)


@pytest.mark.parametrize("name", [n for n, c in CRITERIA.items() if c.facts.get("needs")])
def test_criteria_refuse_a_batch_without_the_data_they_need(name):
    needs = CRITERIA[name].facts["needs"]
    batch = Batch(np.zeros((2, 4)), np.zeros((2, 4)), paired=True)
    with pytest.raises(ValueError, match=f"criterion '{name}' needs {needs}; this batch holds "
                                         "scores."):
        get_criterion(name)(batch, np.random.default_rng(0))


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_a_scenario_yields_its_declared_batch_type_and_cuts_keep_it(name, tmp_path):
    args = {}
    if name == "empirical":  # the three scenarios without a default population
        args["file"] = tmp_path / "runs.csv"
        args["file"].write_text("acc\n0.9\n0.8\n0.85\n")
        args["file"] = str(args["file"])
    if name == "empirical-paired":
        args["file"] = tmp_path / "pairs.csv"
        args["file"].write_text("a,b\n0.9,0.8\n0.8,0.85\n0.85,0.7\n")
        args.update(file=str(args["file"]), a="a", b="b")
    if name == "item-model":
        args["file"] = tmp_path / "items.csv"
        args["file"].write_text("model,item,score\nA,1,1\nA,2,0\nA,3,1\nB,1,0\nB,2,1\n"
                                "B,3,1\n")
        args.update(file=str(args["file"]), a="A", b="B")
    scenario = get_scenario(name)(**args)
    kind = scenario.batch
    assert kind.holds == set(SCENARIOS[name].facts["yields"])
    batch = scenario.draw(np.random.default_rng(0), 3)
    assert type(batch) is kind
    if not kind.generic:
        assert type(batch.take(1)) is Batch
        return
    joined = Batch.concat([batch.rows(0, 1), batch.take(1), batch.rows(2, 3)])
    for cut, rows in ((batch.take(2), slice(2, 3)), (joined, slice(0, 3))):
        assert type(cut) is kind and cut.a.tolist() == batch.a[rows].tolist()
        for field in kind.shared:
            assert getattr(cut, field) == getattr(batch, field)
        for field in kind.per_rep:
            np.testing.assert_equal(_cut(getattr(batch, field), rows), getattr(cut, field))


def _cut(values, rows):
    if values is None:
        return None
    if isinstance(values, tuple):
        return tuple(_cut(v, rows) for v in values)
    return values[rows]


@pytest.mark.parametrize(("scenario", "criterion", "message"), [
    ("normal", "friedman", "criterion 'friedman' needs table; scenario 'normal' yields scores."),
    ("llm-items", "5x2cv-t", "criterion '5x2cv-t' needs splits; scenario 'llm-items' yields "
                            "clusters, samples, scores."),
    ("paired-classifiers", "welch-t", "criterion 'welch-t' needs scores; scenario "
                                      "'paired-classifiers' yields counts."),
])
def test_a_study_refuses_a_criterion_before_drawing(scenario, criterion, message, monkeypatch):
    kind = get_scenario(scenario)
    monkeypatch.setattr(kind, "draw", lambda *args: pytest.fail("drew a batch"))
    with pytest.raises(ValueError, match=re.escape(message)):
        run_study({}, scenario, [criterion], n_reps=10, seed=0)


def test_an_estimator_study_refuses_an_estimator_before_drawing():
    from evalmc.reproductions.bajgar2018 import ESTIMATES

    with pytest.raises(ValueError, match="estimator 'Boo_5' needs validation scores; scenario "
                                         "'normal' yields scores."):
        run_estimation({}, "normal", [ESTIMATES["Boo_5"]], n_reps=10, seed=0)


def test_a_registered_scenario_must_yield_what_its_row_says():
    with pytest.raises(TypeError, match="its row yields \\('scores',\\), its batch type "
                                        "ValTestBatch holds"):
        class Wrong(Scenario, registered="normal"):
            batch = ValTestBatch


def test_batches_of_other_widths_do_not_join():
    one = Batch(np.zeros((2, 3)), np.ones((2, 3)), paired=True)
    assert Batch.concat([one, Batch(np.zeros((1, 4)), np.ones((1, 4)), paired=True)]) is None
