"""Keep rules of research loops: the scenario, the rules against a plain-Python transcription,
the study's numbers against quadrature, fixed-seed regression values, and bad input."""

import naive
import numpy as np
import pytest
from scipy import stats

from evalmc.criteria import get_criterion
from evalmc.sims.loops import Loop
from evalmc.study.gate import run_gate

RULES = ["keep-noise-floor", "keep-ratchet", "keep-t", "keep-bonferroni", "keep-holm",
         "keep-t(test=paired)", "keep-bonferroni(test=paired)", "keep-holm(test=paired)",
         "keep-noise-floor(k=0.5)"]


def test_the_exact_values_by_quadrature_are_the_issues():
    per, any_keep, keeps = naive.noise_floor_exact(2.0, 50)
    assert (round(per, 5), round(any_keep, 5), round(keeps, 4)) == (0.13641, 0.56976, 6.8204)
    assert round(naive.expected_max_normal_quad(51), 4) == 2.2568
    assert naive.expected_max_normal_quad(51) == pytest.approx(naive.expected_max_normal(51),
                                                               abs=1e-8)


@pytest.mark.parametrize("mode", ["fixed", "replace"])
@pytest.mark.parametrize("rule", RULES)
def test_a_rule_keeps_what_the_plain_loop_keeps(rule, mode):
    if "holm" in rule and mode == "replace":
        pytest.skip("holm needs a fixed baseline")
    loop = Loop(candidates=8, runs=3, base_runs=3, share=0.25, gain=1.5, rho=0.3,
                baseline=mode)
    batch = loop.draw(np.random.default_rng(11), 60)
    crit = get_criterion(rule)
    out = crit.test.keeps(batch)
    t = crit.test
    for r in range(batch.n_reps):
        kept, score, truth = naive.keep_loop(t.method, batch.b[r], batch.cand[r],
                                             batch.effects[r], mode, t.k, t.alpha, t.test)
        assert out.kept[r].tolist() == kept, r
        assert out.score[r] == pytest.approx(score, abs=1e-12)
        assert out.truth[r] == pytest.approx(truth, abs=1e-12)
    assert out.kept.any() and not out.kept.all()  # the comparison decided something
    np.testing.assert_array_equal(crit(batch, None).reject, out.kept.any(axis=1))


def test_the_issues_numbers_within_3_mcse_of_quadrature():
    """The README's commands: 200,000 null loops, K = 50 (and K = 1: per candidate)."""
    per, any_keep, keeps = naive.noise_floor_exact(2.0, 50)
    frame = run_gate(rules=["keep-noise-floor", "keep-ratchet"], n_reps=200_000, seed=0,
                     progress=False).set_index("rule")
    floor, ratchet = frame.loc["keep-noise-floor"], frame.loc["keep-ratchet"]
    assert abs(floor.any_false - any_keep) <= 3 * floor.any_false_mcse
    assert abs(floor.false_keeps - keeps) <= 3 * floor.false_keeps_mcse
    top = naive.expected_max_normal_quad(51)
    assert abs(ratchet.overstatement - top) <= 3 * ratchet.overstatement_mcse
    one = run_gate({"candidates": 1}, ["keep-noise-floor"], n_reps=200_000, seed=0,
                   progress=False).iloc[0]
    assert abs(one.any_false - per) <= 3 * one.any_false_mcse
    # the fixed-seed values the README prints
    assert (floor.any_false, round(floor.false_keeps, 4), round(ratchet.overstatement, 4),
            one.any_false) == (0.56749, 6.8121, 2.2562, 0.13538)


def test_a_paired_t_keeps_a_null_candidate_at_alpha_and_bonferroni_holds_the_loop():
    """Paired t on null candidates against a fixed baseline: each kept with probability alpha
    exactly; Bonferroni's P(any) at most alpha (binomial tests against both)."""
    params = {"candidates": 10, "runs": 4, "base_runs": 4, "rho": 0.5}
    frame = run_gate(params, ["keep-t(test=paired)", "keep-bonferroni(test=paired)"],
                     n_reps=20_000, seed=3, progress=False).set_index("rule")
    keeps = int(round(frame.loc["keep-t(test=paired)", "false_keeps"] * 20_000))
    # candidates of one loop share the baseline: test the mean's z with its own MCSE
    row = frame.loc["keep-t(test=paired)"]
    assert abs(row.false_keeps / 10 - 0.05) <= 4 * row.false_keeps_mcse / 10, keeps
    bonf = frame.loc["keep-bonferroni(test=paired)"]
    k = int(round(bonf.any_false * 20_000))
    assert stats.binomtest(k, 20_000, 0.05, alternative="greater").pvalue > 1e-3


