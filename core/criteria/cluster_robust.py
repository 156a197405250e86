"""Cluster-robust tests of ``mean(A - B)`` that hold their level with few clusters, vectorized.

The per-item differences ``d_i = a_i - b_i`` come in G clusters of sizes ``n_g``, ``N = sum
n_g``. Their mean is the least-squares fit of d on a constant (K = 1 regressor), so everything
below reads the clusters' sums ``S_g`` and sizes only: the mean ``m = sum_g S_g / N``, and the
clusters' residual sums ``E_g = S_g - n_g m``.

- CR1 (Stata's, statsmodels' ``cov_type='cluster'``): ``V1 = G / (G - 1) (N - 1) / (N - K)
  sum_g E_g^2 / N^2``, the CR0 of ``clustered-z`` times ``G / (G - 1)`` (K = 1).
- CR2 (Bell and McCaffrey 2002): ``V2 = (X'X)^-1 sum_g X_g' A_g e_g e_g' A_g X_g (X'X)^-1`` with
  ``A_g = (I - H_gg)^(-1/2)``. For X = 1, ``H_gg = J / N`` (J all ones), whose one nonzero
  eigenvalue ``n_g / N`` has eigenvector ``1_g``; so ``1_g' A_g = (1 - n_g / N)^(-1/2) 1_g'`` and
  ``V2 = sum_g E_g^2 / (1 - n_g / N) / N^2``. With equal clusters ``V2 = V1``.
- Bell-McCaffrey degrees of freedom (Imbens and Kolesar 2016, working model ``sigma^2 I``, the
  Satterthwaite df of Pustejovsky and Tipton 2018 with clubSandwich's default target):
  ``df = (sum lambda)^2 / sum lambda^2`` over the eigenvalues of ``C'C``, whose column g is
  ``c_g = (I - H)_g A_g X_g (X'X)^-1``, so that ``V2 = sum_g (c_g' d)^2``. For X = 1, ``c_g =
  (1 - p_g)^(-1/2) (1_g - p_g 1) / N`` with ``p_g = n_g / N``, and ``N^2 (C'C)_gh = (n_g delta_gh
  - n_g n_h / N) / sqrt((1 - p_g)(1 - p_h))``: its trace is N, and with ``r_g = p_g / (1 - p_g)``
  ``df = 1 / (sum_g r_g^2 (1 - 2 p_g) + (sum_g r_g p_g)^2)``, G - 1 for equal clusters.
- Wild cluster bootstrap, null imposed (WCR; Cameron, Gelbach and Miller 2008): the restricted
  residuals are d itself, so a draw multiplies each cluster's sum by its weight, ``S*_g = v_g
  S_g``, and recomputes the CR1 t; ``p = #{|t*| >= |t|} / B``. Weights are Rademacher (+-1)
  or Webb's (2023) six-point (``+-sqrt(1/2), +-1, +-sqrt(3/2)``, for very few clusters); with
  Rademacher weights and ``2^G <= B`` every sign vector is used once instead (the exact
  bootstrap law; boottest and wildboottest enumerate likewise). The t's CR1 factor cancels in
  the comparison: CR0 gives the same p.

With clusters of one item, CR1 and CR2 are the paired t-test's standard error and the df is
N - 1: the three t-tests are then the paired t-test.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.items import _cluster_sums
from evalmc.criteria.registry import CLUSTER_RESAMPLES
from evalmc.inputs.checks import check_choice, check_int
from evalmc.sims.base import Batch

#: The standard errors and the degrees of freedom of :func:`cluster_t`, and the wild weights.
SE_TYPES = ("CR1", "CR2")
DF_TYPES = ("clusters", "bm")
WEIGHTS = ("rademacher", "webb")
#: Webb's six-point weights, each of probability 1/6.
WEBB = np.array([-1, -1, -1, 1, 1, 1]) * np.sqrt(np.array([3.0, 2.0, 1.0, 1.0, 2.0, 3.0]) / 2)
#: Draws (replications x resamples x clusters) held at once.
CHUNK = 4_000_000
#: Relative tolerance of ``|t*| >= |t|``: a draw that gives back the data ties with it.
TIES = 1e-10


def cluster_fit(batch: Batch):
    """``(sums, sizes, mean, resid)``: each cluster's sum of ``a - b``, the sizes, ``mean(a -
    b)`` and each cluster's sum of residuals ``E_g = S_g - n_g mean``."""
    sums, sizes = _cell_sums(batch) if _by_cells(batch) else _cluster_sums(batch)
    mean = sums.sum(axis=1) / sizes.sum()
    return sums, sizes, mean, sums - sizes * mean[:, None]


