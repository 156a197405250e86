"""Boards of continuous item scores (a BLEU, an F1, a grade: any real) simulated like a real one.

**Model.** The latent Gaussian model of the audit (:mod:`evalmc.sims.itemmodel`) for M models:
model m on item k of cluster g has the latent value

    z = mu_m + c_g + u_gm + e_k + v_km

with independent normal parts: the cluster's difficulty ``c_g`` (variance ``cluster``), the
model x cluster effect ``u_gm`` (``interaction``, independent across models), the item's
difficulty ``e_k`` (``item``) and the model x item effect ``v_km`` (``model_item``); the four
sum to 1. The score is ``Q(Phi(z))``, ``Q`` the pooled empirical quantile function of all the
board's scores (the audit's Gaussian copula: only observed scores are drawn, and
:meth:`~evalmc.sims.itemmodel.ItemFit.expected` is a model's expected score). That expected score
increases with ``mu_m``, so model i is truly better than model j when ``mu_i > mu_j``: the
latent means are the board's strengths. Each board draws fresh items and cluster effects in the
board's own clusters (``groups``, one label per item): the truth is the population of items'.

**Fit** (:func:`fit_scores`). For every pair of models whose scores vary, the audit's moment fit
(:func:`evalmc.sims.itemmodel.fit_grid`) gives the latent correlations on the same item
(``r_ab``), of one model on two items of a cluster (``r_clu``) and of the two on two items of a
cluster (``r_clu_ab``), each corrected for centring; averaged over the pairs they give
``cluster = r_clu_ab``, ``interaction = r_clu - r_clu_ab`` (the variance of one model's
``u_gm``: the audit's ``interaction``, the variance of half a difference, times 2),
``item = r_ab - r_clu_ab`` and ``model_item = 1 - r_clu - item``; a negative one is set to 0
and the four divided by their sum. Without clusters ``cluster = interaction = 0``. ``mu_m``
solves ``E(mu_m) = `` model m's mean score, a mean at the edge of the scores' range moved
inside it by half a score's share of the range.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from evalmc.sims.base import Scenario, param
from evalmc.sims.fitted_board import LabelledItemBatch, _Fitted
from evalmc.sims.itemmodel import ItemFit, fit_grid

#: The four latent variances, in order.
PARTS = ("cluster", "interaction", "item", "model_item")


def _copula(levels, cuts, mean: float = 0.0) -> ItemFit:
    """An :class:`~evalmc.sims.itemmodel.ItemFit` that carries only the scores' copula."""
    levels, cuts = np.asarray(levels, dtype=float), np.asarray(cuts, dtype=float)
    return ItemFit(kind="continuous", mu_a=0.0, mu_b=0.0, cluster=0.0, interaction=0.0,
                   item=0.0, model_item=1.0, sample=0.0, clipped=(), n_items=0,
                   cluster_sizes=(), n_samples=1, levels=levels, cuts=cuts, mean=mean)


