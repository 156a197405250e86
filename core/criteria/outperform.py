"""Criteria of Bouthillier et al. (2021) for "A beats B" over k paired runs, vectorized.

The bootstrap of ``prob-outperform`` needs no resampling: a resample's P(A>B)* has a known
pmf (:func:`bootstrap_pmf`), and the interval's ends, two order statistics of B draws, are
its inverse cdf at two Beta variables."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np
import scipy

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.registry import DELTA_PAPER, GAMMA
from evalmc.criteria.registry import OUTPERFORM_RESAMPLES as N_RESAMPLES
from evalmc.criteria.ttests import welch_statistic
from evalmc.inputs.checks import check_float, check_int
from evalmc.sims.base import Batch
from evalmc.sims.benchmarks import PairedRunsBatch

#: Pairs up to which the bootstrap cdf is tabulated whole (memory quadratic in k); above,
#: :func:`outperform_test` bisects on it (memory linear in k), with the same order statistics.
TABLE_PAIRS = 2000
#: Cells of the (w, N1) grid :func:`conclusion_probabilities` sums at a time (0.5 MB an array).
_BLOCK_CELLS = 1 << 16
#: The three conclusions of the P(A>B) test, by code 0, 1, 2.
CONCLUSIONS = ("not significant", "not meaningful", "A better")


@dataclass(frozen=True)
class OutperformResult:
    """The P(A>B) test on samples of `k` pairs: ``p_a_beats_b = (wins + ties / 2) / k``, its
    interval ``ci_low``, ``ci_high``, and the ``conclusion`` (index into :data:`CONCLUSIONS`)."""

    k: int
    p_a_beats_b: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    conclusion: np.ndarray


def check_test_params(gamma, alpha, n_resamples) -> tuple[float, float, int]:
    """``(gamma, alpha, n_resamples)`` of the P(A>B) test, checked."""
    gamma = check_float("gamma", gamma, low=0.5, high=1, open_low=True, open_high=True)
    alpha = check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    n_resamples = check_int("n_resamples", n_resamples, low=1)
    r1, r2 = percentile_ranks(n_resamples, alpha)
    if r1 >= r2:
        enough = next(b for b in itertools.count(math.ceil(2 / alpha))
                      if len(set(percentile_ranks(b, alpha))) == 2)
        raise ValueError(f"`n_resamples` must give the {1 - alpha:g} percentile interval two "
                         f"distinct ends, the resamples' order statistics {r1} and {r2} here; "
                         f"got {n_resamples} (e.g. {enough} do).")
    return gamma, alpha, n_resamples


@lru_cache(maxsize=256)
def percentile_ranks(n_resamples: int, alpha: float) -> tuple[int, int]:
    """1-based ranks ``(r1, r2)`` of the interval's ends, as numpy's 'inverted_cdf' picks them."""
    return tuple(min(n_resamples, max(1, math.ceil(n_resamples * q)))
                 for q in (alpha / 2, 1 - alpha / 2))


def bootstrap_pmf(wins, ties, k: int) -> np.ndarray:
    """``(n, 2k + 1)`` pmf of ``2 W* + T*`` of one resample of `k` pairs, per sample."""
    wins = np.asarray(wins, dtype=np.int64)
    ties = np.asarray(ties, dtype=np.int64)
    grid = np.arange(k + 1)
    pmf = np.zeros((wins.size, 2 * k + 1))
    plain = ties == 0
    pmf[plain, ::2] = scipy.stats.binom.pmf(grid, k, wins[plain, None] / k)
    w_star, t_star = (g.ravel() for g in np.meshgrid(grid, grid, indexing="ij"))
    ok = w_star + t_star <= k
    w_star, t_star = w_star[ok], t_star[ok]
    cells = np.stack([w_star, t_star, k - w_star - t_star], axis=1)
    for i in np.flatnonzero(~plain):
        p = np.array([wins[i], ties[i], k - wins[i] - ties[i]]) / k
        np.add.at(pmf[i], 2 * w_star + t_star, scipy.stats.multinomial.pmf(cells, k, p))
    return pmf


def outperform_test(wins, ties, k: int, *, gamma=GAMMA, alpha=0.05, n_resamples=N_RESAMPLES,
                    rng: np.random.Generator) -> OutperformResult:
    """The P(A>B) test on many samples of `k` pairs at once: an :class:`OutperformResult`."""
    gamma, alpha, n_resamples = check_test_params(gamma, alpha, n_resamples)
    k = check_int("k", k, low=1)
    wins, ties = _counts("wins", wins, k), _counts("ties", ties, k)
    if wins.shape != ties.shape:
        raise ValueError(f"`wins` and `ties` must have the same shape; got {wins.shape} and "
                         f"{ties.shape}.")
    over = np.flatnonzero(wins + ties > k)
    if over.size:
        i = over[0]
        raise ValueError(f"`wins` + `ties` must be at most k = {k} pairs; sample {i} has "
                         f"{wins[i]} + {ties[i]}.")
    # Order statistics r1 < r2 of B uniforms: U1 ~ Beta(r1, B - r1 + 1), and given U1,
    # U2 = U1 + (1 - U1) Beta(r2 - r1, B - r2 + 1). The resamples' order statistics are the
    # bootstrap cdf's inverse at U1 and U2: the first grid point whose cdf reaches them.
    r1, r2 = percentile_ranks(n_resamples, alpha)
    u1 = rng.beta(r1, n_resamples - r1 + 1, size=wins.size)
    u2 = u1 + (1 - u1) * rng.beta(r2 - r1, n_resamples - r2 + 1, size=wins.size)
    halves = bool(ties.any())  # P(A>B)* on the grid 0, 1/(2k), ..., 1, else 0, 1/k, ..., 1
    last = 2 * k if halves else k
    if k <= TABLE_PAIRS:  # the whole cdf of each sample, a row of a table
        if halves:
            unique, inverse = np.unique(wins * (k + 1) + ties, return_inverse=True)
            cdf = np.cumsum(bootstrap_pmf(unique // (k + 1), unique % (k + 1), k), axis=1)
            cdf = cdf[inverse.ravel()]
        else:
            cdf = _binomial_cdf(k)[wins]
        ends = [(cdf < u[:, None]).sum(axis=1) for u in (u1, u2)]
    else:  # memory linear in k: bisect on the cdf, computed where it is asked for
        ends = [[_first_reaching(_resample_cdf(w, t, k, halves), u, last)
                 for w, t, u in zip(wins, ties, us, strict=True)] for us in (u1, u2)]
    ci_low, ci_high = (np.minimum(np.asarray(e, np.int64), last) / last for e in ends)
    conclusion = np.where(ci_low <= 0.5, 0, np.where(ci_high <= gamma, 1, 2))
    return OutperformResult(k, (wins + ties / 2) / k, ci_low, ci_high, conclusion)


def _counts(name: str, values, k: int) -> np.ndarray:
    """`values` as a 1-D array of whole numbers in [0, k], or a ValueError naming `name`."""
    x = np.atleast_1d(np.asarray(values))
    if x.ndim != 1 or not (np.issubdtype(x.dtype, np.integer)
                           or np.issubdtype(x.dtype, np.floating)):
        raise ValueError(f"`{name}` must be a 1-D array of counts; got {values!r}.")
    bad = np.flatnonzero(~np.isfinite(x) | (x != np.round(x)) | (x < 0) | (x > k)
                         if x.dtype.kind == "f" else (x < 0) | (x > k))
    if bad.size:
        raise ValueError(f"`{name}` must hold whole numbers of pairs in [0, k = {k}]; got "
                         f"{x[bad[0]]} (sample {bad[0]}).")
    return x.astype(np.int64)


def _resample_cdf(w: int, t: int, k: int, halves: bool):
    """The cdf of a resample's ``2 W* + T*`` (`halves`) or ``W*``, as a function of the grid."""
    if not halves:
        return lambda s: scipy.special.bdtr(s, k, w / k)
    q, r = (w + t) / k, (w / (w + t) if w + t else 0.0)
    low = max(0, int(scipy.stats.binom.ppf(1e-18, k, q)) - 1)
    high = min(k, k - int(scipy.stats.binom.ppf(1e-18, k, 1 - q)) + 1)  # isf loses 1e-18
    m = np.arange(low, high + 1)
    weights = scipy.stats.binom.pmf(m, k, q)

    def cdf(s):
        j = s - m  # W* at most j given M = m (bdtr is NaN outside [0, m])
        inner = np.where(j < 0, 0.0, np.where(j >= m, 1.0, scipy.special.bdtr(
            np.clip(j, 0, m), m, r)))
        return float(weights @ inner)

    return cdf


