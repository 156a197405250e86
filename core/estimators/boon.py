"""Expected best-out-of-n, Boo_n (Bajgar, Kadlec and Kleindienst, 2018): the expected test
score of the best-validation model among n, of a distribution (Eqs 2, 4, 5, 6, by quadrature)
or estimated from m runs (Eq 7, non-parametric, or Gaussian), without overflow or cancellation."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy import integrate, stats

from evalmc.compute.jit import njit
from evalmc.estimators.registry import BEST, CI_METHODS
from evalmc.inputs.checks import check_choice, check_float, check_int

ESTIMATORS = ("nonparametric", "parametric")
_CHUNK = 4_000_000  # resampled indices drawn at once


def boo_n(dist, n: int, *, best: str = "max", conditional_mean=None, tol: float = 1e-10) -> float:
    """Boo_n of a continuous distribution (Eq 2), or of a validation/test pair (Eq 5).

    Parameters
    ----------
    dist : frozen scipy.stats continuous distribution
        The performance distribution (with `conditional_mean`: the validation one).
    n : int
        Pool size, >= 1.
    best : {'max', 'min'}
        Whether the best run has the highest or the lowest score.
    conditional_mean : callable, optional
        ``E[test | val = x]``, vectorized; default: the score itself (single evaluation).
    tol : float
        Relative tolerance of the quadrature (absolute: tol / 10).

    Returns
    -------
    float
        ``integral of g(x) n f(x) F(x)^(n-1) dx``, computed as ``integral_0^1 g(Q(t^(1/n))) dt``.

    Examples
    --------
    >>> from scipy import stats
    >>> import evalmc
    >>> round(evalmc.boo_n(stats.norm(70, 2), 5), 4)  # 70 + 2 Boo_5(N(0, 1))
    72.3259
    """
    n = check_int("n", n, low=1)
    check_choice("best", best, BEST)
    quantile = dist.isf if best == "max" else dist.ppf
    g = conditional_mean if conditional_mean is not None else (lambda x: x)

    def integrand(t):
        return float(g(quantile(-np.expm1(np.log(t) / n)))) if t > 0 else 0.0

    value, _ = integrate.quad(integrand, 0.0, 1.0, limit=500, epsabs=tol / 10, epsrel=tol)
    return value


@lru_cache(maxsize=256)
def boo_n_normal(n: int) -> float:
    """Boo_n(N(0, 1)): the expected maximum of n standard normal scores (0 for n = 1).

    Parameters
    ----------
    n : int
        Pool size, >= 1.

    Returns
    -------
    float

    Examples
    --------
    >>> import evalmc
    >>> round(evalmc.boo_n_normal(5), 6)
    1.162964
    """
    return boo_n(stats.norm(), n)


def boo_n_discrete(values, probs=None, *, n: int, best: str = "max") -> float:
    """Boo_n of a discrete distribution (Eq 4), `probs` equal by default."""
    n = check_int("n", n, low=1)
    check_choice("best", best, BEST)
    values = _finite_1d("values", values)
    probs = np.full(values.size, 1.0 / values.size) if probs is None else _finite_1d("probs", probs)
    if probs.size != values.size or (probs < 0).any() or not np.isclose(probs.sum(), 1.0):
        raise ValueError("`probs` must be non-negative, one per value, and sum to 1.")
    sign = 1.0 if best == "max" else -1.0
    support, inverse = np.unique(sign * values, return_inverse=True)
    mass = np.bincount(inverse, weights=probs)
    upper = np.minimum(np.cumsum(mass), 1.0)
    lower = upper - mass
    return float(np.sum((upper**n - lower**n) * sign * support))


def boo_n_bivariate_normal(mu_test: float, sd_test: float, rho: float, n: int, *,
                           best: str = "max") -> float:
    """Boo_n of a bivariate normal validation/test distribution (Eq 6)."""
    check_float("sd_test", sd_test, low=0)
    check_float("rho", rho, low=-1, high=1)
    sign = 1.0 if check_choice("best", best, BEST) == "max" else -1.0
    return mu_test + sign * rho * sd_test * boo_n_normal(check_int("n", n, low=1))


def nonparametric_weights(val, *, n: int, best: str = "max") -> np.ndarray:
    """Weight of each run in the non-parametric estimator (Eq 7), tied runs sharing theirs."""
    val = np.asarray(val, dtype=float)
    m = val.size
    sign = 1.0 if best == "max" else -1.0
    _, inverse, counts = np.unique(sign * val, return_inverse=True, return_counts=True)
    upper = np.cumsum(counts)
    block = _rank_weight(upper, counts, m, n)
    return (block / counts)[inverse]


def rank_weights(m: int, n: int) -> np.ndarray:
    """Eq 7's weights ``(j/m)^n - ((j-1)/m)^n`` of ranks j = 1..m (worst to best), without ties."""
    return _rank_weight(np.arange(1, m + 1), np.ones(m), m, n)


