"""The learning scenarios: exact risks, the truth they set, their splits."""

import naive
import numpy as np
import pytest

from evalmc.sims import get_scenario
from evalmc.sims.learning import (
    CvClassification,
    CvRegression,
    CvStumps,
    discriminant_risks,
    equicorrelation,
    exchange_rate,
    expected_errors,
    expected_risk,
    only_a_wrong,
    splits_of,
)


@pytest.mark.parametrize("kw", [{}, {"scheme": "kfold", "k": 5}, {"scheme": "5x2"},
                                {"scheme": "repeated-kfold", "k": 3, "r": 2},
                                {"scheme": "holdout", "shift": 0.4}])
def test_kernel_is_the_plain_numpy_fit_on_the_same_draws(kw):
    s = CvRegression(n=40, d=4, p=2, **kw)
    ours = s.fit(np.random.default_rng(3), 5)
    plain = naive.cv_regression(np.random.default_rng(3), 5, s.n, s.beta, s.p, s.sd,
                                s.splits.repeats, s.splits.fold_starts(s.n), s.per_example)
    for got, want in zip(ours, plain, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-9)


def test_exact_risk_is_the_large_sample_error_of_the_fitted_model():
    rng = np.random.default_rng(8)
    beta, sd = np.array([1.0, -0.5, 0.3, 0.2]), 0.7
    x = rng.standard_normal((30, 4))
    y = x @ beta + sd * rng.standard_normal(30)
    for q in (4, 2):
        coef = np.r_[np.linalg.lstsq(x[:, :q], y, rcond=None)[0], np.zeros(4 - q)]
        exact = sd**2 + np.sum((coef - beta) ** 2)
        fresh = rng.standard_normal((400_000, 4))
        loss = (fresh @ beta + sd * rng.standard_normal(400_000) - fresh @ coef) ** 2
        assert abs(loss.mean() - exact) <= 4 * loss.std() / np.sqrt(loss.size)


@pytest.mark.parametrize("shift", [0.0, 0.3])
def test_expected_risks_and_their_difference_are_the_truth(shift):
    s = CvRegression(n=60, d=6, p=3, shift=shift, scheme="holdout", test_share=0.25)
    _, _, risk_a, risk_b = s.fit(np.random.default_rng(int(shift * 10)), 20_000)
    a, gap = risk_a[:, 0], (risk_b - risk_a)[:, 0]
    assert abs(a.mean() - expected_risk(6, 45, 1.0)) <= 4 * a.std() / np.sqrt(a.size)
    assert abs(gap.mean() - s.effect) <= 4 * gap.std() / np.sqrt(gap.size)
    assert s.truth == ("null" if shift == 0 else "alternative")


def test_fixed_seed_regression_and_batch():
    s = get_scenario("cv-regression")(n=50, d=4, p=2, scheme="kfold", k=5)
    batch = s.draw(np.random.default_rng(0), 3)
    assert batch.a.shape == (3, 5) and batch.paired and batch.splits == s.splits
    np.testing.assert_allclose(batch.a[0, :2], REGRESSION_A, rtol=1e-10)
    c = get_scenario("cv-classification")(n=80, d=3, scheme="5x2")
    batch = c.draw(np.random.default_rng(0), 3)
    assert batch.a.shape == (3, 10) and batch.splits == c.splits
    np.testing.assert_allclose(batch.a[0, :4], CLASSIFICATION_A, rtol=1e-12)
    assert c.rho == pytest.approx(CLASSIFICATION_RHO, rel=1e-9)


REGRESSION_A = [2.4791711495685718, 1.3889828238414201]


def test_holdout_holds_each_test_examples_loss():
    s = CvRegression(n=40, d=4, p=2, scheme="holdout", test_share=0.25)
    batch = s.draw(np.random.default_rng(1), 4)
    assert s.sizes == (10, 10) and batch.a.shape == (4, 10)
    c = CvClassification(n=60, d=3, scheme="holdout", test_share=0.25)
    batch = c.draw(np.random.default_rng(1), 4)
    assert batch.a.shape == (4, 15) and set(np.unique(batch.a)) <= {0.0, 1.0}


