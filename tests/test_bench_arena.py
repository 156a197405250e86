"""The arena workload's peer: FastChat's logistic-regression fit of a board's battles gives our
Bradley-Terry strengths (after its 400 / ln 10 scaling), on the battles our counts hold."""

import numpy as np
import pytest

from evalmc.bench.arena import battles_frame, peer_boards, strengths_of
from evalmc.sims.bradley_terry import fit
from evalmc.sims.leaderboard import Arena


def test_battles_frame_holds_the_boards_counts():
    batch = Arena(models=4, battles=300).draw(np.random.default_rng(1), 1)
    wins, ties = batch.wins[0, 0], batch.ties[0, 0]
    frame = battles_frame(wins, ties)
    assert len(frame) == 300
    for i in range(4):
        for j in range(i + 1, 4):
            pair = frame[(frame["model_a"] == f"model-{i:02d}")
                         & (frame["model_b"] == f"model-{j:02d}")]["winner"]
            assert [(pair == w).sum() for w in ("model_a", "model_b", "tie")] == [
                wins[i, j], wins[j, i], ties[i, j]]


def test_fastchat_fit_of_one_board_is_ours_within_1e_4():
    """Board 0 of the workload (20 models, 20,000 battles, 11% ties): the peer's Elo ratings,
    rescaled by ln 10 / 400 and centred, are our strengths within 1e-4 (0.017 Elo points)."""
    pytest.importorskip("sklearn")
    from evalmc.bench.arena import compute_mle_elo

    ((wins, ties),) = peer_boards(1)
    assert wins.shape == (20, 20) and wins.sum() + ties.sum() / 2 == 20_000 and ties.sum() > 0
    elo = compute_mle_elo(battles_frame(wins, ties))
    ours = fit(wins, ties)
    np.testing.assert_allclose(strengths_of(elo), ours, atol=1e-4)
    assert np.ptp(ours) > 1.0  # far from a trivial (all-equal) fit
