"""The cross-validation tests against plain formulas, scipy, and the split schemes they need."""

import naive
import numpy as np
import pytest
from scipy import stats

from evalmc.criteria import CRITERIA
from evalmc.sims.base import Batch
from evalmc.sims.learning import Splits
from evalmc.study import make_design, run_study

SCHEMES = {"kfold": Splits("kfold", 1, 10, 270, 30), "random": Splits("random", 15, 1, 270, 30),
           "repeated-kfold": Splits("repeated-kfold", 3, 10, 270, 30),
           "5x2": Splits("5x2", 5, 2, 150, 150)}


def _batch(scheme, seed=0, n=50):
    s = SCHEMES[scheme]
    rng = np.random.default_rng(seed)
    shared = rng.normal(size=(n, 1))
    a = 1.0 + shared + rng.normal(size=(n, s.count))
    return Batch(a, a - rng.normal(0.1, 0.5, size=(n, s.count)), paired=True, splits=s)


@pytest.mark.parametrize(("name", "scheme", "key"), [
    ("cv-paired-t", "kfold", "plain"), ("resampled-t", "random", "plain"),
    ("corrected-resampled-t", "random", "corrected"),
    ("corrected-repeated-cv-t", "repeated-kfold", "corrected"),
    ("5x2cv-t", "5x2", "5x2t"), ("5x2cv-f", "5x2", "5x2f"),
])
def test_pvalues_are_the_papers_formulas(name, scheme, key):
    batch = _batch(scheme)
    s = batch.splits
    got = CRITERIA[name](batch, None).pvalues()
    want = [naive.cv_tests(list(a - b), s.n_test, s.n_train)[key]
            for a, b in zip(batch.a, batch.b, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_uncorrected_t_is_scipys_paired_t():
    batch = _batch("random", seed=4)
    np.testing.assert_allclose(CRITERIA["resampled-t"](batch, None).pvalues(),
                               stats.ttest_rel(batch.a, batch.b, axis=1).pvalue, rtol=1e-10)


def test_each_criterion_refuses_another_scheme():
    design = make_design(scheme="kfold")
    with pytest.raises(ValueError, match="criterion '5x2cv-f' needs the errors of a data set "
                                         "split by '5x2'; got scheme 'kfold'"):
        run_study(design, "cv-regression", ["5x2cv-f"], n_reps=10, seed=0)
    with pytest.raises(ValueError, match="criterion 'resampled-t' needs .* got scenario "
                                         "'normal', no splits"):
        run_study(make_design(n_a=5), "normal", ["resampled-t"], n_reps=10, seed=0)


def test_fixed_seed_sizes():
    res = run_study(make_design(scheme="random", n=100, j=10), "cv-regression",
                    ["resampled-t", "corrected-resampled-t"], n_reps=400, seed=5)
    assert res.summary["rate"].tolist() == REGRESSION


REGRESSION = [0.14, 0.04]
