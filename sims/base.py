"""The batch a scenario draws and the base class every scenario derives from."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np


@dataclass(frozen=True)
class Batch:
    """Scores of models A and B over a block of replications.

    Attributes
    ----------
    a : ndarray, shape (n_reps, n_a)
        Scores of model A; row ``i`` is replication ``i``.
    b : ndarray, shape (n_reps, n_b)
        Scores of model B.
    paired : bool
        Whether column ``j`` of `a` and of `b` come from the same unit (seed, split, example).
    a_val, b_val : ndarray or None
        Validation scores matching `a` and `b`, for scenarios that have them.
    """

    a: np.ndarray
    b: np.ndarray
    paired: bool
    a_val: np.ndarray | None = None
    b_val: np.ndarray | None = None

    @property
    def n_reps(self) -> int:
        return self.a.shape[0]

    def take(self, i: int) -> Batch:
        """The single replication `i`, as a batch of one."""
        pick = slice(i, i + 1)
        return Batch(
            self.a[pick],
            self.b[pick],
            self.paired,
            None if self.a_val is None else self.a_val[pick],
            None if self.b_val is None else self.b_val[pick],
        )


def param(default, kind, doc):
    """A scenario parameter: its default, its type (int, float or str) and a one-line doc."""
    return dataclasses.field(default=default, metadata={"kind": kind, "doc": doc})


@dataclass(frozen=True)
class Scenario:
    """Base of all scenarios: a frozen set of validated parameters.

    Subclasses declare their parameters with :func:`param`, validate them in ``__post_init__``,
    and implement :meth:`draw` and :attr:`truth`.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    paired: ClassVar[bool] = False

    def draw(self, rng: np.random.Generator, n_reps: int) -> Batch:  # pragma: no cover
        """Draw `n_reps` replications."""
        raise NotImplementedError

    @property
    def truth(self) -> str:  # pragma: no cover
        """``'null'`` when A and B have the same population performance, else ``'alternative'``."""
        raise NotImplementedError

    @property
    def sizes(self) -> tuple[int, int]:
        """Number of scores per replication for A and for B."""
        n = getattr(self, "n", None)
        return (n, n) if n is not None else (self.n_a, self.n_b)

    @classmethod
    def parameters(cls) -> list[dataclasses.Field]:
        """The scenario's parameters, in declaration order."""
        return list(dataclasses.fields(cls))

    @classmethod
    def check_names(cls, names) -> None:
        """Raise ValueError naming the first of `names` that is not a parameter."""
        valid = [f.name for f in cls.parameters()]
        for key in names:
            if key not in valid:
                raise ValueError(
                    f"unknown parameter `{key}` for scenario {cls.name!r}; "
                    f"valid parameters: {', '.join(valid)}."
                )

    @classmethod
    def coerce(cls, key: str, text: str):
        """Convert the command-line text of parameter `key` to its declared type."""
        cls.check_names([key])
        kind = {f.name: f for f in cls.parameters()}[key].metadata["kind"]
        if kind is str:
            return text
        try:
            return kind(text) if kind is float else int(text)
        except ValueError:
            rule = "an integer" if kind is int else "a real number"
            raise ValueError(f"`{key}` must be {rule}; got {text!r}.") from None

    def to_dict(self) -> dict:
        """All parameters, defaults included."""
        return {f.name: getattr(self, f.name) for f in self.parameters()}

    def fingerprint(self) -> str:
        """Text that changes whenever the distribution drawn from changes (for the block cache)."""
        return repr((self.name, sorted(self.to_dict().items())))
