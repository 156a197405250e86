"""Criteria for two models scored 0/1 on the same items (LLM evaluations), vectorized.

Items come in clusters of ``batch.cluster_sizes`` (:class:`~evalmc.sims.items.ClusteredBatch`),
an item scored several times counting by its mean; the clustered criteria (Miller 2024) read
per-cluster sums only, so their cost grows with the distinct clusters, not the items. On a
:class:`~evalmc.sims.items.CellsBatch` each criterion reads the counts of item types alone (the
same statistic, computed from the counts), and the cluster bootstrap draws its resamples of
clusters two at a time (:func:`~evalmc.criteria.kernels.cluster_resample_ratios`)."""

from __future__ import annotations

import numpy as np

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.registry import CLUSTER_RESAMPLES as N_RESAMPLES
from evalmc.sims.base import Batch
from evalmc.sims.items import cell_types, cluster_sizes, group_counts, sample_scores, type_counts


def _scores(batch: Batch):
    return np.asarray(batch.a, dtype=float), np.asarray(batch.b, dtype=float), \
        cluster_sizes(batch)


def _z_pvalues(z):
    from scipy.special import ndtr

    with np.errstate(invalid="ignore"):
        return 2 * ndtr(-np.abs(z))


def unpaired_z(batch: Batch) -> CriterionResult:
    """lm-evaluation-harness's z-test of two accuracies, as if the two models had answered
    different questions: ``z = (acc_a - acc_b) / sqrt(se_a^2 + se_b^2)``, ``se = sd / sqrt(n)``.

    Parameters
    ----------
    batch : Batch
        0/1 scores of A and B on the same items, one row per replication.

    Returns
    -------
    CriterionResult
        Two-sided p-values, z, and the estimate ``mean(a) - mean(b)``; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 40)) < 0.7) * 1.0, (rng.random((2, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=4)  # 10 passages of 4 questions
    >>> unpaired_z(batch).pvalue.round(4)
    array([0.0219, 0.3323])
    """
    if type_counts(batch) is not None:
        n = batch.sizes[0]
        mean_a, var_a, mean_b, var_b = batch.moments()
        se2, diff = var_a / n + var_b / n, mean_a - mean_b
    else:
        a, b, _ = _scores(batch)
        n_a, n_b = a.shape[1], b.shape[1]
        se2 = a.var(axis=1, ddof=1) / n_a + b.var(axis=1, ddof=1) / n_b
        diff = a.mean(axis=1) - b.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = diff / np.sqrt(se2)
    return CriterionResult.from_pvalues(_z_pvalues(z), z, estimate=diff)


def paired_items(batch: Batch) -> CriterionResult:
    """z on the per-item differences ``d = a - b``: ``mean(d) / (sd(d) / sqrt(n))``.

    Parameters
    ----------
    batch : Batch
        0/1 scores of A and B on the same items, one row per replication.

    Returns
    -------
    CriterionResult
        Two-sided p-values, z, and the estimate ``mean(a) - mean(b)``; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 40)) < 0.7) * 1.0, (rng.random((2, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=4)  # 10 passages of 4 questions
    >>> paired_items(batch).pvalue.round(4)
    array([0.0253, 0.2842])
    """
    if type_counts(batch) is not None:
        mean, var = batch.diff_moments()
        with np.errstate(divide="ignore", invalid="ignore"):
            z = mean / (np.sqrt(var) / np.sqrt(batch.sizes[0]))
        return CriterionResult.from_pvalues(_z_pvalues(z), z, estimate=mean)
    a, b, _ = _scores(batch)
    d = a - b
    with np.errstate(divide="ignore", invalid="ignore"):
        z = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(d.shape[1]))
    return CriterionResult.from_pvalues(_z_pvalues(z), z, estimate=d.mean(axis=1))


