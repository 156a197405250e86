"""Exact operating characteristics (evalmc.stats.exact) against plain enumerations, statsmodels,
scipy and the simulation."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import naive
import numpy as np
import pytest
from scipy import stats

from evalmc.criteria import get_criterion
from evalmc.sims.base import Batch
from evalmc.sims.classifiers import CountsBatch, PairedClassifiers
from evalmc.stats.exact import (
    MCNEMAR_TESTS,
    continuous_null_rejection_rates,
    discordant_law,
    mcnemar_pvalues,
    mcnemar_rejection_rates,
    paired_discrete_rejection_rates,
    rejection_rates,
    sign_rejection_rates,
    two_sample_discrete_rejection_rates,
)
from evalmc.study.rates import make_design, run_study

ALPHAS = (0.01, 0.05, 0.1)
#: Equal population error rates (p01 = p10 = 0.1345): the null of every McNemar test.
EXACT_NULL = PairedClassifiers(prevalence=0.4, tpr_a=0.7, fpr_a=0.15, tpr_b=0.8, fpr_b=0.2,
                               rho=0.3).with_difference("dcerr", 0.0)


def _discordant_cells(scenario):
    cells = scenario.cells
    return cells[[1, 5]].sum(), cells[[2, 6]].sum()


def _grid(m_max):
    n01, n10 = np.meshgrid(np.arange(m_max + 1), np.arange(m_max + 1), indexing="ij")
    return n01.ravel(), n10.ravel()


class TestPValues:
    def test_statsmodels_and_mlxtend_mcnemar(self):
        from mlxtend.evaluate import mcnemar as mlxtend_mcnemar
        from statsmodels.stats import contingency_tables as contingency

        for n01, n10 in zip(*_grid(25), strict=True):
            if n01 + n10 == 0:
                continue
            table = [[7, n01], [n10, 11]]
            got = mcnemar_pvalues(table)
            for name, exact, correction in (("mcnemar-uncorrected", False, False),
                                            ("mcnemar", False, True), ("mcnemar-exact", True,
                                                                       True)):
                ref = contingency.mcnemar(table, exact=exact, correction=correction).pvalue
                assert got[name] == pytest.approx(ref, rel=1e-12, abs=1e-300), (table, name)
            for name, corrected in (("mcnemar-uncorrected", False), ("mcnemar", True)):
                ref = mlxtend_mcnemar(np.array(table), corrected=corrected)[1]
                assert got[name] == pytest.approx(ref, rel=1e-12, abs=1e-300), (table, name)

    def test_scipy_binomtest_and_midp(self):
        n01, n10 = _grid(30)
        got = mcnemar_pvalues(n01, n10)
        for i, (a, b) in enumerate(zip(n01.tolist(), n10.tolist(), strict=True)):
            exact = stats.binomtest(a, a + b).pvalue if a + b else 1.0
            assert got["mcnemar-exact"][i] == pytest.approx(exact, rel=1e-12)
            # mid-p: the exact p-value less P(X = n01), and 1 when n01 = n10
            midp = exact - stats.binom.pmf(a, a + b, 0.5) if a != b else 1.0
            assert got["mcnemar-midp"][i] == pytest.approx(midp, rel=1e-12, abs=1e-15)

    def test_textbook_formulas(self):
        n01, n10 = _grid(80)
        got = mcnemar_pvalues(n01, n10)
        for name in MCNEMAR_TESTS:
            ref = [naive.mcnemar_pvalues_textbook(a, b)[name]
                   for a, b in zip(n01.tolist(), n10.tolist(), strict=True)]
            np.testing.assert_allclose(got[name], ref, rtol=1e-11, atol=1e-300)

    def test_the_criteria_give_the_same_pvalues(self):
        # one formula each: the exact rates are the criteria's, decision for decision
        n01, n10 = _grid(300)
        counts = np.zeros((n01.size, 8), np.int64)
        counts[:, 1], counts[:, 6], counts[:, 3] = n01, n10, 5
        batch = CountsBatch(paired=True, fill=lambda: None, sizes=(1, 1), counts=counts)
        ours = mcnemar_pvalues(n01, n10)
        for name in MCNEMAR_TESTS:
            np.testing.assert_array_equal(get_criterion(name)(batch, None).pvalues(), ours[name])

    def test_table_and_counts_agree_and_broadcast(self):
        tables = np.array([[[50, 5], [17, 28]], [[3, 12], [12, 3]]])
        by_table, by_counts = mcnemar_pvalues(tables), mcnemar_pvalues([5, 12], 17)
        assert by_table["mcnemar"].shape == (2,)
        assert by_table["mcnemar"][0] == by_counts["mcnemar"][0]
        assert mcnemar_pvalues(0, 0) == dict.fromkeys(MCNEMAR_TESTS, 1.0)
        # the uncorrected p-value is below the corrected one (but where n01 = n10: there the
        # corrected statistic is 1 / m, not 0), mid-p below the exact one
        n01, n10 = _grid(80)
        p = mcnemar_pvalues(n01, n10)
        apart = n01 != n10
        assert np.all(p["mcnemar-uncorrected"][apart] <= p["mcnemar"][apart])
        assert np.all(p["mcnemar-midp"] <= p["mcnemar-exact"])

    @pytest.mark.parametrize("bad", [[[1, 2, 3]], [[1, 2.5], [3, 4]], [[1, -2], [3, 4]]])
    def test_refuses_what_is_not_a_table_of_counts(self, bad):
        with pytest.raises(ValueError):
            mcnemar_pvalues(bad)


class TestEnumeration:
    @pytest.mark.parametrize("n", [1, 7, 60])
    @pytest.mark.parametrize(("p01", "p10"), [(0.1, 0.3), (0.0, 0.4), (0.5, 0.5), (0.0, 0.0)])
    def test_discordant_law_is_the_multinomial(self, n, p01, p10):
        n01, n10, prob = discordant_law(n, p01, p10)
        assert prob.sum() == pytest.approx(1.0, abs=1e-13)
        ref = stats.multinomial.pmf(np.stack([n01, n10, n - n01 - n10], axis=1), n,
                                    [p01, p10, 1 - p01 - p10])
        np.testing.assert_allclose(prob, ref, rtol=1e-10)

    def test_a_large_n_costs_the_bulk_of_its_law_only(self):
        n01, n10, prob = discordant_law(5000, 0.1, 0.1)
        assert len(prob) == 229272  # of 12,507,501 outcomes
        assert prob.sum() == pytest.approx(1.0, abs=1e-12)

    @pytest.mark.parametrize("n", [30, 100, 200])
    def test_mcnemar_sizes_equal_the_plain_enumeration(self, n):
        p01, p10 = _discordant_cells(EXACT_NULL)
        got = mcnemar_rejection_rates(n, p01, p10, ALPHAS)
        ref = naive.mcnemar_rejection_enumerated(n, p01, p10, ALPHAS)
        for name in MCNEMAR_TESTS:
            np.testing.assert_allclose(got[name], ref[name], rtol=0, atol=1e-12)

    def test_mcnemar_power_equals_the_plain_enumeration(self):
        got = mcnemar_rejection_rates(100, 0.05, 0.12, ALPHAS)
        ref = naive.mcnemar_rejection_enumerated(100, 0.05, 0.12, ALPHAS)
        for name in MCNEMAR_TESTS:
            np.testing.assert_allclose(got[name], ref[name], rtol=0, atol=1e-12)
        assert got["mcnemar-exact"][1] == pytest.approx(0.3156, abs=1e-4)

    def test_the_earlier_reference_agrees(self):
        for name in ("mcnemar", "mcnemar-exact", "mcnemar-midp"):
            assert mcnemar_rejection_rates(30, 0.1345, 0.1345)[name] == pytest.approx(
                naive.mcnemar_exact_size(30, 0.269, 0.05, name), abs=1e-12)

    @pytest.mark.parametrize(("n", "p_greater", "p_tie"),
                             [(15, 0.5, 0.0), (20, 0.4, 0.2), (40, 0.3, 0.3), (25, 0.6, 0.1)])
    def test_sign_test_equals_the_plain_enumeration(self, n, p_greater, p_tie):
        np.testing.assert_allclose(
            sign_rejection_rates(n, p_greater, p_tie, ALPHAS),
            naive.sign_rejection_enumerated(n, p_greater, p_tie, ALPHAS), rtol=0, atol=1e-12)
        if p_tie == 0.0:
            assert sign_rejection_rates(n, p_greater) == pytest.approx(
                naive.sign_test_exact_size(n, 0.05), abs=1e-12)

    def test_rates_are_steps_in_alpha(self):
        alphas = np.linspace(0.0, 1.0, 201)
        rates = mcnemar_rejection_rates(50, 0.2, 0.2, alphas)
        for name in MCNEMAR_TESTS:
            assert np.all(np.diff(rates[name]) >= 0) and rates[name][-1] == pytest.approx(1.0)
            assert np.all(rates[name] <= alphas + 1e-12) or name in ("mcnemar-uncorrected",
                                                                     "mcnemar-midp")
        assert rejection_rates([0.2, 0.5], [0.5, 0.5], 0.2) == 0.5

    @pytest.mark.parametrize(("args", "match"), [((0, 0.1, 0.1), "integer"),
                                                 ((10, 0.7, 0.5), "at most 1"),
                                                 ((10, -0.1, 0.1), "probability"),
                                                 ((10**5, 0.3, 0.3), "MAX_OUTCOMES")])
    def test_refuses(self, args, match):
        with pytest.raises(ValueError, match=match):
            mcnemar_rejection_rates(*args)


def _within_4_mcse(rate, exact, reps):
    return abs(rate - exact) <= 4 * np.sqrt(exact * (1 - exact) / reps)


def _mcnemar_simulated_vs_exact(ns, reps, seed):
    p01, p10 = _discordant_cells(EXACT_NULL)
    res = run_study(make_design(**{**EXACT_NULL.to_dict(), "n": list(ns)}), "paired-classifiers",
                    list(MCNEMAR_TESTS), n_reps=reps, seed=seed)
    assert set(res.summary["truth"]) == {"null"}
    for row in res.summary.itertuples():
        exact = mcnemar_rejection_rates(int(row.n), p01, p10, 0.05)[row.criterion]
        assert _within_4_mcse(row.rate, exact, reps), (row.n, row.criterion, row.rate, exact)


def test_mcnemar_simulated_sizes_within_4_mcse_of_exact():
    _mcnemar_simulated_vs_exact((30, 100, 200), reps=20_000, seed=27)


@pytest.mark.slow
def test_mcnemar_simulated_sizes_within_4_mcse_of_exact_paper_scale():
    _mcnemar_simulated_vs_exact((30, 100, 200, 500), reps=200_000, seed=28)


@pytest.mark.parametrize(("mean_diff", "rho"), [(0.0, 0.0), (0.4, 0.5)])
def test_sign_test_simulated_rate_within_4_mcse_of_exact(mean_diff, rho):
    # paired Gaussian scores: P(A > B) = Phi(mean_diff / sd(A - B)), no tie
    n, reps = 15, 20_000
    p_greater = stats.norm.cdf(mean_diff / np.sqrt(2 - 2 * rho))
    res = run_study(make_design(n=n, mean_diff=mean_diff, rho=rho), "paired-normal", ["sign"],
                    n_reps=reps, seed=29)
    assert _within_4_mcse(res.summary["rate"].iloc[0], sign_rejection_rates(n, p_greater), reps)


def test_sign_test_with_ties_within_4_mcse_of_exact():
    # scores on three levels: the differences tie with probability 0.3
    n, reps = 20, 20_000
    rng = np.random.default_rng(30)
    d = rng.choice([-1, 0, 1], size=(reps, n), p=[0.3, 0.3, 0.4])
    batch = Batch(d.astype(float), np.zeros((reps, n)), paired=True)
    rate = get_criterion("sign")(batch, None).decisions(0.05).mean()
    assert _within_4_mcse(rate, sign_rejection_rates(n, 0.4, 0.3), reps)


def _criterion(name, paired):
    test = get_criterion(name)
    return lambda a, b: test(Batch(a, b, paired=paired), None).pvalues()


class TestRankTests:
    @pytest.mark.parametrize("n", [6, 10, 13])
    def test_signed_rank_under_a_continuous_null(self, n):
        got = continuous_null_rejection_rates(_criterion("wilcoxon", True), n)
        assert got == pytest.approx(naive.signed_rank_exact_size(n, 0.05), abs=1e-12)
        scipy_test = continuous_null_rejection_rates(
            lambda a, b: stats.wilcoxon(a - b, axis=1).pvalue, n, alpha=ALPHAS)
        np.testing.assert_allclose(
            continuous_null_rejection_rates(_criterion("wilcoxon", True), n, alpha=ALPHAS),
            scipy_test, rtol=0, atol=1e-12)

    @pytest.mark.parametrize(("n_a", "n_b"), [(5, 7), (8, 8), (3, 10)])
    def test_mann_whitney_under_a_continuous_null(self, n_a, n_b):
        pmf = naive.u_null_pmf(n_a, n_b)
        low, high = np.cumsum(pmf), np.cumsum(pmf[::-1])[::-1]
        ref = pmf[np.minimum(1.0, 2 * np.minimum(low, high)) <= 0.05 + 1e-12].sum()
        got = continuous_null_rejection_rates(_criterion("mann-whitney", False), n_a, n_b)
        assert got == pytest.approx(ref, abs=1e-12)

    def test_sign_test_on_three_levels_is_the_binomial_law(self):
        got = paired_discrete_rejection_rates(_criterion("sign", True), 30, [-1, 0, 1],
                                              [0.3, 0.3, 0.4], ALPHAS)
        np.testing.assert_allclose(got, sign_rejection_rates(30, 0.4, 0.3, ALPHAS), rtol=0,
                                   atol=1e-12)

    @pytest.mark.parametrize("probs", [[0.3, 0.4, 0.3], [0.2, 0.3, 0.5]])
    def test_signed_rank_with_ties_equals_every_sequence(self, probs):
        # the counts of each value are sufficient: every sequence of 5 differences, in order
        values = [-1.0, 0.0, 2.0]
        got = paired_discrete_rejection_rates(_criterion("wilcoxon", True), 5, values, probs,
                                              alpha=0.2)
        ref = naive.sequences_rejection(lambda d: stats.wilcoxon(d).pvalue if d.any()
                                        else np.nan, [5], values, [probs], 0.2)
        assert got == pytest.approx(ref, abs=1e-12)

    def test_mann_whitney_with_ties_equals_every_sequence(self):
        values, probs_a, probs_b = [0.0, 1.0, 2.0], [0.2, 0.3, 0.5], [0.4, 0.4, 0.2]
        got = two_sample_discrete_rejection_rates(_criterion("mann-whitney", False), 3, 4,
                                                  values, probs_a, probs_b, alpha=0.2)
        ref = naive.sequences_rejection(lambda a, b: stats.mannwhitneyu(a, b).pvalue, [3, 4],
                                        values, [probs_a, probs_b], 0.2)
        assert got == pytest.approx(ref, abs=1e-12)

    def test_refuses_too_many_outcomes(self):
        with pytest.raises(ValueError, match="MAX_OUTCOMES"):
            continuous_null_rejection_rates(_criterion("wilcoxon", True), 30)


def _rate(name, a, b, paired):
    return get_criterion(name)(Batch(a, b, paired=paired), None).decisions(0.05).mean()


def test_rank_tests_simulated_within_4_mcse_of_exact():
    reps, rng = 20_000, np.random.default_rng(31)
    # continuous nulls
    a, b = rng.normal(size=(2, reps, 10))
    exact = continuous_null_rejection_rates(_criterion("wilcoxon", True), 10)
    assert _within_4_mcse(_rate("wilcoxon", a, b, True), exact, reps)
    a, b = rng.exponential(size=(reps, 6)), rng.exponential(size=(reps, 7))
    exact = continuous_null_rejection_rates(_criterion("mann-whitney", False), 6, 7)
    assert _within_4_mcse(_rate("mann-whitney", a, b, False), exact, reps)
    # scores on a few levels, ties and zeros: 16 pairs (normal approximation), and 8 + 8
    values, probs = [-2, -1, 0, 1, 2], [0.1, 0.15, 0.3, 0.25, 0.2]
    d = rng.choice(values, size=(reps, 16), p=probs).astype(float)
    exact = paired_discrete_rejection_rates(_criterion("wilcoxon", True), 16, values, probs)
    assert _within_4_mcse(_rate("wilcoxon", d, np.zeros_like(d), True), exact, reps)
    levels, probs_a, probs_b = [1, 2, 3], [0.1, 0.3, 0.6], [0.3, 0.5, 0.2]
    a = rng.choice(levels, size=(reps, 8), p=probs_a).astype(float)
    b = rng.choice(levels, size=(reps, 8), p=probs_b).astype(float)
    exact = two_sample_discrete_rejection_rates(_criterion("mann-whitney", False), 8, 8,
                                                levels, probs_a, probs_b)
    assert _within_4_mcse(_rate("mann-whitney", a, b, False), exact, reps)
