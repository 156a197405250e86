"""Estimators an estimator study runs: built-in intervals for A's mean and for the difference
of A's and B's means, and a user's own; each maps a batch of replications to an
:class:`EstimateResult`."""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np
import scipy

from evalmc.criteria.base import UserFunction
from evalmc.criteria.ttests import welch_df
from evalmc.estimators.registry import ESTIMATORS, PERCENTILE_BOOT, TARGETS
from evalmc.inputs.checks import check_choice, check_float, check_int
from evalmc.sims.base import Batch

#: Replications whose bootstrap means are held at once (bounds memory to ROWS x n_boot).
ROWS = 256


@dataclass(frozen=True)
class EstimateResult:
    """Estimates over a batch of replications (NaN: none); ``low``/``high`` for intervals.

    Attributes
    ----------
    estimate : ndarray, shape (n_reps,)
        Point estimates.
    low, high : ndarray, shape (n_reps,), or None
        The interval's bounds; None for a point estimator.
    failed : ndarray of bool, shape (n_reps,)
        Replications without an answer; by default where the estimate, or a bound of the
        interval, is NaN (a part missing is no answer: it counts in neither the bias nor the
        coverage).
    errors : dict of int to str
        Message of each failed replication, by its index in the batch.

    Examples
    --------
    >>> import numpy as np
    >>> result = EstimateResult(np.array([1.0, np.nan, 2.0]), np.array([0.5, 0.0, np.nan]),
    ...                         np.array([1.5, 1.0, 3.0]))
    >>> result.failed, result.errors  # doctest: +NORMALIZE_WHITESPACE
    (array([False,  True,  True]),
     {1: 'no estimate (degenerate sample)', 2: 'no interval (degenerate sample)'})
    """

    estimate: np.ndarray
    low: np.ndarray | None = None
    high: np.ndarray | None = None
    failed: np.ndarray | None = None
    errors: dict[int, str] = field(default_factory=dict)

    def __post_init__(self):
        if self.failed is None:
            no_estimate = np.isnan(self.estimate)
            no_interval = (np.zeros_like(no_estimate) if self.low is None
                           else np.isnan(self.low) | np.isnan(self.high))
            object.__setattr__(self, "failed", no_estimate | no_interval)
            object.__setattr__(self, "errors", {
                int(i): f"no {'estimate' if no_estimate[i] else 'interval'} (degenerate sample)"
                for i in np.flatnonzero(no_estimate | no_interval)})

    def take(self, start: int, stop: int) -> EstimateResult:
        """Replications ``start:stop``, with their errors (indices shifted to start at 0).

        Examples
        --------
        >>> import numpy as np
        >>> result = EstimateResult(np.array([1.0, np.nan, 2.0]))
        >>> part = result.take(1, 3)
        >>> part.estimate.tolist(), part.errors
        ([nan, 2.0], {0: 'no estimate (degenerate sample)'})
        """
        def part(values):
            return None if values is None else values[start:stop]

        return EstimateResult(part(self.estimate), part(self.low), part(self.high),
                              part(self.failed), {i - start: m for i, m in self.errors.items()
                                                  if start <= i < stop})

    @classmethod
    def concat(cls, parts) -> EstimateResult:
        """Join the results of consecutive blocks of one estimator (errors are not carried over).

        Examples
        --------
        >>> import numpy as np
        >>> parts = [EstimateResult(np.array([1.0])), EstimateResult(np.array([2.0, 3.0]))]
        >>> EstimateResult.concat(parts).estimate.tolist()
        [1.0, 2.0, 3.0]
        """
        def join(name):
            if getattr(parts[0], name) is None:
                return None
            return np.concatenate([getattr(p, name) for p in parts])

        return cls(join("estimate"), join("low"), join("high"), join("failed"))


@dataclass(frozen=True)
class Estimator:
    """A built-in estimator: ``func(batch, rng)`` gives an :class:`EstimateResult`.

    Attributes
    ----------
    level : float or None
        Nominal coverage of its interval; None for a point estimator.
    uses_rng : bool
        Whether it draws random numbers (each block then gets its own stream).
    needs : str
        The data it reads, a name of :attr:`~evalmc.sims.base.Batch.holds`.
    estimand : str or None
        What it estimates, a key of :data:`~evalmc.estimators.registry.TARGETS`, or None.
    paired : bool
        Whether it reads ``a[i, j]`` with ``b[i, j]``: it refuses A and B of different sizes.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> estimator = get_estimator("t-interval(level=0.9)")
    >>> estimator.name, estimator.level, estimator.uses_rng
    ('t-interval(level=0.9)', 0.9, False)
    >>> result = estimator(batch, None)
    >>> result.low.round(4), result.high.round(4)
    (array([ 0.9534, -0.3761]), array([1.7506, 0.6078]))
    """

    name: str
    description: str
    func: Callable
    level: float | None = None
    uses_rng: bool = False
    needs: str = "scores"
    estimand: str | None = None
    paired: bool = False

    @property
    def key(self) -> str:
        """Its cache key: its name, arguments included.

        >>> get_estimator("percentile-bootstrap", n_boot=500).key
        'percentile-bootstrap(n_boot=500)'
        """
        return self.name

    def __call__(self, batch: Batch, rng) -> EstimateResult:
        if self.paired and batch.sizes[0] != batch.sizes[1]:
            raise ValueError(f"estimator {self.name!r} needs paired samples of equal size; got "
                             f"{batch.sizes[0]} scores of A and {batch.sizes[1]} of B.")
        return self.func(batch, rng)


