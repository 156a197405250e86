"""Run scores of two models: Gaussian, paired, validation/test, skewed, multimodal, empirical.

Model A carries the `shift` (added to each of its scores), so ``shift=0`` is the null of equal
performance and a positive shift measures power. Gaussian scenarios draw the sufficient
statistics first and the scores only when a criterion asks for them, from their exact
conditional distribution: a t-test study never draws a score.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import scipy

from evalmc.compute.streams import BlockStreams
from evalmc.inputs.checks import check_float, check_int, check_sd, population_sum
from evalmc.inputs.tables import drop_missing, numeric_column, only_score_column, read_table
from evalmc.sims.base import Batch, Scenario, SlabBlocks, read_only

_N_RUNS = "number of runs (scores) per replication"


def _check_sizes(scenario, *names):
    """Validate run counts (integers >= 2), storing them as int."""
    for name in names:
        object.__setattr__(scenario, name, check_int(name, getattr(scenario, name), low=2))


def _check_sd(scenario, *names):
    """Validate standard deviations (> 0, with a finite square: the variance)."""
    for name in names:
        check_sd(name, getattr(scenario, name))


def _check_real(scenario, *names):
    """Validate real numbers (finite)."""
    for name in names:
        check_float(name, getattr(scenario, name))


def _check_shifted(scenario, *names):
    """Refuse locations that A's `shift` moves out of the finite numbers."""
    for name in names:
        population_sum(f"A's shifted {name}", {name: getattr(scenario, name),
                                               "shift": scenario.shift})


class _ShiftTruth:
    """Mixin: A and B share one distribution up to A's `shift`."""

    estimand: ClassVar[str] = "mean difference"

    @property
    def truth(self) -> str:
        """``'null'`` when `shift` is 0, else ``'alternative'``."""
        return "null" if self.shift == 0 else "alternative"

    @property
    def effect(self) -> float:
        """A's mean minus B's: the shift."""
        return float(self.shift)


def _gaussian_moments(rng, n_reps, n, mean, sd):
    """Sample mean and unbiased variance of `n` iid N(mean, sd^2) scores, drawn directly."""
    return _sample_moments(rng.standard_normal(n_reps), rng.chisquare(n - 1, n_reps), n, mean,
                           sd)


def _sample_moments(z, chi2, n, mean, sd):
    """Sample mean and unbiased variance of `n` iid N(mean, sd^2) scores, from a standard
    normal `z` and a chi-square `chi2` with n - 1 degrees of freedom."""
    with np.errstate(over="ignore"):
        var = sd**2 * chi2 / (n - 1)
    if np.isinf(var).any():  # sd^2 chi2 overflowed; sd (sd chi2 / (n - 1)) may not
        with np.errstate(over="ignore"):
            var = np.where(np.isinf(var), sd * (sd * (chi2 / (n - 1))), var)
    return mean + sd / np.sqrt(n) * z, var


def _gaussian_slab(streams, bounds, dfs) -> np.ndarray:
    """Rows of standard normal (df 0) or chi-square (df) draws over a slab of blocks, each block
    drawing from its own stream as numpy would (:func:`evalmc.sims.kernels.gaussian_slab`)."""
    from evalmc.sims.kernels import gaussian_slab

    out = np.empty((len(dfs), bounds[-1]))
    streams.run(gaussian_slab, bounds, np.asarray(dfs, float), out)
    return out


def _fill_given_moments(rng, mean, var, n):
    """Gaussian scores with the given per-row sample mean and variance: given them, the centred,
    normalised sample is uniform on the unit sphere orthogonal to (1, ..., 1)."""
    u = rng.standard_normal((mean.size, n))
    u -= u.mean(axis=1, keepdims=True)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return mean[:, None] + np.sqrt((n - 1) * var)[:, None] * u


