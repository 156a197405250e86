"""k models on d data sets (Demsar 2006's setting): the score table of each replication.

Model m's score on data set j is ``D_j + mu_m + I_jm + mean of `runs` run noises``: the data set's
difficulty ``D_j ~ N(0, sd_dataset^2)`` (shared by all models), the model's effect
``mu_m = spread (k - 1 - m) / (k - 1)`` (model 0 best, model k-1 worst, equal when
``spread = 0``), a model x data set interaction ``I_jm ~ N(0, sd_interaction^2)`` and run noise
``N(0, sd_run^2)`` correlated `rho` across models on one data set (shared seeds, splits).

``Batch.table`` holds the scores, shape (n_reps, n_datasets, k); ``Batch.a`` and ``Batch.b``
are models 0 and 1, paired by data set, so two-model criteria compare the best model with
the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from evalmc.inputs.checks import check_float, check_int
from evalmc.sims.base import Batch, Scenario, read_only


class TableBatch(Batch):
    """k models' scores on several data sets: the whole `table` (n_reps, n_datasets, k), and
    models 0 and 1 as the paired scores ``a``, ``b``."""

    holds = Batch.holds | {"table"}
    per_rep = ("table",)

    def __init__(self, a=None, b=None, *, table, paired: bool = True, **kwargs):
        table = np.asarray(table)
        if table.ndim != 3 or table.shape[2] < 2:
            raise ValueError("`table` must have shape (n_reps, n_datasets, k) with k >= 2; "
                             f"got {table.shape}.")
        if a is None and kwargs.get("fill") is None:
            a, b = table[:, :, 0], table[:, :, 1]
        super().__init__(a, b, paired=paired, **kwargs)
        self.table = read_only(table)


@dataclass(frozen=True)
class MultiDataset(Scenario, registered="multi-dataset"):
    """k models' scores on d data sets.

    Model m's score on data set j adds the data set's difficulty, the model's effect, an
    interaction and run noise (see the module docstring); models are spaced evenly from best
    (0) to worst (k - 1) by `spread`. Parameters: the ``'multi-dataset'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.multidataset import MultiDataset
    >>> scenario = MultiDataset(spread=1.0)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.table.shape, batch.a.shape, scenario.truth
    ((2, 20, 5), (2, 20), 'alternative')
    >>> scenario.effects.tolist(), scenario.effect
    ([1.0, 0.75, 0.5, 0.25, 0.0], 0.25)
    """

    estimand: ClassVar[str] = "mean difference"
    batch: ClassVar[type] = TableBatch

    def __post_init__(self):
        object.__setattr__(self, "k", check_int("k", self.k, low=2))
        object.__setattr__(self, "n_datasets", check_int("n_datasets", self.n_datasets, low=2))
        object.__setattr__(self, "runs", check_int("runs", self.runs, low=1))
        check_float("spread", self.spread)
        for name in ("sd_dataset", "sd_interaction"):
            check_float(name, getattr(self, name), low=0)
        check_float("sd_run", self.sd_run, low=0, open_low=True)
        check_float("rho", self.rho, low=0, high=1, open_high=True)

    @property
    def sizes(self) -> tuple[int, int]:
        """``(n_datasets, n_datasets)``: models 0 and 1, paired by data set."""
        return (self.n_datasets, self.n_datasets)

    @property
    def effects(self) -> np.ndarray:
        """Each model's effect, best first."""
        return self.spread * np.arange(self.k - 1, -1, -1) / (self.k - 1)

    @property
    def truth(self) -> str:
        """``'null'`` when ``spread == 0`` (all models equal), else ``'alternative'``."""
        return "null" if self.spread == 0 else "alternative"

    @property
    def effect(self) -> float:
        """Model 0 minus model 1 (``Batch.a`` minus ``Batch.b``)."""
        return float(self.spread / (self.k - 1))

    def draw(self, rng, n_reps):
        """Draw `n_reps` score tables (a :class:`TableBatch`)."""
        d, k = self.n_datasets, self.k
        noise_sd = self.sd_run / np.sqrt(self.runs)
        table = (rng.standard_normal((n_reps, d, 1)) * self.sd_dataset + self.effects
                 + rng.standard_normal((n_reps, d, k)) * self.sd_interaction
                 + noise_sd * (np.sqrt(self.rho) * rng.standard_normal((n_reps, d, 1))
                               + np.sqrt(1 - self.rho) * rng.standard_normal((n_reps, d, k))))
        return TableBatch(table=table)
