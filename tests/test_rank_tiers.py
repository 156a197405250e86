"""The two tier procedures of a leaderboard: the McNemar anchor walk and the adjacent paired
bootstrap, against plain transcriptions in tests/naive.py (exact for the walk and for the tiers
read off given bootstrap boards; in distribution for the resampling), with fixed-seed values."""

import naive
import numpy as np
import pytest

from evalmc.criteria import get_criterion
from evalmc.criteria.leaderboard import (
    _adjacent,
    _estimate,
    _resampled,
    _won,
    adjacent_bootstrap,
    anchor_walk,
)
from evalmc.sims.leaderboard import Arena, ItemBoard
from evalmc.study.leaderboard import run_leaderboard


@pytest.mark.parametrize("board", [
    Arena(models=5, tied=2, spacing=0.3, battles=800, tie=0.3),
    ItemBoard(models=5, tied=2, spacing=0.4, items=150, clusters=0),
])
def test_the_anchor_walk_is_the_plain_one(board):
    batch = board.draw(np.random.default_rng(21), 60)
    better = anchor_walk().claims(batch).better
    won, estimate = _won(batch), _estimate(batch)
    for r in range(better.shape[0]):
        assert (better[r] == naive.anchor_walk(won[r], estimate[r], 0.05)).all()
    assert better.any() and not better.all(axis=(1, 2)).any()  # it claims, but not everything


def test_adjacent_tiers_from_given_bootstrap_boards_are_the_plain_ones():
    batch = ItemBoard(models=5, tied=1, spacing=0.3, items=200, clusters=0).draw(
        np.random.default_rng(22), 40)
    rounds = _resampled(batch, np.random.default_rng(23), 200, clustered=False)
    estimate = _estimate(batch)
    better = _adjacent(estimate, rounds, 0.05)
    for r in range(40):
        assert (better[r] == naive.adjacent_tiers(estimate[r], rounds[r], 0.05)).all()
    assert better.any()


def test_adjacent_bootstrap_resampling_matches_a_plain_one_in_distribution():
    """Each pair's claim rate over 300 boards: ours (multinomial weights of items) against a
    plain bootstrap over items (rng.integers), within 4 standard errors of the difference."""
    board = ItemBoard(models=3, tied=1, spacing=0.35, items=120, clusters=0)
    batch = board.draw(np.random.default_rng(24), 300)
    ours = adjacent_bootstrap(n_boot=200).claims(batch, np.random.default_rng(25)).better
    rng = np.random.default_rng(26)
    plain = np.array([naive.adjacent_bootstrap_items(batch.scores[r].astype(float), 200, rng,
                                                     0.05) for r in range(300)])
    a, b = ours.mean(axis=0), plain.mean(axis=0)
    se = np.sqrt((a * (1 - a) + b * (1 - b)) / 300)
    assert 0.1 < a[0, 2] < 0.95  # a rate neither 0 nor 1, so the check can fail
    assert (np.abs(a - b) <= 4 * se + 1e-12).all()


def test_registered_tier_procedures_and_their_fixed_seed_rates():
    assert get_criterion("board-anchor").name == "board-anchor"
    arena = {"models": 4, "tied": 2, "spacing": 0.3, "battles": 1000}
    frame = run_leaderboard("arena", arena, ["board-anchor", "board-adjacent-bootstrap"],
                            n_reps=200, seed=1, progress=False)
    assert frame[["false_claim", "coverage", "length", "power"]].round(4).values.tolist() == [
        [0.05, 0.95, 2.1525, 0.729], [0.05, 0.95, 2.0625, 0.765]]


def test_bad_tier_procedures_are_refused_naming_the_parameter():
    with pytest.raises(ValueError, match="n_boot"):
        adjacent_bootstrap(n_boot=1)
    with pytest.raises(ValueError, match="level"):
        anchor_walk(level=1.5)
