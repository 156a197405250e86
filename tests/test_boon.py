import boon as authors
import naive
import numpy as np
import pytest
from scipy import stats

from evalmc.estimators.boon import (
    _resample_kernel,
    boo_n,
    boo_n_bivariate_normal,
    boo_n_discrete,
    boo_n_normal,
    boon_interval,
    boon_nonparametric,
    boon_parametric,
    nonparametric_weights,
)

TIED_VAL = np.array([1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 0.5])
TIED_TEST = np.array([5.0, 1.0, 2.0, 7.0, 3.0, 4.0, 9.0])


class TestOfDistributions:
    def test_paper_constants_and_closed_forms(self):
        assert boo_n_normal(1) == pytest.approx(0.0, abs=1e-12)
        assert boo_n_normal(2) == pytest.approx(1 / np.sqrt(np.pi), rel=1e-12)
        assert boo_n_normal(5) == pytest.approx(1.16296, abs=1e-5)
        assert boo_n_normal(10) == pytest.approx(1.53875, abs=1e-5)

    @pytest.mark.parametrize("n", [3, 50, 1000, 10_000])
    def test_normal_against_trapezoid_rule(self, n):
        assert boo_n_normal(n) == pytest.approx(naive.expected_max_normal(n), rel=1e-8)

    def test_normal_against_simulation(self):
        maxima = np.random.default_rng(0).standard_normal((4000, 10_000)).max(axis=1)
        se = maxima.std(ddof=1) / np.sqrt(maxima.size)
        assert abs(maxima.mean() - boo_n_normal(10_000)) <= 4 * se

    @pytest.mark.parametrize("n", [1, 4, 100, 10_000])
    def test_exponential_max_is_harmonic_number_and_min_is_one_over_n(self, n):
        assert boo_n(stats.expon(), n) == pytest.approx(np.sum(1 / np.arange(1, n + 1)), rel=1e-9)
        assert boo_n(stats.expon(), n, best="min") == pytest.approx(1 / n, rel=1e-9)

    def test_conditional_mean_gives_eq6(self):
        mu_v, sd_v, mu_t, sd_t, rho = 70.0, 2.0, 68.0, 0.7, 0.4

        def cond(x):
            return mu_t + rho * sd_t / sd_v * (x - mu_v)

        for best in ("max", "min"):
            eq5 = boo_n(stats.norm(mu_v, sd_v), 7, conditional_mean=cond, best=best)
            assert eq5 == pytest.approx(boo_n_bivariate_normal(mu_t, sd_t, rho, 7, best=best),
                                        rel=1e-10)

    def test_discrete_against_enumeration(self):
        values, probs = np.array([0.0, 1.0, 2.0, 1.0]), np.array([0.2, 0.3, 0.3, 0.2])
        pmf = dict(zip(range(4), probs, strict=True))
        for best, pick in (("max", max), ("min", min)):
            brute = sum(np.prod([pmf[i] for i in draw]) * pick(values[list(draw)])
                        for draw in __import__("itertools").product(range(4), repeat=3))
            assert boo_n_discrete(values, probs, n=3, best=best) == pytest.approx(brute)


