"""Intervals for one model's accuracy from its 0/1 item scores (``batch.a``), as Bowyer,
Aitchison and Ivanova (2025) compare them; ``wilson`` is in :mod:`evalmc.estimators.items`.
With ``k`` correct of ``n``, ``p = k / n``; :func:`bounds` tabulates for every ``k`` the bounds
of those depending on ``k`` only, which the exact coverage sums over."""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from evalmc.estimators.intervals import EstimateResult, Estimator
from evalmc.estimators.items import _level, _z_interval
from evalmc.estimators.registry import IMPORTANCE_DRAWS, PROPORTION_BOOT
from evalmc.inputs.checks import check_choice, check_float, check_int

#: The methods of :func:`bounds`.
METHODS = ("wald", "wilson", "clopper-pearson", "beta-posterior", "bootstrap")
#: Replications whose prior draws ``clustered-bayes`` holds at once.
ROWS = 16


def bounds(method: str, n: int, level: float = 0.95, *, prior_a: float = 1.0,
           prior_b: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)``: an interval's bounds for each count ``k = 0..n`` of successes of ``n``."""
    check_choice("method", method, METHODS)
    n = check_int("n", n, low=1)
    level, _ = _level(level)
    k = np.arange(n + 1, dtype=float)
    p, tail = k / n, (1 - level) / 2
    if method == "wald":
        half = special.ndtri(1 - tail) * np.sqrt(p * (1 - p) / n)
        return p - half, p + half
    if method == "wilson":
        from evalmc.stats.mcse import wilson_interval

        return wilson_interval(k, n, confidence=level)
    if method == "clopper-pearson":
        with np.errstate(invalid="ignore"):
            lo = np.where(k > 0, special.betaincinv(k, n - k + 1, tail), 0.0)
            hi = np.where(k < n, special.betaincinv(k + 1, n - k, 1 - tail), 1.0)
        return lo, hi
    if method == "beta-posterior":
        prior_a = check_float("prior_a", prior_a, low=0, open_low=True)
        prior_b = check_float("prior_b", prior_b, low=0, open_low=True)
        return (special.betaincinv(k + prior_a, n - k + prior_b, tail),
                special.betaincinv(k + prior_a, n - k + prior_b, 1 - tail))
    return stats.binom.ppf(tail, n, p) / n, stats.binom.ppf(1 - tail, n, p) / n


def _counts(batch) -> tuple[np.ndarray, int]:
    """A's successes per replication and its items; its scores must be 0/1."""
    a = np.asarray(batch.a, dtype=float)
    if not np.all((a == 0) | (a == 1)):
        raise ValueError("a proportion's interval needs 0/1 scores of A (correct or not).")
    return a.sum(axis=1).astype(np.int64), a.shape[1]


def _table_estimator(method: str, level: float, **prior) -> Estimator:
    level, _ = _level(level)
    if method == "beta-posterior":  # checked now, not at the first batch
        bounds(method, 1, level, **prior)

    def func(batch, rng):
        k, n = _counts(batch)
        lo, hi = bounds(method, n, level, **prior)
        return EstimateResult(k / n, lo[k], hi[k])

    return Estimator("", "", func, level)


def wald(level: float = 0.95) -> Estimator:
    """The ``wald`` family: the CLT interval ``p +- z sqrt(p (1 - p) / n)`` of A's accuracy, not
    clipped to [0, 1] (statsmodels' ``proportion_confint(method='normal')``).

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
    >>> batch = Batch(np.array([[1.0, 1.0, 0.0, 1.0], [1.0] * 4]), np.zeros((2, 4)), paired=True)
    >>> result = get_estimator("wald")(batch, None)
    >>> result.low.round(4), result.high.round(4)
    (array([0.3257, 1.    ]), array([1.1743, 1.    ]))
    """
    return _table_estimator("wald", level)


def clopper_pearson(level: float = 0.95) -> Estimator:
    """The ``clopper-pearson`` family: the exact interval of A's accuracy, ``Beta((1 - level) /
    2; k, n - k + 1)`` to ``Beta((1 + level) / 2; k + 1, n - k)`` quantiles.

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
    >>> result = get_estimator("clopper-pearson")(batch, None)
    >>> result.low.round(4), result.high.round(4)
    (array([0.1941]), array([0.9937]))
    """
    return _table_estimator("clopper-pearson", level)


