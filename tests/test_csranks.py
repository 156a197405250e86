"""The confidence sets for ranks of Mogstad, Romano, Shaikh and Wilhelm (2024) as board
procedures: against a line-by-line transcription of the R package csranks (tests/naive.py) on
the same draws, against csranks' documented example and its own tests' properties, their
coverage where the sets' Gaussian approximation holds, and fixed-seed regression values."""

from types import SimpleNamespace

import naive
import numpy as np
import pytest

from evalmc.criteria import get_criterion
from evalmc.criteria.csranks import gaussian_draws, pair_sds, rank_claims
from evalmc.criteria.leaderboard import estimate_and_covariance
from evalmc.sims.leaderboard import Arena
from evalmc.study.board_audit import _table
from evalmc.study.leaderboard import DESIGNS, _BoardRun, board_metrics, run_leaderboard

SIMUL, MARG = "board-csranks-simultaneous", "board-csranks-marginal"


def _random_board(rng):
    m = int(rng.integers(3, 8))
    a = rng.standard_normal((m, m))
    cov = (a @ a.T + 0.1 * np.eye(m)) / 20
    return rng.standard_normal(m) * rng.uniform(0.2, 2), cov


@pytest.mark.parametrize("stepdown", [True, False])
@pytest.mark.parametrize("marginal", [False, True])
def test_rank_sets_equal_the_transcription_of_csranks_on_the_same_draws(marginal, stepdown):
    """Random strengths and covariances, the same Gaussian draws: every rank set is the one
    the transcription of csranks() gives; the simultaneous sets are their claims' sets."""
    rng = np.random.default_rng(41)
    separated = 0
    for _ in range(15):
        x, cov = _random_board(rng)
        z = gaussian_draws(cov[None], rng, 200)
        better, low, high = rank_claims(x[None], pair_sds(cov[None]), z, 0.9, marginal,
                                        stepdown)
        ref_low, ref_high = naive.csranks_two_sided(x, cov, 0.9, stepdown, 200, not marginal,
                                                    draw=lambda needed, z=z: z[0][:, needed])
        np.testing.assert_array_equal(low[0], ref_low)
        np.testing.assert_array_equal(high[0], ref_high)
        if not marginal:
            np.testing.assert_array_equal(low[0], 1 + better[0].sum(axis=0))
            np.testing.assert_array_equal(high[0], x.size - better[0].sum(axis=1))
        separated += int(better.any())
    assert separated >= 5  # the comparison is not only of empty claims


@pytest.mark.parametrize("name", [SIMUL, MARG])
def test_a_board_s_rank_sets_are_csranks_on_its_strengths_and_sandwich_covariance(name):
    """End to end: the procedure's rank sets on arena boards are the transcription's on each
    board's Bradley-Terry strengths and sandwich covariance, with the procedure's draws."""
    batch = Arena(models=5, tied=1, spacing=0.3, battles=1500).draw(np.random.default_rng(3), 4)
    claims = get_criterion(f"{name}(n_draws=300)").test.claims(batch, np.random.default_rng(9))
    estimate, cov = estimate_and_covariance(batch)
    z = gaussian_draws(cov, np.random.default_rng(9), 300)
    low, high = claims.rank_sets()
    for r in range(4):
        ref = naive.csranks_two_sided(estimate[r], cov[r], 0.95, True, 300, name == SIMUL,
                                      draw=lambda needed, r=r: z[r][:, needed])
        assert (low[r].tolist(), high[r].tolist()) == ref
    assert (low > 1).any()


def test_csranks_documented_example():
    """csranks' documented example, ``csranks(seq(1, 3, length=10), sd=rep(0.2, 10))``: its
    printed sets, which the stepdown reaches at its second step (within bootstrap error of the
    documented run's 1,000 draws; 50,000 here)."""
    x, cov = np.linspace(1, 3, 10), np.diag(np.full(10, 0.2 ** 2))
    z = gaussian_draws(cov[None], np.random.default_rng(0), 50_000)
    _, low, high = rank_claims(x[None], pair_sds(cov[None]), z, 0.95, marginal=False)
    assert low[0].tolist() == [7, 6, 5, 4, 3, 2, 1, 1, 1, 1]
    assert high[0].tolist() == [10, 10, 10, 10, 9, 8, 7, 6, 5, 4]


