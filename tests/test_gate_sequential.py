"""Keep rules that look again: the spending boundaries against published values and scipy's
multivariate normal, the sizes by simulation, Ville's bound under optional stopping (and the
plain t's inflation), the runs spent, and a user's own rule."""

from pathlib import Path

import naive
import numpy as np
import pytest
from scipy import stats

from evalmc.criteria import get_criterion
from evalmc.criteria.gate import user_rule
from evalmc.criteria.sequential import log_mixture_evalue, spending_bounds, spent
from evalmc.sims.loops import Loop
from evalmc.study.gate import run_gate

EXAMPLE = Path(__file__).parent / "examples" / "my_rule.py"


def test_the_bounds_are_the_published_lan_demets_ones():
    """Five equally spaced looks, one-sided 0.025 (two-sided 0.05): the O'Brien-Fleming-type
    and Pocock-type bounds as tabulated for Lan-DeMets spending (Reboussin et al. 2000's
    program; R's gsDesign prints the same), to the 3 decimals printed."""
    t = np.arange(1, 6) / 5
    np.testing.assert_allclose(spending_bounds(0.025, t),
                               [4.877, 3.357, 2.680, 2.290, 2.031], atol=1e-3)
    np.testing.assert_allclose(spending_bounds(0.025, t, "pocock"),
                               [2.438, 2.427, 2.410, 2.397, 2.386], atol=1e-3)


@pytest.mark.parametrize("spending", ["obf", "pocock"])
@pytest.mark.parametrize("fractions", [[0.5, 1], [1 / 3, 2 / 3, 1], [0.25, 0.5, 0.75, 1],
                                       [0.1, 0.35, 0.5, 0.9, 1.0]])
def test_each_look_spends_its_share_by_scipys_multivariate_normal(fractions, spending):
    bounds = spending_bounds(0.05, fractions, spending)
    for look in range(1, len(fractions) + 1):
        crossed = naive.sequential_reject(bounds[:look], np.full(look, -np.inf),
                                          fractions[:look])
        assert crossed == pytest.approx(spent(0.05, fractions[look - 1], spending), abs=5e-5)


@pytest.mark.parametrize(("k", "pocock", "obf"), [(2, 2.178, 1.977), (3, 2.289, 2.004),
                                                  (4, 2.361, 2.024), (5, 2.413, 2.040)])
def test_the_reference_holds_jennison_and_turnbulls_constants(k, pocock, obf):
    """The reference's joint law of the looks gives Jennison and Turnbull's (2000) Tables 2.1
    and 2.3 constants, two-sided 0.05, K equally spaced looks: the level is crossed between
    the constant -0.001 and +0.001 (Pocock: C at every look; O'Brien-Fleming: C sqrt(K / k))."""
    t = np.arange(1, k + 1) / k
    for c, shape in ((pocock, np.ones(k)), (obf, np.sqrt(k / np.arange(1, k + 1)))):
        assert naive.two_sided_crossing((c - 1e-3) * shape, t) > 0.05
        assert naive.two_sided_crossing((c + 1e-3) * shape, t) < 0.05


@pytest.mark.parametrize("z", [-1.0, 0.3, 2.5])
def test_the_e_value_is_the_mixture_likelihood_ratio(z):
    n, m, sd, tau = 6, 10, 2.0, 0.7
    diff = z * sd * np.sqrt(1 / n + 1 / m)
    info = 1 / (1 / n + 1 / m)
    assert np.exp(log_mixture_evalue(z, info, tau)) == pytest.approx(
        naive.mixture_evalue(diff, n, m, sd, tau), rel=1e-8)


LOOKS = {"candidates": 1, "runs": 2, "base_runs": 8, "looks": 4}


def _fractions():
    info = 1 / (1 / (2 * np.arange(1, 5)) + 1 / 8)
    return info / info[-1]


