import importlib
import os
import subprocess
import sys
import threading

import cloudpickle
import naive
import numpy as np
import pytest
import scipy.stats
from scipy import stats

from evalmc.criteria import get_criterion, load_criterion, load_function
from evalmc.criteria.base import CriterionResult, UserCriterion
from evalmc.criteria.nonparametric import u_null_sf
from evalmc.sims.base import Batch
from evalmc.study.rates import make_design, run_study

RNG_SEEDS = [0, 1, 2]
USER_FILE = """
SCALE = {scale}


def helper(x):
    return {body}


def crit(a, b):
    return bool(helper(a.mean()) > b.mean())
"""


def _batch(seed, n_a, n_b, *, rounded=False, paired=False):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.3, 1.0, (40, n_a))
    b = rng.normal(0.0, 2.0, (40, n_b))
    if rounded:  # ties, and zero paired differences
        a, b = np.round(a), np.round(b)
    return Batch(a, b, paired=paired)


class TestAgainstScipy:
    @pytest.mark.parametrize("seed", RNG_SEEDS)
    def test_paired_t(self, seed):
        batch = _batch(seed, 9, 9, paired=True)
        ref = stats.ttest_rel(batch.a, batch.b, axis=1)
        res = get_criterion("paired-t")(batch, None)
        np.testing.assert_allclose(res.statistic, ref.statistic, rtol=1e-12)
        np.testing.assert_allclose(res.pvalues(), ref.pvalue, rtol=1e-10)
        loop = [naive.t_paired(x, y) for x, y in zip(batch.a, batch.b, strict=True)]
        np.testing.assert_allclose(res.statistic, loop, rtol=1e-10)

    @pytest.mark.parametrize("seed", RNG_SEEDS)
    @pytest.mark.parametrize(("name", "equal_var"), [("student-t", True), ("welch-t", False)])
    def test_two_sample_t(self, seed, name, equal_var):
        batch = _batch(seed, 7, 13)
        ref = stats.ttest_ind(batch.a, batch.b, axis=1, equal_var=equal_var)
        res = get_criterion(name)(batch, None)
        np.testing.assert_allclose(res.statistic, ref.statistic, rtol=1e-12)
        np.testing.assert_allclose(res.pvalues(), ref.pvalue, rtol=1e-10)

    def test_student_t_matches_naive_loop(self):
        batch = _batch(5, 6, 8)
        loop = [naive.t_student(x, y) for x, y in zip(batch.a, batch.b, strict=True)]
        np.testing.assert_allclose(get_criterion("student-t")(batch, None).statistic, loop,
                                   rtol=1e-10)

    @pytest.mark.parametrize("seed", RNG_SEEDS)
    @pytest.mark.parametrize(("n_a", "n_b"), [(4, 6), (8, 30), (9, 12), (25, 40)])
    @pytest.mark.parametrize("rounded", [False, True])
    def test_mann_whitney(self, seed, n_a, n_b, rounded):
        batch = _batch(seed, n_a, n_b, rounded=rounded)
        res = get_criterion("mann-whitney")(batch, None)
        ref = [stats.mannwhitneyu(x, y) for x, y in zip(batch.a, batch.b, strict=True)]
        np.testing.assert_allclose(res.statistic, [r.statistic for r in ref], rtol=1e-12)
        np.testing.assert_allclose(res.pvalues(), [r.pvalue for r in ref], rtol=1e-9, atol=1e-15)
        loop = [naive.u_statistic(x, y) for x, y in zip(batch.a, batch.b, strict=True)]
        np.testing.assert_allclose(res.statistic, loop)

    @pytest.mark.parametrize("seed", RNG_SEEDS)
    @pytest.mark.parametrize("rounded", [False, True])
    def test_sign(self, seed, rounded):
        batch = _batch(seed, 12, 12, rounded=rounded, paired=True)
        d = batch.a - batch.b
        ref = [
            stats.binomtest(int((r > 0).sum()), int((r != 0).sum())).pvalue if (r != 0).any()
            else 1.0
            for r in d
        ]
        np.testing.assert_allclose(get_criterion("sign")(batch, None).pvalues(), ref, rtol=1e-12)

    @pytest.mark.parametrize(("n1", "n2"), [(1, 5), (3, 4), (5, 5), (6, 8), (2, 9)])
    def test_exact_u_distribution_by_enumeration(self, n1, n2):
        sf = np.cumsum(naive.u_null_pmf(n1, n2)[::-1])[::-1]
        np.testing.assert_allclose(u_null_sf(n1, n2), sf, rtol=1e-12)
        np.testing.assert_allclose(u_null_sf(n2, n1), sf, rtol=1e-12)


