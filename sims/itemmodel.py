"""A generative model of two models' item-level scores, fitted to a user's own results.

On data like yours, does a test hold its level, and what power does it have? The scenario
``item-model`` fits the latent Gaussian model below to two models' item scores (a file
:func:`~evalmc.inputs.itemlogs.read_items` reads) and draws fresh items from it: under the null
(equal expected scores, all the structure kept) or at a difference `delta` in score points.

**Model.** On a latent scale standardised so that one score's latent variance is 1, model
``m`` (A or B) on item ``i`` of cluster ``g``, sample ``s``, has

    z = mu_m + c_g + (+/-) u_g / 2 + e_i + v_mi + w_mis

with independent normal parts: ``c_g`` the cluster's difficulty (variance ``cluster``),
``u_g / 2`` the model x cluster interaction (A gets ``+u_g / 2``, B ``-u_g / 2``;
``interaction = Var(u_g / 2)``), ``e_i`` the item's difficulty shared by both models
(``item``), ``v_mi`` the model x item effect, independent across models (``model_item``),
``w_mis`` the noise of one sample (``sample``); the five variances sum to 1.

**Scores.** Binary scores (the file's scores are all 0 or 1) are ``1{z > 0}``, so a model's
expected score is ``Phi(mu_m)``. Any other scores go through a Gaussian copula: the score is
``Q(Phi(z))``, with ``Q`` the pooled empirical quantile function of all the scores read (both
models, every item and sample), ``Q(u) = y_(ceil(u N))`` over the ``N`` sorted scores
``y_(1) <= ... <= y_(N)``. Equivalently, with ``v_0 < ... < v_K`` the distinct scores and
``c_j`` the number of scores below ``v_j``, the score is ``v_j`` when ``z`` lies in
``(t_j, t_(j+1)]``, ``t_j = Phi^-1(c_j / N)`` (``t_0 = -inf``, ``t_(K+1) = inf``): only scores
that were observed are drawn (a judge's 1..10 stay integers), and at ``mu = 0`` the draws
have exactly the pooled marginal. A model's expected score is then, exactly,

    E(mu) = v_0 + sum_(j >= 1) (v_j - v_(j-1)) Phi(mu - t_j)

(binary scores are the case ``v = (0, 1)``, ``t_1 = 0``). ``Q`` is a step function, so this sum
replaces Gauss-Hermite quadrature, which would be inexact for it.

**Fit (moments).** Four correlations on the latent scale identify the variances:

    r_samp   (same model, same item, two different samples) = cluster + interaction + item
                                                               + model_item
    r_ab     (A vs B, same item, any samples)              = cluster - interaction + item
    r_clu    (same model, same cluster, different items)    = cluster + interaction
    r_clu_ab (A vs B, same cluster, different items)        = cluster - interaction

so ``cluster = (r_clu + r_clu_ab) / 2``, ``interaction = (r_clu - r_clu_ab) / 2``,
``item = r_ab - r_clu_ab``, ``model_item = r_samp - r_clu - item``, ``sample = 1 - r_samp``.
Each correlation is estimated from mean cross products over pairs, built from per-item and
per-cluster totals (``k_i`` an item's total over its samples, ``K_g`` a cluster's): same-item
sample pairs sum ``k_i^2 - sum_s x_is^2`` over the ``n s (s - 1)`` pairs, same-cluster item pairs
``(K_g^2 - sum_(i in g) k_i^2) / (n_g - 1)`` over ``s^2`` times the items of clusters of two or
more (the cross-model products likewise): each pair of cluster ``g`` weighs ``1 / (n_g - 1)``,
so every item weighs alike, as in the models' means. For binary scores these mean products of
pairs both 1, ``p11``, give tetrachoric correlations: ``r`` solves
``Phi2(Phi^-1(p_x), Phi^-1(p_y); r) = p11`` (Owen's T function, :func:`scipy.special.owens_t`,
and :func:`scipy.optimize.brentq`), ``p_x``, ``p_y`` the models' accuracies. Other scores are
replaced by their normal scores, ``Phi^-1((rank - 0.5) / N)`` over the pooled scores (ties at
their mid-rank), and the correlations are product moments: the mean cross product less the
product of the models' means, over the models' variances. The same-model correlations are the
average of A's and B's. Estimating each model's mean (or accuracy) lowers every such
correlation by about the variance of that mean, ``v`` (``v_ab`` across models), which clusters
make of order ``1 / clusters``: the estimates are corrected to first order, ``r = r_hat (1 - v)
+ v``, ``v`` computed from the correlations themselves (a few fixed-point steps). The
correction is exact to first order only because the pairs weigh items as the means do:
weighting every pair alike (each cluster by ``n_g^2``) makes a product that the largest
clusters dominate, centred at an item-weighted mean, which biases the cluster correlations
down (often below 0) when cluster sizes are very unequal. Without samples (one per item)
``sample`` is not identifiable: it is set to 0 and ``model_item`` takes it (``r_samp = 1``).
Without clusters (each item its own,
``attrs['cluster']`` None, or all clusters of one item) ``cluster = interaction = 0``
(``r_clu = r_clu_ab = 0``). A negative estimate is set to 0, named in ``ItemFit.clipped``, and
the five are then divided by their sum. ``mu_m`` reproduces model m's mean score:
``E(mu_m) = mean_m`` (binary: ``mu_m = Phi^-1(accuracy)``).

**Null and alternatives.** For a difference `delta` the two models' latent means solve
``E(mu_A) = m + delta / 2`` and ``E(mu_B) = m - delta / 2``, ``m`` the pooled mean score of the
file: at ``delta = 0`` both models share ``mu_0`` with ``E(mu_0) = m``, and the expected scores
differ by `delta` exactly (to rounding) while their average stays at ``m``. ``m +- delta / 2``
must lie strictly inside the range of the scores. ``delta`` = the file's mean difference gives
the fit itself (``mu_A``, ``mu_B`` as fitted).

Each replication draws fresh clusters, items and samples: the estimand is the difference of
expected scores over the population of items.

**Counts.** For 0/1 scores an item is one of a few types: with ``s`` samples, how many both
models got right, only A, only B, neither (four types for one sample). Every criterion the
audit runs reads only how many items of each type each cluster holds
(:class:`~evalmc.sims.items.CellsBatch`), so by default (``draws='auto'``) a replication draws
those counts: with one sample, given a cluster's effects its items are independent and each
falls in a cell with probabilities ``Phi2`` of the bivariate normal of ``(z_A, z_B)``, so the
cluster's counts are one multinomial draw (one for all the items when each is its own
cluster); with several, each item is drawn and only its type kept. The scores, when a
criterion asks for them, are drawn from the counts (items in a random order within their
cluster, samples in a random order within their item): the law of the scores is that of
``draws='scores'``, which draws every score, from other random numbers. Counts are drawn only
when they are no more numerous than the scores.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar

import numpy as np

from evalmc.inputs.checks import check_choice, check_float, check_int
from evalmc.sims.base import Scenario
from evalmc.sims.items import CellsBatch, ClusteredBatch, cell_types

#: The five latent variances, in order.
PARTS = ("cluster", "interaction", "item", "model_item", "sample")
#: The quantities of :func:`item_statistics`, in order.
STATISTICS = ("mean_a", "mean_b", "discordance", "icc_diff", "within_var", "item_corr")
#: Correlations are kept inside (-1, 1) by this margin.
_EDGE = 1e-9
#: How the scenario draws (its ``draws``): counts of item types where they serve, or scores.
DRAWS = ("auto", "scores")


@dataclass(frozen=True, eq=False)
class ItemFit:
    """The latent Gaussian model fitted to two models' item scores (:func:`fit_items`): latent
    means, the five variances (:data:`PARTS`), the scores' `levels` and their latent `cuts`."""

    kind: str
    mu_a: float
    mu_b: float
    cluster: float
    interaction: float
    item: float
    model_item: float
    sample: float
    clipped: tuple
    n_items: int
    cluster_sizes: tuple
    n_samples: int
    levels: np.ndarray = field(repr=False)
    cuts: np.ndarray = field(repr=False)
    mean_a: float = 0.0
    mean_b: float = 0.0
    mean: float = 0.0
    correlations: dict = field(default_factory=dict, repr=False)
    observed: dict = field(default_factory=dict, repr=False)
    digest: str = ""

    @property
    def variances(self) -> dict[str, float]:
        """The five latent variances by name."""
        return {name: getattr(self, name) for name in PARTS}

    def expected(self, mu) -> np.ndarray:
        """Expected score of a model of latent mean `mu`: ``v_0 + sum_j (v_j - v_(j-1))
        Phi(mu - t_j)`` (the module docstring), exact."""
        from scipy.special import ndtr

        mu = np.asarray(mu, dtype=float)
        steps = np.diff(self.levels)
        return self.levels[0] + (steps * ndtr(mu[..., None] - self.cuts)).sum(axis=-1)

    def latent_mean(self, score: float, *, name: str = "delta") -> float:
        """The latent mean whose expected score is `score` (strictly inside the scores' range, else
        ValueError naming `name`)."""
        from scipy.optimize import brentq
        from scipy.special import ndtri

        low, high = float(self.levels[0]), float(self.levels[-1])
        if not low < score < high:
            raise ValueError(f"`{name}` asks for an expected score of {score:g}, outside the "
                             f"scores' range ({low:g}, {high:g}).")
        if self.kind == "binary":
            return float(ndtri(score))
        span = 10.0
        while self.expected(-span) > score or self.expected(span) < score:
            span *= 2
            if span > 80:  # pragma: no cover - Phi is 0 or 1 there in floats
                raise ValueError(f"`{name}` asks for an expected score of {score:g}, too "
                                 f"close to the edge of the scores' range ({low:g}, {high:g}).")
        return float(brentq(lambda mu: float(self.expected(mu)) - score, -span, span,
                            xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=200))

    def latent_means(self, delta: float) -> tuple[float, float]:
        """``(mu_A, mu_B)`` whose expected scores are ``mean +- delta / 2``."""
        if delta == 0:
            mu = self.latent_mean(self.mean)
            return mu, mu
        return (self.latent_mean(self.mean + delta / 2),
                self.latent_mean(self.mean - delta / 2))

    def draw_scores(self, rng, n_reps: int, mu_a: float, mu_b: float,
                    cluster_sizes=None) -> tuple[np.ndarray, np.ndarray]:
        """Scores ``(a, b)`` of `n_reps` fresh sets of items (shape (n_reps, items * n_samples), an
        item's samples consecutive), in the file's clusters unless `cluster_sizes` is given."""
        sizes = np.asarray(self.cluster_sizes if cluster_sizes is None else cluster_sizes,
                           dtype=np.int64)
        n, g, s = int(sizes.sum()), len(sizes), self.n_samples
        clusters = rng.standard_normal((n_reps, g)) * np.sqrt(self.cluster)
        favour = rng.standard_normal((n_reps, g)) * np.sqrt(self.interaction)
        shared = np.repeat(clusters, sizes, axis=1) + rng.standard_normal((n_reps, n)) \
            * np.sqrt(self.item)
        favour = np.repeat(favour, sizes, axis=1)
        own = rng.standard_normal((2, n_reps, n)) * np.sqrt(self.model_item)
        scores = []
        for mu, sign, effect in ((mu_a, 1.0, own[0]), (mu_b, -1.0, own[1])):
            z = rng.standard_normal((n_reps, n, s))  # one model at a time: less memory
            z *= np.sqrt(self.sample)
            z += (mu + shared + sign * favour + effect)[:, :, None]
            scores.append(self.score(z.reshape(n_reps, n * s)))
        return scores[0], scores[1]

    def draw_cells(self, rng, n_reps: int, mu_a: float, mu_b: float,
                   cluster_sizes=None) -> np.ndarray:
        """Binary scores' counts of item types (:func:`~evalmc.sims.items.cell_types`) per
        replication and cluster, shape (n_reps, clusters, types) (one group of all the items
        when every cluster is one item): the law of :meth:`draw_scores`' scores counted.

        One sample per item: given its cluster's effects, an item's latent pair is bivariate
        normal, so a cluster's counts are one multinomial draw over the four cells, whose
        probabilities are ``Phi2`` (:func:`bivariate_cells`); clusters of one item all share
        one law. Several samples: each item is drawn, and only its type kept
        (:func:`~evalmc.sims.kernels.item_cells_into`)."""
        sizes = np.asarray(self.cluster_sizes if cluster_sizes is None else cluster_sizes,
                           dtype=np.int64)
        s, g = self.n_samples, len(sizes)
        if s > 1:
            from evalmc.sims.kernels import item_cells_into

            types = cell_types(s)
            index = np.zeros((s + 1,) * 3, dtype=np.int64)
            index[types[:, 0], types[:, 1], types[:, 2]] = np.arange(len(types))
            sd = np.sqrt([self.cluster, self.interaction, self.item, self.model_item,
                          self.sample])
            groups = 1 if sizes.max() == 1 else g
            out = np.zeros((n_reps, groups, len(types)), dtype=np.int64)
            item_cells_into(rng, sizes, float(mu_a), float(mu_b), sd, index, out)
            return out
        if sizes.max() == 1:  # every item its cluster: one law, the cluster effects its own
            p = bivariate_cells(np.array(mu_a), np.array(mu_b), 1.0,
                                self.cluster - self.interaction + self.item)
            return rng.multinomial(int(sizes.sum()), p, size=n_reps)[:, None, :]
        shared = rng.standard_normal((n_reps, g)) * np.sqrt(self.cluster)
        favour = rng.standard_normal((n_reps, g)) * np.sqrt(self.interaction)
        within = self.item + self.model_item + self.sample
        p = bivariate_cells(mu_a + shared + favour, mu_b + shared - favour, within, self.item)
        return rng.multinomial(sizes, p)

    def score(self, z) -> np.ndarray:
        """The observed scores of latent values `z`: ``levels[j]`` for `z` in
        ``(cuts[j - 1], cuts[j]]`` (binary: ``1{z > 0}``)."""
        return self.levels[np.searchsorted(self.cuts, np.asarray(z, dtype=float), side="left")]