def fit_scores(scores, groups) -> dict:
    """The model of the module docstring fitted to ``scores[item, model]`` (not all 0/1),
    items in clusters ``groups`` (labels 0, 1, ...): the scenario's parameters as a dict.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.fitted_scores import FittedScoreBoard, fit_scores
    >>> truth = FittedScoreBoard(values=(0.5, 0.0, -0.5), groups=tuple(np.arange(300) // 10),
    ...                          cluster=0.2, interaction=0.1, item=0.3, model_item=0.4,
    ...                          levels=(0.0, 1.0, 2.0, 3.0), cuts=(-1.0, 0.0, 1.0))
    >>> batch = truth.draw(np.random.default_rng(0), 1)
    >>> fit = fit_scores(batch.scores[0], truth.groups)
    >>> np.round([fit[name] for name in ("cluster", "interaction", "item", "model_item")], 2)
    array([0.2 , 0.07, 0.27, 0.46])
    >>> np.round(fit["values"], 2)
    array([ 0.38,  0.01, -0.4 ])
    """
    from scipy.special import ndtri

    scores = np.asarray(scores, dtype=float)
    groups = np.asarray(groups, dtype=np.int64)
    order = np.argsort(groups, kind="stable")
    sizes = np.bincount(groups)
    sizes = sizes[sizes > 0]
    grid = scores[order]
    clustered = bool(sizes.max() > 1)
    varying = [m for m in range(scores.shape[1]) if np.ptp(scores[:, m]) > 0]
    r = {"r_ab": [], "r_clu": [], "r_clu_ab": []}
    for k, i in enumerate(varying):
        for j in varying[k + 1:]:
            found = fit_grid(grid[:, [i]], grid[:, [j]], sizes).correlations
            for name in r:
                r[name].append(found[name])
    if not r["r_ab"]:
        raise ValueError("`scores`: a board of continuous scores needs two models whose "
                         "scores vary over the items.")
    mean = {name: float(np.mean(values)) for name, values in r.items()}
    if not clustered:
        mean["r_clu"] = mean["r_clu_ab"] = 0.0
    raw = {"cluster": mean["r_clu_ab"], "interaction": mean["r_clu"] - mean["r_clu_ab"],
           "item": mean["r_ab"] - mean["r_clu_ab"]}
    raw["model_item"] = 1.0 - mean["r_clu"] - raw["item"]
    kept = {name: max(raw[name], 0.0) for name in PARTS}
    total = sum(kept.values())
    pooled = np.sort(scores.ravel())
    levels, first = np.unique(pooled, return_index=True)
    cuts = ndtri(first[1:] / pooled.size)
    copula = _copula(levels, cuts)
    margin = (levels[-1] - levels[0]) / (2 * pooled.size)
    means = np.clip(scores.mean(axis=0), levels[0] + margin, levels[-1] - margin)
    values = np.array([copula.latent_mean(float(m), name="scores") for m in means])
    return {"values": values, **{name: kept[name] / total for name in PARTS},
            "levels": levels, "cuts": cuts}


@dataclass(frozen=True)
class FittedScoreBoard(_Fitted, Scenario):
    """Continuous scores on fresh items in a real board's clusters, from the latent model fitted
    to it (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.fitted_scores import FittedScoreBoard
    >>> scenario = FittedScoreBoard(values=(1.0, 0.0), groups=(0, 0, 1), cluster=0.2,
    ...                             interaction=0.1, item=0.3, model_item=0.4,
    ...                             levels=(0.0, 0.5, 1.0), cuts=(-0.5, 0.5))
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.scores.shape, batch.labels.tolist(), sorted(set(batch.scores.ravel().tolist()))
    ((2, 3, 2), [0, 0, 1], [0.0, 0.5, 1.0])
    """

    name: ClassVar[str] = "fitted-score-board"
    batch: ClassVar[type] = LabelledItemBatch
    values: tuple = param((), tuple, "each model's latent mean")
    groups: tuple = param((), tuple, "each item's cluster, numbered from 0")
    cluster: float = param(0.0, float, "variance of a cluster's difficulty")
    interaction: float = param(0.0, float, "variance of a model x cluster effect")
    item: float = param(0.0, float, "variance of an item's difficulty")
    model_item: float = param(1.0, float, "variance of a model x item effect")
    levels: tuple = param((), tuple, "the distinct scores, increasing")
    cuts: tuple = param((), tuple, "the latent cuts between them")

    def _sizes(self):
        return (len(self.groups), len(self.groups))

    def expected(self) -> np.ndarray:
        """Each model's expected score."""
        return _copula(self.levels, self.cuts).expected(self.strengths)

    def draw(self, rng, n_reps):
        """Draw `n_reps` boards' scores (a :class:`LabelledItemBatch`)."""
        groups = np.asarray(self.groups, dtype=np.int64)
        g, n, m = int(groups.max()) + 1, groups.size, self.models
        z = rng.standard_normal((n_reps, n, m)) * np.sqrt(self.model_item)
        z += self.strengths
        z += (rng.standard_normal((n_reps, g)) * np.sqrt(self.cluster))[:, groups, None]
        z += (rng.standard_normal((n_reps, g, m)) * np.sqrt(self.interaction))[:, groups]
        z += (rng.standard_normal((n_reps, n)) * np.sqrt(self.item))[:, :, None]
        scores = np.asarray(self.levels)[np.searchsorted(self.cuts, z, side="left")]
        return LabelledItemBatch(scores=scores, clusters=g, groups=self.groups)
