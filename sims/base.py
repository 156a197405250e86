"""The batch a scenario draws and the base class every scenario derives from."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from evalmc.inputs.checks import check_choice

#: Alternatives a criterion can test: A differs from B, A is better, A is worse.
ALTERNATIVES = ("two-sided", "greater", "less")


def row_mean_var(x, y=None):
    """Per-row mean and unbiased variance of 2-D `x` (at least 2 columns), or of ``x - y``."""
    from evalmc.sims.kernels import row_mean_var_into

    x = np.ascontiguousarray(x, dtype=float)
    if x.ndim != 2 or x.shape[1] < 2:
        raise ValueError(f"`x` must be a 2-D array with at least 2 columns; got shape {x.shape}.")
    if y is not None:
        y = np.ascontiguousarray(y, dtype=float)
        if y.shape != x.shape:
            raise ValueError(f"`y` must have the shape of `x`, {x.shape}; got {y.shape}.")
    mean = np.empty(x.shape[0])
    var = np.empty(x.shape[0])
    if y is None:
        row_mean_var_into(x, 0.0, x, mean, var)
    else:
        row_mean_var_into(x, -1.0, y, mean, var)
    return mean, var


class Batch:
    """Scores of models A and B over a block of replications.

    A scenario gives the scores themselves, or, for Gaussian scores, their sufficient statistics
    plus a `fill` that draws scores from their exact conditional distribution given those
    statistics. Criteria that need only the statistics (t-tests) then never pay for the scores,
    and criteria that need the scores all see the same ones.

    A scenario that yields more than scores (validation scores, clusters, splits, counts) yields a
    subclass, declared in its own module, that adds its fields as keywords of its constructor,
    lists them in :attr:`per_rep` or :attr:`shared`, and names the data it holds in
    :attr:`holds`; a study refuses a criterion whose ``needs`` the batch type does not hold
    before drawing anything (:func:`check_needs`).

    Parameters
    ----------
    a, b : ndarray, shape (n_reps, n_a) and (n_reps, n_b), optional
        Scores of A and B; row ``i`` is replication ``i``.
    paired : bool
        Whether column ``j`` of `a` and of `b` come from the same unit (seed, split, example).
    moments : tuple of ndarray, optional
        ``(mean_a, var_a, mean_b, var_b)`` per replication (unbiased variances).
    diff_moments : tuple of ndarray, optional
        ``(mean, var)`` of the paired differences ``a - b`` per replication.
    fill : callable, optional
        ``fill() -> (a, b)``, called once when the scores are first needed.
    sizes : tuple of int, optional
        ``(n_a, n_b)``; needed with `fill`, read from the scores otherwise.

    Every array is held as a read-only view (:func:`read_only`): the criteria of a study share
    the block, so none may change it.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> batch = Batch(np.arange(6.0).reshape(2, 3), np.zeros((2, 3)), paired=True)
    >>> batch.n_reps, batch.sizes, batch.a.flags.writeable, sorted(batch.holds)
    (2, (3, 3), False, ['scores'])
    >>> [m.tolist() for m in batch.moments()]
    [[1.0, 4.0], [1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    """

    #: The data a criterion can ask of a batch of this type (see :func:`check_needs`).
    holds: ClassVar[frozenset[str]] = frozenset({"scores"})
    #: Keywords of the constructor holding one row per replication, cut with the scores.
    per_rep: ClassVar[tuple[str, ...]] = ()
    #: Keywords of the constructor holding a value of the whole batch, kept as they are.
    shared: ClassVar[tuple[str, ...]] = ()
    #: Whether the constructor takes the keywords above: then rows, joins and single
    #: replications keep the type; a type that cannot is cut to a plain Batch and never joined.
    generic: ClassVar[bool] = True

    def __init__(self, a=None, b=None, *, paired: bool, moments=None, diff_moments=None,
                 fill: Callable | None = None, sizes=None):
        if a is None and (fill is None or sizes is None):
            raise ValueError("a Batch needs scores `a`, `b`, or a `fill` and `sizes`.")
        if a is not None:
            a, b = np.asarray(a), np.asarray(b)
            if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[0]:
                raise ValueError("`a` and `b` must be 2-D with one row per replication; got "
                                 f"shapes {a.shape} and {b.shape}.")
        self.sizes = (a.shape[1], b.shape[1]) if a is not None else tuple(sizes)
        if paired and self.sizes[0] != self.sizes[1]:
            raise ValueError("paired scores need as many runs of A as of B; got "
                             f"{self.sizes[0]} and {self.sizes[1]}.")
        self._a, self._b, self.paired = read_only(a), read_only(b), paired
        self._moments, self._diff_moments = read_only(moments), read_only(diff_moments)
        self._fill = fill

    @property
    def a(self) -> np.ndarray:
        """A's scores, shape (n_reps, n_a), filled on first use."""
        self._materialize()
        return self._a

    @property
    def b(self) -> np.ndarray:
        """B's scores, shape (n_reps, n_b), filled on first use."""
        self._materialize()
        return self._b

    def _materialize(self):
        """Fill the scores if they are not drawn yet."""
        if self._a is None:
            self._a, self._b = (read_only(x) for x in self._fill())

    @property
    def n_reps(self) -> int:
        """Replications in the batch (read from the scores or the moments)."""
        if self._a is None and self._moments is None:
            self._materialize()
        return self._a.shape[0] if self._a is not None else self._moments[0].shape[0]

    def moments(self):
        """``(mean_a, var_a, mean_b, var_b)`` per replication, from the scores if not given."""
        if self._moments is None:
            self._moments = read_only((*row_mean_var(self.a), *row_mean_var(self.b)))
        return self._moments

    def diff_moments(self):
        """``(mean, var)`` of ``a - b`` per replication (A and B must have equal sizes)."""
        if self._diff_moments is None:
            self._diff_moments = read_only(row_mean_var(self.a, self.b))
        return self._diff_moments

    @classmethod
    def concat(cls, batches) -> Batch | None:
        """The replications of `batches` one after the other (lazy scores stay lazy), or None
        unless they are of one type, shape and shared fields."""
        first = batches[0]
        if len(batches) == 1:
            return first
        kind = type(first)
        if not (issubclass(kind, Batch) and kind.generic) or any(
                type(b) is not kind or b.sizes != first.sizes or b.paired != first.paired
                or any(getattr(b, name) != getattr(first, name) for name in kind.shared)
                or any(_arity(getattr(b, name)) != _arity(getattr(first, name))
                       for name in kind.per_rep)
                for b in batches):
            return None

        def fill():
            scores = [(b.a, b.b) for b in batches]
            return (np.concatenate([a for a, _ in scores]),
                    np.concatenate([b for _, b in scores]))

        def join(name):
            return _join([getattr(b, name) for b in batches])

        return first._like(join("_a"), join("_b"), {name: join(name) for name in kind.per_rep},
                           moments=join("_moments"), diff_moments=join("_diff_moments"),
                           fill=fill, sizes=first.sizes)

    def rows(self, start: int, stop: int) -> Batch:
        """Replications ``start:stop`` of a batch of drawn scores, as views."""
        def part(values):
            if isinstance(values, tuple):
                return tuple(part(v) for v in values)
            return None if values is None else values[start:stop]

        return self._like(part(self.a), part(self.b),
                          {name: part(getattr(self, name)) for name in self.per_rep})

    def take(self, i: int) -> Batch:
        """The single replication `i`, as a batch of one."""
        return self.rows(i, i + 1)

    def _like(self, a, b, per_rep: dict, **kwargs) -> Batch:
        """A batch of this type (a plain Batch if not :attr:`generic`) with other scores and
        per-replication fields, and the same shared ones."""
        if not self.generic:
            return Batch(a, b, paired=self.paired, **kwargs)
        shared = {name: getattr(self, name) for name in self.shared}
        return type(self)(a, b, paired=self.paired, **per_rep, **shared, **kwargs)


def _join(parts):
    """Concatenate arrays (or, recursively, tuples of them) along replications; None if any
    part is None."""
    if any(p is None for p in parts):
        return None
    if isinstance(parts[0], tuple):
        return tuple(_join(col) for col in zip(*parts, strict=True))
    return np.concatenate(parts)


def _arity(value) -> int | None:
    """Length of a tuple field (reruns, say), None for an array or None."""
    return len(value) if isinstance(value, tuple) else None


def check_needs(who: str, needs: str, scenario) -> None:
    """Raise ValueError unless `scenario`'s batch type holds the data `needs`, naming `who`."""
    holds = scenario.batch.holds
    if needs not in holds:
        raise ValueError(f"{who} needs {needs}; scenario {scenario.name!r} yields "
                         f"{', '.join(sorted(holds))}.")


class SlabBlocks(Sequence):
    """The blocks of a slab, each a :class:`Batch` made by ``make(k)`` when first asked for,
    then kept: a study that runs its criteria on the joined slab never makes them."""

    def __init__(self, count: int, make: Callable[[int], Batch]):
        self._make = make
        self._made: list[Batch | None] = [None] * count

    def __len__(self) -> int:
        return len(self._made)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if self._made[k] is None:
            self._made[k] = self._make(range(len(self))[k])
        return self._made[k]

    def scores(self) -> tuple[np.ndarray, np.ndarray]:
        """Every block's scores ``(a, b)``, joined in block order (a joined batch's ``fill``)."""
        return (np.concatenate([block.a for block in self]),
                np.concatenate([block.b for block in self]))


def read_only(values):
    """A read-only view of an array (or of each array of a tuple); None stays None."""
    if values is None:
        return None
    if isinstance(values, tuple):
        return tuple(read_only(v) for v in values)
    view = np.asarray(values).view()
    view.flags.writeable = False
    return view


def param(default, kind, doc):
    """A scenario parameter: a dataclass field with its default, and its type (int, float or
    str) and one-line doc in its metadata."""
    return dataclasses.field(default=default, metadata={"kind": kind, "doc": doc})


@dataclass(frozen=True)
class Scenario:
    """Base of all scenarios: a frozen set of validated parameters.

    Subclasses declare their parameters with :func:`param` (or take them from their
    :data:`~evalmc.sims.SCENARIOS` row with ``registered="name"``), validate them in
    ``__post_init__``, and implement :meth:`draw` and :attr:`truth`; :attr:`effect` and
    :attr:`a_mean` where defined.

    Examples
    --------
    A scenario of your own: one parameter, and the null of equal means when it is 0.

    >>> from dataclasses import dataclass
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch, Scenario, param
    >>> @dataclass(frozen=True)
    ... class Gap(Scenario):
    ...     name = "gap"
    ...     n: int = param(5, int, "runs per model")
    ...     gap: float = param(0.0, float, "A's mean minus B's")
    ...     @property
    ...     def truth(self):
    ...         return "null" if self.gap == 0 else "alternative"
    ...     def draw(self, rng, n_reps):
    ...         a = self.gap + rng.standard_normal((n_reps, self.n))
    ...         return Batch(a, rng.standard_normal((n_reps, self.n)), paired=False)
    >>> scenario = Gap(gap=0.5)
    >>> scenario.truth, scenario.sizes, scenario.to_dict()
    ('alternative', (5, 5), {'n': 5, 'gap': 0.5})
    >>> scenario.draw(np.random.default_rng(0), 2).a.shape
    (2, 5)
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: The type of batch :meth:`draw` returns; its :attr:`Batch.holds` is what criteria and
    #: estimators may need of the scenario.
    batch: ClassVar[type] = Batch
    #: What :attr:`effect` measures: ``'mean difference'`` when it is the population mean of
    #: A's scores minus B's, which criteria on means estimate by ``mean(a) - mean(b)``; then
    #: the sign and size of their significant estimates are judged (type-S, type-M errors).
    #: A criterion's estimates are judged where its own ``estimand`` is the scenario's.
    estimand: ClassVar[str | None] = None

    def __init_subclass__(cls, registered: str | None = None, **kwargs):
        """With ``registered="name"``, take name, description and parameters from that row of
        :data:`evalmc.sims.SCENARIOS`, whose ``yields`` must be what :attr:`batch` holds."""
        super().__init_subclass__(**kwargs)
        if registered is None:
            return
        from evalmc.sims import SCENARIOS

        entry = SCENARIOS[registered]
        cls.name, cls.description = entry.name, entry.description
        if set(entry.facts["yields"]) != cls.batch.holds:
            raise TypeError(f"scenario {cls.name!r}: its row yields {entry.facts['yields']}, "
                            f"its batch type {cls.batch.__name__} holds {sorted(cls.batch.holds)}")
        own = dict(cls.__dict__.get("__annotations__", {}))
        for p in entry.params:
            setattr(cls, p.name, param(p.default, p.kind, p.doc))
        cls.__annotations__ = {**{p.name: p.kind.__name__ for p in entry.params}, **own}

    def draw(self, rng: np.random.Generator, n_reps: int) -> Batch:  # pragma: no cover
        """Draw `n_reps` replications from `rng` (the same stream gives the same batch)."""
        raise NotImplementedError

    @property
    def truth(self) -> str:  # pragma: no cover
        """``'null'`` when A and B have the same population performance, else ``'alternative'``."""
        raise NotImplementedError

    @property
    def effect(self) -> float | None:
        """Population performance of A minus B (positive: A better); None where undefined."""
        return None

    @property
    def a_mean(self) -> float | None:
        """Population mean of A's scores (the estimand of an interval on A's mean), or None."""
        return None

    def truth_for(self, alternative: str) -> str:
        """Truth for a criterion whose rejection concludes `alternative`: for 'greater' every
        population where A is not better is the null (for 'less', not worse)."""
        check_choice("alternative", alternative, ALTERNATIVES)
        effect = self.effect
        if alternative == "two-sided" or effect is None:
            return self.truth
        null = effect <= 0 if alternative == "greater" else effect >= 0
        return "null" if null else "alternative"

    def draw_slab(self, rngs, sizes) -> tuple[Batch | None, Sequence[Batch]]:
        """Blocks ``k`` of ``sizes[k]`` replications from ``rngs[k]``, joined (or None) and each;
        block ``k`` holds exactly what ``draw(rngs[k], sizes[k])`` gives, however it is drawn."""
        blocks = [self.draw(rng, size) for rng, size in zip(rngs, sizes, strict=True)]
        return Batch.concat(blocks), blocks

    @property
    def sizes(self) -> tuple[int, int]:
        """Scores per replication of A and B: ``(n, n)`` for a scenario with an `n`, else
        ``(n_a, n_b)``."""
        n = getattr(self, "n", None)
        return (n, n) if n is not None else (self.n_a, self.n_b)

    @classmethod
    def parameters(cls) -> list[dataclasses.Field]:
        """The scenario's parameters (fields: ``kind`` and ``doc`` in metadata), in order."""
        return [f for f in dataclasses.fields(cls) if f.init]

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
        from evalmc.registry import Param

        cls.check_names([key])
        field = {f.name: f for f in cls.parameters()}[key]
        return Param(key, field.default, field.metadata["kind"], field.metadata["doc"]).coerce(text)

    def to_dict(self) -> dict:
        """All parameters, defaults included."""
        return {f.name: getattr(self, f.name) for f in self.parameters()}

    def fingerprint(self) -> str:
        """Text that changes whenever the distribution drawn from changes (for the block cache); a
        ``file`` counts by the digest of the scores read from it, not by its path."""
        params = {k: "<its scores' digest>" if k == "file" else v
                  for k, v in self.to_dict().items()}
        return repr((self.name, sorted(params.items())))


class Records:
    """Records a scenario draws in place of scores (the errors of trained networks, say): a
    table of ``columns``, any number of rows per replication, each row's replication in ``rep``."""

    #: What a study can ask of it (:func:`check_needs`): its records, not scores.
    holds: ClassVar[frozenset[str]] = frozenset({"records"})

    def __init__(self, rows: list[dict], n_reps: int):
        if not rows:
            raise ValueError("`rows` must hold at least one row.")
        self.n_reps = n_reps
        self.columns = {name: np.array([row[name] for row in rows]) for name in rows[0]}