def bivariate_cells(m_a, m_b, var: float, cov: float) -> np.ndarray:
    """The four cells' probabilities (neither, B only, A only, both: ``2 a + b``) of ``(1{x_A >
    0}, 1{x_B > 0})`` for a bivariate normal of means `m_a`, `m_b` (arrays, broadcast), variances
    `var` and covariance `cov`; shape ``m_a.shape + (4,)``. ``Phi2`` by Owen's T function
    (Owen 1956), as :func:`tetrachoric`."""
    from scipy.special import ndtr, owens_t

    m_a, m_b = np.broadcast_arrays(np.asarray(m_a, dtype=float), np.asarray(m_b, dtype=float))
    if var <= 0:  # no noise within a cluster: every item of it scores alike
        h, k, r = np.where(m_a > 0, np.inf, -np.inf), np.where(m_b > 0, np.inf, -np.inf), 0.0
    else:
        h, k, r = m_a / np.sqrt(var), m_b / np.sqrt(var), min(max(cov / var, -1.0), 1.0)
    pa, pb = ndtr(h), ndtr(k)
    if r >= 1 - _EDGE:
        both = np.minimum(pa, pb)
    elif r <= -1 + _EDGE:
        both = np.maximum(pa + pb - 1, 0.0)
    elif r == 0 or not np.isfinite(h).all():
        both = pa * pb
    else:
        root = np.sqrt((1 - r) * (1 + r))
        hs, ks = np.where(h == 0, 1.0, h), np.where(k == 0, 1.0, k)  # zeros: their limits below
        both = (0.5 * pa + 0.5 * pb - owens_t(hs, (k - r * h) / (hs * root))
                - owens_t(ks, (h - r * k) / (ks * root)) - np.where(h * k > 0, 0.0, 0.5))
        both = np.where(h == 0, 0.5 * pb - owens_t(ks, -r / root), both)
        both = np.where(k == 0, 0.5 * pa - owens_t(hs, -r / root), both)
        both = np.where((h == 0) & (k == 0), 0.25 + np.arcsin(r) / (2 * np.pi), both)
        both = np.clip(both, np.maximum(pa + pb - 1, 0.0), np.minimum(pa, pb))
    a_only, b_only = np.maximum(pa - both, 0.0), np.maximum(pb - both, 0.0)
    neither = np.maximum(1.0 - both - a_only - b_only, 0.0)
    return np.stack([neither, b_only, a_only, both], axis=-1)


