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
    """The p-values of McNemar's four tests on a 2x2 table of paired outcomes.

    Parameters
    ----------
    table_or_n01 : array_like of int
        A 2x2 table (shape (2, 2), or (..., 2, 2) for several), whose off-diagonal cells
        ``table[0][1]`` and ``table[1][0]`` are the discordant counts, as statsmodels'
        ``mcnemar`` reads it; or, with `n10`, the count ``n01`` itself.
    n10 : array_like of int, optional
        The other discordant count, broadcast against `table_or_n01`.

    Returns
    -------
    dict of str to float or ndarray
        Keyed by :data:`MCNEMAR_TESTS`: ``'mcnemar-uncorrected'`` (statsmodels' ``mcnemar(table,
        exact=False, correction=False)``), ``'mcnemar'`` (``exact=False``, continuity-corrected, as
        Dietterich 1998 writes it), ``'mcnemar-exact'`` (``exact=True``, equal to
        ``scipy.stats.binomtest(n01, n01 + n10)``) and ``'mcnemar-midp'`` (``2 P(X < k) + P(X
        = k)``, ``k = min(n01, n10)``, X ~ Binomial(n01 + n10, 1/2), capped at 1; Fagerland et
        al. 2013). Floats for one table, else arrays of the tables' shape. No discordant pair
        gives p = 1 for all four.

    Examples
    --------
    >>> from evalmc.stats.exact import mcnemar_pvalues
    >>> p = mcnemar_pvalues([[50, 5], [17, 28]])
    >>> {name: round(value, 4) for name, value in p.items()}
    {'mcnemar-uncorrected': 0.0105, 'mcnemar': 0.019, 'mcnemar-exact': 0.0169,
     'mcnemar-midp': 0.0106}
    >>> mcnemar_pvalues([5, 12], [17, 12])["mcnemar-exact"].round(4)
    array([0.0169, 1.    ])
    """
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
    """McNemar's chi-square statistic, ``(|n01 - n10| - c)^2 / (n01 + n10)``, c = 1 with the
    continuity correction, else 0; 0 without discordant pairs.

    Parameters
    ----------
    n01, n10 : array_like of int
        The discordant counts.
    correction : bool
        Subtract 1 from ``|n01 - n10|`` (Edwards' continuity correction).

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> from evalmc.stats.exact import mcnemar_chi2
    >>> mcnemar_chi2([5, 0], [17, 0]).tolist(), mcnemar_chi2(5, 17, correction=False).tolist()
    ([5.5, 0.0], 6.545454545454546)
    """
    n01, n10 = np.asarray(n01), np.asarray(n10)
    m = (n01 + n10).astype(float)
    return np.divide((np.abs(n01 - n10) - float(correction)) ** 2, m, out=np.zeros_like(m),
                     where=m > 0)


def mcnemar_binomial(n01, n10, mid: bool = False) -> np.ndarray:
    """The exact McNemar p-value, ``min(1, 2 P(X <= k))``, or its mid-p version,
    ``min(1, 2 P(X <= k) - P(X = k))``, with k = min(n01, n10) and X ~ Binomial(n01 + n10, 1/2).

    Parameters
    ----------
    n01, n10 : array_like of int
        The discordant counts.
    mid : bool
        The mid-p value (Fagerland et al. 2013).

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> from evalmc.stats.exact import mcnemar_binomial
    >>> mcnemar_binomial([5, 6], [17, 6]).round(4).tolist(), round(float(mcnemar_binomial(5, 17,
    ...     mid=True)), 4)
    ([0.0169, 1.0], 0.0106)
    """
    n01, n10 = np.asarray(n01), np.asarray(n10)
    m, k = n01 + n10, np.minimum(n01, n10)
    p = 2 * scipy.stats.binom.cdf(k, m, 0.5)
    if mid:
        p = p - scipy.stats.binom.pmf(k, m, 0.5)
    return np.minimum(1.0, p)


