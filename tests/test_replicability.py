"""Replicability (Bouckaert and Frank 2004): runs of a scheme on the same data sets, and the
chance that two runs reach the same decision."""

import itertools

import numpy as np
import pytest

from evalmc.criteria.base import CriterionResult
from evalmc.engine.tallies import RejectionTally
from evalmc.sims.learning import CvClassification, CvRegression
from evalmc.study.rates import make_design, run_study


def _result(pvalues):
    """A CriterionResult of the first run, the others as its reruns (rows: replications)."""
    runs = [CriterionResult.from_pvalues(np.asarray(p, float)) for p in pvalues]
    return CriterionResult(runs[0].failed, pvalue=runs[0].pvalue, reruns=tuple(runs[1:]))


def test_agreement_is_the_share_of_agreeing_pairs_of_runs():
    rng = np.random.default_rng(3)
    p = rng.random((4, 50))
    p[2, 7] = np.nan  # a failed run leaves its replication out
    (tally,) = RejectionTally.of_blocks(_result(p), np.array([0, 50]), (), levels=(0.3,))
    per_rep = [np.mean([(p[i, r] <= 0.3) == (p[j, r] <= 0.3)
                        for i, j in itertools.combinations(range(4), 2)])
               for r in range(50) if r != 7]
    got = tally.replicability(0.3)
    assert got["replicability"] == pytest.approx(np.mean(per_rep), rel=1e-12)
    assert got["replicability_mcse"] == pytest.approx(
        np.std(per_rep, ddof=1) / np.sqrt(len(per_rep)), rel=1e-12)
    assert np.isnan(tally.replicability(None)["replicability"])


def test_blocks_add_up_to_the_whole():
    p = np.random.default_rng(4).random((3, 40))
    whole, = RejectionTally.of_blocks(_result(p), np.array([0, 40]), (), levels=(0.5,))
    parts = RejectionTally.of_blocks(_result(p), np.array([0, 15, 40]), (), levels=(0.5,))
    assert (parts[0] + parts[1]).agree == whole.agree


def coin(a, b, rng):
    """A test that ignores the data: a uniform p-value."""
    return rng.random()


def test_independent_decisions_agree_as_theory_says():
    """A test whose decisions are independent coin flips of P(reject) = alpha agrees with
    itself with probability alpha^2 + (1 - alpha)^2."""
    res = run_study(make_design(n=40, d=3, p=1, scheme="random", j=3, runs=4),
                    "cv-regression", [coin], n_reps=2000, seed=9, alpha=0.3)
    row = res.summary.iloc[0]
    assert abs(row["replicability"] - 0.58) <= 4 * row["replicability_mcse"]


def test_draws_hold_each_run_of_the_same_data_sets():
    s = CvRegression(n=40, d=4, p=2, scheme="kfold", k=4, runs=3)
    batch = s.draw(np.random.default_rng(2), 5)
    assert batch.a.shape == (5, 4) and len(batch.reruns) == 2
    test_a, _, _, _ = s.fit(np.random.default_rng(2), 5, runs=3)
    np.testing.assert_array_equal(batch.reruns[1][0], test_a[:, 8:])
    h = CvClassification(n=60, d=3, scheme="holdout", test_share=0.25, runs=2)
    batch = h.draw(np.random.default_rng(2), 3)
    assert batch.a.shape == batch.reruns[0][0].shape == (3, 15)


def test_replicability_does_not_depend_on_workers_and_survives_the_cache(tmp_path):
    design = make_design(n=60, d=4, p=2, scheme="5x2", runs=3, shift=[0.0, 0.3])
    kw = dict(n_reps=300, seed=5, block_size=100)
    one = run_study(design, "cv-regression", ["5x2cv-t"], n_jobs=1, cache=tmp_path, **kw)
    two = run_study(design, "cv-regression", ["5x2cv-t"], n_jobs=2, **kw)
    cached = run_study(design, "cv-regression", ["5x2cv-t"], cache=tmp_path, **kw)
    assert cached.blocks_computed == 0
    for other in (two, cached):
        assert one.summary.equals(other.summary)
    assert one.summary["replicability"].tolist() == REPLICABILITY


REPLICABILITY = [0.8377777777777778, 0.7777777777777778]  # shift 0.0 is the default


def test_kept_values_are_the_first_runs_and_mix_with_cached_blocks(tmp_path):
    design = make_design(n=60, d=4, p=2, scheme="random", j=3, runs=2)
    kw = dict(seed=2, block_size=50, keep_values=True, cache=tmp_path)
    first = run_study(design, "cv-regression", ["resampled-t"], n_reps=100, **kw)
    more = run_study(design, "cv-regression", ["resampled-t"], n_reps=150, **kw)
    assert more.blocks_reused == 2
    (values,) = more.outcomes.values()
    assert values.reruns == () and values.pvalue.shape == (150,)
    assert next(iter(first.outcomes.values())).reruns == ()
    np.testing.assert_array_equal(values.pvalue[:100],
                                  next(iter(first.outcomes.values())).pvalue)


def test_no_column_without_runs():
    res = run_study(make_design(scheme="random", n=60, d=4, p=2, j=3), "cv-regression",
                    ["resampled-t"], n_reps=50, seed=1)
    assert "replicability" not in res.summary


def test_bad_runs():
    with pytest.raises(ValueError, match=r"`runs` must be an integer in \[1, 100\]; got 0"):
        CvRegression(runs=0)
