"""Two language models scored on the same n questions (items), which may come in clusters.

Item ``i`` of cluster ``g`` has difficulty ``d_i = c_g + e_i`` on a probit scale, with
``c_g ~ N(0, icc sd^2)`` shared by the cluster's items (passages, subjects, templates) and
``e_i ~ N(0, (1 - icc) sd^2)``. A cluster also favours one model: ``u_g ~ N(0, tau^2)``
(`tau`, the model x cluster interaction) adds ``u_g / 2`` to A's skill and takes it from B's.
Model m answers correctly when ``skill_m +- u_g / 2 - d_i + eps_mi > 0``, where
``(eps_ai, eps_bi)`` are standard normal with correlation `rho` (how alike the two models'
item-level luck is). Each replication draws a fresh set of items, so the estimand is the
accuracy over the population of items, ``Phi(skill_m / sqrt(sd^2 + 1 + tau^2 / 4))``; equal
skills are the null (u is symmetric, so it favours neither model on average). Difficulty
clusters move both models together; only `tau` makes the per-item differences of one cluster
alike, which is what a paired test that ignores clusters gets wrong.

Repeated samples (`n_samples` scores per item, generations at a temperature above 0): the
item-level noise is ``eps_mis = sqrt(persistence) eta_mi + sqrt(1 - persistence) xi_mis``,
where ``(eta_ai, eta_bi)`` is fixed per item (standard normal, correlation `rho`) and
``xi_mis`` is standard normal, redrawn for every sample and independent across models (sample
``s`` of A and sample ``s`` of B share nothing but their item). One score then still has
unit-variance noise; with ``persistence = 1`` the samples of an item repeat its score, and
with one sample and ``persistence = 1`` the draws are those of the one-sample scenario. The
correlation of the two models' noise on one sample is ``rho * persistence``.

The scores are 0/1 per item and sample (``scores='correct'``), or the latent value
``skill_m +- u_g / 2 - d_i + eps_mis`` itself (``scores='latent'``, a continuous score like a
log-probability); for latent scores the population mean of A minus B (:attr:`Items.effect`) is
the latent mean difference ``skill_a + shift - skill_b``. The batch holds them
(``Batch.a``, ``Batch.b``, paired by item) item by item, samples of an item in consecutive
columns, items ordered by cluster, clusters of equal size (`n_items` / `n_clusters`, in
``Batch.cluster_sizes``).

On the standardised latent scale (one score's latent variance 1, ``T = sd^2 + tau^2 / 4 + 1``)
the scenario is the model of :mod:`evalmc.sims.itemmodel` with the variances
``cluster = icc sd^2 / T``, ``interaction = tau^2 / 4 / T``,
``item = ((1 - icc) sd^2 + rho persistence) / T``, ``model_item = persistence (1 - rho) / T``
and ``sample = (1 - persistence) / T`` (:meth:`Items.variances`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np

from evalmc.inputs.checks import check_choice, check_float, check_int, check_sd, population_sum
from evalmc.sims.base import Batch, Scenario, read_only

#: What `llm-items` scores: correctness (0/1) or the latent value itself.
SCORES = ("correct", "latent")


class ClusteredBatch(Batch):
    """Paired item scores, items in consecutive clusters (`cluster_size`, or `cluster_sizes`),
    each item answered `n_samples` times.

    ``a`` and ``b`` hold each item's mean score over its samples, so every criterion reads one
    score per item; ``samples`` holds the samples themselves (:func:`sample_scores`). Given
    `n_samples` above 1 and no `samples`, `a` and `b` are the samples, item by item.
    """

    holds = Batch.holds | {"clusters", "samples"}
    per_rep = ("samples",)
    shared = ("cluster_sizes", "n_samples")

    def __init__(self, a=None, b=None, *, cluster_size: int | None = None,
                 cluster_sizes=None, n_samples: int = 1, samples=None, **kwargs):
        if n_samples < 1:
            raise ValueError(f"`n_samples` must be at least 1; got {n_samples}.")
        if samples is None and n_samples > 1:
            a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
            if a.shape != b.shape or a.shape[1] % n_samples:
                raise ValueError(f"`n_samples` must divide the columns of A and of B, "
                                 f"{a.shape[1]} and {b.shape[1]}; got {n_samples}.")
            samples = (a, b)
            a = a.reshape(a.shape[0], -1, n_samples).mean(axis=2)
            b = b.reshape(b.shape[0], -1, n_samples).mean(axis=2)
        super().__init__(a, b, **kwargs)
        items = self.sizes[0]
        if (cluster_size is None) == (cluster_sizes is None):
            raise ValueError("give one of `cluster_size` and `cluster_sizes`.")
        if cluster_sizes is None:
            if cluster_size < 1 or items % cluster_size:
                raise ValueError(f"`cluster_size` must divide the number of items, {items}; "
                                 f"got {cluster_size}.")
            cluster_sizes = (cluster_size,) * (items // cluster_size)
        cluster_sizes = tuple(int(k) for k in cluster_sizes)
        if min(cluster_sizes, default=0) < 1 or sum(cluster_sizes) != items \
                or self.sizes[1] != items:
            raise ValueError(f"`cluster_sizes` must be positive and sum to the items of A and "
                             f"of B, {self.sizes}; got {sum(cluster_sizes)}.")
        self.cluster_sizes = cluster_sizes
        self.n_samples = int(n_samples)
        self.samples = read_only(samples)


def cluster_sizes(batch: Batch) -> np.ndarray:
    """Items per cluster of `batch`, in order: its ``cluster_sizes``, all 1 when its columns are
    independent items."""
    if isinstance(batch, ClusteredBatch):
        return np.array(batch.cluster_sizes, dtype=np.int64)
    return np.ones(batch.sizes[0], dtype=np.int64)


@lru_cache(maxsize=32)
def cell_types(n_samples: int) -> np.ndarray:
    """The types of an item of `n_samples` paired 0/1 samples: every ``(n11, n10, n01, n00)``
    (samples both models got right, only A, only B, neither) summing to `n_samples`, in a fixed
    order, shape (types, 4) (cached, read-only). One sample: neither, B only, A only, both."""
    s = check_int("n_samples", n_samples, low=1)
    rows = [(n11, n10, n01, s - n11 - n10 - n01) for n11 in range(s + 1)
            for n10 in range(s + 1 - n11) for n01 in range(s + 1 - n11 - n10)]
    types = np.array(rows, dtype=np.int64)
    types.flags.writeable = False
    return types


class CellsBatch(ClusteredBatch):
    """Paired 0/1 item scores held as their sufficient statistic: per replication and cluster,
    the number of items of each type (:func:`cell_types`).

    Criteria on 0/1 item scores read ``cells`` (:func:`type_counts`, :func:`group_counts`); the
    scores themselves (``a``, ``b``, ``samples``) are drawn from the counts only when asked for,
    from their exact conditional law: the items of a cluster in a uniformly random order, an
    item's samples in a uniformly random order, each replication from its own ``seeds`` entry.
    ``cells`` has shape (n_reps, groups, types), the groups being the clusters or, when every
    cluster is one item (``exchangeable``), a single group of all the items.
    """

    per_rep = ("cells", "seeds")

    def __init__(self, a=None, b=None, *, cells, seeds, cluster_sizes, n_samples: int = 1,
                 paired: bool = True, moments=None, diff_moments=None, fill=None, sizes=None):
        sizes_ = tuple(int(k) for k in cluster_sizes)
        n = sum(sizes_)
        self.cluster_sizes, self.n_samples = sizes_, int(n_samples)
        self.exchangeable = max(sizes_) == 1
        cells = np.asarray(cells)
        groups = 1 if self.exchangeable else len(sizes_)
        types = len(cell_types(self.n_samples))
        if cells.ndim != 3 or cells.shape[1:] != (groups, types):
            raise ValueError(f"`cells` must have shape (n_reps, {groups}, {types}); got "
                             f"{cells.shape}.")
        self.cells, self.seeds = read_only(cells), read_only(np.asarray(seeds))
        self._totals = None
        Batch.__init__(self, paired=True, moments=moments, diff_moments=diff_moments,
                       fill=self._scores, sizes=(n, n))

    @property
    def n_reps(self) -> int:
        """Replications: rows of ``cells``."""
        return self.cells.shape[0]

    @property
    def samples(self):
        """A's and B's scores sample by sample, ``(n_reps, items * n_samples)`` each (None for
        one sample per item), drawn from the counts on first use."""
        self._materialize()
        return self._samples

    def _materialize(self):
        if self._a is None:
            self._samples = read_only(scores_from_cells(self.cells, self.seeds,
                                                        self.cluster_sizes, self.n_samples))
            a, b = self._samples
            s = self.n_samples
            self._a, self._b = (read_only(x.reshape(x.shape[0], -1, s).mean(axis=2))
                                for x in (a, b))
            if s == 1:
                self._samples = None

    def _scores(self):  # pragma: no cover - _materialize fills in its place
        self._materialize()
        return self._a, self._b

    def moments(self):
        """``(mean_a, var_a, mean_b, var_b)`` of the item means, from the counts."""
        if self._moments is None:
            types = cell_types(self.n_samples)
            s = self.n_samples
            counts = type_counts(self)
            self._moments = read_only((*_type_mean_var(counts, (types[:, 0] + types[:, 1]) / s),
                                       *_type_mean_var(counts, (types[:, 0] + types[:, 2]) / s)))
        return self._moments

    def diff_moments(self):
        """``(mean, var)`` of the items' ``a - b``, from the counts."""
        if self._diff_moments is None:
            types = cell_types(self.n_samples)
            self._diff_moments = read_only(_type_mean_var(
                type_counts(self), (types[:, 1] - types[:, 2]) / self.n_samples))
        return self._diff_moments

    def rows(self, start: int, stop: int) -> CellsBatch:
        """Replications ``start:stop``, their scores still drawn only when asked for."""
        return type(self)(cells=self.cells[start:stop], seeds=self.seeds[start:stop],
                          cluster_sizes=self.cluster_sizes, n_samples=self.n_samples)


