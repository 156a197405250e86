"""Estimators of the difference mean(A) - mean(B): Welch's and the paired t interval, the
percentile bootstrap of the difference and the plain difference, checked against scipy and
numpy, and their coverage of the scenario's effect."""

import numpy as np
import pytest
from scipy import stats

from evalmc.cli import main
from evalmc.estimators.intervals import get_estimator
from evalmc.sims.base import Batch
from evalmc.study.estimation import run_estimation

RNG = np.random.default_rng(27)
A, B = RNG.normal(1.0, 1.0, (3, 7)), RNG.normal(0.0, 2.5, (3, 7))
UNPAIRED = Batch(A, B[:, :5], paired=False)
PAIRED = Batch(A, B, paired=True)


def _mcse(p, n):
    return np.sqrt(p * (1 - p) / n)


def test_welch_interval_is_scipys():
    res = get_estimator("welch-interval(level=0.9)")(UNPAIRED, None)
    for i in range(3):
        ci = stats.ttest_ind(A[i], B[i, :5], equal_var=False).confidence_interval(0.9)
        assert res.low[i] == pytest.approx(ci.low, rel=1e-12)
        assert res.high[i] == pytest.approx(ci.high, rel=1e-12)
        assert res.estimate[i] == pytest.approx(A[i].mean() - B[i, :5].mean(), rel=1e-12)


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy's, on constants
def test_welch_interval_of_constant_samples_is_scipys_point():
    batch = Batch(np.ones((1, 3)), np.zeros((1, 4)), paired=False)
    res = get_estimator("welch-interval")(batch, None)
    ci = stats.ttest_ind(np.ones(3), np.zeros(4), equal_var=False).confidence_interval()
    assert (res.low[0], res.high[0]) == (ci.low, ci.high) == (1.0, 1.0)


def test_bad_parameters_are_refused_by_name():
    with pytest.raises(ValueError, match=r"^`level` must be in \(0, 1\); got 2.0.$"):
        get_estimator("welch-interval(level=2)")
    with pytest.raises(ValueError, match=r"^`n_boot` must be an integer >= 1; got 0.$"):
        get_estimator("bootstrap-diff(n_boot=0)")


def test_paired_t_interval_is_scipys():
    res = get_estimator("paired-t-interval")(PAIRED, None)
    for i in range(3):
        ci = stats.ttest_rel(A[i], B[i]).confidence_interval(0.95)
        assert res.low[i] == pytest.approx(ci.low, rel=1e-12)
        assert res.high[i] == pytest.approx(ci.high, rel=1e-12)


def test_mean_diff_is_the_difference_of_means():
    res = get_estimator("mean-diff")(UNPAIRED, None)
    np.testing.assert_allclose(res.estimate, A.mean(axis=1) - B[:, :5].mean(axis=1), rtol=1e-12)
    assert res.low is None
    one = Batch(A[:, :1], B, paired=False)  # one run of A: no variance, still a mean
    np.testing.assert_allclose(get_estimator("mean-diff")(one, None).estimate,
                               A[:, 0] - B.mean(axis=1), rtol=1e-12)


def _numpy_bootstrap(rng, a, b, n_boot, level):
    """Percentile bootstrap of mean(a) - mean(b) per row: A's indices, then B's (none for the
    differences of paired runs), as scipy.stats.bootstrap draws them."""
    lows, highs = [], []
    for i in range(a.shape[0]):
        reps = a[i][rng.integers(0, a.shape[1], (n_boot, a.shape[1]))].mean(axis=1)
        if b is not None:
            reps = reps - b[i][rng.integers(0, b.shape[1], (n_boot, b.shape[1]))].mean(axis=1)
        low, high = np.quantile(reps, [(1 - level) / 2, (1 + level) / 2])
        lows.append(low)
        highs.append(high)
    return np.array(lows), np.array(highs)


@pytest.mark.parametrize("paired", [False, True])
def test_bootstrap_diff_is_a_plain_numpy_bootstrap_with_the_same_generator(paired):
    batch = PAIRED if paired else UNPAIRED
    res = get_estimator("bootstrap-diff(n_boot=300,level=0.8)")(batch,
                                                                np.random.default_rng(5))
    a, b = (A - B, None) if paired else (A, B[:, :5])
    low, high = _numpy_bootstrap(np.random.default_rng(5), a, b, 300, 0.8)
    np.testing.assert_allclose(res.low, low, rtol=1e-12)
    np.testing.assert_allclose(res.high, high, rtol=1e-12)
    np.testing.assert_allclose(res.estimate, A.mean(axis=1) - batch.b.mean(axis=1), rtol=1e-12)


def test_welch_interval_covers_the_effect_with_unequal_variances():
    n = 4000
    res = run_estimation({"n_a": [4, 12], "n_b": 6, "sd_a": 3.0, "shift": 0.5}, "normal",
                         ["welch-interval"], target="effect", n_reps=n, seed=3,
                         progress=False)
    s = res.summary
    assert (s["truth"] == 0.5).all()
    assert (abs(s["coverage"] - 0.95) <= 4 * _mcse(0.95, n)).all()


def test_paired_t_interval_covers_the_effect_of_correlated_pairs():
    n = 4000
    res = run_estimation({"n": [3, 10], "rho": 0.8, "sd_a": 2.0, "mean_diff": 0.3},
                         "paired-normal", ["paired-t-interval"], target="effect", n_reps=n,
                         seed=4, progress=False)
    s = res.summary
    assert (s["truth"] == 0.3).all()
    assert (abs(s["coverage"] - 0.95) <= 4 * _mcse(0.95, n)).all()


def test_bootstrap_diff_regression_value():
    res = run_estimation({"n_a": 5}, "normal", ["bootstrap-diff(n_boot=200)", "mean-diff"],
                         target="effect", n_reps=300, seed=8, progress=False)
    s = res.summary.set_index("estimator")
    assert s.loc["bootstrap-diff(n_boot=200)", "coverage"] == 0.89
    assert s.loc["bootstrap-diff(n_boot=200)", "width"] == pytest.approx(1.8229992038631375,
                                                                         rel=1e-12)
    assert s.loc["mean-diff", "mean"] == pytest.approx(s.loc["bootstrap-diff(n_boot=200)",
                                                             "mean"], rel=1e-12)


def test_paired_interval_refuses_unequal_sizes():
    with pytest.raises(ValueError, match=r"^estimator 'paired-t-interval' needs paired samples "
                                         r"of equal size; condition \d+ \{'n_a': 4\} .*\(4, 10\)"):
        run_estimation({"n_a": 4}, "normal", ["paired-t-interval"], target="effect",
                       n_reps=10, seed=0, progress=False)
    with pytest.raises(ValueError, match="needs paired samples of equal size; got 7 scores of "
                                         "A and 5 of B"):
        get_estimator("paired-t-interval")(UNPAIRED, None)


def test_a_difference_estimator_refuses_target_mean_a(capsys):
    assert main(["coverage", "--scenario", "normal", "--estimator", "welch-interval",
                 "--target", "mean-a", "--reps", "10", "--quiet"]) != 0
    err = capsys.readouterr().err
    assert ("`target` 'mean-a' (A's population mean) is not what estimator 'welch-interval' "
            "estimates, 'effect'") in err
