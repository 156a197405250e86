"""Tests comparing two classifiers on one evaluation set, from its 8-cell table.

All read ``Batch.counts`` (shape (n_reps, 8); cells numbered ``4 * label + 2 * a_correct +
b_correct``, see :mod:`evalmc.sims.classifiers`) and are vectorized over replications. Notation of
Dietterich (1998): ``n01`` examples misclassified by A but not by B (cells 1, 5), ``n10`` by B
but not by A (cells 2, 6).

Degenerate tables have defined decisions, never a NaN: no discordant pair gives McNemar
p = 1 and a bootstrap distribution all at 0 (p = 1); equal error rates of 0 or 1 give the
proportion test z = 0; an F1 whose denominator ``2 TP + FN + FP`` is 0 (no positive example
and no false positive) counts as 0, so dF1 = 0 there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit
from scipy import stats
from scipy.special import ndtr

from evalmc.criteria.base import BuiltinCriterion, CriterionResult
from evalmc.sims.base import Batch
from evalmc.sims.classifiers import A_WRONG, B_WRONG, chain_link, multinomial_into
from evalmc.sims.validation import check_float, check_int

#: Bootstrap replicates by default: 50 / alpha for the smallest alpha of Keller et al. (0.01).
DEFAULT_N_BOOT = 5000


def discordant(counts):
    """``(n01, n10)``: examples A gets wrong and B right, and the reverse, per replication."""
    counts = np.asarray(counts)
    return counts[:, 1] + counts[:, 5], counts[:, 2] + counts[:, 6]


def f1_difference(counts) -> np.ndarray:
    """Observed dF1 = F1(A) - F1(B), with F1 = 2 TP / (2 TP + FN + FP) (0 if undefined)."""
    counts = np.asarray(counts, dtype=float)
    tp_a, tp_b = counts[:, 6] + counts[:, 7], counts[:, 5] + counts[:, 7]
    den_a = 2 * tp_a + counts[:, 4] + counts[:, 5] + counts[:, 0] + counts[:, 1]
    den_b = 2 * tp_b + counts[:, 4] + counts[:, 6] + counts[:, 0] + counts[:, 2]
    f1_a = np.divide(2 * tp_a, den_a, out=np.zeros_like(tp_a), where=den_a > 0)
    f1_b = np.divide(2 * tp_b, den_b, out=np.zeros_like(tp_b), where=den_b > 0)
    return f1_a - f1_b


def proportion(counts, rng=None) -> CriterionResult:
    """Proportion test (Keller et al. Eq 3): z = D / sqrt(2 C (1 - C) / n), two-sided normal.

    ``D`` is A's error rate minus B's and ``C`` their mean; the test wrongly treats A's and
    B's errors as independent. Where ``C`` is 0 or 1, D is 0 and z = 0.
    """
    counts = np.asarray(counts)
    n = counts.sum(axis=1)
    err_a = counts[:, list(A_WRONG)].sum(axis=1)
    err_b = counts[:, list(B_WRONG)].sum(axis=1)
    d = (err_a - err_b) / n
    c = (err_a + err_b) / (2 * n)
    sd = np.sqrt(2 * c * (1 - c) / n)
    z = np.divide(d, sd, out=np.zeros_like(d), where=sd > 0)
    return CriterionResult.from_pvalues(2 * ndtr(-np.abs(z)), z)


def mcnemar(counts, rng=None) -> CriterionResult:
    """McNemar's test (Eq 4): ``(|n01 - n10| - 1)^2 / (n01 + n10)`` against chi2(1).

    The continuity-corrected statistic exactly as Eq 4 writes it; no discordant pair gives
    statistic 0 and p = 1.
    """
    n01, n10 = discordant(counts)
    m = (n01 + n10).astype(float)
    chi2 = np.divide((np.abs(n01 - n10) - 1.0) ** 2, m, out=np.zeros_like(m), where=m > 0)
    return CriterionResult.from_pvalues(stats.chi2.sf(chi2, 1), chi2)


def mcnemar_exact(counts, rng=None) -> CriterionResult:
    """Exact McNemar test: two-sided binomial test of ``n01`` out of ``n01 + n10`` at 1/2.

    ``p = min(1, 2 P(X <= min(n01, n10)))``, X ~ Binomial(n01 + n10, 1/2), as
    ``scipy.stats.binomtest``; no discordant pair gives p = 1.
    """
    n01, n10 = discordant(counts)
    m = n01 + n10
    p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(n01, n10), m, 0.5))
    return CriterionResult.from_pvalues(p, n01.astype(float))


def mcnemar_midp(counts, rng=None) -> CriterionResult:
    """Mid-p McNemar test: the exact p-value less the probability of the observed count.

    ``p = 2 P(X < k) + P(X = k)``, k = min(n01, n10), capped at 1 (Fagerland et al. 2013);
    no discordant pair gives p = 1.
    """
    n01, n10 = discordant(counts)
    m = n01 + n10
    k = np.minimum(n01, n10)
    p = 2 * stats.binom.cdf(k, m, 0.5) - stats.binom.pmf(k, m, 0.5)
    return CriterionResult.from_pvalues(np.minimum(1.0, p), n01.astype(float))


#: Binomial tail mass left out of the exact dCerr replicate law (per side).
_TAIL = 1e-16


def dcerr_replicate_law(n, n01, n10) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``P(n01* < n10*)`` and ``P(n01* = n10*)`` of one bootstrap replicate.

    A replicate's discordant total is ``T ~ Binomial(n, (n01 + n10) / n)`` and, given T,
    ``n01* ~ Binomial(T, n01 / (n01 + n10))``; the sum runs over T outside a 1e-16 tail on
    each side.

    Parameters
    ----------
    n, n01, n10 : array_like of int, shape (k,)
        Set sizes and discordant counts.

    Returns
    -------
    lt, eq : ndarray, shape (k,)
    """
    n, n01, n10 = (np.asarray(x, dtype=np.int64) for x in (n, n01, n10))
    m = n01 + n10
    share = m / n
    lo = stats.binom.ppf(_TAIL, n, share)
    hi = stats.binom.isf(_TAIL, n, share)
    t = lo[:, None] + np.arange(int((hi - lo).max()) + 1)
    weight = np.where(t <= hi[:, None], stats.binom.pmf(t, n[:, None], share[:, None]), 0.0)
    r = np.divide(n01, m, out=np.zeros(m.shape), where=m > 0)[:, None]
    lt = stats.binom.cdf(np.ceil(t / 2) - 1, t, r)
    eq = np.where(t % 2 == 0, stats.binom.pmf(t // 2, t, r), 0.0)
    return (weight * lt).sum(axis=1), (weight * eq).sum(axis=1)


#: Swaps A and B in the merged cells of :func:`_bootstrap_df1`: dF1 changes sign.
_SWAP = np.array([0, 2, 1, 3, 5, 4, 6])
#: A set's replicates come from the tilted sampler when its Chernoff bound is below this.
TILT_MAX = 0.5
#: Split points tried between the observed TP and error ratios, and Newton steps per bound.
_N_SPLITS = 7
_N_NEWTON = 40


@njit(cache=True, nogil=True)
def _top(p, v, lam):
    """Largest exponent ``-lam v`` over the non-empty cells: the shift against overflow."""
    top = -np.inf
    for j in range(p.shape[0]):
        if p[j] > 0.0:
            top = max(top, -lam * v[j])
    return top


@njit(cache=True, nogil=True)
def _log_mgf(p, v, lam):
    """``log sum p e^(-lam v)``, the tilted mean of v, and its variance."""
    top = _top(p, v, lam)
    s0 = s1 = s2 = 0.0
    for j in range(p.shape[0]):
        if p[j] > 0.0:
            w = p[j] * np.exp(-lam * v[j] - top)
            s0 += w
            s1 += w * v[j]
            s2 += w * v[j] * v[j]
    mean = s1 / s0
    return np.log(s0) + top, mean, max(s2 / s0 - mean * mean, 0.0)


@njit(cache=True, nogil=True)
def _chernoff(p, v, n):
    """``(log bound, lam)``: the Chernoff bound ``min_lam n log E e^(-lam v)`` of
    ``P(sum of n draws of v <= 0)``, by damped Newton steps from lam = 0 (any lam >= 0 gives
    a valid bound; the steps only make it tight)."""
    lam = 0.0
    f, mean, var = _log_mgf(p, v, lam)
    for _ in range(_N_NEWTON):
        if mean <= 0.0 or var <= 0.0:
            break
        step = mean / var
        for _ in range(30):
            g, g_mean, g_var = _log_mgf(p, v, lam + step)
            if g <= f:
                break
            step *= 0.5
        else:
            break
        lam += step
        f, mean, var = g, g_mean, g_var
        if step <= 1e-10 * (1.0 + lam):
            break
    return n * f, lam


@njit(cache=True, nogil=True)
def _split_values(c, v1, v2):
    """Values per merged cell of ``L1 = TP_A - c TP_B`` and ``L2 = c E_B - E_A``."""
    v1[:] = 0.0
    v1[5], v1[6], v1[4] = 1.0, 1.0 - c, -c
    v2[:] = 0.0
    v2[0], v2[5], v2[2], v2[4], v2[1] = c - 1.0, c, c, -1.0, -1.0


@njit(cache=True, nogil=True)
def _tilt(p, n, x, v1, v2):
    """The tightest bound found, over split points c, of ``P(dF1* <= 0)`` for ``dF1 > 0``.

    ``dF1* <= 0`` means ``TP_A* E_B* <= TP_B* E_A*`` (E = FN + FP), which implies
    ``TP_A* <= c TP_B*`` or ``E_A* >= c E_B*`` for any c > 0: a union of two events on sums of
    n i.i.d. values, each with its Chernoff bound. `x` holds the observed merged counts.
    Returns ``(log Q, c, lam1, lam2, log weight of the first event)``; ``log Q = 0`` when no
    bound applies.
    """
    tp_a, tp_b = x[5] + x[6], x[4] + x[6]
    e_a, e_b = x[0] + x[4] + x[1], x[0] + x[5] + x[2]
    best = (0.0, 1.0, 0.0, 0.0, 0.0)
    if tp_b == 0 or e_a == 0:
        return best
    lo, hi = np.log(e_a / e_b), np.log(tp_a / tp_b)
    for k in range(1, _N_SPLITS + 1):
        c = np.exp(lo + (hi - lo) * k / (_N_SPLITS + 1))
        _split_values(c, v1, v2)
        b1, lam1 = _chernoff(p, v1, n)
        b2, lam2 = _chernoff(p, v2, n)
        log_q = max(b1, b2) + np.log1p(np.exp(-abs(b1 - b2)))
        if log_q < best[0]:
            best = (log_q, c, lam1, lam2, b1 - log_q)
    return best


@njit(cache=True, nogil=True)
def _tilted(p, v, lam, out):
    """Multinomial cell probabilities tilted by ``e^(-lam v)``, into `out`.

    Empty cells stay empty whatever their value (lam can be large when no non-empty cell
    has v < 0), and the exponents are shifted by their maximum, as in :func:`_log_mgf`.
    """
    top = _top(p, v, lam)
    total = 0.0
    for j in range(p.shape[0]):
        out[j] = p[j] * np.exp(-lam * v[j] - top) if p[j] > 0.0 else 0.0
        total += out[j]
    out /= total


@njit(cache=True, nogil=True)
def _df1_sign(x):
    """Sign of dF1 = F1(A) - F1(B) of merged counts: that of ``TP_A E_B - TP_B E_A``."""
    return np.sign((x[5] + x[6]) * (x[0] + x[5] + x[2]) - (x[4] + x[6]) * (x[0] + x[4] + x[1]))


@njit(cache=True, nogil=True)
def _replicate_sign(rng, n, p):
    """Sign of dF1* of one replicate, drawing the big cells only when they matter.

    The four cells where A and B disagree come first, as links of the chain of
    :func:`evalmc.sims.classifiers.multinomial_into`. Given them, ``TP_A E_B - TP_B E_A`` is
    ``c0 + w (a - b) + t (a + f2 - b - f1)`` with ``c0 = a (a + f2) - b (b + f1)``, linear
    in the counts w (both wrong) and t (both right, positive) left to draw: when c0 and both
    slopes share a sign, so does every outcome, and w and t are not drawn.
    """
    a = chain_link(rng, n, 1.0, p[5])
    left, mass = n - a, 1.0 - p[5]
    b = chain_link(rng, left, mass, p[4])
    left, mass = left - b, mass - p[4]
    f2 = chain_link(rng, left, mass, p[2])
    left, mass = left - f2, mass - p[2]
    f1 = chain_link(rng, left, mass, p[1])
    left, mass = left - f1, mass - p[1]
    c0 = a * (a + f2) - b * (b + f1)
    slope_w, slope_t = a - b, a + f2 - b - f1
    if c0 > 0 and slope_w >= 0 and slope_t >= 0:
        return 1
    if c0 < 0 and slope_w <= 0 and slope_t <= 0:
        return -1
    w = chain_link(rng, left, mass, p[0])
    t = chain_link(rng, left - w, mass - p[0], p[6])
    return np.sign(c0 + w * slope_w + t * slope_t)


@njit(cache=True, nogil=True)
def _rare_side(rng, n, p, n_boot, tilt, v1, v2, g1, g2, x):
    """Replicates with dF1* <= 0, and those with dF1* = 0, for a set with dF1 > 0.

    Exact rejection sampling under the Chernoff bound Q of :func:`_tilt`: each replicate is
    a candidate with probability Q; a candidate is drawn from the mixture of the two tilted
    multinomials (weights = the two bounds' shares of Q) and counts when dF1* <= 0, kept with
    probability ``1 / (e^(-lam1 L1) + e^(-lam2 L2))``. Since
    ``p(x) 1{dF1* <= 0} <= Q h(x)`` for the mixture h, a replicate counts with probability
    exactly ``P(dF1* <= 0)``, independently of the others.
    """
    log_q, c, lam1, lam2, log_w1 = tilt
    _split_values(c, v1, v2)
    _tilted(p, v1, lam1, g1)
    _tilted(p, v2, lam2, g2)
    w1 = np.exp(log_w1)
    rare = 0
    ties = 0
    for _ in range(rng.binomial(n_boot, np.exp(log_q))):
        multinomial_into(rng, n, g1 if rng.random() < w1 else g2, x)
        sign = _df1_sign(x)
        if sign > 0:
            continue
        l1 = l2 = 0.0
        for j in range(x.shape[0]):
            l1 += v1[j] * x[j]
            l2 += v2[j] * x[j]
        if rng.random() * (np.exp(-lam1 * l1) + np.exp(-lam2 * l2)) < 1.0:
            rare += 1
            ties += sign == 0
    return rare, ties


@njit(cache=True, nogil=True)
def _bootstrap_df1(rng, counts, n_boot, stop, tilt_max, below, above):
    """Counts of replicates with dF1* <= 0 and >= 0, per replication.

    A replicate is a multinomial draw over the cells, with cells 0 and 4 (A and B both wrong,
    either label) merged: they enter both F1 denominators alike and nothing else. The sign of
    dF1* is that of ``TP_A E_B - TP_B E_A`` (0 when a denominator is 0, as dF1 then).

    A set whose Chernoff bound of the rarer side is below `tilt_max` (in (0, 1]) draws only
    that side's replicates, exactly and all `n_boot` of them (:func:`_rare_side`); any other
    set draws its replicates one by one and stops early once both counts reach `stop`.
    """
    p = np.empty(7)
    oriented = np.empty(7)
    x = np.empty(7, np.int64)
    v1, v2, g1, g2 = np.empty(7), np.empty(7), np.empty(7), np.empty(7)
    for i in range(counts.shape[0]):
        c = counts[i]
        n = c.sum()
        # merged cells: both wrong, 1, 2, 3, 5, 6, 7
        x[0], x[1], x[2], x[3] = c[0] + c[4], c[1], c[2], c[3]
        x[4], x[5], x[6] = c[5], c[6], c[7]
        for j in range(7):
            p[j] = x[j] / n
        sign = _df1_sign(x)
        if sign != 0:
            if sign < 0:  # swap A and B: the rare side becomes dF1* >= 0
                for j in range(7):
                    oriented[j] = p[_SWAP[j]]
                x[:] = x[_SWAP]
            else:
                oriented[:] = p
            tilt = _tilt(oriented, n, x, v1, v2)
            if tilt[0] < np.log(tilt_max):
                rare, ties = _rare_side(rng, n, oriented, n_boot, tilt, v1, v2, g1, g2, x)
                if sign > 0:
                    below[i], above[i] = rare, n_boot - rare + ties
                else:
                    below[i], above[i] = n_boot - rare + ties, rare
                continue
        le = 0
        ge = 0
        for _ in range(n_boot):
            s = _replicate_sign(rng, n, p)
            le += s <= 0
            ge += s >= 0
            if le >= stop and ge >= stop:
                break
        below[i] = le
        above[i] = ge


def _percentile_pvalue(below, above, n_boot):
    """``min(1, 2 (1 + min(below, above)) / (n_boot + 1))``.

    At level alpha with ``k = alpha n_boot / 2`` an integer (every alpha in {0.01, 0.05, 0.1}
    with 5000 replicates), ``p <= alpha`` exactly when fewer than k replicates lie on one side
    of 0 (ties counting on both sides): when 0 lies outside the percentile interval
    ``[x_(k), x_(n_boot + 1 - k)]`` of the ordered replicates.
    """
    return np.minimum(1.0, 2.0 * (1.0 + np.minimum(below, above)) / (n_boot + 1))


def _stop_count(n_boot, p_max):
    """Smallest count on both sides of 0 that makes the p-value exceed `p_max` (or never)."""
    if p_max >= 1.0:
        return n_boot + 1
    return int(np.floor(p_max * (n_boot + 1) / 2 - 1)) + 1


def bootstrap_dcerr(counts, rng, n_boot=DEFAULT_N_BOOT) -> CriterionResult:
    """Bootstrap percentile test on dCerr; statistic: the observed dCerr = (n01 - n10) / n.

    A replicate's dCerr* is below, at or above 0 with the probabilities of
    :func:`dcerr_replicate_law`, so the counts of the `n_boot` replicates on each side are
    one multinomial draw: the test's exact distribution, without drawing the replicates.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n01, n10 = discordant(counts)
    n = counts.sum(axis=1)
    lt, eq = dcerr_replicate_law(n, n01, n10)
    lt = np.clip(lt, 0.0, 1.0)  # sums of rounded terms
    eq = np.clip(eq, 0.0, 1.0 - lt)
    sides = rng.multinomial(n_boot, np.stack([lt, eq, np.maximum(1.0 - lt - eq, 0.0)], axis=1))
    below, above = sides[:, 0] + sides[:, 1], sides[:, 2] + sides[:, 1]
    return CriterionResult.from_pvalues(_percentile_pvalue(below, above, n_boot), (n01 - n10) / n)


def bootstrap_df1(counts, rng, n_boot=DEFAULT_N_BOOT, p_max=1.0) -> CriterionResult:
    """Bootstrap percentile test on dF1; statistic: the observed dF1.

    See :func:`bootstrap_criterion` for `n_boot` and `p_max`.
    """
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    below, above = np.empty(counts.shape[0], np.int64), np.empty(counts.shape[0], np.int64)
    _bootstrap_df1(rng, counts, n_boot, _stop_count(n_boot, p_max), TILT_MAX, below, above)
    return CriterionResult.from_pvalues(_percentile_pvalue(below, above, n_boot),
                                        f1_difference(counts))


@dataclass(frozen=True)
class CountCriterion(BuiltinCriterion):
    """A built-in criterion on the 8-cell counts: ``test(counts, rng, **options)``.

    Attributes
    ----------
    n_boot : int
        Bootstrap replicates (bootstrap criteria only; 0 otherwise).
    p_max : float
        Bootstrap criteria: p-values above it are censored (see :func:`bootstrap_criterion`).
    """

    data: ClassVar[str] = "counts"
    n_boot: int = 0
    p_max: float = 1.0

    @property
    def key(self) -> str:
        """The name, with the options that differ from the defaults (cached blocks differ)."""
        options = []
        if self.n_boot not in (0, DEFAULT_N_BOOT):
            options.append(f"B={self.n_boot}")
        if self.p_max < 1.0:
            options.append(f"p_max={self.p_max:g}")
        return f"{self.name}[{','.join(options)}]" if options else self.name

    def __call__(self, batch: Batch, rng: np.random.Generator) -> CriterionResult:
        if batch.counts is None:
            raise ValueError(
                f"criterion {self.name!r} needs the 8-cell `counts` of two classifiers' "
                "predictions (scenario 'paired-classifiers'); this batch has none."
            )
        options = {"n_boot": self.n_boot} if self.n_boot else {}
        if self.p_max < 1.0:  # only tests that stop early take it
            options["p_max"] = self.p_max
        return self.test(batch.counts, rng, **options)


def bootstrap_criterion(measure: str, n_boot: int = DEFAULT_N_BOOT,
                        p_max: float = 1.0) -> CountCriterion:
    """The bootstrap percentile test on `measure` ('dcerr' or 'df1').

    Parameters
    ----------
    measure : {'dcerr', 'df1'}
    n_boot : int
        Replicates per evaluation set.
    p_max : float
        With ``p_max < 1``, a set's replicates stop as soon as both sides of 0 hold enough of
        them for its p-value to exceed `p_max` whatever the remaining replicates give. The
        decision at every level ``alpha <= p_max`` is then exactly the one of all `n_boot`
        replicates; a p-value above `p_max` is a lower bound of the full one. For studies at
        levels up to `p_max` only; the sets whose decision is not in doubt cost less. The
        dCerr test draws its side counts at once and exactly, and so does the dF1 test on a
        set far from 0: their p-values are never censored.
    """
    n_boot = check_int("n_boot", n_boot, low=1)
    p_max = check_float("p_max", p_max, low=0, high=1, open_low=True)
    if measure == "dcerr":
        p_max = 1.0
    tests: dict[str, tuple[Callable, str]] = {
        "dcerr": (bootstrap_dcerr, "difference of classification errors"),
        "df1": (bootstrap_df1, "difference of F1"),
    }
    if measure not in tests:
        raise ValueError(f"`measure` must be 'dcerr' or 'df1'; got {measure!r}.")
    test, what = tests[measure]
    return CountCriterion(f"bootstrap-{measure}",
                          f"bootstrap percentile test on the {what} (B={n_boot})",
                          test, n_boot=n_boot, p_max=p_max)


CLASSIFIER_CRITERIA = (
    CountCriterion("proportion", "proportion test on the error rates, errors taken as "
                   "independent", proportion),
    CountCriterion("mcnemar", "McNemar's chi2 test, continuity-corrected", mcnemar),
    CountCriterion("mcnemar-exact", "McNemar's exact (binomial) test", mcnemar_exact),
    CountCriterion("mcnemar-midp", "McNemar's mid-p test", mcnemar_midp),
    bootstrap_criterion("dcerr"),
    bootstrap_criterion("df1"),
)
