"""Intervals for one model's accuracy (estimators/proportions.py), their exact coverage
(stats/binomial.py) and the one-model scenarios (sims/proportions.py), each against a
reference: statsmodels, scipy, numerical integration, a transcription of the authors' code."""

import numpy as np
import pytest
from naive import bayes_subtask_is_interval, clt_subtask_interval
from scipy import integrate, stats
from statsmodels.stats.proportion import proportion_confint

import evalmc
from evalmc.estimators.intervals import get_estimator
from evalmc.estimators.proportions import (
    METHODS,
    beta_binomial_loglik,
    bounds,
    importance_interval,
    task_counts,
)
from evalmc.sims.base import Batch
from evalmc.sims.items import ClusteredBatch
from evalmc.sims.proportions import Bernoulli, BernoulliTasks
from evalmc.stats.binomial import coverage_at, prior_coverage, prior_width


def _all_counts(n):
    """Every count k = 0..n as a batch of 0/1 answers, one replication per k."""
    a = (np.arange(n)[None, :] < np.arange(n + 1)[:, None]).astype(float)
    return Batch(a, np.zeros_like(a), paired=True)


@pytest.mark.parametrize("n", [1, 3, 10, 37])
@pytest.mark.parametrize("level", [0.8, 0.95])
class TestAgainstStatsmodels:
    def test_wald_is_the_unclipped_normal_interval(self, n, level):
        result = get_estimator("wald", level=level)(_all_counts(n), None)
        low, high = proportion_confint(np.arange(n + 1), n, alpha=1 - level, method="normal")
        np.testing.assert_allclose(np.clip(result.low, 0, 1), low, atol=1e-12)
        np.testing.assert_allclose(np.clip(result.high, 0, 1), high, atol=1e-12)
        p = np.arange(n + 1) / n  # the authors' freq_confidence_interval: not clipped
        half = stats.norm.ppf((1 + level) / 2) * np.sqrt(p * (1 - p) / n)
        np.testing.assert_allclose(result.low, p - half, atol=1e-12)

    def test_clopper_pearson(self, n, level):
        result = get_estimator("clopper-pearson", level=level)(_all_counts(n), None)
        low, high = proportion_confint(np.arange(n + 1), n, alpha=1 - level, method="beta")
        np.testing.assert_allclose(result.low, low, atol=1e-12)
        np.testing.assert_allclose(result.high, high, atol=1e-12)

    def test_wilson_table(self, n, level):
        low, high = proportion_confint(np.arange(n + 1), n, alpha=1 - level, method="wilson")
        ours = bounds("wilson", n, level)
        np.testing.assert_allclose(ours[0], low, atol=1e-12)
        np.testing.assert_allclose(ours[1], high, atol=1e-12)

    def test_beta_posterior_against_scipy_and_jeffreys(self, n, level):
        k = np.arange(n + 1)
        result = get_estimator("beta-posterior", level=level)(_all_counts(n), None)
        low, high = stats.beta(k + 1, n - k + 1).interval(level)  # the authors' Bayes interval
        np.testing.assert_allclose(result.low, low, atol=1e-12)
        np.testing.assert_allclose(result.high, high, atol=1e-12)
        jeffreys = get_estimator("beta-posterior", level=level, prior_a=0.5, prior_b=0.5)
        low, high = proportion_confint(k, n, alpha=1 - level, method="jeffreys")
        result = jeffreys(_all_counts(n), None)
        np.testing.assert_allclose(result.low, low, atol=1e-12)
        np.testing.assert_allclose(result.high, high, atol=1e-12)


def test_bootstrap_limit_is_the_authors_bootstrap_with_many_resamples():
    n, level = 10, 0.9
    rng = np.random.default_rng(3)
    lo, hi = bounds("bootstrap", n, level)
    for k in range(n + 1):  # the authors' bootstrap_confidence_interval: resample the items
        data = (np.arange(n) < k).astype(float)
        means = data[rng.choice(n, (n, 20_000))].mean(axis=0)
        theirs = np.percentile(means, [50 * (1 - level), 50 * (1 + level)])
        np.testing.assert_allclose(theirs, [lo[k], hi[k]], atol=1e-12)


