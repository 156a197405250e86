"""Estimator studies: coverage, bias, SE and RMSE with Monte Carlo errors, on the engine."""

import naive
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalmc
from evalmc.engine.tallies import EstimateTally
from evalmc.study.estimation import run_estimation

BOTH = ["t-interval", "percentile-bootstrap"]


def _study(**kwargs):
    args = dict(design={"n_a": [3, 5, 10]}, scenario="normal", estimators=BOTH, n_reps=4000,
                seed=11, block_size=500)
    return run_estimation(**{**args, **kwargs})


@pytest.fixture(scope="module")
def study():
    return _study()


def test_t_interval_covers_at_its_level_exactly_on_normal_runs(study):
    s = study.summary.query("estimator == 't-interval'")
    assert (abs(s["coverage"] - 0.95) <= 4 * np.sqrt(0.95 * 0.05 / 4000)).all()


def test_bias_and_empirical_se_match_theory(study):
    s = study.summary.query("estimator == 't-interval'")
    assert (abs(s["bias"]) <= 4 * s["bias_mcse"]).all()
    theory = 1 / np.sqrt(s["n_a"])
    assert (abs(s["emp_se"] - theory) <= 4 * s["emp_se_mcse"]).all()
    # RMSE^2 = bias^2 + var: for an unbiased mean, the RMSE is the SE
    assert (abs(s["rmse"] - theory) <= 4 * s["rmse_mcse"]).all()


def test_percentile_bootstrap_coverage_equals_a_plain_simulation(study):
    s = study.summary.query("estimator == 'percentile-bootstrap'").set_index("n_a")
    rng = np.random.default_rng(5)
    for n in (3, 5, 10):
        ref = naive.percentile_bootstrap_coverage(n, 4000, 1000, rng)
        ours = s.loc[n, "coverage"]
        se = np.sqrt(ours * (1 - ours) / 4000 + ref * (1 - ref) / 4000)
        assert abs(ours - ref) <= 4 * se, (n, ours, ref)
    assert s["coverage"].is_monotonic_increasing and s.loc[3, "coverage"] < 0.8


def test_fixed_seed_counts(study):
    s = study.summary
    covered = (s["coverage"] * 4000).round().astype(int).tolist()
    assert covered == [3782, 2937, 3796, 3331, 3809, 3596]


def _blocks(**kwargs):
    """A quarter of `study` in blocks of 100: ten blocks per condition, for the checks of
    workers, tasks and the cache (which do not depend on the number of replications)."""
    return _study(**{"n_reps": 1000, "block_size": 100, **kwargs})


@pytest.fixture(scope="module")
def blocks():
    return _blocks()


@pytest.mark.parametrize("kwargs", [{"n_jobs": 2}, {"n_jobs": 2, "backend": "loky"},
                                    {"task_seconds": 1e-9, "n_jobs": 2}])
def test_identical_for_workers_backends_and_task_lengths(blocks, kwargs):
    pd.testing.assert_frame_equal(_blocks(**kwargs).summary, blocks.summary)


def test_cache_resume_and_extension(tmp_path, blocks):
    short = _blocks(cache=tmp_path, n_reps=400)
    assert short.blocks_computed == 12
    full = _blocks(cache=tmp_path)
    assert full.blocks_reused == 12 and full.blocks_computed == 18
    pd.testing.assert_frame_equal(full.summary, blocks.summary)
    again = _blocks(cache=tmp_path)
    assert again.blocks_computed == 0
    # another target is another tally: not read from the cache
    other = _blocks(cache=tmp_path, target=1.0)
    assert other.blocks_computed == 30


def test_measures_equal_the_kept_values():
    res = _study(estimators=["percentile-bootstrap"], keep_values=True, n_reps=1200)
    row = res.summary.iloc[0]
    values = res.outcomes[(int(res.design["condition_id"][0]), "percentile-bootstrap")]
    with pytest.warns(DeprecationWarning, match=r"`EstimationResult.values` is deprecated; use "
                                                r"`outcomes` \(as StudyResult\)"):
        assert res.values is res.outcomes  # the old name, for now
    est = values.estimate
    assert row["mean"] == pytest.approx(est.mean(), rel=1e-12)
    assert row["emp_se"] == pytest.approx(est.std(ddof=1), rel=1e-10)
    assert row["rmse"] == pytest.approx(np.sqrt(np.mean(est**2)), rel=1e-10)
    e2 = est**2
    assert row["rmse_mcse"] == pytest.approx(e2.std(ddof=1) / np.sqrt(e2.size)
                                             / (2 * row["rmse"]), rel=1e-8)
    width = values.high - values.low
    assert row["width"] == pytest.approx(width.mean(), rel=1e-12)
    assert row["width_mcse"] == pytest.approx(stats.sem(width), rel=1e-10)
    assert row["coverage"] == np.mean((values.low <= 0) & (0 <= values.high))


def test_tallies_added_in_order_equal_the_whole():
    rng = np.random.default_rng(3)
    est, low = rng.normal(size=900), rng.normal(size=900) - 1
    high, failed = low + 2, np.zeros(900, bool)
    whole = EstimateTally.of(est, low, high, failed, 0.1)
    parts = [EstimateTally.of(est[i:i + 300], low[i:i + 300], high[i:i + 300],
                              failed[i:i + 300], 0.1) for i in (0, 300, 600)]
    total = parts[0] + parts[1] + parts[2]
    for key, value in whole.summary(0.1).items():
        assert total.summary(0.1)[key] == pytest.approx(value, rel=1e-12), key