class TestNonparametric:
    @pytest.mark.parametrize("n", [1, 2, 3, 4])
    @pytest.mark.parametrize("best", ["max", "min"])
    def test_equals_brute_force_with_ties(self, n, best):
        ours = boon_nonparametric(TIED_TEST, TIED_VAL, n=n, best=best)
        assert ours == pytest.approx(naive.boon_brute_force(TIED_VAL, TIED_TEST, n, best),
                                     rel=1e-12)
        assert ours == pytest.approx(authors.boo(TIED_VAL, TIED_TEST, n=n, best=best), rel=1e-12)

    def test_weights_sum_to_one_and_single_evaluation(self):
        assert nonparametric_weights(TIED_VAL, n=5).sum() == pytest.approx(1.0, abs=1e-15)
        x = np.array([3.0, 1.0, 2.0])
        assert boon_nonparametric(x, n=1) == pytest.approx(2.0)
        assert boon_nonparametric(x, n=50) == pytest.approx(3.0 - (2 / 3) ** 50, rel=1e-12)

    def test_exact_where_integer_powers_overflow(self):
        rng = np.random.default_rng(3)
        val, test = rng.normal(size=100), rng.normal(size=100)
        reference = naive.boon_eq7(val, test, 10)
        assert boon_nonparametric(test, val, n=10) == pytest.approx(reference, rel=1e-12)
        # 100^10 > 2^63: the authors' package silently returns a wrong value here.
        assert abs(authors.boo(val, test, n=10) - reference) > 1e-3

    def test_million_runs_n_100_against_independent_float_computation(self):
        rng = np.random.default_rng(4)
        val = rng.normal(size=1_000_000)
        test = 0.3 * val + rng.normal(size=1_000_000)
        assert boon_nonparametric(test, val, n=100) == pytest.approx(
            naive.boon_eq7(val, test, 100), rel=1e-10)


def test_parametric_formula():
    rng = np.random.default_rng(5)
    val, test = rng.normal(size=30), rng.normal(size=30)
    rho = stats.pearsonr(val, test)[0]
    expected = test.mean() + rho * test.std(ddof=1) * boo_n_normal(5)
    assert boon_parametric(test, val, n=5) == pytest.approx(expected, rel=1e-12)
    assert boon_parametric(test, n=5) == pytest.approx(
        test.mean() + test.std(ddof=1) * boo_n_normal(5))
    assert boon_parametric(test, val, n=5, best="min") == pytest.approx(
        test.mean() - rho * test.std(ddof=1) * boo_n_normal(5))


class TestIntervals:
    def _data(self, ties=False):
        rng = np.random.default_rng(6)
        val = rng.normal(size=25)
        if ties:
            val = np.round(val)
        return val, 0.5 * val + rng.normal(size=25)

    @pytest.mark.parametrize("ties", [False, True])
    @pytest.mark.parametrize("best", ["max", "min"])
    def test_percentile_replicates_equal_a_plain_resampling_loop(self, ties, best):
        val, test = self._data(ties)
        res = boon_interval(test, val, n=5, n_resamples=300, best=best,
                            seed=np.random.default_rng(7))
        # Same draws, the obvious way: indices into the runs sorted by validation score.
        order = np.argsort((1 if best == "max" else -1) * val, kind="stable")
        picks = np.random.default_rng(7).integers(0, 25, size=(300, 25), dtype=np.int16)
        loop = [boon_nonparametric(test[order][p], val[order][p], n=5, best=best) for p in picks]
        np.testing.assert_allclose(res.replicates, loop, rtol=1e-12)
        params = [boon_parametric(test[order][p], val[order][p], n=5, best=best) for p in picks]
        res_p = boon_interval(test, val, n=5, n_resamples=300, best=best,
                              estimator="parametric", seed=np.random.default_rng(7))
        np.testing.assert_allclose(res_p.replicates, params, rtol=1e-9)

    def test_interval_is_the_percentile_interval(self):
        val, test = self._data()
        res = boon_interval(test, val, n=5, n_resamples=1000, level=0.9,
                            seed=np.random.default_rng(8))
        assert (res.low, res.high) == pytest.approx(np.quantile(res.replicates, [0.05, 0.95]),
                                                    rel=1e-14)
        assert res.estimate == boon_nonparametric(test, val, n=5)

    def test_fixed_seed_regression(self):
        val, test = self._data()
        res = boon_interval(test, val, n=5, n_resamples=2000, seed=np.random.default_rng(9))
        assert (res.low, res.high) == pytest.approx((0.374662207591, 1.372415245498), abs=1e-11)
        sm = boon_interval(test, val, n=5, n_resamples=500, method="smoothed",
                           seed=np.random.default_rng(9))
        assert (sm.low, sm.high) == pytest.approx((0.371570302821, 1.851056532284), abs=1e-11)

    def test_smoothed_replicates_of_the_mean_are_centred_on_it(self):
        _, test = self._data()
        res = boon_interval(test, n=1, n_resamples=4000, method="smoothed",
                            seed=np.random.default_rng(10))
        # n = 1: Boo_1 is the mean; kernel noise and resampling are centred on the sample mean.
        se = res.replicates.std(ddof=1) / np.sqrt(res.replicates.size)
        assert abs(res.replicates.mean() - test.mean()) <= 4 * se

    def test_result_as_a_table_and_a_plot(self):
        from matplotlib.figure import Figure

        val, test = self._data()
        res = boon_interval(test, val, n=5, n_resamples=2000, level=0.9,
                            seed=np.random.default_rng(9))
        frame = res.to_frame()
        assert frame.to_dict("records") == [{
            "estimator": "nonparametric", "n": 5, "estimate": res.estimate, "low": res.low,
            "high": res.high, "level": 0.9, "method": "percentile", "n_resamples": 2000}]
        assert res._repr_html_() == frame.to_html(index=False)
        ax = Figure().add_subplot()
        assert res.plot(ax=ax) is ax.figure
        assert sum(bar.get_height() for bar in ax.containers[0]) == 2000
        assert [line.get_xdata()[0] for line in ax.lines] == [res.estimate]
        span = ax.patches[-1].get_extents().transformed(ax.transData.inverted())
        assert (span.x0, span.x1) == pytest.approx((res.low, res.high))
        assert ax.get_xlabel() == "Boo_5 (nonparametric)"

    def test_kernel_is_deterministic_given_picks(self):
        picks = np.zeros((1, 3), np.int32)
        out = np.empty(1)
        _resample_kernel(picks, np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0]),
                         np.array([0, 1, 2, 3]), np.array([0.0, 1 / 27, 8 / 27, 1.0]), False,
                         True, 1.0, 0.0, out)
        assert out[0] == pytest.approx(1.0)  # three copies of the lowest run