def mean_a(batch, rng):
    """The mean of A's runs in each replication (an estimator without interval).

    Parameters
    ----------
    batch : Batch
        Scores of A (and B), one row per replication.
    rng : numpy.random.Generator or None
        Unused.

    Returns
    -------
    EstimateResult
        ``mean(a)`` per replication; no interval.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> mean_a(batch, None).estimate.round(4)
    array([1.352 , 0.1159])
    """
    if batch.sizes[0] == 1:  # no variance to compute with the mean
        return EstimateResult(batch.a[:, 0].astype(float))
    return EstimateResult(batch.moments()[0])


def t_interval(level: float = 0.95) -> Estimator:
    """The ``t-interval`` family: Student's t interval of A's mean, ``mean +- t s / sqrt(n)``.

    Parameters
    ----------
    level : float
        Nominal coverage, in (0, 1).

    Returns
    -------
    Estimator

    Examples
    --------
    >>> from evalmc.estimators.intervals import get_estimator
    >>> get_estimator("t-interval(level=0.9)").level
    0.9
    """
    level = check_float("level", level, low=0, high=1, open_low=True, open_high=True)

    def func(batch, rng):
        n = batch.sizes[0]
        mean, var = batch.moments()[:2]
        half = scipy.stats.t.isf((1 - level) / 2, n - 1) * np.sqrt(var / n)
        return EstimateResult(mean, mean - half, mean + half)

    return Estimator("", "", func, level)


def percentile_bootstrap(n_boot: int = PERCENTILE_BOOT, level: float = 0.95) -> Estimator:
    """The ``percentile-bootstrap`` family: the percentile bootstrap interval of A's mean.

    Parameters
    ----------
    n_boot : int
        Bootstrap resamples.
    level : float
        Nominal coverage, in (0, 1).

    Returns
    -------
    Estimator

    Examples
    --------
    >>> from evalmc.estimators.intervals import get_estimator
    >>> get_estimator("percentile-bootstrap", n_boot=500).name
    'percentile-bootstrap(n_boot=500)'
    """
    n_boot = check_int("n_boot", n_boot, low=1)
    level = check_float("level", level, low=0, high=1, open_low=True, open_high=True)

    def func(batch, rng):
        from evalmc.estimators.kernels import bootstrap_means_into

        a = np.ascontiguousarray(batch.a, dtype=float)
        low, high = np.empty(a.shape[0]), np.empty(a.shape[0])
        means = np.empty((min(ROWS, a.shape[0]), n_boot))
        for start in range(0, a.shape[0], ROWS):
            rows = a[start:start + ROWS]
            out = means[:rows.shape[0]]
            bootstrap_means_into(rng, rows, out)
            low[start:start + ROWS], high[start:start + ROWS] = np.quantile(
                out, [(1 - level) / 2, (1 + level) / 2], axis=1)
        return EstimateResult(a.mean(axis=1), low, high)

    return Estimator("", "", func, level, uses_rng=True)


def mean_diff(batch, rng):
    """The mean of A's runs minus the mean of B's in each replication (no interval).

    Parameters
    ----------
    batch : Batch
        Scores of A and B, one row per replication.
    rng : numpy.random.Generator or None
        Unused.

    Returns
    -------
    EstimateResult
        ``mean(a) - mean(b)`` per replication; no interval.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 5)), paired=False)
    >>> mean_diff(batch, None).estimate.round(4)
    array([ 1.259 , -0.2942])
    """
    if min(batch.sizes) == 1:  # no variance to compute with the means
        return EstimateResult(batch.a.mean(axis=1) - batch.b.mean(axis=1))
    mean_a, _, mean_b, _ = batch.moments()
    return EstimateResult(mean_a - mean_b)


