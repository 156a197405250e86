"""Several models over several data sets (Demsar 2006), vectorized over replications.

Each replication is a table of k models' scores on d data sets (``TableBatch.table``), ranked
within each data set (1 the best); under the global null a family's rate is its family-wise
error."""

from __future__ import annotations

from functools import partial
from itertools import combinations

import numpy as np

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.signed_rank import wilcoxon
from evalmc.inputs.checks import check_int
from evalmc.sims.base import Batch
from evalmc.sims.multidataset import TableBatch


def _table(batch: TableBatch) -> np.ndarray:
    return np.asarray(batch.table, dtype=float)


def mean_ranks(table: np.ndarray) -> np.ndarray:
    """Each model's mean rank over the data sets, shape (n_reps, k); 1 is the best."""
    from scipy.stats import rankdata

    return rankdata(-table, axis=2).mean(axis=1)


def friedman(batch: TableBatch) -> CriterionResult:
    """Friedman's test that all models are alike, as scipy.stats.friedmanchisquare: chi-square on
    the rank sums with scipy's tie correction, p from chi-square(k - 1).

    Parameters
    ----------
    batch : TableBatch
        With its ``table`` of k models' scores on d data sets, shape (n_reps, d, k).

    Returns
    -------
    CriterionResult
        P-values and the tie-corrected chi-square statistic; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.multidataset import TableBatch
    >>> rng = np.random.default_rng(0)
    >>> table = rng.normal(0.0, 1.0, (2, 12, 4)) + np.array([0.0, 0.2, 0.6, 1.0])
    >>> batch = TableBatch(table=table)
    >>> friedman(batch).pvalue.round(4)
    array([0.0007, 0.1116])
    """
    from scipy.stats import chi2, rankdata

    table = _table(batch)
    d, k = table.shape[1:]
    ranks = rankdata(table, axis=2)
    equal = (table[:, :, :, None] == table[:, :, None, :]).sum(axis=3)  # t for each member
    ties = (equal**2 - 1).sum(axis=(1, 2))  # sum over tie groups of t (t^2 - 1)
    c = 1 - ties / (k * (k * k - 1) * d)
    ssbn = (ranks.sum(axis=1) ** 2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = (12.0 / (k * d * (k + 1)) * ssbn - 3 * d * (k + 1)) / c
    return CriterionResult.from_pvalues(chi2.sf(statistic, k - 1), statistic)


def _check_pair(k: int, pair, name: str) -> None:
    if pair is not None and pair[1] >= k:
        raise ValueError(f"criterion {name!r}: `j` must be below the number of models, {k}; "
                         f"got j={pair[1]}.")


def nemenyi(batch: TableBatch, pair=None) -> CriterionResult:
    """Nemenyi's test on mean ranks (studentized range, infinite df), of `pair` or the family."""
    from scipy.stats import studentized_range

    table = _table(batch)
    d, k = table.shape[1:]
    _check_pair(k, pair, "nemenyi")
    ranks = mean_ranks(table)
    pairs = list(combinations(range(k), 2)) if pair is None else [pair]
    gap = np.max([np.abs(ranks[:, i] - ranks[:, j]) for i, j in pairs], axis=0)
    statistic = np.sqrt(2) * gap / np.sqrt(k * (k + 1) / (6 * d))
    return CriterionResult.from_pvalues(studentized_range.sf(statistic, k, np.inf), gap)


def nemenyi_pairs(table: np.ndarray) -> np.ndarray:
    """Nemenyi's p-value of every pair, in the order of ``itertools.combinations(range(k), 2)``."""
    from scipy.stats import studentized_range

    d, k = table.shape[1:]
    ranks = mean_ranks(table)
    first, second = np.triu_indices(k, 1)
    statistic = np.sqrt(2) * np.abs(ranks[:, first] - ranks[:, second]) / np.sqrt(
        k * (k + 1) / (6 * d))
    return studentized_range.sf(statistic, k, np.inf)


def holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values along the last axis, in the order of `pvalues`."""
    m = pvalues.shape[-1]
    order = np.argsort(pvalues, axis=-1, kind="stable")
    ranked = np.take_along_axis(pvalues, order, axis=-1) * (m - np.arange(m))
    adjusted = np.minimum(1.0, np.maximum.accumulate(ranked, axis=-1))
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


def wilcoxon_holm(batch: TableBatch, pair=None) -> CriterionResult:
    """Holm-adjusted Wilcoxon p-value of `pair`, or the smallest of all pairs' (the family's)."""
    table = _table(batch)
    _check_pair(table.shape[2], pair, "wilcoxon-holm")
    adjusted = wilcoxon_holm_pairs(table)
    p = (adjusted[:, list(combinations(range(table.shape[2]), 2)).index(pair)]
         if pair is not None else adjusted.min(axis=1))
    return CriterionResult.from_pvalues(p)


#: Differences per call of the Wilcoxon kernel at most (8 bytes each) in
#: :func:`wilcoxon_holm_pairs`: pairs are tested in chunks of this size.
PAIR_CHUNK = 2**21


def wilcoxon_holm_pairs(table: np.ndarray) -> np.ndarray:
    """Holm-adjusted Wilcoxon p-value of every pair, ordered as ``combinations(range(k), 2)``."""
    return holm(wilcoxon_pairs(table))


def wilcoxon_pairs(table: np.ndarray) -> np.ndarray:
    """Unadjusted Wilcoxon p-value of every pair, ordered as ``combinations(range(k), 2)``."""
    n_reps, d, k = table.shape
    first, second = np.triu_indices(k, 1)
    step = max(1, PAIR_CHUNK // (n_reps * d))

    def runs(models):  # (n_reps * len(models), d): replication r's runs of each model
        return table[:, :, models].transpose(0, 2, 1).reshape(-1, d)

    raw = [wilcoxon(Batch(runs(first[s:s + step]), runs(second[s:s + step]), paired=True))
           .pvalues().reshape(n_reps, -1) for s in range(0, first.size, step)]
    return np.concatenate(raw, axis=1)


def wilcoxon_any(batch: TableBatch) -> CriterionResult:
    """Wilcoxon signed-rank tests of all pairs, unadjusted: "some pair differs" when any pair's
    p-value is below the level (the multiple-comparisons pitfall; Holm's is the remedy).

    Parameters
    ----------
    batch : TableBatch
        With its ``table`` of k models' scores on d data sets, shape (n_reps, d, k).

    Returns
    -------
    CriterionResult
        The smallest pair's p-value; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.multidataset import TableBatch
    >>> rng = np.random.default_rng(0)
    >>> table = rng.normal(0.0, 1.0, (2, 12, 4)) + np.array([0.0, 0.2, 0.6, 1.0])
    >>> wilcoxon_any(TableBatch(table=table)).pvalue.round(4)
    array([0.001 , 0.0342])
    """
    return CriterionResult.from_pvalues(wilcoxon_pairs(_table(batch)).min(axis=1))


def nemenyi_test(i=None, j=None):
    """The test of the ``nemenyi`` family: some pair of models differs (family-wise), or, with
    `i` and `j`, models i and j differ, by Nemenyi's test on mean ranks.

    Parameters
    ----------
    i, j : int, optional
        The pair of models (0-based, ``i < j``); both or neither.

    Returns
    -------
    callable
        ``test(batch) -> CriterionResult``: p-values, with the gap of mean ranks as statistic.

    Examples
    --------
    >>> from evalmc.criteria import get_criterion
    >>> get_criterion("nemenyi(i=0,j=4)").name
    'nemenyi(i=0,j=4)'
    """
    return _family_or_pair("nemenyi", nemenyi, i, j)


def wilcoxon_holm_test(i=None, j=None):
    """The test of the ``wilcoxon-holm`` family: Holm-adjusted Wilcoxon tests of all pairs,
    some pair differs, or, with `i` and `j`, models i and j differ.

    Parameters
    ----------
    i, j : int, optional
        The pair of models (0-based, ``i < j``); both or neither.

    Returns
    -------
    callable
        ``test(batch) -> CriterionResult``.

    Examples
    --------
    >>> from evalmc.criteria import get_criterion
    >>> get_criterion("wilcoxon-holm", i=1, j=2).name
    'wilcoxon-holm(i=1,j=2)'
    """
    return _family_or_pair("wilcoxon-holm", wilcoxon_holm, i, j)


def _family_or_pair(name: str, test, i, j):
    """`test` on the family of pairs, or on the pair ``(i, j)`` when given."""
    if i is None and j is None:
        return test
    i, j = check_int("i", i, low=0), check_int("j", j, low=0)
    if i >= j:
        raise ValueError(f"criterion {name!r}: `i` must be below `j`; got i={i}, j={j}.")
    return partial(test, pair=(i, j))