def _type_mean_var(counts: np.ndarray, values: np.ndarray):
    """Mean and unbiased variance per row of items counted by type (`counts`, `values` a type's
    value), in two passes over the types."""
    n = counts.sum(axis=1)
    mean = counts @ values / n
    with np.errstate(divide="ignore", invalid="ignore"):
        var = (counts * (values[None, :] - mean[:, None]) ** 2).sum(axis=1) / (n - 1)
    return mean, var


def type_counts(batch: Batch) -> np.ndarray | None:
    """Items of each type (:func:`cell_types`) per replication of a :class:`CellsBatch`, shape
    (n_reps, types); None for any other batch (whose criteria read the scores)."""
    if not isinstance(batch, CellsBatch):
        return None
    if batch._totals is None:
        batch._totals = read_only(batch.cells.sum(axis=1))
    return batch._totals


def group_counts(batch: CellsBatch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The clusters of each replication as ``(counts, sizes, multiplicity)``: items of each type
    per distinct cluster (n_reps, clusters, types), its items, and how many clusters are
    alike; every cluster its own row, or for clusters of one item, one row per type."""
    if batch.exchangeable:
        types = len(cell_types(batch.n_samples))
        counts = np.broadcast_to(np.eye(types, dtype=np.int64), (batch.n_reps, types, types))
        return counts, np.ones(types, dtype=np.int64), batch.cells[:, 0, :]
    sizes = np.array(batch.cluster_sizes, dtype=np.int64)
    return batch.cells, sizes, np.ones((batch.n_reps, len(sizes)), dtype=np.int64)


def scores_from_cells(cells, seeds, cluster_sizes, n_samples: int):
    """Sample-level 0/1 scores ``(a, b)``, shape (n_reps, items * n_samples), drawn from item
    counts by type (:class:`CellsBatch`): items in a random order within their cluster, an
    item's samples in a random order, replication ``r`` from ``default_rng(seeds[r])``."""
    cells = np.asarray(cells)
    sizes = np.asarray(cluster_sizes, dtype=np.int64)
    s, n = int(n_samples), int(sizes.sum())
    types = cell_types(s)
    # each type's samples in canonical order, coded 2 * a + b: both, A only, B only, neither
    pattern = np.stack([np.repeat([3, 2, 1, 0], t) for t in types])
    group = np.zeros(n, dtype=np.int64) if cells.shape[1] == 1 else np.repeat(
        np.arange(len(sizes)), sizes)
    a = np.empty((cells.shape[0], n * s))
    b = np.empty((cells.shape[0], n * s))
    for r in range(cells.shape[0]):
        rng = np.random.default_rng(int(seeds[r]))
        kinds = np.repeat(np.tile(np.arange(len(types)), cells.shape[1]), cells[r].ravel())
        kinds = kinds[np.lexsort((rng.random(n), group))]
        codes = pattern[kinds]
        if s > 1:
            codes = rng.permuted(codes, axis=1)
        a[r] = (codes >> 1).ravel()
        b[r] = (codes & 1).ravel()
    return a, b


def sample_scores(batch: Batch) -> tuple[np.ndarray, np.ndarray]:
    """A's and B's scores sample by sample, ``(n_reps, n_items, n_samples)`` each (one sample per
    item for plain scores)."""
    samples = getattr(batch, "samples", None)
    if samples is None:
        return (np.asarray(batch.a, dtype=float)[:, :, None],
                np.asarray(batch.b, dtype=float)[:, :, None])
    s = batch.n_samples
    return tuple(np.asarray(x).reshape(x.shape[0], -1, s) for x in samples)


@dataclass(frozen=True)
class Items(Scenario, registered="llm-items"):
    """Two models' correctness on the same items, clustered (LLM evaluation).

    Each replication draws `n_items` fresh items, in `n_clusters` clusters of correlated
    difficulty and model advantage (module docstring), each scored `n_samples` times; the scores
    are 0/1 (or latent values: `scores`), paired by item. Parameters: the ``'llm-items'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.items import Items
    >>> scenario = Items(n_items=100, n_clusters=10)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, batch.cluster_sizes[0], scenario.truth
    ((2, 100), 10, 'null')
    >>> batch.a.mean(axis=1).tolist()
    [0.57, 0.68]
    """

    estimand: ClassVar[str] = "mean difference"
    batch: ClassVar[type] = ClusteredBatch

    def __post_init__(self):
        n = check_int("n_items", self.n_items, low=2)
        g = check_int("n_clusters", self.n_clusters, low=0)
        if g and (g < 2 or n % g):
            raise ValueError(f"`n_clusters` must be 0, or at least 2 and divide `n_items`; got "
                             f"n_clusters={g}, n_items={n}.")
        object.__setattr__(self, "n_items", n)
        object.__setattr__(self, "n_clusters", g)
        check_float("icc", self.icc, low=0, high=1, open_high=True)
        check_sd("sd", self.sd)
        check_sd("tau", self.tau, zero=True)
        for name in ("skill_a", "skill_b", "shift"):
            check_float(name, getattr(self, name))
        check_float("rho", self.rho, low=-1, high=1, open_low=True, open_high=True)
        population_sum("A's skill", {"skill_a": self.skill_a, "shift": self.shift})
        object.__setattr__(self, "n_samples", check_int("n_samples", self.n_samples, low=1))
        check_float("persistence", self.persistence, low=0, high=1)
        check_choice("scores", self.scores, SCORES)
        _ = self.truth  # A's skill minus B's: finite, or refused

    @property
    def cluster_size(self) -> int:
        """Items per cluster (1 without clusters)."""
        return self.n_items // self.n_clusters if self.n_clusters else 1

    @property
    def sizes(self) -> tuple[int, int]:
        """``(n_items * n_samples, n_items * n_samples)``: the scores of a replication."""
        return (self.n_items * self.n_samples, self.n_items * self.n_samples)

    def variances(self) -> dict[str, float]:
        """The five latent variances of the standardised model (module docstring), summing to 1; a
        negative `rho` can make ``item`` negative."""
        total = self.sd**2 + self.tau**2 / 4 + 1
        p = self.persistence
        return {"cluster": self.icc * self.sd**2 / total,
                "interaction": self.tau**2 / 4 / total,
                "item": ((1 - self.icc) * self.sd**2 + self.rho * p) / total,
                "model_item": p * (1 - self.rho) / total,
                "sample": (1 - p) / total}

    @property
    def truth(self) -> str:
        """``'null'`` when ``skill_a + shift = skill_b``, up to rounding
        (:func:`~evalmc.inputs.checks.population_sum`), else ``'alternative'``."""
        gap = population_sum("A's skill minus B's", {"skill_a": self.skill_a,
                                                      "shift": self.shift},
                             {"skill_b": self.skill_b})
        return "null" if gap == 0 else "alternative"

    def accuracy(self, skill: float) -> float:
        """Accuracy over the population of items of a model of `skill`,
        ``Phi(skill / sqrt(sd^2 + 1 + tau^2 / 4))``."""
        from scipy.special import ndtr

        return float(ndtr(skill / np.sqrt(self.sd**2 + 1 + self.tau**2 / 4)))

    @property
    def effect(self) -> float:
        """A's population mean score minus B's (0 under the null): the accuracy difference, or
        ``skill_a + shift - skill_b`` for ``scores='latent'``."""
        if self.truth == "null":
            return 0.0
        if self.scores == "latent":
            return float(self.skill_a + self.shift - self.skill_b)
        return self.accuracy(self.skill_a + self.shift) - self.accuracy(self.skill_b)

    def draw(self, rng, n_reps):
        """Draw `n_reps` sets of items and both models' scores on them (:class:`ClusteredBatch`)."""
        n, k = self.n_items, self.cluster_size
        clusters = rng.standard_normal((n_reps, n // k)) * (np.sqrt(self.icc) * self.sd)
        favour = np.repeat(rng.standard_normal((n_reps, n // k)) * (self.tau / 2), k, axis=1)
        difficulty = (np.repeat(clusters, k, axis=1)
                      + rng.standard_normal((n_reps, n)) * (np.sqrt(1 - self.icc) * self.sd))
        eps_a = rng.standard_normal((n_reps, n))
        eps_b = self.rho * eps_a + np.sqrt(1 - self.rho**2) * rng.standard_normal((n_reps, n))
        a = self.skill_a + self.shift + favour - difficulty
        b = self.skill_b - favour - difficulty
        s, p = self.n_samples, self.persistence
        if p == 1:
            a = np.repeat(a + eps_a, s, axis=1)
            b = np.repeat(b + eps_b, s, axis=1)
        else:  # the persistent share, then fresh noise per sample, A's and B's apart
            a = ((a + np.sqrt(p) * eps_a)[:, :, None]
                 + np.sqrt(1 - p) * rng.standard_normal((n_reps, n, s))).reshape(n_reps, n * s)
            b = ((b + np.sqrt(p) * eps_b)[:, :, None]
                 + np.sqrt(1 - p) * rng.standard_normal((n_reps, n, s))).reshape(n_reps, n * s)
        if self.scores == "correct":
            a = (a > 0).astype(float)
            b = (b > 0).astype(float)
        return ClusteredBatch(a, b, paired=True, cluster_size=k, n_samples=s)