def _fill_given_scatter(rng, mean_a, mean_b, s_aa, s_ab, s_bb, n):
    """Bivariate Gaussian pairs with the given per-row sample means and scatter matrix: ``U T``, T
    its upper Cholesky factor, U orthonormal centred vectors (Gram-Schmidt of normal draws)."""
    z = rng.standard_normal((2, mean_a.size, n))
    z -= z.mean(axis=2, keepdims=True)
    u1 = z[0] / np.linalg.norm(z[0], axis=1, keepdims=True)
    w = z[1] - np.sum(u1 * z[1], axis=1, keepdims=True) * u1
    norm = np.linalg.norm(w, axis=1, keepdims=True)
    u2 = np.divide(w, norm, out=np.zeros_like(w), where=norm > 0)  # n = 2: rank-one scatter
    t11 = np.sqrt(s_aa)
    t12 = s_ab / t11
    t22 = np.sqrt(np.maximum(s_bb - t12**2, 0.0))
    a = mean_a[:, None] + t11[:, None] * u1
    b = mean_b[:, None] + t12[:, None] * u1 + t22[:, None] * u2
    return a, b


class _Independent:
    """Mixin: A's and B's scores drawn cell by cell by ``_fill(rng, a, b)``, or for a slab of
    blocks into one pair of arrays by ``_fill_slab(streams, bounds, a, b)`` (one kernel call)."""

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications of independent scores (shape (n_reps, n_a), (n_reps, n_b))."""
        a, b = np.empty((n_reps, self.n_a)), np.empty((n_reps, self.n_b))
        self._fill(rng, a, b)
        return Batch(a, b, paired=False)

    def draw_slab(self, rngs, sizes):
        """Blocks drawn into one pair of arrays (see :meth:`Scenario.draw_slab`)."""
        bounds = np.cumsum([0, *sizes])
        a, b = np.empty((bounds[-1], self.n_a)), np.empty((bounds[-1], self.n_b))
        if isinstance(rngs, BlockStreams):
            self._fill_slab(rngs, bounds, a, b)
        else:
            for rng, start, stop in zip(rngs, bounds[:-1], bounds[1:], strict=True):
                self._fill(rng, a[start:stop], b[start:stop])
        joint = Batch(a, b, paired=False)
        return joint, SlabBlocks(len(sizes), lambda k: joint.rows(bounds[k], bounds[k + 1]))


@dataclass(frozen=True)
class Normal(Scenario, registered="normal"):
    """Two independent Gaussian samples (runs of two training procedures on separate seeds).

    A's `n_a` scores are ``N(mean_a + shift, sd_a^2)``, B's `n_b` scores ``N(mean_b, sd_b^2)``.
    The batch holds the sample means and variances, drawn directly; the scores are drawn from
    their exact conditional distribution only when a criterion asks for them. Parameters:
    the ``'normal'`` row of :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.scores import Normal
    >>> scenario = Normal(shift=0.5)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, batch.b.shape, scenario.truth, scenario.effect
    ((2, 10), (2, 10), 'alternative', 0.5)
    >>> Normal(n_a=5).draw(np.random.default_rng(0), 2).moments()[0].round(4).tolist()
    [0.0562, -0.0591]
    """

    estimand: ClassVar[str] = "mean difference"

    def __post_init__(self):
        _check_sizes(self, "n_a", "n_b")
        _check_real(self, "mean_a", "mean_b", "shift")
        _check_sd(self, "sd_a", "sd_b")
        population_sum("A's population mean", {"mean_a": self.mean_a, "shift": self.shift})
        _ = self.effect  # finite, or refused

    @property
    def truth(self) -> str:
        """``'null'`` when :attr:`effect` is 0 (``mean_a + shift = mean_b`` up to rounding)."""
        return "null" if self.effect == 0 else "alternative"

    @property
    def effect(self) -> float:
        """``mean_a + shift - mean_b``, 0 when only rounding parts them
        (:func:`~evalmc.inputs.checks.population_sum`)."""
        return population_sum("A's population mean minus B's",
                              {"mean_a": self.mean_a, "shift": self.shift},
                              {"mean_b": self.mean_b})

    @property
    def a_mean(self) -> float:
        """A's population mean, ``mean_a + shift``."""
        return float(self.mean_a + self.shift)

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications: the moments now, the scores on first use."""
        fill_rng = rng.spawn(1)[0]
        mean_a, var_a = _gaussian_moments(
            rng, n_reps, self.n_a, self.mean_a + self.shift, self.sd_a
        )
        mean_b, var_b = _gaussian_moments(rng, n_reps, self.n_b, self.mean_b, self.sd_b)
        return self._batch((mean_a, var_a, mean_b, var_b), lambda: fill_rng)

    def draw_slab(self, rngs, sizes):
        """:meth:`Scenario.draw_slab`; given :class:`~evalmc.compute.streams.BlockStreams`, every
        block's moments in one kernel call."""
        if not isinstance(rngs, BlockStreams):
            return super().draw_slab(rngs, sizes)
        bounds = np.cumsum([0, *sizes])
        z_a, chi_a, z_b, chi_b = _gaussian_slab(rngs, bounds,
                                                (0, self.n_a - 1, 0, self.n_b - 1))
        moments = (*_sample_moments(z_a, chi_a, self.n_a, self.mean_a + self.shift, self.sd_a),
                   *_sample_moments(z_b, chi_b, self.n_b, self.mean_b, self.sd_b))
        blocks = SlabBlocks(len(sizes), lambda k: self._batch(
            tuple(m[bounds[k]:bounds[k + 1]] for m in moments), lambda: rngs[k].spawn(1)[0]))
        return Batch(paired=False, moments=moments, fill=blocks.scores,
                     sizes=(self.n_a, self.n_b)), blocks

    def _batch(self, moments, fill_rng):
        """The batch of replications with these moments; its scores, when first needed, are
        drawn from the generator ``fill_rng()``."""
        mean_a, var_a, mean_b, var_b = moments

        def fill():
            rng = fill_rng()
            return (_fill_given_moments(rng, mean_a, var_a, self.n_a),
                    _fill_given_moments(rng, mean_b, var_b, self.n_b))

        return Batch(paired=False, moments=moments, fill=fill, sizes=(self.n_a, self.n_b))