def _rank_weight(upper, count, m, n):
    """``(upper/m)^n - ((upper-count)/m)^n`` without overflow or cancellation (float arrays)."""
    upper = np.asarray(upper, dtype=float)
    count = np.asarray(count, dtype=float)
    top = np.exp(n * (np.log(upper) - np.log(m)))
    with np.errstate(divide="ignore"):
        return top * -np.expm1(n * np.log1p(-count / upper))


def boon_nonparametric(test, val=None, *, n: int, best: str = "max") -> float:
    """Non-parametric Boo_n estimate from m runs (Eq 7), the best chosen by `val` (or `test`)."""
    test, val, n = _check_runs(test, val, n, best)
    return float(np.dot(nonparametric_weights(val, n=n, best=best), test))


def boon_parametric(test, val=None, *, n: int, best: str = "max") -> float:
    """Gaussian parametric Boo_n estimate (Section 3.2), ``mean + rho sd Boo_n(N(0, 1))``."""
    test, val, n = _check_runs(test, val, n, best)
    rho = 1.0 if val is test else float(np.corrcoef(val, test)[0, 1])
    sign = 1.0 if best == "max" else -1.0
    return float(test.mean() + sign * rho * test.std(ddof=1) * boo_n_normal(n))


@dataclass(frozen=True)
class BoonInterval:
    """A Boo_n estimate with its bootstrap confidence interval.

    Attributes
    ----------
    estimate, low, high : float
        The estimate on the runs themselves and the interval's bounds.
    replicates : ndarray
        The bootstrap replicates of the estimator.
    n : int
        Pool size.
    estimator, method : str
        As given to :func:`boon_interval`.
    level : float
        The interval's confidence level.

    Examples
    --------
    >>> import numpy as np
    >>> import evalmc
    >>> ci = evalmc.boon_interval([3.1, 2.7, 3.5, 2.9, 3.3, 3.0], n=3, n_resamples=500,
    ...                           seed=np.random.default_rng(0))
    >>> fig = ci.plot()  # histogram of the replicates, with the estimate and the interval
    >>> round(ci.estimate, 4)
    3.3079
    """

    estimate: float
    low: float
    high: float
    replicates: np.ndarray = field(repr=False)
    n: int
    estimator: str
    method: str
    level: float

    def to_frame(self):
        """One row: ``estimator``, ``n``, ``estimate``, ``low``, ``high``, ``level``,
        ``method``, ``n_resamples``.

        >>> import numpy as np
        >>> import evalmc
        >>> runs = np.random.default_rng(0).normal(70.0, 1.0, 50)
        >>> ci = evalmc.boon_interval(runs, n=5, n_resamples=200, seed=np.random.default_rng(1))
        >>> ci.to_frame()[["estimate", "low", "high"]].round(4)
           estimate     low     high
        0   71.1962  70.884  71.4503
        """
        import pandas as pd

        return pd.DataFrame([{"estimator": self.estimator, "n": self.n,
                              "estimate": self.estimate, "low": self.low, "high": self.high,
                              "level": self.level, "method": self.method,
                              "n_resamples": self.replicates.size}])

    def _repr_html_(self) -> str:
        return self.to_frame().to_html(index=False)

    def plot(self, ax=None):
        """Histogram of the replicates with the estimate and the interval: a Figure (not saved).

        >>> import numpy as np
        >>> import evalmc
        >>> runs = np.random.default_rng(0).normal(70.0, 1.0, 50)
        >>> ci = evalmc.boon_interval(runs, n=5, n_resamples=200, seed=np.random.default_rng(1))
        >>> fig = ci.plot()
        >>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
        ('Boo_5 (nonparametric)', 'bootstrap replicates')
        """
        from evalmc.plots import axes_or_new

        ax = axes_or_new(ax, figsize=(5, 3.5))
        ax.hist(self.replicates, bins="auto", color="0.75")
        ax.axvspan(self.low, self.high, color="C0", alpha=0.15,
                   label=f"{self.level:.0%} {self.method} interval")
        ax.axvline(self.estimate, color="k", label=f"estimate {self.estimate:.4g}")
        ax.set(xlabel=f"Boo_{self.n} ({self.estimator})", ylabel="bootstrap replicates")
        ax.legend(fontsize=8)
        return ax.figure


