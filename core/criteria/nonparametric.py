"""Rank and sign tests vectorized over replications: Mann-Whitney U and the sign test."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import scipy

from evalmc.criteria.base import CriterionResult
from evalmc.sims.base import Batch

#: As scipy.stats.mannwhitneyu(method='auto'): exact when a sample has at most this many scores
#: and the replication has no ties, else the tie-corrected normal approximation.
EXACT_MAX_SIZE = 8
#: Most scores in a block (replications x runs of A and B) ranked in numpy rather than by the
#: Numba kernel, whose first compilation (seconds) dwarfs a block this small (one comparison).
NUMPY_MAX_SCORES = 10_000


@lru_cache(maxsize=64)
def u_null_sf(n1: int, n2: int) -> np.ndarray:
    """``P(U >= k)``, k = 0..n1 n2, of the Mann-Whitney U under H0 (cached: do not modify)."""
    m, big = min(n1, n2), max(n1, n2)
    # pmf[k] holds the distribution for (k, r) as r grows from 0 to `big`.
    pmf = [np.ones(1) for _ in range(m + 1)]
    for r in range(1, big + 1):
        new = [np.ones(1)]
        for k in range(1, m + 1):
            p = np.zeros(k * r + 1)
            p[r:] += k / (k + r) * new[k - 1]  # largest score from the first sample: +r
            p[: pmf[k].size] += r / (k + r) * pmf[k]
            new.append(p)
        pmf = new
    return np.cumsum(pmf[m][::-1])[::-1]


def mann_whitney(batch: Batch) -> CriterionResult:
    """Two-sided p-values of the Mann-Whitney U test, as scipy.stats.mannwhitneyu per replication:
    exact when ``min(n_a, n_b) <= 8`` without ties, else the corrected normal approximation.

    Parameters
    ----------
    batch : Batch
        Scores of A and B, one row per replication.

    Returns
    -------
    CriterionResult
        Two-sided p-values and the U statistic of A; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> mann_whitney(batch).pvalue.round(4)  # scipy.stats.mannwhitneyu(a, b, axis=1)
    array([0.007 , 0.2345])
    """
    n1, n2 = batch.a.shape[1], batch.b.shape[1]
    if batch.n_reps * (n1 + n2) <= NUMPY_MAX_SCORES and np.isfinite(batch.a).all() and (
            np.isfinite(batch.b).all()):
        u1, tie_term = _rank_sums_numpy(batch.a, batch.b)
    else:
        from evalmc.criteria.kernels import rank_sums

        u1 = np.empty(batch.n_reps)
        tie_term = np.empty(batch.n_reps)
        rank_sums(np.ascontiguousarray(batch.a), np.ascontiguousarray(batch.b), u1, tie_term)
    u = np.maximum(u1, n1 * n2 - u1)
    n = n1 + n2
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.sqrt(n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1))))
        z = (u - n1 * n2 / 2.0 - 0.5) / s
    p = 2.0 * scipy.special.ndtr(-z)
    if min(n1, n2) <= EXACT_MAX_SIZE:
        exact = tie_term == 0
        sf = u_null_sf(n1, n2)
        p[exact] = 2.0 * sf[u[exact].astype(np.int64)]
    return CriterionResult.from_pvalues(np.clip(p, 0.0, 1.0), u1)


def _rank_sums_numpy(a, b) -> tuple[np.ndarray, np.ndarray]:
    """U of A and the tie term sum(t^3 - t) of each row, equal to ``kernels.rank_sums``'
    (finite scores: half-integer ranks and integer terms add up exactly in any order)."""
    n1 = a.shape[1]
    pooled = np.concatenate([a, b], axis=1)
    u1 = scipy.stats.rankdata(pooled, axis=1)[:, :n1].sum(axis=1) - n1 * (n1 + 1) / 2.0
    counts = [np.unique(row, return_counts=True)[1] for row in pooled]
    return u1, np.array([float(np.sum(t * t * t - t)) for t in counts])


def sign_test(batch: Batch) -> CriterionResult:
    """Two-sided p-values of the sign test on paired differences, zeros dropped:
    ``scipy.stats.binomtest(n_positive, n_nonzero, 0.5).pvalue`` (1 if all are zero).

    Parameters
    ----------
    batch : Batch
        Paired scores, one row per replication.

    Returns
    -------
    CriterionResult
        Two-sided p-values and the number of positive differences; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> result = sign_test(batch)
    >>> result.statistic.tolist(), result.pvalue.round(4).tolist()
    ([7.0, 5.0], [0.0703, 0.7266])
    """
    from evalmc.sims.items import cell_types, type_counts

    counts = type_counts(batch)
    if counts is not None:  # an item's difference has the sign of n10 - n01
        types = cell_types(batch.n_samples)
        positive = counts @ (types[:, 1] > types[:, 2])
        nonzero = counts @ (types[:, 1] != types[:, 2])
    else:
        from evalmc.criteria.kernels import sign_counts

        positive = np.empty(batch.n_reps, np.int64)
        nonzero = np.empty(batch.n_reps, np.int64)
        sign_counts(np.ascontiguousarray(batch.a), np.ascontiguousarray(batch.b), positive,
                    nonzero)
    binom = scipy.stats.binom
    tail = np.minimum(binom.cdf(positive, nonzero, 0.5), binom.sf(positive - 1, nonzero, 0.5))
    return CriterionResult.from_pvalues(np.minimum(1.0, 2.0 * tail), positive.astype(float))