@dataclass(frozen=True)
class PairedNormal(Scenario, registered="paired-normal"):
    """Two models run on the same `n` seeds: correlated Gaussian pairs.

    On each seed, (A, B) is bivariate normal with means ``(mean_diff + shift, 0)``, sds
    `sd_a`, `sd_b` and correlation `rho`. The batch holds the means, variances and the paired
    differences' moments, drawn directly (Bartlett's decomposition of the scatter matrix); the
    scores are drawn given them on first use. Parameters: the ``'paired-normal'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.scores import PairedNormal
    >>> scenario = PairedNormal(rho=0.5)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, batch.paired, scenario.truth
    ((2, 10), True, 'null')
    >>> batch.diff_moments()[0].round(4).tolist()
    [-0.1555, -0.0496]
    """

    estimand: ClassVar[str] = "mean difference"

    def __post_init__(self):
        _check_sizes(self, "n")
        _check_real(self, "mean_diff", "shift")
        _check_sd(self, "sd_a", "sd_b")
        check_float("rho", self.rho, low=-1, high=1, open_low=True, open_high=True)
        _ = self.effect  # finite, or refused

    @property
    def truth(self) -> str:
        """``'null'`` when :attr:`effect` is 0 (``mean_diff + shift = 0`` up to rounding)."""
        return "null" if self.effect == 0 else "alternative"

    @property
    def effect(self) -> float:
        """``mean_diff + shift``, 0 when only rounding parts them."""
        return population_sum("A's population mean minus B's",
                              {"mean_diff": self.mean_diff, "shift": self.shift})

    @property
    def a_mean(self) -> float:
        """A's population mean, ``mean_diff + shift`` (B's is 0)."""
        return float(self.mean_diff + self.shift)  # B's mean is 0

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications: the moments now, the paired scores on first use."""
        fill_rng = rng.spawn(1)[0]
        n = self.n
        z = rng.standard_normal((2, n_reps))
        c1 = rng.chisquare(n - 1, n_reps)
        c2 = rng.chisquare(n - 2, n_reps) if n > 2 else None
        off = rng.standard_normal(n_reps)
        return self._batch(self._statistics(z[0], z[1], c1, c2, off), lambda: fill_rng)

    def draw_slab(self, rngs, sizes):
        """:meth:`Scenario.draw_slab`; given :class:`~evalmc.compute.streams.BlockStreams`, every
        block's statistics in one kernel call."""
        if not isinstance(rngs, BlockStreams):
            return super().draw_slab(rngs, sizes)
        n = self.n
        bounds = np.cumsum([0, *sizes])
        z0, z1, c1, *rest = _gaussian_slab(rngs, bounds,
                                           (0, 0, n - 1, n - 2, 0) if n > 2 else (0, 0, n - 1, 0))
        stats = self._statistics(z0, z1, c1, *(rest if n > 2 else (None, *rest)))
        blocks = SlabBlocks(len(sizes), lambda k: self._batch(
            tuple(x[bounds[k]:bounds[k + 1]] for x in stats), lambda: rngs[k].spawn(1)[0]))
        return self._batch(stats, None, fill=blocks.scores), blocks

    def _statistics(self, z0, z1, c1, c2, off):
        """Per replication, the sample means and scatter ``(mean_a, mean_b, s_aa, s_ab, s_bb)``
        from the draws: standard normals `z0`, `z1` and `off`, chi-squares `c1` (n - 1
        degrees of freedom) and `c2` (n - 2; None when n = 2)."""
        n = self.n
        # Sigma = L L^T; sample means ~ N(mu, Sigma / n); scatter ~ Wishart(n - 1, Sigma) by
        # Bartlett's decomposition: L A A^T L^T, A lower triangular.
        l11, l21, l22 = self.sd_a, self.rho * self.sd_b, self.sd_b * np.sqrt(1 - self.rho**2)
        z0, z1 = z0 / np.sqrt(n), z1 / np.sqrt(n)
        mean_a = self.mean_diff + self.shift + l11 * z0
        mean_b = l21 * z0 + l22 * z1
        c1 = np.sqrt(c1)
        c2 = np.sqrt(c2) if c2 is not None else np.zeros(c1.size)
        row_a = l11 * c1  # rows of L A: (l11 c1, 0) and (l21 c1 + l22 off, l22 c2)
        row_b1, row_b2 = l21 * c1 + l22 * off, l22 * c2
        return mean_a, mean_b, row_a**2, row_a * row_b1, row_b1**2 + row_b2**2

    def _batch(self, stats, fill_rng, fill=None):
        """The batch of replications with these statistics (:meth:`_statistics`); its scores,
        when first needed, are drawn from the generator ``fill_rng()`` (or by `fill`)."""
        n = self.n
        mean_a, mean_b, s_aa, s_ab, s_bb = stats
        moments = (mean_a, s_aa / (n - 1), mean_b, s_bb / (n - 1))
        diff = (mean_a - mean_b, (s_aa + s_bb - 2 * s_ab) / (n - 1))

        def fill_scatter():
            return _fill_given_scatter(fill_rng(), mean_a, mean_b, s_aa, s_ab, s_bb, n)

        return Batch(paired=True, moments=moments, diff_moments=diff,
                     fill=fill or fill_scatter, sizes=(n, n))


