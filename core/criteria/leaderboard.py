"""Rank procedures of a leaderboard: each turns a board into claims "model i is better than
model j", vectorized over boards, on an arena's win and tie counts or an item board's answers.

A model's strength is its Bradley-Terry strength on an arena (:mod:`evalmc.sims.bradley_terry`,
ties half a win each way, strengths summing to zero) and its mean score on an item board, whose
scores are 0/1 or continuous (any real). The procedures, each at confidence `level`:

- ``bootstrap``: percentile intervals of each strength over `n_boot` bootstrap boards that
  resample battles (a multinomial draw of the counts, then a fit) or items, and the Arena rule:
  i better than j when i's lower bound exceeds j's upper bound (Chiang et al. 2024's board);
- ``prompt-bootstrap``: the same, resampling prompts (or clusters of items); a board whose
  battles each have a prompt of their own (or whose items have no clusters) resamples battles
  (items), the same numbers as ``bootstrap``;
- ``wald``: sandwich (Wald) intervals of each strength, clustered by prompt or cluster when the
  board has them, each battle or item its own cluster otherwise (CR0), and the Arena rule;
- ``holm``: an exact sign test for every pair on their decisive outcomes (head-to-head battles
  won, ties dropped; items on which one of the two scored higher, equal scores dropped: on 0/1
  scores McNemar's exact test, on continuous ones the sign test of the paired differences),
  Holm-adjusted over the pairs, claiming the winner of each rejected pair; neither it nor
  ``anchor`` reads clusters;
- ``max-t``: simultaneous intervals of every difference of strengths from the sandwich
  covariance, with the `level` quantile of the largest studentized difference of a Gaussian of
  that covariance (`n_draws` draws) as critical value; i better than j when the interval of
  ``s_i - s_j`` lies above 0;
- ``anchor``: the McNemar anchor walk: the models in order of strength, the first the anchor of
  the first tier; each next model joins the anchor's tier unless the exact sign test of the two
  (their decisive outcomes, as ``holm`` uses them; unadjusted, at ``1 - level``) separates it,
  the anchor ahead, and then it starts a new tier and anchors it;
- ``adjacent-bootstrap``: the models in order of strength; the percentile interval (at
  `level`) of each adjacent pair's difference of strengths over `n_boot` bootstrap boards that
  resample battles (or items, pairing the models on them) starts a new tier where it lies
  above 0.

The two tier procedures claim every model of a tier better than every model of each later tier.

A model's rank set follows from the claims: ``[1 + #{j claimed better than i}, M - #{j claimed
worse than i}]``. As a criterion, a procedure rejects "no model differs from another" on a
board where it claims anything: under equal strengths its rate is its familywise false-claim
rate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.ranks import holm
from evalmc.inputs.checks import check_float, check_int
from evalmc.sims.bradley_terry import fit, sandwich
from evalmc.sims.leaderboard import ArenaBatch

METHODS = ("bootstrap", "prompt-bootstrap", "wald", "holm", "max-t", "anchor",
           "adjacent-bootstrap")


@dataclass(frozen=True)
class Claims:
    """A procedure's claims on a block of boards: ``better[r, i, j]`` when board r claims
    model i better than model j; `failed` boards claim nothing, `errors` says why."""

    better: np.ndarray
    failed: np.ndarray
    errors: dict[int, str] = field(default_factory=dict)

    def rank_sets(self) -> tuple[np.ndarray, np.ndarray]:
        """Each model's rank set ``[low, high]`` per board, shape (n_reps, M) each."""
        m = self.better.shape[-1]
        return 1 + self.better.sum(axis=1), m - self.better.sum(axis=2)


