"""Wilcoxon's signed-rank test vectorized over replications, as scipy.stats.wilcoxon per row
(Demsar 2006): the exact null of R+ up to 50 pairs without ties or zeros, all 2^n sign flips
up to 13 pairs, else the normal approximation with scipy's tie and zero adjustments."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import scipy

from evalmc.criteria.base import CriterionResult
from evalmc.sims.base import Batch

EXACT_MAX = 50
FLIP_MAX = 13
ZERO_METHODS = ("wilcox", "pratt", "zsplit")


@lru_cache(maxsize=64)
def signed_rank_null(n: int) -> np.ndarray:
    """``P(R+ = k)`` for n pairs without ties or zeros (cached: do not modify)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for rank in range(1, n + 1):
        counts[rank:] = counts[rank:] + counts[:-rank].copy()
    return counts / counts.sum()


def _cell_rank_sums(batch, code: int):
    """R+, zeros and tie term of :func:`~evalmc.criteria.kernels.signed_rank_sums` from a
    CellsBatch's counts: an item's ``a - b`` is that of its type, as floats have it (item means
    ``k / s``), and the items of one ``|a - b|`` are one group of tied ranks, zeros first."""
    from evalmc.criteria.kernels import WILCOX, ZSPLIT
    from evalmc.sims.items import cell_types, type_counts

    s = batch.n_samples
    types = cell_types(s)
    diff = (types[:, 0] + types[:, 1]) / s - (types[:, 0] + types[:, 2]) / s
    counts = type_counts(batch)
    levels = np.unique(np.abs(diff[diff != 0]))
    up = counts @ (diff[:, None] == levels)  # items per |a - b| level, positive
    down = counts @ (diff[:, None] == -levels)
    n_zero = counts @ (diff == 0)
    size = up + down
    start = n_zero[:, None] + np.cumsum(size, axis=1) - size
    shift = n_zero[:, None] if code == WILCOX else 0
    doubled = (2 * start + size + 1 - 2 * shift) * up  # twice the ranks of the positive ones
    total = doubled.sum(axis=1).astype(float)
    tie_term = (size**3 - size).sum(axis=1).astype(float)
    if code == ZSPLIT:  # the zeros' ranks, half to either side, and their ties
        total += 0.5 * n_zero * (n_zero + 1)
        tie_term += n_zero**3 - n_zero
    return 0.5 * total, n_zero, tie_term


def wilcoxon(batch: Batch, zero_method: str = "wilcox") -> CriterionResult:
    """Two-sided p-values of the signed-rank test on ``a - b``, one per replication.

    Parameters
    ----------
    batch : Batch
        Paired scores, one row per replication.
    zero_method : {'wilcox', 'pratt', 'zsplit'}
        What becomes of the zero differences, as in scipy.stats.wilcoxon.

    Returns
    -------
    CriterionResult
        Two-sided p-values and R+, the sum of the ranks of the positive differences.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> wilcoxon(batch).pvalue.round(4)  # scipy.stats.wilcoxon(a, b, axis=1)
    array([0.0156, 0.3828])
    """
    from evalmc.criteria import kernels
    from evalmc.sims.items import type_counts

    code = ZERO_METHODS.index(zero_method)
    if type_counts(batch) is not None and batch.sizes[0] > EXACT_MAX:
        n_reps, n = batch.n_reps, batch.sizes[0]
        r_plus, n_zero, tie_term = _cell_rank_sums(batch, code)
    else:
        d = np.ascontiguousarray(batch.a - batch.b, dtype=float)
        n_reps, n = d.shape
        r_plus, tie_term = np.empty(n_reps), np.empty(n_reps)
        n_zero = np.empty(n_reps, np.int64)
        kernels.signed_rank_sums(d, code, r_plus, n_zero, tie_term)

    count = n - n_zero if zero_method == "wilcox" else np.full(n_reps, n)
    mean = count * (count + 1) / 4.0
    var = count * (count + 1) * (2.0 * count + 1)
    if zero_method == "pratt":
        mean = mean - n_zero * (n_zero + 1) / 4.0
        var = var - n_zero * (n_zero + 1) * (2.0 * n_zero + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - mean) / np.sqrt((var - tie_term / 2) / 24)
    p = 2.0 * scipy.special.ndtr(-np.abs(z))

    clean = (tie_term == 0) & (n_zero == 0)
    if n <= EXACT_MAX and clean.any():
        pmf = signed_rank_null(n)
        cdf, sf = np.cumsum(pmf), np.cumsum(pmf[::-1])[::-1]
        k = r_plus[clean].astype(np.int64)
        p[clean] = np.minimum(1.0, 2.0 * np.minimum(cdf[k], sf[k]))
    if n <= FLIP_MAX and not clean.all():
        kernels.sign_flip_pvalues(d, code, np.flatnonzero(~clean), p)
    return CriterionResult.from_pvalues(p, r_plus)