def rejection_rates(pvalues, probabilities, alpha=0.05):
    """The rejection rate of a test whose p-value is ``pvalues[i]`` with probability
    ``probabilities[i]``: the total probability of ``p <= alpha``, at each level.

    Parameters
    ----------
    pvalues, probabilities : array_like of float, shape (k,)
        The test's p-value on each outcome and the outcome's probability (summing to 1).
    alpha : float or array_like of float
        Levels.

    Returns
    -------
    float or ndarray
        The rate at each level, of `alpha`'s shape.

    Examples
    --------
    >>> from evalmc.stats.exact import rejection_rates
    >>> rejection_rates([0.01, 0.04, 0.3, 1.0], [0.02, 0.03, 0.25, 0.7], [0.01, 0.05, 0.1])
    array([0.02, 0.05, 0.05])
    """
    pvalues = np.asarray(pvalues, dtype=float).ravel()
    probabilities = np.asarray(probabilities, dtype=float).ravel()
    levels = np.asarray(alpha, dtype=float)
    rates = np.array([probabilities[pvalues <= a].sum() for a in levels.ravel()])
    return float(rates[0]) if levels.ndim == 0 else rates.reshape(levels.shape)


def discordant_law(n, p01, p10):
    """Every outcome ``(n01, n10)`` of `n` paired items and its probability.

    The items fall independently in the cells "A only wrong" (`p01`), "B only wrong" (`p10`)
    and concordant (the rest); ``n01 + n10 ~ Binomial(n, p01 + p10)`` and, given their total
    m, ``n01 ~ Binomial(m, p01 / (p01 + p10))``. The totals, and the counts ``n01`` given
    them, outside the central ``1 - 2e-16`` of their binomials are left out (at most ``4e-16``
    of probability all told): a large `n` costs its bulk only.

    Parameters
    ----------
    n : int
        Paired items.
    p01, p10 : float
        Probabilities of the two discordant cells, ``p01 + p10 <= 1``.

    Returns
    -------
    n01, n10 : ndarray of int64, shape (k,)
        The outcomes of positive probability.
    probability : ndarray, shape (k,)
        Theirs (summing to 1 less at most 4e-16).

    Examples
    --------
    >>> from evalmc.stats.exact import discordant_law
    >>> n01, n10, prob = discordant_law(2, 0.1, 0.3)
    >>> n01.tolist(), n10.tolist(), prob.round(4).tolist()
    ([0, 0, 1, 0, 1, 2], [0, 1, 0, 2, 1, 0], [0.36, 0.36, 0.12, 0.09, 0.06, 0.01])
    >>> len(discordant_law(5000, 0.1, 0.1)[2])  # of 12,507,501 outcomes
    229272
    """
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
    """Exact rejection rates of McNemar's four tests on `n` paired items.

    The size where ``p01 == p10`` (A and B have equal error rates), the power otherwise: the
    rejections summed over every outcome of :func:`discordant_law`.

    Parameters
    ----------
    n : int
        Paired items (examples of the evaluation set).
    p01, p10 : float
        Probabilities that an item is wrong for A only and for B only (cells 1 + 5 and 2 + 6 of
        :func:`evalmc.sims.classifiers.cell_probabilities`).
    alpha : float or array_like of float
        Levels.

    Returns
    -------
    dict of str to float or ndarray
        The rate of each test of :data:`MCNEMAR_TESTS` at each level, of `alpha`'s shape.

    Examples
    --------
    >>> from evalmc.stats.exact import mcnemar_rejection_rates
    >>> size = mcnemar_rejection_rates(100, 0.1, 0.1, alpha=0.05)
    >>> {name: round(rate, 4) for name, rate in size.items()}
    {'mcnemar-uncorrected': 0.0522, 'mcnemar': 0.0266, 'mcnemar-exact': 0.0294,
     'mcnemar-midp': 0.0457}
    >>> mcnemar_rejection_rates(100, 0.05, 0.15, alpha=[0.01, 0.05])["mcnemar-exact"].round(4)
    array([0.2885, 0.5444])
    """
    n01, n10, prob = discordant_law(n, p01, p10)
    return {name: rejection_rates(p, prob, alpha) for name, p in _mcnemar(n01, n10).items()}


