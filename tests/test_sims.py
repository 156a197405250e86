from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evalmc.sims import SCENARIOS, get_scenario
from evalmc.sims.base import Batch, row_mean_var
from evalmc.sims.scores import (
    Empirical,
    EmpiricalPaired,
    Mixture,
    Normal,
    PairedNormal,
    SkewNormal,
    ValTest,
)

REPS = 20_000


def _rng(seed=0):
    return np.random.default_rng(seed)


def _within_4_se(estimate, target, se):
    assert abs(estimate - target) <= 4 * se, (estimate, target, se)


def _ks_ok(sample, cdf):
    # A fixed-seed Kolmogorov-Smirnov check: the draws follow the stated distribution.
    assert stats.kstest(sample, cdf).pvalue > 1e-3


class TestNormal:
    def test_scores_have_the_drawn_moments(self):
        batch = Normal(n_a=5, n_b=8, mean_a=1.0, sd_b=2.0).draw(_rng(), 200)
        mean_a, var_a, mean_b, var_b = batch.moments()
        np.testing.assert_allclose(row_mean_var(batch.a), (mean_a, var_a), rtol=1e-10)
        np.testing.assert_allclose(row_mean_var(batch.b), (mean_b, var_b), rtol=1e-10)

    def test_scores_are_iid_gaussian(self):
        s = Normal(n_a=4, n_b=6, mean_a=1.0, sd_a=2.0, mean_b=-1.0, shift=0.5)
        batch = s.draw(_rng(1), REPS)
        _ks_ok(batch.a[:, 0], stats.norm(1.5, 2.0).cdf)
        _ks_ok(batch.b[:, 5], stats.norm(-1.0, 1.0).cdf)
        _within_4_se(np.corrcoef(batch.a[:, 0], batch.a[:, 3])[0, 1], 0.0, 1 / np.sqrt(REPS))
        _within_4_se(np.corrcoef(batch.a[:, 1], batch.b[:, 1])[0, 1], 0.0, 1 / np.sqrt(REPS))

    def test_truth(self):
        assert Normal().truth == "null"
        assert Normal(mean_a=1.0, shift=-1.0).truth == "null"
        assert Normal(shift=0.1).truth == "alternative"

    def test_fixed_seed_regression(self):
        batch = Normal(n_a=3, n_b=3).draw(_rng(42), 2)
        np.testing.assert_allclose(batch.moments()[0], [0.175928488023, -0.600435103691],
                                   rtol=1e-10)


class TestPairedNormal:
    def test_scores_have_the_drawn_moments(self):
        batch = PairedNormal(n=6, rho=0.7, sd_b=3.0, mean_diff=1.0).draw(_rng(), 300)
        mean_a, var_a, mean_b, var_b = batch.moments()
        mean_d, var_d = batch.diff_moments()
        np.testing.assert_allclose(row_mean_var(batch.a), (mean_a, var_a), rtol=1e-9)
        np.testing.assert_allclose(row_mean_var(batch.b), (mean_b, var_b), rtol=1e-9)
        np.testing.assert_allclose(row_mean_var(batch.a, batch.b), (mean_d, var_d), rtol=1e-8)

    @pytest.mark.parametrize("n", [2, 3, 10])
    def test_pairs_are_bivariate_gaussian(self, n):
        s = PairedNormal(n=n, mean_diff=0.5, sd_a=2.0, sd_b=0.5, rho=-0.6)
        batch = s.draw(_rng(2), REPS)
        assert np.isfinite(batch.a).all() and np.isfinite(batch.b).all()
        _ks_ok(batch.a[:, -1], stats.norm(0.5, 2.0).cdf)
        _ks_ok(batch.b[:, 0], stats.norm(0.0, 0.5).cdf)
        se = (1 - 0.36) / np.sqrt(REPS)
        _within_4_se(np.corrcoef(batch.a[:, 0], batch.b[:, 0])[0, 1], -0.6, se)
        _within_4_se(np.corrcoef(batch.a[:, 0], batch.b[:, 1])[0, 1], 0.0, 1 / np.sqrt(REPS))

    def test_rho_rule(self):
        with pytest.raises(ValueError, match=r"`rho` must be in \(-1, 1\); got 1.0"):
            PairedNormal(rho=1.0)


