"""Fisher's conditional odds ratio of 2x2 tables, its exact interval, and Fisher's exact test,
many tables at once.

Given its margins, the count ``x`` of a table ``[[x, n_a - x], [k_b, n_b - k_b]]`` follows
Fisher's noncentral hypergeometric law, ``P(X = k) ~ C(n_a, k) C(n_b, N - k) psi^k`` on
``max(0, N - n_b) <= k <= min(n_a, N)`` with ``N = x + k_b``. The conditional maximum
likelihood estimate of the odds ratio solves ``E[X; psi] = x``; the bounds of the exact
equal-tailed interval at level ``1 - 2 alpha`` solve ``P(X >= x; psi) = alpha`` (low) and
``P(X <= x; psi) = alpha`` (high). These are scipy's definitions
(``scipy.stats.contingency.odds_ratio(table, kind='conditional')``), with its conventions: a
zero margin gives a NaN estimate and ``(0, inf)``; ``x`` at the bottom of its support gives the
estimate and the low bound 0, at the top the estimate and the high bound ``inf``.

scipy solves one table at a time, with a root finder calling the law's cdf in Python
(about 16 ms a table: ``evalmc bench --only fisher-odds-ratio``). Here every table's
log-probabilities on its support are rows of one array, and the three equations, written in
``t = log psi`` on the log scale of the tail probabilities, are solved for all tables together
by Newton steps kept inside a bisection bracket.

Fisher's exact test (:func:`fisher_exact_pvalues`) reads the same law at ``psi = 1`` (the
central hypergeometric): its two-sided p-value sums the probabilities of the tables no more
probable than the one observed.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln, logsumexp, ndtri

#: Newton steps stop when they move ``t = log psi`` by less than this.
TOL = 1e-13
#: The starting bracket of ``t``: odds ratios from e^-BOUND to e^BOUND.
BOUND = 200.0
#: Tables solved together, at most (memory: about 10 arrays of CHUNK x support floats).
CHUNK = 4096


def _log_binom(n, k):
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _solve(logw, k, inside, equation, x, start, log_alpha):
    """The root in ``t`` of `equation` ('mean', 'upper tail' or 'lower tail') per row, from
    `start`; only the rows not yet converged are iterated.

    Each function is monotone in ``t``: the mean and ``log P(X >= x)`` increase, ``log P(X <=
    x)`` decreases; its derivative is a difference of conditional means.
    """
    t = start.copy()
    lo, hi = np.full(x.shape, -BOUND), np.full(x.shape, BOUND)
    sign = -1.0 if equation == "lower tail" else 1.0
    active = np.arange(x.size)
    for _ in range(200):
        kk, xx, tt = k[active], x[active], t[active]
        lp = np.where(inside[active], logw[active] + kk * tt[:, None], -np.inf)
        lp -= logsumexp(lp, axis=1, keepdims=True)
        p = np.exp(lp)
        mean = (p * kk).sum(axis=1)
        if equation == "mean":
            f = mean - xx
            slope = (p * (kk - mean[:, None]) ** 2).sum(axis=1)
        else:
            part = (kk >= xx[:, None]) if equation == "upper tail" else (kk <= xx[:, None])
            tail = np.where(part, lp, -np.inf)
            log_tail = logsumexp(tail, axis=1, keepdims=True)
            f = log_tail[:, 0] - log_alpha
            slope = (np.exp(tail - log_tail) * kk).sum(axis=1) - mean
        rising = sign * f < 0  # below the root when the function increases
        lo[active] = np.where(rising, tt, lo[active])
        hi[active] = np.where(rising, hi[active], tt)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = tt - f / slope
        low, high = lo[active], hi[active]
        bad = ~np.isfinite(step) | (step <= low) | (step >= high)
        new = np.where(bad, (low + high) / 2, step)
        done = (np.abs(new - tt) < TOL) | (high - low < TOL)
        t[active] = new
        active = active[~done]
        if not active.size:
            return t
    raise RuntimeError(f"the {equation} equation of {active.size} tables did not converge.")


def _checked_tables(k_a, n_a, k_b, n_b):
    """The four counts as float arrays of one shape; a ValueError unless whole and in range."""
    k_a, n_a, k_b, n_b = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                               for v in (k_a, n_a, k_b, n_b)))
    for name, k, n in (("k_a", k_a, n_a), ("k_b", k_b, n_b)):
        if not (np.all(np.isfinite(n) & (n == np.rint(n)) & (n >= 0))
                and np.all((k == np.rint(k)) & (k >= 0) & (k <= n))):
            raise ValueError(f"`{name}` must be whole counts between 0 and its number of "
                             f"trials, and the trials whole numbers >= 0.")
    return k_a, n_a, k_b, n_b


def conditional_odds_ratio(k_a, n_a, k_b, n_b, level: float = 0.95):
    """Conditional maximum likelihood odds ratio of A's success rate to B's, and its exact
    equal-tailed interval at `level`, of each table ``[[k_a, n_a - k_a], [k_b, n_b - k_b]]``."""
    from evalmc.inputs.checks import check_float

    level = check_float("level", level, low=0, high=1, open_low=True, open_high=True)
    k_a, n_a, k_b, n_b = _checked_tables(k_a, n_a, k_b, n_b)
    shape = k_a.shape
    x, n_a, k_b, n_b = (v.ravel() for v in (k_a, n_a, k_b, n_b))
    total = x + k_b
    est, low, high = np.full(x.shape, np.nan), np.zeros(x.shape), np.full(x.shape, np.inf)
    ok = (n_a > 0) & (n_b > 0) & (total > 0) & (total < n_a + n_b)
    first, last = np.maximum(0, total - n_b), np.minimum(n_a, total)
    est[ok & (x == first)], est[ok & (x == last)] = 0.0, np.inf
    # A table's support is padded to min(n_a, n_b) + 1 points, whatever the other tables:
    # its sums then add the same terms in the same order, so its bits are its own.
    width = np.minimum(n_a, n_b) + 1
    solve = np.flatnonzero(ok & (first < last))
    for w in np.unique(width[solve]):
        same = solve[width[solve] == w]
        for rows in np.array_split(same, -(-same.size // CHUNK)):
            values = _tables(x[rows], n_a[rows], n_b[rows], total[rows], int(w), level)
            for out, value in zip((est, low, high), values, strict=True):
                keep = ~np.isnan(value)
                out[rows[keep]] = value[keep]
    return est.reshape(shape), low.reshape(shape), high.reshape(shape)


def _tables(x, n_a, n_b, total, width, level):
    """The estimate and bounds of tables whose supports have at most `width` points (NaN where
    the caller's convention applies: an end of the support)."""
    base, last = np.maximum(0, total - n_b), np.minimum(n_a, total)
    k = base[:, None] + np.arange(width)
    inside = k <= last[:, None]
    kk = np.where(inside, k, base[:, None])
    logw = _log_binom(n_a[:, None], kk) + _log_binom(n_b[:, None], total[:, None] - kk)
    log_alpha = np.log((1 - level) / 2)
    # Starts: the log odds ratio with a half added to each cell, and Woolf's bounds.
    cells = np.array([x, n_a - x, total - x, n_b - total + x]) + 0.5
    centre = np.log(cells[0] * cells[3] / (cells[1] * cells[2]))
    half = ndtri((1 + level) / 2) * np.sqrt((1 / cells).sum(axis=0))
    values = []
    for equation, where, start in (("mean", (x > base) & (x < last), centre),
                                   ("upper tail", x > base, centre - half),
                                   ("lower tail", x < last, centre + half)):
        value = np.full(x.shape, np.nan)
        if where.any():
            value[where] = np.exp(_solve(logw[where], kk[where], inside[where], equation,
                                         x[where], start[where], log_alpha))
        values.append(value)
    return values


#: Tables whose probability is within this relative margin of the observed one's count as
#: no more probable (R's ``fisher.test``; scipy's is 1e-14): ties computed in another order
#: stay ties.
TIE_MARGIN = 1e-7


def fisher_exact_pvalues(k_a, n_a, k_b, n_b) -> np.ndarray:
    """Two-sided p-values of Fisher's exact test of each table ``[[k_a, n_a - k_a], [k_b, n_b -
    k_b]]``, as ``scipy.stats.fisher_exact``: the central hypergeometric probability, given the
    margins, of the tables at most as probable as the observed one (:data:`TIE_MARGIN`); 1 when
    a margin is 0."""
    k_a, n_a, k_b, n_b = _checked_tables(k_a, n_a, k_b, n_b)
    shape = k_a.shape
    x, n_a, k_b, n_b = (v.ravel() for v in (k_a, n_a, k_b, n_b))
    total = x + k_b
    p = np.ones(x.shape)
    width = np.minimum(n_a, n_b) + 1  # padded as the odds ratio's: a table's bits its own
    solve = np.flatnonzero((n_a > 0) & (n_b > 0) & (total > 0) & (total < n_a + n_b))
    for w in np.unique(width[solve]):
        same = solve[width[solve] == w]
        for rows in np.array_split(same, -(-same.size // CHUNK)):
            p[rows] = _two_sided(x[rows], n_a[rows], n_b[rows], total[rows], int(w))
    return p.reshape(shape)


def _two_sided(x, n_a, n_b, total, width):
    """Fisher's two-sided p-value of tables whose supports have at most `width` points."""
    base, last = np.maximum(0, total - n_b), np.minimum(n_a, total)
    k = base[:, None] + np.arange(width)
    inside = k <= last[:, None]
    kk = np.where(inside, k, base[:, None])
    logw = np.where(inside, _log_binom(n_a[:, None], kk)
                    + _log_binom(n_b[:, None], total[:, None] - kk), -np.inf)
    lp = logw - logsumexp(logw, axis=1, keepdims=True)
    observed = lp[np.arange(x.size), (x - base).astype(np.int64)]
    as_rare = inside & (lp <= observed[:, None] + np.log1p(TIE_MARGIN))
    return np.minimum(np.exp(logsumexp(np.where(as_rare, lp, -np.inf), axis=1)), 1.0)
