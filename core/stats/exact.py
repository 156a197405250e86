"""Exact operating characteristics of discrete tests, by enumeration: no simulation.

A test on counts rejects on a set of outcomes of its sufficient statistic; where that
statistic has few outcomes, its rejection rate (the size under a null, the power otherwise) is
a finite sum of their probabilities, exactly, at every level at once:

- McNemar's four tests (:func:`mcnemar_pvalues`) on `n` paired items, of which a share `p01`
  is wrong for A only and `p10` for B only: the discordant counts ``(n01, n10)`` are sufficient,
  ``n01 + n10 ~ Binomial(n, p01 + p10)`` and, given their total m, ``n01 ~ Binomial(m, p01 /
  (p01 + p10))`` (:func:`discordant_law`, :func:`mcnemar_rejection_rates`): at most
  ``(n + 1)(n + 2) / 2`` outcomes.
- the sign test on `n` pairs (:func:`sign_rejection_rates`): the same law and the exact
  McNemar p-value, with ``(n01, n10)`` the positive and the negative differences.
- any test of paired scores, or of two independent samples, whose scores take a few values
  (0/1 correctness, a grade on a few levels): the counts of each value are sufficient for a
  test that ignores the order of its pairs (the sign, signed-rank and rank-sum tests do), and
  multinomial (:func:`paired_discrete_rejection_rates`,
  :func:`two_sample_discrete_rejection_rates`).
- any rank test under a continuous null, no tie: each of the ``2^n`` sign patterns of the
  ranks ``1..n`` of paired differences, or each of the ``C(n_a + n_b, n_a)`` placements of
  A's ranks among both samples', is equally likely (:func:`continuous_null_rejection_rates`).

What is enumerable: at most :data:`MAX_OUTCOMES` outcomes, each given to the test once. The
McNemar and sign laws keep the bulk of their binomials only (all but 4e-16 of the
probability), which grows as ``n (p01 + p10)``: 40,000 items at 20% discordant pairs. A
continuous null: up to 2^20 sign patterns (20 pairs), or two samples of 11. A discrete support
of L values has ``C(n + L - 1, L - 1)`` count vectors per sample (3 levels: n up to 1998; 5
levels: n up to 80; two samples: the product of theirs).

A test rejects where its p-value is at most alpha, as :meth:`CriterionResult.decisions
<evalmc.criteria.base.CriterionResult.decisions>` decides; a NaN p-value (a failed
replication, e.g. scipy's signed-rank test on differences all zero) never rejects.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import scipy  # scipy.stats loads on first use: the command line stays light

#: The McNemar variants, by the name of their criterion: the chi2 statistic ``(n01 - n10)^2 /
#: (n01 + n10)`` uncorrected and continuity-corrected (``(|n01 - n10| - 1)^2 / (n01 + n10)``),
#: both against chi2(1); the exact two-sided binomial test of n01 out of n01 + n10 at 1/2; its
#: mid-p version.
MCNEMAR_TESTS = ("mcnemar-uncorrected", "mcnemar", "mcnemar-exact", "mcnemar-midp")
#: The most outcomes an enumeration gives to a test.
MAX_OUTCOMES = 2_000_000
#: Binomial tail mass left out of the McNemar and sign-test laws (per side).
_TAIL = 1e-16


def mcnemar_pvalues(table_or_n01, n10=None) -> dict:
    """The p-values of McNemar's four tests (:data:`MCNEMAR_TESTS`) on a 2x2 table of paired
    outcomes (or on ``n01`` and `n10`), as statsmodels' ``mcnemar`` reads it; 1 without a
    discordant pair."""
    if n10 is None:
        table = np.asarray(table_or_n01)
        if table.ndim < 2 or table.shape[-2:] != (2, 2):
            raise ValueError(f"a McNemar table is 2x2; got shape {table.shape}")
        n01, n10 = table[..., 0, 1], table[..., 1, 0]
    else:
        n01, n10 = np.broadcast_arrays(np.asarray(table_or_n01), np.asarray(n10))
    n01, n10 = _counts("n01", n01), _counts("n10", n10)
    out = _mcnemar(n01, n10)
    return {name: float(p) if p.ndim == 0 else p for name, p in out.items()}


def _counts(name, x) -> np.ndarray:
    """`x` as int64 counts, refusing what is not a whole number >= 0."""
    x = np.asarray(x)
    if x.dtype.kind not in "iuf" or not np.all(np.isfinite(x)) or np.any(x < 0) or np.any(
            x != np.round(x)):
        raise ValueError(f"{name} must be whole numbers >= 0")
    return x.astype(np.int64)


def _mcnemar(n01, n10) -> dict:
    """The four McNemar p-values of int64 arrays `n01`, `n10`."""
    chi2_sf = scipy.stats.chi2.sf
    return {"mcnemar-uncorrected": chi2_sf(mcnemar_chi2(n01, n10, correction=False), 1),
            "mcnemar": chi2_sf(mcnemar_chi2(n01, n10), 1),
            "mcnemar-exact": mcnemar_binomial(n01, n10),
            "mcnemar-midp": mcnemar_binomial(n01, n10, mid=True)}


def mcnemar_chi2(n01, n10, correction: bool = True) -> np.ndarray:
    """McNemar's chi-square, ``(|n01 - n10| - c)^2 / (n01 + n10)``, c = 1 with Edwards' continuity
    correction, else 0; 0 without discordant pairs."""
    n01, n10 = np.asarray(n01), np.asarray(n10)
    m = (n01 + n10).astype(float)
    return np.divide((np.abs(n01 - n10) - float(correction)) ** 2, m, out=np.zeros_like(m),
                     where=m > 0)


def mcnemar_binomial(n01, n10, mid: bool = False) -> np.ndarray:
    """The exact McNemar p-value, ``min(1, 2 P(X <= k))``, or its mid-p, ``min(1, 2 P(X <= k) - P(X
    = k))``, with k = min(n01, n10) and X ~ Binomial(n01 + n10, 1/2)."""
    n01, n10 = np.asarray(n01), np.asarray(n10)
    m, k = n01 + n10, np.minimum(n01, n10)
    p = 2 * scipy.stats.binom.cdf(k, m, 0.5)
    if mid:
        p = p - scipy.stats.binom.pmf(k, m, 0.5)
    return np.minimum(1.0, p)


def rejection_rates(pvalues, probabilities, alpha=0.05):
    """The rate of ``p <= alpha`` at each level, for a test whose p-value is ``pvalues[i]`` with
    probability ``probabilities[i]``."""
    pvalues = np.asarray(pvalues, dtype=float).ravel()
    probabilities = np.asarray(probabilities, dtype=float).ravel()
    levels = np.asarray(alpha, dtype=float)
    rates = np.array([probabilities[pvalues <= a].sum() for a in levels.ravel()])
    return float(rates[0]) if levels.ndim == 0 else rates.reshape(levels.shape)


def discordant_law(n, p01, p10):
    """Every outcome ``(n01, n10)`` of `n` paired items and its probability, the tails beyond ``1 -
    2e-16`` of each binomial left out (4e-16 of probability at most)."""
    n = _size("n", n)
    p01, p10 = _probability("p01", p01), _probability("p10", p10)
    q = p01 + p10
    if q > 1.0 + 1e-12:
        raise ValueError(f"p01 + p10 must be at most 1; got {q}")
    q = min(q, 1.0)
    if q == 0.0:
        return np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1)
    binom, share = scipy.stats.binom, p01 / q
    m = np.arange(binom.ppf(_TAIL, n, q), binom.isf(_TAIL, n, q) + 1, dtype=np.int64)
    k_low = int(binom.ppf(_TAIL, m, share).min())
    k_high = int(binom.isf(_TAIL, m, share).max())
    _check_outcomes(m.size * (k_high - k_low + 1))
    m, k = np.meshgrid(m, np.arange(k_low, k_high + 1, dtype=np.int64), indexing="ij")
    m, k = m.ravel(), k.ravel()  # total m, n01 = k
    inside = k <= m
    m, k = m[inside], k[inside]
    prob = binom.pmf(m, n, q) * binom.pmf(k, m, share)
    keep = prob > 0
    return k[keep], (m - k)[keep], prob[keep]


def mcnemar_rejection_rates(n, p01, p10, alpha=0.05) -> dict:
    """Exact rejection rates of McNemar's four tests on `n` paired items: the size where ``p01 ==
    p10``."""
    n01, n10, prob = discordant_law(n, p01, p10)
    return {name: rejection_rates(p, prob, alpha) for name, p in _mcnemar(n01, n10).items()}


def sign_rejection_rates(n, p_greater, p_tie=0.0, alpha=0.05):
    """Exact rejection rate of the two-sided sign test on `n` pairs, each positive with probability
    `p_greater`, zero (dropped) with `p_tie`."""
    p_greater, p_tie = _probability("p_greater", p_greater), _probability("p_tie", p_tie)
    n_pos, n_neg, prob = discordant_law(n, p_greater, max(1.0 - p_greater - p_tie, 0.0))
    return rejection_rates(_mcnemar(n_pos, n_neg)["mcnemar-exact"], prob, alpha)


#: Outcomes given to a test at once by the enumerations of scores.
CHUNK = 1 << 15


def continuous_null_rejection_rates(test, n_a, n_b=None, alpha=0.05):
    """Exact size of a rank test ``test(a, b) -> p-values`` under a continuous null, no tie, by
    enumerating the sign patterns of ranks ``1..n_a`` (paired) or the placements of A's ranks."""
    n_a = _size("n_a", n_a)
    if n_b is None:
        _check_outcomes(2**n_a)
        ranks = np.arange(1, n_a + 1, dtype=float)

        def outcomes(start, stop):
            bits = (np.arange(start, stop)[:, None] >> np.arange(n_a)) & 1
            a = np.where(bits == 1, ranks, -ranks)
            return a, np.zeros_like(a)

        total = 2**n_a
    else:
        n_b = _size("n_b", n_b)
        total = math.comb(n_a + n_b, n_a)
        _check_outcomes(total)
        placements = itertools.combinations(range(1, n_a + n_b + 1), n_a)
        every = np.arange(1, n_a + n_b + 1)

        def outcomes(start, stop):
            a = np.array(list(itertools.islice(placements, stop - start)), dtype=float)
            taken = np.zeros((a.shape[0], n_a + n_b + 1), bool)
            np.put_along_axis(taken, a.astype(np.int64), True, axis=1)
            b = np.broadcast_to(every, (a.shape[0], every.size))[~taken[:, 1:]]
            return a, b.reshape(a.shape[0], n_b).astype(float)

    pvalues = np.concatenate([_pvalues(test, *outcomes(start, min(start + CHUNK, total)))
                              for start in range(0, total, CHUNK)])
    return rejection_rates(pvalues, np.full(total, 1.0 / total), alpha)