def _by_cells(batch) -> bool:
    """Whether `batch` holds each cluster's counts of item types (0/1 scores), in order."""
    from evalmc.sims.items import CellsBatch

    return isinstance(batch, CellsBatch) and not batch.exchangeable


def _cell_sums(batch):
    """Each cluster's sum of ``a - b`` from its counts of item types, and the sizes: a type's
    difference is its samples only A got right minus those only B did, over the samples."""
    from evalmc.sims.items import cell_types

    types = cell_types(batch.n_samples)
    step = (types[:, 1] - types[:, 2]) / batch.n_samples
    return batch.cells @ step, np.asarray(batch.cluster_sizes, dtype=np.int64)


def cluster_se(resid: np.ndarray, sizes: np.ndarray, se: str) -> np.ndarray:
    """The CR1 or CR2 standard error of the mean from the clusters' residual sums."""
    n, g = sizes.sum(), np.float64(len(sizes))
    with np.errstate(divide="ignore", invalid="ignore"):
        if se == "CR1":
            return np.sqrt(g / (g - 1) * (resid**2).sum(axis=1)) / n
        return np.sqrt((resid**2 / (1 - sizes / n)).sum(axis=1)) / n


def bm_df(sizes: np.ndarray) -> float:
    """Bell-McCaffrey degrees of freedom of the CR2 mean, from the cluster sizes (NaN for one)."""
    p = sizes / sizes.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        r = p / (1 - p)
        return float(1 / ((r**2 * (1 - 2 * p)).sum() + (r * p).sum() ** 2))


def t_df(sizes: np.ndarray, df: str) -> float:
    """The reference t's degrees of freedom: G - 1 (``'clusters'``) or Bell-McCaffrey's."""
    return bm_df(sizes) if df == "bm" else float(len(sizes) - 1)


def cluster_t(batch: Batch, se: str = "CR2", df: str = "bm") -> CriterionResult:
    """t-test of ``mean(a - b) = 0`` with a small-sample cluster-robust standard error: CR1 or
    CR2 (module docstring), referred to t with G - 1 or Bell-McCaffrey's degrees of freedom.

    The rows ``cr1-t`` (CR1, G - 1), ``cr2-t`` (CR2, G - 1) and ``cr2-bm`` (CR2, Bell-McCaffrey)
    of :data:`~evalmc.criteria.registry.CRITERIA` run it.

    Parameters
    ----------
    batch : Batch
        Paired scores, one row per replication, in clusters of ``batch.cluster_sizes`` (a plain
        batch: clusters of one item).
    se : {'CR2', 'CR1'}
        The standard error.
    df : {'bm', 'clusters'}
        The degrees of freedom: Bell-McCaffrey's, or G - 1.

    Returns
    -------
    CriterionResult
        Two-sided p-values, t, and the estimate ``mean(a - b)``; shape (n_reps,). One cluster
        gives NaN (failed replications).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria import get_criterion
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 40)) < 0.7) * 1.0, (rng.random((2, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_sizes=(4, 4, 8, 2, 10, 6, 6))
    >>> for name in ("clustered-z", "cr1-t", "cr2-t", "cr2-bm"):
    ...     print(name, get_criterion(name)(batch, None).pvalue.round(4))
    clustered-z [0.     0.2767]
    cr1-t [0.0018 0.3527]
    cr2-t [0.0016 0.3694]
    cr2-bm [0.0031 0.3772]
    """
    check_choice("se", se, SE_TYPES)
    check_choice("df", df, DF_TYPES)
    from scipy.special import stdtr

    _, sizes, mean, resid = cluster_fit(batch)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / cluster_se(resid, sizes, se)
        p = 2 * stdtr(t_df(sizes, df), -np.abs(t))
    return CriterionResult.from_pvalues(p, t, estimate=mean)


def sign_vectors(g: int) -> np.ndarray:
    """Every Rademacher weight vector of `g` clusters whose first weight is +1, ``(2^(g-1), g)``
    (the other half gives the same ``|t*|``)."""
    bits = (np.arange(2 ** (g - 1))[:, None] >> np.arange(g - 1)) & 1
    return np.column_stack([np.ones(2 ** (g - 1)), 1.0 - 2.0 * bits])


