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
    """Two-sided F-test of equal variances: ``F = var(a) / var(b)``, null F(n_a - 1, n_b - 1).

    Parameters
    ----------
    a, b : array_like, shape (n_a,) and (n_b,)
        Two samples of at least 2 finite values.

    Returns
    -------
    statistic, pvalue : float
        ``pvalue = 2 min(P(F <= f), P(F >= f))``, capped at 1; NaN when both variances are 0.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.stats.groups import f_test_variances
    >>> rng = np.random.default_rng(0)
    >>> f, p = f_test_variances(rng.normal(0, 1, 10), rng.normal(0, 3, 10))
    >>> round(f, 4), round(p, 4)
    (0.0809, 0.0009)
    """
    a, b = _check_groups([a, b])
    var_a, var_b = a.var(ddof=1), b.var(ddof=1)
    if var_a == 0 and var_b == 0:
        return float("nan"), float("nan")
    with np.errstate(divide="ignore"):
        f = var_a / var_b
    null = stats.f(a.size - 1, b.size - 1)
    return float(f), float(min(1.0, 2 * min(null.cdf(f), null.sf(f))))


def pairwise(groups, *, labels=None) -> pd.DataFrame:
    """Every pair of groups: Student's t-test, F-test of variances and Tukey's HSD p-values.

    Parameters
    ----------
    groups : list of array_like
        One 1-D sample per group.
    labels : list of str, optional
        Group names; default ``'0'``, ``'1'``, ...

    Returns
    -------
    DataFrame
        ``a``, ``b``, ``mean_diff`` (mean of a minus mean of b), ``t_p`` (pooled t-test),
        ``f_p`` (F-test of equal variances), ``tukey_p`` (Tukey's HSD over all the groups).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.stats.groups import pairwise
    >>> rng = np.random.default_rng(0)
    >>> groups = [rng.normal(0, 1, 10), rng.normal(0, 3, 10), rng.normal(1, 1, 10)]
    >>> pairwise(groups, labels=["A", "B", "C"]).round(4)
       a  b  mean_diff     t_p     f_p  tukey_p
    0  A  B     1.4378  0.1289  0.0009   0.1618
    1  A  C    -0.9172  0.0148  0.8756   0.4613
    2  B  C    -2.3550  0.0175  0.0006   0.0124
    """
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
    """One-way ANOVA of equal group means (scipy.stats.f_oneway): statistic and p-value.

    Parameters
    ----------
    groups : list of array_like
        At least 2 samples, each 1-D with at least 2 finite values.

    Returns
    -------
    statistic, pvalue : float
        The F statistic and its p-value.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.stats.groups import anova
    >>> rng = np.random.default_rng(0)
    >>> f, p = anova([rng.normal(0, 1, 10), rng.normal(0, 3, 10), rng.normal(1, 1, 10)])
    >>> round(f, 4), round(p, 4)
    (4.8537, 0.0158)
    """
    res = stats.f_oneway(*_check_groups(groups))
    return float(res.statistic), float(res.pvalue)
