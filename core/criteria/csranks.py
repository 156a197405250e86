"""Confidence sets for ranks of Mogstad, Romano, Shaikh and Wilhelm (2024), as the R package
csranks computes them (its two-sided sets, ``cstype="two-sided"``).

Each ordered pair (i, j) of models is a hypothesis "s_i <= s_j", its statistic
``t_ij = (s_i - s_j) / sd_ij`` with ``sd_ij`` the standard deviation of the difference under the
strengths' covariance ``Sigma``. A family of hypotheses is tested by a parametric bootstrap:
draws ``z ~ N(0, Sigma)`` give ``max (z_i - z_j) / sd_ij`` over the family's hypotheses still
open, and a hypothesis is rejected, "i better than j" claimed, when its interval's lower bound
``s_i - s_j - sd_ij q`` lies above 0, q the `level` quantile of those maxima; the stepdown
repeats this on the hypotheses left open until no new one is rejected (a single step stops
after the first). The simultaneous sets test one family, every ordered pair; the marginal set
of model i tests its own, the pairs that involve i. A model's rank set is
``[1 + #{j claimed better}, M - #{j claimed worse}]`` within its family.

Unlike csranks, which draws afresh at every step of the stepdown (and for each model's
marginal family), the draws of a board are drawn once and shared by its steps and families,
as Romano and Wolf's stepdown does; the two differ by bootstrap error only. A pair whose
difference has no spread (``sd_ij = 0``) is never claimed, where csranks stops with an error.
"""

from __future__ import annotations

import numpy as np


def pair_sds(cov) -> np.ndarray:
    """``sd[..., i, j]``: the standard deviation of ``s_i - s_j`` under the covariance `cov`."""
    diag = np.diagonal(cov, axis1=-2, axis2=-1)
    return np.sqrt(np.maximum(diag[..., :, None] + diag[..., None, :] - 2 * cov, 0.0))


def gaussian_draws(cov, rng, draws: int) -> np.ndarray:
    """`draws` draws of ``N(0, cov)`` per board, shape (n_reps, draws, M), by the covariance's
    eigendecomposition (as MASS::mvrnorm, which csranks calls, draws them)."""
    values, vectors = np.linalg.eigh(cov)
    root = vectors * np.sqrt(np.maximum(values, 0.0))[:, None, :]
    return np.einsum("rij,rdj->rdi", root, rng.standard_normal((cov.shape[0], draws,
                                                                cov.shape[1])))


def rank_claims(estimate, sd, z, level: float, marginal: bool, stepdown: bool = True):
    """The claims and rank sets of every board (the module docstring).

    `estimate` (n_reps, M) are the strengths, `sd` (n_reps, M, M) the sds of their differences
    and `z` (n_reps, draws, M) the Gaussian draws. Returns ``better[r, i, j]`` (i claimed better
    than j by some family) and the rank sets ``low``, ``high``, shape (n_reps, M) each.
    """
    n_reps, m = estimate.shape
    first, second = (a.ravel() for a in np.nonzero(~np.eye(m, dtype=bool)))
    if marginal:
        members = [np.flatnonzero((first == f) | (second == f)) for f in range(m)]
    else:
        members = [np.arange(first.size)]
    member = np.array(members)
    better = np.zeros((n_reps, m, m), dtype=bool)
    low, high = np.ones((n_reps, m), dtype=int), np.full((n_reps, m), m)
    for r in range(n_reps):
        scale = sd[r, first, second]
        diff = estimate[r, first] - estimate[r, second]
        with np.errstate(invalid="ignore", divide="ignore"):
            boot = (z[r][:, first] - z[r][:, second]) / scale
        rejected = _stepdown(diff[member], scale[member], boot[:, member], level, stepdown)
        for f, hyps in enumerate(members):
            better[r, first[hyps[rejected[f]]], second[hyps[rejected[f]]]] = True
        if marginal:
            own = np.zeros((m, m, m), dtype=int)
            np.add.at(own, (np.repeat(np.arange(m), member.shape[1]), first[member].ravel(),
                            second[member].ravel()), rejected.ravel().astype(int))
            ahead = own[np.arange(m), :, np.arange(m)].sum(axis=1)
            behind = own[np.arange(m), np.arange(m), :].sum(axis=1)
            low[r], high[r] = 1 + ahead, m - behind
        else:
            low[r], high[r] = 1 + better[r].sum(axis=0), m - better[r].sum(axis=1)
    return better, low, high


def _stepdown(diff, scale, boot, level: float, stepdown: bool) -> np.ndarray:
    """Which hypotheses each family rejects, shape (F, K), from the differences and their sds
    (F, K) and the bootstrap statistics (draws, F, K)."""
    open_ = scale > 0
    rejected = np.zeros_like(open_)
    while True:
        live = open_.any(axis=1)
        maxima = np.where(open_[None], boot, -np.inf).max(axis=2)
        q = np.quantile(maxima[:, live], level, axis=0)
        new = np.zeros_like(open_)
        new[live] = open_[live] & (diff[live] - scale[live] * q[:, None] > 0)
        rejected |= new
        open_ &= ~new
        if not (stepdown and new.any() and open_.any()):
            return rejected