def paired_samples_z(batch: Batch) -> CriterionResult:
    """z on the per-sample differences, each of an item's ``n_samples`` answers counted as an
    item of its own (a standard error that repeated samples of one item make too small).

    Parameters
    ----------
    batch : ClusteredBatch
        Scores of A and B on the same items, ``n_samples`` per item, one row per replication.

    Returns
    -------
    CriterionResult
        Two-sided p-values, z, and the estimate ``mean(a) - mean(b)``; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 40)) < 0.7) * 1.0, (rng.random((2, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=1, n_samples=4)  # 10 questions
    >>> paired_samples_z(batch).pvalue.round(4)
    array([0.0253, 0.2842])
    """
    counts = type_counts(batch)
    if counts is not None:  # an item's samples differ by +1 n10 times, by -1 n01 times
        types = cell_types(batch.n_samples)
        total = counts @ (types[:, 1] - types[:, 2])
        squares = counts @ (types[:, 1] + types[:, 2])
        n = batch.sizes[0] * batch.n_samples
        mean = total / n
        with np.errstate(divide="ignore", invalid="ignore"):
            z = mean / (np.sqrt((n * squares - total**2) / (n * (n - 1.0))) / np.sqrt(n))
        return CriterionResult.from_pvalues(_z_pvalues(z), z, estimate=mean)
    a, b = sample_scores(batch)
    d = (a - b).reshape(a.shape[0], -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(d.shape[1]))
    return CriterionResult.from_pvalues(_z_pvalues(z), z, estimate=d.mean(axis=1))


def mcnemar_items(batch: Batch) -> CriterionResult:
    """Exact McNemar test, as statsmodels' ``mcnemar(exact=True)``: ``min(1, 2 P(X <= min(n01,
    n10)))``, X ~ Bin(n01 + n10, 1/2); p = 1 without discordant items.

    Parameters
    ----------
    batch : Batch
        0/1 scores of A and B on the same items, one row per replication.

    Returns
    -------
    CriterionResult
        Two-sided p-values, ``n10 - n01`` (items only A got right, less those only B got
        right), and the estimate ``mean(a) - mean(b)``; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 40)) < 0.7) * 1.0, (rng.random((2, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=4)  # 10 passages of 4 questions
    >>> mcnemar_items(batch).pvalue.round(4)
    array([0.0525, 0.424 ])
    """
    from scipy import stats

    counts = type_counts(batch)
    if counts is not None:  # items A got right more often than B: n10 > n01
        types, n = cell_types(batch.n_samples), batch.sizes[0]
        n10, n01 = counts @ (types[:, 1] > types[:, 2]), counts @ (types[:, 1] < types[:, 2])
    else:
        a, b, _ = _scores(batch)
        n = a.shape[1]
        n10 = (a > b).sum(axis=1)
        n01 = (a < b).sum(axis=1)
    p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(n01, n10), n01 + n10, 0.5))
    return CriterionResult.from_pvalues(p, (n10 - n01).astype(float), estimate=(n10 - n01) / n)


def _cluster_sums(batch: Batch, d=None):
    """Each cluster's sum of ``a - b`` (or of `d`) per replication, and the clusters' sizes."""
    a, b, sizes = _scores(batch)
    d = a - b if d is None else d
    if np.all(sizes == sizes[0]):
        return d.reshape(d.shape[0], -1, sizes[0]).sum(axis=2), sizes
    return np.add.reduceat(d, np.cumsum(sizes) - sizes, axis=1), sizes


def _cell_clusters(batch):
    """A :class:`~evalmc.sims.items.CellsBatch`'s clusters as ``(sums, sizes, multiplicity)``:
    each distinct cluster's sum of ``n_samples (a - b)`` (an integer), its items, and how many
    clusters are alike (:func:`~evalmc.sims.items.group_counts`)."""
    types = cell_types(batch.n_samples)
    counts, sizes, multiplicity = group_counts(batch)
    return counts @ (types[:, 1] - types[:, 2]), sizes, multiplicity


def clustered_mean_se(batch: Batch, d=None) -> tuple[np.ndarray, np.ndarray]:
    """``(mean, se)``: ``mean(a - b)`` (or of `d`) and its cluster-robust CR0 standard error."""
    if d is None and type_counts(batch) is not None:
        units, sizes, multiplicity = _cell_clusters(batch)
        sums, n = units / batch.n_samples, batch.sizes[0]
        mean = (multiplicity * sums).sum(axis=1) / n
        spread = (multiplicity * (sums - sizes * mean[:, None]) ** 2).sum(axis=1)
        return mean, np.sqrt(spread) / n
    sums, sizes = _cluster_sums(batch, d)
    n = sizes.sum()
    mean = sums.sum(axis=1) / n
    return mean, np.sqrt(((sums - sizes * mean[:, None]) ** 2).sum(axis=1)) / n


def cluster_replicates(batch: Batch, rng: np.random.Generator,
                       n_resamples: int) -> tuple[np.ndarray, np.ndarray]:
    """``(estimate, replicates)``: ``mean(a - b)`` and `n_resamples` cluster resamples of it."""
    from evalmc.criteria import kernels

    if type_counts(batch) is not None:
        return _cell_replicates(batch, rng, n_resamples)
    sums, sizes = _cluster_sums(batch)
    values, weights, counts = distinct_clusters(sums, sizes)
    replicates = np.empty((sums.shape[0], n_resamples))
    kernels.multinomial_ratios(rng, values, weights, counts, replicates)
    return sums.sum(axis=1) / sizes.sum(), replicates