class ValTestBatch(Batch):
    """Test scores ``a``, ``b`` of runs and validation scores ``a_val``, ``b_val`` of the same
    runs (same shapes, column by column), for criteria that pick runs by validation score."""

    holds = Batch.holds | {"validation scores"}
    per_rep = ("a_val", "b_val")

    def __init__(self, a=None, b=None, *, a_val, b_val, **kwargs):
        super().__init__(a, b, **kwargs)
        self.a_val, self.b_val = read_only(a_val), read_only(b_val)


@dataclass(frozen=True)
class ValTest(_ShiftTruth, Scenario, registered="val-test"):
    """Runs of two models, each with a correlated (validation, test) score pair.

    Both models share the bivariate normal; A's validation and test means carry `shift`.
    ``Batch.a``/``Batch.b`` hold test scores, ``a_val``/``b_val`` the validation scores.
    Parameters: the ``'val-test'`` row of :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.scores import ValTest
    >>> scenario = ValTest(n=4, shift=1.0)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, batch.a_val.shape, scenario.truth
    ((2, 4), (2, 4), 'alternative')
    >>> round(float(batch.a.mean()), 3), round(float(batch.b.mean()), 3)
    (1.441, -0.712)
    """

    batch: ClassVar[type] = ValTestBatch

    def __post_init__(self):
        _check_sizes(self, "n")
        _check_real(self, "mu_val", "mu_test", "shift")
        _check_sd(self, "sd_val", "sd_test")
        _check_shifted(self, "mu_val", "mu_test")
        check_float("rho", self.rho, low=-1, high=1)

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications: a :class:`ValTestBatch`, unpaired."""
        z = rng.standard_normal((n_reps, 2, self.n, 2))
        val = self.mu_val + self.sd_val * z[..., 0]
        test = self.mu_test + self.sd_test * (
            self.rho * z[..., 0] + np.sqrt(1 - self.rho**2) * z[..., 1]
        )
        val[:, 0] += self.shift
        test[:, 0] += self.shift
        return ValTestBatch(test[:, 0], test[:, 1], paired=False, a_val=val[:, 0],
                            b_val=val[:, 1])


@dataclass(frozen=True)
class SkewNormal(_Independent, _ShiftTruth, Scenario, registered="skew-normal"):
    """Two independent skew-normal samples (scipy.stats.skewnorm(skew, loc, scale)).

    Skewed run scores: with the default negative `skew`, a long tail of bad runs. A's scores
    carry `shift`. Parameters: the ``'skew-normal'`` row of :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.scores import SkewNormal
    >>> scenario = SkewNormal(skew=-4.0)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, batch.b.shape, scenario.truth, round(scenario.a_mean, 4)
    ((2, 10), (2, 10), 'null', -0.7741)
    """

    def __post_init__(self):
        _check_sizes(self, "n_a", "n_b")
        _check_real(self, "loc", "skew", "shift")
        _check_sd(self, "scale")
        _check_shifted(self, "loc")

    @property
    def a_mean(self) -> float:
        """A's population mean, ``loc + scale delta sqrt(2 / pi) + shift``,
        ``delta = skew / sqrt(1 + skew^2)``."""
        from evalmc.sims.kernels import skew_delta

        return float(self.loc + self.scale * skew_delta(self.skew) * np.sqrt(2 / np.pi)
                     + self.shift)

    def _fill(self, rng, a, b):
        """Draw skew-normal scores into `a` and `b` in place."""
        from evalmc.sims.kernels import skewnorm_into

        skewnorm_into(rng, self.loc, self.scale, self.skew, self.shift, a, b)

    def _fill_slab(self, streams, bounds, a, b):
        from evalmc.sims.kernels import skewnorm_slab

        streams.run(skewnorm_slab, bounds, self.loc, self.scale, self.skew, self.shift, a, b)


@dataclass(frozen=True)
class Mixture(_Independent, _ShiftTruth, Scenario, registered="mixture"):
    """Two independent samples from a two-component Gaussian mixture (multimodal results).

    A score comes from ``N(loc2, scale2^2)`` with probability `weight`, else from
    ``N(loc1, scale1^2)``; A's scores carry `shift`. Parameters: the ``'mixture'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.scores import Mixture
    >>> scenario = Mixture(weight=0.3)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, batch.b.shape, scenario.truth, round(scenario.a_mean, 4)
    ((2, 10), (2, 10), 'null', 0.9)
    """

    def __post_init__(self):
        _check_sizes(self, "n_a", "n_b")
        check_float("weight", self.weight, low=0, high=1)
        _check_real(self, "loc1", "loc2", "shift")
        _check_sd(self, "scale1", "scale2")
        _check_shifted(self, "loc1", "loc2")

    def cdf(self, x):
        """Cumulative distribution function of B's scores (A's is shifted by `shift`)."""
        c1 = scipy.stats.norm.cdf(x, self.loc1, self.scale1)
        c2 = scipy.stats.norm.cdf(x, self.loc2, self.scale2)
        return (1 - self.weight) * c1 + self.weight * c2

    @property
    def a_mean(self) -> float:
        """A's population mean, ``(1 - weight) loc1 + weight loc2 + shift``."""
        return float((1 - self.weight) * self.loc1 + self.weight * self.loc2 + self.shift)

    def _fill(self, rng, a, b):
        """Draw mixture scores into `a` and `b` in place."""
        from evalmc.sims.kernels import mixture_into

        mixture_into(rng, self.weight, self.loc1, self.loc2, self.scale1, self.scale2,
                     self.shift, a, b)

    def _fill_slab(self, streams, bounds, a, b):
        from evalmc.sims.kernels import mixture_slab

        streams.run(mixture_slab, bounds, self.weight, self.loc1, self.loc2, self.scale1,
                    self.scale2, self.shift, a, b)