class TestDegenerate:
    def test_zero_variance_is_a_recorded_failure(self):
        batch = Batch(np.ones((2, 5)), np.ones((2, 5)), paired=True)
        res = get_criterion("paired-t")(batch, None)
        assert res.failed.tolist() == [True, True]
        assert res.errors[0] == "no result (degenerate sample)"
        assert not res.decisions(0.05).any()

    def test_sign_test_without_nonzero_difference_does_not_reject(self):
        batch = Batch(np.ones((1, 5)), np.ones((1, 5)), paired=True)
        assert get_criterion("sign")(batch, None).pvalues().tolist() == [1.0]


# Exact sizes under each criterion's null, against which the Monte Carlo rate is checked.
def _mw_exact_pvalue(n1, n2):
    pmf = naive.u_null_pmf(n1, n2)
    return lambda u: min(1.0, 2 * pmf[int(max(u, n1 * n2 - u)):].sum())


def _mw_asymptotic_pvalue(n1, n2):
    s = np.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
    return lambda u: min(1.0, 2 * stats.norm.sf((max(u, n1 * n2 - u) - n1 * n2 / 2 - 0.5) / s))


SIZE_CASES = [
    ("paired-t", "paired-normal", {"n": 8, "rho": 0.6, "sd_b": 2.0}, 0.05),
    ("student-t", "normal", {"n_a": 6, "n_b": 9}, 0.05),
    ("welch-t", "normal", {"n_a": 10, "n_b": 40, "sd_a": 3.0}, 0.05),
    ("mann-whitney", "normal", {"n_a": 5, "n_b": 7},
     naive.mann_whitney_exact_size(5, 7, 0.05, _mw_exact_pvalue(5, 7))),
    ("mann-whitney", "skew-normal", {"n_a": 9, "n_b": 10},
     naive.mann_whitney_exact_size(9, 10, 0.05, _mw_asymptotic_pvalue(9, 10))),
    ("sign", "paired-normal", {"n": 15}, naive.sign_test_exact_size(15, 0.05)),
]


@pytest.mark.parametrize(("criterion", "scenario", "params", "exact"), SIZE_CASES)
def test_size_under_null_within_4_mcse_of_exact(criterion, scenario, params, exact):
    reps = 40_000
    res = run_study(make_design(**params), scenario, [criterion], n_reps=reps, seed=11)
    rate = res.summary["rate"].iloc[0]
    assert res.summary["truth"].iloc[0] == "null"
    assert abs(rate - exact) <= 4 * np.sqrt(exact * (1 - exact) / reps)


def test_exact_sizes_are_the_known_values():
    # The references themselves: the sign test at n = 15 and the small-sample U test are
    # exactly conservative; the values are textbook-checkable sums of binomial / U pmfs.
    assert naive.sign_test_exact_size(15, 0.05) == pytest.approx(0.0351563, abs=1e-6)
    assert SIZE_CASES[3][3] < 0.05


def test_fixed_seed_regression_values():
    res = run_study(make_design(n_a=6, n_b=9), "normal", ["student-t", "welch-t", "mann-whitney"],
                    n_reps=5000, seed=3)
    rejections = (res.summary["rate"] * res.summary["n_reps"]).round().astype(int)
    assert rejections.tolist() == [252, 231, 235]


