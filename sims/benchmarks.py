"""Benchmark process of Bouthillier et al. (2021): k runs of two pipelines, ideal or biased.

Each replication is one study comparing pipelines A and B over `k` runs (data splits, seeds).
Given the study, a run's score is Gaussian with sd `sigma`. The *ideal* estimator
(``bias_sd = 0``) re-tunes hyperparameters for every run, so runs are independent. The *biased*
estimator tunes them once per study: each pipeline's `k` runs share one bias
``b ~ N(0, bias_sd^2)``, drawn independently for A and for B, as in the authors' simulation
code. Runs of one pipeline are then correlated, with average pairwise correlation
``rho = bias_sd^2 / (bias_sd^2 + sigma^2)``, and the sd of their mean is Eq 7 of the paper
(:func:`biased_sd`).

A's mean is shifted so that one run of A beats one run of B with probability `p_ab` under the
ideal estimator: ``shift = Phi^-1(p_ab) sigma sqrt(2)``. Every decision rule of the paper is
invariant to the unit of the scores, so ``sigma = 1`` with ``bias_sd`` given in units of
sigma loses nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import scipy

from evalmc.inputs.checks import check_float, check_int, check_sd
from evalmc.sims.base import Batch, Scenario


def biased_sd(k, sd, rho):
    """Sd of the mean of `k` runs of sd `sd` and average correlation `rho` (Eq 7):
    ``sqrt(sd^2 / k + (k - 1) / k * rho * sd^2)``, the ideal ``sd / sqrt(k)`` at ``rho = 0``."""
    k = np.asarray(k, dtype=float)
    return np.sqrt(sd**2 / k + (k - 1) / k * rho * sd**2)


def shift_for(p_ab, sigma=1.0):
    """Mean difference A - B that makes ``P(A > B) = p_ab`` for two runs of sd `sigma`:
    ``Phi^-1(p_ab) sigma sqrt(2)``."""
    return scipy.special.ndtri(p_ab) * sigma * np.sqrt(2.0)


class PairedRunsBatch(Batch):
    """Paired runs holding the number of pairs A wins, ``wins``, up front: ``diff = a - b`` is
    drawn given the wins on first use (A wins exactly where ``diff > 0``), the scores after it."""

    generic = False

    def __init__(self, wins, draw_diff, fill, sizes):
        super().__init__(paired=True, fill=lambda: fill(self.diff), sizes=sizes)
        self.wins = wins
        self._draw_diff = draw_diff
        self._diff = None

    @property
    def diff(self) -> np.ndarray:
        """``a - b``, shape (n_reps, k), drawn given the wins on first use."""
        if self._diff is None:
            self._diff = self._draw_diff()
        return self._diff

    @property
    def n_reps(self) -> int:
        """Replications (studies) in the batch."""
        return self.wins.shape[0]


@dataclass(frozen=True)
class Benchmark(Scenario, registered="pipelines"):
    """Two pipelines benchmarked over `k` paired runs, by the ideal or the biased estimator.

    ``Batch.a[i, j]`` and ``Batch.b[i, j]`` are run ``j`` of study ``i``; runs are paired by
    index (the same split and seed for A and B) but, as in the paper's simulation, A's and B's
    noise are independent. The batch (:class:`PairedRunsBatch`) holds the number of pairs A
    wins up front; differences and scores are drawn on first use. Parameters: the
    ``'pipelines'`` row of :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.benchmarks import Benchmark
    >>> scenario = Benchmark(k=10)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, batch.b.shape, scenario.truth, batch.wins.tolist()
    ((2, 10), (2, 10), 'null', [6, 7])
    >>> biased = Benchmark(p_ab=0.75, bias_sd=0.5)
    >>> biased.truth, round(biased.shift, 4), round(biased.rho, 4), round(biased.mean_sd, 4)
    ('alternative', 0.9539, 0.2, 0.5196)
    """

    batch: ClassVar[type] = PairedRunsBatch

    def __post_init__(self):
        object.__setattr__(self, "k", check_int("k", self.k, low=1))
        check_float("p_ab", self.p_ab, low=0, high=1, open_low=True, open_high=True)
        check_sd("sigma", self.sigma)
        check_sd("bias_sd", self.bias_sd, zero=True)

    @property
    def truth(self) -> str:
        """``'null'`` when ``p_ab == 0.5``, else ``'alternative'``."""
        return "null" if self.p_ab == 0.5 else "alternative"

    @property
    def effect(self) -> float:
        """P(A>B) - 1/2: positive when A's runs beat B's more often than not."""
        return self.p_ab - 0.5

    @property
    def sizes(self) -> tuple[int, int]:
        """``(k, k)``: runs of each pipeline."""
        return (self.k, self.k)

    @property
    def shift(self) -> float:
        """Mean score of A minus that of B, ``Phi^-1(p_ab) sigma sqrt(2)`` (:func:`shift_for`)."""
        return float(shift_for(self.p_ab, self.sigma))

    @property
    def rho(self) -> float:
        """Average correlation of two runs of one pipeline in one study (Eq 7),
        ``bias_sd^2 / (bias_sd^2 + sigma^2)``."""
        return self.bias_sd**2 / (self.bias_sd**2 + self.sigma**2)

    @property
    def mean_sd(self) -> float:
        """Sd of a pipeline's mean over its `k` runs: Eq 7 with the runs' total variance."""
        return float(biased_sd(self.k, np.hypot(self.sigma, self.bias_sd), self.rho))

    def draw(self, rng, n_reps):
        """Draw `n_reps` studies: each pipeline's bias and the pairs A wins now, the rest lazily."""
        # Given the two biases, the pairs' differences D = A - B are iid N(mu, 2 sigma^2), so the
        # number of pairs A wins is Binomial(k, Phi(mu / (sigma sqrt 2))): the P(A>B) test needs
        # nothing else. The differences are drawn only when a criterion asks for them, given the
        # wins (which pairs won is a uniform subset; each D is a normal truncated to its sign),
        # and the sums S = A + B, independent of D, only when it asks for the scores.
        diff_rng, sum_rng = rng.spawn(2)
        bias = self.bias_sd * rng.standard_normal((n_reps, 2))
        scale = self.sigma * np.sqrt(2.0)
        mu = self.shift + bias[:, 0] - bias[:, 1]
        wins = rng.binomial(self.k, scipy.special.ndtr(mu / scale))

        def draw_diff():
            ranks = np.argsort(np.argsort(diff_rng.random((n_reps, self.k)), axis=1), axis=1)
            won = ranks < wins[:, None]
            cut = np.broadcast_to((-mu / scale)[:, None], won.shape)
            low = np.where(won, cut, -np.inf)
            high = np.where(won, np.inf, cut)
            return scipy.stats.truncnorm.rvs(low, high, loc=mu[:, None], scale=scale,
                                       random_state=diff_rng)

        def fill(diff):
            total = sum_rng.standard_normal((n_reps, self.k))
            total *= scale
            total += (self.shift + bias[:, 0] + bias[:, 1])[:, None]
            b = (total - diff) / 2
            return b + diff, b

        return PairedRunsBatch(wins, draw_diff, fill, (self.k, self.k))
