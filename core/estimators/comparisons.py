"""Intervals of the comparison of two models' accuracies from 0/1 item scores, as Bowyer,
Aitchison and Ivanova (2025) compare them. Posterior quantiles are computed, not sampled: by
quadrature for independent Beta posteriors, on a fixed grid (:data:`GRID`, :data:`RHO_NODES`)
in the authors' paired latent-normal model, so the intervals are deterministic."""

from __future__ import annotations

import functools

import numpy as np

from evalmc.estimators.intervals import EstimateResult, Estimator
from evalmc.estimators.items import _level, _proportions, _z_interval
from evalmc.inputs.checks import check_int
from evalmc.sims.twomodels import RHO_LAW, orthant

#: Gauss-Legendre nodes of the Beta-difference quadrature.
NODES = 96
#: Grid cells per rate of the paired posterior.
GRID = 256
#: Grid points per rate at most in one table's posterior: a wider window takes every k-th.
WINDOW = 96
#: Midpoint nodes of ``(rho + 1) / 2`` of the paired posterior.
RHO_NODES = 32
#: Prior of ``(rho + 1) / 2`` in the paired model (the authors' Beta(4, 2)): the law the
#: ``paired-models`` scenario draws it from.
RHO_PRIOR = RHO_LAW
_MARGIN_LOGLIK = 20.0


def _counts(batch):
    a, b = _proportions(batch)
    return a.sum(axis=1), a.shape[1], b.sum(axis=1), b.shape[1]


def _table_keys(k_a, n_a, k_b, n_b) -> np.ndarray:
    """Each replication's table ``(k_A, n_A, k_B, n_B)`` as integers: the key of a cache."""
    return np.column_stack([np.rint(k_a), np.full(k_a.shape, n_a), np.rint(k_b),
                            np.full(k_b.shape, n_b)]).astype(np.int64)


def clt_diff(level: float = 0.95) -> Estimator:
    """The ``clt-diff`` family: the CLT (Wald) interval of ``p_A - p_B``, A's and B's items
    independent (statsmodels' ``confint_proportions_2indep(method='wald')``).

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
    >>> result = get_estimator("clt-diff")(Batch(a, b, paired=False), None)
    >>> result.estimate.round(4), result.low.round(4), result.high.round(4)
    (array([0.4]), array([-0.1544]), array([0.9544]))
    """
    level, z = _level(level)

    def func(batch, rng):
        k_a, n_a, k_b, n_b = _counts(batch)
        p_a, p_b = k_a / n_a, k_b / n_b
        se = np.sqrt(p_a * (1 - p_a) / n_a + p_b * (1 - p_b) / n_b)
        return _z_interval(p_a - p_b, se, z)

    return Estimator("", "", func, level)


def agresti_caffo_diff(level: float = 0.95) -> Estimator:
    """The ``agresti-caffo-diff`` family: Agresti and Caffo's (2000) interval of ``p_A - p_B``,
    A's and B's items independent: the CLT (Wald) interval of the rates after one right and
    one wrong answer are added to each sample, ``(k + 1) / (n + 2)`` (statsmodels'
    ``confint_proportions_2indep(method='agresti-caffo')``, not clipped to [-1, 1]); the
    estimate is the observed ``p_A - p_B``.

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
    >>> result = get_estimator("agresti-caffo-diff")(Batch(a, b, paired=False), None)
    >>> result.estimate.round(4), result.low.round(4), result.high.round(4)
    (array([0.4]), array([-0.2107]), array([0.7821]))
    """
    level, z = _level(level)

    def func(batch, rng):
        k_a, n_a, k_b, n_b = _counts(batch)
        p_a, p_b = (k_a + 1) / (n_a + 2), (k_b + 1) / (n_b + 2)
        half = z * np.sqrt(p_a * (1 - p_a) / (n_a + 2) + p_b * (1 - p_b) / (n_b + 2))
        centre = p_a - p_b
        return EstimateResult(k_a / n_a - k_b / n_b, centre - half, centre + half)

    return Estimator("", "", func, level)


@functools.lru_cache(maxsize=1)
def _gauss_legendre():
    x, w = np.polynomial.legendre.leggauss(NODES)
    return (x + 1) / 2, w / 2


def _beta_logpdf(x, a, b):
    from scipy.special import betaln, xlog1py, xlogy

    return xlogy(a - 1, x) + xlog1py(b - 1, -x) - betaln(a, b)