def test_the_power_of_a_paired_t_is_the_noncentral_ts():
    """One real candidate of effect 1 among 9 nulls, 4 runs paired by seed (rho 0.5) against
    a fixed baseline: it is kept with probability P(T' > t_{1 - alpha}), T' noncentral t(3)
    of noncentrality 1 / sqrt(2 (1 - rho) / 4) (alpha / K for Bonferroni)."""
    params = {"candidates": 10, "runs": 4, "base_runs": 4, "rho": 0.5, "share": 0.1}
    rules = ["keep-t(test=paired)", "keep-bonferroni(test=paired)"]
    n = 20_000
    frame = run_gate(params, rules, n_reps=n, seed=5, progress=False).set_index("rule")
    nc = 1.0 / np.sqrt(2 * 0.5 / 4)
    for rule, alpha in zip(rules, (0.05, 0.005), strict=True):
        exact = stats.nct.sf(stats.t.ppf(1 - alpha, 3), 3, nc)
        kept = int(round(frame.loc[rule, "power"] * n))
        assert stats.binomtest(kept, n, exact).pvalue > 1e-3, (rule, kept / n, exact)
    assert (frame["runs"] == 4 + 10 * 4).all() and (frame["runs_mcse"] == 0).all()


def test_fixed_seed_values_of_every_rule():
    params = {"candidates": 20, "runs": 3, "base_runs": 3, "share": 0.1, "gain": 2.0}
    frame = run_gate(params, RULES, n_reps=2000, seed=2, progress=False).set_index("rule")
    got = frame[["any_false", "false_keeps", "power", "overstatement"]].round(4)
    assert got.to_dict("split")["data"] == [
        [0.3025, 1.9025, 0.515, 0.4315],     # keep-noise-floor
        [0.6405, 1.284, 0.7018, 0.4029],     # keep-ratchet
        [0.2665, 0.689, 0.5755, 0.425],      # keep-t
        [0.0195, 0.0235, 0.0458, 0.0941],    # keep-bonferroni
        [0.02, 0.025, 0.0465, 0.0941],       # keep-holm
        [0.394, 0.8695, 0.4998, 0.4],        # keep-t(test=paired)
        [0.039, 0.043, 0.0348, 0.083],       # keep-bonferroni(test=paired)
        [0.0395, 0.0445, 0.035, 0.0831],     # keep-holm(test=paired)
        [0.7005, 5.9875, 0.8725, 0.4948],    # keep-noise-floor(k=0.5)
    ]


def test_results_do_not_depend_on_the_workers():
    args = dict(rules=["keep-noise-floor", "keep-t"], n_reps=3000, seed=4, progress=False,
                block_size=500)
    params = {"runs": 2, "share": 0.1, "baseline": "replace"}
    one = run_gate(params, **args)
    two = run_gate(params, n_jobs=2, **args)
    assert one.equals(two)


