"""``evalmc plan``: the solved size and minimum detectable effect against statsmodels' closed
forms for the t-tests, determinism over workers, the size beside the power, bad input, the
command line and its figure."""

import json
import math

import numpy as np
import pytest
from statsmodels.stats.power import TTestIndPower, TTestPower

from evalmc.cli import main
from evalmc.study.plan import PlanResult, _probit, plan

# rho = 0.5 and unit sds: the paired differences have sd 1, so shift is Cohen's d
PAIRED = {"shift": 0.5, "rho": 0.5}


@pytest.mark.parametrize("target", [0.5, 0.8, 0.9])
def test_paired_t_size_holds_the_exact_answer(target):
    exact = math.ceil(TTestPower().solve_power(0.5, nobs=None, alpha=0.05, power=target))
    res = plan("paired-normal", "paired-t", solve="n", power=target, params=PAIRED, seed=1)
    assert res.ci_low <= exact <= res.ci_high
    assert abs(res.value - exact) <= 1
    assert res.converged and res.bradley == "robust" and not res.notes
    assert res.n_reps <= 30_000  # a few points, not a grid
    assert abs(res.power - target) < 4 * res.power_mcse + 0.02


@pytest.mark.parametrize("target", [0.5, 0.8, 0.9])
def test_two_sample_t_with_tied_groups_holds_the_exact_answer(target):
    exact = math.ceil(TTestIndPower().solve_power(1.0, nobs1=None, alpha=0.05, power=target))
    res = plan("normal", "student-t", solve="n_a", tie=["n_b"], power=target,
               params={"shift": 1.0}, seed=2)
    assert res.ci_low <= exact <= res.ci_high
    assert res.tie == ["n_b"] and res.kind == "integer"


@pytest.mark.parametrize("n", [10, 30])
def test_paired_t_minimum_detectable_effect(n):
    exact = TTestPower().solve_power(None, nobs=n, alpha=0.05, power=0.8)
    res = plan("paired-normal", "paired-t", solve="shift", params={"n": n, "rho": 0.5},
               seed=3)
    assert res.kind == "effect"
    assert res.ci_low <= exact <= res.ci_high
    assert (res.ci_high - res.ci_low) / 2 <= 0.05 * res.value
    assert res.null == {"shift": 0.0} and res.bradley == "robust"


def test_same_plan_with_one_or_two_workers():
    one = plan("paired-normal", "paired-t", solve="n", params=PAIRED, seed=5, n_jobs=1)
    two = plan("paired-normal", "paired-t", solve="n", params=PAIRED, seed=5, n_jobs=2)
    assert one.summary().equals(two.summary())
    assert one.points.equals(two.points)


def test_a_liberal_criterion_is_flagged():
    # Student's t-test at twice its level: half its two-sided p-value judged at 0.05
    def liberal(a, b):
        from scipy.stats import ttest_ind

        return ttest_ind(a, b).pvalue / 2

    res = plan("normal", liberal, solve="n_a", tie=["n_b"], params={"shift": 1.0},
               seed=1, max_reps=40_000)
    assert res.bradley == "liberal"
    assert any("liberal" in note for note in res.notes)


def test_the_cap_stops_the_plan_and_says_so():
    res = plan("paired-normal", "paired-t", solve="shift", params={"n": 20}, tol=0.001,
               max_reps=6000, seed=1)
    assert not res.converged and res.n_reps <= 6000 + 4000
    assert any("cap" in note for note in res.notes)