@pytest.mark.parametrize("kw", [{}, {"scheme": "kfold", "k": 5}, {"scheme": "5x2"},
                                {"scheme": "holdout", "shift": 0.01},
                                {"scheme": "5x2", "shift": 0.04, "alternative": "exchange"},
                                {"scheme": "holdout", "shift": 0.04, "alternative": "exchange"}])
def test_classification_kernel_is_the_plain_numpy_fit_on_the_same_draws(kw):
    s = CvClassification(n=100, d=3, delta=1.5, j=4, **kw)
    ours = s.fit(np.random.default_rng(5), 4)
    plain = naive.cv_classification(np.random.default_rng(5), 4, s.n, s.delta,
                                    equicorrelation(3, s.rho), s.splits.repeats,
                                    s.splits.fold_starts(s.n), s.per_example, s.exchange)
    for got, want in zip(ours, plain, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_discriminant_risk_is_the_large_sample_error_of_the_rule():
    rng = np.random.default_rng(11)
    sigma, delta = equicorrelation(3, 0.4), 1.2
    w, b = np.array([1.0, -0.6, 0.2]), 0.15
    exact = discriminant_risks(w, b, delta, sigma)
    y = rng.random(500_000) < 0.5
    x = rng.multivariate_normal(np.zeros(3), sigma, y.size)
    x[:, 0] += (y - 0.5) * delta
    wrong = ((x @ w + b > 0) != y).astype(float)
    assert abs(wrong.mean() - exact) <= 4 * wrong.std() / np.sqrt(wrong.size)


@pytest.mark.parametrize("shift", [0.0, 0.02])
def test_calibrated_errors_are_those_of_the_fitted_models(shift):
    s = CvClassification(n=60, d=3, shift=shift, scheme="holdout", test_share=0.25)
    _, _, risk_a, risk_b = s.fit(np.random.default_rng(7), 20_000)
    a, gap = risk_a[:, 0], (risk_b - risk_a)[:, 0]
    err_a, _ = s.expected_errors
    assert abs(a.mean() - err_a) <= 4 * a.std() / np.sqrt(a.size)
    se = np.hypot(gap.std() / np.sqrt(gap.size), s.calibration_se)
    assert abs(gap.mean() - shift) <= 4 * se
    assert s.truth == ("null" if shift == 0 else "alternative")


def test_calibration_moves_the_discriminant_ahead_with_the_correlation():
    err_a0, err_b0, _ = expected_errors(45, 3, 2.0, 0.0)
    err_a, err_b, _ = expected_errors(45, 3, 2.0, 0.6)
    assert err_b0 < err_a0 and err_a < err_b


CLASSIFICATION_A = [0.1, 0.225, 0.15, 0.175]
CLASSIFICATION_RHO = 0.18356037567416733


def test_only_a_wrong_is_the_large_sample_share_of_a_only_errors():
    rng = np.random.default_rng(12)
    sigma, delta = equicorrelation(3, 0.3), 1.5
    rule_a, rule_b = (np.array([1.0, -0.4, 0.1]), 0.2), (np.array([0.8, 0.3, 0.0]), -0.1)
    exact = only_a_wrong(rule_a, rule_b, delta, sigma)
    y = rng.random(500_000) < 0.5
    x = rng.multivariate_normal(np.zeros(3), sigma, y.size)
    x[:, 0] += (y - 0.5) * delta
    wrong_a, wrong_b = ((x @ w + b > 0) != y for w, b in (rule_a, rule_b))
    only_a = (wrong_a & ~wrong_b).astype(float)
    assert abs(only_a.mean() - exact) <= 4 * only_a.std() / np.sqrt(only_a.size)


def test_exchange_alternative_at_shift_0_is_the_null_draw_for_draw():
    """No uniforms are drawn at r = 0: the same data sets, fits and losses as the null's, so
    the folds' correlation and variance are the null's."""
    null = CvClassification(n=80, d=3, scheme="5x2")
    zero = CvClassification(n=80, d=3, scheme="5x2", alternative="exchange")
    assert zero.exchange == 0.0 and zero.rho == null.rho and zero.truth == "null"
    for got, want in zip(zero.fit(np.random.default_rng(4), 20),
                         null.fit(np.random.default_rng(4), 20), strict=True):
        np.testing.assert_array_equal(got, want)


def test_exchange_effect_is_the_shift():
    s = CvClassification(n=60, d=3, shift=0.02, scheme="holdout", test_share=0.25,
                         alternative="exchange")
    a, b, _, _ = s.fit(np.random.default_rng(9), 20_000)
    gap, err_a = (b - a).mean(axis=1), a.mean(axis=1)
    se = np.hypot(gap.std() / np.sqrt(gap.size), s.calibration_se)
    assert abs(gap.mean() - s.effect) <= 4 * se and s.effect == 0.02
    assert abs(err_a.mean() - s.expected_errors[0]) <= 4 * err_a.std() / np.sqrt(err_a.size)
    assert s.truth == "alternative"


def test_exchange_keeps_the_share_of_examples_where_the_learners_disagree():
    """An exchange turns an A-only error into a B-only one: the examples where A and B
    disagree, which set a split's variance given its fits, are as many as at the null."""
    shares = []
    for shift in (0.0, 0.05):
        s = CvClassification(n=60, d=3, shift=shift, scheme="holdout", test_share=0.25,
                             alternative="exchange")
        a, b, _, _ = s.fit(np.random.default_rng(10), 20_000)
        shares.append((a != b).mean(axis=1))
    se = np.hypot(*(x.std() / np.sqrt(x.size) for x in shares))
    assert abs(shares[1].mean() - shares[0].mean()) <= 4 * se


def test_exchange_fixed_seed_regression():
    s = CvClassification(n=80, d=3, scheme="5x2", shift=0.02, alternative="exchange")
    batch = s.draw(np.random.default_rng(0), 3)
    np.testing.assert_allclose(batch.a[0, :4], EXCHANGE_A, rtol=1e-12)
    np.testing.assert_allclose(batch.b[0, :4], EXCHANGE_B, rtol=1e-12)
    assert s.exchange == pytest.approx(EXCHANGE_RATE, rel=1e-9)
    rate, _, reach = exchange_rate(40, 3, 2.0, 0.02)
    assert rate == pytest.approx(0.02 / reach, rel=1e-12)


EXCHANGE_A = [0.175, 0.15, 0.15, 0.25]
EXCHANGE_B = [0.2, 0.175, 0.125, 0.3]
EXCHANGE_RATE = 0.3357056235968318


def test_splits():
    assert splits_of("kfold", 103, 10, 1, 1, 0.1).n_test == 11
    assert splits_of("5x2", 100, 0, 0, 0, 0.1) == splits_of("5x2", 100, 9, 9, 9, 0.5)
    assert splits_of("random", 300, 10, 10, 15, 0.1).count == 15
    assert splits_of("repeated-kfold", 300, 10, 10, 15, 0.1).count == 100


@pytest.mark.parametrize(("kw", "match"), [
    ({"scheme": "loo"}, "`scheme` must be one of 'kfold', 'repeated-kfold', 'random', '5x2'"),
    ({"p": 10}, r"`p` must be an integer in \[1, 9\]; got 10"),
    ({"n": 12}, "the training sets must hold at least 13 examples \\(d \\+ 3 = 13"),
    ({"shift": -1.0}, "`shift` must be at least -0.0"),
    ({"test_share": 0.001}, "`test_share` must leave at least one test and one training"),
])
def test_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        CvRegression(**kw)


@pytest.mark.parametrize(("kw", "match"), [
    ({"d": 21}, r"`d` must be an integer in \[2, 20\]; got 21"),
    ({"delta": 0.0}, "`delta` must be"),
    ({"n": 43}, r"at least 40 examples \(max\(d \+ 3, 40\) = 40, .* trains on 39 of n = 43"),
    ({"shift": 0.5}, r"`shift` must be in \[-0.00\d+, 0.1\d+\] for n_train = 270"),
    ({"alternative": "means"}, "`alternative` must be one of 'correlation', 'exchange'"),
    ({"shift": 0.05, "alternative": "exchange", "scheme": "kfold"},
     r"`shift` must be in \[0, 0.049\d*\] for the exchange alternative at n_train = 270"),
    ({"shift": -0.01, "alternative": "exchange"}, r"`shift` must be in \[0, "),
])
def test_bad_classification_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        CvClassification(**kw)


@pytest.mark.parametrize("kw", [{}, {"scheme": "kfold", "k": 5}, {"scheme": "5x2"},
                                {"scheme": "holdout", "slope": 0.2}])
def test_stump_kernel_is_the_brute_force_fit_on_the_same_draws(kw):
    s = CvStumps(n=40, j=3, **kw)
    ours = s.fit(np.random.default_rng(5), 4)
    plain = naive.cv_stumps(np.random.default_rng(5), 4, s.n, s.slope, s.splits.repeats,
                            s.splits.fold_starts(s.n), s.per_example)
    for got, want in zip(ours, plain, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_stump_risk_is_the_large_sample_error_of_the_fitted_stump():
    rng = np.random.default_rng(11)
    _, _, risk_a, _ = CvStumps(n=40, scheme="holdout", test_share=0.25).fit(rng, 1)
    x = rng.random((400_000, 2))
    y = rng.random(400_000) < 0.5 + 0.5 * (x[:, 0] - 0.5) + 0.5 * (x[:, 1] - 0.5)
    from evalmc.sims.kernels import fit_stump
    t, left, right = fit_stump(x[:30, 0], y[:30].astype(np.int64))
    wrong = np.where(x[30:, 0] < t, left, right) != y[30:]
    exact = naive.stump_risk_integrated(t, left, right, 0.5)
    assert abs(wrong.mean() - exact) <= 4 * wrong.std() / np.sqrt(wrong.size)
    assert 0.375 <= risk_a[0, 0] <= 0.5  # between the best stump's and a constant rule's


def test_stumps_are_unstable_and_equal_in_expectation():
    """The two stumps' expected errors are equal (the null, by symmetry), and the fitted
    threshold moves far between training sets of 270 examples."""
    s = CvStumps(scheme="holdout")
    _, _, risk_a, risk_b = s.fit(np.random.default_rng(2), 3000)
    gap = (risk_b - risk_a)[:, 0]
    assert abs(gap.mean()) <= 4 * gap.std() / np.sqrt(gap.size)
    assert s.truth == "null" and s.effect == 0.0
    # a stump with labels 0 | 1 has excess risk slope (t - 1/2)^2 = (t - 1/2)^2 / 2 over the
    # best one: a mean above 0.002 is a threshold off by 0.06 or more (root mean square),
    # where least squares' coefficients are off by O(1 / sqrt(n)) of a smooth risk
    excess = risk_a[:, 0] - 0.375
    assert excess.mean() > 0.002


def test_stumps_fixed_seed_regression():
    batch = get_scenario("cv-stumps")(n=50, scheme="kfold", k=5).draw(np.random.default_rng(0), 3)
    assert batch.a.shape == (3, 5) and batch.paired
    np.testing.assert_allclose(batch.a[0], STUMPS_A, rtol=1e-12)


STUMPS_A = [0.5, 0.5, 0.2, 0.1, 0.3]


@pytest.mark.parametrize(("kw", "match"), [
    ({"slope": 0.6}, r"`slope` must be"),
    ({"slope": 0.0}, r"`slope` must be"),
    ({"n": 3}, "`n` must be an integer >= 4"),
])
def test_bad_stump_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        CvStumps(**kw)
