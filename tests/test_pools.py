import numpy as np
import pytest
from scipy import stats

from evalmc.estimators.boon import boo_n_bivariate_normal, expected_best
from evalmc.sims.pools import PRESETS, Pool, PoolSpec, get_pool


@pytest.mark.parametrize("name", list(PRESETS))
def test_draws_follow_the_marginal_and_copula(name):
    spec = PRESETS[name]
    val, test = spec.draw(np.random.default_rng(1), 20_000)
    assert stats.kstest(test, spec.test_cdf).pvalue > 1e-3
    rho_s = stats.spearmanr(val, test)[0]
    # SE of a Spearman correlation ~ (1 - rho^2) / sqrt(n) for a Gaussian copula, roughly
    assert abs(rho_s - spec.spearman) <= 4 * (1 - spec.spearman**2) / np.sqrt(20_000) + 0.005
    assert abs(test.mean() - spec.mean) <= 4 * spec.sd / np.sqrt(20_000)


def test_quantile_inverts_the_cdf():
    spec = PRESETS["asreader-random"]
    u = np.array([0.001, 0.1, 0.5, 0.9, 0.999])
    np.testing.assert_allclose(spec.test_cdf(spec.test_quantile(u)), u, atol=1e-7)
    dist = spec.test_distribution()
    assert dist.mean() == pytest.approx(61.26, abs=1e-4)
    assert dist.std() == pytest.approx(2.48, abs=1e-3)


@pytest.mark.parametrize("name", ["resnet-fixed", "asreader-fixed"])
def test_expected_best_is_eq6_for_gaussian_pools(name):
    spec = PRESETS[name]
    for n in (1, 5, 50):
        assert expected_best(spec, n) == pytest.approx(
            boo_n_bivariate_normal(spec.mean, spec.sd, spec.copula_rho, n), abs=1e-9)


def test_expected_best_of_the_mixture_pool_against_simulation():
    spec = PRESETS["asreader-random"]
    val, test = spec.draw(np.random.default_rng(2), (40_000, 5))
    best = test[np.arange(40_000), val.argmax(axis=1)]
    se = best.std(ddof=1) / np.sqrt(best.size)
    assert abs(best.mean() - expected_best(spec, 5)) <= 4 * se
    assert expected_best(spec, 5) == pytest.approx(62.97808, abs=1e-4)  # regression


def test_pool_scenario():
    fixed = Pool(preset="asreader-random", n=2).draw(np.random.default_rng(42), 1)
    np.testing.assert_allclose(fixed.a, [[58.04128651638, 56.45464263318]], rtol=1e-9)
    np.testing.assert_allclose(fixed.a_val, [[62.015698357791, 58.680839416524]], rtol=1e-9)
    batch = Pool(preset="resnet-fixed", n=4, shift=1.0).draw(np.random.default_rng(3), 2)
    assert batch.a.shape == batch.a_val.shape == (2, 4)
    assert Pool().truth == "null" and Pool(shift=0.5).truth == "alternative"


@pytest.mark.parametrize(("call", "match"), [
    (lambda: get_pool("vgg"), "`preset` must be one of 'resnet-fixed', 'asreader-fixed'"),
    (lambda: Pool(n=1), "`n` must be an integer >= 2; got 1"),
    (lambda: PoolSpec((0.5, 0.6), (0, 1), (1, 1), 0, 1, 0.5), "`weights` must be non-negative"),
    (lambda: PoolSpec((1.0,), (0,), (1,), 0, 1, 1.0), r"`spearman` must be in \(-1, 1\)"),
])
def test_validation(call, match):
    with pytest.raises(ValueError, match=match):
        call()