class TestUserCriterion:
    def test_pvalue_and_decision_returns(self):
        batch = _batch(0, 5, 5)
        res = UserCriterion(lambda a, b: float(stats.ttest_ind(a, b).pvalue))(batch, None)
        np.testing.assert_allclose(res.pvalues(), stats.ttest_ind(batch.a, batch.b, axis=1).pvalue)
        dec = UserCriterion(lambda a, b: bool(a.mean() > b.mean()))(batch, None)
        assert dec.decisions(0.05).tolist() == (batch.a.mean(1) > batch.b.mean(1)).tolist()

    def test_bad_returns_and_raises_are_recorded(self):
        batch = _batch(0, 5, 5)
        res = UserCriterion(lambda a, b: 1.5)(batch, None)
        assert res.failed.all()
        assert "expected a p-value (a float in [0, 1]) or a decision" in res.errors[0]
        res = UserCriterion(lambda a, b: 1 / 0)(batch, None)
        assert res.errors[3] == "ZeroDivisionError: division by zero"

    def test_rng_is_passed_when_accepted(self):
        seen = []
        UserCriterion(lambda a, b, rng: seen.append(rng) or 0.5)(_batch(0, 3, 3), "the-rng")
        assert seen[0] == "the-rng"

    def test_load_from_file(self, tmp_path):
        path = tmp_path / "mine.py"
        path.write_text("def always(a, b):\n    '''Rejects always.'''\n    return True\n")
        crit = load_criterion(f"{path}:always")
        assert crit.name == f"{path}:always" and crit.description == "Rejects always."
        assert get_criterion(f"{path}:always").func(None, None) is True

    def test_key_changes_with_code(self):
        assert UserCriterion(lambda a, b: 0.1).key != UserCriterion(lambda a, b: 0.2).key

    def test_key_changes_with_a_helper_or_a_global_of_a_user_file(self, tmp_path):
        path = tmp_path / "mine.py"
        spec = f"{path}:crit"
        keys = []
        for scale, body in [(1.0, "x * SCALE"), (1.0, "x * SCALE"), (1.0, "x * SCALE + 0"),
                            (2.0, "x * SCALE")]:
            path.write_text(USER_FILE.format(scale=scale, body=body))
            keys.append(load_criterion(spec).key)
        assert keys[0] == keys[1]  # unchanged file, same key
        assert len(set(keys[1:])) == 3  # edited helper, then edited global: new keys

    def test_key_changes_with_a_helper_of_an_importable_module(self, tmp_path, monkeypatch):
        monkeypatch.syspath_prepend(str(tmp_path))
        path = tmp_path / "evalmc_test_helper_mod.py"
        path.write_text(USER_FILE.format(scale=1.0, body="x * SCALE"))
        module = importlib.import_module("evalmc_test_helper_mod")
        try:
            before = UserCriterion(module.crit).key
            path.write_text(USER_FILE.format(scale=1.0, body="x * SCALE + 1"))
            importlib.reload(module)
            assert UserCriterion(module.crit).key != before
            # registered by value for the digest only
            assert module.__name__ not in cloudpickle.list_registry_pickle_by_value()
        finally:
            del sys.modules["evalmc_test_helper_mod"]

    def test_key_does_not_depend_on_where_the_file_lies(self, tmp_path):
        keys = []
        for folder in ("here", "there/deeper"):
            path = tmp_path / folder / "mine.py"
            path.parent.mkdir(parents=True)
            path.write_text(USER_FILE.format(scale=1.0, body="x * SCALE"))
            keys.append(UserCriterion(load_function(f"{path}:crit"), name="crit").key)
        assert keys[0] == keys[1]  # the same file elsewhere draws the same streams

    def test_key_of_a_function_from_an_installed_package_is_by_reference(self):
        assert UserCriterion(scipy.stats.ttest_ind).key == UserCriterion(
            scipy.stats.ttest_ind).key
        assert "scipy.stats._stats_py" not in cloudpickle.list_registry_pickle_by_value()

    def test_key_of_an_unpicklable_function_names_the_criterion(self):
        lock = threading.Lock()
        crit = UserCriterion(lambda a, b: lock.locked(), name="locked")
        with pytest.raises(ValueError, match="criterion 'locked' cannot be pickled by value"):
            _ = crit.key

    def test_key_is_stable_across_processes(self, tmp_path):
        path = tmp_path / "mine.py"
        path.write_text(USER_FILE.format(scale=1.0, body="x * SCALE"))
        (tmp_path / "evalmc_test_other_mod.py").write_text(
            USER_FILE.format(scale=1.0, body="x * SCALE"))
        script = ("import sys; from evalmc.criteria import load_criterion, UserCriterion; "
                  "import evalmc_test_other_mod as m; "
                  "print(load_criterion(sys.argv[1]).key, UserCriterion(m.crit).key)")
        env = {**os.environ, "PYTHONPATH": str(tmp_path)}
        keys = [subprocess.run([sys.executable, "-c", script, f"{path}:crit"], env=env,
                               capture_output=True, text=True, check=True).stdout.split()
                for _ in range(2)]
        assert keys[0] == keys[1] and len(keys[0]) == 2
        assert keys[0][0] == load_criterion(f"{path}:crit").key