def _abs_t(s: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``|t|`` of the CR1 t of the mean, from cluster sums `s` along the last axis."""
    n, g = sizes.sum(), np.float64(len(sizes))
    m = s.sum(axis=-1) / n
    resid = s - sizes * m[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.abs(m) * n / np.sqrt(g / (g - 1) * (resid**2).sum(axis=-1))


def enumerates(weights: str, g: int, n_resamples: int) -> bool:
    """Whether the bootstrap uses every sign vector: Rademacher weights, ``2^g <= n_resamples``."""
    return weights == "rademacher" and 2**g <= n_resamples


def wild_abs_t(x: np.ndarray, sizes: np.ndarray, rng: np.random.Generator, weights: str,
               n_resamples: int) -> np.ndarray:
    """``(n_reps, B)`` values of ``|t*|``, the CR1 t of cluster sums ``v_g x_g`` over wild
    weights v: every sign vector (:func:`enumerates`), else `n_resamples` draws per row."""
    g = len(sizes)
    fixed = sign_vectors(g) if enumerates(weights, g, n_resamples) else None
    b = n_resamples if fixed is None else len(fixed)
    out = np.empty((len(x), b))
    step = max(1, CHUNK // (b * g))
    for start in range(0, len(x), step):
        rows = slice(start, start + step)
        if fixed is None:
            u = rng.random((len(out[rows]), b, g))
            v = np.where(u < 0.5, -1.0, 1.0) if weights == "rademacher" else \
                WEBB[np.minimum((6 * u).astype(np.intp), 5)]
        else:
            v = fixed
        out[rows] = _abs_t(x[rows, None, :] * v, sizes)
    return out


def _wild(batch: Batch, rng: np.random.Generator, weights: str,
          n_resamples: int) -> CriterionResult:
    sums, sizes, mean, resid = cluster_fit(batch)
    observed = _abs_t(sums[:, None, :], sizes)[:, 0]
    stars = wild_abs_t(sums, sizes, rng, weights, n_resamples)
    p = (stars >= observed[:, None] * (1 - TIES)).mean(axis=1)
    p = np.where(np.isnan(observed), np.nan, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / cluster_se(resid, sizes, "CR1")
    return CriterionResult.from_pvalues(p, t, estimate=mean)


def wild_cluster_bootstrap(weights: str = "rademacher", n_resamples: int = CLUSTER_RESAMPLES):
    """The ``wild-cluster-bootstrap`` family: the wild cluster bootstrap-t test of ``mean(a - b)
    = 0`` with the null imposed (WCR), ``p = #{|t*| >= |t|} / B`` on the CR1 t (module
    docstring).

    Parameters
    ----------
    weights : {'rademacher', 'webb'}
        The clusters' weights: Rademacher (+-1), or Webb's six-point, for very few clusters.
    n_resamples : int
        Bootstrap draws B; with Rademacher weights and ``2^G <= n_resamples`` every sign vector
        instead (exact, no random draw).

    Returns
    -------
    callable
        ``test(batch, rng) -> CriterionResult``: p-values, the CR1 t, and the estimate
        ``mean(a - b)``.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria import get_criterion
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 40)) < 0.7) * 1.0, (rng.random((2, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=4)  # 10 passages of 4 questions
    >>> test = get_criterion("wild-cluster-bootstrap")  # 2^10 > 999 draws: random signs
    >>> test.name, test(batch, np.random.default_rng(1)).pvalue.round(4)
    ('wild-cluster-bootstrap', array([0.0501, 0.4304]))
    >>> exact = get_criterion("wild-cluster-bootstrap(n_resamples=1024)")  # all 2^10 signs
    >>> exact(batch, None).pvalue.round(4)
    array([0.0391, 0.4062])
    >>> webb = get_criterion("wild-cluster-bootstrap(weights=webb)")
    >>> webb.name, webb(batch, np.random.default_rng(1)).pvalue.round(4)
    ('wild-cluster-bootstrap(weights=webb)', array([0.025 , 0.2763]))
    """
    check_choice("weights", weights, WEIGHTS)
    n_resamples = check_int("n_resamples", n_resamples, low=1)
    return partial(_wild, weights=weights, n_resamples=n_resamples)
