"""Solving keep rules for targets (`evalmc gate --solve`): fixed-seed values, the solved noise
floor against quadrature, the solved Bonferroni alpha against a plain scipy simulation, the
runs search, a target no runs reach, and bad input."""

import math

import naive
import pytest

from evalmc.cli import main
from evalmc.study.gate_solve import solve_gate


def _row(*args, **kwargs):
    return solve_gate(*args, compare=(), **kwargs).table.iloc[0]


def test_fixed_seed_values():
    row = _row({"candidates": 10, "runs": 25}, ["keep-bonferroni"], n_reps=2000, seed=1)
    assert (row.rule, row.runs, row.spent, row.any_false, row.power) == (
        "keep-bonferroni(alpha=0.06493)", 25, 275, 0.037, 0.8215)


def test_the_solved_noise_floor_holds_the_target_by_quadrature():
    """k solved on 10,000 loops, at the safe (upper) end of its interval: its exact P(any
    false keep) is at most the target and within 4 sds of an empirical quantile's coverage
    below it, and the fresh check's rates are the exact ones within 4 MCSE."""
    n = 10_000
    row = _row({"candidates": 5}, ["keep-noise-floor"], power=0.1, effect=3.0, n_reps=n,
               seed=2)
    assert row.ci_low < row.ci_high <= row.value < row.ci_high * 1.001  # rounded up
    any_false, power = naive.noise_floor_solved_exact(row.value, 5, 1, 3.0)
    assert 0.05 - 4 * math.sqrt(0.05 * 0.95 / n) <= any_false <= 0.05
    assert abs(row.any_false - any_false) <= 4 * row.any_false_mcse
    assert abs(row.power - power) <= 4 * row.power_mcse


def test_the_solved_bonferroni_alpha_holds_the_target_on_a_plain_simulation():
    """Welch p-values from scipy on loops drawn apart: P(any false keep) at the solved alpha
    is the target within 4 combined sds (the solve's and the reference's); the nominal
    alpha / K Bonferroni, with the baseline shared, is well below it (what the solve gains)."""
    n = 10_000
    row = _row({"candidates": 10, "runs": 5}, ["keep-bonferroni"], power=0.1, n_reps=n,
               seed=3)
    rate, mcse = naive.bonferroni_any_false(row.value, 10, 5, 5, 20_000, seed=7)
    assert abs(rate - 0.05) <= 4 * math.hypot(mcse, math.sqrt(0.05 * 0.95 / n))
    assert abs(row.any_false - 0.05) <= 4 * math.sqrt(2) * row.any_false_mcse
    nominal, se = naive.bonferroni_any_false(0.05, 10, 5, 5, 20_000, seed=7)
    assert row.value > 0.05 and nominal + 4 * se < 0.05


def test_the_runs_search_finds_the_runs_that_reach_the_power():
    sol = solve_gate({"candidates": 5, "runs": 2}, ["keep-t"], effect=1.5, n_reps=4000,
                     seed=4, compare=())
    row = sol.table.iloc[0]
    assert (row.rule, row.runs, row.base_runs, row.spent) == ("keep-t(alpha=0.01331)", 11, 11,
                                                              66)
    assert row.power + 4 * row.power_mcse >= 0.8 and abs(row.any_false - 0.05) <= 4 * (
        math.sqrt(2) * row.any_false_mcse)
    assert "the smallest runs that reach it: 11" in sol.notes[0]


def test_a_target_no_runs_reach_is_said():
    sol = solve_gate({"candidates": 50}, ["keep-noise-floor"], max_runs=8, n_reps=1000,
                     seed=5, compare=())
    assert sol.table.iloc[0].source == "unattainable" and math.isnan(sol.table.iloc[0].power)
    assert sol.notes[0].startswith("keep-noise-floor: unattainable: the power at runs=8")


def test_the_command_solves_and_compares(capsys):
    assert main(["gate", "--solve", "--candidates", "10", "--runs", "25", "--rule",
                 "keep-bonferroni", "--reps", "2000", "--seed", "1", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("K = 10 candidates, one of effect 1")
    assert lines[2].split()[:3] == ["keep-bonferroni(alpha=0.06493)", "solved", "0.06493"]
    assert [line.split()[0] for line in lines[3:]] == [
        "keep-noise-floor", "keep-ratchet", "keep-t", "keep-bonferroni", "keep-holm"]


@pytest.mark.parametrize("argv, words", [
    (["--share", "0.1"], "`--share` does not apply with `--solve`"),
    (["--max-false", "1.5"], "`--max-false` must be"),
    (["--effect", "0"], "`--effect` must be"),
    (["--rule", "keep-ratchet"], "no threshold to solve"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    assert main(["gate", "--solve", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_params_outside_the_design_are_refused():
    with pytest.raises(ValueError, match="`params` may set only"):
        solve_gate({"gain": 2.0}, n_reps=1000)


@pytest.mark.slow
def test_k50_one_real_among_49_nulls_on_fresh_loops():
    """The issue's case (the README's command): Bonferroni solved for P(any false keep) <= 0.05
    and power >= 0.8 at an effect of 1 sd, checked on 20,000 fresh loops; no noise floor
    reaches it."""
    sol = solve_gate(n_reps=20_000)
    rows = sol.table.set_index("source")
    bonf = sol.table.iloc[1]
    assert bonf.source == "solved" and bonf.rule.startswith("keep-bonferroni")
    assert abs(bonf.any_false - 0.05) <= 4 * math.sqrt(2) * bonf.any_false_mcse
    assert bonf.power + 4 * bonf.power_mcse >= 0.8
    assert sol.table.iloc[0].source == "unattainable"
    eye = rows.loc["eye-set"]
    assert (eye.any_false > 0.5).all() and (eye.power < 0.5).all()
    assert (eye.spent < bonf.spent).all()