@dataclass(frozen=True)
class RankProcedure:
    """A rank procedure (the module docstring): ``claims(batch, rng)`` gives its
    :class:`Claims`, and calling it gives a :class:`~evalmc.criteria.base.CriterionResult`
    whose decision is "some model is claimed better than another"."""

    method: str
    level: float = 0.95
    draws: int = 0

    def __call__(self, batch, rng=None) -> CriterionResult:
        claims = self.claims(batch, rng)
        n = claims.failed.size
        return CriterionResult(claims.failed, pvalue=np.full(n, np.nan),
                               reject=claims.better.any(axis=(1, 2)), errors=claims.errors)

    def claims(self, batch, rng=None) -> Claims:
        """The claims of every board of `batch` (an arena's or an item board's)."""
        if self.method == "holm":
            better = _holm(batch, 1 - self.level)
            return Claims(better, np.zeros(better.shape[0], dtype=bool))
        if self.method == "anchor":
            better = _anchor_walk(batch, 1 - self.level)
            return Claims(better, np.zeros(better.shape[0], dtype=bool))
        if self.method == "adjacent-bootstrap":
            rounds, estimate = _resampled(batch, rng, self.draws, clustered=False), _estimate(batch)
            bad = np.isnan(rounds).any(axis=(1, 2)) | np.isnan(estimate).any(axis=1)
            better = _adjacent(np.where(bad[:, None], 0.0, estimate),
                               np.where(bad[:, None, None], 0.0, rounds), 1 - self.level)
            return _finish(better, bad, "a bootstrap board had no finite fit")
        if self.method in ("bootstrap", "prompt-bootstrap"):
            rounds = _resampled(batch, rng, self.draws, clustered=self.method != "bootstrap")
            alpha = 1 - self.level
            bad = np.isnan(rounds).any(axis=(1, 2))
            rounds = np.where(bad[:, None, None], 0.0, rounds)
            low, high = np.quantile(rounds, [alpha / 2, 1 - alpha / 2], axis=1)
            return _arena_rule(low, high, bad, "a bootstrap board had no finite fit")
        estimate, cov = _estimate(batch), _covariance(batch)
        bad = np.isnan(estimate).any(axis=1) | np.isnan(cov).any(axis=(1, 2))
        estimate, cov = np.where(bad[:, None], 0.0, estimate), np.where(
            bad[:, None, None], 0.0, cov)
        if self.method == "wald":
            from scipy.special import ndtri

            half = ndtri(0.5 + self.level / 2) * np.sqrt(np.maximum(
                np.diagonal(cov, axis1=1, axis2=2), 0.0))
            return _arena_rule(estimate - half, estimate + half, bad, "no finite fit")
        better = _max_t(estimate, cov, rng, self.draws, self.level)
        return _finish(better, bad, "no finite fit")


def _arena_rule(low, high, bad, why: str) -> Claims:
    """i better than j when i's lower bound exceeds j's upper bound."""
    return _finish(low[:, :, None] > high[:, None, :], bad, why)


def _finish(better, bad, why: str) -> Claims:
    better = better & ~bad[:, None, None]
    return Claims(better, bad, {int(r): why for r in np.flatnonzero(bad)})


def _pooled(batch: ArenaBatch) -> tuple[np.ndarray, np.ndarray]:
    return batch.wins.sum(axis=1), batch.ties.sum(axis=1)


def _estimate(batch) -> np.ndarray:
    """Each board's strengths, shape (n_reps, M): Bradley-Terry's or mean scores."""
    if isinstance(batch, ArenaBatch):
        return fit(*_pooled(batch))
    return batch.scores.mean(axis=1)


def estimate_and_covariance(batch) -> tuple[np.ndarray, np.ndarray]:
    """Each board's strengths and their sandwich covariance, as ``wald`` and ``max-t`` use."""
    return _estimate(batch), _covariance(batch)


def _covariance(batch) -> np.ndarray:
    """The sandwich covariance of :func:`_estimate`, clustered by prompt or cluster when the
    board has them, shape (n_reps, M, M)."""
    if isinstance(batch, ArenaBatch):
        prompts = batch.wins.shape[1] > 1
        theta = fit(*_pooled(batch))
        if prompts:
            return sandwich(theta, batch.wins, batch.ties, prompts=True)
        return sandwich(theta, *_pooled(batch))
    scores = batch.scores.astype(float)
    residual = scores - scores.mean(axis=1, keepdims=True)
    sums = np.einsum("rkm,kc->rcm", residual, _one_hot(batch.labels))
    return np.einsum("rci,rcj->rij", sums, sums) / scores.shape[1] ** 2


