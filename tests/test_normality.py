import numpy as np
import pytest
from scipy import special, stats

from evalmc.stats.groups import anova, f_test_variances, pairwise
from evalmc.stats.normality import (
    anderson_darling,
    ks_normal,
    lilliefors,
    q_ks,
    shapiro_wilk,
)

#: The paper's K-S values (D, P), all from N = 100 runs: teacher task K = 1, 5, 10, 15 (train,
#: test), then Mackey-Glass FIR no gains, FIR gains, IIR gains and MLP (train, test).
PAPER_D_P = [(0.25, 8.3e-6), (0.25, 6.3e-6), (0.26, 1.9e-6), (0.25, 3.3e-6), (0.17, 0.0045),
             (0.17, 0.0071), (0.19, 0.0015), (0.12, 0.088), (0.34, 1.3e-10), (0.39, 6.8e-14),
             (0.18, 0.0035), (0.17, 0.0054), (0.28, 2.5e-7), (0.28, 2.2e-7), (0.066, 0.76),
             (0.052, 0.95)]


def _p_of_d(d, n=100):
    return q_ks((np.sqrt(n) + 0.12 + 0.11 / np.sqrt(n)) * d)


class TestQKS:
    def test_matches_scipy_kolmogorov(self):
        x = np.linspace(0.3, 4.0, 60)
        np.testing.assert_allclose(q_ks(x), special.kolmogorov(x), rtol=1e-7, atol=1e-300)

    def test_first_terms_by_hand(self):
        x = 1.1
        by_hand = 2 * (np.exp(-2 * x * x) - np.exp(-8 * x * x) + np.exp(-18 * x * x))
        assert q_ks(x) == pytest.approx(by_hand, rel=1e-9)

    def test_small_argument_is_one(self):
        # At 0 the series never settles: 1 by convention; at 0.05 it settles within a term.
        assert q_ks(0.0) == 1.0 and q_ks(0.05) == pytest.approx(1.0, abs=1e-7)

    @pytest.mark.parametrize(("d", "p"), PAPER_D_P)
    def test_reproduces_the_papers_p_for_its_d(self, d, p):
        # The paper rounds D to its printed digits and P to two significant digits: the range
        # of Q_KS over D +- half a unit must meet P +- half a unit.
        half_d = 0.0005 if d < 0.1 else 0.005
        half_p = 0.5 * 10.0 ** (np.floor(np.log10(p)) - 1)
        assert _p_of_d(d + half_d) <= p + half_p and p - half_p <= _p_of_d(d - half_d)

    def test_negative_argument(self):
        with pytest.raises(ValueError, match=r"`x` must be finite and non-negative\."):
            q_ks([-0.1])


class TestKSNormal:
    @pytest.mark.parametrize("seed", [0, 1, 2])
    def test_distance_matches_scipy(self, seed):
        x = np.random.default_rng(seed).gamma(2.0, size=57)
        z = (x - x.mean()) / x.std(ddof=1)
        res = ks_normal(x)
        assert res.statistic == pytest.approx(stats.kstest(z, "norm").statistic, rel=1e-12)
        assert res.pvalue == pytest.approx(_p_of_d(res.statistic, 57), rel=1e-12)

    def test_fixed_seed_regression(self):
        res = ks_normal(np.random.default_rng(42).exponential(size=30))
        assert (res.statistic, res.pvalue) == pytest.approx(
            (0.18193183646239264, 0.24719254105876176), rel=1e-10)

    def test_conservative_on_gaussian_samples_where_lilliefors_is_exact(self):
        # Estimating the mean and sd from the sample makes Q_KS's P too large (size < alpha);
        # Lilliefors' null distribution accounts for it: size within 4 MCSE of 5%.
        rng = np.random.default_rng(7)
        reps, alpha = 2000, 0.05
        samples = rng.standard_normal((reps, 20))
        ks = np.array([ks_normal(s).pvalue for s in samples])
        lf = np.array([lilliefors(s).pvalue for s in samples])
        mcse = np.sqrt(alpha * (1 - alpha) / reps)
        assert (ks <= alpha).mean() < alpha - 4 * mcse
        assert abs((lf <= alpha).mean() - alpha) <= 4 * mcse

    def test_rejects_a_clearly_skewed_sample(self):
        assert ks_normal(np.random.default_rng(3).exponential(size=500)).pvalue < 1e-3

    @pytest.mark.parametrize(("x", "match"), [
        ([1.0, 2.0], r"`x` must be a 1-D sample of at least 3 values; got shape \(2,\)\."),
        ([1.0, np.nan, 2.0], r"`x` must hold finite values only\."),
        ([2.0, 2.0, 2.0], r"`x` must not be constant"),
    ])
    def test_bad_samples(self, x, match):
        with pytest.raises(ValueError, match=match):
            ks_normal(x)


class TestOtherNormalityTests:
    def test_shapiro_and_anderson_are_scipys(self):
        x = np.random.default_rng(4).standard_normal(40)
        assert shapiro_wilk(x).pvalue == stats.shapiro(x).pvalue
        ref = stats.anderson(x, method="interpolate")
        assert anderson_darling(x).statistic == ref.statistic
        assert anderson_darling(x).pvalue == ref.pvalue


class TestGroups:
    def test_f_test_by_formula(self):
        rng = np.random.default_rng(5)
        a, b = rng.normal(0, 1, 10), rng.normal(0, 2, 12)
        f, p = f_test_variances(a, b)
        assert f == pytest.approx(np.var(a, ddof=1) / np.var(b, ddof=1), rel=1e-12)
        assert p == pytest.approx(2 * stats.f(9, 11).cdf(f), rel=1e-12)

    def test_f_test_size(self):
        rng = np.random.default_rng(6)
        reps = 4000
        p = np.array([f_test_variances(rng.standard_normal(10), rng.standard_normal(10))[1]
                      for _ in range(reps)])
        assert abs((p <= 0.05).mean() - 0.05) <= 4 * np.sqrt(0.05 * 0.95 / reps)

    def test_pairwise_and_anova_match_scipy(self):
        rng = np.random.default_rng(8)
        groups = [rng.normal(m, 1, 10) for m in (0.0, 0.3, 1.5)]
        frame = pairwise(groups, labels=["x", "y", "z"])
        assert list(zip(frame["a"], frame["b"], strict=True)) == [("x", "y"), ("x", "z"),
                                                                  ("y", "z")]
        assert frame["t_p"][1] == pytest.approx(stats.ttest_ind(groups[0], groups[2]).pvalue)
        assert frame["tukey_p"][2] == pytest.approx(stats.tukey_hsd(*groups).pvalue[1, 2])
        assert anova(groups) == pytest.approx(tuple(stats.f_oneway(*groups)))

    def test_group_errors(self):
        with pytest.raises(ValueError, match=r"`groups` must hold at least 2 samples; got 1\."):
            anova([[1.0, 2.0]])
        with pytest.raises(ValueError, match=r"group 1 has shape \(1,\)"):
            pairwise([[1.0, 2.0], [3.0]])
        with pytest.raises(ValueError, match=r"`labels` must name each of the 2 groups; got 1"):
            pairwise([[1.0, 2.0], [3.0, 1.0]], labels=["a"])