#: Tables paired lately (:func:`paired`), by a digest of their content.
_PAIRED: dict = {}
_PAIRED_LOCK = threading.Lock()


def paired(table, a: str, b: str):
    """:func:`~evalmc.inputs.itemlogs.paired_items` of `table`, remembered for the last few
    tables by a digest of their content (the audit pairs the table it read, and the scenario
    fitted to it pairs the same again)."""
    import pandas as pd

    from evalmc.inputs.itemlogs import COLUMNS, paired_items

    columns = [c for c in COLUMNS if c in table.columns]
    rows = pd.util.hash_pandas_object(table[columns], index=False).to_numpy()
    key = (hashlib.blake2b(rows.tobytes() + repr(columns).encode(), digest_size=16).digest(),
           a, b)
    with _PAIRED_LOCK:
        if key in _PAIRED:
            return _PAIRED[key]
    pair = paired_items(table, a, b)
    with _PAIRED_LOCK:
        while len(_PAIRED) >= 4:
            _PAIRED.pop(next(iter(_PAIRED)))
        _PAIRED[key] = pair
    return pair


def forget_fits() -> None:
    """Forget the files fitted and the tables paired so far (:func:`paired`): the next scenario
    reads and fits its file afresh."""
    _file_fit.cache_clear()
    _file_table.cache_clear()
    with _PAIRED_LOCK:
        _PAIRED.clear()