def count_law(n, probabilities):
    """Every count vector of `n` draws over a few values, and its multinomial probability."""
    n = _size("n", n)
    probabilities = np.asarray(probabilities, dtype=float)
    if probabilities.ndim != 1 or np.any(probabilities < 0) or not np.isclose(
            probabilities.sum(), 1.0, rtol=0, atol=1e-12):
        raise ValueError("probabilities must be a vector of probabilities summing to 1")
    levels = probabilities.size
    _check_outcomes(math.comb(n + levels - 1, levels - 1))
    bars = np.array(list(itertools.combinations(range(n + levels - 1), levels - 1)),
                    dtype=np.int64).reshape(-1, levels - 1)  # stars and bars
    edges = np.column_stack([np.full(len(bars), -1), bars, np.full(len(bars), n + levels - 1)])
    counts = np.diff(edges, axis=1) - 1
    return counts, scipy.stats.multinomial.pmf(counts, n, probabilities)


def _samples(values, counts) -> np.ndarray:
    """One sorted sample per count vector: ``values[j]`` repeated ``counts[:, j]`` times."""
    ends = np.cumsum(counts, axis=1)
    position = np.arange(ends[0, -1])
    index = (position[None, :, None] >= ends[:, None, :]).sum(axis=2)
    return np.asarray(values, dtype=float)[index]


