"""Pools of training runs with correlated validation and test scores, like Bajgar et al.'s (2018).

A pool is a population of runs in clusters (regions of hyperparameter space, say). In cluster c
the validation and test scores are bivariate normal with the same mean ``means[c]`` and sd
``sds[c]`` and correlation ``rho``: validation shares the test scores' clusters, and only the
within-cluster noise differs between the two. Its summaries (moments, quantiles, Spearman
correlation, expected best-validation run) are computed exactly, by quadrature.

Presets (Bajgar et al. 2018, Appendix C.4, Section 5 and Appendix E):

- ``resnet-fixed``: ResNet-32 on CIFAR-100, fixed hyperparameters: test N(68.41, 0.67),
  Spearman 0.10 (one cluster; the paper calls it approximately Gaussian).
- ``asreader-fixed``: AS Reader on CBT-CN, fixed hyperparameters: test N(63.16, 0.94),
  Spearman 0.18.
- ``asreader-random``: AS Reader, random hyperparameters: three clusters fitted jointly to
  every summary the paper reports (``evalmc.reproductions.bajgar2018_pool``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import scipy

from evalmc.inputs.checks import check_choice, check_float, check_int
from evalmc.sims.base import Scenario
from evalmc.sims.scores import ValTestBatch

_GH_NODES, _GH_WEIGHTS = np.polynomial.hermite_e.hermegauss(64)
_GH_WEIGHTS = _GH_WEIGHTS / _GH_WEIGHTS.sum()


@dataclass(frozen=True)
class PoolSpec:
    """A pool of runs: clusters (share `weights`, mean `means`, sd `sds`) of bivariate normal
    (validation, test) scores with within-cluster correlation `rho`."""

    weights: tuple
    means: tuple
    sds: tuple
    rho: float

    def __post_init__(self):
        check_float("rho", self.rho, low=-1, high=1, open_low=True, open_high=True)
        if not len(self.weights) == len(self.means) == len(self.sds):
            raise ValueError("`weights`, `means` and `sds` must have one entry per cluster.")
        if not np.isclose(sum(self.weights), 1.0) or min(self.weights) < 0:
            raise ValueError("`weights` must be non-negative and sum to 1.")
        if min(self.sds) <= 0:
            raise ValueError(f"`sds` must be > 0; got {min(self.sds)}.")

    @classmethod
    def gaussian(cls, mean: float, sd: float, spearman: float) -> PoolSpec:
        """One cluster whose scores have the given Spearman correlation (Gaussian correlation
        ``2 sin(pi spearman / 6)``)."""
        check_float("spearman", spearman, low=-1, high=1, open_low=True, open_high=True)
        return cls((1.0,), (mean,), (sd,), 2.0 * np.sin(np.pi * spearman / 6.0))

    def _arrays(self):
        """Weights, means and sds as arrays."""
        return (np.asarray(self.weights, float), np.asarray(self.means, float),
                np.asarray(self.sds, float))

    @property
    def mean(self) -> float:
        """Mean score, ``sum_c weights[c] means[c]``."""
        w, mu, _ = self._arrays()
        return float(w @ mu)

    @property
    def sd(self) -> float:
        """Standard deviation of the score (within and between clusters)."""
        w, mu, sd = self._arrays()
        return float(np.sqrt(w @ (sd**2 + mu**2) - self.mean**2))

    def cdf(self, x):
        """Cumulative distribution function of the validation (and the test) score."""
        w, mu, sd = self._arrays()
        return scipy.special.ndtr((np.asarray(x, float)[..., None] - mu) / sd) @ w

    def sf(self, x):
        """Survival function of the score."""
        w, mu, sd = self._arrays()
        return scipy.special.ndtr((mu - np.asarray(x, float)[..., None]) / sd) @ w

    def pdf(self, x):
        """Density of the score."""
        w, mu, sd = self._arrays()
        return scipy.stats.norm.pdf(np.asarray(x, float)[..., None], mu, sd) @ w

    def quantile(self, u):
        """Quantile function of the score: the root of ``cdf(x) = u``."""
        return self._root(self.cdf, u)

    def isf(self, q):
        """Inverse survival function: the root of ``sf(x) = q`` (precise in the upper tail)."""
        return self._root(self.sf, q)

    def _root(self, fun, level):
        """The x where ``fun(x) = level``, element-wise, by Brent's method."""
        lo = min(self.means) - 40 * max(self.sds)
        hi = max(self.means) + 40 * max(self.sds)

        def one(p):
            return scipy.optimize.brentq(lambda x: fun(x) - p, lo, hi, xtol=1e-12)

        return np.vectorize(one, otypes=[float])(level)

    def extremes(self, runs: int, q) -> tuple[np.ndarray, np.ndarray]:
        """Quantiles `q` of the minimum and of the maximum score of `runs` runs:
        ``F^-1(1 - (1 - q)^(1/runs))`` and ``F^-1(q^(1/runs))``."""
        q = np.asarray(q, float)
        return (self.quantile(-np.expm1(np.log1p(-q) / runs)),
                self.isf(-np.expm1(np.log(q) / runs)))

    def test_given_val(self, val):
        """``E[test | validation = val]``: each cluster's regression, weighted by its
        posterior probability."""
        w, mu, sd = self._arrays()
        val = np.asarray(val, float)[..., None]
        dens = w * scipy.stats.norm.pdf(val, mu, sd)
        return np.sum(dens * (mu + self.rho * (val - mu)), axis=-1) / dens.sum(axis=-1)

    @property
    def spearman(self) -> float:
        """Spearman correlation of validation and test scores, ``12 E[F(V) F(T)] - 3``, by
        Gauss-Hermite quadrature within each cluster."""
        w, mu, sd = self._arrays()
        z1, z2 = np.meshgrid(_GH_NODES, _GH_NODES, indexing="ij")
        node_w = np.outer(_GH_WEIGHTS, _GH_WEIGHTS)
        total = 0.0
        for wc, m, s in zip(w, mu, sd, strict=True):
            val = m + s * z1
            test = m + s * (self.rho * z1 + np.sqrt(1 - self.rho**2) * z2)
            total += wc * np.sum(node_w * self.cdf(val) * self.cdf(test))
        return float(12 * total - 3)

    def distribution(self):
        """The score's distribution as a frozen scipy.stats distribution (a normal for one
        cluster, else the mixture)."""
        if len(self.weights) == 1:
            return scipy.stats.norm(self.means[0], self.sds[0])
        spec = self

        class _Pool(scipy.stats.rv_continuous):
            def _pdf(self, x):
                return spec.pdf(x)

            def _cdf(self, x):
                return spec.cdf(x)

            def _sf(self, x):
                return spec.sf(x)

            def _ppf(self, u):
                return spec.quantile(u)

            def _isf(self, q):
                return spec.isf(q)

        return _Pool(name="pool")()

    def draw(self, rng: np.random.Generator, shape) -> tuple[np.ndarray, np.ndarray]:
        """Validation and test scores ``(val, test)`` of runs, arrays of the given shape."""
        shape = tuple(np.atleast_1d(shape))
        z = rng.standard_normal((2, *shape))
        w, mu, sd = self._arrays()
        if w.size == 1:
            mu, sd = mu[0], sd[0]
        else:
            cluster = rng.choice(w.size, p=w, size=shape)
            mu, sd = mu[cluster], sd[cluster]
        test = mu + sd * (self.rho * z[0] + np.sqrt(1 - self.rho**2) * z[1])
        return mu + sd * z[0], test


