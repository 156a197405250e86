"""The audit's answer: the procedure to report on data like the user's, or why there is none.

The recommended procedure is the most powerful one whose size the audit judges robust: its
95% Wilson interval lies inside Bradley's liberal band, [0.5 alpha, 1.5 alpha] (an
"undetermined" size, whose interval straddles an edge, is not robust). Most powerful means the
smallest minimum detectable difference at 80% power; a procedure that never reaches 80% ranks
after every one that does, by its mean power over the differences simulated. The answer gives
its p-value on the data, the interval of A - B that goes with it (its registry row's
``interval``, when the audit ran that interval) and what it assumes (its registry row's
description).

When no procedure is robust the answer says why, procedure by procedure, and what would
decide or change that: the replications that would tell an undetermined size from the band's
edge, and with few clusters the number the data have.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from evalmc.study.pvalues import p_is

#: z of the 95% Wilson interval Bradley's label is read from.
_Z = 1.959963984540054


def recommend(sizes: pd.DataFrame, power: pd.DataFrame, detectable: pd.DataFrame,
              observed: pd.DataFrame, *, alpha: float, n_reps: int,
              n_clusters: int | None = None) -> dict:
    """The procedure to report, from an audit's tables, or the reasons there is none.

    Parameters
    ----------
    sizes, power, detectable, observed : DataFrame
        The tables of :class:`~evalmc.study.audit.AuditResult`.
    alpha : float
        The level the sizes were judged at.
    n_reps : int
        Replications under the null (for the replications an undetermined size needs).
    n_clusters : int, optional
        Clusters of the data, named in the reasons when no procedure holds.

    Returns
    -------
    dict
        ``procedure`` (None when none holds), ``pvalue``, ``interval`` (its name, or None),
        ``low``, ``high``, ``assumes``, and ``line``: the recommendation in one sentence.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.study.recommend import recommend
    >>> sizes = pd.DataFrame({"procedure": ["clustered-z", "paired-items"],
    ...                       "rate": [0.051, 0.21], "mcse": [0.002, 0.004],
    ...                       "bradley": ["robust", "liberal"]})
    >>> power = pd.DataFrame({"procedure": ["clustered-z"] * 2, "delta": [0.01, 0.02],
    ...                       "power": [0.4, 0.9]})
    >>> detectable = pd.DataFrame({"procedure": ["clustered-z", "paired-items"],
    ...                            "mdd": [0.016, 0.008]})
    >>> observed = pd.DataFrame({"name": ["clustered-z", "paired-items", "clustered-interval"],
    ...                          "pvalue": [0.03, 0.001, float("nan")],
    ...                          "low": [float("nan")] * 2 + [0.001],
    ...                          "high": [float("nan")] * 2 + [0.02]})
    >>> print(recommend(sizes, power, detectable, observed, alpha=0.05, n_reps=10_000)["line"])
    Report clustered-z: the most powerful procedure that holds its level on data like yours \
(size 0.0510, MCSE 0.0020; it detects 0.016 with 80% power); p = 0.03 on your data, \
clustered-interval [0.001, 0.02]. It is a z-test of mean(A - B) with cluster-robust (CR0) \
standard error.
    """
    robust = sizes[sizes["bradley"] == "robust"]
    if robust.empty:
        return _none(sizes, alpha=alpha, n_reps=n_reps, n_clusters=n_clusters)
    name = _most_powerful(robust["procedure"].tolist(), power, detectable)
    size = robust[robust["procedure"] == name].iloc[0]
    mdd = float(detectable.loc[detectable["procedure"] == name, "mdd"].iloc[0])
    pvalue = _lookup(observed, name, "pvalue")
    interval = _interval_of(name)
    low = _lookup(observed, interval, "low") if interval else np.nan
    high = _lookup(observed, interval, "high") if interval else np.nan
    reach = ("it does not reach 80% power at the differences simulated" if np.isnan(mdd)
             else f"it detects {mdd:.2g} with 80% power")
    shown = (f"; {p_is(pvalue, _resamples(observed, name))} on your data" + (
        f", {interval} [{_g(low)}, {_g(high)}]" if interval and not np.isnan(low) else ""))
    assumes = _description(name)
    line = (f"Report {name}: the most powerful procedure that holds its level on data like "
            f"yours (size {size['rate']:.4f}, MCSE {size['mcse']:.4f}; {reach}){shown}."
            + (f" It is a {assumes}." if assumes else ""))
    return {"procedure": name, "pvalue": pvalue, "interval": interval, "low": low,
            "high": high, "assumes": assumes, "line": line}


def _most_powerful(names, power, detectable) -> str:
    """The name with the smallest minimum detectable difference; those that never reach 80%
    after, by mean power; ties keep the audit's order."""
    def key(name):
        mdd = detectable.loc[detectable["procedure"] == name, "mdd"]
        mdd = float(mdd.iloc[0]) if len(mdd) else np.nan
        curve = power.loc[(power["procedure"] == name) & (power["delta"] > 0), "power"]
        return (np.isnan(mdd), mdd if not np.isnan(mdd) else -float(curve.mean() or 0.0))
    return min(names, key=key)


def _none(sizes, *, alpha, n_reps, n_clusters) -> dict:
    """No procedure holds its level: why, and what would decide or change it."""
    low, high = 0.5 * alpha, 1.5 * alpha
    reasons = []
    for _, row in sizes.iterrows():
        rate = float(row["rate"])
        if row["bradley"] == "undetermined":
            edge = low if abs(rate - low) < abs(rate - high) else high
            gap = abs(rate - edge)
            needed = (math.ceil(_Z ** 2 * rate * (1 - rate) / gap ** 2) if gap > 0
                      else None)
            more = (f"about {needed:,} replications (--reps) would tell it from the edge "
                    f"{edge:g}" if needed and needed > n_reps else "it sits on the edge")
            reasons.append(f"{row['procedure']} is undetermined (size {rate:.4f}): {more}")
        else:
            reasons.append(f"{row['procedure']} is {row['bradley']} (size {rate:.4f})")
    few = (f" With {n_clusters} clusters, a test that treats them as many is liberal: a "
           "small-sample cluster-robust test (CR2 with t(G - 1)) or a wild cluster bootstrap "
           "holds better, and more clusters (another cluster level, if the design has one) "
           "or more items would narrow every interval." if n_clusters and n_clusters < 50
           else "")
    line = ("No procedure audited holds its level on data like yours (Bradley's band "
            f"[{low:g}, {high:g}]): " + "; ".join(reasons) + "." + few)
    return {"procedure": None, "pvalue": np.nan, "interval": None, "low": np.nan,
            "high": np.nan, "assumes": "", "line": line}


def _lookup(observed, name, column) -> float:
    rows = observed.loc[observed["name"] == name, column]
    return float(rows.iloc[0]) if len(rows) else np.nan


def _resamples(observed, name):
    """The resamples of procedure `name`'s p-value (None without a ``resamples`` column)."""
    rows = observed.loc[observed["name"] == name, "resamples"] if (
        "resamples" in observed) else ()
    return rows.iloc[0] if len(rows) else None


def _registry_entry(name):
    from evalmc.criteria import CRITERIA

    base = name.split("(", 1)[0]
    return CRITERIA[base] if base in CRITERIA else None


def _interval_of(name) -> str | None:
    entry = _registry_entry(name)
    return entry.facts.get("interval") if entry is not None else None


def _description(name) -> str:
    entry = _registry_entry(name)
    return entry.description if entry is not None else ""


def _g(value) -> str:
    return "-" if value is None or np.isnan(value) else f"{value:.4g}"