def beta_posterior(level: float = 0.95, prior_a: float = 1.0,
                   prior_b: float = 1.0) -> Estimator:
    """The ``beta-posterior`` family: the equal-tailed interval of A's accuracy under the
    posterior ``Beta(k + prior_a, n - k + prior_b)``.

    Parameters
    ----------
    level : float
        Posterior probability of the interval, in (0, 1).
    prior_a, prior_b : float
        The Beta prior (positive); 1, 1: uniform, as the paper.

    Returns
    -------
    Estimator

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.estimators.intervals import get_estimator
    >>> from evalmc.sims.base import Batch
    >>> batch = Batch(np.array([[1.0, 1.0, 0.0, 1.0]]), np.zeros((1, 4)), paired=True)
    >>> result = get_estimator("beta-posterior(prior_a=0.5,prior_b=0.5)")(batch, None)
    >>> result.low.round(4), result.high.round(4)
    (array([0.2838]), array([0.9715]))
    """
    return _table_estimator("beta-posterior", level, prior_a=prior_a, prior_b=prior_b)


def proportion_bootstrap(n_boot: int = PROPORTION_BOOT, level: float = 0.95) -> Estimator:
    """The ``proportion-bootstrap`` family: the percentile bootstrap of A's accuracy, each
    resample's mean drawn as ``Binomial(n, p) / n`` (the law of a resample of the items).

    Parameters
    ----------
    n_boot : int
        Resamples.
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
    >>> batch = Batch(np.array([[1.0, 1.0, 0.0, 1.0], [0.0] * 4]), np.zeros((2, 4)),
    ...               paired=True)
    >>> result = get_estimator("proportion-bootstrap")(batch, np.random.default_rng(0))
    >>> result.low.round(4), result.high.round(4)
    (array([0.25, 0.  ]), array([1., 0.]))
    """
    n_boot = check_int("n_boot", n_boot, low=1)
    level, _ = _level(level)

    def func(batch, rng):
        k, n = _counts(batch)
        means = rng.binomial(n, k[:, None] / n, (k.size, n_boot)) / n
        low, high = np.percentile(means, [50 * (1 - level), 50 * (1 + level)], axis=1)
        return EstimateResult(k / n, low, high)

    return Estimator("", "", func, level, uses_rng=True)


def clustered_wald(level: float = 0.95) -> Estimator:
    """The ``clustered-wald`` family: ``p +- z se`` of A's accuracy, se the cluster-robust (CR0)
    standard error of its questions' tasks.

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
    >>> a = np.array([[1.0, 1.0, 0.0, 0.0, 1.0, 1.0]])
    >>> batch = ClusteredBatch(a, np.zeros((1, 6)), paired=True, cluster_size=2)
    >>> result = get_estimator("clustered-wald")(batch, None)
    >>> result.low.round(4), result.high.round(4)
    (array([0.1332]), array([1.2001]))
    """
    level, z = _level(level)

    def func(batch, rng):
        from evalmc.criteria.items import clustered_mean_se

        return _z_interval(*clustered_mean_se(batch, np.asarray(batch.a, dtype=float)), z)

    return Estimator("", "", func, level)


def task_counts(batch) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, sizes)``: A's successes per task (cluster) and replication, and its questions."""
    from evalmc.criteria.items import _cluster_sums

    _counts(batch)  # 0/1 scores
    sums, sizes = _cluster_sums(batch, np.asarray(batch.a, dtype=float))
    return sums.astype(np.int64), sizes