@pytest.mark.parametrize(("call", "match"), [
    (lambda: boo_n(stats.norm(), 0), "`n` must be an integer >= 1; got 0"),
    (lambda: boo_n(stats.norm(), 3, best="top"), "`best` must be one of 'max', 'min'"),
    (lambda: boon_nonparametric([1.0], n=2), "`test` needs at least 2 runs; got 1"),
    (lambda: boon_nonparametric([1.0, np.nan], n=2), "`test` must be a 1-D array of finite"),
    (lambda: boon_nonparametric([1.0, 2.0], [1.0], n=2),
     "`val` and `test` must have one score per run; got 1 and 2"),
    (lambda: boo_n_discrete([1, 2], [0.5, 0.6], n=2), "`probs` must be non-negative"),
    (lambda: boon_interval([1.0, 2.0], n=2, level=1.0, seed=np.random.default_rng()),
     r"`level` must be in \(0, 1\); got 1.0"),
    (lambda: boon_interval([1.0, 2.0], n=2, n_resamples=0, seed=np.random.default_rng()),
     r"`n_resamples` must be an integer in \[1, 10000000\]; got 0"),
    (lambda: boon_interval([1.0, 2.0], n=2, seed=-1), "`seed` must be an integer"),
    (lambda: boon_interval([1.0, 2.0], n=2, method="bca", seed=np.random.default_rng()),
     "`method` must be one of 'percentile', 'smoothed'"),
    (lambda: boon_interval([1.0, 2.0], n=2, estimator="x", seed=np.random.default_rng()),
     "`estimator` must be one of 'nonparametric', 'parametric'"),
    (lambda: boo_n_bivariate_normal(0.0, 1.0, 1.5, 3), r"`rho` must be a number in \[-1, 1\]"),
])
def test_validation(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_boon_interval_seed_is_the_generator_it_seeds():
    runs = np.random.default_rng(0).normal(70.0, 1.0, 30)
    by_int = boon_interval(runs, n=3, n_resamples=200, seed=4)
    by_rng = boon_interval(runs, n=3, n_resamples=200, seed=np.random.default_rng(4))
    assert (by_int.low, by_int.high) == (by_rng.low, by_rng.high)

