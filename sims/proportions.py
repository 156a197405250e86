"""One model's 0/1 answers to a small evaluation: independent questions, or questions in tasks
(Bowyer, Aitchison and Ivanova 2025, Secs 3.1 and 3.2).

- ``bernoulli``: each of `n` questions is answered right with probability `theta`.
- ``bernoulli-tasks``: `tasks` tasks of `per_task` questions (``n = tasks * per_task``); each
  replication draws a dispersion ``d ~ Gamma(d_shape, d_scale)``, then each task's rate
  ``theta_t ~ Beta(d theta, d (1 - theta))``, then the answers ``y ~ Bernoulli(theta_t)``.
  The task rates average `theta` whatever ``d``; a small ``d`` spreads them towards 0 and 1
  (the tasks' questions then agree), a large one gathers them at `theta`.

The estimand of an interval is `theta`, A's population accuracy (:attr:`a_mean`). The
dispersion is drawn per replication, as the authors' ``sample_subtasks`` draws it, so a
condition's coverage is averaged over the Gamma law of ``d``, as the paper's is (fixing ``d``
means a Gamma law of tiny spread: a large `d_shape`, ``d_scale = d / d_shape``).

There is one model: B's scores are all 0, so :attr:`effect` is `theta` and criteria
comparing A and B are meaningless here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from evalmc.inputs.checks import check_float, check_int
from evalmc.sims.base import Batch, Scenario
from evalmc.sims.items import ClusteredBatch


class _OneModel:
    """What the two one-model scenarios share: the estimand and B's zero scores."""

    @property
    def a_mean(self) -> float:
        """The model's population accuracy, `theta`."""
        return float(self.theta)

    @property
    def effect(self) -> float:
        """A's population accuracy minus B's, which is 0: `theta`."""
        return float(self.theta)

    @property
    def truth(self) -> str:
        """``'null'`` when `theta` is 0 (A as bad as B), else ``'alternative'``."""
        return "null" if self.theta == 0 else "alternative"


@dataclass(frozen=True)
class Bernoulli(_OneModel, Scenario, registered="bernoulli"):
    """One model's 0/1 answers to `n` independent questions, each right with probability
    `theta`. Parameters: the ``'bernoulli'`` row of :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.proportions import Bernoulli
    >>> batch = Bernoulli(n=10, theta=0.3).draw(np.random.default_rng(0), 3)
    >>> batch.a.sum(axis=1).tolist(), float(batch.b.sum())
    ([3.0, 4.0, 2.0], 0.0)
    """

    def __post_init__(self):
        object.__setattr__(self, "n", check_int("n", self.n, low=1))
        check_float("theta", self.theta, low=0, high=1)

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications of the `n` answers (``a`` 0/1, ``b`` zeros)."""
        a = (rng.random((n_reps, self.n)) < self.theta).astype(float)
        return Batch(a, np.zeros_like(a), paired=True)


@dataclass(frozen=True)
class BernoulliTasks(_OneModel, Scenario, registered="bernoulli-tasks"):
    """One model's 0/1 answers to `tasks` tasks of `per_task` questions whose rates scatter
    around `theta` (see the module docstring). Parameters: the ``'bernoulli-tasks'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.proportions import BernoulliTasks
    >>> batch = BernoulliTasks(tasks=2, per_task=5).draw(np.random.default_rng(0), 3)
    >>> batch.cluster_sizes, batch.a.reshape(3, 2, 5).sum(axis=2).tolist()
    ((5, 5), [[0.0, 4.0], [1.0, 0.0], [0.0, 0.0]])
    """

    batch: ClassVar[type] = ClusteredBatch

    def __post_init__(self):
        object.__setattr__(self, "tasks", check_int("tasks", self.tasks, low=1))
        object.__setattr__(self, "per_task", check_int("per_task", self.per_task, low=1))
        check_float("theta", self.theta, low=0, high=1, open_low=True, open_high=True)
        check_float("d_shape", self.d_shape, low=0, open_low=True)
        check_float("d_scale", self.d_scale, low=0, open_low=True)

    @property
    def n(self) -> int:
        """Questions per replication, ``tasks * per_task``."""
        return self.tasks * self.per_task

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications: a dispersion, the task rates, the answers (task by task)."""
        d = rng.gamma(self.d_shape, self.d_scale, (n_reps, 1))
        rates = rng.beta(d * self.theta, d * (1 - self.theta), (n_reps, self.tasks))
        answers = rng.random((n_reps, self.tasks, self.per_task)) < rates[:, :, None]
        a = answers.reshape(n_reps, self.n).astype(float)
        return ClusteredBatch(a, np.zeros_like(a), paired=True, cluster_size=self.per_task)