#: Bootstrap replicates at most: all are kept to take their percentiles (80 MB).
MAX_RESAMPLES = 10_000_000


def boon_interval(test, val=None, *, n: int, estimator: str = "nonparametric",
                  method: str = "percentile", level: float = 0.95,
                  n_resamples: int = 10_000, bandwidth="scott", best: str = "max",
                  seed=0, progress: bool | None = None) -> BoonInterval:
    """Bootstrap confidence interval of a Boo_n estimator.

    Parameters
    ----------
    test, val, n, best
        As in :func:`boon_nonparametric`.
    estimator : {'nonparametric', 'parametric'}
        The Boo_n estimator bootstrapped.
    method : {'percentile', 'smoothed'}
        ``'percentile'`` resamples the runs; ``'smoothed'`` adds Gaussian kernel noise (the
        covariance of ``scipy.stats.gaussian_kde``) to each, as in the paper's Fig 2.
    level : float
        Confidence level, in (0, 1); the interval is the percentile interval of the
        replicates.
    n_resamples : int
        Bootstrap replicates, at most :data:`MAX_RESAMPLES`.
    bandwidth : 'scott', 'silverman' or float
        scipy's ``bw_method``, for ``method='smoothed'``.
    seed : int or numpy.random.Generator
        The resamples' seed, as every function of :data:`evalmc.__all__` takes one, or a
        Generator to draw them from (``numpy.random.default_rng(seed)``).
    progress : bool, optional
        Progress bar on stderr (default: if a terminal); False also silences the time left.

    Returns
    -------
    BoonInterval
        The estimate on the runs themselves, the interval and the replicates.

    Examples
    --------
    >>> import numpy as np
    >>> import evalmc
    >>> runs = np.random.default_rng(0).normal(70.0, 1.0, 50)
    >>> ci = evalmc.boon_interval(runs, n=5, n_resamples=2000, seed=np.random.default_rng(1))
    >>> print(f"{ci.estimate:.3f} [{ci.low:.3f}, {ci.high:.3f}]")
    71.196 [70.887, 71.436]
    >>> ci.to_frame()[["estimator", "n", "n_resamples"]]
           estimator  n  n_resamples
    0  nonparametric  5         2000
    """
    test, val, n = _check_runs(test, val, n, best)
    check_choice("estimator", estimator, ESTIMATORS)
    check_choice("method", method, CI_METHODS)
    level = check_float("level", level, low=0, high=1, open_low=True, open_high=True)
    n_resamples = check_int("n_resamples", n_resamples, low=1, high=MAX_RESAMPLES)
    if not isinstance(seed, np.random.Generator):
        seed = check_int("seed", seed, low=0)
    rng = np.random.default_rng(seed)
    single = val is test
    sign = 1.0 if best == "max" else -1.0
    if method == "percentile":
        reps = _resampled(rng, test, val, n, sign, single, estimator, n_resamples, progress)
    else:
        reps = _smoothed_replicates(rng, test, val, n, sign, single, estimator, n_resamples,
                                    bandwidth, progress)
    estimate = (boon_nonparametric if estimator == "nonparametric" else boon_parametric)(
        test, None if single else val, n=n, best=best)
    tail = (1 - level) / 2
    low, high = np.quantile(reps, [tail, 1 - tail])
    return BoonInterval(estimate, float(low), float(high), reps, n, estimator, method, level)


