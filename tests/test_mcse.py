import naive
import numpy as np
import pytest
from scipy import stats

from evalmc.inputs.checks import check_choice, check_float, check_int
from evalmc.stats.mcse import bradley, rate_mcse, wilson_interval


@pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (50, 1000), (999, 1000), (7, 7)])
def test_wilson_matches_scipy_and_the_formula(k, n):
    low, high = wilson_interval(k, n)
    ref = stats.binomtest(k, n).proportion_ci(method="wilson")
    assert (low, high) == pytest.approx((ref.low, ref.high), abs=1e-12)
    if 0 < k < n:
        assert (low, high) == pytest.approx(naive.wilson(k, n), abs=1e-12)


def test_wilson_other_level_and_empty():
    low, high = wilson_interval([3], [20], confidence=0.9)
    ref = stats.binomtest(3, 20).proportion_ci(confidence_level=0.9, method="wilson")
    assert (low[0], high[0]) == pytest.approx((ref.low, ref.high))
    assert np.isnan(wilson_interval(0, 0)).all()


def test_rate_and_mcse():
    rate, mcse = rate_mcse([5, 0], [100, 0])
    assert rate[0] == 0.05 and mcse[0] == pytest.approx(np.sqrt(0.05 * 0.95 / 100))
    assert np.isnan(rate[1]) and np.isnan(mcse[1])


def test_bradley_judges_the_interval_against_the_band():
    low = [0.01, 0.025, 0.04, 0.076, 0.02, 0.07, np.nan]
    high = [0.024, 0.03, 0.075, 0.09, 0.03, 0.08, np.nan]
    assert bradley(low, high, 0.05).tolist() == [
        "conservative", "robust", "robust", "liberal", "undetermined", "undetermined", None]


def test_one_replication_is_undetermined_not_conservative():
    low, high = wilson_interval(0, 1)
    assert bradley(low, high, 0.05)[()] == "undetermined"


@pytest.mark.parametrize(("call", "match"), [
    (lambda: wilson_interval(1, 2, confidence=1.0), r"`confidence` must be in \(0, 1\); got 1.0"),
    (lambda: check_int("n", 1.5), "`n` must be an integer; got 1.5"),
    (lambda: check_int("n", True), "`n` must be an integer; got True"),
    (lambda: check_int("n", 0, low=1), "`n` must be an integer >= 1; got 0"),
    (lambda: check_int("n", 9, high=5), "`n` must be an integer <= 5; got 9"),
    (lambda: check_float("x", "a"), "`x` must be a real number; got 'a'"),
    (lambda: check_float("x", float("inf")), "`x` must be finite; got inf"),
    (lambda: check_float("x", 2.0, low=0, high=1), r"`x` must be a number in \[0, 1\]; got 2.0"),
    (lambda: check_choice("b", "x", ("p", "q")), "`b` must be one of 'p', 'q'; got 'x'"),
])
def test_validation_messages(call, match):
    with pytest.raises(ValueError, match=match):
        call()
