"""Exact coverage and width of an interval for a binomial proportion: no simulation.

An interval for the rate ``theta`` of ``n`` Bernoulli answers that depends on the data only
through the count ``k`` of successes is a table of bounds ``(lo_k, hi_k)``, ``k = 0..n``. Its
coverage at a rate ``theta`` is the finite sum

    sum_k Binomial(k; n, theta) 1[lo_k <= theta <= hi_k]

(:func:`coverage_at`), and averaged over rates drawn from a ``Beta(a, b)`` prior, the set of
rates that ``k``'s interval covers being the interval itself,

    sum_k BetaBinomial(k; n, a, b) [I(hi_k; k + a, n - k + b) - I(lo_k; k + a, n - k + b)]

where ``I`` is the regularized incomplete Beta function (the posterior of ``theta`` given
``k`` is ``Beta(k + a, n - k + b)``; bounds are clipped to [0, 1]) (:func:`prior_coverage`).
The expected width under the prior is ``sum_k BetaBinomial(k; n, a, b) (hi_k - lo_k)``
(:func:`prior_width`). The Bayesian equal-tailed interval of the prior's own posterior
therefore covers exactly its level on average over that prior, whatever ``n``.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from evalmc.inputs.checks import check_float


def _table(lo, hi) -> tuple[np.ndarray, np.ndarray, int]:
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    if lo.ndim != 1 or lo.shape != hi.shape or lo.size < 2:
        raise ValueError(f"`lo` and `hi` must be 1-D of one length n + 1 >= 2 (a bound per "
                         f"count k = 0..n); got shapes {lo.shape} and {hi.shape}.")
    return lo, hi, lo.size - 1


def _prior(a, b) -> tuple[float, float]:
    return check_float("a", a, low=0, open_low=True), check_float("b", b, low=0, open_low=True)


def coverage_at(lo, hi, theta):
    """Exact coverage of the interval ``(lo_k, hi_k)``, ``k = 0..n``, at the rate(s) `theta`."""
    lo, hi, n = _table(lo, hi)
    theta = np.asarray(theta, dtype=float)
    if np.any((theta < 0) | (theta > 1)):
        raise ValueError("`theta` must be in [0, 1].")
    k = np.arange(n + 1)
    t = theta[..., None]
    covered = (lo <= t) & (t <= hi)
    return (stats.binom.pmf(k, n, t) * covered).sum(axis=-1)


def prior_coverage(lo, hi, a=1.0, b=1.0):
    """Exact coverage of the interval ``(lo_k, hi_k)`` averaged over rates from ``Beta(a, b)``."""
    lo, hi, n = _table(lo, hi)
    a, b = _prior(a, b)
    k = np.arange(n + 1)
    post_a, post_b = k + a, n - k + b
    inside = (special.betainc(post_a, post_b, np.clip(hi, 0, 1))
              - special.betainc(post_a, post_b, np.clip(lo, 0, 1)))
    return float((stats.betabinom.pmf(k, n, a, b) * np.maximum(inside, 0.0)).sum())


def prior_width(lo, hi, a=1.0, b=1.0):
    """Expected width of the interval ``(lo_k, hi_k)`` (bounds not clipped) when rates come from
    ``Beta(a, b)``."""
    lo, hi, n = _table(lo, hi)
    a, b = _prior(a, b)
    return float((stats.betabinom.pmf(np.arange(n + 1), n, a, b) * (hi - lo)).sum())
