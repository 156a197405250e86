"""Intervals of ``mean(A - B)`` that keep their coverage with few clusters: the tests of
:mod:`evalmc.criteria.cluster_robust` inverted.

``mean +- q se``: the CR1 or CR2 standard error with the ``(1 + level) / 2`` quantile q of t
with G - 1 or Bell-McCaffrey's degrees of freedom; the wild cluster bootstrap's interval is the
symmetric percentile-t of the unrestricted bootstrap (WCU): ``mean +- c se_CR1``, c the
``ceil(level B)``-th smallest ``|t*|`` of B draws ``S*_g = n_g mean + v_g E_g`` (E_g the
clusters' residual sums), the set of means the WCU test ``#{|t*| >= |t|} / B > 1 - level``
keeps. (The restricted bootstrap of the test imposes each candidate mean in turn; its inversion
needs a search per replication, which this interval avoids.)"""

from __future__ import annotations

import numpy as np

from evalmc.criteria.cluster_robust import WEIGHTS, cluster_fit, cluster_se, t_df, wild_abs_t
from evalmc.estimators.intervals import EstimateResult, Estimator
from evalmc.estimators.items import _level
from evalmc.estimators.registry import CLUSTER_BOOT
from evalmc.inputs.checks import check_choice, check_int


def _interval(mean: np.ndarray, half: np.ndarray) -> EstimateResult:
    """``mean +- half``; a NaN half-width (one cluster) fails its replication."""
    bad = np.isnan(mean) | np.isnan(half)
    return EstimateResult(mean, mean - half, mean + half, bad, {
        int(i): "no interval (fewer than two clusters)" for i in np.flatnonzero(bad)})


def _t_interval(level: float, se: str, df: str) -> Estimator:
    """``mean +- t_df((1 + level) / 2) se``, the interval of
    :func:`~evalmc.criteria.cluster_robust.cluster_t`."""
    level, _ = _level(level)

    def func(batch, rng):
        from scipy.special import stdtrit

        _, sizes, mean, resid = cluster_fit(batch)
        with np.errstate(invalid="ignore"):
            half = stdtrit(t_df(sizes, df), (1 + level) / 2) * cluster_se(resid, sizes, se)
        return _interval(mean, half)

    return Estimator("", "", func, level)


def cr1_t_interval(level: float = 0.95) -> Estimator:
    """The ``cr1-t-interval`` family: ``mean(d) +- t_(G-1) se_CR1``, the interval of ``cr1-t``.

    Parameters
    ----------
    level : float
        Nominal coverage, in (0, 1).

    Returns
    -------
    Estimator

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.estimators.intervals import get_estimator
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((1, 40)) < 0.7) * 1.0, (rng.random((1, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_sizes=(4, 4, 8, 2, 10, 6, 6))
    >>> result = get_estimator("cr1-t-interval")(batch, None)
    >>> result.estimate, result.low.round(4), result.high.round(4)
    (array([0.025]), array([-0.1482]), array([0.1982]))
    """
    return _t_interval(level, "CR1", "clusters")


def cr2_t_interval(level: float = 0.95) -> Estimator:
    """The ``cr2-t-interval`` family: ``mean(d) +- t_(G-1) se_CR2`` (Bell and McCaffrey 2002),
    the interval of ``cr2-t``.

    Parameters
    ----------
    level : float
        Nominal coverage, in (0, 1).

    Returns
    -------
    Estimator

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.estimators.intervals import get_estimator
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((1, 40)) < 0.7) * 1.0, (rng.random((1, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_sizes=(4, 4, 8, 2, 10, 6, 6))
    >>> result = get_estimator("cr2-t-interval")(batch, None)
    >>> result.estimate, result.low.round(4), result.high.round(4)
    (array([0.025]), array([-0.1493]), array([0.1993]))
    """
    return _t_interval(level, "CR2", "clusters")


def cr2_bm_interval(level: float = 0.95) -> Estimator:
    """The ``cr2-bm-interval`` family: ``mean(d) +- t_df se_CR2`` with the Bell-McCaffrey
    degrees of freedom (Imbens and Kolesar 2016), the interval of ``cr2-bm``.

    Parameters
    ----------
    level : float
        Nominal coverage, in (0, 1).

    Returns
    -------
    Estimator

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.estimators.intervals import get_estimator
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((1, 40)) < 0.7) * 1.0, (rng.random((1, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_sizes=(4, 4, 8, 2, 10, 6, 6))
    >>> result = get_estimator("cr2-bm-interval")(batch, None)
    >>> result.estimate, result.low.round(4), result.high.round(4)
    (array([0.025]), array([-0.1591]), array([0.2091]))
    """
    return _t_interval(level, "CR2", "bm")


def wild_cluster_interval(weights: str = "rademacher", n_resamples: int = CLUSTER_BOOT,
                          level: float = 0.95) -> Estimator:
    """The ``wild-cluster-interval`` family: the symmetric percentile-t interval of the wild
    cluster bootstrap without the null imposed (WCU), ``mean(d) +- c se_CR1`` (module
    docstring).

    Parameters
    ----------
    weights : {'rademacher', 'webb'}
        The clusters' weights: Rademacher (+-1), or Webb's six-point, for very few clusters.
    n_resamples : int
        Bootstrap draws B; with Rademacher weights and ``2^G <= n_resamples`` every sign vector
        instead (exact, no random draw).
    level : float
        Nominal coverage, in (0, 1).

    Returns
    -------
    Estimator

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.estimators.intervals import get_estimator
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((1, 40)) < 0.7) * 1.0, (rng.random((1, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=4)
    >>> result = get_estimator("wild-cluster-interval")(batch, np.random.default_rng(1))
    >>> result.estimate, result.low.round(4), result.high.round(4)
    (array([0.025]), array([-0.1315]), array([0.1815]))
    """
    check_choice("weights", weights, WEIGHTS)
    n_resamples = check_int("n_resamples", n_resamples, low=1)
    level, _ = _level(level)

    def func(batch, rng):
        _, sizes, mean, resid = cluster_fit(batch)
        stars = wild_abs_t(resid, sizes, rng, weights, n_resamples)
        k = int(np.ceil(round(level * stars.shape[1], 9))) - 1
        c = np.partition(stars, k, axis=1)[:, k]
        se = cluster_se(resid, sizes, "CR1")
        with np.errstate(invalid="ignore"):
            half = np.where(se == 0, 0.0, c * se)  # every cluster at the mean: no spread
        return _interval(mean, half)

    return Estimator("", "", func, level, uses_rng=True)
