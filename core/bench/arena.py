"""Benchmark workload: the battle bootstrap of an arena, as the leaderboard study runs it on
1,000 boards (20 models, 20,000 battles each, 100 rounds), against FastChat's way of computing
one board: a logistic-regression refit on the resampled battles each round.

The peer transcribes FastChat's ``compute_mle_elo`` and ``get_bootstrap_result``
(``fastchat/serve/monitor/elo_analysis.py``, the version of January 2024, with the unpenalized
fit at ``tol=1e-6`` of the Arena's notebook and of FastChat's later versions): each battle a row
of a one-hot design (``+ln 10`` for model A, ``-ln 10`` for model B), the battles duplicated so
that a tie is a win of A in one copy and a win of B in the other, scikit-learn's
``LogisticRegression`` without intercept, and ``400 coef + 1000`` as the Elo rating; each round
resamples the battles with replacement (``DataFrame.sample``) and refits. Per board it fits the
battles once, as FastChat's report does, and bootstraps. It runs on the first
:data:`PEER_BOARDS` boards the study draws, :data:`PEER_ROUNDS` rounds each, and its time is
scaled by the fits of the whole over the fits it made.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: The design: the ``arena`` scenario's parameters (the rest at its defaults).
DESIGN = {"models": 20, "battles": 20_000}
BOARDS = 1000
ROUNDS = 100
SEED = 0
#: The share the peer computes: boards, and bootstrap rounds on each.
PEER_BOARDS = 2
PEER_ROUNDS = 20


def compute_mle_elo(df, SCALE=400, BASE=10, INIT_RATING=1000):  # noqa: N803 (FastChat's names)
    """FastChat's Bradley-Terry ratings of a DataFrame of battles (``model_a``, ``model_b``,
    ``winner``), as a Series of Elo ratings by model, highest first (the module docstring)."""
    from sklearn.linear_model import LogisticRegression

    models = pd.concat([df["model_a"], df["model_b"]]).unique()
    models = pd.Series(np.arange(len(models)), index=models)
    df = pd.concat([df, df], ignore_index=True)  # duplicate battles
    p = len(models.index)
    n = df.shape[0]
    X = np.zeros([n, p])  # noqa: N806
    X[np.arange(n), models[df["model_a"]]] = +math.log(BASE)
    X[np.arange(n), models[df["model_b"]]] = -math.log(BASE)
    Y = np.zeros(n)  # noqa: N806 (one A win => two A wins)
    Y[df["winner"] == "model_a"] = 1.0
    tie_idx = (df["winner"] == "tie") | (df["winner"] == "tie (bothbad)")
    tie_idx[len(tie_idx) // 2:] = False  # one tie => one A win + one B win
    Y[tie_idx] = 1.0
    lr = LogisticRegression(fit_intercept=False, tol=1e-6, **_unpenalized())
    lr.fit(X, Y)
    elo_scores = SCALE * lr.coef_[0] + INIT_RATING
    return pd.Series(elo_scores, index=models.index).sort_values(ascending=False)


def _unpenalized() -> dict:
    """``penalty=None``, spelled ``C=inf`` from scikit-learn 1.8 on (which deprecates it)."""
    import sklearn

    version = tuple(int(part) for part in sklearn.__version__.split(".")[:2])
    return {"C": np.inf} if version >= (1, 8) else {"penalty": None}


def get_bootstrap_result(battles, func_compute_elo, num_round, rng):
    """FastChat's bootstrap: `num_round` refits on the battles resampled with replacement, a
    row per round, columns by median rating (its progress bar left out; `rng` seeds it)."""
    rows = []
    for _ in range(num_round):
        tmp_battles = battles.sample(frac=1.0, replace=True, random_state=rng)
        rows.append(func_compute_elo(tmp_battles))
    df = pd.DataFrame(rows)
    return df[df.median().sort_values(ascending=False).index]


def battles_frame(wins, ties) -> pd.DataFrame:
    """A board's battles from its pooled win and tie counts (M x M), as FastChat reads them:
    ``model_a``, ``model_b`` (``model-00`` ...) and ``winner``."""
    names = [f"model-{i:02d}" for i in range(len(wins))]
    first, second = np.triu_indices(len(wins), 1)
    counts = np.stack([wins[first, second], wins[second, first], ties[first, second]])
    outcome = np.repeat(np.array(["model_a", "model_b", "tie"])[:, None], first.size, axis=1)
    pair = np.broadcast_to(np.arange(first.size), counts.shape)
    rows = np.repeat(pair.ravel(), counts.ravel())
    return pd.DataFrame({"model_a": np.array(names)[first[rows]],
                         "model_b": np.array(names)[second[rows]],
                         "winner": np.repeat(outcome.ravel(), counts.ravel())})


def strengths_of(elo: pd.Series) -> np.ndarray:
    """FastChat's ratings as natural-log Bradley-Terry strengths summing to zero, models in
    order: ``(elo - mean) ln 10 / 400``."""
    values = elo.sort_index().to_numpy()
    return (values - values.mean()) * math.log(10) / 400


def peer_boards(n: int = PEER_BOARDS):
    """The first `n` boards the study draws (block 0 of its condition, as the engine draws it):
    their pooled ``(wins, ties)``."""
    from evalmc.compute.pcg64 import block_rng
    from evalmc.sims.leaderboard import Arena
    from evalmc.study.leaderboard import BLOCK_SIZE

    batch = Arena(**DESIGN).draw(block_rng(SEED, 0, 0), BLOCK_SIZE)
    return [(batch.wins[r].sum(axis=0), batch.ties[r].sum(axis=0)) for r in range(n)]


def arena_bootstrap():
    """The workload of the module docstring: ``(ours, peer, peer_scale)``.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns a line of text: ours the study's false claims,
        coverage and rank-set length; the peer, on its boards, how far its fit is from ours and
        the bootstrap sd of a strength, its and ours.
    peer_scale : float
        The peer's fits of the whole (1,000 boards, each fitted once and 100 rounds) over
        those it made.

    Examples
    --------
    >>> from evalmc.bench.arena import arena_bootstrap
    >>> from evalmc.bench.registry import WORKLOADS
    >>> WORKLOADS.entry("arena-bootstrap").load() is arena_bootstrap
    True
    >>> ours, peer, peer_scale = arena_bootstrap()  # built, not run (the peer needs sklearn)
    >>> round(peer_scale, 1)
    2404.8
    """
    from evalmc.criteria.leaderboard import _resampled
    from evalmc.sims.bradley_terry import fit
    from evalmc.sims.leaderboard import ArenaBatch
    from evalmc.study.leaderboard import run_leaderboard

    boards = peer_boards()
    rng = np.random.default_rng(2)
    ours_fit = [fit(wins, ties) for wins, ties in boards]
    ours_sd = [_resampled(ArenaBatch(wins=wins[None, None], ties=ties[None, None]), rng, ROUNDS,
                          clustered=False)[0].std(axis=0, ddof=1).mean() for wins, ties in boards]

    def ours(small=False):
        n_reps = 20 if small else BOARDS
        row = run_leaderboard("arena", DESIGN, ["board-bootstrap"], n_reps=n_reps, seed=SEED,
                              progress=False).iloc[0]
        return (f"{n_reps:,} boards: false claim {row['false_claim']:.3f}, coverage "
                f"{row['coverage']:.3f}, rank-set length {row['length']:.2f}")

    def peer(small=False):
        n_boards, rounds = (1, 2) if small else (PEER_BOARDS, PEER_ROUNDS)
        rng = np.random.default_rng(1)
        gap, sd_peer = 0.0, []
        for (wins, ties), theta in zip(boards[:n_boards], ours_fit, strict=False):
            battles = battles_frame(wins, ties)
            gap = max(gap, float(np.abs(strengths_of(compute_mle_elo(battles)) - theta).max()))
            rounds_elo = get_bootstrap_result(battles, compute_mle_elo, rounds, rng)
            sd_peer.append(rounds_elo.std(ddof=1).mean() * math.log(10) / 400)
        return (f"{n_boards} boards x {rounds} rounds: fit within {gap:.1e} of ours; bootstrap "
                f"sd of a strength {np.mean(sd_peer):.4f} (ours {np.mean(ours_sd[:n_boards]):.4f})")

    return ours, peer, BOARDS * (ROUNDS + 1) / (PEER_BOARDS * (PEER_ROUNDS + 1))