class TestValTest:
    def test_correlation_and_shift(self):
        s = ValTest(n=3, rho=0.8, mu_val=70.0, mu_test=68.0, sd_val=2.0, shift=1.0)
        batch = s.draw(_rng(3), REPS)
        _within_4_se(np.corrcoef(batch.a_val[:, 0], batch.a[:, 0])[0, 1], 0.8,
                     (1 - 0.64) / np.sqrt(REPS))
        _ks_ok(batch.a[:, 2], stats.norm(69.0, 1.0).cdf)
        _ks_ok(batch.b_val[:, 1], stats.norm(70.0, 2.0).cdf)


class TestSkewNormal:
    def test_matches_scipy(self):
        s = SkewNormal(n_a=2, n_b=3, loc=1.0, scale=2.0, skew=-4.0, shift=0.5)
        batch = s.draw(_rng(4), REPS)
        _ks_ok(batch.a[:, 0], stats.skewnorm(-4.0, 1.5, 2.0).cdf)
        _ks_ok(batch.b[:, 2], stats.skewnorm(-4.0, 1.0, 2.0).cdf)

    def test_fixed_seed_regression(self):
        np.testing.assert_allclose(SkewNormal(n_a=2, n_b=2).draw(_rng(42), 1).a,
                                   [[-0.547852184825, -0.49992414796]], rtol=1e-10)


class TestMixture:
    def test_matches_its_cdf(self):
        s = Mixture(weight=0.25, loc1=0.0, loc2=4.0, scale2=0.5)
        batch = s.draw(_rng(5), REPS)
        _ks_ok(batch.b[:, 0], s.cdf)
        _ks_ok(batch.a[:, 9], s.cdf)


class TestEmpirical:
    @pytest.fixture
    def csv(self, tmp_path):
        path = tmp_path / "scores.csv"
        scores = np.random.default_rng(9).gamma(2.0, size=60)
        path.write_text("run,acc\n" + "".join(f"{i},{v}\n" for i, v in enumerate(scores)))
        return path, scores

    def test_draws_follow_the_kernel_density(self, csv):
        path, scores = csv
        s = Empirical(file=str(path), column="acc", n_a=3, n_b=3, shift=0.2)
        kde = stats.gaussian_kde(scores)
        assert s.kernel_sd == pytest.approx(np.sqrt(kde.covariance[0, 0]))
        batch = s.draw(_rng(6), REPS)

        def kde_cdf(x):
            return stats.norm.cdf((np.asarray(x)[:, None] - scores) / s.kernel_sd).mean(axis=1)

        _ks_ok(batch.b[:, 1], kde_cdf)
        _ks_ok(batch.a[:, 0] - 0.2, kde_cdf)

    def test_column_choice_and_bandwidth(self, csv, tmp_path):
        path, scores = csv
        np.testing.assert_array_equal(Empirical(file=str(path)).scores, scores)  # `run`: an id
        two = tmp_path / "two.csv"
        two.write_text("val,acc\n1.5,2.5\n0.5,1.5\n2.5,0.5\n")
        with pytest.raises(ValueError, match=r"`column` must name .* \(columns of numbers: val, "
                                             r"acc"):
            Empirical(file=str(two))
        s = Empirical(file=str(path), column="acc", bandwidth="0.5")
        assert s.kernel_sd == pytest.approx(0.5 * scores.std(ddof=1))

    @pytest.mark.parametrize(("content", "kwargs", "match"), [
        (None, {}, "`file` must be an existing CSV file"),
        ("a\n1\n2\n", {"column": "b"}, "`column` 'b' is not a column of .*; its columns: a"),
        ("a\n1\nx\n3\n", {"column": "a"}, "`column` column 'a' must hold finite numbers .*data "
                                          "row 2 has 'x'"),
        ("a\n1\n\n3\n", {}, ""),
        ("a\n1\nnan\n", {"column": "a"}, "`column` 'a' needs at least 2 distinct scores; got 1 "
                                        "value"),  # the missing value is skipped
        ("a\n1\ninf\n2\n", {"column": "a"}, "`column` column 'a' must hold finite numbers"),
        ("a\n1\n", {}, "`column` 'a' needs at least 2 distinct scores; got 1 value"),
        ("a\nx\ny\n", {}, r"`column` must name the column of scores in .* \(none\)"),
        ("a\n1\n2\n", {"bandwidth": "wide"}, "`bandwidth` must be 'scott', 'silverman' or a"),
        ("a\n1\n2\n", {"bandwidth": "-1"}, r"`bandwidth` must be in \(0, inf\]; got -1.0"),
    ])
    def test_bad_files(self, tmp_path, content, kwargs, match):
        path = tmp_path / "s.csv"
        if content is not None:
            path.write_text(content)
        if not match:  # a blank line is skipped by the CSV reader: valid
            Empirical(file=str(path), **kwargs)
            return
        with pytest.raises(ValueError, match=match):
            Empirical(file=str(path), **kwargs)

    def test_file_required(self):
        with pytest.raises(ValueError, match="`file` is required"):
            Empirical()


