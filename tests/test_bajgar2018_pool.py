import numpy as np
import pytest

from evalmc.reproductions import bajgar2018_pool
from evalmc.sims.pools import PRESETS, PoolSpec

POOL = PRESETS["asreader-random"]
MAX_RESIDUAL = 1.0  # every summary within its reported precision
REGRESSION_SUMMARIES = {
    "mean": 61.26019963808, "sd": 2.480102381173, "iqr": 3.025157977874,
    "spearman": 0.830373874518, "best of 5": 63.269530090563, "best of 20": 63.511340627740,
    "min": 56.609624714208, "max": 64.003218999306}


def test_the_fitted_pool_meets_every_summary():
    res = bajgar2018_pool.residuals(POOL)
    assert set(res) == set(bajgar2018_pool.SUMMARIES)
    assert max(abs(r) for r in res.values()) <= MAX_RESIDUAL


def test_summaries_regression():
    ours = bajgar2018_pool.summaries(POOL)
    assert ours == pytest.approx(REGRESSION_SUMMARIES, abs=1e-6)


def test_summaries_against_simulation():
    """The quadratures against one large sample of the pool (within 4 MCSE)."""
    rng = np.random.default_rng(7)
    val, test = POOL.draw(rng, (100_000, 20))
    ours = bajgar2018_pool.summaries(POOL)
    for m in (5, 20):
        best = test[np.arange(len(test)), val[:, :m].argmax(axis=1)]
        se = best.std(ddof=1) / np.sqrt(best.size)
        assert abs(best.mean() - ours[f"best of {m}"]) <= 4 * se
    flat = test.ravel()
    iqr = np.subtract(*np.quantile(flat, [0.75, 0.25]))
    # the sample IQR's sd is about 1.4 sd / sqrt(n) for a unimodal law; 4 of them, doubled
    assert abs(iqr - ours["iqr"]) <= 8 * 1.4 * POOL.sd / np.sqrt(flat.size)


def test_a_gaussian_pool_with_the_papers_moments_is_rejected():
    """A Gaussian with the paper's mean, sd and Spearman has the moments right and its upper
    body wrong: E[best of 20] near 65, above the paper's maximum of 64.01."""
    res = bajgar2018_pool.residuals(PoolSpec.gaussian(61.26, 2.48, 0.83))
    assert abs(res["mean"]) < 1 and abs(res["sd"]) < 1
    assert res["best of 20"] > 20 and res["max"] > 4


@pytest.mark.slow
def test_refitting_from_the_preset_stays_there():
    spec, result = bajgar2018_pool.fit(POOL)
    np.testing.assert_allclose(spec.means, POOL.means, atol=0.01)
    np.testing.assert_allclose(spec.sds, POOL.sds, atol=0.01)
    assert abs(spec.rho - POOL.rho) <= 0.01
