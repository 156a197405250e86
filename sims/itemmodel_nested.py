"""The item model of :mod:`evalmc.sims.itemmodel` with two nested cluster levels.

Items in subclusters (subjects) within clusters (categories), read with
``cluster='outer/inner'`` (:func:`~evalmc.inputs.nested.read_levels`). Model ``m`` on item
``i`` of subcluster ``h`` of cluster ``g``, sample ``s``, has, on the latent scale of one
score's variance 1,

    z = mu_m + c_g (+/-) u_g / 2 + c_h (+/-) u_h / 2 + e_i + v_mi + w_mis

the one-level model with a second pair of random effects: ``c_h`` the subcluster's difficulty
(variance ``subcluster``) and ``u_h / 2`` its advantage of one model (``sub_interaction``),
independent of the cluster's; the seven variances sum to 1.

**Fit (moments).** Six latent correlations identify them, each estimated from pair sums of the
per-item, per-subcluster and per-cluster totals, as in the one-level fit (tetrachoric for 0/1
scores, product moments of normal scores otherwise, corrected to first order for centring):

    r_samp   (same model, same item, two samples)                  = all but sample
    r_ab     (A vs B, same item)                    = cluster - interaction + subcluster
                                                      - sub_interaction + item
    r_sub    (same model, same subcluster, different items)  = cluster + interaction
                                                               + subcluster + sub_interaction
    r_sub_ab (A vs B, same subcluster, different items)      = cluster - interaction
                                                               + subcluster - sub_interaction
    r_clu    (same model, same cluster, different subclusters) = cluster + interaction
    r_clu_ab (A vs B, same cluster, different subclusters)     = cluster - interaction

A cluster with a single subcluster gives no pairs to ``r_clu``; a fit needs two subclusters in
some cluster and two items in some subcluster. As in the one-level fit, pairs weigh items as
the models' means do: a pair of subcluster ``h`` weighs ``1 / (m_h - 1)`` (``m_h`` its items),
a pair of an item of subcluster ``h`` of cluster ``g`` with one of another of its subclusters
``1 / (n_g - m_h)`` (``n_g`` the cluster's items), averaged over the two orders across models;
weighting every pair alike would let the largest clusters dominate a correlation centred at
an item-weighted mean, and bias it down when sizes are very unequal. A negative variance is
set to 0 and named in ``clipped``, and the seven are divided by their sum.

**Draws.** Each replication draws fresh clusters, subclusters, items and samples in the file's
layout (the number of items of every subcluster kept; a nested fit draws no other layout). The
batch clusters at the outer level (``level='outer'``, what cluster-robust procedures cluster
on) or at the inner one (``level='inner'``), from the same law: only the clusters a procedure
reads differ. 0/1 scores with one sample per item are drawn as counts of item types per
subcluster (one multinomial each, given its effects, as :meth:`ItemFit.draw_cells` does per
cluster), summed per cluster at the outer level; with several samples every score is drawn.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from evalmc.sims.itemmodel import (
    ItemFit,
    _moments,
    _pair_correlation,
    bivariate_cells,
    item_statistics,
    paired,
)

#: The seven latent variances of the nested model, in order.
NESTED_PARTS = ("cluster", "interaction", "subcluster", "sub_interaction", "item",
                "model_item", "sample")
#: The levels a nested item model's batches can cluster at.
LEVELS = ("outer", "inner")


@dataclass(frozen=True, eq=False)
class NestedFit(ItemFit):
    """:class:`~evalmc.sims.itemmodel.ItemFit` with a second, inner cluster level: its two
    variances and the items of each subcluster (``subcluster_sizes``, in order, clusters'
    subclusters consecutive; ``per_cluster`` subclusters per cluster)."""

    subcluster: float = 0.0
    sub_interaction: float = 0.0
    subcluster_sizes: tuple = ()
    per_cluster: tuple = ()

    @property
    def variances(self) -> dict[str, float]:
        """The seven latent variances by name."""
        return {name: getattr(self, name) for name in NESTED_PARTS}

    def level_sizes(self, level: str) -> tuple:
        """Items per cluster at `level` ('outer': the clusters, 'inner': the subclusters)."""
        return self.cluster_sizes if level == "outer" else self.subcluster_sizes

    def _effects(self, rng, n_reps):
        """Per replication and subcluster, the shared difficulty and A's advantage (half the
        model x cluster and model x subcluster effects), cluster and subcluster parts summed."""
        g, h = len(self.cluster_sizes), len(self.subcluster_sizes)
        per = np.asarray(self.per_cluster, dtype=np.int64)
        shared = np.repeat(rng.standard_normal((n_reps, g)) * np.sqrt(self.cluster), per, axis=1)
        favour = np.repeat(rng.standard_normal((n_reps, g)) * np.sqrt(self.interaction), per,
                           axis=1)
        shared = shared + rng.standard_normal((n_reps, h)) * np.sqrt(self.subcluster)
        favour = favour + rng.standard_normal((n_reps, h)) * np.sqrt(self.sub_interaction)
        return shared, favour

    def draw_scores(self, rng, n_reps: int, mu_a: float, mu_b: float,
                    cluster_sizes=None) -> tuple[np.ndarray, np.ndarray]:
        """Scores ``(a, b)`` of `n_reps` fresh sets of items in the file's nested layout (shape
        (n_reps, items * n_samples), an item's samples consecutive)."""
        _check_layout(self, cluster_sizes)
        sizes = np.asarray(self.subcluster_sizes, dtype=np.int64)
        n, s = int(sizes.sum()), self.n_samples
        shared, favour = self._effects(rng, n_reps)
        shared = np.repeat(shared, sizes, axis=1) + rng.standard_normal((n_reps, n)) \
            * np.sqrt(self.item)
        favour = np.repeat(favour, sizes, axis=1)
        own = rng.standard_normal((2, n_reps, n)) * np.sqrt(self.model_item)
        scores = []
        for mu, sign, effect in ((mu_a, 1.0, own[0]), (mu_b, -1.0, own[1])):
            z = rng.standard_normal((n_reps, n, s))
            z *= np.sqrt(self.sample)
            z += (mu + shared + sign * favour + effect)[:, :, None]
            scores.append(self.score(z.reshape(n_reps, n * s)))
        return scores[0], scores[1]

    def draw_cells(self, rng, n_reps: int, mu_a: float, mu_b: float, cluster_sizes=None,
                   level: str = "outer") -> np.ndarray:
        """0/1 scores' counts of item types, one sample per item: a multinomial draw per
        subcluster given its effects, summed per cluster at `level` 'outer'; shape (n_reps,
        clusters at `level`, 4) (one group of all the items when each is its own cluster)."""
        _check_layout(self, cluster_sizes)
        if self.n_samples != 1:
            raise ValueError("a nested fit draws counts of item types for one sample per item "
                             f"only; it has {self.n_samples}.")
        shared, favour = self._effects(rng, n_reps)
        within = self.item + self.model_item + self.sample
        p = bivariate_cells(mu_a + shared + favour, mu_b + shared - favour, within, self.item)
        cells = rng.multinomial(np.asarray(self.subcluster_sizes, dtype=np.int64), p)
        sizes = self.level_sizes(level)
        if max(sizes) == 1:
            return cells.sum(axis=1, keepdims=True)
        if level == "inner":
            return cells
        starts = np.concatenate([[0], np.cumsum(self.per_cluster)[:-1]])
        return np.add.reduceat(cells, starts, axis=1)