class TestEmpiricalPaired:
    # 30 seeds, A better by 0.86 on average, correlation 0.8
    PAIRS = str(Path(__file__).parent / "examples" / "pairs.csv")

    @pytest.fixture
    def data(self):
        import pandas as pd

        return pd.read_csv(self.PAIRS)[["A", "B"]].to_numpy()

    def _scenario(self, **kwargs):
        return EmpiricalPaired(file=self.PAIRS, a="A", b="B", **kwargs)

    def test_draws_have_the_pairs_moments(self, data):
        """Theory of the smoothed bootstrap: mean (A moved to B's mean, plus the shift),
        covariance ``(m - 1) / m S + h^2 S`` (S the pairs' covariance, h Scott's factor), hence
        the pairs' own correlation; each within 4 Monte Carlo standard errors."""
        s = self._scenario(n=10, shift=0.5)
        batch = s.draw(_rng(7), REPS)
        x = np.column_stack([batch.a.ravel(), batch.b.ravel()])  # 200,000 pairs
        m, cov = len(data), np.cov(data.T)
        h2 = len(data) ** (-2 / 6)  # Scott's factor squared, d = 2
        np.testing.assert_allclose(s.kernel_cov, h2 * cov, rtol=1e-12)
        target_cov = (m - 1) / m * cov + h2 * cov
        mean = [data[:, 1].mean() + 0.5, data[:, 1].mean()]
        assert s.a_mean == pytest.approx(mean[0]) and s.effect == 0.5
        se = np.sqrt(target_cov.diagonal() / len(x))
        for k in range(2):
            _within_4_se(x[:, k].mean(), mean[k], se[k])
        centred = x - x.mean(axis=0)
        for i, j in ((0, 0), (0, 1), (1, 1)):
            products = centred[:, i] * centred[:, j]
            _within_4_se(products.mean(), target_cov[i, j], products.std() / np.sqrt(len(x)))
        rho = np.corrcoef(data.T)[0, 1]
        parts = [np.corrcoef(part.T)[0, 1] for part in np.split(x, 100)]  # batch-means error
        _within_4_se(np.corrcoef(x.T)[0, 1], rho, np.std(parts, ddof=1) / 10)
        # the replications' pairs are independent: no correlation from one seed to the next
        _within_4_se(np.corrcoef(batch.a[:, 0], batch.b[:, 1])[0, 1], 0.0, 1 / np.sqrt(REPS))

    def test_differences_follow_scipys_kernel_density(self, data):
        """An independent reference: scipy's gaussian_kde of the re-centred pairs, resampled."""
        s = self._scenario(n=2, bandwidth="silverman", shift=0.3)
        batch = s.draw(_rng(8), REPS)
        diff = batch.a[:, 0] - batch.b[:, 0]
        centred = data - [np.mean(data[:, 0] - data[:, 1]) - 0.3, 0.0]
        ref = stats.gaussian_kde(centred.T, bw_method="silverman").resample(REPS, seed=9)
        assert stats.ks_2samp(diff, ref[0] - ref[1]).pvalue > 1e-3

    def test_null_and_shift(self, data):
        mean_diff = np.mean(data[:, 0] - data[:, 1])
        assert self._scenario().truth == "null" and self._scenario().effect == 0.0
        assert self._scenario(shift=mean_diff).truth == "alternative"
        # shift = the file's mean difference gives the runs back as they are, on average
        batch = self._scenario(shift=mean_diff, n=50).draw(_rng(1), 2000)
        _within_4_se(float(batch.a.mean()), data[:, 0].mean(),
                     np.sqrt(np.var(data[:, 0]) * (1 + 30 ** (-1 / 3)) / batch.a.size))

    def test_fixed_seed_regression(self):
        batch = self._scenario(n=3, shift=0.2).draw(_rng(42), 2)
        assert batch.paired
        np.testing.assert_allclose(batch.a[0], [77.797450425, 71.377570526, 77.646159168],
                                   rtol=1e-10)
        np.testing.assert_allclose(batch.b[1], [75.468329984, 74.45433784, 73.470654088],
                                   rtol=1e-10)

    def test_missing_scores_skip_their_pair(self, tmp_path):
        path = tmp_path / "p.csv"
        path.write_text("seed,a,b\n1,0.9,0.8\n2,,0.7\n3,0.7,0.75\n4,0.95,0.8\n5,0.8,0.7\n")
        s = EmpiricalPaired(file=str(path), a="a", b="b")
        assert s.pairs.tolist() == [[0.9, 0.8], [0.7, 0.75], [0.95, 0.8], [0.8, 0.7]]
        assert "pairs=" in s.fingerprint()

    @pytest.mark.parametrize(("content", "kwargs", "match"), [
        (None, {}, "`file` must be an existing CSV file"),
        ("a,b\n1,2\n", {"b": "b"}, "`a` is required: the column of A's scores; columns of .*: "
                                    "a, b"),
        ("a,b\n1,2\n", {"a": "a"}, "`b` is required"),
        ("a,b\n1,2\n", {"a": "a", "b": "c"}, "`b` 'c' is not a column of .*; its columns: a, b"),
        ("a,b\n1,2\n2,x\n3,1\n", {"a": "a", "b": "b"}, "`b` column 'b' must hold finite "
                                                          "numbers .*data row 2 has 'x'"),
        ("a,b\n1,2\n2,\n3,1\n", {"a": "a", "b": "b"}, "`a` and `b` need at least 3 complete "
                                                         "pairs; .* has 2"),
        ("a,b\n1,2\n2,3\n3,4\n", {"a": "a", "b": "b"}, "`a` and `b` need pairs that do not lie "
                                                          "on one line .*the 3 pairs of .* do"),
        ("a,b\n1,2\n2,2\n3,2\n", {"a": "a", "b": "b"}, "do not lie on one line"),
        ("a,b\n1,2\n2,1\n3,4\n", {"a": "a", "b": "b", "bandwidth": "0"},
         r"`bandwidth` must be in \(0, inf\]; got 0.0"),
        ("a,b\n1,2\n2,1\n3,4\n", {"a": "a", "b": "b", "n": 1}, "`n` must be an integer >= 2"),
    ])
    def test_bad_input(self, tmp_path, content, kwargs, match):
        path = tmp_path / "p.csv"
        if content is not None:
            path.write_text(content)
        with pytest.raises(ValueError, match=match):
            EmpiricalPaired(file=str(path), **kwargs)

    def test_file_required(self):
        with pytest.raises(ValueError, match="`file` is required"):
            EmpiricalPaired()

    def test_studies_run_on_it(self):
        """Paired criteria see pairs (paired-t holds its size; welch-t, blind to the pairing,
        is conservative), and an estimator study finds A's mean where a_mean says."""
        import evalmc

        grid = {"file": self.PAIRS, "a": "A", "b": "B", "n": 10}
        res = evalmc.run_study(grid, "empirical-paired", ["paired-t", "welch-t"],
                               n_reps=4000, seed=2, progress=False).summary
        paired, welch = res["rate"]
        _within_4_se(paired, 0.05, np.sqrt(0.05 * 0.95 / 4000) * 1.5)
        assert welch < 0.02
        est = evalmc.run_estimation({**grid, "shift": 0.5}, "empirical-paired", ["t-interval"],
                                    n_reps=4000, seed=2, progress=False).summary.iloc[0]
        assert est["truth"] == pytest.approx(self._scenario(shift=0.5).a_mean)
        _within_4_se(est["bias"], 0.0, est["bias_mcse"])


