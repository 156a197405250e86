"""Tests comparing two classifiers on one evaluation set, from its 8-cell table
(``Batch.counts``, :mod:`evalmc.sims.classifiers`), vectorized over replications.

Dietterich's (1998) ``n01`` counts the examples A gets wrong and B right, ``n10`` the reverse.
Degenerate tables give decisions, never a NaN (no discordant pair: p = 1; an undefined F1: 0)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np
import scipy

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.registry import CLASSIFIER_BOOT as DEFAULT_N_BOOT
from evalmc.inputs.checks import check_float, check_int
from evalmc.sims.classifiers import A_WRONG, B_WRONG
from evalmc.stats.exact import mcnemar_binomial, mcnemar_chi2

#: Bootstrap replicates by default: 50 / alpha for the smallest alpha of Keller et al. (0.01).


def discordant(counts):
    """``(n01, n10)`` per replication: cells 1 + 5 (A wrong, B right) and cells 2 + 6."""
    counts = np.asarray(counts)
    return counts[:, 1] + counts[:, 5], counts[:, 2] + counts[:, 6]


def accuracy_difference(counts) -> np.ndarray:
    """A's accuracy minus B's, ``(n10 - n01) / n``, per replication."""
    counts = np.asarray(counts)
    n01, n10 = discordant(counts)
    return (n10 - n01) / counts.sum(axis=1)


def f1_difference(counts) -> np.ndarray:
    """Observed dF1 = F1(A) - F1(B) per replication (an undefined F1 counts as 0)."""
    counts = np.asarray(counts, dtype=float)
    tp_a, tp_b = counts[:, 6] + counts[:, 7], counts[:, 5] + counts[:, 7]
    den_a = 2 * tp_a + counts[:, 4] + counts[:, 5] + counts[:, 0] + counts[:, 1]
    den_b = 2 * tp_b + counts[:, 4] + counts[:, 6] + counts[:, 0] + counts[:, 2]
    f1_a = np.divide(2 * tp_a, den_a, out=np.zeros_like(tp_a), where=den_a > 0)
    f1_b = np.divide(2 * tp_b, den_b, out=np.zeros_like(tp_b), where=den_b > 0)
    return f1_a - f1_b


def proportion(counts, rng=None) -> CriterionResult:
    """Proportion test (Keller et al. Eq 3) on the 8-cell tables: see :func:`proportion_test`.

    Parameters
    ----------
    counts : array_like of int, shape (n_reps, 8)
        The 8-cell table of each replication (``Batch.counts``).
    rng : None
        Unused: the tests on counts share the signature ``test(counts, rng)``.

    Returns
    -------
    CriterionResult
        Two-sided p-values, z, and A's accuracy minus B's as estimate; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[10, 3, 8, 29, 12, 2, 9, 27], [5, 6, 6, 33, 5, 6, 6, 33]])
    >>> result = proportion(counts)
    >>> result.statistic.round(4), result.pvalue.round(4), result.estimate
    (array([-1.8046,  0.    ]), array([0.0711, 1.    ]), array([0.12, 0.  ]))
    """
    counts = np.asarray(counts)
    result = proportion_test(counts[:, list(A_WRONG)].sum(axis=1),
                             counts[:, list(B_WRONG)].sum(axis=1), counts.sum(axis=1))
    return replace(result, estimate=accuracy_difference(counts))


def proportion_test(err_a, err_b, n) -> CriterionResult:
    """Proportion test, z = D / sqrt(2 C (1 - C) / n), D the error rates' difference."""
    d = (err_a - err_b) / n
    c = (err_a + err_b) / (2 * n)
    sd = np.sqrt(2 * c * (1 - c) / n)
    z = np.divide(d, sd, out=np.zeros_like(d), where=sd > 0)
    return CriterionResult.from_pvalues(2 * scipy.special.ndtr(-np.abs(z)), z)


def mcnemar(counts, rng=None) -> CriterionResult:
    """McNemar's test (Eq 4) on the 8-cell tables: see :func:`mcnemar_test`.

    Parameters
    ----------
    counts : array_like of int, shape (n_reps, 8)
        The 8-cell table of each replication (``Batch.counts``).
    rng : None
        Unused: the tests on counts share the signature ``test(counts, rng)``.

    Returns
    -------
    CriterionResult
        P-values, the chi2 statistic, and A's accuracy minus B's as estimate; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[10, 3, 8, 29, 12, 2, 9, 27], [5, 6, 6, 33, 5, 6, 6, 33]])
    >>> result = mcnemar(counts)  # n01, n10 = 5, 17 and 12, 12
    >>> result.pvalue.round(4), result.estimate
    (array([0.019 , 0.8383]), array([0.12, 0.  ]))
    """
    return replace(mcnemar_test(*discordant(counts)), estimate=accuracy_difference(counts))


