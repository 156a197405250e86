"""Solving keep rules on loops of non-Gaussian runs and within a budget of runs a loop
(`evalmc gate --solve --noise ... --budget N`): fixed-seed values, the solved rules' P(any
false keep) on fresh loops and on a plain scipy simulation of skewed runs, the budget's cap
and the budget the targets need, and bad input."""

import math

import naive
import pytest

from evalmc.cli import main
from evalmc.study.gate_solve import solve_gate

SKEW = "skew-normal(skew=-6)"
N = 10_000


@pytest.fixture(scope="module")
def skewed():
    """Both default rules solved on five candidates of three skewed runs each."""
    return solve_gate({"candidates": 5, "runs": 3, "noise": SKEW}, power=0.1, effect=3.0,
                      n_reps=N, seed=2, compare=())


def test_skewed_fixed_seed_values(skewed):
    table = skewed.table
    assert table.rule.tolist() == ["keep-noise-floor(k=6.586)", "keep-bonferroni(alpha=0.1089)"]
    assert table.any_false.tolist() == [0.0439, 0.0421]
    assert table.power.tolist() == [0.2515, 0.6468]
    assert skewed.report().splitlines()[0] == (
        f"K = 5 candidates, one of effect 3 (sd 1, noise {SKEW}) among 4 nulls: P(any false "
        "keep) <= 0.05, power >= 0.1")


def test_the_skewed_solve_holds_the_target_on_fresh_loops_and_a_plain_simulation(skewed):
    """On the check's fresh loops P(any false keep) is the target within 4 sds (the solve's
    quantile and the check's rate, sqrt(2) MCSE); on loops of scipy's skewnorm drawn apart,
    within 4 sds of the two combined."""
    solve_sd = math.sqrt(0.05 * 0.95 / N)
    for row, method in zip(skewed.table.itertuples(), ("noise-floor", "bonferroni"),
                           strict=True):
        assert abs(row.any_false - 0.05) <= 4 * math.sqrt(2) * row.any_false_mcse
        rate, mcse = naive.skewed_any_false(method, row.value, 5, 3, 3, -6, 20_000, seed=7)
        assert abs(rate - 0.05) <= 4 * math.hypot(mcse, solve_sd)


def test_the_noise_reaches_the_solve(skewed):
    """The k solved on Gaussian loops is not the skewed one (their 95% intervals apart), and
    on skewed loops it misses the target by more than 4 sds."""
    gauss = solve_gate({"candidates": 5, "runs": 3}, ["keep-noise-floor"], power=0.1,
                       effect=3.0, n_reps=N, seed=2, compare=()).table.iloc[0]
    skew = skewed.table.iloc[0]
    assert skew.ci_high < gauss.ci_low
    rate, mcse = naive.skewed_any_false("noise-floor", gauss.value, 5, 3, 3, -6, 20_000, seed=7)
    assert abs(rate - 0.05) > 4 * math.hypot(mcse, math.sqrt(0.05 * 0.95 / N))


@pytest.mark.parametrize("budget, source, runs, spent", [
    (66, "solved", 11, 66),       # 11 runs a candidate and the baseline's 11: the budget
    (65, "over-budget", 11, 66),  # at most 10 fit: the targets need 66 runs a loop
    (7, "over-budget", 11, 66),   # a t needs two runs a side: 12 runs a loop, over 7
])
def test_the_budget_caps_the_runs_and_says_what_the_targets_need(budget, source, runs, spent):
    sol = solve_gate({"candidates": 5, "runs": 1}, ["keep-t"], effect=1.5, n_reps=4000,
                     seed=4, compare=(), budget=budget)
    row = sol.table.iloc[0]
    assert (row.source, row.runs, row.spent) == (source, runs, spent)
    if source == "solved":
        assert row.spent <= budget and row.rule == "keep-t(alpha=0.01331)"
        assert sol.report().splitlines()[0].endswith(", within 66 runs a loop")
    else:
        assert math.isnan(row.power) and row.rule == "keep-t"
        assert sol.notes[0].startswith(f"keep-t: unattainable within the budget of {budget} "
                                       "runs a loop: ")
        assert "The targets need 11 runs per candidate" in sol.notes[0]
        assert "a budget of 66 runs a loop" in sol.notes[0]


def test_a_budget_no_runs_up_to_max_runs_serve_is_said():
    sol = solve_gate({"candidates": 50}, ["keep-noise-floor"], max_runs=8, budget=300,
                     n_reps=1000, seed=5, compare=())
    assert sol.table.iloc[0].source == "unattainable"
    assert sol.notes[0].startswith("keep-noise-floor: unattainable within the budget of 300 "
                                   "runs a loop: the power at runs=5 (the most it allows)")
    assert "No runs reach them either: the power at runs=8 (`max_runs`)" in sol.notes[0]


@pytest.mark.parametrize("argv, words", [
    (["--budget", "51"], "`--budget` must hold a loop at `--runs` 1: 52 runs; got 51."),
    (["--budget", "0"], "`--budget` must be"),
    (["--looks", "2"], "`--looks` does not apply with `--solve`"),
    (["--rerun", "3"], "`--rerun` does not apply with `--solve`"),
    (["--noise", "gauss"], "`--noise` must be a CSV FILE or one of"),
    (["--noise", "skew-normal(shift=1)"], "`--noise` 'skew-normal' takes only"),
    (["--noise", "normal", "--noise-column", "x"], "`--noise-column` names a column"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    assert main(["gate", "--solve", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_a_budget_without_solve_is_refused(capsys):
    assert main(["gate", "--budget", "100", "--quiet"]) == 2
    assert "`--budget` applies only with `--solve`" in capsys.readouterr().err
