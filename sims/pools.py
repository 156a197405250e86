"""Pools of training runs with correlated validation and test scores, like Bajgar et al.'s (2018).

A pool is a population of runs: the test score has a Gaussian or Gaussian-mixture marginal, and
validation and test scores are joined by a Gaussian copula with a given Spearman correlation.
Only the ranks of validation scores matter for choosing the best run, so validation scores get
a Gaussian marginal with the test scores' mean and sd (an assumption: the paper gives no
validation marginals).

Presets (Bajgar et al. 2018, Appendix C.4 and Section 4):

- ``resnet-fixed``: ResNet-32 on CIFAR-100, fixed hyperparameters: test N(68.41, 0.67),
  Spearman 0.10 (Gaussian: the paper calls it approximately Gaussian).
- ``asreader-fixed``: AS Reader on CBT-CN, fixed hyperparameters: test N(63.16, 0.94),
  Spearman 0.18.
- ``asreader-random``: AS Reader, random hyperparameters: mean 61.26, sd 2.48, negative skew,
  Spearman 0.83. A Gaussian would put Boo_20 above the pool's maximum, so the marginal is a
  mixture 0.25 N(57.05, 0.9) + 0.75 N(62.66, 0.55), rescaled to mean 61.26 and sd 2.48
  (a reconstruction from the reported summaries, not the authors' data).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import scipy

from evalmc.sims.base import Batch, Scenario, param
from evalmc.sims.validation import check_choice, check_float, check_int


@dataclass(frozen=True)
class PoolSpec:
    """A pool's test-score marginal (Gaussian mixture, then rescaled) and its copula.

    Attributes
    ----------
    weights, means, sds : tuple of float
        Mixture components of the test score before rescaling.
    mean, sd : float
        Mean and sd of the test score after rescaling.
    spearman : float
        Spearman correlation of validation and test scores.
    """

    weights: tuple
    means: tuple
    sds: tuple
    mean: float
    sd: float
    spearman: float

    def __post_init__(self):
        check_float("spearman", self.spearman, low=-1, high=1, open_low=True, open_high=True)
        check_float("sd", self.sd, low=0, open_low=True)
        if not np.isclose(sum(self.weights), 1.0) or min(self.weights) < 0:
            raise ValueError("`weights` must be non-negative and sum to 1.")

    @property
    def copula_rho(self) -> float:
        """Pearson correlation of the Gaussian copula giving this Spearman correlation."""
        return 2.0 * np.sin(np.pi * self.spearman / 6.0)

    def _raw_moments(self):
        w, mu, sd = (np.asarray(x, float) for x in (self.weights, self.means, self.sds))
        mean = np.dot(w, mu)
        return mean, np.sqrt(np.dot(w, sd**2 + mu**2) - mean**2)

    def test_cdf(self, x):
        """Cumulative distribution function of the test score."""
        raw_mean, raw_sd = self._raw_moments()
        raw = raw_mean + (np.asarray(x, float) - self.mean) * raw_sd / self.sd
        return sum(w * scipy.stats.norm.cdf(raw, m, s)
                   for w, m, s in zip(self.weights, self.means, self.sds, strict=True))

    def test_quantile(self, u):
        """Quantile function of the test score (inverse of :meth:`test_cdf`, by interpolation
        on a grid of 200,001 points spanning 12 sd either side; exact for one component)."""
        u = np.asarray(u, float)
        if len(self.weights) == 1:
            return self.mean + self.sd * scipy.special.ndtri(u)
        grid, cdf = _quantile_table(self)
        return np.interp(u, cdf, grid)

    def test_from_normal_score(self, z):
        """The test score whose normal score (Phi^-1 of its CDF) is `z`."""
        if len(self.weights) == 1:
            return self.mean + self.sd * np.asarray(z, float)
        grid, _, z_grid = _z_table(self)
        return np.interp(z, z_grid, grid)

    def draw(self, rng: np.random.Generator, shape) -> tuple[np.ndarray, np.ndarray]:
        """Validation and test scores of runs, arrays of the given shape."""
        z = rng.standard_normal((2, *np.atleast_1d(shape)))
        r = self.copula_rho
        val = self.mean + self.sd * z[0]
        return val, self.test_from_normal_score(r * z[0] + np.sqrt(1 - r * r) * z[1])

    def test_distribution(self):
        """The test marginal as a scipy.stats continuous distribution (for Boo_n quadrature)."""
        spec = self

        class _Marginal(scipy.stats.rv_continuous):
            def _cdf(self, x):
                return spec.test_cdf(x)

            def _ppf(self, u):
                return spec.test_quantile(u)

        if len(self.weights) == 1:
            return scipy.stats.norm(self.mean, self.sd)
        return _Marginal(name="pool")()


_TABLES: dict = {}


def _quantile_table(spec):
    """Test-score grid with its CDF and normal scores, where the CDF is strictly inside (0, 1)."""
    if spec not in _TABLES:
        grid = np.linspace(spec.mean - 12 * spec.sd, spec.mean + 12 * spec.sd, 200_001)
        cdf = spec.test_cdf(grid)
        keep = (cdf > 1e-15) & (cdf < 1 - 1e-15) & (np.diff(cdf, prepend=-1.0) > 0)
        grid, cdf = grid[keep], cdf[keep]
        _TABLES[spec] = (grid, cdf, scipy.special.ndtri(cdf))
    return _TABLES[spec][:2]


def _z_table(spec):
    _quantile_table(spec)
    return _TABLES[spec]


PRESETS = {
    "resnet-fixed": PoolSpec((1.0,), (68.41,), (0.67,), 68.41, 0.67, 0.10),
    "asreader-fixed": PoolSpec((1.0,), (63.16,), (0.94,), 63.16, 0.94, 0.18),
    "asreader-random": PoolSpec((0.25, 0.75), (57.05, 62.66), (0.9, 0.55), 61.26, 2.48, 0.83),
}


def get_pool(name: str) -> PoolSpec:
    """The preset pool called `name`."""
    return PRESETS[check_choice("preset", name, tuple(PRESETS))]


@dataclass(frozen=True)
class Pool(Scenario):
    """Two models' runs drawn from one preset pool (A shifted by `shift`): val and test scores."""

    name: ClassVar[str] = "pool"
    description: ClassVar[str] = "runs from a preset pool of val/test scores (Bajgar et al.)"

    preset: str = param("asreader-random", str, "resnet-fixed, asreader-fixed, asreader-random")
    n: int = param(10, int, "runs per model and replication")
    shift: float = param(0.0, float, "added to A's validation and test scores")
    spec: PoolSpec = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "spec", get_pool(self.preset))
        object.__setattr__(self, "n", check_int("n", self.n, low=2))
        check_float("shift", self.shift)

    @property
    def truth(self) -> str:
        return "null" if self.shift == 0 else "alternative"

    @property
    def effect(self) -> float:
        return float(self.shift)

    def draw(self, rng, n_reps):
        val, test = self.spec.draw(rng, (n_reps, 2, self.n))
        val[:, 0] += self.shift
        test[:, 0] += self.shift
        return Batch(test[:, 0], test[:, 1], paired=False, a_val=val[:, 0], b_val=val[:, 1])
