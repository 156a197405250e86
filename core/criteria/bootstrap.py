"""Bootstrap tests of a mean difference, vectorized: reject "A = B" when 0 is outside
scipy.stats.bootstrap's interval (percentile, basic or BCa) of ``mean(a - b)`` or
``mean(a) - mean(b)``. A p-value is the smallest alpha whose ``1 - alpha`` interval excludes
0 (bisection), so that ``p <= alpha`` is the interval's decision at every level."""

from __future__ import annotations

import numpy as np

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.registry import BOOTSTRAP_RESAMPLES as N_RESAMPLES
from evalmc.inputs.checks import check_choice, check_int
from evalmc.sims.base import Batch

METHODS = ("bca", "percentile", "basic")
#: Replications resampled at once: bounds the replicates held in memory.
ROWS = 100
_BISECTIONS = 52


def bootstrap_mean(batch: Batch, rng: np.random.Generator, *, method: str = "bca",
                   paired: bool = False, n_resamples: int = N_RESAMPLES) -> CriterionResult:
    """Two-sided p-values of the bootstrap-interval test of a mean difference, one per
    replication (NaN where the interval is undefined: BCa on constant scores).

    Parameters
    ----------
    batch : Batch
        Scores of A and B, one row per replication.
    rng : numpy.random.Generator
        Draws the resamples.
    method : {'bca', 'percentile', 'basic'}
        The interval, as scipy.stats.bootstrap's `method`.
    paired : bool
        Resample the differences ``a - b`` (a paired batch), else A and B independently.
    n_resamples : int
        Bootstrap replicates per replication.

    Returns
    -------
    CriterionResult
        Two-sided p-values, with the mean difference as statistic and estimate.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> bootstrap_mean(batch, np.random.default_rng(0), n_resamples=999).pvalue.round(4)
    array([0.    , 0.3077])
    >>> bootstrap_mean(batch, np.random.default_rng(0), method="percentile", paired=True,
    ...                n_resamples=999).pvalue.round(4)
    array([0.    , 0.2451])
    """
    from evalmc.criteria import kernels

    check_choice("method", method, METHODS)
    check_int("n_resamples", n_resamples, low=1)
    a, b = _samples(batch, paired)
    estimate = _estimate(a, b)
    accel = _acceleration(a, b) if method == "bca" else None
    p = np.empty(a.shape[0])
    replicates = np.empty((min(ROWS, a.shape[0]), n_resamples))
    for start in range(0, a.shape[0], ROWS):
        rows = slice(start, start + ROWS)
        out = replicates[:a[rows].shape[0]]
        kernels.bootstrap_mean_diffs(rng, a[rows], b[rows], out)
        p[rows] = interval_pvalues(estimate[rows], out, method,
                                   None if accel is None else accel[rows])
    return CriterionResult.from_pvalues(p, estimate, estimate=estimate)


def _samples(batch, paired):
    a = np.asarray(batch.a, dtype=float)
    b = np.asarray(batch.b, dtype=float)
    if paired:
        return np.ascontiguousarray(a - b), np.empty((a.shape[0], 0))
    return np.ascontiguousarray(a), np.ascontiguousarray(b)


def _estimate(a, b):
    return a.mean(axis=1) - (b.mean(axis=1) if b.shape[1] else 0.0)


def _acceleration(a, b):
    """The jackknife acceleration of a mean difference (B's influences with the opposite sign)."""
    num = np.zeros(a.shape[0])
    den = np.zeros(a.shape[0])
    for x, sign in ((a, 1.0), (b, -1.0)):
        if x.shape[1]:
            u = sign * (x - x.mean(axis=1, keepdims=True))
            n = x.shape[1]
            num += (u**3).sum(axis=1) / n**3
            den += (u**2).sum(axis=1) / n**2
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / den**1.5 / 6


def interval_pvalues(estimate, replicates, method, accel=None) -> np.ndarray:
    """Smallest alpha whose ``1 - alpha`` interval of each row excludes 0 (sorts `replicates`)."""
    from scipy.special import ndtr, ndtri

    replicates.sort(axis=1)
    if method == "bca":
        share = ((replicates < estimate[:, None]).sum(axis=1)
                 + (replicates <= estimate[:, None]).sum(axis=1)) / (2 * replicates.shape[1])
        z0 = ndtri(share)

    def excludes_zero(alpha):
        levels = np.stack([alpha / 2, 1 - alpha / 2], axis=1)
        if method == "bca":
            z = z0[:, None] + ndtri(levels)
            with np.errstate(invalid="ignore", divide="ignore"):
                levels = ndtr(z0[:, None] + z / (1 - accel[:, None] * z))
        low, high = _quantiles(replicates, levels[:, 0]), _quantiles(replicates, levels[:, 1])
        if method == "basic":
            low, high = 2 * estimate - high, 2 * estimate - low
        return (low > 0) | (high < 0)

    n = replicates.shape[0]
    low, high = np.zeros(n), np.ones(n)
    for _ in range(_BISECTIONS):
        mid = (low + high) / 2
        out = excludes_zero(mid)
        high = np.where(out, mid, high)
        low = np.where(out, low, mid)
    p = np.where(excludes_zero(np.ones(n)), high, 1.0)
    undefined = np.isnan(estimate) if accel is None else np.isnan(estimate) | np.isnan(accel)
    return np.where(undefined, np.nan, p)


def _quantiles(sorted_rows, levels):
    """Linear-interpolation quantile of each sorted row at its own level (NaN level: NaN)."""
    size = sorted_rows.shape[1]
    h = (size - 1) * levels
    j = np.clip(np.floor(np.nan_to_num(h)), 0, max(size - 2, 0)).astype(np.int64)
    g = h - j
    rows = np.arange(sorted_rows.shape[0])
    upper = np.minimum(j + 1, size - 1)
    return sorted_rows[rows, j] + g * (sorted_rows[rows, upper] - sorted_rows[rows, j])

