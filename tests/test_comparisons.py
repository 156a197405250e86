"""The two-model comparison intervals (evalmc.estimators.comparisons) and their scenarios
(evalmc.sims.twomodels), each against an independent reference: statsmodels, scipy, exact
distributions, and plain transcriptions of Bowyer, Aitchison and Ivanova's code."""

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.stats.contingency import odds_ratio
from statsmodels.stats.proportion import confint_proportions_2indep

import evalmc
from evalmc.estimators.comparisons import (
    beta_difference_quantiles,
    independent_coverage,
    paired_cells,
    paired_posterior,
)
from evalmc.estimators.intervals import get_estimator
from evalmc.sims.base import Batch
from evalmc.sims.twomodels import PairedModels, TwoModels, orthant

#: (k_A, n_A, k_B, n_B) of the fixed-input checks, with empty and full counts.
TABLES = [(3, 5, 1, 5), (0, 10, 4, 10), (10, 10, 9, 10), (17, 30, 22, 30), (40, 100, 71, 90)]


def _batch(k_a, n_a, k_b, n_b):
    a = (np.arange(n_a) < k_a).astype(float)[None]
    b = (np.arange(n_b) < k_b).astype(float)[None]
    return Batch(a, b, paired=False)


@pytest.mark.parametrize("table", TABLES)
def test_clt_diff_is_statsmodels_wald(table):
    res = get_estimator("clt-diff(level=0.9)")(_batch(*table), None)
    low, high = confint_proportions_2indep(table[0], table[1], table[2], table[3],
                                           method="wald", compare="diff", alpha=0.1)
    assert res.low[0] == pytest.approx(low, abs=1e-12)
    assert res.high[0] == pytest.approx(high, abs=1e-12)


@pytest.mark.parametrize("table", TABLES)
def test_fisher_odds_ratio_is_scipy_conditional(table):
    k_a, n_a, k_b, n_b = table
    res = get_estimator("fisher-odds-ratio(level=0.9)")(_batch(*table), None)
    ref = odds_ratio([[k_a, n_a - k_a], [k_b, n_b - k_b]], kind="conditional")
    ci = ref.confidence_interval(confidence_level=0.9)
    np.testing.assert_allclose([res.estimate[0], res.low[0], res.high[0]],
                               [ref.statistic, ci.low, ci.high], rtol=1e-9)


def test_fisher_odds_ratio_orientation():
    """A right more often than B: the odds ratio above 1, its interval (0, inf) when B's
    column of the table is empty."""
    res = get_estimator("fisher-odds-ratio")(_batch(8, 10, 2, 10), None)
    assert res.estimate[0] > 1 and res.low[0] > 1
    res = get_estimator("fisher-odds-ratio")(_batch(0, 5, 0, 5), None)
    assert (res.low[0], res.high[0]) == (0.0, np.inf)


@pytest.mark.parametrize("log_odds", [False, True])
def test_beta_difference_quantiles_of_a_row_do_not_depend_on_the_others(log_odds):
    """A row's quantiles alone or among others that converge sooner or later: bit for bit
    the same (a cached estimator computes only a block's new tables)."""
    from evalmc.estimators.comparisons import beta_difference_quantiles

    params = np.array([[4, 2, 2, 4], [1, 1, 30, 2], [200, 100, 3, 50], [2, 9, 9, 2]], float)
    probs = [0.025, 0.5, 0.975]
    alone = np.hstack([beta_difference_quantiles(*row, probs, log_odds=log_odds)[:, None]
                       for row in params])
    both = beta_difference_quantiles(*params.T, probs, log_odds=log_odds)
    np.testing.assert_array_equal(both, alone)


def test_beta_difference_of_uniforms_is_triangular():
    """U1 - U2 of two uniforms has P(D <= d) = (1 + d)^2 / 2 for d <= 0."""
    probs = [0.005, 0.025, 0.3, 0.5, 0.9]
    exact = [np.sqrt(2 * p) - 1 if p <= 0.5 else 1 - np.sqrt(2 * (1 - p)) for p in probs]
    np.testing.assert_allclose(beta_difference_quantiles(1, 1, 1, 1, probs), exact, atol=2e-4)