def mcnemar_uncorrected(counts, rng=None) -> CriterionResult:
    """McNemar's chi2 test without continuity correction, ``(n01 - n10)^2 / (n01 + n10)``
    against chi2(1) (statsmodels' ``mcnemar(exact=False, correction=False)``).

    Parameters
    ----------
    counts : array_like of int, shape (n_reps, 8)
        The 8-cell table of each replication (``Batch.counts``).
    rng : None
        Unused: the tests on counts share the signature ``test(counts, rng)``.

    Returns
    -------
    CriterionResult
        P-values, the chi2 statistic, and A's accuracy minus B's as estimate; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[10, 3, 8, 29, 12, 2, 9, 27], [5, 6, 6, 33, 5, 6, 6, 33]])
    >>> result = mcnemar_uncorrected(counts)  # n01, n10 = 5, 17 and 12, 12
    >>> result.statistic.round(4), result.pvalue.round(4)
    (array([6.5455, 0.    ]), array([0.0105, 1.    ]))
    """
    return replace(mcnemar_test(*discordant(counts), correction=False),
                   estimate=accuracy_difference(counts))


def mcnemar_test(n01, n10, correction=True) -> CriterionResult:
    """McNemar's chi2(1) test as Keller et al.'s Eq 4 (`correction`: ``|n01 - n10| - 1``)."""
    chi2 = mcnemar_chi2(n01, n10, correction)
    return CriterionResult.from_pvalues(scipy.stats.chi2.sf(chi2, 1), chi2)


def mcnemar_exact(counts, rng=None) -> CriterionResult:
    """Exact McNemar test: ``p = min(1, 2 P(X <= min(n01, n10)))``, X ~ Binomial(n01 + n10, 1/2),
    as ``scipy.stats.binomtest``.

    Parameters
    ----------
    counts : array_like of int, shape (n_reps, 8)
        The 8-cell table of each replication (``Batch.counts``).
    rng : None
        Unused: the tests on counts share the signature ``test(counts, rng)``.

    Returns
    -------
    CriterionResult
        P-values, ``n01`` as statistic and A's accuracy minus B's as estimate; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[10, 3, 8, 29, 12, 2, 9, 27], [5, 6, 6, 33, 5, 6, 6, 33]])
    >>> mcnemar_exact(counts).pvalue.round(4)
    array([0.0169, 1.    ])
    """
    n01, n10 = discordant(counts)
    return CriterionResult.from_pvalues(mcnemar_binomial(n01, n10), n01.astype(float),
                                        accuracy_difference(counts))


def mcnemar_midp(counts, rng=None) -> CriterionResult:
    """Mid-p McNemar test (Fagerland et al. 2013): ``p = 2 P(X < k) + P(X = k)``, k = min(n01,
    n10), capped at 1.

    Parameters
    ----------
    counts : array_like of int, shape (n_reps, 8)
        The 8-cell table of each replication (``Batch.counts``).
    rng : None
        Unused: the tests on counts share the signature ``test(counts, rng)``.

    Returns
    -------
    CriterionResult
        P-values, ``n01`` as statistic and A's accuracy minus B's as estimate; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[10, 3, 8, 29, 12, 2, 9, 27], [5, 6, 6, 33, 5, 6, 6, 33]])
    >>> mcnemar_midp(counts).pvalue.round(4)
    array([0.0106, 1.    ])
    """
    n01, n10 = discordant(counts)
    return CriterionResult.from_pvalues(mcnemar_binomial(n01, n10, mid=True),
                                        n01.astype(float), accuracy_difference(counts))


#: Binomial tail mass left out of the exact dCerr replicate law (per side).
_TAIL = 1e-16


