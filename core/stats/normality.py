"""Tests of whether one sample of run results is Gaussian.

The Kolmogorov-Smirnov test as Giles and Lawrence (1997) used it (after Numerical Recipes):
standardize the sample to mean 0 and sd 1, take ``D = max |S(x) - Phi(x)|`` and
``P = Q_KS((sqrt(N) + 0.12 + 0.11 / sqrt(N)) D)``. Because the mean and sd are estimated
from the same sample, this P is conservative (too large); Lilliefors' test corrects for it and
is given beside it. Shapiro-Wilk and Anderson-Darling come from scipy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.diagnostic import lilliefors as _sm_lilliefors

#: Series terms of Q_KS are summed until one is this small relative to the sum (NR: EPS2).
_Q_KS_RTOL = 1e-8
_Q_KS_MAX_TERMS = 100


@dataclass(frozen=True)
class NormalityResult:
    """A normality test's statistic and p-value (small p: not Gaussian)."""

    statistic: float
    pvalue: float


def q_ks(x) -> np.ndarray:
    """The Kolmogorov distribution's survival function by its series (Giles' eq. 2), summed to 1e-8
    of the sum; 1 for small `x`, where it does not settle within 100 terms (as NR's ``probks``)."""
    x = np.asarray(x, dtype=float)
    if np.any(x < 0) or not np.isfinite(x).all():
        raise ValueError("`x` must be finite and non-negative.")
    out = np.ones_like(x)
    for idx, value in np.ndenumerate(x):
        total, sign = 0.0, 1.0
        for j in range(1, _Q_KS_MAX_TERMS + 1):
            term = sign * 2.0 * np.exp(-2.0 * j * j * value * value)
            total += term
            if abs(term) <= _Q_KS_RTOL * abs(total):
                out[idx] = total
                break
            sign = -sign
    return out[()] if out.ndim == 0 else out


def check_sample(x, low=3) -> np.ndarray:
    """`x` as a 1-D float array of at least `low` finite, not all equal values, or ValueError."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size < low:
        raise ValueError(f"`x` must be a 1-D sample of at least {low} values; "
                         f"got shape {x.shape}.")
    if not np.isfinite(x).all():
        raise ValueError("`x` must hold finite values only.")
    if np.ptp(x) == 0:
        raise ValueError("`x` must not be constant: a constant sample has no shape to test.")
    return x


def ks_normal(x) -> NormalityResult:
    """Giles and Lawrence's K-S test of normality, D and P by the paper's equation (1), the sample
    standardized with its mean and its ``ddof=1`` sd (the paper does not name the divisor)."""
    x = check_sample(x)
    z = np.sort((x - x.mean()) / x.std(ddof=1))
    n = z.size
    cdf = stats.norm.cdf(z)
    d = max(np.max(np.arange(1, n + 1) / n - cdf), np.max(cdf - np.arange(n) / n))
    root = np.sqrt(n)
    return NormalityResult(float(d), float(q_ks((root + 0.12 + 0.11 / root) * d)))


def lilliefors(x) -> NormalityResult:
    """Lilliefors' K-S test with estimated mean and sd (statsmodels' table: p-values below 0.001
    given as 0.001)."""
    d, p = _sm_lilliefors(check_sample(x, low=4), dist="norm", pvalmethod="table")
    return NormalityResult(float(d), float(p))


def shapiro_wilk(x) -> NormalityResult:
    """Shapiro-Wilk test of normality (scipy.stats.shapiro)."""
    res = stats.shapiro(check_sample(x))
    return NormalityResult(float(res.statistic), float(res.pvalue))


def anderson_darling(x) -> NormalityResult:
    """Anderson-Darling test of normality; p interpolated in scipy's table (within [0.01, 0.15])."""
    res = stats.anderson(check_sample(x), dist="norm", method="interpolate")
    return NormalityResult(float(res.statistic), float(res.pvalue))