@pytest.mark.parametrize("table", TABLES)
def test_bayes_intervals_match_the_authors_posterior_draws(table):
    """The authors draw Beta(k + 1, n - k + 1) posteriors and take percentiles; with many
    draws their interval is ours within its Monte Carlo error."""
    k_a, n_a, k_b, n_b = table
    rng = np.random.default_rng(7)
    draws_a = rng.beta(1 + k_a, 1 + n_a - k_a, 400_000)
    draws_b = rng.beta(1 + k_b, 1 + n_b - k_b, 400_000)
    diff = np.percentile(draws_a - draws_b, [2.5, 97.5])
    odds = np.percentile(draws_a / (1 - draws_a) / (draws_b / (1 - draws_b)), [2.5, 50, 97.5])
    res = get_estimator("bayes-diff")(_batch(*table), None)
    np.testing.assert_allclose([res.low[0], res.high[0]], diff, atol=2e-3)
    res = get_estimator("bayes-odds-ratio")(_batch(*table), None)
    np.testing.assert_allclose(np.log([res.low[0], res.estimate[0], res.high[0]]),
                               np.log(odds), atol=0.02)


def test_orthant_is_scipy_bivariate_normal():
    rng = np.random.default_rng(3)
    points = [(*rng.normal(0, 1.5, 2), rng.uniform(-0.95, 0.95)) for _ in range(25)]
    points += [(0.0, 0.7, 0.5), (-0.4, 0.0, -0.3), (0.0, 0.0, 0.6)]
    for h, k, rho in points:
        ref = stats.multivariate_normal([0, 0], [[1, rho], [rho, 1]]).cdf([h, k])
        assert orthant(h, k, rho) == pytest.approx(ref, abs=2e-6)


def test_paired_cells_margins():
    cells = paired_cells(0.8, 0.35, -0.4)
    assert cells.sum() == pytest.approx(1.0)
    assert cells[0] + cells[1] == pytest.approx(0.8)
    assert cells[0] + cells[2] == pytest.approx(0.35)


def _authors_paired_interval(counts, rng, n_samples=200_000, level=0.95):
    """A plain numpy transcription of the authors' importance_sampled_paired_credible_interval
    with rho drawn as 2 Beta(4, 2) - 1 (prior = proposal, so the weights are the likelihoods),
    the bivariate normal probability from the tested `orthant`."""
    s, t, u, v = counts
    theta_a, theta_b = rng.beta(1, 1, n_samples), rng.beta(1, 1, n_samples)
    rho = np.clip(2 * rng.beta(4, 2, n_samples) - 1, -1 + 1e-12, 1 - 1e-12)
    theta_v = orthant(-stats.norm.ppf(theta_a), -stats.norm.ppf(theta_b), rho)
    theta_s = theta_a + theta_b + theta_v - 1
    theta_t, theta_u = 1 - theta_b - theta_v, 1 - theta_a - theta_v
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = s * np.log(theta_s) + t * np.log(theta_t) + u * np.log(theta_u) + v * np.log(theta_v)
    ll = np.nan_to_num(ll, nan=-np.inf)
    w = np.exp(ll - ll.max())
    w /= w.sum()
    post = (theta_a - theta_b)[rng.choice(n_samples, n_samples, p=w)]
    return np.quantile(post, [(1 - level) / 2, (1 + level) / 2])


@pytest.mark.parametrize("counts", [(6, 3, 1, 4), (2, 0, 1, 0), (12, 2, 6, 10)])
def test_bayes_paired_matches_the_authors_importance_sampler(counts):
    rng = np.random.default_rng(11)
    ref = _authors_paired_interval(counts, rng)
    knots, cdf, _ = paired_posterior(counts)
    ours = np.interp([0.025, 0.975], cdf, knots)
    np.testing.assert_allclose(ours, ref, atol=0.012)


def test_bayes_paired_estimator_reads_the_table():
    a = np.array([[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]])
    b = np.array([[0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0]])
    res = get_estimator("bayes-paired")(Batch(a, b, paired=True), None)
    knots, cdf, mean = paired_posterior((4, 2, 0, 2))
    assert res.estimate[0] == mean
    np.testing.assert_allclose([res.low[0], res.high[0]],
                               np.interp([0.025, 0.975], cdf, knots), rtol=1e-12)


