import numpy as np
import pytest
from scipy import stats

from evalmc import run_study
from evalmc.criteria import get_criterion
from evalmc.sims.base import Batch
from evalmc.study.rates import make_design

TEST = get_criterion("permutation-paired")


def _scipy_exact(a, b):
    return np.array([stats.permutation_test((x - y,), np.mean, permutation_type="samples",
                                            n_resamples=np.inf).pvalue
                     for x, y in zip(a, b, strict=True)])


@pytest.mark.parametrize(("n", "step"), [(2, None), (5, None), (10, None), (10, 0.5),
                                         (16, 0.25)])
def test_exact_p_values_are_scipys(n, step):
    rng = np.random.default_rng(n)
    rows = 4 if n == 16 else 30
    a, b = rng.normal(0.4, 1, (rows, n)), rng.normal(0, 1, (rows, n))
    if step:  # scores on a grid: tied sums of flips
        a, b = np.round(a / step) * step, np.round(b / step) * step
    ours = TEST(Batch(a, b, paired=True), np.random.default_rng(0)).pvalues()
    np.testing.assert_allclose(ours, _scipy_exact(a, b), rtol=1e-12)


def test_random_flips_within_4_binomial_se_of_the_exact_p_value():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.3, 1, (4, 17)), rng.normal(0, 1, (4, 17))
    exact = _scipy_exact(a, b)
    ours = TEST(Batch(a, b, paired=True), np.random.default_rng(4)).pvalues()
    se = 2 * np.sqrt(exact / 2 * (1 - exact / 2) / 9999)  # p = 2 x a one-sided share
    assert np.all(np.abs(ours - exact) <= 4 * se + 2 / 10_000)


def _exact_size(total, alpha):
    """Under a continuous exchangeable null the observed statistic's rank among the `total`
    flips or splits is uniform: the size counts the ranks whose p-value is at most alpha."""
    rank = np.arange(1, total + 1)
    return np.mean(np.minimum(1, 2 * np.minimum(rank, total - rank + 1) / total) <= alpha)


def test_size_under_null_within_4_mcse_of_exact():
    exact = _exact_size(2**8, 0.05)
    assert exact == pytest.approx(12 / 256)
    reps = 40_000
    res = run_study(make_design(n=8), "paired-normal", ["permutation-paired"], n_reps=reps,
                    seed=21)
    rate = res.summary["rate"].iloc[0]
    assert abs(rate - exact) <= 4 * np.sqrt(exact * (1 - exact) / reps)


def test_fixed_seed_regression_of_the_random_flips():
    res = run_study(make_design(n=20, shift=0.5), "paired-normal", ["permutation-paired"],
                    n_reps=300, seed=5)
    assert round(res.summary["rate"].iloc[0] * 300) == 101


TWO_SAMPLE = get_criterion("permutation-two-sample")


def _scipy_two_sample(a, b):
    def diff(x, y, axis=-1):
        return np.mean(x, axis=axis) - np.mean(y, axis=axis)

    return np.array([stats.permutation_test((x, y), diff, n_resamples=np.inf,
                                            vectorized=True).pvalue
                     for x, y in zip(a, b, strict=True)])


@pytest.mark.parametrize(("n_a", "n_b", "step"), [(2, 2, None), (3, 4, None), (6, 8, None),
                                                  (5, 5, 0.5), (6, 9, 0.25)])
def test_two_sample_exact_p_values_are_scipys(n_a, n_b, step):
    rng = np.random.default_rng(n_a * n_b)
    rows = 4 if n_b == 9 else 20
    a, b = rng.normal(0.5, 1, (rows, n_a)), rng.normal(0, 1, (rows, n_b))
    if step:
        a, b = np.round(a / step) * step, np.round(b / step) * step
    ours = TWO_SAMPLE(Batch(a, b, paired=False), np.random.default_rng(0)).pvalues()
    np.testing.assert_allclose(ours, _scipy_two_sample(a, b), rtol=1e-12)