def beta_difference_quantiles(a1, b1, a2, b2, probs, *, log_odds: bool = False):
    """Quantiles of ``X - Y`` (or ``logit X - logit Y``) of independent Beta X, Y, by quadrature."""
    from scipy.special import betainc, betaincinv, expit, logit

    a1, b1, a2, b2 = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (a1, b1, a2, b2)))
    shape = a1.shape
    a1, b1, a2, b2 = (x.reshape(-1, 1) for x in (a1, b1, a2, b2))
    u, w = _gauss_legendre()
    y = betaincinv(a2, b2, u)
    if log_odds:
        y = logit(y)
        lo0, hi0 = np.full(a1.shape, -60.0), np.full(a1.shape, 60.0)
    else:
        lo0, hi0 = np.full(a1.shape, -1.0), np.full(a1.shape, 1.0)

    def cdf_pdf(d, rows):
        x = y[rows] + d[:, None]
        if log_odds:
            x = expit(x)
            jac = x * (1 - x)
        else:
            jac = ((x > 0) & (x < 1)).astype(float)
            x = np.clip(x, 0.0, 1.0)
        inside = (x > 0) & (x < 1)
        a, b = a1[rows], b1[rows]
        dens = np.where(inside, np.exp(_beta_logpdf(np.where(inside, x, 0.5), a, b)), 0.0)
        # row sums, not a matrix product: a row's bits must not depend on the other rows
        return (betainc(a, b, x) * w).sum(axis=1), (dens * jac * w).sum(axis=1)

    from scipy.special import ndtri, polygamma

    if log_odds:  # the normal approximation of logit(Beta) - logit(Beta), as the start
        mean = _digamma_diff(a1, b1) - _digamma_diff(a2, b2)
        sd = np.sqrt(polygamma(1, a1) + polygamma(1, b1) + polygamma(1, a2) + polygamma(1, b2))
    else:
        mean = a1 / (a1 + b1) - a2 / (a2 + b2)
        sd = np.sqrt(a1 * b1 / ((a1 + b1) ** 2 * (a1 + b1 + 1))
                     + a2 * b2 / ((a2 + b2) ** 2 * (a2 + b2 + 1)))
    out = []
    for p in probs:
        lo, hi = lo0[:, 0].copy(), hi0[:, 0].copy()
        d = np.clip(mean + ndtri(p) * sd, lo0, hi0)[:, 0]
        active = np.arange(d.size)  # a converged row stops moving
        for _ in range(100):
            f, dens = cdf_pdf(d[active], active)
            da = d[active]
            below = f < p
            lo[active] = np.where(below, da, lo[active])
            hi[active] = np.where(below, hi[active], da)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = da - (f - p) / dens
            low, high = lo[active], hi[active]
            bad = ~np.isfinite(step) | (step < low) | (step > high)
            new = np.where(bad, (low + high) / 2, step)
            done = (np.abs(new - da) < 1e-10) | (high - low < 1e-10)
            d[active] = new
            active = active[~done]
            if not active.size:
                break
        else:
            raise RuntimeError(f"the {p} quantile of {active.size} differences did not "
                               f"converge.")
        out.append(d.reshape(shape))
    return np.array(out)


def _digamma_diff(a, b):
    from scipy.special import digamma

    return digamma(a) - digamma(b)


def _by_table(keys: np.ndarray, cache: dict, compute) -> list:
    """Each row of `keys` from `cache`, the missing ones computed together by ``compute(rows)``."""
    rows, inverse = np.unique(keys, axis=0, return_inverse=True)
    missing = [i for i, r in enumerate(rows) if tuple(r) not in cache]
    if missing:
        for i, value in zip(missing, compute(rows[missing]), strict=True):
            cache[tuple(rows[i])] = value
    values = [cache[tuple(r)] for r in rows]
    return [values[i] for i in inverse.ravel()]


def _cap(cache: dict, size: int = 200_000) -> dict:
    if len(cache) > size:
        cache.clear()
    return cache


_BETA_CACHE: dict = {}


def _beta_intervals(counts, level, log_odds):
    keys = _table_keys(*counts)
    probs = ((1 - level) / 2, 0.5, (1 + level) / 2) if log_odds else ((1 - level) / 2,
                                                                        (1 + level) / 2)
    cache = _cap(_BETA_CACHE.setdefault((level, log_odds), {}))

    def compute(rows):
        ka, na, kb, nb = rows.T.astype(float)
        q = beta_difference_quantiles(ka + 1, na - ka + 1, kb + 1, nb - kb + 1, probs,
                                      log_odds=log_odds)
        return list(q.T)

    return np.array(_by_table(keys, cache, compute)).T


