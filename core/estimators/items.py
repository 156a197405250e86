"""Interval estimators on item-level evaluation results (two models' scores on the same items).

Items count by their mean over their samples (``batch.a``, ``batch.b``), so a proportion's
counts are sums of item means, the usual counts for 0/1 scores; ``z`` is the normal quantile
of ``(1 + level) / 2``."""

from __future__ import annotations

import numpy as np

from evalmc.estimators.intervals import EstimateResult, Estimator
from evalmc.estimators.registry import CLUSTER_BOOT
from evalmc.inputs.checks import check_float, check_int


def _level(level):
    from scipy.special import ndtri

    level = check_float("level", level, low=0, high=1, open_low=True, open_high=True)
    return level, float(ndtri((1 + level) / 2))


def _proportions(batch):
    a, b = np.asarray(batch.a, dtype=float), np.asarray(batch.b, dtype=float)
    if np.any((a < 0) | (a > 1)) or np.any((b < 0) | (b > 1)):
        raise ValueError("a proportion's interval needs scores in [0, 1] (0/1 correctness).")
    return a, b


def _wilson(p, n, level):
    from evalmc.stats.mcse import wilson_interval

    return wilson_interval(p * n, n, confidence=level)


def wilson(level: float = 0.95) -> Estimator:
    """The ``wilson`` family: Wilson's score interval of A's accuracy, ``k`` correct of ``n``
    items (statsmodels' ``proportion_confint(method='wilson')``).

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
    >>> from evalmc.sims.base import Batch
    >>> batch = Batch(np.array([[1.0, 1.0, 0.0, 1.0]]), np.zeros((1, 4)), paired=True)
    >>> result = get_estimator("wilson")(batch, None)
    >>> result.estimate, result.low.round(4), result.high.round(4)
    (array([0.75]), array([0.3006]), array([0.9544]))
    """
    level, _ = _level(level)

    def func(batch, rng):
        a, _ = _proportions(batch)
        n = a.shape[1]
        p = a.mean(axis=1)
        low, high = _wilson(p, n, level)
        return EstimateResult(p, low, high)

    return Estimator("", "", func, level)


def newcombe_diff(level: float = 0.95) -> Estimator:
    """The ``newcombe-diff`` family: Newcombe's (1998) hybrid score interval of ``p_A - p_B``,
    independent items (statsmodels' ``confint_proportions_2indep(method='newcomb')``).

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
    >>> from evalmc.sims.base import Batch
    >>> a, b = np.array([[1.0, 1.0, 0.0, 1.0, 1.0]]), np.array([[0.0, 1.0, 0.0, 0.0, 1.0]])
    >>> result = get_estimator("newcombe-diff")(Batch(a, b, paired=False), None)
    >>> result.estimate.round(4), result.low.round(4), result.high.round(4)
    (array([0.4]), array([-0.1626]), array([0.7264]))
    """
    level, _ = _level(level)

    def func(batch, rng):
        a, b = _proportions(batch)
        p1, p2 = a.mean(axis=1), b.mean(axis=1)
        l1, u1 = _wilson(p1, a.shape[1], level)
        l2, u2 = _wilson(p2, b.shape[1], level)
        diff = p1 - p2
        return EstimateResult(diff, diff - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
                              diff + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))

    return Estimator("", "", func, level)