def test_a_target_reached_at_low_says_so():
    res = plan("paired-normal", "paired-t", solve="n", params={"shift": 3.0, "rho": 0.5},
               low=10)
    assert (res.value, res.ci_low, res.ci_high) == (10, 10, 10)
    assert "at most that" in res.notes[0]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"power": 1.2}, "`power` must be"),
    ({"power": 0.0}, "`power` must be"),
    ({"power": 0.04}, "`power` must exceed `alpha`"),
    ({"alpha": 1.5}, "`alpha` must be"),
    ({"solve": "m"}, "`solve` must be a parameter of scenario 'paired-normal'"),
    ({"solve": "n", "params": {"n": 10, "shift": 0.5}}, "`n` is the parameter solved"),
    ({"solve": "n", "params": {}}, "the alternative is the null"),
    ({"solve": "n", "low": 2.5}, "`low` must be a positive integer"),
    ({"solve": "n", "low": 10, "high": 5}, "`high` must exceed `low`"),
    ({"solve": "n", "params": {"bogus": 1}}, "unknown parameter `bogus`"),
    ({"solve": "n", "tie": ["rho"]}, "`tie` must name integer parameters"),
    ({"solve": "n", "high": 4}, "raise `high`"),
])
def test_bad_input_names_the_parameter(kwargs, message):
    args = {"solve": "n", "params": {"shift": 0.5}, **kwargs}
    with pytest.raises(ValueError, match=message):
        plan("paired-normal", "paired-t", **args)


def test_a_scenario_without_an_effect_needs_a_null():
    with pytest.raises(ValueError, match="has no `shift` or `delta` parameter: give `null`"):
        plan("multi-dataset", "friedman", solve="n_datasets", params={"spread": 1.0})


def test_the_probit_fit_recovers_its_curve():
    from scipy.stats import norm

    u = np.log(np.array([4.0, 8.0, 16.0, 32.0]))
    n = np.full(4, 10**6)
    k = np.round(norm.cdf(-3 + 1.2 * u) * n)
    (b0, b1), cov = _probit(u, k, n)
    assert abs(b0 + 3) < 0.01 and abs(b1 - 1.2) < 0.005 and cov.shape == (2, 2)
    assert _probit(u, np.array([0, 0, 10**6, 10**6]), n) is None  # a jump: no curve


def test_command_line_table_json_and_figure(tmp_path, capsys):
    args = ["plan", "--scenario", "paired-normal", "--param", "shift=0.5", "--param",
            "rho=0.5", "--criterion", "paired-t", "--solve", "n", "--seed", "1", "--quiet"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("paired-normal, paired-t at alpha 0.05: smallest n with power 0.8")
    figure = tmp_path / "curve.png"
    assert main([*args, "--format", "json", "--out", str(tmp_path / "p.json"),
                 "--plot", str(figure)]) == 0
    data = json.loads((tmp_path / "p.json").read_text())
    assert data["ci_low"] <= 34 <= data["ci_high"] and data["bradley"] == "robust"
    assert figure.stat().st_size > 10_000
    assert isinstance(plan("paired-normal", "paired-t", solve="n", params=PAIRED, seed=1),
                      PlanResult)


@pytest.mark.parametrize(("extra", "message"), [
    (["--solve", "nope"], "`solve` must be a parameter"),
    (["--solve", "n", "--power", "2"], "`power` must be"),
    (["--solve", "n", "--low", "2.5"], "`--low` must be an integer"),
    (["--solve", "n", "--param", "n=10"], "`n` is the parameter solved"),
    (["--solve", "n", "--null", "shift=0,1"], "`--null` shift takes one value"),
])
def test_command_line_bad_input_exits_2(extra, message, capsys):
    args = ["plan", "--scenario", "paired-normal", "--param", "shift=0.5", "--criterion",
            "paired-t", "--quiet", *extra]
    assert main(args) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_interval_coverage_over_seeds():
    """95% intervals over 20 seeds: a solved size's (conservative, being of integers) and a
    minimum detectable effect's. Over 40 seeds when written: 40/40 and 37/40."""
    exact = math.ceil(TTestPower().solve_power(0.5, nobs=None, alpha=0.05, power=0.8))
    sizes = [plan("paired-normal", "paired-t", solve="n", params=PAIRED, seed=s)
             for s in range(20)]
    assert sum(r.ci_low <= exact <= r.ci_high for r in sizes) >= 17  # P(< 17) < 2% at 95%
    mde = TTestPower().solve_power(None, nobs=20, alpha=0.05, power=0.8)
    effects = [plan("paired-normal", "paired-t", solve="shift", params={"n": 20, "rho": 0.5},
                    seed=s) for s in range(20)]
    assert sum(r.ci_low <= mde <= r.ci_high for r in effects) >= 16  # P(< 16) < 0.3%
