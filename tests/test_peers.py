"""Peer tools as criteria (``module:function``) and vectorized user criteria."""

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from evalmc import get_criterion, run_study
from evalmc.criteria import UserCriterion
from evalmc.sims.base import Batch
from evalmc.study.rates import make_design


def test_scipy_wilcoxon_makes_the_same_rejections_as_the_builtin():
    res = run_study(make_design(n=10, shift=[0.0, 0.8]), "paired-normal",
                    ["scipy.stats:wilcoxon", "wilcoxon"], n_reps=2000, seed=12,
                    alpha=[0.01, 0.05])
    rates = res.summary.pivot_table(index=["shift", "alpha"], columns="criterion",
                                    values="rate")
    np.testing.assert_array_equal(rates["scipy.stats:wilcoxon"], rates["wilcoxon"])
    assert rates["wilcoxon"].max() > 0.3  # the power rows reject: a check that can fail


def test_a_function_with_an_axis_is_called_once_per_block():
    calls = []

    def welch(a, b, axis):
        calls.append(a.shape)
        return stats.ttest_ind(a, b, equal_var=False, axis=axis)

    crit = get_criterion(welch)
    assert crit.vectorized
    res = run_study(make_design(n_a=6, n_b=9), "normal", [crit, "welch-t"], n_reps=2500,
                    seed=3, block_size=1000)
    assert sorted(calls) == [(500, 6), (1000, 6), (1000, 6)]
    assert res.summary["rate"].iloc[0] == res.summary["rate"].iloc[1]


def test_vectorized_and_looped_calls_give_the_same_p_values():
    rng = np.random.default_rng(0)
    batch = Batch(rng.normal(size=(50, 7)), rng.normal(size=(50, 7)), paired=True)

    def looped(a, b):
        return stats.ttest_rel(a, b)

    def vectorized(a, b, axis):
        return stats.ttest_rel(a, b, axis=axis)

    p_loop = UserCriterion(looped)(batch, rng).pvalues()
    p_block = UserCriterion(vectorized)(batch, rng).pvalues()
    np.testing.assert_allclose(p_block, p_loop, rtol=1e-12)
    assert not UserCriterion(vectorized, vectorized=False).vectorized


@pytest.mark.parametrize(("answer", "failed", "message"), [
    (lambda a, b, axis: np.full(a.shape[0] + 1, 0.5), [True] * 4, "shape"),
    (lambda a, b, axis: np.array([0.5, 1.5, np.nan, 0.0]), [False, True, True, False], "1.5"),
    (lambda a, b, axis: 1 / 0, [True] * 4, "ZeroDivisionError"),
])
def test_a_bad_vectorized_answer_fails_its_replications(answer, failed, message):
    rng = np.random.default_rng(1)
    batch = Batch(rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), paired=False)
    res = UserCriterion(answer)(batch, rng)
    np.testing.assert_array_equal(res.failed, failed)
    assert message in res.errors[1]


def test_a_vectorized_decision_is_read_as_a_decision():
    rng = np.random.default_rng(2)
    batch = Batch(rng.normal(size=(5, 3)) + 10, rng.normal(size=(5, 3)), paired=False)
    res = UserCriterion(lambda a, b, axis: a.mean(axis) > b.mean(axis))(batch, rng)
    assert res.decision_only and res.decisions(0.05).all()


@pytest.mark.parametrize("answer", [
    lambda a, b: stats.ttest_ind(a, b),  # a result with a pvalue
    lambda a, b: tuple(stats.ttest_ind(a, b)),  # a (statistic, pvalue) pair
])
def test_results_and_pairs_are_read_as_p_values(answer):
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    res = UserCriterion(answer)(Batch(a, b, paired=False), rng)
    np.testing.assert_allclose(res.pvalues(), stats.ttest_ind(a, b, axis=1).pvalue)