def _resampled(batch, rng, rounds: int, clustered: bool) -> np.ndarray:
    """Strengths of `rounds` bootstrap boards of each board, shape (n_reps, rounds, M)."""
    if isinstance(batch, ArenaBatch):
        n_reps, prompts, m, _ = batch.wins.shape
        if clustered and prompts > 1:
            weight = rng.multinomial(prompts, np.full(prompts, 1.0 / prompts),
                                     size=(n_reps, rounds)).astype(float)
            return fit(np.einsum("rbp,rpij->rbij", weight, batch.wins),
                       np.einsum("rbp,rpij->rbij", weight, batch.ties))
        wins, ties = _pooled(batch)
        first, second = np.triu_indices(m, 1)
        cells = np.concatenate([wins[:, first, second], wins[:, second, first],
                                ties[:, first, second]], axis=1)
        total = cells.sum(axis=1)
        draw = rng.multinomial(np.broadcast_to(total[:, None], (n_reps, rounds)),
                               np.broadcast_to((cells / total[:, None])[:, None, :],
                                               (n_reps, rounds, cells.shape[1])))
        k = first.size
        wins_b = np.zeros((n_reps, rounds, m, m))
        ties_b = np.zeros_like(wins_b)
        wins_b[:, :, first, second], wins_b[:, :, second, first] = draw[..., :k], draw[..., k:2 * k]
        ties_b[:, :, first, second] = ties_b[:, :, second, first] = draw[..., 2 * k:]
        return fit(wins_b, ties_b)
    scores = batch.scores.astype(float)
    n_reps, items, _ = scores.shape
    if clustered:
        member = _one_hot(batch.labels)
        groups, sizes = member.shape[1], member.sum(axis=0)
        sums = np.einsum("rkm,kc->rcm", scores, member)
    else:  # each item its own cluster: no items x items one-hot to sum through
        groups, sizes, sums = items, np.ones(items), scores
    weight = rng.multinomial(groups, np.full(groups, 1.0 / groups), size=(n_reps, rounds))
    return np.einsum("rbg,rgm->rbm", weight, sums) / (weight @ sizes)[:, :, None]


def _one_hot(labels) -> np.ndarray:
    """``member[k, c]``: item k is in cluster c, shape (items, clusters)."""
    return (labels[:, None] == np.arange(labels.max() + 1)).astype(float)


def _holm(batch, alpha: float) -> np.ndarray:
    """Holm-adjusted exact sign tests of every pair's decisive outcomes; ``better[r, i, j]``
    where pair (i, j) is rejected and i won more of them."""
    won = _won(batch)
    m = won.shape[-1]
    first, second = np.triu_indices(m, 1)
    k, n = won[:, first, second], won[:, first, second] + won[:, second, first]
    reject = holm(_sign_pvalue(k, n)) <= alpha
    better = np.zeros(won.shape, dtype=bool)
    better[:, first, second] = reject & (2 * k > n)
    better[:, second, first] = reject & (2 * k < n)
    return better


def _won(batch) -> np.ndarray:
    """``won[r, i, j]``: decisive outcomes i won against j (battles won, ties dropped; items on
    which i scored above j: on 0/1 scores, i right and j wrong), as floats."""
    if isinstance(batch, ArenaBatch):
        return _pooled(batch)[0].astype(float)
    scores = batch.scores
    won = np.empty((scores.shape[0], scores.shape[2], scores.shape[2]))
    for i in range(scores.shape[2]):
        won[:, i] = (scores[:, :, i:i + 1] > scores).sum(axis=1)
    return won


def _sign_pvalue(k, n) -> np.ndarray:
    """Two-sided exact sign test of k wins in n decisive outcomes (1 where n is 0)."""
    from scipy.stats import binom

    with np.errstate(invalid="ignore"):
        return np.where(n > 0, np.minimum(1.0, 2.0 * binom.cdf(np.minimum(k, n - k), n, 0.5)),
                        1.0)


def _order(batch) -> np.ndarray:
    """Each board's models, strongest first (net decisive wins where the board has no finite
    fit), shape (n_reps, M)."""
    estimate, won = _estimate(batch), _won(batch)
    net = won.sum(axis=2) - won.sum(axis=1)
    estimate = np.where(np.isnan(estimate).any(axis=1, keepdims=True), net, estimate)
    return np.argsort(-estimate, axis=1, kind="stable")


def _tiers(order, starts) -> np.ndarray:
    """Claims of tiers: ``starts[r, k]`` when the model at place k + 1 starts a new tier;
    every model of a tier better than every model of each later tier."""
    n_reps, m = order.shape
    tier = np.zeros((n_reps, m), dtype=int)
    np.put_along_axis(tier, order, np.concatenate(
        [np.zeros((n_reps, 1), dtype=int), np.cumsum(starts, axis=1)], axis=1), axis=1)
    return tier[:, :, None] < tier[:, None, :]


