import itertools
import warnings

import naive
import numpy as np
import pytest
from scipy import stats

from evalmc import run_study
from evalmc.criteria import get_criterion
from evalmc.criteria.signed_rank import signed_rank_null, wilcoxon
from evalmc.sims.base import Batch
from evalmc.study.rates import make_design


def _scipy(a, b, zero_method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's small-sample and all-zero warnings
        return np.array([stats.wilcoxon(x, y, zero_method=zero_method).pvalue
                         for x, y in zip(a, b, strict=True)])


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize(("n", "step"), [
    (4, None), (9, None), (20, None), (60, None),  # exact, exact, exact, normal
    (6, 0.5), (13, 0.5), (14, 0.5), (30, 1.0),  # sign flips, sign flips, normal, normal
])
def test_agrees_with_scipy_row_by_row(zero_method, n, step):
    rng = np.random.default_rng(n)
    rows = 2 if n == 13 else 40  # scipy enumerates 2^13 sign flips per row, in about 1 s
    a, b = rng.normal(0.3, 1, (rows, n)), rng.normal(0, 1, (rows, n))
    if step:  # scores on a grid: ties and zero differences
        a, b = np.round(a / step) * step, np.round(b / step) * step
        assert (a == b).any(axis=1).any()  # the zero methods differ on some row
    ours = wilcoxon(Batch(a, b, paired=True), zero_method).pvalues()
    np.testing.assert_allclose(ours, _scipy(a, b, zero_method), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("n", [5, 20])
def test_all_zero_differences_as_scipy(zero_method, n):
    a = np.ones((1, n))
    ours = wilcoxon(Batch(a, a, paired=True), zero_method)
    np.testing.assert_allclose(ours.pvalues(), _scipy(a, a, zero_method), equal_nan=True)


def test_null_distribution_against_enumeration():
    n = 10
    r_plus = [sum(r for r, s in zip(range(1, n + 1), signs, strict=True) if s)
              for signs in itertools.product((0, 1), repeat=n)]
    counts = np.bincount(r_plus, minlength=n * (n + 1) // 2 + 1)
    np.testing.assert_allclose(signed_rank_null(n), counts / 2**n, rtol=1e-12)


@pytest.mark.parametrize("n", [6, 10])
def test_size_under_null_within_4_mcse_of_exact_enumeration(n):
    exact = naive.signed_rank_exact_size(n, 0.05)
    reps = 40_000
    res = run_study(make_design(n=n), "paired-normal", ["wilcoxon"], n_reps=reps, seed=12)
    rate = res.summary["rate"].iloc[0]
    assert abs(rate - exact) <= 4 * np.sqrt(exact * (1 - exact) / reps)


def test_fixed_seed_regression():
    res = run_study(make_design(n=12), "paired-normal",
                    ["wilcoxon", "wilcoxon-pratt", "wilcoxon-zsplit"], n_reps=5000, seed=3)
    rejections = (res.summary["rate"] * res.summary["n_reps"]).round().astype(int)
    # no zero differences on continuous scores: the three conventions agree
    assert rejections.tolist() == [214, 214, 214]


def test_registered_as_paired_two_sided():
    for name in ("wilcoxon", "wilcoxon-pratt", "wilcoxon-zsplit"):
        assert get_criterion(name).paired and get_criterion(name).alternative == "two-sided"