def test_proportion_bootstrap_has_the_law_of_the_item_bootstrap():
    """Both bootstraps' coverage, at one rate, within 4 MCSE of each other and of the exact
    coverage of the bootstrap's limit."""
    res = evalmc.run_estimation({"n": 10, "theta": 0.3}, "bernoulli",
                                ["proportion-bootstrap(n_boot=400)",
                                 "percentile-bootstrap(n_boot=400)"],
                                n_reps=1500, seed=5, progress=False)
    cov, mcse = res.summary["coverage"].to_numpy(), res.summary["coverage_mcse"].to_numpy()
    assert abs(cov[0] - cov[1]) <= 4 * np.hypot(*mcse)
    exact = coverage_at(*bounds("bootstrap", 10, 0.95), 0.3)
    assert abs(cov[0] - exact) <= 4 * mcse[0]
    assert cov.round(4).tolist() == [0.9587, 0.9593]  # regression, seed 5


@pytest.mark.parametrize("theta", [0.05, 0.3, 0.5])
def test_simulated_coverage_matches_the_exact_sum(theta):
    estimators = ["wald", "wilson", "clopper-pearson", "beta-posterior",
                  "proportion-bootstrap(n_boot=1000)"]
    res = evalmc.run_estimation({"n": 10, "theta": theta}, "bernoulli", estimators,
                                n_reps=4000, seed=11, progress=False)
    for method, row in zip(METHODS, res.summary.itertuples(), strict=True):
        exact = coverage_at(*bounds(method, 10, 0.95), theta)
        assert abs(row.coverage - exact) <= 4 * row.coverage_mcse, (method, row.coverage, exact)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("prior", [(1.0, 1.0), (100.0, 20.0), (10.0, 10.0)])
