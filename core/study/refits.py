"""Rates of a study run over refits of a fitted model, pooled, with the spread between refits.

The audit runs its null over ``K`` refits of the item model (:mod:`evalmc.sims.itemrefits`),
``n / K`` replications each, one condition per refit. Per procedure this module gives:

- the **pooled rate**, each refit weighted by its replications: the rate averaged over the
  fit's uncertainty;
- its **MCSE**, of a two-stage sample (refits drawn, then replications): ``sqrt(K / (K - 1)
  sum_k w_k^2 (p_k - p)^2)``, ``w_k`` a refit's share of the replications (the variance of a
  ratio estimator over the refits, which holds the between-refit and the binomial variance),
  never below the binomial ``sqrt(p (1 - p) / n)``; its Wilson interval and Bradley's label use
  the effective replications ``p (1 - p) / MCSE^2``; a mean (an interval's width) is pooled
  alike;
- the **spread between fits**: the standard deviation of the true rate between refits, from a
  one-way random-effects ANOVA of the 0/1 outcomes (refits the groups): ``sigma_b^2 = max(0,
  (MSB - MSW) / n_0)``, ``MSB = sum_k n_k (p_k - p)^2 / (K - 1)``, ``MSW = sum_k n_k p_k (1 -
  p_k) / (N - K)``, ``n_0 = (N - sum_k n_k^2 / N) / (K - 1)``; the Monte Carlo noise of each
  refit's rate is taken out, so it is 0 when the fit's uncertainty moves nothing; and the
  smallest and largest refit's rate.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalmc.stats.mcse import bradley, wilson_interval


def pool_summary(summary: pd.DataFrame, keys, rates: dict, means: dict | None = None,
                 ) -> pd.DataFrame:
    """A study's `summary` over refits (one condition each) pooled per procedure, with the spread
    between refits (module docstring).

    Parameters
    ----------
    summary : DataFrame
        A study's summary: one row per (refit, procedure), with ``n_reps`` and ``n_failed``.
    keys : sequence of str
        The columns naming a procedure (as ``criterion``, ``alpha``); with ``alpha`` among
        them, the first rate gets Bradley's label at it.
    rates : dict
        Each rate's column to its MCSE's column (``{"rate": "mcse"}``; one the summary lacks
        is left out); the first also gets
        its Wilson interval (``ci_low``, ``ci_high``) and ``fit_sd``, ``fit_low``, ``fit_high``.
    means : dict, optional
        Each mean's column (a width) to its MCSE's, pooled alike, by the two-stage MCSE.

    Returns
    -------
    DataFrame
        One row per procedure: `keys`, the pooled columns, ``refits``, ``n_reps`` and
        ``n_failed`` (summed over the refits).

    Examples
    --------
    >>> import pandas as pd
    >>> summary = pd.DataFrame({"criterion": ["t"] * 4, "alpha": [0.05] * 4,
    ...                         "rate": [0.04, 0.06, 0.05, 0.09], "mcse": [0.01] * 4,
    ...                         "n_reps": [200] * 4, "n_failed": [0] * 4})
    >>> out = pool_summary(summary, ["criterion", "alpha"], {"rate": "mcse"})
    >>> out[["rate", "mcse", "bradley", "fit_sd", "fit_low", "fit_high"]].round(4)
       rate    mcse       bradley  fit_sd  fit_low  fit_high
    0  0.06  0.0108  undetermined  0.0136     0.04      0.09
    """
    keys, means = list(keys), dict(means or {})
    (first, first_mcse), rows = next(iter(rates.items())), []
    for key, group in summary.groupby(keys, sort=False):
        n = (group["n_reps"] - group["n_failed"]).to_numpy(dtype=float)
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        for column, mcse in rates.items():
            if column not in group:  # a summary's optional rate (correct-sign power)
                continue
            pooled = _pooled(group[column].to_numpy(dtype=float), n)
            row[column], row[mcse] = pooled.pop("rate"), pooled.pop("mcse")
            if column == first:
                row.update(pooled)
        for column, mcse in means.items():
            row[column], row[mcse] = _mean(group[column].to_numpy(dtype=float),
                                           group[mcse].to_numpy(dtype=float), n)
        row.update(refits=len(group), n_reps=int(group["n_reps"].sum()),
                   n_failed=int(group["n_failed"].sum()))
        rows.append(row)
    out = pd.DataFrame(rows)
    out["ci_low"], out["ci_high"] = _wilson(out[first].to_numpy(), out[first_mcse].to_numpy(),
                                            out["n"].to_numpy())
    if "alpha" in keys:
        out["bradley"] = bradley(out["ci_low"], out["ci_high"], out["alpha"])
    return out.drop(columns="n")


def check_failures(summary: pd.DataFrame, by: str, limit: float) -> None:
    """Raise :class:`~evalmc.engine.scheduler.StudyError` for the first `by` (a criterion or an
    estimator) that failed in more than `limit` of its replications pooled over the refits (a
    study over refits lets each refit fail alone: a refit of a small file may sit where a
    procedure is undefined on most data sets)."""
    from evalmc.engine.scheduler import StudyError

    totals = summary.groupby(by, sort=False)[["n_reps", "n_failed"]].sum()
    for name, row in totals.iterrows():
        if row["n_failed"] > limit * row["n_reps"]:
            raise StudyError(f"{name!r} failed in {row['n_failed']} of {row['n_reps']} "
                             f"replications pooled over the refits of the fit (more than "
                             f"{limit:.0%}); audit it with refits=0, or leave it out.",
                             criterion=str(name), failed=int(row["n_failed"]),
                             done=int(row["n_reps"]))


def _pooled(p: np.ndarray, n: np.ndarray) -> dict:
    """The pooled rate of rates `p` over `n` replications each, its two-stage MCSE, the ANOVA's
    between-refit sd, the range, and the replications."""
    keep = (n > 0) & np.isfinite(p)
    p, n = p[keep], n[keep]
    k, total = len(p), n.sum()
    if k == 0:
        return {"rate": np.nan, "mcse": np.nan, "fit_sd": np.nan, "fit_low": np.nan,
                "fit_high": np.nan, "n": 0}
    pooled = float((n * p).sum() / total)
    binomial = np.sqrt(pooled * (1 - pooled) / total)
    if k > 1:
        msb = float((n * (p - pooled) ** 2).sum()) / (k - 1)
        msw = float((n * p * (1 - p)).sum()) / (total - k) if total > k else 0.0
        n0 = (total - float((n**2).sum()) / total) / (k - 1)
        fit_sd = float(np.sqrt(max(0.0, (msb - msw) / n0)))
    else:
        fit_sd = np.nan
    return {"rate": pooled, "mcse": float(max(_two_stage(p, n, pooled), binomial)),
            "fit_sd": fit_sd, "fit_low": float(p.min()), "fit_high": float(p.max()),
            "n": int(total)}


def _mean(x: np.ndarray, mcse: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    """The mean of per-refit means `x` weighted by `n`, and its two-stage MCSE (never below the
    refits' own MCSEs combined)."""
    keep = (n > 0) & np.isfinite(x)
    x, mcse, n = x[keep], mcse[keep], n[keep]
    if not len(x):
        return np.nan, np.nan
    w = n / n.sum()
    mean = float((w * x).sum())
    within = float(np.sqrt(np.nansum(w**2 * mcse**2)))
    return mean, max(_two_stage(x, n, mean), within)


def _two_stage(x: np.ndarray, n: np.ndarray, mean: float) -> float:
    """``sqrt(K / (K - 1) sum_k w_k^2 (x_k - mean)^2)``: the standard error of a weighted mean
    over `K` randomly drawn refits (0 for one)."""
    k = len(x)
    if k < 2:
        return 0.0
    w = n / n.sum()
    return float(np.sqrt(k / (k - 1) * float((w**2 * (x - mean) ** 2).sum())))


def _wilson(rate, mcse, n):
    """Wilson intervals at the effective replications ``p (1 - p) / mcse^2`` (``n`` where the
    rate is 0 or 1)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        effective = np.where((rate > 0) & (rate < 1) & (mcse > 0),
                             rate * (1 - rate) / mcse**2, n)
    effective = np.minimum(effective, n)
    return wilson_interval(rate * effective, effective)