@pytest.mark.parametrize(("cls", "kwargs", "match"), [
    (Normal, {"n_a": 1}, r"`n_a` must be an integer >= 2; got 1"),
    (Normal, {"n_b": 2.5}, r"`n_b` must be an integer; got 2.5"),
    (Normal, {"sd_a": 0.0}, r"`sd_a` must be in \(0, inf\]; got 0.0"),
    (Normal, {"mean_b": float("nan")}, "`mean_b` must be finite; got nan"),
    (Normal, {"shift": "x"}, "`shift` must be a real number; got 'x'"),
    (PairedNormal, {"n": 0}, "`n` must be an integer >= 2; got 0"),
    (PairedNormal, {"sd_b": -1.0}, r"`sd_b` must be in \(0, inf\]"),
    (ValTest, {"rho": 1.5}, r"`rho` must be a number in \[-1, 1\]; got 1.5"),
    (ValTest, {"sd_test": 0.0}, r"`sd_test` must be in \(0, inf\]"),
    (SkewNormal, {"scale": -2.0}, r"`scale` must be in \(0, inf\]"),
    (Mixture, {"weight": 1.2}, r"`weight` must be a number in \[0, 1\]; got 1.2"),
    (Mixture, {"scale1": 0.0}, r"`scale1` must be in \(0, inf\]"),
])
def test_parameter_rules(cls, kwargs, match):
    with pytest.raises(ValueError, match=match):
        cls(**kwargs)