def newcombe_paired(level: float = 0.95) -> Estimator:
    """The ``newcombe-paired`` family: Newcombe's (1998, method 10) interval of ``p_A - p_B`` on
    the same items, corrected by the pairs' phi (as ``contingencytables`` computes it).

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
    >>> from evalmc.sims.base import Batch
    >>> a = np.array([[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]])
    >>> b = np.array([[0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0]])
    >>> result = get_estimator("newcombe-paired")(Batch(a, b, paired=True), None)
    >>> result.estimate.round(4), result.low.round(4), result.high.round(4)
    (array([0.25]), array([-0.1257]), array([0.5392]))
    """
    level, _ = _level(level)

    def func(batch, rng):
        from evalmc.sims.items import cell_types, type_counts

        counts = type_counts(batch)
        if counts is not None:  # an item's means a, b: its samples right over n_samples
            types, n = cell_types(batch.n_samples), batch.sizes[0]
            a = (types[:, 0] + types[:, 1]) / batch.n_samples
            b = (types[:, 0] + types[:, 2]) / batch.n_samples
            n11, n10 = counts @ (a * b), counts @ (a * (1 - b))
            n01, n00 = counts @ ((1 - a) * b), counts @ ((1 - a) * (1 - b))
        else:
            a, b = _proportions(batch)
            n = a.shape[1]
            n11, n10 = (a * b).sum(axis=1), (a * (1 - b)).sum(axis=1)
            n01, n00 = ((1 - a) * b).sum(axis=1), ((1 - a) * (1 - b)).sum(axis=1)
        p1, p2 = (n11 + n10) / n, (n11 + n01) / n
        l1, u1 = _wilson(p1, n, level)
        l2, u2 = _wilson(p2, n, level)
        margins = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
        big_a = n11 * n00 - n10 * n01
        big_a = np.where(big_a > n / 2, big_a - n / 2, np.minimum(big_a, 0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            phi = np.where(margins > 0, big_a / np.sqrt(margins), 0.0)
        dl1, du1, dl2, du2 = p1 - l1, u1 - p1, p2 - l2, u2 - p2
        delta = np.sqrt(np.maximum(dl1**2 - 2 * phi * dl1 * du2 + du2**2, 0.0))
        eps = np.sqrt(np.maximum(du1**2 - 2 * phi * du1 * dl2 + dl2**2, 0.0))
        diff = p1 - p2
        return EstimateResult(diff, diff - delta, diff + eps)

    return Estimator("", "", func, level)


def _z_interval(mean, se, z):
    return EstimateResult(mean, mean - z * se, mean + z * se)


def paired_z_interval(level: float = 0.95) -> Estimator:
    """The ``paired-z-interval`` family: ``mean(d) +- z sd(d) / sqrt(n)`` of the per-item
    differences ``d = a - b``, as ``paired-items`` tests (Miller 2024).

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
    >>> from evalmc.sims.base import Batch
    >>> a, b = np.array([[1.0, 1.0, 0.0, 1.0, 1.0]]), np.array([[0.0, 1.0, 0.0, 0.0, 1.0]])
    >>> result = get_estimator("paired-z-interval")(Batch(a, b, paired=True), None)
    >>> result.low.round(4), result.high.round(4)
    (array([-0.0801]), array([0.8801]))
    """
    level, z = _level(level)

    def func(batch, rng):
        from evalmc.sims.items import type_counts

        if type_counts(batch) is not None:
            mean, var = batch.diff_moments()
            return _z_interval(mean, np.sqrt(var) / np.sqrt(batch.sizes[0]), z)
        d = np.asarray(batch.a, dtype=float) - np.asarray(batch.b, dtype=float)
        return _z_interval(d.mean(axis=1), d.std(axis=1, ddof=1) / np.sqrt(d.shape[1]), z)

    return Estimator("", "", func, level)


def clustered_interval(level: float = 0.95) -> Estimator:
    """The ``clustered-interval`` family: ``mean(d) +- z se`` with the cluster-robust (CR0)
    ``se^2 = sum_g (sum_{i in g} (d_i - mean(d)))^2 / n^2``, as ``clustered-z``.

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
    >>> a = np.array([[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]])
    >>> b = np.array([[0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]])
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=2)
    >>> result = get_estimator("clustered-interval")(batch, None)
    >>> result.low.round(4), result.high.round(4)
    (array([-0.159]), array([0.909]))
    """
    level, z = _level(level)

    def func(batch, rng):
        from evalmc.criteria.items import clustered_mean_se

        return _z_interval(*clustered_mean_se(batch), z)

    return Estimator("", "", func, level)


def cluster_bootstrap_interval(n_boot: int = CLUSTER_BOOT, level: float = 0.95) -> Estimator:
    """The ``cluster-bootstrap-interval`` family: the percentile interval of ``mean(d)`` over
    `n_boot` resamples of whole clusters, drawn as ``cluster-bootstrap`` draws them.

    Parameters
    ----------
    n_boot : int
        Cluster resamples.
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
    >>> result = get_estimator("cluster-bootstrap-interval")(batch, np.random.default_rng(1))
    >>> result.estimate, result.low.round(4), result.high.round(4)
    (array([0.025]), array([-0.1]), array([0.175]))
    """
    n_boot = check_int("n_boot", n_boot, low=1)
    level, _ = _level(level)

    def func(batch, rng):
        from evalmc.criteria.items import cluster_replicates

        estimate, replicates = cluster_replicates(batch, rng, n_boot)
        low, high = np.quantile(replicates, [(1 - level) / 2, (1 + level) / 2], axis=1)
        return EstimateResult(estimate, low, high)

    return Estimator("", "", func, level, uses_rng=True)


def passk_interval(k: int = 1, level: float = 0.95) -> Estimator:
    """The ``passk-interval`` family: A's mean unbiased pass@k over the items, ``+- z sd /
    sqrt(n_items)`` (the items' sample sd).

    Parameters
    ----------
    k : int
        Samples drawn per item; each item needs at least `k` 0/1 scores (``n_samples``).
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
    >>> a = np.array([[1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0]])
    >>> batch = ClusteredBatch(a, a, paired=True, cluster_size=1, n_samples=2)
    >>> result = get_estimator("passk-interval(k=2)")(batch, None)
    >>> result.estimate, result.low.round(4), result.high.round(4)
    (array([0.75]), array([0.26]), array([1.24]))
    """
    k = check_int("k", k, low=1)
    level, z = _level(level)

    def func(batch, rng):
        from evalmc.criteria.item_procedures import passk_scores

        a, _ = passk_scores(batch, k)
        return _z_interval(a.mean(axis=1), a.std(axis=1, ddof=1) / np.sqrt(a.shape[1]), z)

    return Estimator("", "", func, level)
