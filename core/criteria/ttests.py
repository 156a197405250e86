"""t-tests vectorized over replications: paired, Student's (pooled) and Welch's.

They read only the batch's sample moments, so on Gaussian scenarios no score is ever drawn."""

from __future__ import annotations

import numpy as np
import scipy

from evalmc.criteria.base import CriterionResult
from evalmc.sims.base import Batch


def paired_t(batch: Batch) -> CriterionResult:
    """Paired t-test on ``a - b`` (as scipy.stats.ttest_rel): ``t = mean(d) / sqrt(var(d) / n)``
    from the batch's :meth:`~evalmc.sims.base.Batch.diff_moments`; null t(n - 1).

    Parameters
    ----------
    batch : Batch
        Paired scores, one row per replication.

    Returns
    -------
    CriterionResult
        The t statistics with their null ``('t', (n - 1,))``, and the estimate ``mean(a - b)``.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> paired_t(batch).pvalues().round(4)  # scipy.stats.ttest_rel(a, b, axis=1)
    array([0.0117, 0.2937])
    """
    n = batch.sizes[0]
    mean, var = batch.diff_moments()
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var / n)
    return CriterionResult.from_statistic(t, ("t", (n - 1,)), estimate=mean)


def student_t(batch: Batch) -> CriterionResult:
    """Student's pooled-variance t-test (ttest_ind, equal_var=True); null t(n_a + n_b - 2).

    Parameters
    ----------
    batch : Batch
        Scores of A and B, one row per replication (paired or not).

    Returns
    -------
    CriterionResult
        The t statistics with their null, and the estimate ``mean(a) - mean(b)``.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> student_t(batch).pvalues().round(4)  # scipy.stats.ttest_ind(a, b, axis=1)
    array([0.0038, 0.2909])
    """
    n_a, n_b = batch.sizes
    mean_a, var_a, mean_b, var_b = batch.moments()
    df = n_a + n_b - 2
    pooled = ((n_a - 1) * var_a + (n_b - 1) * var_b) / df
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean_a - mean_b) / np.sqrt(pooled * (1.0 / n_a + 1.0 / n_b))
    return CriterionResult.from_statistic(t, ("t", (df,)), estimate=mean_a - mean_b)


#: Squared standard errors between these are squared as they are in Satterthwaite's df;
#: outside, they are first divided by the larger one (their squares would overflow or underflow).
_PLAIN_SE2 = (1e-150, 1e150)


def welch_df(va, vb, n_a: int, n_b: int) -> np.ndarray:
    """Satterthwaite's df of Welch's t from the squared standard errors ``va = var_a / n_a``
    and ``vb``, without overflow: NaN where both are 0 (or not finite)."""
    va, vb = np.asarray(va, dtype=float), np.asarray(vb, dtype=float)
    big = np.maximum(va, vb)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        df = (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1))
        scale = ~((big > _PLAIN_SE2[0]) & (big < _PLAIN_SE2[1]))
        if scale.any():  # the same ratio of the shares va / big and vb / big
            ra, rb = va[scale] / big[scale], vb[scale] / big[scale]
            df[scale] = (ra + rb) ** 2 / (ra**2 / (n_a - 1) + rb**2 / (n_b - 1))
    return df


def welch_statistic(batch: Batch):
    """Welch's t of ``mean(a) - mean(b)`` and Satterthwaite's df, per replication."""
    n_a, n_b = batch.sizes
    mean_a, var_a, mean_b, var_b = batch.moments()
    va, vb = var_a / n_a, var_b / n_b
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean_a - mean_b) / np.sqrt(va + vb)
    return t, welch_df(va, vb, n_a, n_b)


def welch_t(batch: Batch) -> CriterionResult:
    """Welch's t-test with Satterthwaite's df (ttest_ind, equal_var=False).

    Parameters
    ----------
    batch : Batch
        Scores of A and B, one row per replication.

    Returns
    -------
    CriterionResult
        Two-sided p-values, the t statistics and the estimate ``mean(a) - mean(b)``.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> welch_t(batch).pvalue.round(4)  # scipy.stats.ttest_ind(a, b, axis=1, equal_var=False)
    array([0.004 , 0.2911])
    """
    t, df = welch_statistic(batch)
    with np.errstate(invalid="ignore"):
        p = 2.0 * scipy.special.stdtr(df, -np.abs(t))
    mean_a, var_a, mean_b, var_b = batch.moments()
    result = CriterionResult.from_pvalues(p, t, estimate=mean_a - mean_b)
    result.errors.update(dict.fromkeys(
        (int(i) for i in np.flatnonzero(np.isnan(p) & (np.isinf(var_a) | np.isinf(var_b)))),
        OVERFLOW_ERROR))
    return result


#: A replication whose sample variance is beyond the floats fails with this message.
OVERFLOW_ERROR = "no result (a sample variance above 1.8e308, beyond the floats)"
