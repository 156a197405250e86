"""Permutation tests of a mean difference, vectorized: paired (sign flips of ``a - b``) and
two-sample (relabellings). Every flip or split is enumerated up to :data:`EXACT_MAX` pairs or
:data:`EXACT_MAX_SPLITS` splits, as scipy; beyond, :data:`N_RESAMPLES` random ones, the observed
statistic counted on each side (Phipson and Smyth 2010)."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.registry import PERMUTATION_RESAMPLES as N_RESAMPLES
from evalmc.sims.base import Batch

EXACT_MAX = 16
#: Two-sample: every split enumerated when there are at most this many (scipy's rule).
EXACT_MAX_SPLITS = 9999
#: Most cells (replications x splits x runs of A) of an enumeration done in numpy rather than
#: by the Numba kernel, whose first compilation (seconds) dwarfs a block this small.
NUMPY_MAX_CELLS = 200_000


def permutation_paired(batch: Batch, rng: np.random.Generator) -> CriterionResult:
    """Two-sided p-values of the sign-flip test on ``a - b``, one per replication.

    Parameters
    ----------
    batch : Batch
        Paired scores, one row per replication.
    rng : numpy.random.Generator
        Draws the random sign flips beyond :data:`EXACT_MAX` pairs (unused below).

    Returns
    -------
    CriterionResult
        Two-sided p-values, with ``mean(a - b)`` as statistic and estimate; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> permutation_paired(batch, np.random.default_rng(0)).pvalue.round(4)  # all 2^8 flips
    array([0.0156, 0.2969])
    """
    from evalmc.criteria import kernels

    d = np.ascontiguousarray(batch.a - batch.b, dtype=float)
    p = np.empty(d.shape[0])
    if d.shape[1] <= EXACT_MAX:
        kernels.sign_flip_mean_pvalues(d, p)
    else:
        kernels.sign_flip_mean_mc(rng, d, N_RESAMPLES, p)
    return CriterionResult.from_pvalues(p, d.mean(axis=1), estimate=d.mean(axis=1))


def permutation_two_sample(batch: Batch, rng: np.random.Generator) -> CriterionResult:
    """Two-sided p-values of the relabelling test on ``mean(a) - mean(b)``, one per replication.

    Parameters
    ----------
    batch : Batch
        Scores of A and B, one row per replication.
    rng : numpy.random.Generator
        Draws the random relabellings when the splits are too many to enumerate.

    Returns
    -------
    CriterionResult
        Two-sided p-values, with ``mean(a) - mean(b)`` as statistic and estimate.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> permutation_two_sample(batch, np.random.default_rng(0)).pvalue.round(4)  # 12870 splits
    array([0.0054, 0.2728])
    """
    from evalmc.criteria import kernels

    a = np.ascontiguousarray(batch.a, dtype=float)
    b = np.ascontiguousarray(batch.b, dtype=float)
    p = np.empty(a.shape[0])
    splits = comb(a.shape[1] + b.shape[1], a.shape[1])
    if splits <= EXACT_MAX_SPLITS and a.shape[0] * splits * a.shape[1] <= NUMPY_MAX_CELLS:
        p = _relabel_exact_numpy(a, b)
    elif splits <= EXACT_MAX_SPLITS:
        kernels.relabel_mean_pvalues(a, b, p)
    else:
        kernels.relabel_mean_mc(rng, a, b, N_RESAMPLES, p)
    diff = a.mean(axis=1) - b.mean(axis=1)
    return CriterionResult.from_pvalues(p, diff, estimate=diff)


def _relabel_exact_numpy(a, b) -> np.ndarray:
    """``kernels.relabel_mean_pvalues`` in numpy: every sum taken in the kernel's order
    (``cumsum``, left to right), so the p-values are equal."""
    n_a, n_b = a.shape[1], b.shape[1]
    pooled = np.concatenate([a, b], axis=1)
    splits = np.array(list(itertools.combinations(range(n_a + n_b), n_a)))
    p = np.empty(a.shape[0])
    for i, row in enumerate(pooled):
        total, sum_a = np.cumsum(row)[-1], np.cumsum(a[i])[-1]
        observed = sum_a / n_a - (total - sum_a) / n_b
        tol = 1e-9 * np.cumsum(np.abs(row))[-1] * (1.0 / n_a + 1.0 / n_b)
        sums = np.cumsum(row[splits], axis=1)[:, -1]
        stat = sums / n_a - (total - sums) / n_b
        low = np.count_nonzero(stat <= observed + tol)
        high = np.count_nonzero(stat >= observed - tol)
        p[i] = min(1.0, 2.0 * min(low, high) / len(splits))
    return p