@pytest.mark.parametrize(("spec", "message"), [
    ("no_such_module_xyz:test", "module 'no_such_module_xyz' cannot be imported"),
    ("scipy.stats:no_such_test", "has no function 'no_such_test'"),
])
def test_an_unimportable_peer_is_a_clear_error(spec, message):
    with pytest.raises(ValueError, match=message):
        get_criterion(spec)


def test_an_unimportable_peer_exits_2_without_traceback():
    proc = subprocess.run([sys.executable, "-m", "evalmc", "calibrate", "--scenario", "normal",
                           "--criterion", "no_such_module_xyz:test"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "cannot be imported" in proc.stderr and "Traceback" not in proc.stderr


def test_baycomp_correlated_t_is_read_as_a_decision_on_a_minus_b():
    baycomp = pytest.importorskip("baycomp")
    crit = get_criterion("baycomp:two_on_single")
    assert crit.alternative == "greater" and not crit.vectorized
    rng = np.random.default_rng(4)
    a = rng.normal(size=(40, 10)) + np.linspace(0, 2, 40)[:, None]
    b = rng.normal(size=(40, 10))
    res = crit(Batch(a, b, paired=True), rng)
    # baycomp's posterior of B - A is Student t: P(A - B > 0), by scipy
    d = a - b
    scale = np.sqrt(d.var(axis=1, ddof=1) * (1 / 10 + 1 / 9))
    p_left = stats.t.sf(0, 9, loc=d.mean(axis=1), scale=scale)
    np.testing.assert_array_equal(res.decisions(0.05), p_left > 0.95)
    assert 0 < res.decisions(0.05).sum() < 40
    assert baycomp.two_on_single(a[0], b[0])[0] == pytest.approx(p_left[0], rel=1e-12)


def test_deepsig_aso_gets_a_seed_from_the_replications_stream(monkeypatch):
    """The adapter calls deepsig.aso(a, b, show_progress=False, seed=...) with a seed drawn
    from the replication's stream, and reads eps_min < 0.2 as "A better". deepsig itself
    (3-4 s a call) runs with these arguments in test_aso.py, and through this adapter in the
    README's deepsig example (pytest -m slow)."""
    deepsig = pytest.importorskip("deepsig")
    calls, answers = [], [0.19, 0.2]  # eps_min: "A better" below 0.2 only

    def aso(a, b, **kwargs):
        calls.append((a.copy(), b.copy(), kwargs))
        return answers.pop(0)

    monkeypatch.setattr(deepsig, "aso", aso)
    crit = get_criterion("deepsig:aso")
    assert crit.alternative == "greater"
    rng = np.random.default_rng(5)
    a, b = rng.normal(1.5, 1, (1, 8)), rng.normal(0, 1, (1, 8))
    seed = int(np.random.default_rng(6).integers(2**31))
    for better in (True, False):
        calls.clear()
        res = crit(Batch(a, b, paired=False), np.random.default_rng(6))
        ((x, y, kwargs),) = calls
        np.testing.assert_array_equal(x, a[0])
        np.testing.assert_array_equal(y, b[0])
        assert kwargs == {"show_progress": False, "seed": seed}
        assert res.decisions(0.05)[0] == better


def test_an_adapter_passes_a_seed_reads_the_answer_and_documents_the_criterion():
    from evalmc.criteria.peers import ADAPTERS, Adapter

    def peer(a, b, seed):
        """The peer's own words."""
        return float(np.mean(a) - np.mean(b))

    crit = Adapter(lambda gap: gap > 0.5, seed_kwarg="seed").wrap(peer)
    assert crit(np.array([2.0, 3.0]), np.array([1.0, 1.0]), np.random.default_rng(0)) is True
    assert crit.__doc__ == "The peer's own words."
    assert Adapter(float, note="a note").wrap(peer).__doc__ == "a note"
    assert (ADAPTERS["deepsig:aso"].seed_kwarg, ADAPTERS["deepsig:aso"].alternative) == (
        "seed", "greater")