def welch_interval(level: float = 0.95) -> Estimator:
    """The ``welch-interval`` family: Welch's t interval of ``mean(A) - mean(B)``, the samples
    independent (scipy's ``ttest_ind(equal_var=False).confidence_interval``).

    Parameters
    ----------
    level : float
        Nominal coverage, in (0, 1).

    Returns
    -------
    Estimator

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 2.0, (2, 5)), paired=False)
    >>> result = get_estimator("welch-interval(level=0.9)")(batch, None)
    >>> result.low.round(4), result.high.round(4)
    (array([-0.053 , -2.1912]), array([2.385 , 0.7827]))
    """
    level = check_float("level", level, low=0, high=1, open_low=True, open_high=True)

    def func(batch, rng):
        n_a, n_b = batch.sizes
        mean_a, var_a, mean_b, var_b = batch.moments()
        se2_a, se2_b = var_a / n_a, var_b / n_b
        df = welch_df(se2_a, se2_b, n_a, n_b)
        df = np.where(np.isnan(df), 1.0, df)  # both samples constant: a 0-width interval, as scipy
        half = scipy.stats.t.isf((1 - level) / 2, df) * np.sqrt(se2_a + se2_b)
        diff = mean_a - mean_b
        return EstimateResult(diff, diff - half, diff + half)

    return Estimator("", "", func, level)


def paired_t_interval(level: float = 0.95) -> Estimator:
    """The ``paired-t-interval`` family: Student's t interval of ``mean(A - B)``, paired runs.

    Parameters
    ----------
    level : float
        Nominal coverage, in (0, 1).

    Returns
    -------
    Estimator

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> result = get_estimator("paired-t-interval")(batch, None)
    >>> result.low.round(4), result.high.round(4)
    (array([ 0.3498, -0.413 ]), array([1.9748, 1.1758]))
    """
    level = check_float("level", level, low=0, high=1, open_low=True, open_high=True)

    def func(batch, rng):
        n = batch.sizes[0]
        mean, var = batch.diff_moments()
        half = scipy.stats.t.isf((1 - level) / 2, n - 1) * np.sqrt(var / n)
        return EstimateResult(mean, mean - half, mean + half)

    return Estimator("", "", func, level)


def bootstrap_diff(n_boot: int = PERCENTILE_BOOT, level: float = 0.95) -> Estimator:
    """The ``bootstrap-diff`` family: the percentile bootstrap interval of ``mean(A) -
    mean(B)``, paired runs resampled together, unpaired A and B independently.

    Parameters
    ----------
    n_boot : int
        Bootstrap resamples.
    level : float
        Nominal coverage, in (0, 1).

    Returns
    -------
    Estimator

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> result = get_estimator("bootstrap-diff(n_boot=500)")(batch, np.random.default_rng(1))
    >>> result.low.round(4), result.high.round(4)
    (array([ 0.572 , -0.2129]), array([1.8348, 1.0076]))
    """
    n_boot = check_int("n_boot", n_boot, low=1)
    level = check_float("level", level, low=0, high=1, open_low=True, open_high=True)

    def func(batch, rng):
        from evalmc.criteria.kernels import bootstrap_mean_diffs

        a = np.array(batch.a, dtype=float, order="C")  # writable copies: one numba type
        b = np.array(batch.b, dtype=float, order="C")
        if batch.paired:
            a, b = a - b, np.empty((a.shape[0], 0))
        low, high = np.empty(a.shape[0]), np.empty(a.shape[0])
        diffs = np.empty((min(ROWS, a.shape[0]), n_boot))
        for start in range(0, a.shape[0], ROWS):
            rows = slice(start, start + ROWS)
            out = diffs[:a[rows].shape[0]]
            bootstrap_mean_diffs(rng, a[rows], b[rows], out)
            low[rows], high[rows] = np.quantile(out, [(1 - level) / 2, (1 + level) / 2], axis=1)
        estimate = a.mean(axis=1) - (b.mean(axis=1) if b.shape[1] else 0.0)
        return EstimateResult(estimate, low, high)

    return Estimator("", "", func, level, uses_rng=True)