def file_table(path, *, metric=None, item="item", model=None, cluster=None, sample=None):
    """The item-level table of the file at `path` as the scenario reads it (the arguments of
    :func:`~evalmc.inputs.itemlogs.read_items`), read once while the file stays: the audit
    reads the table the scenario fits. The table is shared: do not change it."""
    import os

    stat = os.stat(path)
    return _file_table(str(path), (stat.st_size, stat.st_mtime_ns, stat.st_ino), metric or None,
                       item or "item", model or None, cluster or None, sample or None)


@lru_cache(maxsize=2)
def _file_table(path: str, stamp: tuple, metric, item, model, cluster, sample):
    """:func:`~evalmc.inputs.nested.read_levels` of the file at `path` (nested clusters when
    `cluster` is ``'outer/inner'``), remembered while its size, time and inode (`stamp`) stay."""
    from evalmc.inputs.nested import read_levels

    return read_levels(path, metric=metric, item=item, model=model, cluster=cluster,
                       sample=sample)


@lru_cache(maxsize=16)
def _file_fit(path: str, stamp: tuple, metric, item, model, cluster, sample, a, b) -> ItemFit:
    """The fit of models `a` and `b` of the file at `path` (read with the other arguments),
    remembered while the file's size, time and inode (`stamp`) stay: every condition of a study
    is a scenario of its own, and each would read and fit the file again."""
    from evalmc.inputs.nested import split_levels

    table = _file_table(path, stamp, metric, item, model, cluster, sample)
    models = list(dict.fromkeys(table["model"]))
    for option, name in (("a", a), ("b", b)):
        if not name:
            raise ValueError(f"`{option}` is required: model {option.upper()}'s name; models "
                             f"of {path!r}: {', '.join(map(str, models))}.")
    if split_levels(cluster)[1] is not None:
        from evalmc.sims.itemmodel_nested import fit_nested

        return fit_nested(table, a, b)
    return fit_items(table, a, b)


def _item_grid(table, a: str, b: str):
    """A's and B's scores (items x samples) with items grouped by cluster (clusters in order
    of first appearance, items in the table's order within), and the cluster sizes."""
    pair = paired(table, a, b)
    if pair.a.shape[1] != pair.b.shape[1]:
        raise ValueError(f"`sample`: models {a!r} and {b!r} must have as many samples per "
                         f"item to be paired; they have {pair.a.shape[1]} and "
                         f"{pair.b.shape[1]}.")
    n = len(pair.items)
    if n < 2:
        raise ValueError(f"models {a!r} and {b!r} need at least 2 items in common; they have "
                         f"{n}.")
    has_clusters = table.attrs.get("cluster", "") is not None
    if has_clusters:
        index: dict = {}
        codes = np.array([index.setdefault(c, len(index)) for c in pair.clusters])
        order = np.argsort(codes, kind="stable")
        sizes = np.bincount(codes)
    else:
        order, sizes = np.arange(n), np.ones(n, dtype=np.int64)
    if sizes.max() == 1:
        sizes = np.ones(n, dtype=np.int64)
    return pair.a[order], pair.b[order], tuple(int(k) for k in sizes)


def _phi2(h: float, k: float, r: float) -> float:
    """``P(X < h, Y < k)`` for standard normals of correlation `r` (Owen 1956, with Owen's T
    function)."""
    from scipy.special import ndtr, owens_t

    h = h if abs(h) > 1e-12 else 1e-12
    k = k if abs(k) > 1e-12 else 1e-12
    root = np.sqrt((1 - r) * (1 + r))
    beta = 0.0 if h * k > 0 else 0.5
    return float(0.5 * ndtr(h) + 0.5 * ndtr(k) - owens_t(h, (k - r * h) / (h * root))
                 - owens_t(k, (h - r * k) / (k * root)) - beta)