def test_random_splits_within_4_binomial_se_of_the_exact_p_value():
    """8 + 8 runs: 12,870 splits, more than 9999, so the criterion samples them."""
    rng = np.random.default_rng(6)
    a, b = rng.normal(0.5, 1, (4, 8)), rng.normal(0, 1, (4, 8))
    exact = _scipy_two_sample(a, b)
    ours = TWO_SAMPLE(Batch(a, b, paired=False), np.random.default_rng(7)).pvalues()
    se = 2 * np.sqrt(exact / 2 * (1 - exact / 2) / 9999)
    assert np.all(np.abs(ours - exact) <= 4 * se + 2 / 10_000)


def test_two_sample_size_under_null_within_4_mcse_of_exact():
    """5 + 5 runs: the observed split's rank among the 252 is uniform."""
    exact = _exact_size(252, 0.05)
    reps = 40_000
    res = run_study(make_design(n_a=5, n_b=5), "normal", ["permutation-two-sample"],
                    n_reps=reps, seed=22)
    rate = res.summary["rate"].iloc[0]
    assert abs(rate - exact) <= 4 * np.sqrt(exact * (1 - exact) / reps)


def test_fixed_seed_regression_of_the_random_splits():
    res = run_study(make_design(n_a=10, n_b=10, shift=1.0), "normal",
                    ["permutation-two-sample"], n_reps=200, seed=5)
    assert round(res.summary["rate"].iloc[0] * 200) == 109


def test_unpaired_runs_compile_no_kernel_for_a_few_runs(monkeypatch):
    """5 against 5 runs: Mann-Whitney's ranks and the 252 relabellings in numpy, not Numba
    kernels whose first compilation took seconds; the numbers are the kernels'."""
    from evalmc.criteria import kernels

    a = np.array([0.91, 0.93, 0.90, 0.94, 0.92])
    b = np.array([0.90, 0.91, 0.91, 0.92, 0.90])

    def compiled(*args):
        raise AssertionError("a Numba kernel was called")

    for name in ("rank_sums", "relabel_mean_pvalues", "relabel_mean_mc"):
        monkeypatch.setattr(kernels, name, compiled)
    from evalmc.analysis.comparison import compare_unpaired

    res = compare_unpaired(a, b)
    ref = stats.mannwhitneyu(a, b)
    welch, mann_whitney, permutation = res.tests
    assert (mann_whitney["statistic"], mann_whitney["p_value"]) == (
        ref.statistic, pytest.approx(ref.pvalue, rel=1e-12))
    perm = stats.permutation_test((a, b), lambda x, y: x.mean() - y.mean(),
                                  permutation_type="independent", n_resamples=np.inf)
    assert permutation["p_value"] == pytest.approx(perm.pvalue, rel=1e-12)


@pytest.mark.parametrize(("n_a", "n_b"), [(2, 3), (5, 5), (7, 6), (1, 9), (9, 1), (2, 12)])
def test_numpy_ranks_and_relabellings_equal_the_kernels(n_a, n_b):
    """Equal to the last bit, ties and magnitudes mixed: the kernels still run larger blocks."""
    from evalmc.criteria import kernels
    from evalmc.criteria.nonparametric import _rank_sums_numpy
    from evalmc.criteria.permutation import _relabel_exact_numpy

    rng = np.random.default_rng(n_a * 31 + n_b)
    draws = [(rng.normal(size=(40, n_a)) * 1e3, rng.normal(size=(40, n_b)) * 1e-2),
             (np.round(rng.normal(size=(40, n_a)), 0), np.round(rng.normal(size=(40, n_b)), 0)),
             (0.1 * rng.integers(0, 4, (40, n_a)) + 0.7, 0.1 * rng.integers(0, 4, (40, n_b)) + 0.7)]
    for a, b in draws:
        u, tie, p = np.empty(40), np.empty(40), np.empty(40)
        kernels.rank_sums(a, b, u, tie)
        kernels.relabel_mean_pvalues(a, b, p)
        u2, tie2 = _rank_sums_numpy(a, b)
        assert np.array_equal(u, u2) and np.array_equal(tie, tie2)
        assert np.array_equal(p, _relabel_exact_numpy(a, b))