def _resampled(rng, test, val, n, sign, single, estimator, n_resamples, progress):
    """Replicates on resamples of the runs, each drawn as counts over the runs sorted once."""
    order = np.argsort(sign * val, kind="stable")
    sorted_val = sign * val[order]
    starts = np.flatnonzero(np.r_[True, sorted_val[1:] != sorted_val[:-1], True])
    m = test.size
    powers = np.zeros(m + 1)
    powers[1:] = np.exp(n * (np.log(np.arange(1, m + 1)) - np.log(m)))  # (k/m)^n
    out = np.empty(n_resamples)
    test, val = np.ascontiguousarray(test[order]), np.ascontiguousarray(val[order])
    for start, stop in _chunks(n_resamples, m, estimator, progress):
        # numpy draws the resampled indices (much faster than Generator.integers under Numba)
        picks = rng.integers(0, m, size=(stop - start, m), dtype=_index_dtype(m))
        _resample_kernel(picks, test, val, starts, powers, estimator == "parametric", single,
                         sign, boo_n_normal(n), out[start:stop])
    return out


#: A bootstrap expected to take longer than this says so, with its estimate, as it starts.
LONG_RUN_SECONDS = 60.0


def _chunks(n_resamples, m, estimator, progress):
    """``(start, stop)`` of the next replicates, with a progress bar and a long run's time left."""
    import sys
    import time

    from tqdm.auto import tqdm

    from evalmc.engine.scheduler import _duration

    rows = max(1, _CHUNK // m)
    announce = progress is not False
    show = sys.stderr.isatty() if progress is None else progress
    with tqdm(total=n_resamples, disable=not show, file=sys.stderr, unit="resample",
              desc=f"{estimator} bootstrap") as bar:
        for start in range(0, n_resamples, rows):
            stop = min(start + rows, n_resamples)
            yield start, stop
            bar.update(stop - start)
            now = time.perf_counter()
            if start == 0:
                steady = now
            elif announce and now - steady >= 1.0:
                announce = False
                left = (now - steady) / (stop - rows) * (n_resamples - stop)
                if left > LONG_RUN_SECONDS:
                    print(f"evalmc: the {estimator} bootstrap has about {_duration(left)} "
                          f"to go ({stop:,} of {n_resamples:,} resamples of {m:,} runs); "
                          "Ctrl-C stops it.", file=sys.stderr)


def _index_dtype(m):
    """Smallest signed integer type indexing m runs (narrower draws are faster)."""
    return np.int16 if m < 2**15 else np.int32 if m < 2**31 else np.int64


@njit(cache=True, nogil=True, error_model="numpy")
def _resample_kernel(picks, test, val, starts, powers, parametric, single, sign, c_n, out):
    """Each replicate from the counts of its picked runs (Eq 7, or the Gaussian estimate)."""
    m = test.shape[0]
    counts = np.empty(m, np.int64)
    for r in range(out.shape[0]):
        counts[:] = 0
        for k in range(m):
            counts[picks[r, k]] += 1
        if parametric:
            st = 0.0
            stt = 0.0
            sv = 0.0
            svv = 0.0
            svt = 0.0
            for j in range(m):
                c = counts[j]
                st += c * test[j]
                stt += c * test[j] * test[j]
                sv += c * val[j]
                svv += c * val[j] * val[j]
                svt += c * val[j] * test[j]
            mt = st / m
            var_t = max((stt - m * mt * mt) / (m - 1), 0.0)
            rho = 1.0
            if not single:
                mv = sv / m
                var_v = (svv - m * mv * mv) / (m - 1)
                rho = min(max((svt - m * mt * mv) / (m - 1) / np.sqrt(var_v * var_t), -1.0), 1.0)
            out[r] = mt + sign * rho * np.sqrt(var_t) * c_n
        elif starts.shape[0] == m + 1:  # no tied validation scores: blocks are single runs
            total = 0.0
            cum = 0
            for j in range(m):
                c = counts[j]
                if c > 0:
                    total += (powers[cum + c] - powers[cum]) * test[j]
                    cum += c
            out[r] = total
        else:
            total = 0.0
            cum = 0
            for g in range(starts.shape[0] - 1):
                block = 0
                block_test = 0.0
                for j in range(starts[g], starts[g + 1]):
                    block += counts[j]
                    block_test += counts[j] * test[j]
                if block > 0:
                    total += (powers[cum + block] - powers[cum]) * block_test / block
                    cum += block
            out[r] = total


def _smoothed_replicates(rng, test, val, n, sign, single, estimator, n_resamples, bandwidth,
                         progress):
    data = test[None, :] if single else np.vstack([val, test])
    kde = stats.gaussian_kde(data, bw_method=bandwidth)
    chol = np.linalg.cholesky(np.atleast_2d(kde.covariance))
    out = np.empty(n_resamples)
    weights = rank_weights(test.size, n)
    data = np.ascontiguousarray(data)
    for start, stop in _chunks(n_resamples, test.size, estimator, progress):
        _smoothed_kernel(rng, data, chol, weights, sign, estimator == "parametric",
                         boo_n_normal(n), out[start:stop])
    return out


@njit(cache=True, nogil=True)
def _smoothed_kernel(rng, data, chol, weights, sign, parametric, c_n, out):
    """Replicates of Boo_n on smoothed-bootstrap samples (rows of `data`: [val,] test)."""
    d, m = data.shape
    sample = np.empty((d, m))
    z = np.empty(d)
    for r in range(out.shape[0]):
        for j in range(m):
            k = rng.integers(0, m)
            for a in range(d):
                z[a] = rng.standard_normal()
            for a in range(d):
                noise = 0.0
                for b in range(a + 1):
                    noise += chol[a, b] * z[b]
                sample[a, j] = data[a, k] + noise
        test = sample[d - 1]
        val = sample[0]
        if parametric:
            mt = test.mean()
            st = np.sqrt(np.sum((test - mt) ** 2) / (m - 1))
            rho = 1.0
            if d == 2:
                mv = val.mean()
                sv = np.sqrt(np.sum((val - mv) ** 2) / (m - 1))
                rho = np.sum((val - mv) * (test - mt)) / ((m - 1) * sv * st)
            out[r] = mt + sign * rho * st * c_n
        else:
            order = np.argsort(sign * val)
            total = 0.0
            for j in range(m):
                total += weights[j] * test[order[j]]
            out[r] = total


def _check_runs(test, val, n, best):
    n = check_int("n", n, low=1)
    check_choice("best", best, BEST)
    test = _finite_1d("test", test)
    if test.size < 2:
        raise ValueError(f"`test` needs at least 2 runs; got {test.size}.")
    if val is None:
        return test, test, n
    val = _finite_1d("val", val)
    if val.size != test.size:
        raise ValueError(f"`val` and `test` must have one score per run; got {val.size} and "
                         f"{test.size}.")
    return test, val, n


def _finite_1d(name, values):
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or not np.isfinite(arr).all():
        raise ValueError(f"`{name}` must be a 1-D array of finite numbers.")
    return arr


def expected_best(spec, n: int, *, best: str = "max") -> float:
    """Expected test score of the best-validation run among n of a :class:`PoolSpec` (Eq 5)."""
    return boo_n(spec.distribution(), n, best=best, conditional_mean=spec.test_given_val,
                 tol=1e-9)