@dataclass(frozen=True)
class UserEstimator(UserFunction):
    """A user's estimator on one replication: ``func(a, b)`` or ``func(a, b, rng=rng)``.

    It returns an estimate, ``(low, high)`` or ``(estimate, low, high)``; a replication whose
    call raises (SystemExit included) or returns anything else (a NaN, low above high) fails
    with its message. As for a user's criterion, its scores are read-only, what it prints is
    captured, and a parameter named ``clusters`` or ``samples`` receives each item's cluster or
    the items' repeated samples (:class:`~evalmc.criteria.base.UserCriterion`).

    Parameters
    ----------
    func : callable
        The estimator.
    name : str
        Its name in results; default: `func`'s qualified name.
    level : float, optional
        Nominal coverage of its interval; None for a point estimator.
    estimand : str, optional
        A key of :data:`~evalmc.estimators.registry.TARGETS`; default: `func`'s ``estimand``.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> def mean_pm_one(a, b):
    ...     "A's mean, within 1."
    ...     return a.mean(), a.mean() - 1.0, a.mean() + 1.0
    >>> estimator = UserEstimator(mean_pm_one, level=0.9)
    >>> estimator.name, estimator.description
    ('mean_pm_one', "A's mean, within 1.")
    >>> estimator(batch, None).low.round(4)
    array([ 0.352 , -0.8841])
    """

    func: Callable
    name: str = ""
    level: float | None = None
    estimand: str | None = None
    kind: ClassVar[str] = "estimator"
    kinds: ClassVar[str] = "estimators"
    #: It takes A and B of any sizes.
    paired: ClassVar[bool] = False

    def __post_init__(self):
        self._check_func()
        if self.estimand is None:
            object.__setattr__(self, "estimand", getattr(self.func, "estimand", None))
        if self.estimand is not None:
            check_choice("estimand", self.estimand, tuple(TARGETS))

    @property
    def description(self) -> str:
        """The first line of `func`'s docstring, or ``'user estimator'``.

        >>> UserEstimator(lambda a, b: 0.0, name="zero").description
        'user estimator'
        """
        return self._doc_line()

    @functools.cached_property
    def key(self) -> str:
        """Name and a digest of the function by value: an edited function is not cached.

        >>> import numpy as np
        >>> key = UserEstimator(np.median, name="median").key
        >>> key.startswith("median@"), len(key)
        (True, 19)
        """
        return self._digest_key()

    def __call__(self, batch: Batch, rng) -> EstimateResult:
        return self._captured(self._call_rows, batch, rng)

    def _call_rows(self, batch, kwargs) -> EstimateResult:
        """`func` on each replication, its answers read as estimates and intervals."""
        out = np.full((batch.n_reps, 3), np.nan)
        answers, failed, errors = self._rows(batch, kwargs, _parts)
        for i, parts in enumerate(answers):
            if parts is None:
                continue
            if len(parts) == 1:
                out[i, 0] = parts[0]
            else:
                out[i, 3 - len(parts):] = parts
        has_interval = not np.isnan(out[~failed, 1]).all() if (~failed).any() else False
        return EstimateResult(out[:, 0], out[:, 1] if has_interval else None,
                              out[:, 2] if has_interval else None, failed, errors)


def _parts(value) -> tuple[float, ...]:
    """An estimate, (low, high) or (estimate, low, high) as a tuple of floats, checked."""
    parts = (value,) if isinstance(value, numbers.Real) else (
        tuple(value) if isinstance(value, (tuple, list, np.ndarray)) else ())
    if len(parts) not in (1, 2, 3) or not all(isinstance(v, numbers.Real) for v in parts):
        raise TypeError(f"returned {value!r}; expected an estimate, (low, high) or "
                        "(estimate, low, high)")
    parts = tuple(float(v) for v in parts)
    if any(np.isnan(parts)):
        raise ValueError(f"returned {value!r}: NaN is no estimate or bound")
    if len(parts) > 1 and parts[-2] > parts[-1]:
        raise ValueError(f"returned the interval ({parts[-2]:g}, {parts[-1]:g}), whose low "
                         "bound is above its high one; expected (low, high) with low <= high")
    return parts


def get_estimator(spec, **args) -> Estimator | UserEstimator:
    """A built-in name (:data:`~evalmc.estimators.registry.ESTIMATORS`; ``name(key=value)``
    for a family), ``'path/to/file.py:function'``, or a callable.

    Parameters
    ----------
    spec : str, callable or estimator
    **args
        Arguments of a built-in family, as keywords.

    Returns
    -------
    Estimator or UserEstimator

    Examples
    --------
    >>> from evalmc.estimators.intervals import get_estimator
    >>> get_estimator("t-interval").level
    0.95
    """
    if isinstance(spec, (Estimator, UserEstimator)):
        return spec
    if callable(spec):
        return UserEstimator(spec)
    if isinstance(spec, str) and ":" in spec and spec.rsplit(":", 1)[0].endswith(".py"):
        from evalmc.criteria import load_function

        return UserEstimator(load_function(spec, "estimator"), name=spec)
    entry, args = ESTIMATORS.resolve(spec, args)
    target = entry.load()
    # the row is the one home of the defaults and facts: what runs is what the name says
    est = target(**{**entry.defaults(), **args}) if entry.params else Estimator("", "", target)
    facts = entry.facts
    return replace(est, name=entry.name_with(args), description=entry.description,
                   estimand=facts.get("estimand"), paired=facts.get("paired", False),
                   needs=facts.get("needs", "scores"))