def _check_layout(fit: NestedFit, cluster_sizes) -> None:
    """Refuse a layout other than the file's: a nested fit draws the file's own."""
    if cluster_sizes is not None and tuple(cluster_sizes) not in (
            fit.cluster_sizes, fit.subcluster_sizes):
        raise ValueError("a nested item model draws the file's own clusters and subclusters "
                         "(`n_items` 0).")


def nested_grid(table, a: str, b: str):
    """A's and B's scores (items x samples), items grouped by cluster then subcluster (each in
    order of first appearance), the items per cluster and per subcluster, and the subclusters
    per cluster."""
    import pandas as pd

    pair = paired(table, a, b)
    if pair.a.shape[1] != pair.b.shape[1]:
        raise ValueError(f"`sample`: models {a!r} and {b!r} must have as many samples per "
                         f"item to be paired; they have {pair.a.shape[1]} and "
                         f"{pair.b.shape[1]}.")
    if len(pair.items) < 2:
        raise ValueError(f"models {a!r} and {b!r} need at least 2 items in common; they have "
                         f"{len(pair.items)}.")
    inner_of = table.drop_duplicates("item").set_index("item")["subcluster"]
    outer = pd.factorize(pd.Series(pair.clusters, dtype=str))[0]
    inner = pd.factorize(pd.Series(list(zip(pair.clusters, inner_of.reindex(pair.items),
                                            strict=True))))[0]
    order = np.lexsort((inner, outer))
    sub_sizes = np.bincount(inner[order], minlength=inner.max() + 1)
    sub_sizes = sub_sizes[pd.unique(inner[order])]
    sizes = np.bincount(outer)
    per = np.array([len(set(inner[outer == g])) for g in range(len(sizes))])
    return (pair.a[order], pair.b[order], tuple(int(k) for k in sizes),
            tuple(int(k) for k in sub_sizes), tuple(int(k) for k in per))