def _anchor_walk(batch, alpha: float) -> np.ndarray:
    """Claims of the McNemar anchor walk (the module docstring)."""
    won, order = _won(batch), _order(batch)
    rows = np.arange(order.shape[0])
    anchor = order[:, 0]
    starts = np.zeros((order.shape[0], order.shape[1] - 1), dtype=bool)
    for k in range(1, order.shape[1]):
        candidate = order[:, k]
        ahead, behind = won[rows, anchor, candidate], won[rows, candidate, anchor]
        starts[:, k - 1] = (_sign_pvalue(ahead, ahead + behind) <= alpha) & (ahead > behind)
        anchor = np.where(starts[:, k - 1], candidate, anchor)
    return _tiers(order, starts)


def _adjacent(estimate, rounds, alpha: float) -> np.ndarray:
    """Claims of the adjacent paired bootstrap from each board's strengths (n_reps, M) and its
    bootstrap boards' (n_reps, rounds, M)."""
    order = np.argsort(-estimate, axis=1, kind="stable")
    ranked = np.take_along_axis(rounds, order[:, None, :], axis=2)
    low = np.quantile(ranked[:, :, :-1] - ranked[:, :, 1:], alpha / 2, axis=1)
    return _tiers(order, low > 0)


def _max_t(estimate, cov, rng, draws: int, level: float) -> np.ndarray:
    """Claims of the simultaneous max-|t| intervals of every difference (the module docstring)."""
    n_reps, m = estimate.shape
    first, second = np.triu_indices(m, 1)
    diag = np.diagonal(cov, axis1=1, axis2=2)
    se = np.sqrt(np.maximum(diag[:, first] + diag[:, second] - 2 * cov[:, first, second], 0.0))
    values, vectors = np.linalg.eigh(cov)
    root = vectors * np.sqrt(np.maximum(values, 0.0))[:, None, :]
    z = np.einsum("rij,rdj->rdi", root, rng.standard_normal((n_reps, draws, m)))
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.abs(z[:, :, first] - z[:, :, second]) / se[:, None, :]
        critical = np.quantile(np.nan_to_num(stat, nan=0.0).max(axis=2), level, axis=1)
        gap = (estimate[:, first] - estimate[:, second]) / se
    better = np.zeros((n_reps, m, m), dtype=bool)
    better[:, first, second] = (se > 0) & (gap > critical[:, None])
    better[:, second, first] = (se > 0) & (-gap > critical[:, None])
    return better


def _check(level, draws=None, name="n_boot"):
    level = check_float("level", level, low=0, high=1, open_low=True, open_high=True)
    if draws is None:
        return level, 0
    return level, check_int(name, draws, low=2)


def bootstrap(n_boot=100, level=0.95) -> RankProcedure:
    """The percentile bootstrap over battles (or items) with the Arena rule (module docstring).

    Parameters
    ----------
    n_boot : int
        Bootstrap boards per board (>= 2).
    level : float
        Confidence of each model's interval, in (0, 1).

    Returns
    -------
    RankProcedure

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.leaderboard import bootstrap
    >>> from evalmc.sims.leaderboard import Arena
    >>> batch = Arena(models=4, tied=1, spacing=0.5, battles=600).draw(
    ...     np.random.default_rng(0), 1)
    >>> claims = bootstrap(n_boot=50).claims(batch, np.random.default_rng(1))
    >>> [r.tolist() for r in claims.rank_sets()]
    [[[1, 2, 2, 4]], [[1, 3, 3, 4]]]
    """
    level, n_boot = _check(level, n_boot)
    return RankProcedure("bootstrap", level, n_boot)


def prompt_bootstrap(n_boot=100, level=0.95) -> RankProcedure:
    """The percentile bootstrap over prompts (or clusters of items) with the Arena rule.

    Parameters
    ----------
    n_boot : int
        Bootstrap boards per board (>= 2).
    level : float
        Confidence of each model's interval, in (0, 1).

    Returns
    -------
    RankProcedure

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.leaderboard import prompt_bootstrap
    >>> from evalmc.sims.leaderboard import Arena
    >>> arena = Arena(models=4, tied=1, spacing=0.5, battles=600, prompts=20, prompt_sd=1.0)
    >>> batch = arena.draw(np.random.default_rng(0), 1)
    >>> claims = prompt_bootstrap(n_boot=50).claims(batch, np.random.default_rng(1))
    >>> [r.tolist() for r in claims.rank_sets()]
    [[[1, 1, 1, 3]], [[3, 3, 4, 4]]]
    """
    level, n_boot = _check(level, n_boot)
    return RankProcedure("prompt-bootstrap", level, n_boot)


