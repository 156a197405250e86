"""The descriptive report Giles and Lawrence (1997) recommend for a set of runs: median, IQR,
minimum and maximum beside the mean and sd, the skewness, a multimodality measure, normality
tests, and a flag when ``mean - sd`` lies below the best (smallest) result."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from evalmc.inputs.checks import check_choice
from evalmc.inputs.tables import is_score_column
from evalmc.stats.normality import check_sample, ks_normal, lilliefors, shapiro_wilk

#: Sarle's bimodality coefficient of a uniform distribution; larger values suggest two modes.
BIMODALITY_THRESHOLD = 5 / 9

#: Keys of :func:`describe`, in report order.
KEYS = ("n", "mean", "sd", "median", "iqr", "min", "max", "skewness", "bimodality", "ks_d",
        "ks_p", "lilliefors_p", "shapiro_p", "mean_minus_sd_below_min")


#: How the report's ``iqr`` is computed, as ``evalmc describe`` says under its table.
IQR_NOTE = ("iqr: the median of the upper half of the runs minus that of the lower half (the "
            "median itself left out when n is odd), not numpy's interpolated quartiles")


def hinge_iqr(x) -> float:
    """Interquartile range as the medians of the upper and lower halves of the sorted sample,
    the median left out of both when n is odd (numpy's default percentiles interpolate)."""
    x = np.sort(np.asarray(x, dtype=float))
    half = x.size // 2
    return float(np.median(x[x.size - half:]) - np.median(x[:half]))


def bimodality_coefficient(x) -> float:
    """Sarle's bimodality coefficient: 1/3 for a Gaussian, 5/9 for a uniform, more if bimodal."""
    x = check_sample(x, low=4)
    n = x.size
    g = stats.skew(x, bias=False)
    k = stats.kurtosis(x, bias=False)
    return float((g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))


def describe(x, *, best: str = "min") -> dict:
    """Descriptive report of one set of runs (n >= 4, not constant), a dict of :data:`KEYS` (the
    flag ``mean_plus_sd_above_max`` when `best` is 'max'), computed with exact power-of-2 scaling.
    """
    check_choice("best", best, ("min", "max"))
    x, power = _unit_scale(check_sample(x, low=4))
    mean, sd = float(x.mean()), float(x.std(ddof=1))
    ks = ks_normal(x)
    report = {"n": int(x.size), **_scaled_back({
        "mean": mean, "sd": sd, "median": np.median(x), "iqr": hinge_iqr(x), "min": x.min(),
        "max": x.max()}, power),
        "skewness": float(stats.skew(x, bias=False)), "bimodality": bimodality_coefficient(x),
        "ks_d": ks.statistic, "ks_p": ks.pvalue, "lilliefors_p": lilliefors(x).pvalue,
        "shapiro_p": shapiro_wilk(x).pvalue}
    if best == "min":
        return {**report, "mean_minus_sd_below_min": bool(mean - sd < x.min())}
    return {**report, "mean_plus_sd_above_max": bool(mean + sd > x.max())}


def _unit_scale(x: np.ndarray) -> tuple[np.ndarray, int]:
    """`x` divided by a power of two, and the power, when its magnitude is extreme (else 0)."""
    top = float(np.abs(x).max()) if x.size else 0.0
    power = int(np.frexp(top)[1]) if top and not 2.0**-400 < top < 2.0**400 else 0
    return np.ldexp(x, -power), power


def _scaled_back(values: dict, power: int) -> dict:
    """Each value of `values` as a float multiplied by ``2**power``."""
    return {key: float(np.ldexp(value, power)) for key, value in values.items()}


def describe_columns(data, columns=None, *, dropna: bool = True,
                     best: str = "min") -> pd.DataFrame:
    """:func:`describe` of each column of `data`, with ``n_missing`` and a ``note``."""
    check_choice("best", best, ("min", "max"))
    samples = _samples(data)
    if columns is None:
        columns = [c for c, s in samples.items() if is_score_column(s)]
    elif isinstance(columns, str):
        columns = [columns]
    if len(columns) == 0:
        raise ValueError("`columns` must name at least one column of numbers.")
    rows = []
    for col in columns:
        if col not in samples:
            raise ValueError(f"`columns` must name columns of `data`; {col!r} is not one of "
                             f"{', '.join(map(str, samples))}.")
        raw = samples[col]
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
        bad = np.flatnonzero((np.isnan(values) & raw.notna().to_numpy()) | np.isinf(values))
        missing = np.flatnonzero(np.isnan(values) & raw.isna().to_numpy())
        if bad.size or (missing.size and not dropna):
            row = bad[0] if bad.size else missing[0]
            held = raw.iloc[row]
            held = repr(held) if isinstance(held, str) else held
            rule = "finite numbers only" if bad.size else "no missing values (dropna=False)"
            raise ValueError(f"column {col!r} must hold {rule}; data row {row + 1} holds "
                             f"{held}.")
        with warnings.catch_warnings(record=True) as seen:  # scipy's, said in the column's note
            warnings.simplefilter("always")
            row = _describe_or_partial(values[~np.isnan(values)], best)
        said = list(dict.fromkeys(str(w.message) for w in seen))
        row["note"] = "; ".join(filter(None, [row["note"], *said]))
        rows.append({"column": col, **row, "n_missing": int(missing.size)})
    flag = "mean_minus_sd_below_min" if best == "min" else "mean_plus_sd_above_max"
    return pd.DataFrame(rows, columns=["column", *KEYS[:-1], flag, "n_missing", "note"])


def _describe_or_partial(x, best) -> dict:
    """:func:`describe` of `x`, or what can be said of a sample too short or constant."""
    if x.size >= 4 and np.ptp(x) > 0:
        return {**describe(x, best=best), "note": ""}
    if x.size == 0:
        return {"n": 0, "note": "no values"}
    note = ("constant: no shape" if x.size >= 2 and np.ptp(x) == 0
            else f"{x.size} value{'s' * (x.size > 1)}: shape needs 4")
    x, power = _unit_scale(x)
    return {"n": int(x.size), **_scaled_back({
        "mean": x.mean(), "sd": x.std(ddof=1) if x.size > 1 else np.nan,
        "median": np.median(x), "min": x.min(), "max": x.max()}, power), "note": note}


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
