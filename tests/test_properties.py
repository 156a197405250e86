"""Property tests (hypothesis) of the validators and of cheap estimators."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmc.estimators.boon import boo_n_discrete, boon_nonparametric, nonparametric_weights
from evalmc.inputs.checks import check_choice, check_float, check_int
from evalmc.stats.mcse import bradley, rate_mcse, wilson_interval

FAST = settings(max_examples=60, deadline=None)
names = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)
bounds = st.one_of(st.none(), st.integers(-1000, 1000))
finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)
scores = st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=30)
pools = st.integers(1, 60)


def _raises_naming(name, func, *args, **kwargs):
    with pytest.raises(ValueError) as err:
        func(name, *args, **kwargs)
    assert f"`{name}`" in str(err.value)


@FAST
@given(names, st.integers(-10**6, 10**6), bounds, bounds)
def test_check_int_accepts_in_bounds_and_names_the_parameter_otherwise(name, value, low, high):
    if (low is None or value >= low) and (high is None or value <= high):
        out = check_int(name, value, low=low, high=high)
        assert type(out) is int and out == value
    else:
        _raises_naming(name, check_int, value, low=low, high=high)


@FAST
@given(names, st.one_of(st.booleans(), st.text(max_size=3), st.floats().filter(
    lambda x: not (math.isfinite(x) and x.is_integer()))))
def test_check_int_refuses_non_integers(name, value):
    _raises_naming(name, check_int, value)


@FAST
@given(names, finite, bounds, bounds, st.booleans(), st.booleans())
def test_check_float_accepts_in_bounds_and_names_the_parameter_otherwise(
        name, value, low, high, open_low, open_high):
    above = low is None or (value > low if open_low else value >= low)
    below = high is None or (value < high if open_high else value <= high)
    kwargs = dict(low=low, high=high, open_low=open_low, open_high=open_high)
    if above and below:
        out = check_float(name, value, **kwargs)
        assert type(out) is float and out == value
    else:
        _raises_naming(name, check_float, value, **kwargs)


@FAST
@given(names, st.one_of(st.sampled_from([math.nan, math.inf, -math.inf]), st.booleans(),
                        st.text(max_size=3), st.none()))
def test_check_float_refuses_non_finite_and_non_numbers(name, value):
    _raises_naming(name, check_float, value)


@FAST
@given(names, st.lists(st.text(max_size=5), min_size=1, max_size=6, unique=True), st.data())
def test_check_choice_returns_the_choice_or_names_the_parameter(name, choices, data):
    value = data.draw(st.sampled_from(choices))
    assert check_choice(name, value, choices) is value
    other = data.draw(st.text(max_size=6).filter(lambda v: v not in choices))
    _raises_naming(name, check_choice, other, choices)


@FAST
@given(st.integers(1, 10**7).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.floats(0.5, 0.999))
def test_wilson_interval_holds_the_rate_within_0_1(kn, confidence):
    k, n = kn
    low, high = wilson_interval(k, n, confidence=confidence)
    rate, mcse = rate_mcse(k, n)
    assert 0.0 <= low < high <= 1.0
    assert low <= rate <= high
    assert 0.0 <= mcse <= 0.5 / math.sqrt(n) * (1 + 1e-12)  # p (1 - p) <= 1/4


@pytest.mark.parametrize(("k", "n", "end", "exact"), [(3, 3, 1, 1.0), (0, 7, 0, 0.0)])
def test_wilson_interval_reaches_0_and_1_at_the_ends(k, n, end, exact):
    # found by the property above: k = n gave high = 1 - 2^-53, k = 0 gave low = 5.6e-17
    confidence = 0.5 if k else 0.95
    assert wilson_interval(k, n, confidence=confidence)[end] == exact


@FAST
@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(1e-4, 0.5))
def test_bradley_labels_follow_the_band(x, y, alpha):
    low, high = min(x, y), max(x, y)
    label = bradley(low, high, alpha)[()]
    if low > 1.5 * alpha:
        assert label == "liberal"
    elif high < 0.5 * alpha:
        assert label == "conservative"
    elif 0.5 * alpha <= low and high <= 1.5 * alpha:
        assert label == "robust"
    else:
        assert label == "undetermined"


@FAST
@given(scores, pools, st.sampled_from(["max", "min"]))
def test_boon_lies_within_the_sample_and_is_monotone_in_n(sample, n, best):
    values = np.array(sample)
    tol = 1e-9 * (1.0 + np.abs(values).max())
    estimate = boon_nonparametric(values, n=n, best=best)
    assert values.min() - tol <= estimate <= values.max() + tol
    assert estimate == pytest.approx(boo_n_discrete(values, n=n, best=best), abs=tol)
    more = boon_nonparametric(values, n=n + 1, best=best)
    assert (more >= estimate - tol) if best == "max" else (more <= estimate + tol)


@FAST
@given(scores)
def test_boon_of_one_run_is_the_mean(sample):
    values = np.array(sample)
    tol = 1e-9 * (1.0 + np.abs(values).max())
    assert boon_nonparametric(values, n=1) == pytest.approx(values.mean(), abs=tol)


@FAST
@given(scores, pools)
def test_nonparametric_weights_are_a_distribution(sample, n):
    weights = nonparametric_weights(np.array(sample), n=n)
    assert (weights >= 0).all() and weights.sum() == pytest.approx(1.0, abs=1e-12)