def bayes_diff(level: float = 0.95) -> Estimator:
    """The ``bayes-diff`` family: the equal-tailed posterior interval of ``theta_A - theta_B``,
    independent Beta(1, 1) priors and samples; the estimate is the posterior mean.

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
    >>> result = get_estimator("bayes-diff")(Batch(a, b, paired=False), None)
    >>> result.estimate.round(4), result.low.round(4), result.high.round(4)
    (array([0.2857]), array([-0.2039]), array([0.7118]))
    """
    level, _ = _level(level)

    def func(batch, rng):
        k_a, n_a, k_b, n_b = counts = _counts(batch)
        low, high = _beta_intervals(counts, level, log_odds=False)
        return EstimateResult((k_a + 1) / (n_a + 2) - (k_b + 1) / (n_b + 2), low, high)

    return Estimator("", "", func, level)


def bayes_odds_ratio(level: float = 0.95) -> Estimator:
    """The ``bayes-odds-ratio`` family: the equal-tailed posterior interval of the odds ratio,
    posteriors as ``bayes-diff``'s; the estimate is the posterior median.

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
    >>> result = get_estimator("bayes-odds-ratio")(Batch(a, b, paired=False), None)
    >>> result.estimate.round(4), result.low.round(4), result.high.round(4)
    (array([3.951]), array([0.4027]), array([53.9751]))
    """
    level, _ = _level(level)

    def func(batch, rng):
        low, mid, high = _beta_intervals(_counts(batch), level, log_odds=True)
        return EstimateResult(np.exp(mid), np.exp(low), np.exp(high))

    return Estimator("", "", func, level)


_FISHER_CACHE: dict = {}


def fisher_odds_ratio(level: float = 0.95) -> Estimator:
    """The ``fisher-odds-ratio`` family: the odds ratio's interval inverting Fisher's exact test,
    as scipy's ``odds_ratio(kind='conditional')`` (NaN estimate when a margin is 0).

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
    >>> result = get_estimator("fisher-odds-ratio")(Batch(a, b, paired=False), None)
    >>> result.estimate.round(4), result.low.round(4), result.high.round(4)
    (array([4.9184]), array([0.218]), array([391.9924]))
    """
    level, _ = _level(level)

    def func(batch, rng):
        from evalmc.stats.oddsratio import conditional_odds_ratio

        keys = _table_keys(*_counts(batch))

        def compute(rows):
            return list(np.array(conditional_odds_ratio(*rows.T, level=level)).T)

        cache = _cap(_FISHER_CACHE.setdefault(level, {}))
        est, low, high = np.array(_by_table(keys, cache, compute), dtype=float).T
        return EstimateResult(est, low, high, failed=np.zeros(est.shape, bool))

    return Estimator("", "", func, level)


def paired_cells(theta_a, theta_b, rho):
    """Cell probabilities (both right, only A, only B, both wrong) in the latent normal model."""
    from scipy.special import ndtri

    theta_a, theta_b = np.asarray(theta_a, dtype=float), np.asarray(theta_b, dtype=float)
    both_wrong = orthant(-ndtri(theta_a), -ndtri(theta_b), rho)
    return np.array([theta_a + theta_b + both_wrong - 1, 1 - theta_b - both_wrong,
                     1 - theta_a - both_wrong, both_wrong])


@functools.lru_cache(maxsize=1)
def _paired_grid():
    """Log cell probabilities on the grid, its rates and the log prior weights of rho."""
    from scipy.stats import beta

    theta = (np.arange(GRID) + 0.5) / GRID
    r = (np.arange(RHO_NODES) + 0.5) / RHO_NODES
    cells = paired_cells(theta[:, None, None], theta[None, :, None], (2 * r - 1)[None, None, :])
    log_cells = np.ascontiguousarray(np.moveaxis(np.log(np.maximum(cells, 1e-300)), 0, -1))
    log_prior = beta.logpdf(r, *RHO_PRIOR)
    return log_cells, theta, log_prior - np.logaddexp.reduce(log_prior)


def _window(k, n, theta):
    """Grid index range of the rates within :data:`_MARGIN_LOGLIK` of the top log-likelihood."""
    from scipy.special import xlog1py, xlogy

    ll = xlogy(k, theta) + xlog1py(n - k, -theta)
    keep = np.flatnonzero(ll >= ll.max() - _MARGIN_LOGLIK)
    return keep[0], keep[-1] + 1


