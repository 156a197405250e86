import naive
import numpy as np
import pytest
from scipy import integrate, stats

from evalmc.analysis.power import average_power, noether_sample_size, outperform_power, wins_power
from evalmc.criteria import get_criterion
from evalmc.criteria.outperform import conclusion_probabilities
from evalmc.study.rates import make_design, run_study


class TestNoether:
    def test_paper_values(self):
        assert noether_sample_size(0.75) == 29
        assert noether_sample_size(0.55) == 722

    @pytest.mark.parametrize("gamma", [0.52, 0.6, 0.7, 0.75, 0.8, 0.9, 0.99])
    @pytest.mark.parametrize(("alpha", "beta"), [(0.05, 0.05), (0.05, 0.2), (0.01, 0.1)])
    def test_formula(self, gamma, alpha, beta):
        assert noether_sample_size(gamma, alpha=alpha, beta=beta) == naive.noether(gamma, alpha,
                                                                                   beta)

    @pytest.mark.parametrize(("kwargs", "match"), [
        ({"gamma": 0.5}, r"`gamma` must be in \(0.5, 1\); got 0.5"),
        ({"alpha": 1.0}, r"`alpha` must be in \(0, 1\); got 1.0"),
        ({"beta": -0.1}, r"`beta` must be in \(0, 1\); got -0.1"),
    ])
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(ValueError, match=match):
            noether_sample_size(**kwargs)


class TestOutperformPower:
    def test_ideal_is_the_binomial_mixture_of_the_exact_oc(self):
        oc = conclusion_probabilities(30, n_resamples=500)[:, 2]
        ref = [sum(stats.binom.pmf(w, 30, p) * oc[w] for w in range(31)) for p in (0.5, 0.8)]
        np.testing.assert_allclose(outperform_power([0.5, 0.8], k=30, n_resamples=500), ref)

    def test_biased_integral_against_scipy_quad(self):
        oc = conclusion_probabilities(20, n_resamples=300)[:, 2]

        def integrand(z, p, r):
            q = stats.norm.cdf(stats.norm.ppf(p) + r * z)
            return stats.norm.pdf(z) * np.dot(stats.binom.pmf(np.arange(21), 20, q), oc)

        for p in (0.5, 0.75):
            ref = integrate.quad(integrand, -10, 10, args=(p, 0.6), epsabs=1e-12)[0]
            assert outperform_power(p, k=20, n_resamples=300, bias_ratio=0.6)[0] == (
                pytest.approx(ref, abs=1e-8))

    @pytest.mark.parametrize("bias_sd", [0.0, 0.5])
    def test_matches_simulation_of_the_bootstrap_test(self, bias_sd):
        reps, grid = 4000, [0.5, 0.65, 0.75]
        crit = get_criterion("prob-outperform", n_resamples=400)
        res = run_study(make_design(k=25, p_ab=grid, bias_sd=bias_sd), "pipelines", [crit],
                        n_reps=reps, seed=4)
        found = res.summary.set_index("p_ab")["rate"]
        exact = outperform_power(grid, k=25, n_resamples=400, bias_ratio=bias_sd)
        for p, e in zip(grid, exact, strict=True):
            assert abs(found[p] - e) <= 4 * np.sqrt(e * (1 - e) / reps) + 1e-12, (p, e)

    def test_p_ab_rule(self):
        with pytest.raises(ValueError, match=r"`p_ab` must be in \(0, 1\); got 1.0"):
            outperform_power([0.5, 1.0], k=10)
        with pytest.raises(ValueError, match=r"`bias_ratio` must be a number >= 0; got -1.0"):
            outperform_power(0.5, k=10, bias_ratio=-1.0)


class TestAveragePower:
    @pytest.mark.parametrize(("k", "bias_sd"), [(1, 0.0), (10, 0.0), (10, 0.7)])
    def test_matches_simulation(self, k, bias_sd):
        reps, grid = 4000, [0.5, 0.8, 0.95]
        res = run_study(make_design(k=k, p_ab=grid, bias_sd=bias_sd), "pipelines",
                        [get_criterion("average-delta", delta=1.0, sigma=1.0)], n_reps=reps,
                        seed=5)
        found = res.summary.set_index("p_ab")["rate"]
        exact = average_power(grid, k=k, delta=1.0, bias_ratio=bias_sd)
        for p, e in zip(grid, exact, strict=True):
            assert abs(found[p] - e) <= 4 * np.sqrt(e * (1 - e) / reps) + 1e-12, (p, e)


class TestWinsPower:
    def test_threshold_rule_is_the_binomial_tail(self):
        k = 40
        better = (np.arange(k + 1) >= 27).astype(float)
        got = wins_power(better, [0.5, 0.7], k=k)
        np.testing.assert_allclose(got, stats.binom.sf(26, k, [0.5, 0.7]), rtol=1e-12)

    def test_biased_matches_a_plain_simulation(self):
        # wins ~ Binomial(k, Phi(Phi^-1(p) + r Z)): 200,000 draws, within 4 binomial SEs
        k, r, n = 20, 0.4, 200_000
        rng = np.random.default_rng(7)
        p = stats.norm.cdf(stats.norm.ppf(0.6) + r * rng.standard_normal(n))
        wins = rng.binomial(k, p)
        rate = np.mean(wins >= 14)
        exact = wins_power((np.arange(k + 1) >= 14).astype(float), 0.6, k=k, bias_ratio=r)[0]
        assert abs(rate - exact) <= 4 * np.sqrt(exact * (1 - exact) / n)

    def test_length_must_be_k_plus_one(self):
        with pytest.raises(ValueError, match="`better` must have k \\+ 1 = 11 values"):
            wins_power(np.ones(10), 0.5, k=10)