@pytest.mark.parametrize(("params", "rule", "message"), [
    ({"base_runs": 1}, "keep-noise-floor", "the noise-floor rule needs `base_runs` >= 2"),
    ({"runs": 3}, "keep-t(test=paired)", "`runs` must equal `base_runs`; got 3 and 2"),
    ({}, "keep-t", "a t rule needs `runs` >= 2 and `base_runs` >= 2; got 1 and 2"),
    ({"runs": 2, "baseline": "replace"}, "keep-holm", "it needs `baseline='fixed'`"),
    ({"share": 1.5}, "keep-ratchet", "`share` must be"),
    ({"baseline": "ratchet"}, "keep-ratchet", "`baseline` must be one of 'fixed', 'replace'"),
    ({"rho": 1.0}, "keep-ratchet", "`rho` must be"),
    ({}, "welch-t", "criterion 'welch-t' needs scores; scenario 'loop' yields loop"),
    ({}, "keep-t(test=exact)", "`test` must be one of 'welch', 'paired'"),
    ({}, "keep-noise-floor(k=-1)", "`k` must be"),
])
def test_bad_input_is_named(params, rule, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[")):
        run_gate(params, [rule], n_reps=10, progress=False)


@pytest.mark.parametrize(("argv", "message"), [
    (["--runs", "0"], "`--runs` must be an integer >= 1; got 0."),
    (["--rule", "keep-t"], "a t rule needs `--runs` >= 2 and `--base-runs` >= 2; got 1 and 2."),
    (["--base-runs", "3", "--runs", "2", "--rule", "keep-t(test=paired)"],
     "`--runs` must equal `--base-runs`; got 2 and 3."),
    (["--share", "2"], "`--share` must be"),
    (["--reps", "0"], "`--reps` must be at least 1; got 0."),
    (["--rule", "welch-t"], "criterion 'welch-t' needs scores; scenario 'loop' yields loop."),
])
def test_the_command_refuses_bad_input_in_one_line(argv, message, capsys):
    from evalmc.cli import main

    assert main(["gate", "--quiet", "--reps", "10", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_the_command_runs_the_rules_that_fit_the_design(capsys):
    from evalmc.cli import main

    assert main(["gate", "--quiet", "--reps", "50", "--format", "csv"]) == 0
    rules = [line.split(",")[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert rules == ["keep-noise-floor", "keep-ratchet"]
    assert main(["gate", "--quiet", "--reps", "50", "--format", "csv", "--runs", "2",
                 "--baseline", "replace"]) == 0
    rules = [line.split(",")[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert rules == ["keep-noise-floor", "keep-ratchet", "keep-t", "keep-bonferroni"]


def test_holm_keeps_what_bonferroni_keeps_and_more():
    loop = Loop(candidates=10, runs=4, base_runs=4, share=0.3, gain=1.5)
    batch = loop.draw(np.random.default_rng(1), 2000)
    holm = get_criterion("keep-holm").test.keeps(batch).kept
    bonf = get_criterion("keep-bonferroni").test.keeps(batch).kept
    assert (holm >= bonf).all() and (holm > bonf).sum() > 10


def test_a_loop_of_null_candidates_is_a_null_for_every_rule():
    """Its truth comes from its real candidates (the scenario has no single effect of A over
    B): a rate study's keep rule on null loops is judged as a false-keep rate."""
    assert Loop().effect is None
    assert [Loop(**p).truth_for("greater") for p in ({}, {"share": 0.1}, {"share": 0.1,
                                                                           "gain": 0.0})] == [
        "null", "alternative", "null"]



def test_real_effects_drawn_from_a_normal_are_what_gain_sd_says():
    """With ``gain_sd`` the real candidates' effects are N(gain, gain_sd^2) (mean and sd within
    4 standard errors); ``gain_sd=0`` draws the loops as before, bit for bit."""
    batch = Loop(candidates=10, share=0.5, gain=0.5, gain_sd=1.0).draw(
        np.random.default_rng(4), 4000)
    effects = batch.effects[batch.effects != 0]  # the placed ones: a normal is never 0
    n = effects.size
    assert n == 4000 * 5
    assert abs(effects.mean() - 0.5) < 4 / np.sqrt(n)
    assert abs(effects.std() - 1.0) < 4 * np.sqrt(0.5 / n)
    plain = Loop(candidates=10, share=0.5, gain=0.5).draw(np.random.default_rng(4), 3)
    same = Loop(candidates=10, share=0.5, gain=0.5, gain_sd=0.0).draw(np.random.default_rng(4), 3)
    assert np.array_equal(plain.cand, same.cand) and np.array_equal(plain.effects, same.effects)


def test_a_real_candidate_drawn_below_zero_counts_as_false():
    """A placed candidate whose drawn effect is <= 0 is not real: keeping it is a false keep
    (fixed-seed values of a loop of such draws)."""
    table = run_gate({"candidates": 10, "share": 0.5, "gain": 0.0, "gain_sd": 1.0, "runs": 3,
                      "base_runs": 3}, ["keep-t"], n_reps=2000, seed=1, progress=False)
    row = table.iloc[0]
    assert (row["any_false"], round(row["power"], 4)) == (0.15, 0.1916)  # fixed seed