def dcerr_replicate_law(n, n01, n10) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``(P(n01* < n10*), P(n01* = n10*))`` of one bootstrap replicate of each set."""
    n, n01, n10 = (np.asarray(x, dtype=np.int64) for x in (n, n01, n10))
    m = n01 + n10
    share = m / n
    lo = scipy.stats.binom.ppf(_TAIL, n, share)
    hi = scipy.stats.binom.isf(_TAIL, n, share)
    t = lo[:, None] + np.arange(int((hi - lo).max()) + 1)
    weight = np.where(t <= hi[:, None], scipy.stats.binom.pmf(t, n[:, None], share[:, None]), 0.0)
    r = np.divide(n01, m, out=np.zeros(m.shape), where=m > 0)[:, None]
    lt = scipy.stats.binom.cdf(np.ceil(t / 2) - 1, t, r)
    eq = np.where(t % 2 == 0, scipy.stats.binom.pmf(t // 2, t, r), 0.0)
    return (weight * lt).sum(axis=1), (weight * eq).sum(axis=1)


def _percentile_pvalue(below, above, n_boot):
    """``min(1, 2 (1 + min(below, above)) / (n_boot + 1))``, ties counting on both sides."""
    return np.minimum(1.0, 2.0 * (1.0 + np.minimum(below, above)) / (n_boot + 1))


def _stop_count(n_boot, p_max):
    """Smallest count on both sides of 0 that makes the p-value exceed `p_max` (or never)."""
    if p_max >= 1.0:
        return n_boot + 1
    return int(np.floor(p_max * (n_boot + 1) / 2 - 1)) + 1


def bootstrap_dcerr(counts, rng, n_boot=DEFAULT_N_BOOT) -> CriterionResult:
    """Bootstrap percentile test on dCerr, side counts drawn from :func:`dcerr_replicate_law`."""
    counts = np.asarray(counts, dtype=np.int64)
    n01, n10 = discordant(counts)
    n = counts.sum(axis=1)
    lt, eq = dcerr_replicate_law(n, n01, n10)
    lt = np.clip(lt, 0.0, 1.0)  # sums of rounded terms
    eq = np.clip(eq, 0.0, 1.0 - lt)
    sides = rng.multinomial(n_boot, np.stack([lt, eq, np.maximum(1.0 - lt - eq, 0.0)], axis=1))
    below, above = sides[:, 0] + sides[:, 1], sides[:, 2] + sides[:, 1]
    return CriterionResult.from_pvalues(_percentile_pvalue(below, above, n_boot), (n01 - n10) / n,
                                        (n10 - n01) / n)


def bootstrap_df1(counts, rng, n_boot=DEFAULT_N_BOOT, p_max=1.0) -> CriterionResult:
    """Bootstrap percentile test on dF1 (:func:`bootstrap_df1_test`)."""
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    below, above = np.empty(counts.shape[0], np.int64), np.empty(counts.shape[0], np.int64)
    from evalmc.criteria.kernels import TILT_MAX, bootstrap_df1_sides

    bootstrap_df1_sides(rng, counts, n_boot, _stop_count(n_boot, p_max), TILT_MAX, below, above)
    df1 = f1_difference(counts)
    return CriterionResult.from_pvalues(_percentile_pvalue(below, above, n_boot), df1, df1)


def bootstrap_df1_centred(counts, rng, n_boot=DEFAULT_N_BOOT) -> CriterionResult:
    """Bootstrap test on dF1, interval centred on the replicates' mean (Keller et al. Sec 2.2)."""
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    outside = np.empty(counts.shape[0], np.int64)
    from evalmc.criteria.kernels import bootstrap_df1_centred_counts

    bootstrap_df1_centred_counts(rng, counts, n_boot, outside)
    df1 = f1_difference(counts)
    return CriterionResult.from_pvalues(outside / n_boot, df1, df1)


def bootstrap_dcerr_test(n_boot: int = DEFAULT_N_BOOT):
    """The ``bootstrap-dcerr`` family: the bootstrap percentile test on the difference of
    errors, the replicates' counts on each side of 0 drawn at once from their exact law.

    Parameters
    ----------
    n_boot : int
        Bootstrap replicates per evaluation set.

    Returns
    -------
    callable
        ``test(counts, rng) -> CriterionResult``.

    Examples
    --------
    >>> from evalmc.criteria import get_criterion
    >>> get_criterion("bootstrap-dcerr", n_boot=2000).name
    'bootstrap-dcerr(n_boot=2000)'
    """
    return partial(bootstrap_dcerr, n_boot=check_int("n_boot", n_boot, low=1))


def bootstrap_df1_test(n_boot: int = DEFAULT_N_BOOT, p_max: float = 1.0):
    """The ``bootstrap-df1`` family: the bootstrap percentile test on the difference of F1.

    Parameters
    ----------
    n_boot : int
        Bootstrap replicates per evaluation set.
    p_max : float
        With ``p_max < 1``, a set's replicates stop once its p-value must exceed `p_max`: the
        decision at every level ``alpha <= p_max`` is that of all `n_boot` replicates, and a
        p-value above `p_max` is a lower bound. A set far from 0 draws its rare side at once and
        exactly, never censored.

    Returns
    -------
    callable
        ``test(counts, rng) -> CriterionResult``.

    Examples
    --------
    >>> from evalmc.criteria import get_criterion
    >>> get_criterion("bootstrap-df1(n_boot=999,p_max=0.1)").name
    'bootstrap-df1(n_boot=999,p_max=0.1)'
    """
    n_boot = check_int("n_boot", n_boot, low=1)
    p_max = check_float("p_max", p_max, low=0, high=1, open_low=True)
    return partial(bootstrap_df1, n_boot=n_boot, p_max=p_max)


def bootstrap_df1_centred_test(n_boot: int = DEFAULT_N_BOOT):
    """The ``bootstrap-df1-centred`` family: the bootstrap test on the difference of F1 with
    the interval ``[m - h, m + h]`` centred on the replicates' mean m (Keller et al. Sec 2.2).

    Parameters
    ----------
    n_boot : int
        Bootstrap replicates per evaluation set.

    Returns
    -------
    callable
        ``test(counts, rng) -> CriterionResult``.

    Examples
    --------
    >>> from evalmc.criteria import get_criterion
    >>> get_criterion("bootstrap-df1-centred", n_boot=1000).name
    'bootstrap-df1-centred(n_boot=1000)'
    """
    return partial(bootstrap_df1_centred, n_boot=check_int("n_boot", n_boot, low=1))