def test_paired_z_interval_is_the_authors_paired_clt():
    """``clt_paired_confidence_interval``: mean(d) +- z sqrt(sum (d - mean)^2 / (N (N - 1)))."""
    batch = PairedModels(n=12, theta_a=0.6, theta_b=0.5).draw(np.random.default_rng(2), 50)
    d = batch.a - batch.b
    n = d.shape[1]
    se = np.sqrt(((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1) / (n * (n - 1)))
    z = stats.norm.ppf(0.975)
    res = get_estimator("paired-z-interval")(batch, None)
    np.testing.assert_allclose(res.low, d.mean(axis=1) - z * se, atol=1e-12)
    np.testing.assert_allclose(res.high, d.mean(axis=1) + z * se, atol=1e-12)


def test_paired_scenario_rates_and_agreement_fixed_rho():
    theta_a, theta_b, rho = 0.7, 0.45, 0.6
    batch = PairedModels(n=1000, theta_a=theta_a, theta_b=theta_b, rho=rho).draw(
        np.random.default_rng(5), 200)
    a, b = batch.a.ravel(), batch.b.ravel()
    mvn = stats.multivariate_normal([0, 0], [[1, rho], [rho, 1]])
    both_wrong = mvn.cdf([-stats.norm.ppf(theta_a), -stats.norm.ppf(theta_b)])
    agree = theta_a + theta_b + 2 * both_wrong - 1
    for observed, p in [(a, theta_a), (b, theta_b), (a == b, agree)]:
        assert abs(observed.mean() - p) <= 4 * np.sqrt(p * (1 - p) / observed.size)


def test_paired_scenario_agreement_with_drawn_rho():
    """rho = 2 r - 1, r ~ Beta(4, 2) per replication: the agreement rate is the orthant
    probability averaged over that law (quadrature); replications are independent."""
    theta_a, theta_b = 0.6, 0.3
    batch = PairedModels(n=20, theta_a=theta_a, theta_b=theta_b).draw(
        np.random.default_rng(6), 20_000)
    h, k = -stats.norm.ppf(theta_a), -stats.norm.ppf(theta_b)

    def wrong(r):
        rho = 2 * r - 1
        cdf = stats.multivariate_normal([0, 0], [[1, rho], [rho, 1]]).cdf([h, k])
        return cdf * stats.beta.pdf(r, 4, 2)

    agree = theta_a + theta_b + 2 * integrate.quad(wrong, 0, 1, epsabs=1e-9)[0] - 1
    per_rep = (batch.a == batch.b).mean(axis=1)
    assert abs(per_rep.mean() - agree) <= 4 * per_rep.std(ddof=1) / np.sqrt(per_rep.size)
    rates = batch.a.mean(axis=1)
    assert abs(rates.mean() - theta_a) <= 4 * rates.std(ddof=1) / np.sqrt(rates.size)


def test_scenarios_fixed_seed_draws():
    batch = TwoModels(n=6, theta_a=0.4, theta_b=0.9).draw(np.random.default_rng(123), 2)
    assert batch.a.sum(axis=1).tolist() == [4.0, 2.0]
    assert batch.b.sum(axis=1).tolist() == [5.0, 6.0]
    batch = PairedModels(n=6, theta_a=0.4, theta_b=0.9).draw(np.random.default_rng(123), 2)
    assert batch.a.sum(axis=1).tolist() == [1.0, 3.0]
    assert batch.b.sum(axis=1).tolist() == [5.0, 6.0]


def test_independent_scenario_rates():
    batch = TwoModels(n=500, theta_a=0.15, theta_b=0.85).draw(np.random.default_rng(8), 100)
    for scores, p in [(batch.a, 0.15), (batch.b, 0.85)]:
        assert abs(scores.mean() - p) <= 4 * np.sqrt(p * (1 - p) / scores.size)


def test_the_engine_judges_the_population_effect_and_odds_ratio():
    design = {"n": 5, "theta_a": [0.7, 0.25], "theta_b": 0.4}
    for scenario in ("two-models", "paired-models"):
        res = evalmc.run_estimation(design, scenario, ["clt-diff"], target="effect",
                                    n_reps=10, seed=0, progress=False)
        assert sorted(res.truths.values()) == sorted([0.7 - 0.4, 0.25 - 0.4])
    res = evalmc.run_estimation(design, "two-models", ["fisher-odds-ratio"],
                                target="odds-ratio", n_reps=10, seed=0, progress=False)
    assert sorted(res.truths.values()) == pytest.approx(
        sorted([0.7 / 0.3 / (0.4 / 0.6), 0.25 / 0.75 / (0.4 / 0.6)]), rel=1e-14)


@pytest.mark.parametrize(("estimator", "target", "n"), [
    ("clt-diff", "effect", 10), ("bayes-diff(level=0.9)", "effect", 5),
    ("fisher-odds-ratio", "odds-ratio", 10), ("bayes-odds-ratio", "odds-ratio", 8)])
def test_simulated_coverage_matches_the_exact_sum(estimator, target, n):
    theta_a, theta_b = 0.72, 0.41
    res = evalmc.run_estimation({"n": n, "theta_a": theta_a, "theta_b": theta_b}, "two-models",
                                [estimator], target=target, n_reps=4000, seed=3, progress=False)
    row = res.summary.iloc[0]
    exact = independent_coverage(estimator, n, theta_a, theta_b, target=target)
    assert abs(row["coverage"] - exact) <= 4 * np.sqrt(exact * (1 - exact) / 4000)


def test_exact_coverage_is_the_plain_double_sum():
    """The CLT difference at N = 3, both rates 0.5, summed over the 16 tables by hand."""
    z, total = stats.norm.ppf(0.975), 0.0
    for k_a in range(4):
        for k_b in range(4):
            p_a, p_b = k_a / 3, k_b / 3
            half = z * np.sqrt(p_a * (1 - p_a) / 3 + p_b * (1 - p_b) / 3)
            if abs(p_a - p_b) <= half:
                total += stats.binom.pmf(k_a, 3, 0.5) * stats.binom.pmf(k_b, 3, 0.5)
    assert independent_coverage("clt-diff", 3, 0.5, 0.5) == pytest.approx(total, abs=1e-12)
    assert round(total, 6) == 0.78125
    assert round(independent_coverage("fisher-odds-ratio", 10, 0.7, 0.4,
                                      target="odds-ratio"), 4) == 0.9874


def test_fixed_seed_study_values():
    res = evalmc.run_estimation({"n": 10, "theta_a": 0.6, "theta_b": 0.5}, "paired-models",
                                ["paired-z-interval", "bayes-paired"], target="effect",
                                n_reps=200, seed=4, progress=False)
    assert res.summary["coverage"].tolist() == [0.89, 0.96]


def test_bad_inputs():
    with pytest.raises(ValueError, match="`theta_a` must be in"):
        TwoModels(theta_a=1.5)
    with pytest.raises(ValueError, match="`rho` must be in"):
        PairedModels(rho=1.0)
    with pytest.raises(ValueError, match="`n` must be"):
        PairedModels(n=0)
    with pytest.raises(ValueError, match="must be a deterministic interval"):
        independent_coverage("percentile-bootstrap", 5, 0.5, 0.5)
    with pytest.raises(ValueError, match="is not what estimator 'fisher-odds-ratio'"):
        evalmc.run_estimation({"n": 5}, "two-models", ["fisher-odds-ratio"], target="effect",
                              n_reps=10, seed=0, progress=False)
    with pytest.raises(ValueError, match="does not define `target` 'odds-ratio'"):
        evalmc.run_estimation({"n": 5}, "paired-models", ["bayes-odds-ratio"],
                              target="odds-ratio", n_reps=10, seed=0, progress=False)


@pytest.mark.parametrize("spec, target", [("clt-diff", "effect"),
                                          ("fisher-odds-ratio(level=0.9)", "odds-ratio")])
def test_exact_coverage_of_many_pairs_is_each_pairs(spec, target):
    """The intervals are built once for every pair of accuracies: the same bits as one pair
    at a time."""
    theta_a, theta_b = np.array([0.2, 0.55, 0.9]), np.array([0.5, 0.5, 0.15])
    many = independent_coverage(spec, 12, theta_a, theta_b, target=target)
    one = [independent_coverage(spec, 12, a, b, target=target)
           for a, b in zip(theta_a, theta_b, strict=True)]
    assert many.tolist() == one


def test_two_models_odds_ratio_is_a_odds_over_b_odds():
    assert TwoModels(theta_a=0.75, theta_b=0.5).odds_ratio == 3.0


#: Every table of two samples of 0 to 12 answers, and a few larger ones.
ALL_TABLES = [(k_a, n_a, k_b, n_b) for n_a in (1, 2, 5, 12) for n_b in (1, 3, 12)
              for k_a in range(n_a + 1) for k_b in range(n_b + 1)] + TABLES


def _batches(tables):
    """One batch per pair of sizes (n_A, n_B), a row per table, and the rows' tables."""
    by_size = {}
    for table in tables:
        by_size.setdefault((table[1], table[3]), []).append(table)
    for group in by_size.values():
        a = np.array([(np.arange(n_a) < k_a) * 1.0 for k_a, n_a, _, _ in group])
        b = np.array([(np.arange(n_b) < k_b) * 1.0 for _, _, k_b, n_b in group])
        yield Batch(a, b, paired=False), group


@pytest.mark.parametrize("level", [0.95, 0.8])
def test_agresti_caffo_is_statsmodels(level):
    """statsmodels' confint_proportions_2indep(method='agresti-caffo') on every table, as one
    batch per pair of sizes; the estimate is the observed difference."""
    for batch, group in _batches(ALL_TABLES):
        res = get_estimator(f"agresti-caffo-diff(level={level})")(batch, None)
        ref = np.array([confint_proportions_2indep(k_a, n_a, k_b, n_b, method="agresti-caffo",
                                                   compare="diff", alpha=1 - level)
                        for k_a, n_a, k_b, n_b in group])
        np.testing.assert_allclose(res.low, ref[:, 0], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(res.high, ref[:, 1], rtol=1e-12, atol=1e-14)
        np.testing.assert_array_equal(res.estimate, [k_a / n_a - k_b / n_b
                                                     for k_a, n_a, k_b, n_b in group])
        assert not res.failed.any()


def test_agresti_caffo_exact_coverage_is_statsmodels_double_sum():
    """Its exact coverage at n = 8 (what the estimation study estimates), summed over the 81
    tables with statsmodels' bounds; and the simulated coverage of a study within 4 MCSE."""
    n, theta_a, theta_b = 8, 0.8, 0.35
    total = 0.0
    for k_a in range(n + 1):
        for k_b in range(n + 1):
            low, high = confint_proportions_2indep(k_a, n, k_b, n, method="agresti-caffo")
            if low <= theta_a - theta_b <= high:
                total += stats.binom.pmf(k_a, n, theta_a) * stats.binom.pmf(k_b, n, theta_b)
    exact = independent_coverage("agresti-caffo-diff", n, theta_a, theta_b)
    assert exact == pytest.approx(total, abs=1e-12)
    res = evalmc.run_estimation({"n": n, "theta_a": theta_a, "theta_b": theta_b}, "two-models",
                                ["agresti-caffo-diff"], target="effect", n_reps=4000, seed=3,
                                progress=False)
    assert abs(res.summary["coverage"].iloc[0] - exact) <= 4 * np.sqrt(exact * (1 - exact) / 4000)


def test_fisher_exact_is_scipys():
    """scipy.stats.fisher_exact's two-sided p-value (and its sample odds ratio) on every table,
    empty and full margins included (p = 1, odds ratio NaN)."""
    crit = evalmc.get_criterion("fisher-exact")
    for batch, group in _batches(ALL_TABLES):
        res = crit(batch, None)
        refs = [stats.fisher_exact([[k_a, n_a - k_a], [k_b, n_b - k_b]])
                for k_a, n_a, k_b, n_b in group]
        np.testing.assert_allclose(res.pvalues(), [r.pvalue for r in refs], rtol=1e-12)
        np.testing.assert_array_equal(res.statistic, [r.statistic for r in refs])
        assert not res.failed.any()
        np.testing.assert_array_equal(res.estimate, batch.a.mean(axis=1) - batch.b.mean(axis=1))


def test_fisher_exact_pvalues_of_large_tables_are_scipys():
    from evalmc.stats.oddsratio import fisher_exact_pvalues

    rng = np.random.default_rng(0)
    n_a, n_b = rng.integers(1, 1500, 200), rng.integers(1, 1500, 200)
    k_a, k_b = rng.binomial(n_a, 0.5), rng.binomial(n_b, rng.uniform(0.35, 0.65, 200))
    ref = [stats.fisher_exact([[a, n - a], [b, m - b]]).pvalue
           for a, n, b, m in zip(k_a, n_a, k_b, n_b, strict=True)]
    np.testing.assert_allclose(fisher_exact_pvalues(k_a, n_a, k_b, n_b), ref, rtol=1e-10)
    with pytest.raises(ValueError, match="whole counts"):
        fisher_exact_pvalues(3, 2, 0, 2)


def test_fisher_exact_size_is_the_exact_sum():
    """On two-models at the null, the study's rejection rate at 0.05 is the exact size (the
    binomial double sum of scipy's decisions) within 4 MCSE; 0.5 scores are refused."""
    n, theta = 12, 0.6
    pmf = stats.binom.pmf(np.arange(n + 1), n, theta)
    size = sum(pmf[k_a] * pmf[k_b] for k_a in range(n + 1) for k_b in range(n + 1)
               if stats.fisher_exact([[k_a, n - k_a], [k_b, n - k_b]]).pvalue <= 0.05)
    res = evalmc.run_study({"n": n, "theta_a": theta, "theta_b": theta}, "two-models",
                           ["fisher-exact"], n_reps=20_000, seed=5, progress=False)
    rate = res.summary["rate"].iloc[0]
    assert size < 0.05 and abs(rate - size) <= 4 * np.sqrt(size * (1 - size) / 20_000)
    with pytest.raises(ValueError, match="needs 0/1 scores"):
        evalmc.get_criterion("fisher-exact")(Batch(np.full((1, 2), 0.5), np.ones((1, 2)),
                                                   paired=False), None)