def _cell_replicates(batch, rng, n_resamples):
    """:func:`cluster_replicates` of a CellsBatch: clusters of one item resampled as the items'
    distinct differences counted (as :func:`distinct_clusters` has them), others drawn two at a
    time (:func:`~evalmc.criteria.kernels.cluster_resample_ratios`)."""
    from evalmc.criteria import kernels

    s = batch.n_samples
    units, sizes, multiplicity = _cell_clusters(batch)
    n = batch.sizes[0]
    estimate = (multiplicity * units).sum(axis=1) / s / n
    replicates = np.empty((batch.n_reps, n_resamples))
    if batch.exchangeable:  # the item bootstrap over the distinct differences, in order
        types = cell_types(s)
        counts = np.zeros((batch.n_reps, 2 * s + 1), dtype=np.int64)
        np.add.at(counts.T, types[:, 1] - types[:, 2] + s, multiplicity.T)
        values = np.broadcast_to(np.arange(-s, s + 1) / s, counts.shape)
        kernels.multinomial_ratios(rng, np.ascontiguousarray(values),
                                   np.ones(counts.shape), counts, replicates)
    else:
        kernels.cluster_resample_ratios(rng, np.ascontiguousarray(units, dtype=float),
                                        np.asarray(sizes, dtype=float), float(s), replicates)
    return estimate, replicates


def clustered_z(batch: Batch) -> CriterionResult:
    """``mean(d)`` over its cluster-robust (CR0) standard error (Miller 2024),
    ``se^2 = sum_g (sum_{i in g} (d_i - mean(d)))^2 / n^2``.

    Parameters
    ----------
    batch : Batch
        0/1 scores of A and B on the same items, one row per replication, in clusters of
        ``batch.cluster_sizes``.

    Returns
    -------
    CriterionResult
        Two-sided p-values, z, and the estimate ``mean(a) - mean(b)``; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 40)) < 0.7) * 1.0, (rng.random((2, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=4)  # 10 passages of 4 questions
    >>> clustered_z(batch).pvalue.round(4)
    array([0.0016, 0.2148])
    """
    mean, se = clustered_mean_se(batch)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = mean / se
    return CriterionResult.from_pvalues(_z_pvalues(z), z, estimate=mean)


def cluster_bootstrap(batch: Batch, rng: np.random.Generator,
                      n_resamples: int = N_RESAMPLES) -> CriterionResult:
    """Percentile cluster-bootstrap test of ``mean(d)``, resampling whole clusters (p-value as
    :mod:`evalmc.criteria.bootstrap`).

    Parameters
    ----------
    batch : Batch
        0/1 scores of A and B on the same items, one row per replication, in clusters of
        ``batch.cluster_sizes``.
    rng : numpy.random.Generator
        Draws the resamples.
    n_resamples : int
        Bootstrap resamples per replication.

    Returns
    -------
    CriterionResult
        Two-sided p-values, with ``mean(a - b)`` as statistic and estimate; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 40)) < 0.7) * 1.0, (rng.random((2, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=4)  # 10 passages of 4 questions
    >>> cluster_bootstrap(batch, np.random.default_rng(0), n_resamples=999).pvalue.round(4)
    array([0.    , 0.3267])
    """
    from evalmc.criteria.bootstrap import interval_pvalues

    estimate, replicates = cluster_replicates(batch, rng, n_resamples)
    p = interval_pvalues(estimate, replicates, "percentile")
    return CriterionResult.from_pvalues(p, estimate, estimate=estimate)


def distinct_clusters(sums, sizes):
    """``(values, weights, counts)``: each replication's distinct (sum, size) clusters, counted."""
    rows = []
    for row in sums:
        keys, counts = np.unique(np.column_stack([row, sizes]), axis=0, return_counts=True)
        rows.append((keys, counts))
    m = max(len(counts) for _, counts in rows)
    values = np.zeros((len(rows), m))
    weights = np.ones((len(rows), m))
    counts = np.zeros((len(rows), m), dtype=np.int64)
    for i, (keys, c) in enumerate(rows):
        values[i, :len(c)], weights[i, :len(c)], counts[i, :len(c)] = keys[:, 0], keys[:, 1], c
    return values, weights, counts
