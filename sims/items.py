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