def tetrachoric(p_x: float, p_y: float, p11: float) -> float:
    """The tetrachoric correlation: ``r`` with ``Phi2(Phi^-1(p_x), Phi^-1(p_y); r) = p11``, the
    nearest edge of (-1, 1) when `p11` is beyond reach."""
    from scipy.optimize import brentq
    from scipy.special import ndtri

    h, k = float(ndtri(p_x)), float(ndtri(p_y))
    low, high = -1 + _EDGE, 1 - _EDGE
    f_low, f_high = _phi2(h, k, low) - p11, _phi2(h, k, high) - p11
    if f_low >= 0:
        return low
    if f_high <= 0:
        return high
    return float(brentq(lambda r: _phi2(h, k, r) - p11, low, high, xtol=1e-12))


def _normal_scores(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Normal scores over the pooled scores (mid-ranks for ties)."""
    from scipy.special import ndtri
    from scipy.stats import rankdata

    pooled = np.concatenate([a.ravel(), b.ravel()])
    z = ndtri((rankdata(pooled) - 0.5) / pooled.size)
    return z[:a.size].reshape(a.shape), z[a.size:].reshape(b.shape)


def _pair_sums(x: np.ndarray, y: np.ndarray, sizes: np.ndarray, same: bool) -> dict:
    """Weighted sums of cross products over pairs, and their total weights, from totals: same
    item (different samples when `same`, any samples across models), and same cluster different
    items, each pair weighted ``1 / (n_g - 1)`` so that every item weighs alike (module
    docstring). `x`, `y` are items x samples."""
    n, s = x.shape
    kx, ky = x.sum(axis=1), y.sum(axis=1)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    cx, cy = np.add.reduceat(kx, starts), np.add.reduceat(ky, starts)
    own = np.add.reduceat(kx * ky, starts)
    item = float(own.sum())
    if same:
        item_sum, item_count = item - float((x * y).sum()), n * s * (s - 1)
    else:
        item_sum, item_count = item, n * s * s
    many = sizes > 1
    cluster_sum = float(((cx * cy - own)[many] / (sizes[many] - 1)).sum())
    cluster_count = s * s * int(sizes[many].sum())
    return {"item": (item_sum, item_count), "cluster": (cluster_sum, cluster_count)}


def _moments(a: np.ndarray, b: np.ndarray, binary: bool):
    """The scores the pair products are taken of (normal scores unless `binary`), and each
    model's mean and variance."""
    x, y = (a, b) if binary else _normal_scores(a, b)
    scale = {m: (float(u.mean()), float((u**2).mean() - u.mean() ** 2))
             for m, u in (("a", x), ("b", y))}
    return x, y, scale


def _pair_correlation(total: float, count: float, sx: tuple, sy: tuple, binary: bool) -> float:
    """The latent correlation of a mean cross product ``total / count`` of scores of means and
    variances `sx`, `sy`: tetrachoric when `binary`, else the product moment (NaN without
    pairs)."""
    if count == 0:
        return np.nan
    if binary:
        return tetrachoric(sx[0], sy[0], total / count)
    return (total / count - sx[0] * sy[0]) / np.sqrt(sx[1] * sy[1])


def _correlations(a: np.ndarray, b: np.ndarray, sizes: np.ndarray, binary: bool) -> dict:
    """The four latent correlations (NaN where there are no pairs)."""
    x, y, scale = _moments(a, b, binary)
    sums = {"a": _pair_sums(x, x, sizes, True), "b": _pair_sums(y, y, sizes, True),
            "ab": _pair_sums(x, y, sizes, False)}
    out = {}
    for key, where in (("samp", "item"), ("clu", "cluster")):
        values = [_pair_correlation(*sums[m][where], scale[m], scale[m], binary)
                  for m in ("a", "b")]
        out[f"r_{key}"] = float(np.mean(values))
    for key, where in (("ab", "item"), ("clu_ab", "cluster")):
        out[f"r_{key}"] = float(_pair_correlation(*sums["ab"][where], scale["a"], scale["b"],
                                                  binary))
    return out


def _centring_correction(r: dict, sizes: np.ndarray, s: int, clustered: bool) -> dict:
    """The correlations corrected for centring each model at its own mean: to first order
    every centred product is low by the variance of the mean, ``v`` (same model) or
    ``v_ab`` (across models), and the variance by ``v``, so ``r = r_hat (1 - v) + v``;
    ``v`` depends on the correlations, hence a few fixed-point steps. Correlations that are
    not identifiable are fixed: ``r_samp = 1`` with one sample, ``r_clu = r_clu_ab = 0``
    without clusters."""
    n = int(sizes.sum())
    pairs = float((sizes.astype(float) ** 2).sum()) * s * s  # same-cluster (item, sample) pairs
    total = float(n * s) ** 2
    fixed = {"r_samp": 1.0} if s == 1 else {}
    if not clustered:
        fixed.update(r_clu=0.0, r_clu_ab=0.0)
    hat = {**r, **fixed}
    cur = dict(hat)
    for _ in range(5):
        v = (pairs * cur["r_clu"] + s * s * n * (cur["r_samp"] - cur["r_clu"])
             + n * s * (1 - cur["r_samp"])) / total
        v_ab = (pairs * cur["r_clu_ab"] + s * s * n * (cur["r_ab"] - cur["r_clu_ab"])) / total
        cur = {"r_samp": hat["r_samp"] * (1 - v) + v, "r_clu": hat["r_clu"] * (1 - v) + v,
               "r_ab": hat["r_ab"] * (1 - v) + v_ab,
               "r_clu_ab": hat["r_clu_ab"] * (1 - v) + v_ab, **fixed}
    return cur


def fit_items(table, a: str, b: str) -> ItemFit:
    """Fit the latent Gaussian model (module docstring) to models `a` and `b` of an item
    `table` (:func:`~evalmc.inputs.itemlogs.read_items`); an :class:`ItemFit`."""
    from evalmc.inputs.itemlogs import COLUMNS

    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"`table` has no column {', '.join(missing)}; an item table has "
                         f"{', '.join(COLUMNS)}.")
    xa, xb, sizes = _item_grid(table, a, b)
    return fit_grid(xa, xb, sizes, names=(a, b))


