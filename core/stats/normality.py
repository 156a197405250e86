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
    """A normality test's statistic and p-value (small p: not Gaussian).

    Attributes
    ----------
    statistic : float
        The test's statistic (D for the K-S tests, W for Shapiro-Wilk, A^2 for
        Anderson-Darling).
    pvalue : float

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.stats.normality import shapiro_wilk
    >>> res = shapiro_wilk(np.random.default_rng(0).normal(size=30))
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (0.9752, 0.6879)
    """

    statistic: float
    pvalue: float


def q_ks(x) -> np.ndarray:
    """The Kolmogorov distribution's survival function, by its series (Giles' eq. 2).

    ``Q_KS(x) = 2 sum_{j >= 1} (-1)^(j-1) exp(-2 j^2 x^2)``, summed until a term falls below
    1e-8 of the sum. For small `x` the series does not settle within 100 terms; there
    ``Q_KS = 1`` to double precision and 1 is returned, as Numerical Recipes' ``probks`` does.

    Parameters
    ----------
    x : array_like of float, >= 0

    Returns
    -------
    ndarray or float
        Shaped as `x` (a float for a scalar `x`).

    Examples
    --------
    >>> from evalmc.stats.normality import q_ks
    >>> q_ks([0.5, 1.0, 1.36]).round(4).tolist()
    [0.9639, 0.27, 0.0495]
    """
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
    """`x` as a 1-D float array of at least `low` finite, not all equal values, or ValueError.

    Parameters
    ----------
    x : array_like
        The sample.
    low : int
        Fewest values the test needs.

    Returns
    -------
    ndarray of float, shape (n,)

    Examples
    --------
    >>> from evalmc.stats.normality import check_sample
    >>> check_sample([1, 2, 3]).tolist()
    [1.0, 2.0, 3.0]
    >>> check_sample([2, 2, 2])
    Traceback (most recent call last):
    ...
    ValueError: `x` must not be constant: a constant sample has no shape to test.
    """
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
    """Giles and Lawrence's K-S test of normality: D and P by equation (1) of the paper.

    The sample is standardized with its mean and its unbiased sd (``ddof=1``; the paper says
    "zero mean and unit variance" without naming the divisor).

    Parameters
    ----------
    x : array_like, shape (n,), n >= 3

    Returns
    -------
    NormalityResult
        ``statistic`` D, ``pvalue`` P.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.stats.normality import ks_normal
    >>> res = ks_normal(np.random.default_rng(0).normal(size=30))
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (0.0916, 0.954)
    """
    x = check_sample(x)
    z = np.sort((x - x.mean()) / x.std(ddof=1))
    n = z.size
    cdf = stats.norm.cdf(z)
    d = max(np.max(np.arange(1, n + 1) / n - cdf), np.max(cdf - np.arange(n) / n))
    root = np.sqrt(n)
    return NormalityResult(float(d), float(q_ks((root + 0.12 + 0.11 / root) * d)))


def lilliefors(x) -> NormalityResult:
    """Lilliefors' K-S test of normality with estimated mean and sd (statsmodels' table).

    The table's p-values stop at 0.001: smaller ones are reported as 0.001.

    Parameters
    ----------
    x : array_like, shape (n,), n >= 4

    Returns
    -------
    NormalityResult
        ``statistic`` D (as :func:`ks_normal`'s), ``pvalue`` from Lilliefors' table.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.stats.normality import lilliefors
    >>> res = lilliefors(np.random.default_rng(0).normal(size=30))
    >>> round(res.statistic, 4), round(res.pvalue, 4)  # the same D; a smaller, correct P
    (0.0916, 0.744)
    """
    d, p = _sm_lilliefors(check_sample(x, low=4), dist="norm", pvalmethod="table")
    return NormalityResult(float(d), float(p))


def shapiro_wilk(x) -> NormalityResult:
    """Shapiro-Wilk test of normality (scipy.stats.shapiro).

    Parameters
    ----------
    x : array_like, shape (n,), n >= 3

    Returns
    -------
    NormalityResult
        ``statistic`` W, ``pvalue``.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.stats.normality import shapiro_wilk
    >>> res = shapiro_wilk(np.random.default_rng(0).exponential(size=30))
    >>> print(f"W = {res.statistic:.4f}, p = {res.pvalue:.1e}")
    W = 0.7928, p = 4.9e-05
    """
    res = stats.shapiro(check_sample(x))
    return NormalityResult(float(res.statistic), float(res.pvalue))


def anderson_darling(x) -> NormalityResult:
    """Anderson-Darling test of normality; p interpolated in scipy's table (within [0.01, 0.15]).

    Parameters
    ----------
    x : array_like, shape (n,), n >= 3

    Returns
    -------
    NormalityResult
        ``statistic`` A^2, ``pvalue`` clipped to [0.01, 0.15].

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.stats.normality import anderson_darling
    >>> res = anderson_darling(np.random.default_rng(0).exponential(size=30))
    >>> round(res.statistic, 4), res.pvalue
    (1.6938, 0.01)
    """
    res = stats.anderson(check_sample(x), dist="norm", method="interpolate")
    return NormalityResult(float(res.statistic), float(res.pvalue))
