"""Tests comparing two classifiers on one evaluation set, from its 8-cell table.

All read ``Batch.counts`` (shape (n_reps, 8); cells numbered ``4 * label + 2 * a_correct +
b_correct``, see :mod:`sims.classifiers`) and are vectorized over replications. Notation of
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

from core.criteria.base import BuiltinCriterion, CriterionResult
from core.validation import check_float, check_int
from sims.base import Batch
from sims.classifiers import A_WRONG, B_WRONG, multinomial_into

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


@njit(cache=True, nogil=True)
def _bootstrap_dcerr(rng, n, n01, n10, n_boot, stop, below, above):
    """Counts of replicates with n01* - n10* <= 0 and >= 0, per replication.

    A replicate is the multinomial draw of the cells merged into (n01, n10, rest): the
    discordant total ~ Binomial(n, (n01 + n10) / n), then n01* ~ Binomial(total, n01 / total).
    A replication stops early once both counts reach `stop`.
    """
    for i in range(n.shape[0]):
        m = n01[i] + n10[i]
        le = 0
        ge = 0
        for _ in range(n_boot):
            d = 0
            if m > 0:
                total = rng.binomial(n[i], m / n[i])
                d = 2 * rng.binomial(total, n01[i] / m) - total
            le += d <= 0
            ge += d >= 0
            if le >= stop and ge >= stop:
                break
        below[i] = le
        above[i] = ge


@njit(cache=True, nogil=True)
def _bootstrap_df1(rng, counts, n_boot, stop, below, above):
    """Counts of replicates with dF1* <= 0 and >= 0, per replication.

    A replicate is a multinomial draw over the cells, with cells 0 and 4 (A and B both wrong,
    either label) merged: they enter both F1 denominators alike and nothing else. The sign of
    dF1* is that of ``TP_A * den_B - TP_B * den_A`` (0 when a denominator is 0, as dF1 then).
    A replication stops early once both counts reach `stop`.
    """
    p = np.empty(7)
    x = np.empty(7, np.int64)
    for i in range(counts.shape[0]):
        c = counts[i]
        n = c.sum()
        # merged cells: both wrong, 1, 2, 3, 5, 6, 7
        p[0] = (c[0] + c[4]) / n
        p[1], p[2], p[3] = c[1] / n, c[2] / n, c[3] / n
        p[4], p[5], p[6] = c[5] / n, c[6] / n, c[7] / n
        le = 0
        ge = 0
        for _ in range(n_boot):
            multinomial_into(rng, n, p, x)
            tp_a = x[5] + x[6]
            tp_b = x[4] + x[6]
            den_a = 2 * tp_a + x[0] + x[4] + x[1]
            den_b = 2 * tp_b + x[0] + x[5] + x[2]
            s = tp_a * den_b - tp_b * den_a
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


def bootstrap_dcerr(counts, rng, n_boot=DEFAULT_N_BOOT, p_max=1.0) -> CriterionResult:
    """Bootstrap percentile test on dCerr; statistic: the observed dCerr = (n01 - n10) / n.

    See :func:`bootstrap_criterion` for `n_boot` and `p_max`.
    """
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    n01, n10 = discordant(counts)
    n = counts.sum(axis=1)
    below, above = np.empty(n.size, np.int64), np.empty(n.size, np.int64)
    _bootstrap_dcerr(rng, n, np.ascontiguousarray(n01), np.ascontiguousarray(n10), n_boot,
                     _stop_count(n_boot, p_max), below, above)
    return CriterionResult.from_pvalues(_percentile_pvalue(below, above, n_boot), (n01 - n10) / n)


def bootstrap_df1(counts, rng, n_boot=DEFAULT_N_BOOT, p_max=1.0) -> CriterionResult:
    """Bootstrap percentile test on dF1; statistic: the observed dF1.

    See :func:`bootstrap_criterion` for `n_boot` and `p_max`.
    """
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    below, above = np.empty(counts.shape[0], np.int64), np.empty(counts.shape[0], np.int64)
    _bootstrap_df1(rng, counts, n_boot, _stop_count(n_boot, p_max), below, above)
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
        if self.n_boot:
            return self.test(batch.counts, rng, n_boot=self.n_boot, p_max=self.p_max)
        return self.test(batch.counts, rng)


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
        levels up to `p_max` only; the sets whose decision is not in doubt cost less.
    """
    n_boot = check_int("n_boot", n_boot, low=1)
    p_max = check_float("p_max", p_max, low=0, high=1, open_low=True)
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