def _bw_method(bandwidth: str):
    """The `bandwidth` parameter as scipy.stats.gaussian_kde's ``bw_method``: 'scott',
    'silverman' or a positive factor given as text."""
    if bandwidth in ("scott", "silverman"):
        return bandwidth
    try:
        factor = float(bandwidth)
    except ValueError:
        raise ValueError("`bandwidth` must be 'scott', 'silverman' or a positive number; "
                         f"got {bandwidth!r}.") from None
    return check_float("bandwidth", factor, low=0, open_low=True)


@dataclass(frozen=True)
class Empirical(_Independent, _ShiftTruth, Scenario, registered="empirical"):
    """The user's own run scores, resampled by a smoothed bootstrap (Gaussian kernel).

    Both models draw from the same kernel density estimate of one CSV column, so ``shift=0``
    is an exact null with the shape of the user's scores. The kernel's sd, ``kernel_sd``, is the
    one ``scipy.stats.gaussian_kde(scores, bw_method=bandwidth)`` uses. Parameters: the
    ``'empirical'`` row of :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from evalmc.sims.scores import Empirical
    >>> path = Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = path.write_text("seed,acc\\n1,0.91\\n2,0.89\\n3,0.93\\n4,0.90\\n")
    >>> scenario = Empirical(file=str(path), column="acc")
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, scenario.truth, round(scenario.kernel_sd, 4)
    ((2, 10), 'null', 0.0129)
    """

    scores: np.ndarray = field(init=False, repr=False, compare=False)
    kernel_sd: float = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        _check_sizes(self, "n_a", "n_b")
        _check_real(self, "shift")
        scores = read_scores(self.file, self.column)
        kde = scipy.stats.gaussian_kde(scores, bw_method=_bw_method(self.bandwidth))
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "kernel_sd", float(np.sqrt(kde.covariance[0, 0])))

    def fingerprint(self) -> str:
        """The parameters' fingerprint plus a digest of the scores read from the file."""
        digest = hashlib.blake2b(self.scores.tobytes(), digest_size=8).hexdigest()
        return f"{super().fingerprint()}|scores={digest}"

    def _fill(self, rng, a, b):
        """Draw smoothed-bootstrap scores into `a` and `b` in place."""
        from evalmc.sims.kernels import smoothed_bootstrap_into

        smoothed_bootstrap_into(rng, self.scores, self.kernel_sd, self.shift, a, b)

    def _fill_slab(self, streams, bounds, a, b):
        from evalmc.sims.kernels import smoothed_bootstrap_slab

        streams.run(smoothed_bootstrap_slab, bounds, self.scores, self.kernel_sd, self.shift,
                    a, b)