def sign_rejection_rates(n, p_greater, p_tie=0.0, alpha=0.05):
    """Exact rejection rate of the two-sided sign test on `n` pairs.

    Each pair is a positive difference with probability `p_greater`, a zero one with `p_tie`
    (dropped by the test), negative otherwise; the test is the exact binomial test of the
    positive differences out of the non-zero ones (p = 1 when all are zero), the exact McNemar
    test of :func:`mcnemar_pvalues`. The size where ``p_greater = (1 - p_tie) / 2``.

    Parameters
    ----------
    n : int
        Pairs.
    p_greater : float
        P(A > B) of one pair.
    p_tie : float
        P(A = B) of one pair.
    alpha : float or array_like of float
        Levels.

    Returns
    -------
    float or ndarray
        The rate at each level, of `alpha`'s shape.

    Examples
    --------
    >>> from evalmc.stats.exact import sign_rejection_rates
    >>> round(sign_rejection_rates(15, 0.5), 6)  # continuous null
    0.035156
    >>> sign_rejection_rates(15, 0.4, p_tie=0.2, alpha=[0.05, 0.1]).round(4)
    array([0.0241, 0.057 ])
    """
    p_greater, p_tie = _probability("p_greater", p_greater), _probability("p_tie", p_tie)
    n_pos, n_neg, prob = discordant_law(n, p_greater, max(1.0 - p_greater - p_tie, 0.0))
    return rejection_rates(_mcnemar(n_pos, n_neg)["mcnemar-exact"], prob, alpha)


#: Outcomes given to a test at once by the enumerations of scores.
CHUNK = 1 << 15