def test_prior_coverage_is_the_integral_of_the_coverage(method, prior):
    lo, hi = bounds(method, 7, 0.9)
    density = stats.beta(*prior).pdf
    # the coverage jumps where theta crosses a bound: integrate piece by piece
    cuts = np.unique(np.clip(np.concatenate([[0.0, 1.0], lo, hi]), 0, 1))
    integral = sum(integrate.quad(lambda t: coverage_at(lo, hi, t) * density(t), a, b,
                                  epsabs=1e-12)[0]
                   for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    assert prior_coverage(lo, hi, *prior) == pytest.approx(integral, abs=1e-8)
    width = integrate.quad(lambda t: (stats.binom.pmf(np.arange(8), 7, t) * (hi - lo)).sum()
                           * density(t), 0, 1, epsabs=1e-12)[0]
    assert prior_width(lo, hi, *prior) == pytest.approx(width, abs=1e-8)


def test_the_matched_bayesian_interval_covers_its_level_exactly():
    for n in (1, 3, 30, 300):
        for level in (0.8, 0.95):
            assert prior_coverage(*bounds("beta-posterior", n, level)) == pytest.approx(
                level, abs=1e-10)
    assert prior_coverage(*bounds("beta-posterior", 10, 0.95), 100, 20) != pytest.approx(0.95)


def test_clustered_wald_is_the_authors_clustered_clt():
    rng = np.random.default_rng(2)
    a = (rng.random((5, 12)) < 0.6).astype(float)
    batch = ClusteredBatch(a, np.zeros_like(a), paired=True, cluster_sizes=(2, 4, 6))
    result = get_estimator("clustered-wald", level=0.9)(batch, None)
    for r in range(5):
        tasks = [a[r, :2].tolist(), a[r, 2:6].tolist(), a[r, 6:].tolist()]
        low, high = clt_subtask_interval(tasks, 0.1)
        assert (result.low[r], result.high[r]) == pytest.approx((low, high), abs=1e-12)


def test_beta_binomial_likelihood_is_scipys():
    rng = np.random.default_rng(4)
    counts, sizes = np.array([[0, 3, 5], [2, 2, 1]]), np.array([5, 3, 7])
    counts[:, 1] = np.minimum(counts[:, 1], 3)
    theta, d = rng.random((2, 50)), rng.gamma(1.0, 1.0, (2, 50))
    ours = beta_binomial_loglik(counts, sizes, theta, d)
    for r in range(2):
        ref = sum(stats.betabinom(m, d[r] * theta[r], d[r] * (1 - theta[r])).logpmf(k)
                  for k, m in zip(counts[r], sizes, strict=True))
        np.testing.assert_allclose(ours[r], ref, rtol=1e-10)


def test_clustered_bayes_is_the_authors_importance_sampler():
    rng = np.random.default_rng(6)
    counts, sizes = np.array([[4, 1, 5, 2]]), np.array([5, 5, 5, 5])
    theta, d, u = rng.beta(1, 1, (1, 3000)), rng.gamma(1, 1, (1, 3000)), rng.random((1, 3000))
    low, high = importance_interval(theta, beta_binomial_loglik(counts, sizes, theta, d), u,
                                    0.95)
    ref = bayes_subtask_is_interval(counts[0], sizes, theta[0], d[0], u[0], 0.05)
    assert (low[0], high[0]) == pytest.approx(ref, abs=1e-12)


def test_clustered_bayes_covers_its_level_over_its_prior():
    """Rates drawn from the model's own prior, one replication each: the posterior interval
    covers its level (up to importance-sampling error), within 4 MCSE."""
    rng = np.random.default_rng(8)
    thetas = rng.beta(1, 1, 400)
    estimator = get_estimator("clustered-bayes(level=0.9,n_samples=1500)")
    covered = []
    for theta in thetas:
        batch = BernoulliTasks(tasks=3, per_task=4, theta=theta).draw(rng, 1)
        result = estimator(batch, rng)
        covered.append(result.low[0] <= theta <= result.high[0])
    rate = np.mean(covered)
    assert abs(rate - 0.9) <= 4 * np.sqrt(0.09 / len(thetas)), rate


def test_bernoulli_draws_at_their_rate():
    batch = Bernoulli(n=50, theta=0.3).draw(np.random.default_rng(0), 400)
    mean = batch.a.mean()
    assert abs(mean - 0.3) <= 4 * np.sqrt(0.21 / batch.a.size)
    assert batch.a.sum(axis=1)[:4].tolist() == [12.0, 13.0, 15.0, 13.0]  # regression, seed 0


def test_tasks_share_their_rate():
    """Two answers of one task covary by Var(theta_t) = theta (1 - theta) E[1 / (1 + d)],
    d ~ Gamma(1, 1): E[1 / (1 + d)] = e E_1(1); answers of different tasks do not covary."""
    from scipy.special import exp1

    theta = 0.3
    batch = BernoulliTasks(tasks=2, per_task=2, theta=theta).draw(np.random.default_rng(1),
                                                                  40_000)
    a = batch.a
    within, across = a[:, 0] * a[:, 1] - theta**2, a[:, 0] * a[:, 2] - theta**2
    expected = theta * (1 - theta) * np.e * exp1(1.0)
    assert abs(within.mean() - expected) <= 4 * within.std() / np.sqrt(len(a))
    assert abs(across.mean()) <= 4 * across.std() / np.sqrt(len(a))
    assert abs(a.mean() - theta) <= 4 * a.mean(axis=1).std() / np.sqrt(len(a))


def test_task_counts():
    a = np.array([[1.0, 0.0, 1.0, 1.0, 1.0, 0.0]])
    counts, sizes = task_counts(ClusteredBatch(a, a, paired=True, cluster_sizes=(1, 2, 3)))
    assert counts.tolist() == [[1, 1, 2]] and sizes.tolist() == [1, 2, 3]


@pytest.mark.parametrize(("call", "message"), [
    (lambda: bounds("normal", 3), "`method` must be one of"),
    (lambda: bounds("wald", 0), "`n` must be"),
    (lambda: bounds("beta-posterior", 3, prior_a=0.0), "`prior_a` must be"),
    (lambda: get_estimator("wald", level=1.5), "`level` must be"),
    (lambda: get_estimator("beta-posterior", prior_b=-1.0), "`prior_b` must be"),
    (lambda: get_estimator("clustered-bayes", d_scale=0.0), "`d_scale` must be"),
    (lambda: get_estimator("proportion-bootstrap", n_boot=0), "`n_boot` must be"),
    (lambda: get_estimator("wald")(Batch(np.full((1, 3), 0.5), np.zeros((1, 3)), paired=True),
                                   None), "needs 0/1 scores"),
    (lambda: Bernoulli(theta=1.5), "`theta` must be"),
    (lambda: BernoulliTasks(theta=1.0), "`theta` must be"),
    (lambda: BernoulliTasks(tasks=0), "`tasks` must be"),
    (lambda: BernoulliTasks(d_shape=0.0), "`d_shape` must be"),
    (lambda: coverage_at([0.0, 0.1], [0.5], 0.3), "`lo` and `hi` must be"),
    (lambda: coverage_at([0.0, 0.1], [0.5, 0.9], 1.3), "`theta` must be in"),
    (lambda: prior_coverage([0.0, 0.1], [0.5, 0.9], a=0.0), "`a` must be"),
])
def test_bad_input_names_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()
