"""Monte Carlo error of a rejection rate: standard error, Wilson interval, Bradley's judgement."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri

from evalmc.inputs.checks import check_float

#: Bradley's (1978) liberal criterion: a test is robust when its size lies in [0.5a, 1.5a].
BRADLEY_BAND = (0.5, 1.5)


def rate_mcse(k, n):
    """Rejection rate ``k / n`` and its Monte Carlo standard error ``sqrt(p (1 - p) / n)``; NaN
    where ``n == 0``."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(n > 0, k / n, np.nan)
        mcse = np.sqrt(rate * (1.0 - rate) / n)
    return rate, mcse


def wilson_interval(k, n, *, confidence=0.95):
    """Wilson score interval for a binomial proportion ``k / n``: 0 exactly at ``k == 0``, 1 at ``k
    == n``, NaN at ``n == 0``."""
    confidence = check_float("confidence", confidence, low=0, high=1, open_low=True, open_high=True)
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z = ndtri(0.5 + confidence / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1.0 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
        # at k = 0 and k = n the ends are 0 and 1 exactly; rounding would miss them by an ulp
        low = np.where(n > 0, np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0)), np.nan)
        high = np.where(n > 0, np.where(k == n, 1.0, np.clip(centre + half, 0.0, 1.0)), np.nan)
    return low, high


def bradley(ci_low, ci_high, alpha, *, band=BRADLEY_BAND):
    """Bradley's (1978) judgement of an empirical size from its Monte Carlo interval: 'liberal',
    'conservative' or 'robust' where the interval lies above, below or inside `band` times `alpha`,
    'undetermined' where it straddles an edge, None where it is NaN."""
    low = np.asarray(ci_low, dtype=float)
    high = np.asarray(ci_high, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    edge_low, edge_high = band[0] * alpha, band[1] * alpha
    label = np.select(
        [low > edge_high, high < edge_low, (low >= edge_low) & (high <= edge_high)],
        ["liberal", "conservative", "robust"], "undetermined").astype(object)
    label[np.isnan(low) | np.isnan(high)] = None
    return label