def test_csranks_own_tests_properties_hold():
    """csranks' tests: on the same draws marginal sets lie within simultaneous ones, stepdown
    sets within single-step ones, and every set holds the estimated rank."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        x, cov = _random_board(rng)
        z = gaussian_draws(cov[None], rng, 500)
        sets = {(marg, step): rank_claims(x[None], pair_sds(cov[None]), z, 0.95, marg,
                                          step)[1:]
                for marg in (False, True) for step in (False, True)}
        rank = 1 + (x[None, :] > x[:, None]).sum(axis=1)
        for (marg, step), (low, high) in sets.items():
            assert ((low[0] <= rank) & (rank <= high[0])).all()
            wide_low, wide_high = sets[(False, step)] if marg else sets[(marg, False)]
            assert ((wide_low <= low) & (high <= wide_high)).all()


def test_all_tied_models_false_claims_and_marginal_coverage_are_nominal():
    """Five tied models, 2,000 independent battles: the least favourable case, where the
    simultaneous sets make a false claim on 5% of boards and each model's marginal set misses
    its rank set on 5%, within 4 Monte Carlo errors."""
    n = 500
    batch = Arena(models=5, tied=5, battles=2000).draw(np.random.default_rng(5), n)
    simul = get_criterion(SIMUL).test.claims(batch, np.random.default_rng(6))
    marg = get_criterion(MARG).test.claims(batch, np.random.default_rng(6))
    bound = 4 * np.sqrt(0.05 * 0.95 / n)
    assert abs(simul.better.any(axis=(1, 2)).mean() - 0.05) <= bound
    low, high = marg.rank_sets()
    misses = ((low > 1) | (high < 5)).mean(axis=0)
    for miss in misses:
        assert abs(miss - 0.05) <= bound
    marginal = board_metrics(marg.better, marg.failed, np.zeros(5), (low, high))["marginal"]
    assert marginal.mean() == pytest.approx(1 - misses.mean())  # the study's marginal coverage
    assert not simul.failed.any()


@pytest.mark.parametrize(("design", "n_reps"), [
    ("a", 150),
    pytest.param("a", 2000, marks=pytest.mark.slow),
    pytest.param("b", 1000, marks=pytest.mark.slow),
])
def test_simultaneous_coverage_on_the_readme_designs_is_at_least_nominal(design, n_reps):
    """Design (a) of the README, 10 models, 3 tied at the top, 5,000 independent battles (and
    (b), prompts reused, in the slow run): simultaneous coverage of the true ranks at least
    95% within 4 Monte Carlo errors."""
    scenario, params, _ = DESIGNS[design]
    row = run_leaderboard(scenario, params, [SIMUL], n_reps=n_reps, seed=2,
                          progress=False).iloc[0]
    assert row["coverage"] >= 0.95 - 4 * np.sqrt(0.95 * 0.05 / n_reps)


def test_fixed_seed_regression_values():
    """Five models, two tied at the top: the stepdown's sets are shorter than the single
    step's, the marginal sets shorter still."""
    arena = {"models": 5, "tied": 2, "spacing": 0.25, "battles": 1500}
    frame = run_leaderboard("arena", arena, [SIMUL, MARG, f"{SIMUL}(stepdown=0)"], n_reps=100,
                            seed=1, progress=False)
    got = frame[["false_claim", "coverage", "length", "power"]].round(4).to_numpy().tolist()
    assert got == [[0.01, 0.99, 2.56, 0.6767], [0.03, 0.97, 2.338, 0.7456],
                   [0.01, 0.99, 2.62, 0.66]]


def test_bad_stepdown_is_refused_naming_the_parameter():
    with pytest.raises(ValueError, match="stepdown"):
        get_criterion(f"{SIMUL}(stepdown=2)")


def test_the_study_and_the_audit_measure_the_marginal_sets_not_their_claims_sets():
    """A board where model 0's family claims it better than model 1 and model 1's does not:
    model 1's marginal set starts at rank 1, which the claims' counts miss; the study's
    length and the audit's table are the marginal sets'."""
    arena = Arena(models=6, tied=1, spacing=0.25, battles=2000)
    batch = arena.draw(np.random.default_rng(0), 1)
    criterion = get_criterion(MARG)
    claims = criterion.test.claims(batch, np.random.default_rng(1))
    low, high = claims.rank_sets()
    assert low[0].tolist() == [1, 1, 2, 4, 4, 6] and claims.better[0, 0, 1]
    tally, _ = _BoardRun(criterion).tallies(claims, np.array([0, 1]), arena)[0]
    assert tally.columns["length"][0] == pytest.approx(11 / 6)
    board = SimpleNamespace(models=list("abcdef"), strengths=np.arange(6.0)[::-1])
    table, unseparated = _table(board, claims.better[0], (low[0], high[0]))
    assert table["rank_set"].tolist() == ["1", "1-3", "2-3", "4-5", "4-5", "6"]
    assert unseparated == 2
