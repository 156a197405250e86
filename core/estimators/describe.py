"""The descriptive report Giles and Lawrence (1997) recommend for a set of runs.

Median, interquartile range, minimum and maximum beside the mean and sd; the skewness; a
multimodality measure; normality tests; and a flag when ``mean - sd`` lies below the best
(smallest) result, where a reader assuming a Gaussian would expect about 16% of the runs.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from evalmc.criteria.normality import check_sample, ks_normal, lilliefors, shapiro_wilk

#: Sarle's bimodality coefficient of a uniform distribution; larger values suggest two modes.
BIMODALITY_THRESHOLD = 5 / 9

#: Keys of :func:`describe`, in report order.
KEYS = ("n", "mean", "sd", "median", "iqr", "min", "max", "skewness", "bimodality", "ks_d",
        "ks_p", "lilliefors_p", "shapiro_p", "mean_minus_sd_below_min")


def hinge_iqr(x) -> float:
    """Interquartile range as the paper defines it: the difference between the medians of the
    upper and lower halves of the sorted sample (Tukey's hinges; the median itself is left out
    of both halves when n is odd)."""
    x = np.sort(np.asarray(x, dtype=float))
    half = x.size // 2
    return float(np.median(x[x.size - half:]) - np.median(x[:half]))


def bimodality_coefficient(x) -> float:
    """Sarle's bimodality coefficient ``(g^2 + 1) / (k + 3 (n-1)^2 / ((n-2)(n-3)))``.

    ``g`` and ``k`` are the bias-corrected sample skewness and excess kurtosis. It is 1/3 for
    a Gaussian, 5/9 for a uniform; above 5/9 suggests a bimodal (or very skewed) sample.
    """
    x = check_sample(x, low=4)
    n = x.size
    g = stats.skew(x, bias=False)
    k = stats.kurtosis(x, bias=False)
    return float((g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))


def describe(x) -> dict:
    """Descriptive report of one set of run results (e.g. errors, lower is better).

    Parameters
    ----------
    x : array_like, shape (n,), n >= 4, not constant

    Returns
    -------
    dict
        ``n``, ``mean``, ``sd`` (ddof=1), ``median``, ``iqr`` (:func:`hinge_iqr`), ``min``,
        ``max``, ``skewness`` (bias-corrected), ``bimodality``
        (:func:`bimodality_coefficient`), ``ks_d`` and ``ks_p`` (the paper's K-S test,
        :func:`evalmc.criteria.normality.ks_normal`; conservative), ``lilliefors_p`` (the same
        distance judged with estimated mean and sd), ``shapiro_p``,
        ``mean_minus_sd_below_min`` (bool).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.estimators.describe import describe
    >>> report = describe(np.random.default_rng(0).lognormal(size=30))
    >>> round(report["skewness"], 3), round(report["shapiro_p"], 5)
    (1.499, 0.00022)
    """
    x = check_sample(x, low=4)
    mean, sd = float(x.mean()), float(x.std(ddof=1))
    ks = ks_normal(x)
    return {
        "n": int(x.size), "mean": mean, "sd": sd, "median": float(np.median(x)),
        "iqr": hinge_iqr(x), "min": float(x.min()), "max": float(x.max()),
        "skewness": float(stats.skew(x, bias=False)), "bimodality": bimodality_coefficient(x),
        "ks_d": ks.statistic, "ks_p": ks.pvalue, "lilliefors_p": lilliefors(x).pvalue,
        "shapiro_p": shapiro_wilk(x).pvalue,
        "mean_minus_sd_below_min": bool(mean - sd < x.min()),
    }


def describe_columns(data, columns=None) -> pd.DataFrame:
    """:func:`describe` of each column of `data`, one row per column (``column`` first).

    Parameters
    ----------
    data : DataFrame, dict of str to array_like, or array_like of shape (n,)
        A dict's samples may differ in length; a 1-D array is one sample, named ``0`` (a
        Series keeps its name).
    columns : str or list of str, optional
        Default: every numeric column.

    Returns
    -------
    DataFrame
    """
    samples = _samples(data)
    if columns is None:
        columns = [c for c, s in samples.items() if pd.api.types.is_numeric_dtype(s)]
    elif isinstance(columns, str):
        columns = [columns]
    if len(columns) == 0:
        raise ValueError("`columns` must name at least one numeric column.")
    rows = []
    for col in columns:
        if col not in samples:
            raise ValueError(f"`columns` must name columns of `data`; {col!r} is not one of "
                             f"{', '.join(map(str, samples))}.")
        raw = samples[col]
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            held = raw.iloc[bad[0]]
            held = repr(held) if isinstance(held, str) else held
            raise ValueError(f"column {col!r} must hold finite numbers only; data row "
                             f"{bad[0] + 1} holds {held}.")
        try:
            rows.append({"column": col, **describe(values)})
        except ValueError as err:
            raise ValueError(f"column {col!r}: {err}") from None
    return pd.DataFrame(rows, columns=["column", *KEYS])


def _samples(data) -> dict:
    """`data` as column name -> Series."""
    if isinstance(data, pd.DataFrame):
        return {c: data[c] for c in data.columns}
    if isinstance(data, Mapping):
        return {c: pd.Series(v) for c, v in data.items()}
    if isinstance(data, pd.Series):
        return {0 if data.name is None else data.name: data.reset_index(drop=True)}
    if np.ndim(data) != 1:
        raise ValueError("`data` must be a DataFrame, a dict of column name to runs or a 1-D "
                         f"array of runs; got {type(data).__name__} of {np.ndim(data)} "
                         "dimensions.")
    return {0: pd.Series(data)}