def test_integral_floats_become_ints():
    assert Normal(n_a=10.0).n_a == 10 and isinstance(Normal(n_a=10.0).n_a, int)


def test_registry_and_coercion():
    assert {"normal", "paired-normal", "val-test", "skew-normal", "mixture", "empirical",
            "empirical-paired", "pool", "pipelines", "paired-classifiers"} <= set(SCENARIOS)
    with pytest.raises(ValueError, match="unknown scenario 'gauss'; valid names: "
                                         + ", ".join(sorted(SCENARIOS))):
        get_scenario("gauss")
    assert Normal.coerce("n_a", "12") == 12 and Normal.coerce("sd_a", "2") == 2.0
    with pytest.raises(ValueError, match="`n_a` must be an integer; got 'ten'"):
        Normal.coerce("n_a", "ten")
    with pytest.raises(ValueError, match="unknown parameter `n` for scenario 'normal'"):
        Normal.coerce("n", "3")


def test_batch_needs_scores_or_fill():
    with pytest.raises(ValueError, match="a Batch needs scores"):
        Batch(paired=False)
    batch = Batch(np.zeros((3, 2)), np.ones((3, 4)), paired=False)
    assert batch.sizes == (2, 4) and batch.take(1).a.shape == (1, 2)


def test_fixed_seed_regression_of_the_other_scenarios(tmp_path):
    def rng():
        return np.random.default_rng(42)

    batch = PairedNormal(n=3, rho=0.5).draw(rng(), 2)
    np.testing.assert_allclose(batch.moments()[1], [0.086437399698, 1.452660515706], rtol=1e-9)
    np.testing.assert_allclose(batch.a[0], [0.243304318762, 0.430394650835, -0.145913505528],
                               rtol=1e-9)
    batch = ValTest(n=2).draw(rng(), 1)
    np.testing.assert_allclose(batch.a, [[-0.748294115659, 1.189778536201]], rtol=1e-9)
    np.testing.assert_allclose(batch.a_val, [[0.304717079754, 0.750451195806]], rtol=1e-9)
    np.testing.assert_allclose(Mixture(n_a=2, n_b=2).draw(rng(), 1).a,
                               [[-1.03998410624, 0.940564716391]], rtol=1e-9)
    path = tmp_path / "s.csv"
    path.write_text("acc\n1.0\n2.0\n4.0\n")
    np.testing.assert_allclose(Empirical(file=str(path), n_a=2, n_b=2).draw(rng(), 1).a,
                               [[-0.275236820633, 4.920209252466]], rtol=1e-9)


@pytest.mark.parametrize(("name", "params", "truths"), [
    ("normal", {"shift": -0.5}, ("alternative", "null", "alternative")),
    ("normal", {"mean_a": 1.0, "mean_b": 0.5}, ("alternative", "alternative", "null")),
    ("paired-normal", {"mean_diff": 0.0}, ("null", "null", "null")),
    ("skew-normal", {"shift": 1.0}, ("alternative", "alternative", "null")),
    ("paired-classifiers", {"tpr_a": 0.9}, ("alternative", "alternative", "null")),
])
def test_truth_depends_on_what_a_rejection_concludes(name, params, truths):
    """For "A better" (greater), a population where A is worse is a null too."""
    scenario = get_scenario(name)(**params)
    got = tuple(scenario.truth_for(alt) for alt in ("two-sided", "greater", "less"))
    assert got == truths


def test_means_parted_only_by_rounding_are_the_null():
    assert Normal(mean_a=0.7, mean_b=0.8, shift=0.1).truth == "null"  # 0.7 + 0.1 != 0.8


def test_a_huge_skew_is_a_half_normal_not_a_normal():
    from evalmc.sims.kernels import skew_delta

    assert skew_delta(1e200) == 1.0 and skew_delta(-1e200) == -1.0


def test_editing_a_scores_file_changes_the_fingerprint(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text("a,b\n0.91,0.89\n0.93,0.90\n0.90,0.90\n")
    before = (Empirical(file=str(path), column="b").fingerprint(),
              EmpiricalPaired(file=str(path), a="a", b="b").fingerprint())
    path.write_text("a,b\n0.91,0.89\n0.93,0.90\n0.90,0.91\n")
    after = (Empirical(file=str(path), column="b").fingerprint(),
             EmpiricalPaired(file=str(path), a="a", b="b").fingerprint())
    assert before[0] != after[0] and before[1] != after[1]
