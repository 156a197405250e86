"""t-tests vectorized over replications: paired, Student's (pooled) and Welch's."""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.special import stdtr

from sims.base import Batch


@njit(cache=True, nogil=True, error_model="numpy")
def _row_mean_var(x, sign_y, y, mean, var):
    """Mean and unbiased variance of each row of ``x + sign_y * y`` (two passes, no temporaries)."""
    n = x.shape[1]
    for i in range(x.shape[0]):
        s = 0.0
        for j in range(n):
            s += x[i, j] + sign_y * y[i, j]
        m = s / n
        ss = 0.0
        for j in range(n):
            d = x[i, j] + sign_y * y[i, j] - m
            ss += d * d
        mean[i] = m
        var[i] = ss / (n - 1)


def _moments(x, y=None):
    mean = np.empty(x.shape[0])
    var = np.empty(x.shape[0])
    if y is None:
        _row_mean_var(x, 0.0, x, mean, var)
    else:
        _row_mean_var(x, -1.0, y, mean, var)
    return mean, var


def _two_sided(t, df):
    with np.errstate(invalid="ignore"):
        return 2.0 * stdtr(df, -np.abs(t))


def paired_t(batch: Batch) -> np.ndarray:
    """Two-sided p-values of the paired t-test on ``a - b`` (as scipy.stats.ttest_rel)."""
    n = batch.a.shape[1]
    mean, var = _moments(batch.a, batch.b)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var / n)
    return _two_sided(t, n - 1)


def student_t(batch: Batch) -> np.ndarray:
    """Two-sided p-values of Student's pooled-variance t-test (ttest_ind, equal_var=True)."""
    n_a, n_b = batch.a.shape[1], batch.b.shape[1]
    mean_a, var_a = _moments(batch.a)
    mean_b, var_b = _moments(batch.b)
    df = n_a + n_b - 2
    pooled = ((n_a - 1) * var_a + (n_b - 1) * var_b) / df
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean_a - mean_b) / np.sqrt(pooled * (1.0 / n_a + 1.0 / n_b))
    return _two_sided(t, df)


def welch_t(batch: Batch) -> np.ndarray:
    """Two-sided p-values of Welch's t-test with Satterthwaite's df (ttest_ind, equal_var=False)."""
    n_a, n_b = batch.a.shape[1], batch.b.shape[1]
    mean_a, var_a = _moments(batch.a)
    mean_b, var_b = _moments(batch.b)
    va, vb = var_a / n_a, var_b / n_b
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean_a - mean_b) / np.sqrt(va + vb)
        df = (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1))
    return _two_sided(t, df)
