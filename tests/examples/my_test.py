"""Tests of one's own, as the README calibrates and audits them: ``--criterion my_test.py:yuen``."""

import numpy as np
from scipy import stats


def yuen(a, b):
    """Yuen's trimmed-mean t-test (20% trimming)."""
    return float(stats.ttest_ind(a, b, equal_var=False, trim=0.2).pvalue)


def welch(a, b, axis=-1):
    """Welch's t-test, written with numpy: called once per block of replications."""
    va, vb = a.var(axis=axis, ddof=1) / a.shape[axis], b.var(axis=axis, ddof=1) / b.shape[axis]
    t = (a.mean(axis=axis) - b.mean(axis=axis)) / np.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (a.shape[axis] - 1) + vb**2 / (b.shape[axis] - 1))
    return 2 * stats.t.sf(np.abs(t), df)


def clustered_t(a, b, clusters):
    """Cluster-robust t-test of mean(A - B): CR1, t on (clusters - 1) degrees of freedom."""
    d = a - b
    g = clusters.max() + 1
    resid = np.bincount(clusters, d - d.mean(), minlength=g)
    se = np.sqrt(g / (g - 1) * (resid**2).sum()) / d.size
    return float(2 * stats.t.sf(abs(d.mean() / se), g - 1))