def fit_grid(xa: np.ndarray, xb: np.ndarray, sizes, *, names=("A", "B")) -> ItemFit:
    """:func:`fit_items` on A's and B's scores as items x samples arrays, items grouped by
    cluster in clusters of `sizes` (`names` name the models in errors)."""
    a, b = names
    sizes = tuple(int(k) for k in sizes)
    n, s = xa.shape
    for option, name, x in (("a", a, xa), ("b", b, xb)):
        if np.ptp(x) == 0:
            raise ValueError(f"`{option}`: model {name!r} has the same score, {x.flat[0]:g}, "
                             f"on every item and sample; its scores carry no information on "
                             f"the model's structure.")
    pooled = np.sort(np.concatenate([xa.ravel(), xb.ravel()]))
    binary = bool(np.isin(pooled, (0.0, 1.0)).all())
    if binary:
        levels, cuts = np.array([0.0, 1.0]), np.array([0.0])
    else:
        from scipy.special import ndtri

        levels, first = np.unique(pooled, return_index=True)
        cuts = ndtri(first[1:] / pooled.size)
    sizes_arr = np.asarray(sizes, dtype=np.int64)
    clustered = bool(sizes_arr.max() > 1)
    r = _centring_correction(_correlations(xa, xb, sizes_arr, binary), sizes_arr, s,
                             clustered)
    raw = {"cluster": (r["r_clu"] + r["r_clu_ab"]) / 2,
           "interaction": (r["r_clu"] - r["r_clu_ab"]) / 2, "item": r["r_ab"] - r["r_clu_ab"]}
    raw["model_item"] = r["r_samp"] - r["r_clu"] - raw["item"]
    raw["sample"] = 1 - r["r_samp"]
    clipped = tuple(name for name in PARTS if raw[name] < 0)
    kept = {name: max(value, 0.0) for name, value in raw.items()}
    total = sum(kept.values())
    parts = {name: value / total for name, value in kept.items()}
    digest = hashlib.blake2b(np.ascontiguousarray(xa).tobytes()
                             + np.ascontiguousarray(xb).tobytes()
                             + np.asarray(sizes, dtype=np.int64).tobytes(),
                             digest_size=8).hexdigest()
    mean_a, mean_b = float(xa.mean()), float(xb.mean())
    fit = ItemFit(kind="binary" if binary else "continuous", mu_a=0.0, mu_b=0.0, **parts,
                  clipped=clipped, n_items=n, cluster_sizes=sizes, n_samples=s, levels=levels,
                  cuts=cuts, mean_a=mean_a, mean_b=mean_b, mean=float(pooled.mean()),
                  correlations={"r_samp": r["r_samp"] if s > 1 else np.nan,
                                "r_ab": r["r_ab"],
                                "r_clu": r["r_clu"] if clustered else np.nan,
                                "r_clu_ab": r["r_clu_ab"] if clustered else np.nan},
                  digest=digest)
    stats = item_statistics(xa.reshape(1, -1), xb.reshape(1, -1), sizes, s)
    object.__setattr__(fit, "observed", {k: float(v[0]) for k, v in stats.items()})
    object.__setattr__(fit, "mu_a", fit.latent_mean(mean_a, name="a"))
    object.__setattr__(fit, "mu_b", fit.latent_mean(mean_b, name="b"))
    return fit


