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
    """Per-row mean and unbiased variance of `x`, or of ``x - y`` when `y` is given.

    Raises ValueError unless `x` (and `y`, of the same shape) is 2-D with at least 2 columns.

    Parameters
    ----------
    x : array_like, shape (n_reps, n)
        One row per replication, at least 2 columns.
    y : array_like, shape (n_reps, n), optional
        Subtracted from `x` cell by cell (paired differences).

    Returns
    -------
    mean, var : ndarray, shape (n_reps,)
        Each row's mean and unbiased (``n - 1``) variance.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import row_mean_var
    >>> mean, var = row_mean_var(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]))
    >>> mean.tolist(), var.tolist()
    ([2.0, 4.0], [1.0, 4.0])
    >>> [v.round(4).tolist() for v in row_mean_var([[1.0, 2.0, 3.0]], [[0.0, 0.0, 1.0]])]
    [[1.6667], [0.3333]]
    """
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

    A scenario that yields more than scores (validation scores, clusters of items, a table of
    several data sets, the splits of cross-validation, a classifier table's counts) yields a
    subclass, declared in the scenario's own module, that adds its fields and names the data
    it holds in :attr:`holds`; a criterion states the data it ``needs``, and a study refuses
    a criterion whose need the scenario's batch type does not hold before drawing anything
    (:func:`check_needs`).

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

    Attributes
    ----------
    a, b : ndarray
        The scores (filled on first access when the batch was given a `fill`).
    n_reps : int
        Replications in the batch.
    sizes : tuple of int
        ``(n_a, n_b)``.
    holds : frozenset of str
        The data a criterion can ask of a batch of this type: ``{'scores'}`` here.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> batch = Batch(np.arange(6.0).reshape(2, 3), np.zeros((2, 3)), paired=True)
    >>> batch.n_reps, batch.sizes, batch.a.flags.writeable, sorted(batch.holds)
    (2, (3, 3), False, ['scores'])
    >>> [m.tolist() for m in batch.moments()]
    [[1.0, 4.0], [1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]

    Lazy scores: the statistics are known up front, the scores drawn on first use.

    >>> lazy = Batch(paired=False, moments=(np.zeros(2), np.ones(2), np.zeros(2), np.ones(2)),
    ...              fill=lambda: (np.ones((2, 4)), np.zeros((2, 4))), sizes=(4, 4))
    >>> lazy.n_reps, lazy.a.shape
    (2, (2, 4))

    A batch type of your own adds its fields as keywords of its constructor and lists them in
    ``per_rep`` (arrays with one row per replication, cut and joined with the scores) or
    ``shared`` (values of the whole batch); rows, joins and single replications keep them.

    >>> class Weighted(Batch):
    ...     holds = Batch.holds | {"weights"}
    ...     per_rep = ("weights",)
    ...     def __init__(self, a=None, b=None, *, weights, **kwargs):
    ...         super().__init__(a, b, **kwargs)
    ...         self.weights = read_only(weights)
    >>> from evalmc.sims.base import read_only
    >>> w = Weighted(np.zeros((3, 2)), np.ones((3, 2)), paired=True, weights=np.arange(3.0))
    >>> type(w.rows(1, 3)).__name__, w.rows(1, 3).weights.tolist(), w.take(0).weights.tolist()
    ('Weighted', [1.0, 2.0], [0.0])
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
        """A's scores, shape (n_reps, n_a), filled on first use.

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims.base import Batch
        >>> batch = Batch(np.arange(6.0).reshape(2, 3), np.zeros((2, 3)), paired=True)
        >>> batch.a.tolist()
        [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
        """
        self._materialize()
        return self._a

    @property
    def b(self) -> np.ndarray:
        """B's scores, shape (n_reps, n_b), filled on first use.

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims.base import Batch
        >>> lazy = Batch(paired=False, fill=lambda: (np.ones((2, 3)), np.zeros((2, 3))),
        ...              sizes=(3, 3))
        >>> lazy.b.tolist()
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
        """
        self._materialize()
        return self._b

    def _materialize(self):
        """Fill the scores if they are not drawn yet."""
        if self._a is None:
            self._a, self._b = (read_only(x) for x in self._fill())

    @property
    def n_reps(self) -> int:
        """Replications in the batch (read from the scores or the moments).

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims.base import Batch
        >>> Batch(np.zeros((4, 3)), np.ones((4, 3)), paired=True).n_reps
        4
        """
        if self._a is None and self._moments is None:
            self._materialize()
        return self._a.shape[0] if self._a is not None else self._moments[0].shape[0]

    def moments(self):
        """``(mean_a, var_a, mean_b, var_b)`` per replication.

        Returns
        -------
        tuple of 4 ndarray, each of shape (n_reps,)
            Means and unbiased variances, computed from the scores if not given.

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims.base import Batch
        >>> batch = Batch(np.arange(6.0).reshape(2, 3), np.zeros((2, 3)), paired=True)
        >>> [m.tolist() for m in batch.moments()]
        [[1.0, 4.0], [1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
        """
        if self._moments is None:
            self._moments = read_only((*row_mean_var(self.a), *row_mean_var(self.b)))
        return self._moments

    def diff_moments(self):
        """``(mean, var)`` of ``a - b`` per replication (A and B must have equal sizes).

        Returns
        -------
        mean, var : ndarray, shape (n_reps,)

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims.base import Batch
        >>> batch = Batch(np.arange(6.0).reshape(2, 3), np.ones((2, 3)), paired=True)
        >>> [m.tolist() for m in batch.diff_moments()]
        [[0.0, 3.0], [1.0, 1.0]]
        """
        if self._diff_moments is None:
            self._diff_moments = read_only(row_mean_var(self.a, self.b))
        return self._diff_moments

    @classmethod
    def concat(cls, batches) -> Batch | None:
        """The replications of `batches` one after the other, or None if they cannot be joined.

        Lazy scores stay lazy: the joined batch fills each part's scores, in order, when they
        are first needed, so every replication gets the very values it would get alone. Only
        batches of one type, shape and shared fields join; a single batch is returned as it is.

        Parameters
        ----------
        batches : sequence of Batch
            At least one.

        Returns
        -------
        Batch or None

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims.base import Batch
        >>> one = Batch(np.zeros((2, 3)), np.ones((2, 3)), paired=True)
        >>> two = Batch(np.ones((1, 3)), np.ones((1, 3)), paired=True)
        >>> joined = Batch.concat([one, two])
        >>> joined.n_reps, joined.a[:, 0].tolist()
        (3, [0.0, 0.0, 1.0])
        >>> Batch.concat([one, Batch(np.zeros((1, 4)), np.ones((1, 4)), paired=True)]) is None
        True
        """
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
        """Replications ``start:stop`` of a batch of drawn scores, as views.

        Parameters
        ----------
        start, stop : int
            The rows to keep, as in a slice.

        Returns
        -------
        Batch
            Of the same type, with the same shared fields.

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims.base import Batch
        >>> batch = Batch(np.arange(6.0).reshape(2, 3), np.zeros((2, 3)), paired=True)
        >>> batch.rows(1, 2).a.tolist()
        [[3.0, 4.0, 5.0]]
        """
        def part(values):
            if isinstance(values, tuple):
                return tuple(part(v) for v in values)
            return None if values is None else values[start:stop]

        return self._like(part(self.a), part(self.b),
                          {name: part(getattr(self, name)) for name in self.per_rep})

    def take(self, i: int) -> Batch:
        """The single replication `i`, as a batch of one.

        Parameters
        ----------
        i : int
            Row of the replication.

        Returns
        -------
        Batch
            With ``n_reps == 1``.

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims.base import Batch
        >>> batch = Batch(np.arange(6.0).reshape(2, 3), np.zeros((2, 3)), paired=True)
        >>> batch.take(0).a.tolist()
        [[0.0, 1.0, 2.0]]
        """
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
    """Raise ValueError unless `scenario`'s batches hold the data `who` needs.

    A study calls it for every criterion or estimator before it draws anything.

    Parameters
    ----------
    who : str
        The one that needs it, as a message names it (``"criterion 'friedman'"``).
    needs : str
        A name of :attr:`Batch.holds` (``'scores'``, ``'counts'``, ``'table'``, ...).
    scenario : Scenario or Scenario subclass
        Its :attr:`Scenario.batch` type declares what it yields.

    Examples
    --------
    >>> from evalmc.sims import get_scenario
    >>> from evalmc.sims.base import check_needs
    >>> check_needs("criterion 'welch-t'", "scores", get_scenario("normal"))
    >>> check_needs("criterion 'friedman'", "table", get_scenario("normal"))
    Traceback (most recent call last):
    ...
    ValueError: criterion 'friedman' needs table; scenario 'normal' yields scores.
    """
    holds = scenario.batch.holds
    if needs not in holds:
        raise ValueError(f"{who} needs {needs}; scenario {scenario.name!r} yields "
                         f"{', '.join(sorted(holds))}.")


class SlabBlocks(Sequence):
    """The blocks of a slab, each a :class:`Batch` made by ``make(k)`` when first asked for,
    then kept: a study that runs its criteria on the joined slab never makes them.

    Parameters
    ----------
    count : int
        Blocks.
    make : callable
        ``make(k)`` gives block k's Batch.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch, SlabBlocks
    >>> joint = Batch(np.arange(6.0).reshape(3, 2), np.zeros((3, 2)), paired=False)
    >>> blocks = SlabBlocks(2, lambda k: joint.rows(2 * k, 2 * k + 2))
    >>> len(blocks), blocks[1].a.tolist()
    (2, [[4.0, 5.0]])
    """

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
        """Every block's scores ``(a, b)``, joined in block order (for a joined batch's
        ``fill``: each block's scores are the ones it draws alone).

        Returns
        -------
        a, b : ndarray, shape (n_reps, n_a) and (n_reps, n_b)
            The blocks' scores, replications of block 0 first.

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims.base import Batch, SlabBlocks
        >>> joint = Batch(np.arange(6.0).reshape(3, 2), np.zeros((3, 2)), paired=False)
        >>> a, b = SlabBlocks(2, lambda k: joint.rows(k, k + 1)).scores()
        >>> a.tolist(), b.shape
        ([[0.0, 1.0], [2.0, 3.0]], (2, 2))
        """
        return (np.concatenate([block.a for block in self]),
                np.concatenate([block.b for block in self]))


def read_only(values):
    """A read-only view of an array (or of each array of a tuple); None stays None.

    Every criterion sees the same block, so a criterion that changed its input in place would
    change the others' numbers: the view makes such a change raise instead.

    Parameters
    ----------
    values : array_like, tuple of array_like, or None

    Returns
    -------
    ndarray, tuple of ndarray, or None
        Non-writeable views of the same data.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import read_only
    >>> view = read_only(np.zeros(3))
    >>> view[0] = 1.0
    Traceback (most recent call last):
    ...
    ValueError: assignment destination is read-only
    """
    if values is None:
        return None
    if isinstance(values, tuple):
        return tuple(read_only(v) for v in values)
    view = np.asarray(values).view()
    view.flags.writeable = False
    return view


def param(default, kind, doc):
    """A scenario parameter: its default, its type (int, float or str) and a one-line doc.

    Parameters
    ----------
    default : int, float or str
        The value when the parameter is left out.
    kind : type
        ``int``, ``float`` or ``str``: how :meth:`Scenario.coerce` reads it from text.
    doc : str
        One line, as ``evalmc list`` shows it.

    Returns
    -------
    dataclasses.Field
        A field of a frozen dataclass, its `kind` and `doc` in its metadata.

    Examples
    --------
    >>> from evalmc.sims.base import param
    >>> field = param(10, int, "runs per replication")
    >>> field.default, field.metadata["doc"]
    (10, 'runs per replication')
    """
    return dataclasses.field(default=default, metadata={"kind": kind, "doc": doc})


@dataclass(frozen=True)
class Scenario:
    """Base of all scenarios: a frozen set of validated parameters.

    Subclasses declare their parameters with :func:`param`, validate them in ``__post_init__``,
    and implement :meth:`draw` and :attr:`truth`.

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
        """A scenario class ``registered="name"`` takes its name, description and parameters
        (as dataclass fields, before its own) from the row of :data:`evalmc.sims.SCENARIOS`,
        whose ``yields`` must name what its :attr:`batch` type holds; a scenario of your own
        declares them itself, with :func:`param`."""
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
        """Draw `n_reps` replications.

        Parameters
        ----------
        rng : numpy.random.Generator
            The replications' random stream; the same stream gives the same batch.
        n_reps : int
            Replications to draw.

        Returns
        -------
        Batch
            `n_reps` rows of scores (or of the scenario's data).

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims import get_scenario
        >>> batch = get_scenario("normal")(n_a=3).draw(np.random.default_rng(0), 2)
        >>> batch.a.round(4).tolist(), batch.b.shape
        ([[0.1917, -0.0827, 0.1087], [-0.1116, -0.0221, -0.0952]], (2, 10))
        """
        raise NotImplementedError

    @property
    def truth(self) -> str:  # pragma: no cover
        """``'null'`` when A and B have the same population performance, else ``'alternative'``.

        Examples
        --------
        >>> from evalmc.sims import get_scenario
        >>> normal = get_scenario("normal")
        >>> normal(n_a=3).truth, normal(n_a=3, shift=0.5).truth
        ('null', 'alternative')
        """
        raise NotImplementedError

    @property
    def effect(self) -> float | None:
        """Population performance of A minus B (positive: A better); None where undefined.

        Examples
        --------
        >>> from evalmc.sims import get_scenario
        >>> get_scenario("normal")(shift=0.5).effect
        0.5
        """
        return None

    @property
    def a_mean(self) -> float | None:
        """Population mean of A's scores (the estimand of an interval on A's mean); None
        where the scenario does not define it.

        Examples
        --------
        >>> from evalmc.sims import get_scenario
        >>> get_scenario("normal")(mean_a=1.0, shift=0.5).a_mean
        1.5
        """
        return None

    def truth_for(self, alternative: str) -> str:
        """Truth for a criterion whose rejection concludes `alternative`.

        For 'greater' ("A better") every population where A is not better is the null, for
        'less' every one where A is not worse; 'two-sided', or a scenario without an
        :attr:`effect`, gives :attr:`truth`.

        Parameters
        ----------
        alternative : {'two-sided', 'greater', 'less'}

        Returns
        -------
        str
            ``'null'`` or ``'alternative'``.

        Examples
        --------
        >>> from evalmc.sims import get_scenario
        >>> better = get_scenario("normal")(shift=0.5)
        >>> [better.truth_for(alt) for alt in ("two-sided", "greater", "less")]
        ['alternative', 'alternative', 'null']
        """
        check_choice("alternative", alternative, ALTERNATIVES)
        effect = self.effect
        if alternative == "two-sided" or effect is None:
            return self.truth
        null = effect <= 0 if alternative == "greater" else effect >= 0
        return "null" if null else "alternative"

    def draw_slab(self, rngs, sizes) -> tuple[Batch | None, Sequence[Batch]]:
        """Blocks of replications, block ``k`` of ``sizes[k]`` from ``rngs[k]``.

        Returns the blocks joined (None if they cannot be: :meth:`Batch.concat`) and each
        block; scenarios that can draw the joined batch directly do so, and, given the blocks'
        :class:`~evalmc.compute.streams.BlockStreams` as `rngs`, may draw them all in one kernel
        call. Either way block ``k`` holds exactly what ``draw(rngs[k], sizes[k])`` gives.

        Parameters
        ----------
        rngs : sequence of numpy.random.Generator
            One stream per block.
        sizes : sequence of int
            Replications of each block.

        Returns
        -------
        joined : Batch or None
        blocks : list of Batch

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims import get_scenario
        >>> rngs = [np.random.default_rng(0), np.random.default_rng(1)]
        >>> joined, blocks = get_scenario("normal")(n_a=5).draw_slab(rngs, [2, 3])
        >>> joined.n_reps, [block.n_reps for block in blocks]
        (5, [2, 3])
        """
        blocks = [self.draw(rng, size) for rng, size in zip(rngs, sizes, strict=True)]
        return Batch.concat(blocks), blocks

    @property
    def sizes(self) -> tuple[int, int]:
        """Number of scores per replication for A and for B: ``(n, n)`` for a scenario with
        an `n`, else ``(n_a, n_b)``.

        Examples
        --------
        >>> from evalmc.sims import get_scenario
        >>> get_scenario("normal")(n_a=3).sizes, get_scenario("paired-normal")(n=4).sizes
        ((3, 10), (4, 4))
        """
        n = getattr(self, "n", None)
        return (n, n) if n is not None else (self.n_a, self.n_b)

    @classmethod
    def parameters(cls) -> list[dataclasses.Field]:
        """The scenario's parameters, in declaration order.

        Returns
        -------
        list of dataclasses.Field
            Each with its ``default`` and, in ``metadata``, its ``kind`` and ``doc``.

        Examples
        --------
        >>> from evalmc.sims import get_scenario
        >>> [f.name for f in get_scenario("paired-normal").parameters()]
        ['n', 'mean_diff', 'sd_a', 'sd_b', 'rho', 'shift']
        """
        return [f for f in dataclasses.fields(cls) if f.init]

    @classmethod
    def check_names(cls, names) -> None:
        """Raise ValueError naming the first of `names` that is not a parameter.

        Parameters
        ----------
        names : iterable of str

        Examples
        --------
        >>> from evalmc.sims import get_scenario
        >>> get_scenario("normal").check_names(["n_a", "n"])
        Traceback (most recent call last):
        ...
        ValueError: unknown parameter `n` for scenario 'normal'; valid parameters: n_a, n_b, \
mean_a, mean_b, sd_a, sd_b, shift.
        """
        valid = [f.name for f in cls.parameters()]
        for key in names:
            if key not in valid:
                raise ValueError(
                    f"unknown parameter `{key}` for scenario {cls.name!r}; "
                    f"valid parameters: {', '.join(valid)}."
                )

    @classmethod
    def coerce(cls, key: str, text: str):
        """Convert the command-line text of parameter `key` to its declared type.

        Parameters
        ----------
        key : str
            A parameter's name.
        text : str
            Its value as typed.

        Returns
        -------
        int, float or str

        Examples
        --------
        >>> from evalmc.sims import get_scenario
        >>> normal = get_scenario("normal")
        >>> normal.coerce("n_a", "12"), normal.coerce("sd_a", "2")
        (12, 2.0)
        """
        from evalmc.registry import Param

        cls.check_names([key])
        field = {f.name: f for f in cls.parameters()}[key]
        return Param(key, field.default, field.metadata["kind"], field.metadata["doc"]).coerce(text)

    def to_dict(self) -> dict:
        """All parameters, defaults included.

        Returns
        -------
        dict
            Parameter name to value, in declaration order.

        Examples
        --------
        >>> from evalmc.sims import get_scenario
        >>> get_scenario("normal")(n_a=5, shift=0.5).to_dict()
        {'n_a': 5, 'n_b': 10, 'mean_a': 0.0, 'mean_b': 0.0, 'sd_a': 1.0, 'sd_b': 1.0, 'shift': 0.5}
        """
        return {f.name: getattr(self, f.name) for f in self.parameters()}

    def fingerprint(self) -> str:
        """Text that changes whenever the distribution drawn from changes (for the block cache).

        A ``file`` parameter (your own scores) counts by what was read from it, not by its
        path: a scenario that reads a file adds a digest of the scores it read to its
        fingerprint, so a moved or renamed copy of the file reuses the cache.

        Returns
        -------
        str
            The name and the sorted parameters.

        Examples
        --------
        >>> from evalmc.sims import get_scenario
        >>> normal = get_scenario("normal")
        >>> normal(n_a=5).fingerprint() == normal(n_a=5.0).fingerprint()
        True
        >>> normal(n_a=5).fingerprint() == normal(n_a=6).fingerprint()
        False
        """
        params = {k: "<its scores' digest>" if k == "file" else v
                  for k, v in self.to_dict().items()}
        return repr((self.name, sorted(params.items())))


class Records:
    """Records a scenario draws directly, in place of scores (the errors of trained networks,
    say): a table of equal-length columns, any number of rows per replication, each row's
    replication (from 0 within the draw) in column ``rep``.

    Parameters
    ----------
    rows : list of dict
        One dict per row, all with the same keys, ``rep`` among them.
    n_reps : int
        Replications drawn (some may have no row).

    Attributes
    ----------
    columns : dict of str to ndarray
        Each key's values, one per row.

    Examples
    --------
    >>> from evalmc.sims.base import Records
    >>> records = Records([{"rep": 0, "err": 0.1}, {"rep": 1, "err": 0.2}], n_reps=2)
    >>> records.n_reps, {k: v.tolist() for k, v in records.columns.items()}
    (2, {'rep': [0, 1], 'err': [0.1, 0.2]})
    """

    #: What a study can ask of it (:func:`check_needs`): its records, not scores.
    holds: ClassVar[frozenset[str]] = frozenset({"records"})

    def __init__(self, rows: list[dict], n_reps: int):
        if not rows:
            raise ValueError("`rows` must hold at least one row.")
        self.n_reps = n_reps
        self.columns = {name: np.array([row[name] for row in rows]) for name in rows[0]}
