import numpy as np
import pytest
from scipy import integrate, stats

from evalmc.estimators.boon import boo_n_bivariate_normal, expected_best
from evalmc.sims.pools import PRESETS, Pool, PoolSpec, get_pool

MIXTURE = PRESETS["asreader-random"]
REGRESSION_BEST_OF_5 = 63.269530090563
REGRESSION_FIXED_A = [[61.41271619, 61.77383027]]  # the stream of the copula pools before
REGRESSION_RANDOM_A = [[56.62567648, 60.46871851]]


@pytest.mark.parametrize("name", list(PRESETS))
def test_draws_follow_the_clusters(name):
    spec = PRESETS[name]
    val, test = spec.draw(np.random.default_rng(1), 20_000)
    assert stats.kstest(test, spec.cdf).pvalue > 1e-3
    assert stats.kstest(val, spec.cdf).pvalue > 1e-3
    rho_s = stats.spearmanr(val, test)[0]
    # SE of a Spearman correlation is below (1 - rho^2) / sqrt(n) * 1.1 for these pools
    assert abs(rho_s - spec.spearman) <= 4 * 1.1 * (1 - spec.spearman**2) / np.sqrt(20_000)
    assert abs(test.mean() - spec.mean) <= 4 * spec.sd / np.sqrt(20_000)


@pytest.mark.parametrize(("spearman"), [-0.5, 0.1, 0.83])
def test_spearman_of_one_cluster_is_the_one_asked_for(spearman):
    assert PoolSpec.gaussian(0.0, 1.0, spearman).spearman == pytest.approx(spearman, abs=1e-9)


def test_quantiles_invert_the_cdf_and_survival_function():
    u = np.array([1e-12, 0.001, 0.1, 0.5, 0.9, 0.999])
    np.testing.assert_allclose(MIXTURE.cdf(MIXTURE.quantile(u)), u, rtol=1e-8, atol=1e-15)
    np.testing.assert_allclose(MIXTURE.sf(MIXTURE.isf(u)), u, rtol=1e-8, atol=1e-15)


def test_moments_against_scipy_integration():
    lo, hi = min(MIXTURE.means) - 12, max(MIXTURE.means) + 12

    def moment(k):
        return integrate.quad(lambda x: x**k * MIXTURE.pdf(x), lo, hi, points=MIXTURE.means,
                              limit=200, epsabs=1e-12)[0]

    assert moment(0) == pytest.approx(1.0, abs=1e-9)
    assert moment(1) == pytest.approx(MIXTURE.mean, abs=1e-8)
    assert np.sqrt(moment(2) - moment(1) ** 2) == pytest.approx(MIXTURE.sd, abs=1e-6)
    dist = MIXTURE.distribution()
    assert dist.isf(0.3) == pytest.approx(MIXTURE.quantile(0.7), abs=1e-9)
    assert dist.ppf(0.3) == pytest.approx(MIXTURE.quantile(0.3), abs=1e-12)


@pytest.mark.parametrize("name", ["resnet-fixed", "asreader-fixed"])
def test_expected_best_is_eq6_for_gaussian_pools(name):
    spec = PRESETS[name]
    for n in (1, 5, 50):
        assert expected_best(spec, n) == pytest.approx(
            boo_n_bivariate_normal(spec.mean, spec.sd, spec.rho, n), abs=1e-8)


def test_expected_best_of_the_mixture_pool_against_simulation():
    val, test = MIXTURE.draw(np.random.default_rng(2), (40_000, 5))
    best = test[np.arange(40_000), val.argmax(axis=1)]
    se = best.std(ddof=1) / np.sqrt(best.size)
    assert abs(best.mean() - expected_best(MIXTURE, 5)) <= 4 * se
    assert expected_best(MIXTURE, 5) == pytest.approx(REGRESSION_BEST_OF_5, abs=1e-6)


def test_extremes_against_simulation():
    low, high = MIXTURE.extremes(197, [0.05, 0.95])
    _, test = MIXTURE.draw(np.random.default_rng(5), (4000, 197))
    se = np.sqrt(0.05 * 0.95 / 4000)  # the 5% and 95% points: shares within 4 binomial SEs
    for values, (q05, q95) in ((test.min(axis=1), low), (test.max(axis=1), high)):
        assert abs(np.mean(values <= q05) - 0.05) <= 4 * se
        assert abs(np.mean(values <= q95) - 0.95) <= 4 * se


def test_pool_scenario():
    fixed = Pool(preset="asreader-fixed", n=2).draw(np.random.default_rng(42), 1)
    np.testing.assert_allclose(fixed.a, REGRESSION_FIXED_A, rtol=1e-8)
    mixed = Pool(preset="asreader-random", n=2).draw(np.random.default_rng(42), 1)
    np.testing.assert_allclose(mixed.a, REGRESSION_RANDOM_A, rtol=1e-8)
    batch = Pool(preset="resnet-fixed", n=4, shift=1.0).draw(np.random.default_rng(3), 2)
    assert batch.a.shape == batch.a_val.shape == (2, 4)
    assert Pool().truth == "null" and Pool(shift=0.5).truth == "alternative"


@pytest.mark.parametrize(("call", "match"), [
    (lambda: get_pool("vgg"), "`preset` must be one of 'resnet-fixed', 'asreader-fixed'"),
    (lambda: Pool(n=1), "`n` must be an integer >= 2; got 1"),
    (lambda: PoolSpec((0.5, 0.6), (0, 1), (1, 1), 0.5), "`weights` must be non-negative"),
    (lambda: PoolSpec((0.5, 0.5), (0, 1), (1,), 0.5), "one entry per cluster"),
    (lambda: PoolSpec((1.0,), (0,), (0.0,), 0.5), "`sds` must be > 0; got 0.0"),
    (lambda: PoolSpec((1.0,), (0,), (1,), 1.0), r"`rho` must be in \(-1, 1\)"),
    (lambda: PoolSpec.gaussian(0, 1, 1.0), r"`spearman` must be in \(-1, 1\)"),
])
def test_validation(call, match):
    with pytest.raises(ValueError, match=match):
        call()