def _level_sums(x, y, sub_sizes, sizes, same: bool) -> dict:
    """Weighted sums of cross products over pairs and their total weights (module docstring):
    same item (different samples when `same`), same subcluster different items, same cluster
    different subclusters."""
    n, s = x.shape
    kx, ky = x.sum(axis=1), y.sum(axis=1)

    def totals(k, group_sizes):
        return np.add.reduceat(k, np.concatenate([[0], np.cumsum(group_sizes)[:-1]]))

    own = totals(kx * ky, sub_sizes)
    item = float(own.sum())
    if same:
        item_pair = (item - float((x * y).sum()), n * s * (s - 1))
    else:
        item_pair = (item, n * s * s)
    sx, sy = totals(kx, sub_sizes), totals(ky, sub_sizes)
    many = sub_sizes > 1
    sub = float(((sx * sy - own)[many] / (sub_sizes[many] - 1)).sum())
    per = np.searchsorted(np.cumsum(sizes), np.cumsum(sub_sizes) - 1, side="right")
    others = sizes[per] - sub_sizes  # items of the other subclusters of each one's cluster
    gx, gy = totals(kx, sizes)[per] - sx, totals(ky, sizes)[per] - sy
    rest = others > 0
    clu = float(((sx * gy + sy * gx)[rest] / (2 * others[rest])).sum())
    return {"item": item_pair, "sub": (sub, s * s * int(sub_sizes[many].sum())),
            "clu": (clu, s * s * int(sub_sizes[rest].sum()))}


def _nested_correlations(a, b, sub_sizes, sizes, binary: bool) -> dict:
    """The six latent correlations (NaN where there are no pairs)."""
    x, y, scale = _moments(a, b, binary)
    sums = {m: _level_sums(u, v, sub_sizes, sizes, m != "ab")
            for m, u, v in (("a", x, x), ("b", y, y), ("ab", x, y))}
    out = {}
    for key, where in (("samp", "item"), ("sub", "sub"), ("clu", "clu")):
        out[f"r_{key}"] = float(np.mean([_pair_correlation(*sums[m][where], scale[m], scale[m],
                                                           binary) for m in ("a", "b")]))
    for key, where in (("ab", "item"), ("sub_ab", "sub"), ("clu_ab", "clu")):
        out[f"r_{key}"] = float(_pair_correlation(*sums["ab"][where], scale["a"], scale["b"],
                                                  binary))
    return out


def _nested_centring(r: dict, sub_sizes, sizes, s: int) -> dict:
    """The correlations corrected for centring each model at its own mean, ``r = r_hat (1 - v)
    + v`` (``v_ab`` across models), ``v`` the variance of a model's mean under the
    correlations (a few fixed-point steps); ``r_samp`` is 1 with one sample."""
    n = int(sizes.sum())
    clu_pairs = float((sizes.astype(float)**2).sum() - (sub_sizes.astype(float)**2).sum())
    sub_pairs = float((sub_sizes.astype(float)**2).sum() - n)
    total = float(n * s) ** 2
    fixed = {"r_samp": 1.0} if s == 1 else {}
    hat = {**r, **fixed}
    cur = dict(hat)
    for _ in range(5):
        v = (s * s * (clu_pairs * cur["r_clu"] + sub_pairs * cur["r_sub"])
             + n * s * (s - 1) * cur["r_samp"] + n * s) / total
        v_ab = s * s * (clu_pairs * cur["r_clu_ab"] + sub_pairs * cur["r_sub_ab"]
                        + n * cur["r_ab"]) / total
        cur = {**{k: hat[k] * (1 - v) + v for k in ("r_samp", "r_sub", "r_clu")},
               **{k: hat[k] * (1 - v) + v_ab for k in ("r_ab", "r_sub_ab", "r_clu_ab")},
               **fixed}
    return cur


def fit_nested(table, a: str, b: str) -> NestedFit:
    """Fit the nested model (module docstring) to models `a` and `b` of a table with a
    ``subcluster`` column (:func:`~evalmc.inputs.nested.read_levels`).

    Parameters
    ----------
    table : DataFrame
        Item-level results with nested clusters.
    a, b : str
        The two models.

    Returns
    -------
    NestedFit

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> rows = []
    >>> for g in range(6):
    ...     c = rng.normal(0, 0.6)
    ...     for h in range(4):
    ...         d = c + rng.normal(0, 0.4)
    ...         for i in range(10):
    ...             e = d + rng.normal(0, 0.6)
    ...             rows += [(m, f"{g}.{h}.{i}", 0, f"c{g}", float(e + rng.normal() > 0), f"s{h}")
    ...                      for m in "xy"]
    >>> table = pd.DataFrame(rows, columns=["model", "item", "sample", "cluster", "score",
    ...                                     "subcluster"])
    >>> fit = fit_nested(table, "x", "y")
    >>> fit.cluster_sizes, fit.per_cluster
    ((40, 40, 40, 40, 40, 40), (4, 4, 4, 4, 4, 4))
    >>> {k: round(v, 2) for k, v in fit.variances.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'cluster': 0.16, 'interaction': 0.0, 'subcluster': 0.04, 'sub_interaction': 0.0,
     'item': 0.23, 'model_item': 0.57, 'sample': 0.0}
    """
    if "subcluster" not in table.columns:
        raise ValueError("`table` has no column subcluster; read it with nested clusters, "
                         "cluster='outer/inner' (evalmc.inputs.nested.read_levels).")
    return fit_nested_grid(*nested_grid(table, a, b), names=(a, b))