def item_statistics(a, b, cluster_sizes, n_samples: int = 1) -> dict[str, np.ndarray]:
    """Per replication, the quantities of :data:`STATISTICS` that decide a paired test's error
    rates on item scores (means, discordance, ICC of the differences, within-item variance, ...)."""
    a = np.atleast_2d(np.asarray(a, dtype=float))
    b = np.atleast_2d(np.asarray(b, dtype=float))
    sizes = np.asarray(cluster_sizes, dtype=np.int64)
    reps, columns = a.shape
    s = check_int("n_samples", n_samples, low=1)
    if b.shape != a.shape or columns % s or columns // s != sizes.sum():
        raise ValueError(f"`a` and `b` must have the same shape, n_samples={s} scores for each "
                         f"of the {int(sizes.sum())} items of `cluster_sizes`; got {a.shape} "
                         f"and {b.shape}.")
    n, g = columns // s, len(sizes)
    ia, ib = a.reshape(reps, n, s), b.reshape(reps, n, s)
    ma, mb = ia.mean(axis=2), ib.mean(axis=2)
    out = {"mean_a": a.mean(axis=1), "mean_b": b.mean(axis=1),
           "discordance": np.abs(a - b).mean(axis=1)}
    nan = np.full(reps, np.nan)
    if g >= 2 and n > g:
        d = ma - mb
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        means = np.add.reduceat(d, starts, axis=1) / sizes
        grand = d.mean(axis=1, keepdims=True)
        msb = (sizes * (means - grand) ** 2).sum(axis=1) / (g - 1)
        msw = ((d - np.repeat(means, sizes, axis=1)) ** 2).sum(axis=1) / (n - g)
        n0 = (n - (sizes**2).sum() / n) / (g - 1)
        denom = msb + (n0 - 1) * msw
        with np.errstate(invalid="ignore", divide="ignore"):
            out["icc_diff"] = np.where(denom > 0, (msb - msw) / denom, np.nan)
    else:
        out["icc_diff"] = nan
    if s > 1:
        out["within_var"] = (ia.var(axis=2, ddof=1).mean(axis=1)
                             + ib.var(axis=2, ddof=1).mean(axis=1)) / 2
    else:
        out["within_var"] = nan.copy()
    ca, cb = ma - ma.mean(axis=1, keepdims=True), mb - mb.mean(axis=1, keepdims=True)
    den = np.sqrt((ca**2).sum(axis=1) * (cb**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        out["item_corr"] = np.where(den > 0, (ca * cb).sum(axis=1) / den, np.nan)
    return {name: out[name] for name in STATISTICS}


def layout(fit: ItemFit, n_items: int) -> tuple[int, ...]:
    """Cluster sizes of `n_items` items like the file's: the file's own for 0, else clusters of
    the file's mean cluster size (rounded half up), the last one holding the rest."""
    if n_items == 0:
        return fit.cluster_sizes
    k = max(1, int(np.floor(fit.n_items / len(fit.cluster_sizes) + 0.5)))
    sizes = [k] * (n_items // k)
    if n_items % k:
        sizes.append(n_items % k)
    return tuple(sizes)


@dataclass(frozen=True)
class ItemModel(Scenario, registered="item-model"):
    """Two models' item scores drawn from the latent model fitted to your own file.

    The file (read by :func:`~evalmc.inputs.itemlogs.read_items` with `metric`, `cluster` and
    `sample`) is fitted once (:func:`fit_items`, stored in ``fit``); each replication draws
    fresh clusters, items and samples whose expected scores differ by `delta`, their average the
    file's pooled mean (module docstring), at the latent means ``mu`` in clusters of
    ``cluster_sizes`` (:func:`layout`). With nested clusters, ``cluster='outer/inner'``, the
    fit has two cluster levels (:mod:`evalmc.sims.itemmodel_nested`) and the batches cluster
    at `level`. Parameters: the ``'item-model'`` row of :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from evalmc.sims.itemmodel import ItemModel
    >>> path = Path(tempfile.mkdtemp()) / "items.csv"
    >>> rows = [f"{m},q{i},{i % 3},{int((i * 7 + len(m) * i) % 5 < 3)}"
    ...         for m in ("base", "tuned") for i in range(12)]
    >>> _ = path.write_text("model,item,topic,score\\n" + "\\n".join(rows) + "\\n")
    >>> scenario = ItemModel(file=str(path), a="tuned", b="base", cluster="topic", delta=0.1)
    >>> scenario.truth, scenario.effect, scenario.cluster_sizes
    ('alternative', 0.1, (4, 4, 4))
    >>> batch = scenario.draw(np.random.default_rng(0), 3)
    >>> batch.a.shape, batch.cluster_sizes, batch.n_samples
    ((3, 12), (4, 4, 4), 1)
    """

    estimand: ClassVar[str] = "mean difference"
    batch: ClassVar[type] = ClusteredBatch
    fit: ItemFit = field(init=False, repr=False, compare=False)
    mu: tuple = field(init=False, repr=False, compare=False)
    cluster_sizes: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        import os
        from pathlib import Path

        check_float("delta", self.delta)
        n_items = check_int("n_items", self.n_items, low=0)
        if n_items == 1:
            raise ValueError("`n_items` must be 0 (the file's items) or at least 2; got 1.")
        object.__setattr__(self, "n_items", n_items)
        if not self.file:
            raise ValueError("`file` is required: item-level results of both models "
                             "(a CSV or JSON Lines table, an lm-evaluation-harness or inspect_ai "
                             "log).")
        if not Path(self.file).is_file():
            raise ValueError(f"`file` {self.file!r} is not a file.")
        check_choice("draws", self.draws, DRAWS)
        from evalmc.sims.itemmodel_nested import LEVELS, NestedFit

        check_choice("level", self.level, LEVELS)
        stat = os.stat(self.file)
        fit = _file_fit(str(self.file), (stat.st_size, stat.st_mtime_ns, stat.st_ino),
                        self.metric or None, self.item or "item", self.model or None,
                        self.cluster or None, self.sample or None, self.a, self.b)
        refit_index = check_int("refit", self.refit, low=0)
        check_int("refit_seed", self.refit_seed, low=0)
        if refit_index:  # a parametric bootstrap of the fit
            from evalmc.sims.itemrefits import refit

            fit = refit(fit, refit_index, self.refit_seed)
        object.__setattr__(self, "fit", fit)
        object.__setattr__(self, "mu", fit.latent_means(float(self.delta)))
        if isinstance(fit, NestedFit):  # two cluster levels: the file's layout, at `level`
            if n_items:
                raise ValueError(f"`n_items` must be 0 with nested clusters (cluster="
                                 f"{self.cluster!r}): they are drawn in the file's layout; "
                                 f"got {n_items}.")
            object.__setattr__(self, "cluster_sizes", fit.level_sizes(self.level))
        elif self.level != "outer":
            raise ValueError(f"`level` {self.level!r} needs nested clusters, cluster="
                             f"'outer/inner'; got cluster={self.cluster!r}.")
        else:
            object.__setattr__(self, "cluster_sizes", layout(fit, n_items))

    @property
    def truth(self) -> str:
        """``'null'`` when `delta` is 0, else ``'alternative'``."""
        return "null" if self.delta == 0 else "alternative"

    @property
    def effect(self) -> float:
        """A's expected score minus B's: `delta`."""
        return float(self.delta)

    @property
    def a_mean(self) -> float:
        """A's expected score: the file's pooled mean plus ``delta / 2``."""
        return float(self.fit.mean + self.delta / 2)

    @property
    def sizes(self) -> tuple[int, int]:
        """Scores per replication of each model: items times samples."""
        n = sum(self.cluster_sizes) * self.fit.n_samples
        return (n, n)

    @property
    def uses_cells(self) -> bool:
        """Whether :meth:`draw` gives the counts of item types (:class:`CellsBatch`): 0/1 scores,
        `draws` 'auto', and counts no more numerous than the scores."""
        if self.draws != "auto" or self.fit.kind != "binary":
            return False
        from evalmc.sims.itemmodel_nested import NestedFit

        if isinstance(self.fit, NestedFit):  # counts per subcluster, for one sample only
            return self.fit.n_samples == 1
        s, sizes = self.fit.n_samples, self.cluster_sizes
        groups = 1 if max(sizes) == 1 else len(sizes)
        return groups * len(cell_types(s)) <= sum(sizes) * s

    def draw(self, rng, n_reps):
        """Draw `n_reps` fresh sets of items: their counts of item types per cluster
        (:meth:`ItemFit.draw_cells`, a :class:`CellsBatch`) when :attr:`uses_cells`, else their
        scores (:meth:`ItemFit.draw_scores`)."""
        if self.uses_cells:
            nested = {"level": self.level} if self.level != "outer" else {}
            cells = self.fit.draw_cells(rng, n_reps, *self.mu, cluster_sizes=self.cluster_sizes,
                                        **nested)
            seeds = rng.integers(0, 2**63, n_reps)
            return CellsBatch(cells=cells, seeds=seeds, cluster_sizes=self.cluster_sizes,
                              n_samples=self.fit.n_samples)
        a, b = self.fit.draw_scores(rng, n_reps, *self.mu, cluster_sizes=self.cluster_sizes)
        return ClusteredBatch(a, b, paired=True, cluster_sizes=self.cluster_sizes,
                              n_samples=self.fit.n_samples)

    def fingerprint(self) -> str:
        """The parameters' fingerprint plus a digest of the scores read from the file."""
        return f"{super().fingerprint()}|scores={self.fit.digest}"


def faithfulness(scenario: ItemModel, rng, n_reps: int = 200, alpha: float = 0.05):
    """Each :func:`item_statistics` quantity of the file against `n_reps` data sets drawn from
    the fit itself, faithful within 4 sd of the simulated values (NaN on both sides counts);
    the ICC of the differences is also judged on the scale a test's size lives on
    (:func:`design_effect_band`): its column ``ratio`` is the simulated design effect over the
    observed one, and out of the band the fit is not faithful."""
    import pandas as pd

    n_reps = check_int("n_reps", n_reps, low=2)
    fit = scenario.fit
    a, b = fit.draw_scores(rng, n_reps, fit.mu_a, fit.mu_b)
    simulated = item_statistics(a, b, fit.cluster_sizes, fit.n_samples)
    band = design_effect_band(alpha)
    rows = []
    for name in STATISTICS:
        values = simulated[name]
        finite = values[np.isfinite(values)]
        mean = float(finite.mean()) if finite.size else np.nan
        sd = float(finite.std(ddof=1)) if finite.size > 1 else np.nan
        observed = fit.observed[name]
        if np.isnan(observed) and np.isnan(mean):
            faithful = True
        else:
            faithful = bool(abs(observed - mean) <= 4 * sd)
        ratio = np.nan
        if name == "icc_diff" and not np.isnan(observed):
            ratio = _design_effect_ratio(fit.cluster_sizes, mean, observed)
            faithful = faithful and bool(band[0] <= ratio <= band[1])
        rows.append({"quantity": name, "observed": observed, "simulated": mean,
                     "mcse": sd / np.sqrt(finite.size) if finite.size else np.nan, "sd": sd,
                     "ratio": ratio, "faithful": faithful})
    return pd.DataFrame(rows)


def design_effect_band(alpha: float = 0.05) -> tuple[float, float]:
    """The ratios of a mean difference's variance, true over assumed, that keep a z-test at
    level `alpha` inside Bradley's band ``[alpha / 2, 1.5 alpha]``: ``(z_(1-alpha/2) /
    z_(1-alpha/4))^2`` and ``(z_(1-alpha/2) / z_(1-3 alpha/4))^2``, (0.765, 1.212) at 0.05. A
    fit whose design effect is off by more than that moves a test's size out of the band."""
    from scipy.special import ndtri

    alpha = check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    z = ndtri(1 - alpha / 2)
    return float((z / ndtri(1 - alpha / 4)) ** 2), float((z / ndtri(1 - 0.75 * alpha)) ** 2)


def _design_effect_ratio(sizes, simulated: float, observed: float) -> float:
    """The design effect ``1 + (n_0 - 1) icc`` of the simulated ICC over the observed one,
    ``n_0`` the clusters' ANOVA mean size (infinite when the observed one is not positive)."""
    sizes = np.asarray(sizes, dtype=float)
    n, g = sizes.sum(), len(sizes)
    n0 = (n - (sizes**2).sum() / n) / (g - 1)
    sim, obs = 1 + (n0 - 1) * simulated, 1 + (n0 - 1) * observed
    return float(sim / obs) if obs > 0 else np.inf
