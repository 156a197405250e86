"""Almost stochastic order: deepsig's number, computed ~400 times faster."""

import inspect

import numpy as np
import pytest

from evalmc import run_study
from evalmc.criteria import get_criterion
from evalmc.criteria.aso import eps_min
from evalmc.sims.base import Batch
from evalmc.study.rates import make_design

deepsig = pytest.importorskip("deepsig")


@pytest.mark.parametrize(("n_a", "n_b", "step", "shift"), [
    (10, 10, None, 0.3), (5, 9, None, 0.0), (8, 8, 0.5, 0.2), (20, 12, None, -0.4),
    (3, 3, None, 1.0),
])
def test_eps_min_is_deepsigs_for_the_same_seed(n_a, n_b, step, shift):
    rng = np.random.default_rng(n_a * 100 + n_b)
    a, b = rng.normal(shift, 1, n_a), rng.normal(0, 1, n_b)
    if step:  # ties
        a, b = np.round(a / step) * step, np.round(b / step) * step
    ours = eps_min(a, b, seed=77, n_boot=200)
    ref = deepsig.aso(a, b, seed=77, num_bootstrap_iterations=200, show_progress=False)
    assert ours == pytest.approx(ref, rel=1e-12, abs=1e-15)


def test_defaults_are_deepsigs_defaults():
    """The tests above leave deepsig's other defaults (samples, dt, confidence) as they are,
    with 200 bootstrap iterations: ours are deepsig's, iterations included."""
    theirs = inspect.signature(deepsig.aso).parameters
    ours = inspect.signature(eps_min).parameters
    for mine, name in (("n_boot", "num_bootstrap_iterations"), ("dt", "dt"),
                       ("confidence", "confidence_level")):
        assert ours[mine].default == theirs[name].default, name


@pytest.mark.slow  # deepsig at its defaults: 3-4 s a call (test_defaults_are_deepsigs_defaults)
def test_default_settings_are_deepsigs():
    rng = np.random.default_rng(1)
    a, b = rng.normal(0.5, 1, 10), rng.normal(0, 1, 10)
    assert eps_min(a, b, seed=5) == pytest.approx(
        deepsig.aso(a, b, seed=5, show_progress=False), rel=1e-12)


def test_criterion_decides_eps_min_below_0_2_with_seeds_from_its_stream():
    crit = get_criterion("aso")
    assert crit.decision_only and crit.alternative == "greater"
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.8, 1, (6, 8)), rng.normal(0, 1, (6, 8))
    res = crit(Batch(a, b, paired=False), np.random.default_rng(3))
    seeds = np.random.default_rng(3)
    values = [eps_min(x, y, int(seeds.integers(2**31))) for x, y in zip(a, b, strict=True)]
    np.testing.assert_array_equal(res.statistic, values)
    np.testing.assert_array_equal(res.reject, np.array(values) < 0.2)
    assert 0 < res.reject.sum() < 6


def test_fixed_seed_regression():
    """The README's deepsig:aso study (same data, other bootstrap seeds): 2 and 63 of 100."""
    res = run_study(make_design(n_a=10, n_b=10, shift=[0.0, 1.0]), "normal", ["aso"],
                    n_reps=100, seed=3)
    assert [round(r * 100) for r in res.summary["rate"]] == [3, 65]
