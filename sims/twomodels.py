"""Two models' 0/1 answers with true accuracies ``theta_A`` and ``theta_B``, as Bowyer,
Aitchison and Ivanova (2025) simulate comparisons.

- ``two-models`` (independent): each model answers `n` different questions, each right with
  its probability, independently.
- ``paired-models`` (paired): both answer the same `n` questions. Per question a latent
  ``(x_A, x_B)`` is bivariate normal with means ``(Phi^-1(theta_A), Phi^-1(theta_B))``, unit
  variances and correlation ``rho``; a model is right when its latent is positive, so
  ``P(right) = theta``. The correlation is fixed (`rho`) or, by default, drawn for each
  replication as ``2 r - 1`` with ``r ~ Beta(4, 2)`` (the authors' data generation).

Each replication draws fresh questions, so the estimand is the population effect
``theta_A - theta_B`` (:attr:`effect`); for the independent scenario also the odds ratio
``theta_A (1 - theta_B) / ((1 - theta_A) theta_B)`` (:attr:`odds_ratio`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalmc.inputs.checks import check_float, check_int
from evalmc.sims.base import Batch, Scenario

#: The Beta law of ``(rho + 1) / 2`` when `rho` is not fixed.
RHO_LAW = (4.0, 2.0)


class _TwoRates(Scenario):
    def _check(self):
        object.__setattr__(self, "n", check_int("n", self.n, low=1))
        for name in ("theta_a", "theta_b"):
            check_float(name, getattr(self, name), low=0, high=1, open_low=True,
                        open_high=True)

    @property
    def truth(self) -> str:
        """``'null'`` when the accuracies are equal, else ``'alternative'``."""
        return "null" if self.theta_a == self.theta_b else "alternative"

    @property
    def effect(self) -> float:
        """``theta_A - theta_B``, the population effect."""
        return float(self.theta_a - self.theta_b)

    @property
    def a_mean(self) -> float:
        """``theta_A``, A's accuracy."""
        return float(self.theta_a)


@dataclass(frozen=True)
class TwoModels(_TwoRates, registered="two-models"):
    """Two models answering `n` different questions each, right with probabilities
    ``theta_a`` and ``theta_b``. Parameters: the ``'two-models'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.twomodels import TwoModels
    >>> batch = TwoModels(n=5, theta_a=0.8, theta_b=0.3).draw(np.random.default_rng(0), 2)
    >>> batch.a.tolist()
    [[1.0, 1.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0, 0.0]]
    >>> batch.b.tolist()
    [[0.0, 1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0, 0.0]]
    """

    estimand = "mean difference"

    def __post_init__(self):
        self._check()

    @property
    def odds_ratio(self) -> float:
        """The odds of A's accuracy over the odds of B's."""
        return float(self.theta_a * (1 - self.theta_b) / ((1 - self.theta_a) * self.theta_b))

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications: A's answers, then B's (unpaired 0/1 scores)."""
        a = (rng.random((n_reps, self.n)) < self.theta_a).astype(float)
        b = (rng.random((n_reps, self.n)) < self.theta_b).astype(float)
        return Batch(a, b, paired=False)


@dataclass(frozen=True)
class PairedModels(_TwoRates, registered="paired-models"):
    """Two models answering the same `n` questions, their answers the signs of correlated
    latent normals (module docstring). Parameters: the ``'paired-models'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.twomodels import PairedModels
    >>> batch = PairedModels(n=6, rho=0.9).draw(np.random.default_rng(0), 2)
    >>> batch.a.tolist()
    [[1.0, 0.0, 1.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0, 0.0, 1.0]]
    >>> batch.b.tolist()
    [[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0, 0.0, 1.0]]
    """

    estimand = "mean difference"

    def __post_init__(self):
        self._check()
        if self.rho is not None:
            check_float("rho", self.rho, low=-1, high=1, open_low=True, open_high=True)

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications of `n` paired answers, each replication's correlation drawn
        first when `rho` is not fixed."""
        from scipy.special import ndtri

        if self.rho is None:
            rho = 2 * rng.beta(*RHO_LAW, size=(n_reps, 1)) - 1
        else:
            rho = np.full((n_reps, 1), float(self.rho))
        z_a = rng.standard_normal((n_reps, self.n))
        z_b = rho * z_a + np.sqrt(1 - rho**2) * rng.standard_normal((n_reps, self.n))
        a = (ndtri(self.theta_a) + z_a > 0).astype(float)
        b = (ndtri(self.theta_b) + z_b > 0).astype(float)
        return Batch(a, b, paired=True)


def orthant(h, k, rho):
    """The bivariate standard normal probability ``P(X <= h, Y <= k)`` at correlation `rho`, by
    Owen's T function (with its limits at ``h = 0`` or ``k = 0``)."""
    from scipy.special import ndtr, owens_t

    h, k, rho = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (h, k, rho)))
    root = np.sqrt(1 - rho**2)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_h = np.where(h == 0, np.sign(k) / 4, owens_t(h, (k - rho * h) / (h * root)))
        t_k = np.where(k == 0, np.sign(h) / 4, owens_t(k, (h - rho * k) / (k * root)))
    both_zero = (h == 0) & (k == 0)
    beta = np.where((h * k < 0) | ((h * k == 0) & (h + k < 0)), 0.5, 0.0)
    out = (ndtr(h) + ndtr(k)) / 2 - t_h - t_k - beta
    return np.where(both_zero, 0.25 + np.arcsin(rho) / (2 * np.pi), out)