def fit_nested_grid(xa: np.ndarray, xb: np.ndarray, sizes, sub_sizes, per, *,
                    names=("A", "B")) -> NestedFit:
    """:func:`fit_nested` on A's and B's scores as items x samples arrays, items grouped by
    cluster then subcluster, `sizes` items per cluster, `sub_sizes` per subcluster, `per`
    subclusters per cluster (`names` name the models in errors)."""
    from scipy.special import ndtri

    a, b = names
    sizes, sub_sizes, per = (tuple(int(k) for k in x) for x in (sizes, sub_sizes, per))
    n, s = xa.shape
    for option, name, x in (("a", a, xa), ("b", b, xb)):
        if np.ptp(x) == 0:
            raise ValueError(f"`{option}`: model {name!r} has the same score, {x.flat[0]:g}, "
                             f"on every item and sample; its scores carry no information on "
                             f"the model's structure.")
    sizes_arr, sub_arr = np.asarray(sizes, np.int64), np.asarray(sub_sizes, np.int64)
    if max(per) < 2 or sub_arr.max() < 2:
        raise ValueError("`cluster`: nested clusters need some cluster with two subclusters "
                         f"and some subcluster with two items; the largest cluster has "
                         f"{max(per)} subcluster(s), the largest subcluster {sub_arr.max()} "
                         "item(s).")
    pooled = np.sort(np.concatenate([xa.ravel(), xb.ravel()]))
    binary = bool(np.isin(pooled, (0.0, 1.0)).all())
    if binary:
        levels, cuts = np.array([0.0, 1.0]), np.array([0.0])
    else:
        levels, first = np.unique(pooled, return_index=True)
        cuts = ndtri(first[1:] / pooled.size)
    r = _nested_centring(_nested_correlations(xa, xb, sub_arr, sizes_arr, binary), sub_arr,
                         sizes_arr, s)
    raw = {"cluster": (r["r_clu"] + r["r_clu_ab"]) / 2,
           "interaction": (r["r_clu"] - r["r_clu_ab"]) / 2}
    raw["subcluster"] = (r["r_sub"] + r["r_sub_ab"]) / 2 - raw["cluster"]
    raw["sub_interaction"] = (r["r_sub"] - r["r_sub_ab"]) / 2 - raw["interaction"]
    raw["item"] = r["r_ab"] - r["r_sub_ab"]
    raw["model_item"] = r["r_samp"] - r["r_sub"] - raw["item"]
    raw["sample"] = 1 - r["r_samp"]
    clipped = tuple(name for name in NESTED_PARTS if raw[name] < 0)
    kept = {name: max(raw[name], 0.0) for name in NESTED_PARTS}
    total = sum(kept.values())
    parts = {name: value / total for name, value in kept.items()}
    digest = hashlib.blake2b(np.ascontiguousarray(xa).tobytes()
                             + np.ascontiguousarray(xb).tobytes()
                             + sizes_arr.tobytes() + sub_arr.tobytes(),
                             digest_size=8).hexdigest()
    mean_a, mean_b = float(xa.mean()), float(xb.mean())
    fit = NestedFit(kind="binary" if binary else "continuous", mu_a=0.0, mu_b=0.0, **parts,
                    clipped=clipped, n_items=n, cluster_sizes=sizes, n_samples=s,
                    levels=levels, cuts=cuts, mean_a=mean_a, mean_b=mean_b,
                    mean=float(pooled.mean()),
                    correlations={k: (v if k != "r_samp" or s > 1 else np.nan)
                                  for k, v in r.items()},
                    digest=digest, subcluster_sizes=sub_sizes, per_cluster=per)
    stats = item_statistics(xa.reshape(1, -1), xb.reshape(1, -1), sizes, s)
    object.__setattr__(fit, "observed", {k: float(v[0]) for k, v in stats.items()})
    object.__setattr__(fit, "mu_a", fit.latent_mean(mean_a, name="a"))
    object.__setattr__(fit, "mu_b", fit.latent_mean(mean_b, name="b"))
    return fit
