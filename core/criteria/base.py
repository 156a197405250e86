"""The result every criterion returns, built-in criteria, and the wrapper for a user's own test."""

from __future__ import annotations

import hashlib
import inspect
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field

import cloudpickle
import numpy as np
from scipy import stats

from evalmc.sims.base import Batch


@dataclass(frozen=True)
class CriterionResult:
    """Outcome of one criterion over a batch of replications.

    A two-sided test gives either p-values, or its statistic and the statistic's null
    distribution (``null = (name, args)`` of a scipy.stats distribution, p = 2 sf(|statistic|)):
    then a decision at level alpha compares |statistic| with one critical value, and p-values
    are computed only when asked for.

    Attributes
    ----------
    failed : ndarray of bool, shape (n_reps,)
        Replications where the criterion raised or returned no usable answer.
    statistic : ndarray or None
    pvalue : ndarray or None
        P-values; NaN where the criterion gave a decision only, or failed.
    null : tuple or None
    reject : ndarray of bool or None
        The criterion's own decisions where it gives no p-value.
    errors : dict of int to str
        Message of each failed replication, by its index in the batch.
    """

    failed: np.ndarray
    statistic: np.ndarray | None = None
    pvalue: np.ndarray | None = None
    null: tuple | None = None
    reject: np.ndarray | None = None
    errors: dict[int, str] = field(default_factory=dict)

    @classmethod
    def from_pvalues(cls, pvalue, statistic=None) -> CriterionResult:
        """Wrap vectorized p-values; a NaN p-value is a failed replication."""
        return cls(np.isnan(pvalue), statistic, pvalue, errors=_nan_errors(pvalue))

    @classmethod
    def from_statistic(cls, statistic, null: tuple) -> CriterionResult:
        """Wrap a two-sided statistic with its null distribution; NaN is a failed replication."""
        return cls(np.isnan(statistic), statistic, null=null, errors=_nan_errors(statistic))

    def pvalues(self) -> np.ndarray:
        """Two-sided p-values (NaN where there are none)."""
        if self.pvalue is not None:
            return self.pvalue
        if self.null is not None:
            return 2.0 * _null_dist(self.null).sf(np.abs(self.statistic))
        return np.full(self.failed.shape, np.nan)

    def decisions(self, alpha: float) -> np.ndarray:
        """Rejections at level `alpha`; a failed replication never rejects."""
        with np.errstate(invalid="ignore"):
            if self.null is not None:
                rejected = np.abs(self.statistic) >= _null_dist(self.null).isf(alpha / 2)
            elif self.reject is None:
                rejected = self.pvalue <= alpha
            else:
                rejected = np.where(np.isnan(self.pvalue), self.reject, self.pvalue <= alpha)
        return rejected & ~self.failed

    @classmethod
    def concat(cls, parts) -> CriterionResult:
        """Join the results of consecutive blocks (errors are not carried over)."""
        first = parts[0]

        def join(name):
            if getattr(first, name) is None:
                return None
            return np.concatenate([getattr(p, name) for p in parts])

        return cls(join("failed"), join("statistic"), join("pvalue"), first.null, join("reject"))


def _nan_errors(values):
    return {int(i): "no result (degenerate sample)" for i in np.flatnonzero(np.isnan(values))}


def _null_dist(null):
    name, args = null
    return getattr(stats, name)(*args)


@dataclass(frozen=True)
class BuiltinCriterion:
    """A vectorized criterion: ``test(batch)`` gives a :class:`CriterionResult`."""

    name: str
    description: str
    test: Callable[[Batch], CriterionResult]
    paired: bool = False

    @property
    def key(self) -> str:
        return self.name

    def __call__(self, batch: Batch, rng: np.random.Generator) -> CriterionResult:
        return self.test(batch)


@dataclass(frozen=True)
class UserCriterion:
    """A user's test on one replication: ``func(a, b)`` or ``func(a, b, rng=rng)``.

    `func` returns a p-value (a number in [0, 1]) or a decision (a bool, True = reject A = B).
    A replication whose call raises, or returns anything else, is recorded as failed with its
    message; it is never redrawn.
    """

    func: Callable
    name: str = ""
    paired: bool = False

    def __post_init__(self):
        if not callable(self.func):
            raise ValueError(f"`criterion` must be a name or a callable; got {self.func!r}.")
        if not self.name:
            object.__setattr__(self, "name", getattr(self.func, "__qualname__", repr(self.func)))

    @property
    def description(self) -> str:
        doc = inspect.getdoc(self.func) or "user criterion"
        return doc.splitlines()[0]

    @property
    def key(self) -> str:
        """Name and a digest of the function's code: an edited function is not read from cache."""
        code = getattr(self.func, "__code__", None)
        text = repr((code.co_code, code.co_consts)) if code else repr(self.func)
        return f"{self.name}@{hashlib.blake2b(text.encode(), digest_size=6).hexdigest()}"

    def __reduce__(self):
        # By value: a function loaded from a user's file is not importable on a worker, and
        # dask pickles by reference whenever plain pickle succeeds on the client.
        return _rebuild_user_criterion, (cloudpickle.dumps(self.func), self.name, self.paired)

    def __call__(self, batch: Batch, rng: np.random.Generator) -> CriterionResult:
        n = batch.n_reps
        pvalue = np.full(n, np.nan)
        reject = np.zeros(n, bool)
        failed = np.zeros(n, bool)
        errors = {}
        kwargs = {"rng": rng} if _accepts_rng(self.func) else {}
        a, b = batch.a, batch.b
        for i in range(n):
            try:
                out = self.func(a[i], b[i], **kwargs)
                if isinstance(out, (bool, np.bool_)):
                    reject[i] = bool(out)
                elif isinstance(out, numbers.Real) and 0.0 <= float(out) <= 1.0:
                    pvalue[i] = float(out)
                else:
                    raise TypeError(f"returned {out!r}; expected a p-value in [0, 1] or a bool")
            except Exception as err:  # noqa: BLE001 - a user's failure is data, recorded
                failed[i] = True
                errors[i] = f"{type(err).__name__}: {err}"
        return CriterionResult(failed, pvalue=pvalue, reject=reject, errors=errors)


def _rebuild_user_criterion(func_bytes, name, paired):
    return UserCriterion(cloudpickle.loads(func_bytes), name, paired)


def _accepts_rng(func) -> bool:
    try:
        return "rng" in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