def wald(level=0.95) -> RankProcedure:
    """Sandwich (Wald) intervals of each strength with the Arena rule (module docstring).

    Parameters
    ----------
    level : float
        Confidence of each model's interval, in (0, 1).

    Returns
    -------
    RankProcedure

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.leaderboard import wald
    >>> from evalmc.sims.leaderboard import ItemBoard
    >>> batch = ItemBoard(models=4, tied=1, spacing=1.0, items=200).draw(
    ...     np.random.default_rng(0), 1)
    >>> wald().claims(batch).better[0].astype(int).tolist()
    [[0, 1, 1, 1], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]]
    """
    level, _ = _check(level)
    return RankProcedure("wald", level)


def holm_sign(level=0.95) -> RankProcedure:
    """Exact sign tests of every pair, Holm-adjusted at ``1 - level`` (module docstring).

    Parameters
    ----------
    level : float
        One minus the familywise level of the tests, in (0, 1).

    Returns
    -------
    RankProcedure

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.leaderboard import holm_sign
    >>> from evalmc.sims.leaderboard import Arena
    >>> batch = Arena(models=3, tied=1, spacing=1.0, battles=300).draw(
    ...     np.random.default_rng(0), 1)
    >>> holm_sign().claims(batch).better[0].astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    level, _ = _check(level)
    return RankProcedure("holm", level)


def max_t(n_draws=1000, level=0.95) -> RankProcedure:
    """Simultaneous max-|t| intervals of every difference of strengths (module docstring).

    Parameters
    ----------
    n_draws : int
        Gaussian draws for the critical value (>= 2).
    level : float
        Simultaneous confidence of the intervals, in (0, 1).

    Returns
    -------
    RankProcedure

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.leaderboard import max_t
    >>> from evalmc.sims.leaderboard import Arena
    >>> batch = Arena(models=3, tied=1, spacing=1.0, battles=300).draw(
    ...     np.random.default_rng(0), 1)
    >>> max_t().claims(batch, np.random.default_rng(1)).better[0].astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    level, n_draws = _check(level, n_draws, "n_draws")
    return RankProcedure("max-t", level, n_draws)


def anchor_walk(level=0.95) -> RankProcedure:
    """The McNemar anchor walk: tiers in order of strength, a new one at the first model an
    exact sign test separates from the tier's anchor (module docstring).

    Parameters
    ----------
    level : float
        One minus the level of each (unadjusted) test, in (0, 1).

    Returns
    -------
    RankProcedure

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.leaderboard import anchor_walk
    >>> from evalmc.sims.leaderboard import ItemBoard
    >>> batch = ItemBoard(models=4, tied=1, spacing=1.0, items=200).draw(
    ...     np.random.default_rng(0), 1)
    >>> anchor_walk().claims(batch).better[0].astype(int).tolist()
    [[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]]
    """
    level, _ = _check(level)
    return RankProcedure("anchor", level)


def adjacent_bootstrap(n_boot=100, level=0.95) -> RankProcedure:
    """The adjacent paired bootstrap: tiers in order of strength, a new one where the percentile
    interval of an adjacent pair's difference lies above 0 (module docstring).

    Parameters
    ----------
    n_boot : int
        Bootstrap boards per board (>= 2).
    level : float
        Confidence of each adjacent pair's interval, in (0, 1).

    Returns
    -------
    RankProcedure

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.leaderboard import adjacent_bootstrap
    >>> from evalmc.sims.leaderboard import Arena
    >>> batch = Arena(models=4, tied=1, spacing=0.5, battles=600).draw(
    ...     np.random.default_rng(0), 1)
    >>> claims = adjacent_bootstrap(n_boot=50).claims(batch, np.random.default_rng(1))
    >>> [r.tolist() for r in claims.rank_sets()]
    [[[1, 2, 2, 4]], [[1, 3, 3, 4]]]
    """
    level, n_boot = _check(level, n_boot)
    return RankProcedure("adjacent-bootstrap", level, n_boot)