def paired_posterior(counts) -> tuple[np.ndarray, np.ndarray, float]:
    """``(knots, cdf, mean)``: the posterior of ``theta_A - theta_B`` given the paired `counts`."""
    log_cells, theta, log_prior = _paired_grid()
    s, t, u, v = (int(c) for c in counts)
    n = s + t + u + v
    a0, a1 = _window(s + t, n, theta)
    b0, b1 = _window(s + u, n, theta)
    stride = -(-max(a1 - a0, b1 - b0) // WINDOW)
    ll = log_cells[a0:a1:stride, b0:b1:stride] @ np.array([s, t, u, v], dtype=float) + log_prior
    weight = np.exp(ll - ll.max()).sum(axis=2)
    weight /= weight.sum()
    i, j = np.indices(weight.shape)
    lag = (a0 + stride * i) - (b0 + stride * j)  # in grid steps, multiples of the stride
    offset = lag.min()
    mass = np.bincount(((lag - offset) // stride).ravel(), weights=weight.ravel())
    step = stride / GRID
    centres = offset / GRID + np.arange(mass.size) * step
    knots = np.concatenate([[centres[0] - step / 2], centres + step / 2])
    cdf = np.concatenate([[0.0], np.cumsum(mass)])
    return knots, np.minimum(cdf, 1.0), float(mass @ centres)


_PAIRED_CACHE: dict = {}


def bayes_paired(level: float = 0.95) -> Estimator:
    """The ``bayes-paired`` family: the equal-tailed posterior interval of ``theta_A - theta_B``
    on the same items, the authors' paired latent normal model; the estimate its mean.

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
    >>> result = get_estimator("bayes-paired")(Batch(a, b, paired=True), None)
    >>> result.estimate.round(4), result.low.round(4), result.high.round(4)
    (array([0.2278]), array([-0.1278]), array([0.5666]))
    """
    level, _ = _level(level)
    probs = np.array([(1 - level) / 2, (1 + level) / 2])

    def func(batch, rng):
        a, b = _proportions(batch)
        keys = np.column_stack([(a * b).sum(axis=1), (a * (1 - b)).sum(axis=1),
                                ((1 - a) * b).sum(axis=1), ((1 - a) * (1 - b)).sum(axis=1)])
        cache = _cap(_PAIRED_CACHE, 50_000)
        posts = _by_table(np.rint(keys).astype(np.int64), cache,
                          lambda rows: [paired_posterior(r) for r in rows])
        out = np.array([(mean, *np.interp(probs, cdf, knots)) for knots, cdf, mean in posts])
        return EstimateResult(out[:, 0], out[:, 1], out[:, 2])

    return Estimator("", "", func, level)


def independent_coverage(estimator, n: int, theta_a, theta_b, *, target: str = "effect",
                         tail: float = 1e-12):
    """Exact coverage of a deterministic interval of two independent samples of `n` 0/1 answers."""
    from scipy.stats import binom

    from evalmc.estimators.intervals import get_estimator
    from evalmc.inputs.checks import check_choice

    estimator = get_estimator(estimator)
    if estimator.uses_rng or estimator.level is None:
        raise ValueError(f"`estimator` must be a deterministic interval; got {estimator.name!r}.")
    n = check_int("n", n, low=1)
    check_choice("target", target, ("effect", "odds-ratio"))
    scalar = np.ndim(theta_a) == 0 and np.ndim(theta_b) == 0
    theta_a, theta_b = (t.ravel() for t in np.broadcast_arrays(
        np.asarray(theta_a, dtype=float), np.asarray(theta_b, dtype=float)))
    truth = theta_a - theta_b if target == "effect" else (
        theta_a * (1 - theta_b) / ((1 - theta_a) * theta_b))
    k = np.arange(n + 1)
    pmf_a, pmf_b = binom.pmf(k, n, theta_a[:, None]), binom.pmf(k, n, theta_b[:, None])
    keep_a, keep_b = pmf_a > tail, pmf_b > tail
    rows, cols = np.flatnonzero(keep_a.any(axis=0)), np.flatnonzero(keep_b.any(axis=0))
    low, high = _interval_grid(estimator, n, rows, cols)
    out = np.empty(theta_a.size)
    for i, t in enumerate(truth):
        ra, rb = keep_a[i, rows], keep_b[i, cols]
        sub = np.ix_(ra, rb)
        covered = (low[sub] <= t) & (t <= high[sub])
        out[i] = (pmf_a[i, rows[ra]][:, None] * pmf_b[i, cols[rb]] * covered).ravel().sum()
    return float(out[0]) if scalar else out


def _interval_grid(estimator, n, rows, cols, cells=2**22):
    """Bounds of `estimator` at every table ``(k_A, k_B)`` in ``rows x cols``."""
    from evalmc.sims.base import Batch

    low, high = np.empty((rows.size, cols.size)), np.empty((rows.size, cols.size))
    scores = np.arange(n)
    step = max(1, cells // (cols.size * n))
    for start in range(0, rows.size, step):
        k_a, k_b = np.meshgrid(rows[start:start + step], cols, indexing="ij")
        batch = Batch((scores < k_a.reshape(-1, 1)).astype(float),
                      (scores < k_b.reshape(-1, 1)).astype(float), paired=False)
        res = estimator(batch, None)
        low[start:start + step] = res.low.reshape(k_a.shape)
        high[start:start + step] = res.high.reshape(k_a.shape)
    return low, high
