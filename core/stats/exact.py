"""Exact operating characteristics of discrete tests, by enumeration: no simulation.

A test on counts rejects on a set of outcomes of its sufficient statistic; where that
statistic has few outcomes, its rejection rate (the size under a null, the power otherwise) is
a finite sum of their probabilities, exactly, at every level at once:

- McNemar's four tests (:func:`mcnemar_pvalues`) on `n` paired items, of which a share `p01`
  is wrong for A only and `p10` for B only: the discordant counts ``(n01, n10)`` are sufficient,
  ``n01 + n10 ~ Binomial(n, p01 + p10)`` and, given their total m, ``n01 ~ Binomial(m, p01 /
  (p01 + p10))`` (:func:`mcnemar_rejection_rates`). ``(n + 1)(n + 2) / 2`` outcomes.
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
McNemar and sign laws are enumerable up to thousands of items; a continuous null up to 2^20
sign patterns (20 pairs) or two samples of 10; a discrete support of L values has
``C(n + L - 1, L - 1)`` count vectors per sample (3 levels: n up to about 1400; 5 levels: n
up to about 60; two samples: the product of theirs).

A test rejects where its p-value is at most alpha, as :meth:`CriterionResult.decisions
<evalmc.criteria.base.CriterionResult.decisions>` decides.
"""

from __future__ import annotations

import numpy as np
import scipy  # scipy.stats loads on first use: the command line stays light

#: The McNemar variants, by the name of their criterion: the chi2 statistic ``(n01 - n10)^2 /
#: (n01 + n10)`` uncorrected and continuity-corrected (``(|n01 - n10| - 1)^2 / (n01 + n10)``),
#: both against chi2(1); the exact two-sided binomial test of n01 out of n01 + n10 at 1/2; its
#: mid-p version.
MCNEMAR_TESTS = ("mcnemar-uncorrected", "mcnemar", "mcnemar-exact", "mcnemar-midp")
#: The most outcomes an enumeration gives to a test.
MAX_OUTCOMES = 2_000_000


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
        exact=False, correction=False)``), ``'mcnemar'`` (``exact=False``, continuity-corrected,
        the default of Dietterich 1998), ``'mcnemar-exact'`` (``exact=True``, equal to
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
    """The four McNemar p-values of int64 arrays `n01`, `n10` (the criteria's formulas)."""
    m = n01 + n10
    mf = m.astype(float)
    d = np.abs(n01 - n10)
    chi2 = np.divide(d.astype(float) ** 2, mf, out=np.zeros_like(mf), where=m > 0)
    corrected = np.divide((d - 1.0) ** 2, mf, out=np.zeros_like(mf), where=m > 0)
    k = np.minimum(n01, n10)
    binom = scipy.stats.binom
    cdf, pmf = binom.cdf(k, m, 0.5), binom.pmf(k, m, 0.5)
    chi2_sf = scipy.stats.chi2.sf
    return {"mcnemar-uncorrected": chi2_sf(chi2, 1), "mcnemar": chi2_sf(corrected, 1),
            "mcnemar-exact": np.minimum(1.0, 2 * cdf),
            "mcnemar-midp": np.minimum(1.0, 2 * cdf - pmf)}


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
    m, ``n01 ~ Binomial(m, p01 / (p01 + p10))``.

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
        Theirs (summing to 1).

    Examples
    --------
    >>> from evalmc.stats.exact import discordant_law
    >>> n01, n10, prob = discordant_law(2, 0.1, 0.3)
    >>> n01.tolist(), n10.tolist(), prob.round(4).tolist()
    ([0, 0, 1, 0, 1, 2], [0, 1, 0, 2, 1, 0], [0.36, 0.36, 0.12, 0.09, 0.06, 0.01])
    """
    n = _size("n", n)
    p01, p10 = _probability("p01", p01), _probability("p10", p10)
    q = p01 + p10
    if q > 1.0 + 1e-12:
        raise ValueError(f"p01 + p10 must be at most 1; got {q}")
    q = min(q, 1.0)
    if q == 0.0:
        return np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1)
    _check_outcomes((n + 1) * (n + 2) // 2)
    m, k = np.tril_indices(n + 1)  # total m, n01 = k <= m
    binom = scipy.stats.binom
    prob = binom.pmf(m, n, q) * binom.pmf(k, m, p01 / q)
    keep = prob > 0
    return k[keep].astype(np.int64), (m - k)[keep].astype(np.int64), prob[keep]


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