def continuous_null_rejection_rates(test, n_a, n_b=None, alpha=0.05):
    """Exact size of a rank test under a continuous null (no tie), by enumerating the ranks.

    Paired (`n_b` None): under a null symmetric about 0, the ranks ``1..n_a`` of ``|A - B|``
    carry independent fair signs; each of the ``2^n_a`` sign patterns is one outcome, given to
    the test as ``a = ±(1..n_a)``, ``b = 0``. Two samples: each of the ``C(n_a + n_b, n_a)``
    sets of ranks A's scores take among all ``n_a + n_b`` is one outcome, given to the test as
    ``a`` = those ranks, ``b`` = the others. The outcomes are equally likely.

    For tests that see the scores only through their ranks and signs (sign, signed-rank,
    Mann-Whitney; not a t-test): their size is then the same for every continuous null.

    Parameters
    ----------
    test : callable
        ``test(a, b) -> p-values``: `a` and `b` of shapes (k, n_a) and (k, n_b) (`n_b` = n_a
        when paired), one outcome a row; p-values of shape (k,).
    n_a : int
        Pairs, or the size of A's sample.
    n_b : int, optional
        The size of B's sample (two samples).
    alpha : float or array_like of float
        Levels.

    Returns
    -------
    float or ndarray
        The size at each level, of `alpha`'s shape.

    Examples
    --------
    >>> import scipy
    >>> from evalmc.stats.exact import continuous_null_rejection_rates
    >>> def signed_rank(a, b):
    ...     return scipy.stats.wilcoxon(a - b, axis=1).pvalue
    >>> continuous_null_rejection_rates(signed_rank, 10)  # 50 of the 1024 sign patterns
    0.048828125
    >>> def rank_sum(a, b):
    ...     return scipy.stats.mannwhitneyu(a, b, axis=1, method="exact").pvalue
    >>> continuous_null_rejection_rates(rank_sum, 5, 7, alpha=[0.01, 0.05]).round(6)
    array([0.005051, 0.04798 ])
    """
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
    """Every count vector of `n` draws over a few values, and its multinomial probability.

    Parameters
    ----------
    n : int
        Draws.
    probabilities : array_like of float, shape (L,)
        Of each value, summing to 1.

    Returns
    -------
    counts : ndarray of int64, shape (C(n + L - 1, L - 1), L)
        Every vector of L counts summing to `n`.
    probability : ndarray
        Theirs (``scipy.stats.multinomial.pmf``).

    Examples
    --------
    >>> from evalmc.stats.exact import count_law
    >>> counts, prob = count_law(2, [0.5, 0.3, 0.2])
    >>> counts.tolist(), prob.round(4).tolist()
    ([[0, 0, 2], [0, 1, 1], [0, 2, 0], [1, 0, 1], [1, 1, 0], [2, 0, 0]],
     [0.04, 0.12, 0.09, 0.2, 0.3, 0.25])
    """
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
    """Exact rejection rate of a paired test whose differences take a few values.

    The `n` differences ``A - B`` are independent, ``values[j]`` with probability
    ``probabilities[j]``; the counts of each value are multinomial (:func:`count_law`) and
    sufficient for a test that ignores the order of the pairs (sign, signed-rank: ties and
    zeros are the test's own business). Each count vector is given to the test as one sample
    of sorted differences, ``a`` = the differences, ``b`` = 0.

    Parameters
    ----------
    test : callable
        ``test(a, b) -> p-values``: `a`, `b` of shape (k, n), one outcome a row.
    n : int
        Pairs.
    values : array_like of float, shape (L,)
        The values of a difference (e.g. -1, 0, 1 for two models' 0/1 correctness).
    probabilities : array_like of float, shape (L,)
        Theirs.
    alpha : float or array_like of float
        Levels.

    Returns
    -------
    float or ndarray
        The rate at each level, of `alpha`'s shape: the size where the test's null holds.

    Examples
    --------
    >>> import scipy
    >>> from evalmc.stats.exact import paired_discrete_rejection_rates
    >>> def signed_rank(a, b):
    ...     return scipy.stats.wilcoxon(a - b, axis=1, method="approx").pvalue
    >>> rate = paired_discrete_rejection_rates(signed_rank, 20, [-2, -1, 1, 2],
    ...                                        [0.15, 0.35, 0.35, 0.15], alpha=[0.01, 0.05])
    >>> rate.round(4)  # the normal approximation with ties, at its null
    array([0.0074, 0.046 ])
    """
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
    """Exact rejection rate of a two-sample test whose scores take a few values.

    A's `n_a` scores are independent, ``values[j]`` with probability ``probabilities_a[j]``,
    B's `n_b` likewise with `probabilities_b` (by default A's: the null of equal laws); the
    counts of each value in each sample are independent multinomials (:func:`count_law`),
    sufficient for a test that ignores the order within a sample (Mann-Whitney, with its ties).
    Each pair of count vectors is given to the test as one pair of sorted samples.

    Parameters
    ----------
    test : callable
        ``test(a, b) -> p-values``: `a`, `b` of shapes (k, n_a) and (k, n_b).
    n_a, n_b : int
        Sample sizes.
    values : array_like of float, shape (L,)
        The values a score takes.
    probabilities_a, probabilities_b : array_like of float, shape (L,)
        Theirs in A's and in B's population.
    alpha : float or array_like of float
        Levels.

    Returns
    -------
    float or ndarray
        The rate at each level, of `alpha`'s shape.

    Examples
    --------
    >>> import scipy
    >>> from evalmc.stats.exact import two_sample_discrete_rejection_rates
    >>> def rank_sum(a, b):
    ...     return scipy.stats.mannwhitneyu(a, b, axis=1, method="asymptotic").pvalue
    >>> size = two_sample_discrete_rejection_rates(rank_sum, 8, 8, [1, 2, 3], [0.2, 0.5, 0.3])
    >>> power = two_sample_discrete_rejection_rates(rank_sum, 8, 8, [1, 2, 3], [0.1, 0.3, 0.6],
    ...                                             [0.3, 0.5, 0.2])
    >>> round(size, 4), round(power, 4)
    (0.0433, 0.3617)
    """
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
