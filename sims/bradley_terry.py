"""Bradley-Terry strengths from a board's sufficient statistics: the M x M table of wins, ties
counted as half a win each way, fitted by Newton's method on the log-likelihood, vectorized over
any number of tables (boards, bootstrap rounds).

Model i beats model j with probability ``expit(theta_i - theta_j)``; the strengths are
identified by summing to zero. The maximum-likelihood fit exists exactly when the graph of wins
is strongly connected (Zermelo 1929, Ford 1957): every model has beaten, through some chain,
every other. A table without a finite fit gets NaN strengths.
"""

from __future__ import annotations

import numpy as np

#: Newton steps at most, and the largest change of a strength in one step (a damped start).
MAX_ITER = 100
MAX_STEP = 1.0
#: Converged when no strength's score exceeds this share of the table's battles.
TOLERANCE = 1e-11


def half_wins(wins, ties=None) -> np.ndarray:
    """``wins + ties / 2`` as floats: model i's wins over j, a tie counted half to each."""
    table = np.asarray(wins, dtype=float)
    if ties is not None:
        table = table + 0.5 * np.asarray(ties, dtype=float)
    return table


def connected(table) -> np.ndarray:
    """Whether each table's graph of wins (an edge i -> j when i beat j, in part at least) is
    strongly connected, so that its fit is finite; shape ``table.shape[:-2]``."""
    table = np.asarray(table, dtype=float)
    m = table.shape[-1]
    reach = ((table > 0) | np.eye(m, dtype=bool)).astype(float)
    for _ in range(max(1, int(np.ceil(np.log2(m))))):
        reach = np.minimum(reach @ reach, 1.0)
    return (reach > 0).all(axis=(-2, -1))


def fit(wins, ties=None, *, max_iter: int = MAX_ITER) -> np.ndarray:
    """Bradley-Terry strengths of each table, summing to zero; NaN where there is no finite fit
    or Newton's method does not converge.

    Parameters
    ----------
    wins : array_like, shape (..., M, M)
        ``wins[..., i, j]``: battles model i won against model j.
    ties : array_like, shape (..., M, M), optional
        ``ties[..., i, j] == ties[..., j, i]``: battles of i and j that ended tied.
    max_iter : int
        Newton steps at most.

    Returns
    -------
    ndarray, shape (..., M)

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.bradley_terry import fit
    >>> wins = np.array([[0, 6, 8], [4, 0, 5], [2, 5, 0]])
    >>> fit(wins).round(4)
    array([ 0.5675, -0.1422, -0.4254])
    >>> fit(np.array([[0, 3], [0, 0]]))  # B never beat A: no finite fit
    array([nan, nan])
    """
    table = half_wins(wins, ties)
    shape, m = table.shape[:-2], table.shape[-1]
    table = table.reshape(-1, m, m)
    battles = table + np.swapaxes(table, 1, 2)
    theta = np.zeros(table.shape[:2])
    active = connected(table)
    done = ~active
    scale = np.maximum(battles.sum(axis=(1, 2)), 1.0)
    for _ in range(max_iter):
        todo = np.flatnonzero(~done)
        if todo.size == 0:
            break
        t, w, n = theta[todo], table[todo], battles[todo]
        p = _expit(t[:, :, None] - t[:, None, :])
        score = (w - n * p).sum(axis=2)
        converged = np.abs(score).max(axis=1) <= TOLERANCE * scale[todo]
        done[todo[converged]] = True
        step = np.linalg.solve(_information(n * p * (1 - p)), score[:, :, None])[:, :, 0]
        big = np.abs(step).max(axis=1, keepdims=True)
        step = np.where(big > MAX_STEP, step * MAX_STEP / np.maximum(big, MAX_STEP), step)
        step[converged] = 0.0
        theta[todo] = t + step - step.mean(axis=1, keepdims=True)
    theta[~(done & active)] = np.nan
    return theta.reshape(*shape, m)


def _expit(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _information(weights) -> np.ndarray:
    """The Laplacian of `weights` (the information of the strengths) plus ``1 1^T / M``, which
    makes it invertible on a connected graph and leaves a sum-zero direction unchanged."""
    m = weights.shape[-1]
    lap = -weights.copy()
    idx = np.arange(m)
    lap[..., idx, idx] = 0.0
    lap[..., idx, idx] = -lap.sum(axis=-1)
    return lap + 1.0 / m


def probabilities(theta) -> np.ndarray:
    """``expit(theta_i - theta_j)`` for every pair, shape (..., M, M)."""
    theta = np.asarray(theta, dtype=float)
    return _expit(theta[..., :, None] - theta[..., None, :])


def sandwich(theta, wins, ties=None, prompts: bool = False) -> np.ndarray:
    """Sandwich (robust) covariance of the fitted strengths, shape (..., M, M).

    With ``prompts=False``, `wins` and `ties` are pooled tables (..., M, M) and each battle is
    its own unit (HC0: the meat sums each battle's squared score, from the counts); with
    ``prompts=True`` they are per prompt (..., P, M, M) and the meat sums each prompt's total
    score (clustered by prompt, CR0). The bread is the expected information at `theta`.
    """
    theta = np.asarray(theta, dtype=float)
    wins = np.asarray(wins, dtype=float)
    ties = np.zeros_like(wins) if ties is None else np.asarray(ties, dtype=float)
    p = probabilities(theta)
    if prompts:
        pooled = half_wins(wins.sum(axis=-3), ties.sum(axis=-3))
        table = half_wins(wins, ties)
        n = table + np.swapaxes(table, -1, -2)
        scores = (table - n * p[..., None, :, :]).sum(axis=-1)  # (..., P, M)
        meat = np.einsum("...pi,...pj->...ij", scores, scores)
    else:
        pooled = half_wins(wins, ties)
        loss = np.swapaxes(wins, -1, -2)
        squared = wins * (1 - p) ** 2 + loss * p**2 + ties * (0.5 - p) ** 2
        meat = _information(squared) - 1.0 / theta.shape[-1]
    n_pooled = pooled + np.swapaxes(pooled, -1, -2)
    bread = np.linalg.inv(_information(n_pooled * p * (1 - p)))
    return bread @ meat @ bread