def test_an_infinite_width_makes_the_mean_width_infinite_in_any_order(recwarn):
    """An interval (0, inf), as Fisher's odds ratio gives: the mean width is infinite and its
    MCSE undefined (NaN), whichever block comes first, without numpy's RuntimeWarning; the
    coverage counts the interval; the block store's record keeps it; the finite blocks alone
    keep their moments."""
    rng = np.random.default_rng(8)
    low = rng.uniform(0.2, 1.0, 200)
    high = low + rng.uniform(0.5, 3.0, 200)
    low[[17, 150]], high[[17, 150]] = 0.0, np.inf
    est, failed = np.full(200, np.nan), np.zeros(200, bool)
    blocks = [EstimateTally.of(est[i:i + 50], low[i:i + 50], high[i:i + 50], failed[:50], 1.5)
              for i in range(0, 200, 50)]
    covered = (low <= 1.5) & (1.5 <= high)
    for order, finite in ((blocks, False), (blocks[::-1], False), (blocks[1:3], True)):
        total = order[0]
        for block in order[1:]:
            total = total + block
        row = EstimateTally.from_record(*total.to_record()).summary(1.5)
        if finite:  # rows 50 to 149
            width = high[50:150] - low[50:150]
            assert row["width"] == pytest.approx(width.mean(), rel=1e-12)
            assert row["width_mcse"] == pytest.approx(stats.sem(width), rel=1e-10)
            assert row["coverage"] == covered[50:150].mean()
        else:
            assert row["width"] == np.inf and np.isnan(row["width_mcse"])
            assert row["coverage"] == covered.mean() and covered[[17, 150]].all()
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_fisher_odds_ratio_study_reports_an_infinite_mean_width(recwarn):
    """Five questions each: tables with a zero cell give (x, inf) or (0, inf), so the mean
    width is inf, not NaN, nothing warns, and the coverage is within 4 MCSE of the exact sum."""
    from evalmc.estimators.comparisons import independent_coverage

    res = run_estimation({"n": [5]}, "two-models", ["fisher-odds-ratio"], target="odds-ratio",
                         n_reps=200, seed=4, block_size=50, progress=False)
    row = res.summary.iloc[0]
    assert row["width"] == np.inf and np.isnan(row["width_mcse"])
    exact = independent_coverage("fisher-odds-ratio", 5, 0.5, 0.5, target="odds-ratio")
    assert abs(row["coverage"] - exact) <= 4 * np.sqrt(exact * (1 - exact) / 200)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_user_estimator_intervals_failures_and_summarise():
    def shaky(a, b):
        """A mean +- 1 interval that fails when A's first run is high."""
        if a[0] > 1.5:
            raise ValueError("too high")
        return a.mean() - 1.0, a.mean() + 1.0

    def quantiles(values, truth):
        return {"low_q05": float(np.quantile(values.low[~values.failed], 0.05))}

    res = run_estimation({"n_a": 4}, "normal", [shaky], n_reps=3000, seed=2,
                         summarise=quantiles)
    row = res.summary.iloc[0]
    # P(first run > 1.5) = 0.0668: the failures are those draws
    assert abs(row["n_failed"] / 3000 - 0.0668) <= 4 * np.sqrt(0.0668 * 0.9332 / 3000)
    assert res.failures[0].message == "ValueError: too high"
    assert np.isnan(row["bias"]) and row["width"] == pytest.approx(2.0)
    # mean of 4 N(0,1) runs within 1 of 0: P(|Z| < 2) = 0.9545, among replications kept
    assert abs(row["coverage"] - 0.9545) < 0.02
    assert "low_q05" in res.summary


@pytest.mark.parametrize(("target", "truth"), [
    ("effect", 0.5), (2.0, 2.0), (lambda sc: sc.shift * 2, 1.0), ("mean-a", 0.5)])
def test_targets(target, truth):
    def difference(a, b):  # declares no estimand: trusted with any target
        return a.mean() - b.mean()

    res = run_estimation({"shift": 0.5}, "normal", [difference], n_reps=10, seed=0,
                         target=target)
    assert res.summary["truth"].iloc[0] == truth


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"target": "median"},
     "`target` must be one of 'mean-a', 'effect', 'odds-ratio'; got 'median'"),
    ({"scenario": "pipelines", "design": {"k": 5}}, "scenario 'pipelines' does not define "
                                                    "`target` 'mean-a'"),
    ({"estimators": ["nope"]}, "unknown estimator 'nope'"),
    ({"estimators": []}, "`estimators` must name at least one estimator"),
    ({"n_reps": 0}, "`n_reps` must be an integer >= 1; got 0"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        _study(**kwargs)


def test_plot_coverage_against_n(study):
    ax = study.plot().axes[0]
    assert ax.get_xlabel() == "n_a"
    labels = [c.get_label() for c in ax.containers]
    assert labels == BOTH
    assert [line.get_ydata()[0] for line in ax.lines if line.get_linestyle() == "--"] == \
        [0.95, 0.95]


def test_public_api():
    assert evalmc.run_estimation is run_estimation


def test_a_nan_estimate_with_a_finite_interval_is_a_failure():
    """Without a failure mask, a NaN estimate is no answer even with a finite interval (and a
    NaN bound beside a finite estimate): the replication fails, with its message, and counts in
    neither the bias nor the coverage."""
    from evalmc.estimators.intervals import EstimateResult

    nan = np.nan
    result = EstimateResult(np.array([1.0, nan, 2.0, nan]), np.array([0.0, 0.0, nan, nan]),
                            np.array([2.0, 1.0, 3.0, nan]))
    assert result.failed.tolist() == [False, True, True, True]
    assert result.errors == {1: "no estimate (degenerate sample)",
                             2: "no interval (degenerate sample)",
                             3: "no estimate (degenerate sample)"}
    assert EstimateResult(np.array([nan])).failed.tolist() == [True]  # a point estimator
