"""Criteria for two models scored 0/1 on the same items (LLM evaluations), vectorized.

- ``unpaired-z``: lm-evaluation-harness's comparison of two results,
  ``z = (acc_a - acc_b) / sqrt(se_a^2 + se_b^2)`` with ``se = sd(ddof=1) / sqrt(n)`` of each
  model's scores, as if the two had answered different questions.
- ``paired-items``: z on the per-item differences ``d = a - b``, ``mean(d) / (sd(d) / sqrt(n))``.
- ``mcnemar-items``: the exact McNemar test, a two-sided binomial test at 1/2 of the items only
  A got right among the n01 + n10 discordant items (statsmodels' ``mcnemar(exact=True)``).
- ``clustered-z``: ``mean(d)`` over its cluster-robust standard error (Miller 2024, CR0):
  ``se^2 = sum_g (sum_{i in g} (d_i - mean(d)))^2 / n^2``.
- ``cluster-bootstrap``: the percentile bootstrap interval of ``mean(d)`` resampling whole
  clusters (:data:`N_RESAMPLES`), as a test (p-value as :mod:`evalmc.criteria.bootstrap`).

Items come in consecutive clusters of ``batch.cluster_size``
(:class:`~evalmc.sims.items.ClusteredBatch`; 1 for a batch of plain scores).
Every criterion reads per-cluster sums only: a cluster resample needs the clusters' counts per
distinct sum, a multinomial, so its cost grows with the distinct sums, not with the items.
"""

from __future__ import annotations

import numpy as np

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.registry import CLUSTER_RESAMPLES as N_RESAMPLES
from evalmc.sims.base import Batch
from evalmc.sims.items import cluster_size


def _scores(batch: Batch):
    a = np.asarray(batch.a, dtype=float)
    b = np.asarray(batch.b, dtype=float)
    return a, b, cluster_size(batch)


def _z_pvalues(z):
    from scipy.special import ndtr

    with np.errstate(invalid="ignore"):
        return 2 * ndtr(-np.abs(z))


def unpaired_z(batch: Batch) -> CriterionResult:
    """lm-evaluation-harness's z-test of two accuracies, as if unpaired.

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
    a, b, _ = _scores(batch)
    n_a, n_b = a.shape[1], b.shape[1]
    se2 = a.var(axis=1, ddof=1) / n_a + b.var(axis=1, ddof=1) / n_b
    diff = a.mean(axis=1) - b.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = diff / np.sqrt(se2)
    return CriterionResult.from_pvalues(_z_pvalues(z), z, estimate=diff)


def paired_items(batch: Batch) -> CriterionResult:
    """z on the per-item differences (sample sd).

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
    a, b, _ = _scores(batch)
    d = a - b
    with np.errstate(divide="ignore", invalid="ignore"):
        z = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(d.shape[1]))
    return CriterionResult.from_pvalues(_z_pvalues(z), z, estimate=d.mean(axis=1))


def mcnemar_items(batch: Batch) -> CriterionResult:
    """Exact McNemar: ``min(1, 2 P(X <= min(n01, n10)))``, X ~ Bin(n01 + n10, 1/2); p = 1
    without discordant items.

    Parameters
    ----------
    batch : Batch
        0/1 scores of A and B on the same items, one row per replication.

    Returns
    -------
    CriterionResult
        Two-sided p-values, ``n10 - n01`` (items only A got right, less those only B
        got right), and the estimate ``mean(a) - mean(b)``; shape (n_reps,).

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

    a, b, _ = _scores(batch)
    n10 = (a > b).sum(axis=1)
    n01 = (a < b).sum(axis=1)
    p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(n01, n10), n01 + n10, 0.5))
    return CriterionResult.from_pvalues(p, (n10 - n01).astype(float),
                                        estimate=(n10 - n01) / a.shape[1])


def _cluster_sums(batch: Batch):
    """Per replication, each cluster's sum of ``a - b``; and the items per cluster."""
    a, b, k = _scores(batch)
    d = a - b
    return d.reshape(d.shape[0], -1, k).sum(axis=2), k


def clustered_z(batch: Batch) -> CriterionResult:
    """``mean(d)`` over its cluster-robust (CR0) standard error.

    Parameters
    ----------
    batch : Batch
        0/1 scores of A and B on the same items, one row per replication, in clusters of
        ``batch.cluster_size``.

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
    sums, k = _cluster_sums(batch)
    n = sums.shape[1] * k
    mean = sums.sum(axis=1) / n
    se = np.sqrt(((sums - k * mean[:, None]) ** 2).sum(axis=1)) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        z = mean / se
    return CriterionResult.from_pvalues(_z_pvalues(z), z, estimate=mean)


def cluster_bootstrap(batch: Batch, rng: np.random.Generator,
                      n_resamples: int = N_RESAMPLES) -> CriterionResult:
    """Percentile cluster-bootstrap test of ``mean(d)``: each resample draws the clusters' counts
    per distinct cluster sum from their multinomial law.

    Parameters
    ----------
    batch : Batch
        0/1 scores of A and B on the same items, one row per replication, in clusters of
        ``batch.cluster_size``.
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
    from evalmc.criteria import kernels
    from evalmc.criteria.bootstrap import interval_pvalues

    sums, k = _cluster_sums(batch)
    n = sums.shape[1] * k
    values = np.arange(-k, k + 1)
    counts = np.stack([(sums == v).sum(axis=1) for v in values], axis=1).astype(np.int64)
    replicates = np.empty((sums.shape[0], n_resamples))
    kernels.multinomial_means(rng, values.astype(float), counts, float(n), replicates)
    estimate = sums.sum(axis=1) / n
    p = interval_pvalues(estimate, replicates, "percentile")
    return CriterionResult.from_pvalues(p, estimate, estimate=estimate)