def read_scores(file: str, column: str = "", *, option: str = "column",
                dropna: bool = True) -> np.ndarray:
    """Read one column of finite scores from a CSV file (:func:`score_column`); `option` names
    `column` in messages, `dropna` skips missing values (else an error naming the row)."""
    if not file:
        raise ValueError("`file` is required: the path of a CSV file of scores.")
    frame = read_table(file, option="file")
    return score_column(frame, column, option=option, dropna=dropna)


def score_column(frame, column: str = "", *, option: str = "column",
                 dropna: bool = True) -> np.ndarray:
    """One column of `frame` as finite scores: at least 2, not all equal; `column` may be empty
    when there is one column of scores."""
    column = column or only_score_column(frame, option=option)
    values = drop_missing(numeric_column(frame, column, option=option), dropna=dropna,
                          option=option, column=column)
    if values.size < 2 or np.ptp(values) == 0:
        raise ValueError(
            f"`{option}` {column!r} needs at least 2 distinct scores; got {values.size} "
            f"value(s){' all equal' if values.size >= 2 else ''}."
        )
    return values


@dataclass(frozen=True)
class EmpiricalPaired(Scenario, registered="empirical-paired"):
    """The user's own paired runs (A and B on the same seeds), resampled jointly by a smoothed
    bootstrap: whole pairs, plus bivariate Gaussian kernel noise.

    The pairs are the complete rows of a CSV file with a column of A's scores and one of B's.
    Under the null A's scores are moved by the pairs' mean difference, mean(B - A), so that A
    and B have B's mean and keep the pairs' covariance; `shift` is then added to A. A drawn pair
    is a resampled pair plus ``N(0, kernel_cov)`` noise, ``kernel_cov`` the one
    ``scipy.stats.gaussian_kde(pairs.T, bw_method=bandwidth)`` uses, so the draws keep the
    correlation of A and B within a seed. Parameters: the ``'empirical-paired'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from evalmc.sims.scores import EmpiricalPaired
    >>> path = Path(tempfile.mkdtemp()) / "pairs.csv"
    >>> _ = path.write_text("seed,a,b\\n1,0.91,0.89\\n2,0.93,0.90\\n3,0.90,0.90\\n"
    ...                     "4,0.94,0.91\\n")
    >>> scenario = EmpiricalPaired(file=str(path), a="a", b="b", n=5)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, batch.paired, scenario.truth, round(scenario.a_mean, 4)
    ((2, 5), True, 'null', 0.9)
    >>> batch.a.round(3).tolist()[0]
    [0.925, 0.894, 0.862, 0.911, 0.907]
    """

    estimand: ClassVar[str] = "mean difference"
    pairs: np.ndarray = field(init=False, repr=False, compare=False)
    kernel_cov: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        _check_sizes(self, "n")
        _check_real(self, "shift")
        if not self.file:
            raise ValueError("`file` is required: the path of a CSV file with a row per seed "
                             "and a column of scores for each model.")
        frame = read_table(self.file, option="file")
        for name in ("a", "b"):
            if not getattr(self, name):
                raise ValueError(f"`{name}` is required: the column of {name.upper()}'s scores; "
                                 f"columns of {self.file!r}: {', '.join(map(str, frame))}.")
        pairs = np.column_stack([numeric_column(frame, self.a, option="a"),
                                 numeric_column(frame, self.b, option="b")])
        pairs = pairs[~np.isnan(pairs).any(axis=1)]
        if len(pairs) < 3:
            raise ValueError(f"`a` and `b` need at least 3 complete pairs; {self.file!r} has "
                             f"{len(pairs)}.")
        cov = np.cov(pairs.T)
        if np.linalg.det(cov) <= 1e-12 * cov[0, 0] * cov[1, 1]:  # |correlation| 1, or constant
            raise ValueError(f"`a` and `b` need pairs that do not lie on one line (a model's "
                             f"scores constant, or B a linear function of A); the "
                             f"{len(pairs)} pairs of {self.file!r} do.")
        kde = scipy.stats.gaussian_kde(pairs.T, bw_method=_bw_method(self.bandwidth))
        object.__setattr__(self, "pairs", read_only(pairs))
        object.__setattr__(self, "kernel_cov", read_only(kde.covariance))

    @property
    def truth(self) -> str:
        """``'null'`` when `shift` is 0: the null is built, not read from the file."""
        return "null" if self.shift == 0 else "alternative"

    @property
    def effect(self) -> float:
        """A's population mean minus B's: the shift."""
        return float(self.shift)

    @property
    def a_mean(self) -> float:
        """A's population mean: B's mean in the file plus the shift."""
        return float(self.pairs[:, 1].mean() + self.shift)

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications of `n` resampled pairs (paired batch)."""
        centred = self.pairs - [np.mean(self.pairs[:, 0] - self.pairs[:, 1]) - self.shift, 0.0]
        picked = centred[rng.integers(0, len(centred), size=(n_reps, self.n))]
        noise = rng.standard_normal((n_reps, self.n, 2)) @ np.linalg.cholesky(self.kernel_cov).T
        drawn = picked + noise
        return Batch(drawn[..., 0], drawn[..., 1], paired=True)

    def fingerprint(self) -> str:
        """The parameters' fingerprint plus a digest of the pairs read from the file."""
        digest = hashlib.blake2b(np.ascontiguousarray(self.pairs).tobytes(),
                                 digest_size=8).hexdigest()
        return f"{super().fingerprint()}|pairs={digest}"