class TestErrors:
    def test_unknown_name(self):
        with pytest.raises(ValueError, match="unknown criterion 'tt'; valid names: paired-t"):
            get_criterion("tt")

    def test_not_callable(self):
        with pytest.raises(ValueError, match="`criterion` must be a name or a callable"):
            UserCriterion(3)

    def test_missing_file(self, tmp_path):
        with pytest.raises(ValueError, match="`criterion` file '.*nope.py' does not exist"):
            get_criterion(f"{tmp_path}/nope.py:f")

    def test_missing_function(self, tmp_path):
        (tmp_path / "m.py").write_text("x = 1\n")
        with pytest.raises(ValueError, match="has no function 'f'"):
            load_criterion(f"{tmp_path}/m.py:f")

    def test_file_that_fails_to_import(self, tmp_path):
        (tmp_path / "bad.py").write_text("import not_a_module_anywhere\n")
        with pytest.raises(ValueError, match="failed to import: ModuleNotFoundError"):
            load_criterion(f"{tmp_path}/bad.py:f")


def test_result_concat_keeps_null_and_arrays():
    parts = [CriterionResult.from_statistic(np.array([0.5, 3.0]), ("t", (5,))),
             CriterionResult.from_statistic(np.array([np.nan]), ("t", (5,)))]
    joined = CriterionResult.concat(parts)
    assert joined.null == ("t", (5,)) and joined.failed.tolist() == [False, False, True]
    assert joined.decisions(0.05).tolist() == [False, True, False]


@pytest.mark.parametrize("scale", [1e100, 1e153, 5e153, 1e-160])
def test_welch_holds_at_scores_near_the_float_range(scale):
    """Satterthwaite's df squares squared standard errors (overflow from sds near 1e77, and
    the squared deviations of sds near 1e154): Welch's p-value, the t oracle and the Welch
    interval of scores times `scale` are those of the scores, rescaled (scipy's own
    ttest_ind gives p = 1 or an infinite interval there)."""
    from evalmc.criteria.outperform import t_oracle
    from evalmc.estimators.intervals import get_estimator

    rng = np.random.default_rng(0)
    a, b = rng.normal(1.0, 1.0, (3, 8)), rng.normal(0.0, 1.5, (3, 6))
    ref = stats.ttest_ind(a, b, axis=1, equal_var=False)
    batch = Batch(a * scale, b * scale, paired=False)
    res = get_criterion("welch-t")(batch, None)
    assert not res.failed.any()
    rtol = 1e-6 if scale > 1 else 1e-2  # near 1e-160 the variances are subnormal
    np.testing.assert_allclose(res.pvalues(), ref.pvalue, rtol=rtol)
    np.testing.assert_allclose(t_oracle(batch).pvalue, stats.ttest_ind(
        a, b, axis=1, equal_var=False, alternative="greater").pvalue, rtol=rtol)
    interval = get_estimator("welch-interval")(batch, None)
    low, high = ref.confidence_interval(0.95)
    np.testing.assert_allclose(interval.low / scale, low, rtol=rtol)
    np.testing.assert_allclose(interval.high / scale, high, rtol=rtol)


def test_welch_on_the_normal_scenario_at_sds_near_1e154():
    """The scenario's sample variances at sd 1e153 are those at sd 1, scaled (sd^2 chi2
    overflowed before the division by n - 1); at sd 1e154 a replication whose variance is
    truly beyond the floats fails saying so, not as a degenerate sample."""
    from evalmc.criteria.ttests import OVERFLOW_ERROR
    from evalmc.sims.scores import Normal

    def pvalues(sd, seed=3):
        batch = Normal(n_a=8, n_b=8, sd_a=sd, sd_b=sd).draw(np.random.default_rng(seed), 400)
        return get_criterion("welch-t")(batch, None)

    np.testing.assert_allclose(pvalues(1e153).pvalues(), pvalues(1.0).pvalues(), rtol=1e-9)
    near = pvalues(1e154)
    assert near.failed.any() and not near.failed.all()
    assert set(near.errors.values()) == {OVERFLOW_ERROR}
    np.testing.assert_allclose(near.pvalues()[~near.failed], pvalues(1.0).pvalues()[~near.failed],
                               rtol=1e-9)
