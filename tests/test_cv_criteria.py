"""The cross-validation tests against plain formulas, scipy, and the split schemes they need."""

import naive
import numpy as np
import pytest
from scipy import stats

from evalmc.criteria import get_criterion
from evalmc.sims.learning import Splits, SplitsBatch
from evalmc.study.rates import make_design, run_study

SCHEMES = {"kfold": Splits("kfold", 1, 10, 270, 30), "random": Splits("random", 15, 1, 270, 30),
           "repeated-kfold": Splits("repeated-kfold", 3, 10, 270, 30),
           "5x2": Splits("5x2", 5, 2, 150, 150)}


def _batch(scheme, seed=0, n=50):
    s = SCHEMES[scheme]
    rng = np.random.default_rng(seed)
    shared = rng.normal(size=(n, 1))
    a = 1.0 + shared + rng.normal(size=(n, s.count))
    return SplitsBatch(a, a - rng.normal(0.1, 0.5, size=(n, s.count)), paired=True, splits=s)


@pytest.mark.parametrize(("name", "scheme", "key"), [
    ("cv-paired-t", "kfold", "plain"), ("resampled-t", "random", "plain"),
    ("corrected-resampled-t", "random", "corrected"),
    ("corrected-repeated-cv-t", "repeated-kfold", "corrected"),
    ("5x2cv-t", "5x2", "5x2t"), ("5x2cv-f", "5x2", "5x2f"),
])
def test_pvalues_are_the_papers_formulas(name, scheme, key):
    batch = _batch(scheme)
    s = batch.splits
    got = get_criterion(name)(batch, None).pvalues()
    want = [naive.cv_tests(list(a - b), s.n_test, s.n_train)[key]
            for a, b in zip(batch.a, batch.b, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_uncorrected_t_is_scipys_paired_t():
    batch = _batch("random", seed=4)
    np.testing.assert_allclose(get_criterion("resampled-t")(batch, None).pvalues(),
                               stats.ttest_rel(batch.a, batch.b, axis=1).pvalue, rtol=1e-10)


def test_each_criterion_refuses_another_scheme():
    design = make_design(scheme="kfold")
    with pytest.raises(ValueError, match="criterion '5x2cv-f' needs the errors of a data set "
                                         "split by '5x2'; got scheme 'kfold'"):
        run_study(design, "cv-regression", ["5x2cv-f"], n_reps=10, seed=0)
    with pytest.raises(ValueError, match="criterion 'resampled-t' needs splits; scenario "
                                         "'normal' yields scores."):
        run_study(make_design(n_a=5), "normal", ["resampled-t"], n_reps=10, seed=0)


def test_fixed_seed_sizes():
    res = run_study(make_design(scheme="random", n=100, j=10), "cv-regression",
                    ["resampled-t", "corrected-resampled-t"], n_reps=400, seed=5)
    assert res.summary["rate"].tolist() == REGRESSION


REGRESSION = [0.1275, 0.035]


def _holdout_errors(seed=0, reps=30, n_test=40):
    rng = np.random.default_rng(seed)
    a = (rng.random((reps, n_test)) < 0.2).astype(float)
    flip = rng.random((reps, n_test)) < 0.15
    b = np.where(flip, 1 - a, a)
    return SplitsBatch(a, b, paired=True, splits=Splits("holdout", 1, 1, 80, n_test))


def test_holdout_tests_are_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.proportion import proportions_ztest

    batch = _holdout_errors()
    want_m, want_p = [], []
    for a, b in zip(batch.a, batch.b, strict=True):
        table = [[np.sum((a == 0) & (b == 0)), np.sum((a == 0) & (b == 1))],
                 [np.sum((a == 1) & (b == 0)), np.sum((a == 1) & (b == 1))]]
        want_m.append(mcnemar(table, exact=False, correction=True).pvalue)
        errors = [a.sum(), b.sum()]
        want_p.append(1.0 if errors[0] == errors[1]
                      else proportions_ztest(errors, [a.size, a.size])[1])
    np.testing.assert_allclose(get_criterion("holdout-mcnemar")(batch, None).pvalues(), want_m,
                               rtol=1e-10)
    np.testing.assert_allclose(get_criterion("holdout-proportion")(batch, None).pvalues(), want_p,
                               rtol=1e-10)


def test_holdout_mcnemar_is_mlxtends():
    evaluate = pytest.importorskip("mlxtend.evaluate")
    batch = _holdout_errors(seed=2)
    got = get_criterion("holdout-mcnemar")(batch, None).pvalues()
    for a, b, p in zip(batch.a, batch.b, got, strict=True):
        table = np.array([[np.sum((a == 0) & (b == 0)), np.sum((a == 0) & (b == 1))],
                          [np.sum((a == 1) & (b == 0)), np.sum((a == 1) & (b == 1))]])
        assert p == pytest.approx(evaluate.mcnemar(table, corrected=True)[1], rel=1e-10)


class _Fixed:
    """A scikit-learn scorer that returns given fold differences to mlxtend, in its order."""

    def __init__(self, d):
        self.scores = [x for v in d for x in (v, 0.0)]

    def __call__(self, estimator, x, y):
        return self.scores.pop(0)


@pytest.mark.parametrize(("name", "peer"), [("5x2cv-t", "paired_ttest_5x2cv"),
                                            ("5x2cv-f", "combined_ftest_5x2cv")])
def test_5x2cv_is_mlxtends(name, peer):
    """mlxtend's own 5x2cv functions, fed our fold differences through their scorer."""
    evaluate = pytest.importorskip("mlxtend.evaluate")
    from sklearn.dummy import DummyClassifier

    batch = _batch("5x2", seed=6, n=8)
    got = get_criterion(name)(batch, None).pvalues()
    x, y = np.zeros((20, 1)), np.arange(20) % 2
    for d, p in zip(batch.a - batch.b, got, strict=True):
        _, want = getattr(evaluate, peer)(DummyClassifier(), DummyClassifier(), x, y,
                                          scoring=_Fixed(d), random_seed=1)
        assert p == pytest.approx(want, rel=1e-10)


def test_error_counting_tests_refuse_squared_loss():
    with pytest.raises(ValueError, match="criterion 'holdout-mcnemar' needs each example's "
                                         "0/1 error; scenario 'cv-regression' has squared"):
        run_study(make_design(scheme="holdout"), "cv-regression", ["holdout-mcnemar"],
                  n_reps=10, seed=0)


def test_fixed_seed_holdout_sizes():
    res = run_study(make_design(scheme="holdout", n=150, d=3, test_share=1 / 3,
                                shift=[0.0, 0.05]),
                    "cv-classification", ["holdout-mcnemar", "holdout-proportion"],
                    n_reps=400, seed=5)
    assert res.summary["rate"].tolist() == HOLDOUT


HOLDOUT = [0.0025, 0.0, 0.0775, 0.055]


@pytest.mark.filterwarnings("ignore:Precision loss occurred:RuntimeWarning")  # scipy's, on ties
@pytest.mark.parametrize(("name", "scheme"), [("resampled-t", "random"), ("5x2cv-t", "5x2"),
                                              ("5x2cv-f", "5x2"), ("cv-paired-t", "kfold")])
def test_equal_differences_on_every_split_decide_as_scipy_or_not_at_all(name, scheme):
    s = SCHEMES[scheme]
    a = np.full((3, s.count), 0.2)
    b = a - np.array([[0.0], [1 / 30], [-1 / 30]])
    got = get_criterion(name)(SplitsBatch(a, b, paired=True, splits=s), None)
    np.testing.assert_array_equal(got.pvalues(), [1.0, 0.0, 0.0])
    assert not got.failed.any()
    if scheme == "random":
        assert stats.ttest_rel(a[1], b[1]).pvalue == 0.0