def _first_reaching(cdf, u: float, last: int) -> int:
    """The first grid index in [0, last] whose cdf reaches `u` (`last` if none: rounding)."""
    low, high = 0, last
    while low < high:
        mid = (low + high) // 2
        if cdf(mid) >= u:
            high = mid
        else:
            low = mid + 1
    return low


@lru_cache(maxsize=64)
def _binomial_cdf(k: int) -> np.ndarray:
    """Row w: cdf of Binomial(k, w / k) (a resample's wins, no ties), read-only."""
    table = np.cumsum(bootstrap_pmf(np.arange(k + 1), np.zeros(k + 1, np.int64), k)[:, ::2],
                      axis=1)
    table.flags.writeable = False
    return table


def conclusion_probabilities(k: int, *, gamma=GAMMA, alpha=0.05,
                             n_resamples=N_RESAMPLES) -> np.ndarray:
    """``(k + 1, 3)``: exact probability of each of the :data:`CONCLUSIONS` given w wins of `k`."""
    k = check_int("k", k, low=1)
    gamma, alpha, n_resamples = check_test_params(gamma, alpha, n_resamples)
    p1, p2 = _resample_shares(k, gamma)
    r1, r2 = percentile_ranks(n_resamples, alpha)
    a_better = _below_ranks(p1, p2, r1, r2, n_resamples)
    not_significant = scipy.stats.binom.sf(r1 - 1, n_resamples, p1)
    not_meaningful = np.clip(1.0 - not_significant - a_better, 0.0, 1.0)
    return np.stack([not_significant, not_meaningful, a_better], axis=1)


