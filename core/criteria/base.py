"""The result every criterion returns, built-in criteria, and the wrapper for a user's own test."""

from __future__ import annotations

import hashlib
import inspect
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sims.base import Batch


@dataclass(frozen=True)
class CriterionResult:
    """Outcome of one criterion over a batch of replications.

    Attributes
    ----------
    pvalue : ndarray, shape (n_reps,)
        P-values; NaN where the criterion gives a decision only, or failed.
    reject : ndarray of bool, shape (n_reps,)
        The criterion's own decisions where it gives no p-value (ignored elsewhere).
    failed : ndarray of bool, shape (n_reps,)
        Replications where the criterion raised or returned no usable answer.
    errors : dict of int to str
        Message of each failed replication, by its index in the batch.
    """

    pvalue: np.ndarray
    reject: np.ndarray
    failed: np.ndarray
    errors: dict[int, str] = field(default_factory=dict)

    @classmethod
    def from_pvalues(cls, pvalue: np.ndarray) -> CriterionResult:
        """Wrap vectorized p-values; a NaN p-value is a failed replication."""
        failed = np.isnan(pvalue)
        errors = {int(i): "p-value is NaN (degenerate sample)" for i in np.flatnonzero(failed)}
        return cls(pvalue, np.zeros(pvalue.shape, bool), failed, errors)

    def decisions(self, alpha: float) -> np.ndarray:
        """Rejections at level `alpha`: ``pvalue <= alpha``, or the criterion's own decision."""
        with np.errstate(invalid="ignore"):
            by_p = self.pvalue <= alpha
        return np.where(np.isnan(self.pvalue), self.reject, by_p) & ~self.failed


@dataclass(frozen=True)
class BuiltinCriterion:
    """A vectorized criterion: ``pvalues(batch)`` gives one two-sided p-value per replication."""

    name: str
    description: str
    pvalues: Callable[[Batch], np.ndarray]
    paired: bool = False

    @property
    def key(self) -> str:
        return self.name

    def __call__(self, batch: Batch, rng: np.random.Generator) -> CriterionResult:
        return CriterionResult.from_pvalues(self.pvalues(batch))


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
        """Name plus a digest of the function's code, so an edited function is not read from cache."""
        code = getattr(self.func, "__code__", None)
        text = repr((code.co_code, code.co_consts)) if code else repr(self.func)
        return f"{self.name}@{hashlib.blake2b(text.encode(), digest_size=6).hexdigest()}"

    def __call__(self, batch: Batch, rng: np.random.Generator) -> CriterionResult:
        n = batch.n_reps
        pvalue = np.full(n, np.nan)
        reject = np.zeros(n, bool)
        failed = np.zeros(n, bool)
        errors = {}
        kwargs = {"rng": rng} if _accepts_rng(self.func) else {}
        for i in range(n):
            try:
                out = self.func(batch.a[i], batch.b[i], **kwargs)
                if isinstance(out, (bool, np.bool_)):
                    reject[i] = bool(out)
                elif isinstance(out, numbers.Real) and 0.0 <= float(out) <= 1.0:
                    pvalue[i] = float(out)
                else:
                    raise TypeError(f"returned {out!r}; expected a p-value in [0, 1] or a bool")
            except Exception as err:  # noqa: BLE001 - a user's failure is data, recorded
                failed[i] = True
                errors[i] = f"{type(err).__name__}: {err}"
        return CriterionResult(pvalue, reject, failed, errors)


def _accepts_rng(func) -> bool:
    try:
        return "rng" in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