@pytest.mark.parametrize("spending", ["obf", "pocock"])
def test_the_spending_rules_size_is_its_exact_value_within_4_mcse(spending):
    """Null candidate, known sd, 4 looks of 2 runs against 8 baseline runs, discarded when not
    ahead: P(keep) = P(some Z_l >= c_l while every earlier one lay in (0, c)), by scipy's
    multivariate normal; it is below alpha (the discards only lower it)."""
    bounds = spending_bounds(0.05, _fractions(), spending)
    exact = naive.sequential_reject(bounds, np.zeros(4), _fractions())
    rule = f"keep-spending(spending={spending},sd=1)"
    row = run_gate(LOOKS, [rule], n_reps=40_000, seed=1, progress=False).iloc[0]
    assert abs(row.any_false - exact) <= 4 * row.any_false_mcse, (row.any_false, exact)
    assert exact < 0.05
    assert 10 <= row.runs <= 16 and row.runs_mcse > 0


def test_anytime_holds_its_level_under_optional_stopping():
    """Ville: a null candidate, looked at up to 40 times (1 run each, known sd), kept once its
    e-value reaches 1 / alpha: kept with probability at most alpha (within 3 MCSE), and with
    Bonferroni over 5 candidates the loop's P(any false keep) too."""
    params = {"candidates": 1, "runs": 1, "base_runs": 10, "looks": 40}
    rules = ["keep-anytime(sd=1,adjust=none,tau=0.5)", "keep-anytime(sd=1)"]
    one = run_gate(params, rules[:1], n_reps=10_000, seed=2, progress=False).iloc[0]
    assert one.any_false <= 0.05 + 3 * one.any_false_mcse, one.any_false
    five = run_gate({**params, "candidates": 5}, rules[1:], n_reps=4_000, seed=2,
                    progress=False).iloc[0]
    assert five.any_false <= 0.05 + 3 * five.any_false_mcse, five.any_false


def test_a_plain_t_that_looks_again_does_not_hold_its_level():
    """The same peeking with a plain one-sided t at 0.05 at every look (10 looks of 2 runs):
    a null candidate is kept far more often than 5% (binomial test)."""
    params = {"candidates": 1, "runs": 2, "base_runs": 10, "looks": 10}
    row = run_gate(params, ["keep-t"], n_reps=10_000, seed=3, progress=False).iloc[0]
    kept = int(round(row.any_false * 10_000))
    assert stats.binomtest(kept, 10_000, 0.05, alternative="greater").pvalue < 1e-12, kept
    assert row.any_false > 0.1


def test_every_run_read_counts_as_spent():
    """A rule that always looks again spends every run; noise-floor decides at once; the
    fixed-seed values of a loop with looks."""
    loop = Loop(candidates=6, runs=2, base_runs=3, looks=3, share=0.5, gain=1.0)
    batch = loop.draw(np.random.default_rng(4), 500)
    always = user_rule(lambda candidate: np.full(candidate.shape[0], -1)).keeps(batch)
    assert (always.runs == 3 + 6 * 2 * 3).all() and not always.kept.any()
    once = get_criterion("keep-noise-floor").test.keeps(batch)
    assert (once.runs == 3 + 6 * 2).all()
    out = get_criterion("keep-spending(sd=1,adjust=none)").test.keeps(batch)
    first = out.runs - 3  # each candidate's looks, read back from the rule's own answers
    assert first.min() >= 12 and first.max() <= 36 and len(np.unique(first)) > 3
    params = {"candidates": 10, "runs": 2, "base_runs": 4, "looks": 3, "share": 0.2,
              "gain": 1.5, "baseline": "replace"}
    frame = run_gate(params, ["keep-t", "keep-spending(adjust=none)", "keep-anytime"],
                     n_reps=2000, seed=5, progress=False)
    got = frame[["any_false", "power", "runs", "overstatement"]].round(4)
    assert got.to_dict("split")["data"] == [
        [0.2715, 0.5665, 36.071, 0.6422],  # keep-t, peeking
        [0.1715, 0.5438, 38.681, 0.5326],  # keep-spending(adjust=none)
        [0.0, 0.004, 45.59, 0.0207],       # keep-anytime: pooled sd of 2 + 2 runs, alpha / 10
    ]