def b_better_probabilities(k: int, *, gamma=GAMMA, alpha=0.05,
                           n_resamples=N_RESAMPLES) -> np.ndarray:
    """``(k + 1,)``: exact probability of "B better" given w wins of `k`, mirroring the pairs."""
    k = check_int("k", k, low=1)
    gamma, alpha, n_resamples = check_test_params(gamma, alpha, n_resamples)
    p1, p2 = _resample_shares(k, gamma)
    r1, r2 = percentile_ranks(n_resamples, alpha)
    mirrored = _below_ranks(p1, p2, n_resamples + 1 - r2, n_resamples + 1 - r1, n_resamples)
    return mirrored[::-1]


def _resample_shares(k: int, gamma: float):
    """Per w: the probabilities that a resample's P(A>B) is <= 0.5, and in (0.5, gamma]."""
    values = np.arange(2 * k + 1) / (2 * k)
    pmf = bootstrap_pmf(np.arange(k + 1), np.zeros(k + 1, np.int64), k)
    p1 = _flush(pmf[:, values <= 0.5].sum(axis=1))
    p2 = _flush(pmf[:, (values > 0.5) & (values <= gamma)].sum(axis=1))
    return p1, p2


def _below_ranks(p1, p2, r1: int, r2: int, n_resamples: int) -> np.ndarray:
    """P(N1 < r1 and N1 + N2 < r2), (N1, N2) multinomial over `n_resamples` draws."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p2_given = _flush(np.where(p1 < 1, p2 / (1 - p1), 0.0))[:, None]
    certain = p1 >= 1  # every resample at or below 0.5 (scipy's pmf overflows at p = 1)
    p1 = np.where(certain, 0.5, p1)[:, None]
    out = np.zeros(p1.shape[0])
    step = max(1, _BLOCK_CELLS // p1.shape[0])
    for start in range(0, r1, step):  # blocks of N1: memory bounded whatever B, Ctrl-C stops
        n1 = np.arange(start, min(r1, start + step))
        out += np.sum(scipy.stats.binom.pmf(n1, n_resamples, p1)
                      * scipy.stats.binom.cdf(r2 - 1 - n1, n_resamples - n1, p2_given), axis=1)
    out[certain] = 0.0
    return out


def _flush(p):
    """Clip to [0, 1] and flush probabilities below 1e-250 to 0 (scipy's binom overflows)."""
    p = np.clip(p, 0.0, 1.0)
    return np.where(p < 1e-250, 0.0, p)


def _wins_ties(batch: Batch):
    """Pairs won and tied by A; ``batch.wins`` when the scenario draws them first (no ties)."""
    if isinstance(batch, PairedRunsBatch):
        return batch.wins, np.zeros_like(batch.wins)
    diff = batch.a - batch.b  # same signs as comparing a with b, for finite scores
    return (diff > 0).sum(axis=1), (diff == 0).sum(axis=1)


def _prob_outperform(batch: Batch, rng, *, gamma, alpha, n_resamples) -> CriterionResult:
    wins, ties = _wins_ties(batch)
    res = outperform_test(wins, ties, batch.sizes[0], gamma=gamma, alpha=alpha,
                          n_resamples=n_resamples, rng=rng)
    return _decided(res.p_a_beats_b, res.conclusion == 2)


def _single_point(batch: Batch, *, delta, sigma) -> CriterionResult:
    with np.errstate(over="ignore"):  # beyond the floats, the sign still decides
        return _beyond(batch.a[:, 0] - batch.b[:, 0], batch, delta, sigma)


def _average_delta(batch: Batch, *, delta, sigma) -> CriterionResult:
    with np.errstate(over="ignore"):
        return _beyond(row_means(batch.a) - row_means(batch.b), batch, delta, sigma)


#: Why a replication of ``single-point`` or ``average-delta`` failed.
NO_SPREAD = "no result (every run scores the same: the pooled sd of the runs is 0)"
BEYOND_FLOATS = "no result (the scores' mean or pooled sd is beyond the floats)"


def _beyond(diff, batch: Batch, delta, sigma) -> CriterionResult:
    """A better where ``diff > delta sigma``, sigma known or pooled (all runs equal, or a mean
    or sd beyond the floats: failed, saying which)."""
    n = diff.shape[0]
    if sigma is None:
        _, var_a, _, var_b = batch.moments()
        with np.errstate(invalid="ignore", over="ignore"):
            sigma = np.sqrt((var_a + var_b) / 2)
        far = ~np.isfinite(sigma)  # a variance beyond the floats: its sd may not be
        if far.any():
            sigma = sigma.copy()
            sigma[far] = pooled_sd(batch.a[far], batch.b[far])
        flat = sigma == 0
        failed = ~(sigma > 0) | ~np.isfinite(sigma) | np.isnan(diff)
    else:
        flat = np.zeros(n, bool)
        failed = np.isnan(diff)
    reject = ~failed & (diff > delta * sigma)
    errors = {int(i): NO_SPREAD if flat[i] else BEYOND_FLOATS for i in np.flatnonzero(failed)}
    return CriterionResult(failed, diff, np.full(n, np.nan), reject=reject, errors=errors)


def row_means(x) -> np.ndarray:
    """Each row's mean; a row whose sum overflows is divided by its largest |score| first."""
    with np.errstate(over="ignore", invalid="ignore"):
        mean = np.mean(x, axis=1)
    far = np.isinf(mean) | (np.isnan(mean) & np.isfinite(x).all(axis=1))
    if far.any():
        rows = np.asarray(x, dtype=float)[far]
        scale = np.abs(rows).max(axis=1)
        mean[far] = scale * (rows / scale[:, None]).mean(axis=1)
    return mean


def pooled_sd(a, b) -> np.ndarray:
    """``sqrt((var_a + var_b) / 2)`` of each row (ddof 1) without overflow: deviations and sds
    divided by the largest before squaring; inf or NaN only when the sd is beyond the floats."""
    def sd(x):
        with np.errstate(over="ignore", invalid="ignore"):
            dev = x - row_means(x)[:, None]
            scale = np.abs(dev).max(axis=1)
            spread = np.sqrt(((dev / scale[:, None]) ** 2).sum(axis=1) / (x.shape[1] - 1))
            return np.where(scale == 0, 0.0, scale * spread)

    sd_a, sd_b = sd(np.asarray(a, dtype=float)), sd(np.asarray(b, dtype=float))
    with np.errstate(invalid="ignore", divide="ignore"):
        big = np.maximum(sd_a, sd_b)
        return np.where(big == 0, 0.0, big * np.sqrt(((sd_a / big) ** 2 + (sd_b / big) ** 2)
                                                     / 2))


def t_oracle(batch: Batch) -> CriterionResult:
    """One-sided Welch t-test of ``mean(a) > mean(b)``: p-value ``P(T >= t)``.

    Parameters
    ----------
    batch : Batch
        Scores of A and B, one row per replication.

    Returns
    -------
    CriterionResult
        One-sided p-values and Welch's t; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> t_oracle(batch).pvalue.round(4)  # half of welch-t's two-sided p-values
    array([0.002 , 0.1456])
    """
    t, df = welch_statistic(batch)
    with np.errstate(invalid="ignore"):
        p = scipy.special.stdtr(df, -t)
    return CriterionResult.from_pvalues(p, t)


def _decided(statistic, reject) -> CriterionResult:
    n = statistic.shape[0]
    return CriterionResult(np.zeros(n, bool), statistic, np.full(n, np.nan), reject=reject)


def single_point(delta=DELTA_PAPER, sigma=None):
    """The ``single-point`` family: A better when its first run beats B's by over `delta` sigma.

    Parameters
    ----------
    delta : float
        Threshold, in units of sigma.
    sigma : float, optional
        Known sd of one run's score; default: the pooled sd of each replication's runs.

    Returns
    -------
    callable
        ``test(batch) -> CriterionResult``.

    Examples
    --------
    >>> from evalmc.criteria import get_criterion
    >>> get_criterion("single-point", sigma=1.0).name
    'single-point(sigma=1)'
    """
    return partial(_single_point, **_threshold(delta, sigma))


def average_delta(delta=DELTA_PAPER, sigma=None):
    """The ``average-delta`` family: A better when its mean beats B's by more than `delta` sigma.

    Parameters
    ----------
    delta, sigma
        As for :func:`single_point`.

    Returns
    -------
    callable
        ``test(batch) -> CriterionResult``.

    Examples
    --------
    >>> from evalmc.criteria import get_criterion
    >>> get_criterion("average-delta(delta=1)").name
    'average-delta(delta=1)'
    """
    return partial(_average_delta, **_threshold(delta, sigma))


def _threshold(delta, sigma) -> dict:
    delta = check_float("delta", delta)
    if sigma is not None:
        sigma = check_float("sigma", sigma, low=0, open_low=True)
    return {"delta": delta, "sigma": sigma}


def prob_outperform(gamma=GAMMA, alpha=0.05, n_resamples=N_RESAMPLES):
    """The ``prob-outperform`` family: A better when the percentile bootstrap interval of P(A>B)
    clears 0.5 and `gamma`.

    Parameters
    ----------
    gamma : float
        Meaningful P(A>B), in (0.5, 1).
    alpha : float
        One minus the interval's confidence.
    n_resamples : int
        Bootstrap resamples.

    Returns
    -------
    callable
        ``test(batch, rng) -> CriterionResult``.

    Examples
    --------
    >>> from evalmc.criteria import get_criterion
    >>> get_criterion("prob-outperform", n_resamples=400).name
    'prob-outperform(n_resamples=400)'
    """
    gamma, alpha, n_resamples = check_test_params(gamma, alpha, n_resamples)
    return partial(_prob_outperform, gamma=gamma, alpha=alpha, n_resamples=n_resamples)