PRESETS = {
    "resnet-fixed": PoolSpec.gaussian(68.41, 0.67, 0.10),
    "asreader-fixed": PoolSpec.gaussian(63.16, 0.94, 0.18),
    # fitted by evalmc.reproductions.bajgar2018_pool.fit; the bounds sd >= 0.1, rho >= 0 hold
    "asreader-random": PoolSpec((0.202295, 0.487419, 0.310286), (56.82078, 61.59894, 63.62242),
                                (0.1, 0.867946, 0.154702), 0.0),
}


def get_pool(name: str) -> PoolSpec:
    """The preset pool called `name` (a key of :data:`PRESETS`)."""
    return PRESETS[check_choice("preset", name, tuple(PRESETS))]


@dataclass(frozen=True)
class Pool(Scenario, registered="pool"):
    """Two models' runs drawn from one preset pool (A shifted by `shift`): val and test scores.

    Each model's `n` runs are drawn from the pool :func:`get_pool` (`preset`, kept in ``spec``);
    ``Batch.a``, ``Batch.b`` hold the test scores, ``a_val``, ``b_val`` the validation scores.
    Parameters: the ``'pool'`` row of :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.pools import Pool
    >>> scenario = Pool(n=5, shift=0.5)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, batch.a_val.shape, scenario.truth
    ((2, 5), (2, 5), 'alternative')
    >>> round(float(batch.a.mean()), 2), round(float(batch.b.mean()), 2)
    (62.17, 60.66)
    """

    estimand: ClassVar[str] = "mean difference"
    batch: ClassVar[type] = ValTestBatch

    spec: PoolSpec = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "spec", get_pool(self.preset))
        object.__setattr__(self, "n", check_int("n", self.n, low=2))
        check_float("shift", self.shift)

    @property
    def truth(self) -> str:
        """``'null'`` when `shift` is 0, else ``'alternative'``."""
        return "null" if self.shift == 0 else "alternative"

    @property
    def effect(self) -> float:
        """A's mean minus B's: the shift."""
        return float(self.shift)

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications of both models' runs (a :class:`ValTestBatch`, unpaired)."""
        val, test = self.spec.draw(rng, (n_reps, 2, self.n))
        val[:, 0] += self.shift
        test[:, 0] += self.shift
        return ValTestBatch(test[:, 0], test[:, 1], paired=False, a_val=val[:, 0],
                            b_val=val[:, 1])