@pytest.mark.parametrize("mode", ["fixed", "replace"])
def test_a_users_noise_floor_gives_the_registered_numbers(mode):
    params = {"candidates": 20, "runs": 2, "base_runs": 3, "share": 0.1, "gain": 2.0,
              "rho": 0.3, "baseline": mode}
    frame = run_gate(params, ["keep-noise-floor", f"{EXAMPLE}:noise_floor"], n_reps=3000,
                     seed=6, progress=False)
    ours, theirs = frame.drop(columns="rule").to_numpy()
    np.testing.assert_array_equal(ours, theirs)
    assert frame.iloc[0].any_false > 0.1


def test_a_user_rule_that_looks_again():
    """The example's ahead_by_half against the same rule written out in plain Python, loop by
    loop and look by look."""
    loop = Loop(candidates=5, runs=1, base_runs=2, looks=4)
    batch = loop.draw(np.random.default_rng(7), 200)
    out = user_rule(f"{EXAMPLE}:ahead_by_half").keeps(batch)
    for r in range(batch.n_reps):
        kept, spent_runs = [], 2
        for j in range(5):
            for look in range(1, 5):
                spent_runs += 1
                gap = batch.cand[r, j, :look].mean() - batch.b[r].mean()
                if gap >= 0.5 or gap <= 0 or look == 4:
                    kept.append(bool(gap >= 0.5))
                    break
        assert out.kept[r].tolist() == kept and out.runs[r] == spent_runs, r
    assert 0 < out.kept.sum() < out.kept.size


def _wrong_shape(candidate):
    return np.ones((candidate.shape[0], 2), dtype=bool)


def _wrong_values(candidate):
    return np.full(candidate.shape[0], 0.5)


def _raises(candidate):
    raise RuntimeError("boom")


def _unknown(candidate, scores):
    return candidate[:, 0] > 0


@pytest.mark.parametrize(("func", "message"), [
    (_wrong_shape, "returned an array of shape (5, 2) for 5 loops"),
    (_wrong_values, "returned values ['0.5'] (float64)"),
    (_raises, "raised RuntimeError: boom"),
    (_unknown, "has parameters ['scores'] it cannot be given"),
])
def test_a_bad_user_rule_is_named_with_the_contract(func, message):
    with pytest.raises(ValueError) as err:
        run_gate({"candidates": 3}, [func], n_reps=5, progress=False)
    text = str(err.value)
    assert f"keep rule {func.__name__!r}" in text and message in text, text
    assert "True/1 keep, False/0 discard, -1 look again" in text


def test_the_command_refuses_a_bad_user_rule_in_one_line(tmp_path, capsys):
    from evalmc.cli import main

    path = tmp_path / "rules.py"
    path.write_text("def half(candidate):\n    return candidate[:, 0] * 0.5\n")
    assert main(["gate", "--quiet", "--reps", "10", "--rule", f"{path}:half"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "keep rule" in err and "-1 look again" in err, err
    assert main(["gate", "--quiet", "--reps", "10", "--rule", f"{path}:nothing"]) == 2
    assert "has no function 'nothing'" in capsys.readouterr().err


@pytest.mark.parametrize(("params", "rule", "message"), [
    ({"looks": 2, "runs": 2}, "keep-holm", "the holm rule decides once"),
    ({"looks": 2, "runs": 2, "base_runs": 2}, "keep-t(test=paired)",
     "a paired rule pairs each candidate run with a baseline run"),
    ({"looks": 0}, "keep-t", "`looks` must be"),
    ({}, "keep-spending(spending=linear)", "`spending` must be one of 'obf', 'pocock'"),
    ({}, "keep-anytime(adjust=holm)", "`adjust` must be one of 'bonferroni', 'none'"),
    ({}, "keep-anytime(sd=0)", "`sd` must be"),
    ({}, "keep-anytime", "a rule with a plug-in sd needs `runs` >= 2"),
])
def test_bad_sequential_input_is_named(params, rule, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[")):
        run_gate(params, [rule], n_reps=10, progress=False)


def test_looks_and_a_users_rule_do_not_depend_on_the_workers():
    args = dict(rules=["keep-spending(sd=1)", f"{EXAMPLE}:ahead_by_half"], n_reps=1000,
                seed=4, progress=False, block_size=250)
    params = {"candidates": 8, "runs": 2, "looks": 3, "share": 0.1, "baseline": "replace"}
    assert run_gate(params, **args).equals(run_gate(params, n_jobs=2, **args))