def beta_binomial_loglik(counts, sizes, theta, d) -> np.ndarray:
    """Beta-binomial log-likelihood of the tasks' counts for each draw of ``(theta, d)``."""
    a, b = d * theta, d * (1 - theta)
    pairs = np.unique(np.stack(np.broadcast_arrays(counts, sizes), axis=-1).reshape(-1, 2),
                      axis=0)
    # log of the rising factorial x (x + 1) ... (x + j - 1), for each j the pairs need:
    # log B(k + a, m - k + b) - log B(a, b) = rise(a, k) + rise(b, m - k) - rise(a + b, m)
    need = {"a": set(pairs[:, 0]), "b": set(pairs[:, 1] - pairs[:, 0]), "ab": set(pairs[:, 1])}
    rise = {name: {0: 0.0} for name in need}
    acc = {name: np.zeros(theta.shape) for name in need}
    for i in range(int(pairs[:, 1].max())):
        for name, x in (("a", a), ("b", b), ("ab", d)):
            acc[name] += np.log(x + i)
            if i + 1 in need[name]:
                rise[name][i + 1] = acc[name].copy()
    out = np.zeros(theta.shape)
    for k, m in pairs:
        times = ((counts == k) & (sizes == m)).sum(axis=1)
        if times.any():
            log_choose = (special.gammaln(m + 1) - special.gammaln(k + 1)
                          - special.gammaln(m - k + 1))
            out += times[:, None] * (rise["a"][k] + rise["b"][m - k] - rise["ab"][m] + log_choose)
    return out


def importance_interval(theta, loglik, uniforms, level) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)``: percentiles of the draws of ``theta`` resampled by ``exp(loglik)``."""
    weights = np.exp(loglik - loglik.max(axis=1, keepdims=True))
    cdf = np.cumsum(weights, axis=1)
    cdf /= cdf[:, -1:]
    picked = np.empty_like(theta)
    for r in range(theta.shape[0]):
        index = np.minimum(np.searchsorted(cdf[r], uniforms[r], side="right"),
                           theta.shape[1] - 1)
        picked[r] = theta[r, index]
    low, high = np.percentile(picked, [50 * (1 - level), 50 * (1 + level)], axis=1)
    return low, high


def clustered_bayes(level: float = 0.95, n_samples: int = IMPORTANCE_DRAWS, prior_a: float = 1.0,
                    prior_b: float = 1.0, d_shape: float = 1.0,
                    d_scale: float = 1.0) -> Estimator:
    """The ``clustered-bayes`` family: the authors' importance-weighted posterior interval of A's
    mean rate ``theta``, the task rates ``Beta(d theta, d (1 - theta))``.

    Parameters
    ----------
    level : float
        Posterior probability of the interval, in (0, 1).
    n_samples : int
        Prior draws of ``(theta, d)`` per replication.
    prior_a, prior_b : float
        The Beta prior of the mean rate ``theta``.
    d_shape, d_scale : float
        The Gamma prior of the dispersion ``d``.

    Returns
    -------
    Estimator

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.estimators.intervals import get_estimator
    >>> from evalmc.sims.items import ClusteredBatch
    >>> a = np.array([[1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0]])
    >>> batch = ClusteredBatch(a, np.zeros((1, 10)), paired=True, cluster_size=5)
    >>> result = get_estimator("clustered-bayes")(batch, np.random.default_rng(0))
    >>> result.estimate, result.low.round(4), result.high.round(4)
    (array([0.8]), array([0.2335]), array([0.9111]))
    """
    level, _ = _level(level)
    n_samples = check_int("n_samples", n_samples, low=1)
    prior = [check_float(name, value, low=0, open_low=True) for name, value in (
        ("prior_a", prior_a), ("prior_b", prior_b), ("d_shape", d_shape),
        ("d_scale", d_scale))]

    def func(batch, rng):
        counts, sizes = task_counts(batch)
        low, high = np.empty(counts.shape[0]), np.empty(counts.shape[0])
        for start in range(0, counts.shape[0], ROWS):
            rows = counts[start:start + ROWS]
            shape = (rows.shape[0], n_samples)
            theta = rng.beta(prior[0], prior[1], shape)
            d = rng.gamma(prior[2], prior[3], shape)
            loglik = beta_binomial_loglik(rows, sizes, theta, d)
            low[start:start + ROWS], high[start:start + ROWS] = importance_interval(
                theta, loglik, rng.random(shape), level)
        return EstimateResult(counts.sum(axis=1) / sizes.sum(), low, high)

    return Estimator("", "", func, level, uses_rng=True)
