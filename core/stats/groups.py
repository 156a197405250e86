"""Tests on several groups of runs: pairwise t- and F-tests, one-way ANOVA, Tukey's HSD.

Giles and Lawrence (1997) compare network types (groups of runs) on random data: pairwise
t-tests "find" differences, the F-test of two variances says the t-test's assumption often
fails, and ANOVA with Tukey's HSD keeps the family-wise error rate. Each function takes a list
of 1-D samples and returns a tidy frame, one row per pair (or one row for ANOVA).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy import stats


def _check_groups(groups) -> list[np.ndarray]:
    groups = [np.asarray(g, dtype=float) for g in groups]
    if len(groups) < 2:
        raise ValueError(f"`groups` must hold at least 2 samples; got {len(groups)}.")
    for i, g in enumerate(groups):
        if g.ndim != 1 or g.size < 2 or not np.isfinite(g).all():
            raise ValueError(f"`groups` must be 1-D finite samples of at least 2 values; "
                             f"group {i} has shape {g.shape}.")
    return groups


def f_test_variances(a, b) -> tuple[float, float]:
    """Two-sided F-test of equal variances, ``F = var(a) / var(b)`` against F(n_a - 1, n_b - 1):
    statistic and p-value (capped at 1; NaN when both variances are 0)."""
    a, b = _check_groups([a, b])
    var_a, var_b = a.var(ddof=1), b.var(ddof=1)
    if var_a == 0 and var_b == 0:
        return float("nan"), float("nan")
    with np.errstate(divide="ignore"):
        f = var_a / var_b
    null = stats.f(a.size - 1, b.size - 1)
    return float(f), float(min(1.0, 2 * min(null.cdf(f), null.sf(f))))


def pairwise(groups, *, labels=None) -> pd.DataFrame:
    """Every pair of groups: ``a``, ``b``, ``mean_diff``, and the p-values of Student's t-test
    (``t_p``), the F-test of variances (``f_p``) and Tukey's HSD over all groups (``tukey_p``)."""
    groups = _check_groups(groups)
    labels = [str(i) for i in range(len(groups))] if labels is None else list(labels)
    if len(labels) != len(groups):
        raise ValueError(f"`labels` must name each of the {len(groups)} groups; "
                         f"got {len(labels)}.")
    tukey = stats.tukey_hsd(*groups).pvalue
    rows = []
    for i, j in itertools.combinations(range(len(groups)), 2):
        rows.append({"a": labels[i], "b": labels[j],
                     "mean_diff": groups[i].mean() - groups[j].mean(),
                     "t_p": float(stats.ttest_ind(groups[i], groups[j]).pvalue),
                     "f_p": f_test_variances(groups[i], groups[j])[1],
                     "tukey_p": float(tukey[i, j])})
    return pd.DataFrame(rows)


def anova(groups) -> tuple[float, float]:
    """One-way ANOVA of equal group means (scipy.stats.f_oneway): statistic and p-value."""
    res = stats.f_oneway(*_check_groups(groups))
    return float(res.statistic), float(res.pvalue)