def paired_discrete_rejection_rates(test, n, values, probabilities, alpha=0.05):
    """Exact rejection rate of a paired test whose `n` differences take `values` with
    `probabilities`, each count vector given to the test as sorted differences against 0."""
    values = np.asarray(values, dtype=float)
    counts, prob = count_law(n, probabilities)
    if values.shape != (counts.shape[1],):
        raise ValueError("values and probabilities must have the same length")
    pvalues = np.concatenate([
        _pvalues(test, a, np.zeros_like(a)) for a in (
            _samples(values, counts[start:start + CHUNK])
            for start in range(0, len(counts), CHUNK))])
    return rejection_rates(pvalues, prob, alpha)


def two_sample_discrete_rejection_rates(test, n_a, n_b, values, probabilities_a,
                                        probabilities_b=None, alpha=0.05):
    """Exact rejection rate of a two-sample test whose scores take `values`, A's with
    `probabilities_a`, B's with `probabilities_b` (default A's: the null)."""
    values = np.asarray(values, dtype=float)
    counts_a, prob_a = count_law(n_a, probabilities_a)
    counts_b, prob_b = count_law(n_b, probabilities_a if probabilities_b is None
                                 else probabilities_b)
    if values.shape != (counts_a.shape[1],) or counts_b.shape[1] != counts_a.shape[1]:
        raise ValueError("values and probabilities must have the same length")
    _check_outcomes(len(counts_a) * len(counts_b))
    samples_a, samples_b = _samples(values, counts_a), _samples(values, counts_b)
    step = max(1, CHUNK // len(samples_b))
    pvalues = np.concatenate([
        _pvalues(test, np.repeat(samples_a[i:i + step], len(samples_b), axis=0),
                 np.tile(samples_b, (len(samples_a[i:i + step]), 1)))
        for i in range(0, len(samples_a), step)])
    return rejection_rates(pvalues, np.outer(prob_a, prob_b).ravel(), alpha)


def _pvalues(test, a, b) -> np.ndarray:
    """The test's p-values of the outcomes (rows of `a`, `b`), checked for their shape."""
    p = np.asarray(test(a, b), dtype=float)
    if p.shape != (a.shape[0],):
        raise ValueError(f"test must return one p-value per row; got shape {p.shape}")
    return p


def _size(name, n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {n!r}")
    return int(n)


def _probability(name, p) -> float:
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1]; got {p}")
    return p


def _check_outcomes(k) -> None:
    if k > MAX_OUTCOMES:
        raise ValueError(f"{k} outcomes to enumerate, above MAX_OUTCOMES = {MAX_OUTCOMES}: "
                         "simulate instead")
