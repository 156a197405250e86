"""The result every criterion returns, built-in criteria, and the wrapper for a user's own test."""

from __future__ import annotations

import functools
import hashlib
import inspect
import io
import modulefinder
import numbers
import site
import sys
import sysconfig
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import ClassVar

import cloudpickle
import numpy as np

from evalmc.criteria.capture import captured_stdout, warn_printed
from evalmc.engine.options import check_interrupted
from evalmc.inputs.checks import check_choice
from evalmc.sims.base import ALTERNATIVES, Batch, check_needs, read_only
from evalmc.stats.nulls import null_distribution


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
    estimate : ndarray or None
        The effect the decision is about, estimated: ``mean(a) - mean(b)`` for the criteria
        on mean differences (type-S and type-M errors are judged on it).
    reruns : tuple of CriterionResult
        The criterion's results on the same replications under the scenario's other runs
        (:attr:`evalmc.sims.base.Batch.reruns`); replicability is measured on them.

    Examples
    --------
    >>> import numpy as np
    >>> result = CriterionResult.from_statistic(np.array([2.5, -0.5, np.nan]), ("norm", ()))
    >>> result.pvalues().round(4), result.failed
    (array([0.0124, 0.6171,    nan]), array([False, False,  True]))
    >>> result.decisions(0.05), result.errors
    (array([ True, False, False]), {2: 'no result (degenerate sample)'})
    """

    failed: np.ndarray
    statistic: np.ndarray | None = None
    pvalue: np.ndarray | None = None
    null: tuple | None = None
    reject: np.ndarray | None = None
    errors: dict[int, str] = field(default_factory=dict)
    estimate: np.ndarray | None = None
    reruns: tuple = ()

    @classmethod
    def from_pvalues(cls, pvalue, statistic=None, estimate=None) -> CriterionResult:
        """Wrap vectorized p-values; a NaN p-value is a failed replication.

        Parameters
        ----------
        pvalue : ndarray, shape (n_reps,)
            Two-sided p-values.
        statistic, estimate : ndarray, shape (n_reps,), optional
            The test statistic and the estimated effect.

        Returns
        -------
        CriterionResult

        Examples
        --------
        >>> import numpy as np
        >>> result = CriterionResult.from_pvalues(np.array([0.01, np.nan, 0.3]))
        >>> result.failed, result.decisions(0.05)
        (array([False,  True, False]), array([ True, False, False]))
        """
        return cls(np.isnan(pvalue), statistic, pvalue, errors=_nan_errors(pvalue),
                   estimate=estimate)

    @classmethod
    def from_statistic(cls, statistic, null: tuple, estimate=None) -> CriterionResult:
        """Wrap a two-sided statistic with its null distribution; NaN is a failed replication.

        Parameters
        ----------
        statistic : ndarray, shape (n_reps,)
            The test statistic; p = 2 sf(|statistic|).
        null : tuple
            ``(name, args)`` of a scipy.stats distribution, e.g. ``('t', (9,))``.
        estimate : ndarray, shape (n_reps,), optional
            The estimated effect.

        Returns
        -------
        CriterionResult

        Examples
        --------
        >>> import numpy as np
        >>> result = CriterionResult.from_statistic(np.array([2.5, -0.5]), ("t", (9,)))
        >>> result.pvalues().round(4)
        array([0.0339, 0.6291])
        """
        return cls(np.isnan(statistic), statistic, null=null, errors=_nan_errors(statistic),
                   estimate=estimate)

    def pvalues(self) -> np.ndarray:
        """Two-sided p-values (NaN where there are none).

        Returns
        -------
        ndarray, shape (n_reps,)
            The stored p-values, or those of the statistic under its null.

        Examples
        --------
        >>> import numpy as np
        >>> CriterionResult.from_statistic(np.array([1.96]), ("norm", ())).pvalues().round(4)
        array([0.05])
        """
        if self.pvalue is not None:
            return self.pvalue
        if self.null is not None:
            return 2.0 * null_distribution(self.null).sf(np.abs(self.statistic))
        return np.full(self.failed.shape, np.nan)

    def decisions(self, alpha: float) -> np.ndarray:
        """Rejections at level `alpha`; a failed replication never rejects.

        Parameters
        ----------
        alpha : float
            The level.

        Returns
        -------
        ndarray of bool, shape (n_reps,)
            ``p <= alpha`` (or ``|statistic|`` at or beyond the critical value); the
            criterion's own decision where it gave no p-value.

        Examples
        --------
        >>> import numpy as np
        >>> result = CriterionResult(np.zeros(2, bool), statistic=np.array([0.97, 0.5]),
        ...                          pvalue=np.full(2, np.nan), reject=np.array([True, False]))
        >>> result.decisions(0.05), result.decisions(0.01)  # decisions only: any level
        (array([ True, False]), array([ True, False]))
        """
        with np.errstate(invalid="ignore"):
            if self.null is not None:
                rejected = np.abs(self.statistic) >= null_distribution(self.null).isf(alpha / 2)
            elif self.reject is None:
                rejected = self.pvalue <= alpha
            else:
                rejected = np.where(np.isnan(self.pvalue), self.reject, self.pvalue <= alpha)
        return rejected & ~self.failed

    @property
    def decision_only(self) -> bool:
        """Whether the replications that did not fail (one at least) gave decisions, no p-value.

        Examples
        --------
        >>> import numpy as np
        >>> CriterionResult.from_pvalues(np.array([0.2, 0.01])).decision_only
        False
        >>> CriterionResult(np.zeros(1, bool), pvalue=np.full(1, np.nan),
        ...                 reject=np.ones(1, bool)).decision_only
        True
        """
        valid = ~self.failed
        return bool(self.reject is not None and valid.any()
                    and np.isnan(self.pvalues()[valid]).all())

    def take(self, start: int, stop: int) -> CriterionResult:
        """Replications ``start:stop``, with their errors.

        Parameters
        ----------
        start, stop : int
            The slice of replications; error indices are shifted to start at 0.

        Returns
        -------
        CriterionResult

        Examples
        --------
        >>> import numpy as np
        >>> result = CriterionResult.from_pvalues(np.array([0.01, np.nan, 0.3]))
        >>> part = result.take(1, 3)
        >>> part.pvalue.tolist(), part.errors
        ([nan, 0.3], {0: 'no result (degenerate sample)'})
        """
        def part(values):
            return None if values is None else values[start:stop]

        return CriterionResult(part(self.failed), part(self.statistic), part(self.pvalue),
                               self.null, part(self.reject),
                               {i - start: m for i, m in self.errors.items() if start <= i < stop},
                               part(self.estimate),
                               tuple(r.take(start, stop) for r in self.reruns))

    @classmethod
    def concat(cls, parts) -> CriterionResult:
        """Join the results of consecutive blocks (errors are not carried over).

        Parameters
        ----------
        parts : sequence of CriterionResult
            Results of consecutive blocks of one criterion (the same fields set).

        Returns
        -------
        CriterionResult

        Examples
        --------
        >>> import numpy as np
        >>> parts = [CriterionResult.from_pvalues(np.array([0.01])),
        ...          CriterionResult.from_pvalues(np.array([0.2, 0.04]))]
        >>> CriterionResult.concat(parts).pvalue.tolist()
        [0.01, 0.2, 0.04]
        """
        first = parts[0]

        def join(name):
            if getattr(first, name) is None:
                return None
            return np.concatenate([getattr(p, name) for p in parts])

        return cls(join("failed"), join("statistic"), join("pvalue"), first.null, join("reject"),
                   estimate=join("estimate"),
                   reruns=tuple(cls.concat([p.reruns[r] for p in parts])
                                for r in range(len(first.reruns))))


def _nan_errors(values):
    return {int(i): "no result (degenerate sample)" for i in np.flatnonzero(np.isnan(values))}


@dataclass(frozen=True)
class BuiltinCriterion:
    """A vectorized criterion, as a row of :data:`evalmc.criteria.registry.CRITERIA` builds it.

    ``test(data)``, or ``test(data, rng)`` when it draws random numbers, gives a
    :class:`CriterionResult` for every replication of a batch; `data` is the batch, or its
    8-cell ``counts`` for a criterion that needs them.

    Attributes
    ----------
    name : str
        Its registered name, with its arguments: ``name(key=value,...)``. Its results and its
        random streams are named by it.
    description : str
    test : callable
    paired : bool
        It reads ``a[i, j]`` with ``b[i, j]``: A and B must have equal sizes.
    decision_only : bool
        The criterion gives its own decisions and no p-value: one rate whatever the level.
    alternative : {'two-sided', 'greater', 'less'}
        What its rejection concludes: A differs from B, A is better, A is worse. A scenario's
        truth depends on it (``Scenario.truth_for``).
    uses_rng : bool
        It draws random numbers: a study then runs it block by block, each with its own
        stream; otherwise on several blocks at once.
    needs : str
        The data it reads, one of the names a batch :attr:`~evalmc.sims.base.Batch.holds`:
        ``'scores'``, ``'counts'``, ``'table'``, ``'splits'``, ...
    schemes : tuple of str
        For a test on cross-validation splits: the split schemes it is for.
    loss : str or None
        The loss of an example it needs (``'0/1'``), or None for any.
    estimand : str
        What its estimate, when it gives one, estimates: its type-S and type-M errors are
        judged where the scenario's :attr:`~evalmc.sims.base.Scenario.estimand` is the same.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria import get_criterion
    >>> from evalmc.sims.base import Batch
    >>> crit = get_criterion("welch-t")
    >>> batch = Batch(np.array([[1.0, 2.0, 3.0]]), np.array([[2.0, 3.0, 5.0]]), paired=False)
    >>> crit(batch, None).pvalues().round(4)  # scipy.stats.ttest_ind(..., equal_var=False)
    array([0.2846])
    """

    name: str
    description: str
    test: Callable[..., CriterionResult]
    paired: bool = False
    decision_only: bool = False
    alternative: str = "two-sided"
    uses_rng: bool = False
    needs: str = "scores"
    schemes: tuple[str, ...] = ()
    loss: str | None = None
    estimand: str = "mean difference"

    def __post_init__(self):
        check_choice("alternative", self.alternative, ALTERNATIVES)

    @property
    def key(self) -> str:
        """Its cache key: its name, arguments included.

        Examples
        --------
        >>> from evalmc.criteria import get_criterion
        >>> get_criterion("average-delta(delta=1)").key
        'average-delta(delta=1)'
        """
        return self.name

    def __call__(self, batch: Batch, rng: np.random.Generator) -> CriterionResult:
        if not hasattr(batch, "holds"):  # arrays, say: not a batch of replications
            raise TypeError(f"criterion {self.name!r} is called on a Batch of replications, as "
                            "criterion(batch, rng); on your own two samples of scores call "
                            "criterion.on(a, b) (then .pvalues()[0]); got "
                            f"{type(batch).__name__}.")
        self.check_batch(batch)
        data = batch.counts if self.needs == "counts" else batch
        return self.test(data, rng) if self.uses_rng else self.test(data)

    def on(self, a, b, rng=0) -> CriterionResult:
        """The criterion on your own scores of A and B: one replication, or one per row.

        Parameters
        ----------
        a, b : array_like, shape (n_a,) and (n_b,), or (n_reps, n_a) and (n_reps, n_b)
            Scores of A and B (a paired criterion reads ``a[j]`` with ``b[j]``).
        rng : int or numpy.random.Generator
            Seed (or Generator) of the random numbers a criterion that draws them uses.

        Returns
        -------
        CriterionResult
            One entry per replication: ``.pvalues()``, ``.decisions(alpha)``, ``.statistic``.

        Examples
        --------
        >>> import evalmc
        >>> welch = evalmc.get_criterion("welch-t")
        >>> welch.on([1.0, 2.0, 3.0], [2.0, 3.0, 5.0]).pvalues().round(4)
        array([0.2846])
        >>> evalmc.get_criterion("single-point", sigma=1.0).on([3.0], [0.0]).decisions(0.05)
        array([ True])
        """
        if self.needs != "scores":
            raise ValueError(f"criterion {self.name!r} reads {self.needs}, not two samples of "
                             "scores: give it a batch that holds them, as a scenario draws "
                             "(criterion(batch, rng)).")
        a, b = (np.asarray(x, dtype=float) for x in (a, b))
        if a.ndim != b.ndim or a.ndim not in (1, 2) or (a.ndim == 2 and len(a) != len(b)):
            raise ValueError("`a` and `b` must be 1-D samples, or 2-D with one row per "
                             f"replication (as many rows each); got shapes {a.shape} and "
                             f"{b.shape}.")
        if self.paired and a.shape != b.shape:
            raise ValueError(f"criterion {self.name!r} pairs a[j] with b[j]: `a` and `b` must "
                             f"have the same shape; got {a.shape} and {b.shape}.")
        batch = Batch(np.atleast_2d(a), np.atleast_2d(b), paired=self.paired)
        return self(batch, np.random.default_rng(rng))

    def check_batch(self, batch: Batch) -> None:
        """Raise ValueError if the batch lacks what the criterion reads.

        The batch must hold the data it :attr:`needs`, and a paired test reads ``a[i, j]``
        with ``b[i, j]``: either is refused before any kernel runs.

        Parameters
        ----------
        batch : Batch
            The block of replications it is about to run on.

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.criteria import get_criterion
        >>> from evalmc.sims.base import Batch
        >>> batch = Batch(np.zeros((1, 3)), np.zeros((1, 4)), paired=False)
        >>> get_criterion("welch-t").check_batch(batch)  # unpaired: fine
        >>> get_criterion("paired-t").check_batch(batch)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: criterion 'paired-t' needs paired samples of equal width; got 3 scores ...
        """
        if self.needs not in batch.holds:
            raise ValueError(f"criterion {self.name!r} needs {self.needs}; this batch holds "
                             f"{', '.join(sorted(batch.holds))}.")
        if self.paired and batch.sizes[0] != batch.sizes[1]:
            raise ValueError(f"criterion {self.name!r} needs paired samples of equal width; got "
                             f"{batch.sizes[0]} scores of A and {batch.sizes[1]} of B.")

    def check_scenario(self, condition) -> None:
        """Raise ValueError unless `condition` gives what the criterion is for: batches that
        hold the data it :attr:`needs` and, for a test on cross-validation splits, the splits
        of one of its :attr:`schemes` and its :attr:`loss`. A study calls it before drawing.

        Parameters
        ----------
        condition : Scenario
            The scenario it is to run on.

        Examples
        --------
        >>> from evalmc.criteria import get_criterion
        >>> from evalmc.sims import get_scenario
        >>> get_criterion("welch-t").check_scenario(get_scenario("normal")())
        >>> get_criterion("5x2cv-t").check_scenario(get_scenario("normal")())
        Traceback (most recent call last):
        ...
        ValueError: criterion '5x2cv-t' needs splits; scenario 'normal' yields scores.
        >>> get_criterion("5x2cv-t").check_scenario(get_scenario("cv-regression")())
        Traceback (most recent call last):
        ...
        ValueError: criterion '5x2cv-t' needs the errors of a data set split by '5x2'; got \
scheme 'random'.
        """
        check_needs(f"criterion {self.name!r}", self.needs, condition)
        if not self.schemes:
            return
        scheme = condition.splits.scheme
        if scheme not in self.schemes:
            raise ValueError(f"criterion {self.name!r} needs the errors of a data set split by "
                             f"{' or '.join(map(repr, self.schemes))}; got scheme {scheme!r}.")
        if self.loss is not None and condition.loss != self.loss:
            raise ValueError(f"criterion {self.name!r} needs each example's {self.loss} error; "
                             f"scenario {condition.name!r} has {condition.loss} loss.")


def build(entry, args: dict | None = None) -> BuiltinCriterion:
    """The criterion of a registry row, with `args` for a family's parameters.

    Parameters
    ----------
    entry : evalmc.registry.Entry
        A row of :data:`evalmc.criteria.registry.CRITERIA`.
    args : dict, optional
        Arguments of a family (a row with ``params``), checked and in order
        (:meth:`evalmc.registry.Registry.resolve`).

    Returns
    -------
    BuiltinCriterion
        Named ``name(key=value,...)`` by the arguments that differ from the defaults.

    Examples
    --------
    >>> from evalmc.criteria.base import build
    >>> from evalmc.criteria.registry import CRITERIA
    >>> build(CRITERIA["single-point"], {"sigma": 1.0}).name
    'single-point(sigma=1)'
    """
    args = args or {}
    facts = entry.facts
    test = entry.load()
    if entry.params:  # a family: its target checks the arguments and builds the test, with
        test = test(**{**entry.defaults(), **args})  # the row's defaults, which name it
    elif facts.get("options"):
        test = functools.partial(test, **facts["options"])
    return BuiltinCriterion(
        entry.name_with(args), entry.description, test,
        paired=facts.get("paired", False), decision_only=facts.get("decision_only", False),
        alternative=facts.get("alternative", "two-sided"),
        uses_rng=facts.get("uses_rng", False), needs=facts.get("needs", "scores"),
        schemes=tuple(facts.get("schemes", ())), loss=facts.get("loss"),
        estimand=facts.get("estimand", "mean difference"))


class UserFunction:
    """What a user's criterion and a user's estimator share: `func`, called on the scores of
    one replication, with its name and description, its cache key, its pickling by value, and
    the loop calling it on each replication of a block (its failures recorded as data, its
    prints captured). A subclass is a frozen dataclass whose first field is ``func`` and
    second ``name``."""

    #: What it is called in messages, and its plural.
    kind: ClassVar[str] = "criterion"
    kinds: ClassVar[str] = "criteria"
    uses_rng: ClassVar[bool] = True  # it may; and it runs one replication at a time anyway

    @property
    def needs(self) -> str:
        """What its batches must hold: ``'clusters'`` or ``'samples'`` when `func` takes a
        parameter of that name (:data:`STRUCTURE`), else the scores ``a``, ``b``."""
        return next((name for name in STRUCTURE if _accepts(self.func, name)), "scores")

    def _check_func(self) -> None:
        """Refuse a `func` that is not callable, and name an unnamed one after it."""
        if not callable(self.func):
            raise ValueError(f"`{self.kind}` must be a name or a callable; got {self.func!r}.")
        if not self.name:
            object.__setattr__(self, "name", getattr(self.func, "__qualname__", repr(self.func)))

    def _doc_line(self) -> str:
        """The first line of `func`'s docstring, or ``'user <kind>'``."""
        doc = inspect.getdoc(self.func) or f"user {self.kind}"
        return doc.splitlines()[0]

    def _digest_key(self) -> str:
        """Name and digest of `func` by value; a ValueError naming it when it cannot be
        pickled."""
        try:
            digest = function_digest(self.func)
        except Exception as err:  # noqa: BLE001 - any pickling error, reported with its cause
            raise ValueError(f"{self.kind} {self.name!r} cannot be pickled by value, as its cache "
                             f"key needs: {type(err).__name__}: {err}") from err
        return f"{self.name}@{digest}"

    def __reduce__(self):
        # By value: a function loaded from a user's file is not importable on a worker, and
        # dask pickles by reference whenever plain pickle succeeds on the client.
        values = tuple(getattr(self, f.name) for f in fields(self) if f.name != "func")
        return _rebuild_user_function, (type(self), cloudpickle.dumps(self.func), values,
                                        self.key)

    def _captured(self, call, batch, rng):
        """``call(batch, kwargs)``, `func`'s keywords (`rng` if it takes one) in `kwargs`,
        what it prints captured and announced once."""
        kwargs = {"rng": rng} if _accepts(self.func, "rng") else {}
        if _accepts(self.func, "clusters"):
            kwargs["clusters"] = cluster_ids(batch)
        with captured_stdout() as printed:
            result = call(batch, kwargs)
        warn_printed(self.name, printed.getvalue(), self.kind, self.kinds)
        return result

    def _rows(self, batch, kwargs, read) -> tuple[list, np.ndarray, dict]:
        """`func` called on each replication of `batch`, its answer read by `read`: the answers
        (None where the call failed), which failed, and the message of each failure."""
        n = batch.n_reps
        answers, failed, errors = [None] * n, np.zeros(n, bool), {}
        a, b = batch.a, batch.b
        samples = _samples(self.func, batch)
        for i in range(n):
            check_interrupted()
            if samples is not None:
                kwargs = {**kwargs, "samples": (samples[0][i], samples[1][i])}
            try:
                answers[i] = read(self.func(a[i], b[i], **kwargs))
            except (Exception, SystemExit) as err:  # noqa: BLE001 - a failure is data
                check_interrupted()  # unless it was Ctrl-C, turned into an error by a library
                failed[i] = True
                errors[i] = failure_message(err, self.kind, self.kinds)
        return answers, failed, errors


#: The parameters through which a user's function receives the structure of the items, in the
#: order its ``needs`` names them: each item's cluster, and each item's samples.
STRUCTURE = ("clusters", "samples")


def cluster_ids(batch: Batch) -> np.ndarray:
    """The cluster of each item of `batch` (one per score of ``a``), numbered 0, 1, ... in order
    (read-only); each item its own cluster for a batch without clusters.

    Parameters
    ----------
    batch : Batch
        A :class:`~evalmc.sims.items.ClusteredBatch` (its ``cluster_sizes``) or any batch.

    Returns
    -------
    ndarray of int64

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.items import ClusteredBatch
    >>> cluster_ids(ClusteredBatch(np.ones((1, 5)), np.zeros((1, 5)), paired=True,
    ...                            cluster_sizes=(2, 3))).tolist()
    [0, 0, 1, 1, 1]
    """
    from evalmc.sims.items import cluster_sizes

    sizes = cluster_sizes(batch)
    ids = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    ids.flags.writeable = False
    return ids


def _samples(func, batch):
    """A's and B's samples of every item, ``(n_reps, items, n_samples)`` each, when `func` takes
    ``samples`` (else None)."""
    if not _accepts(func, "samples"):
        return None
    from evalmc.sims.items import sample_scores

    return tuple(read_only(np.asarray(x)) for x in sample_scores(batch))


def _rebuild_user_function(cls, func_bytes, values, key):
    made = cls(cloudpickle.loads(func_bytes), *values)
    made.__dict__["key"] = key  # the client's: it names the results and seeds the stream
    return made


@dataclass(frozen=True)
class UserCriterion(UserFunction):
    """A user's test: ``func(a, b)`` or ``func(a, b, rng=rng)``, on one replication, or on
    the whole block when vectorized.

    A `func` with a parameter named ``clusters`` also receives the cluster of each item
    (:func:`cluster_ids`: one int per score of ``a``, numbered 0, 1, ... in order), and one
    named ``samples`` A's and B's repeated samples of each item, a pair of arrays items x
    samples (``a`` and ``b`` are the items' means over their samples); its scenario must then
    hold clusters (``needs``), as :class:`~evalmc.sims.items.ClusteredBatch` does. Vectorized,
    it receives the same clusters and the samples of the whole block.

    `func` returns a p-value (a float in [0, 1]), a decision (a bool, True = reject A = B, or
    the integer 0 or 1), a result with a ``pvalue`` attribute (scipy's), or a pair
    ``(statistic, pvalue)``. A replication whose call raises (SystemExit included), or returns
    anything else, is recorded as failed with its message; it is never redrawn. The scores it
    receives are read-only (they are shared with the other criteria), and what it prints is
    captured (:mod:`evalmc.criteria.capture`). `alternative` is what a rejection concludes, as for
    :class:`BuiltinCriterion`.

    Vectorized (``vectorized=True``; by default when `func` has an ``axis`` parameter, as for
    scipy.stats' ``vectorized=None``), it is called once per block as
    ``func(A, B, axis=1)`` with replications on the first axis, and returns one answer per
    replication in any of the forms above (arrays of shape (n_reps,)); a call that raises, or
    answers in another shape (one p-value for the whole block), fails the block. A block with
    as many replications as scores is also called without its last replication, where an
    answer along the scores' axis (axis 0 instead of `axis`) shows by its shape; what the shape
    cannot show is not caught: a block of one replication of one score, or an answer that
    mixes replications in another way (a statistic pooled over the block).

    Parameters
    ----------
    func : callable
        The test.
    name : str
        Its name in results; default: `func`'s qualified name.
    paired : bool
        It reads ``a[i, j]`` with ``b[i, j]``.
    alternative : {'two-sided', 'greater', 'less'}
        What its rejection concludes.
    vectorized : bool, optional
        Called once per block with ``axis=1``; default: whether `func` takes ``axis``.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> def medians_apart(a, b):
    ...     "A's median beats B's by more than 0.5."
    ...     return bool(np.median(a) - np.median(b) > 0.5)
    >>> criterion = UserCriterion(medians_apart)
    >>> criterion.name, criterion.description, criterion.vectorized
    ('medians_apart', "A's median beats B's by more than 0.5.", False)
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> result = criterion(batch, np.random.default_rng(0))
    >>> result.reject, result.decision_only
    (array([ True,  True]), True)
    """

    func: Callable
    name: str = ""
    paired: bool = False
    alternative: str = "two-sided"
    vectorized: bool | None = None
    #: Not declared: a study judges from the results (:attr:`CriterionResult.decision_only`).
    decision_only: ClassVar[bool | None] = None

    def __post_init__(self):
        self._check_func()
        check_choice("alternative", self.alternative, ALTERNATIVES)
        if self.vectorized is None:
            object.__setattr__(self, "vectorized", _accepts(self.func, "axis"))

    @property
    def description(self) -> str:
        """The first line of `func`'s docstring, or ``'user criterion'``.

        Examples
        --------
        >>> UserCriterion(lambda a, b: 0.5, name="constant").description
        'user criterion'
        """
        return self._doc_line()

    @functools.cached_property
    def key(self) -> str:
        """Name and a digest of the function by value (:func:`function_digest`).

        An edited function, helper or global of its module is not read from cache.

        Examples
        --------
        >>> import numpy as np
        >>> key = UserCriterion(np.allclose, name="close").key
        >>> key.startswith("close@"), len(key)
        (True, 18)
        """
        return self._digest_key() + ("/block" if self.vectorized else "")

    def check_scenario(self, condition) -> None:
        """Raise ValueError unless `condition`'s batches hold scores.

        Parameters
        ----------
        condition : Scenario
            The scenario it is to run on.

        Examples
        --------
        >>> from evalmc.sims import get_scenario
        >>> UserCriterion(lambda a, b: 0.5, name="half").check_scenario(
        ...     get_scenario("paired-classifiers")())
        Traceback (most recent call last):
        ...
        ValueError: criterion 'half' needs scores; scenario 'paired-classifiers' yields counts.
        """
        check_needs(f"criterion {self.name!r}", self.needs, condition)

    def __call__(self, batch: Batch, rng: np.random.Generator) -> CriterionResult:
        return self._captured(self._call_block if self.vectorized else self._call_rows, batch,
                              rng)

    def _call_rows(self, batch, kwargs) -> CriterionResult:
        """`func` on each replication, its answers read as p-values and decisions."""
        n = batch.n_reps
        pvalue = np.full(n, np.nan)
        reject = np.zeros(n, bool)
        answers, failed, errors = self._rows(batch, kwargs, _pvalue_or_decision)
        for i, out in enumerate(answers):
            if isinstance(out, bool):
                reject[i] = out
            elif out is not None:
                pvalue[i] = out
        return CriterionResult(failed, pvalue=pvalue, reject=reject, errors=errors)

    def _call_block(self, batch, kwargs) -> CriterionResult:
        n = batch.n_reps
        samples = _samples(self.func, batch)
        try:
            whole = {} if samples is None else {"samples": samples}
            out = np.asarray(_unwrap(self.func(batch.a, batch.b, axis=1, **kwargs, **whole)))
            _check_block_shape(out.shape, n)  # one answer for the block is not one per rep
            if n > 1 and n in (batch.a.shape[1], batch.b.shape[1]):
                # as many replications as scores: an answer along axis 0 has the same shape;
                # one fewer replication tells the two apart
                cut = {} if samples is None else {"samples": (samples[0][:-1], samples[1][:-1])}
                fewer = self.func(batch.a[:-1], batch.b[:-1], axis=1, **kwargs, **cut)
                _check_block_shape(np.shape(_unwrap(fewer)), n - 1, probe=True)
        except (Exception, SystemExit) as err:  # noqa: BLE001 - a failure is data
            check_interrupted()  # unless it was Ctrl-C, turned into an error by a library
            message = failure_message(err)
            return CriterionResult(np.ones(n, bool), pvalue=np.full(n, np.nan),
                                   reject=np.zeros(n, bool),
                                   errors=dict.fromkeys(range(n), message))
        if out.dtype == bool:
            return CriterionResult(np.zeros(n, bool), pvalue=np.full(n, np.nan), reject=out.copy())
        if np.issubdtype(out.dtype, np.integer):  # 0/1 decisions; other integers are refused
            bad = (out != 0) & (out != 1)
            errors = {int(i): f"TypeError: returned the integer {out[i]!r}; {ANSWER_RULE}"
                      for i in np.flatnonzero(bad)}
            return CriterionResult(bad, pvalue=np.full(n, np.nan), reject=out == 1,
                                   errors=errors)
        with np.errstate(invalid="ignore"):
            pvalue = out.astype(float)
            bad = ~((pvalue >= 0.0) & (pvalue <= 1.0))
        errors = {int(i): f"TypeError: returned {out[i]!r}; {ANSWER_RULE}"
                  for i in np.flatnonzero(bad)}
        return CriterionResult(bad, pvalue=np.where(bad, np.nan, pvalue),
                               reject=np.zeros(n, bool), errors=errors)


def _check_block_shape(shape, n, probe=False):
    """Raise TypeError unless a vectorized criterion's answer on `n` replications has shape
    ``(n,)``; `probe`: the block was cut to `n` to tell the replications' axis from the scores'."""
    if shape != (n,):
        hint = (f" (checked on a block cut to {n} replications, one fewer than its scores: "
                "does it reduce along axis 0 instead of the `axis` it is given?)" if probe else "")
        raise TypeError(f"returned an answer of shape {shape} for a block of {n} replications; "
                        f"expected shape ({n},), one answer per replication{hint}")


#: What a user's criterion may return, as its failures say.
ANSWER_RULE = ("expected a p-value (a float in [0, 1]) or a decision (a bool, or the integer 0 "
               "or 1; True or 1 = reject)")


def failure_message(err: Exception, kind: str = "criterion", kinds: str = "criteria") -> str:
    """How a failed replication is recorded: the exception's type and message, and the rule
    broken when the criterion (or estimator) wrote into its read-only input.

    Parameters
    ----------
    err : Exception
        What the criterion raised.
    kind, kinds : str
        What raised it, and its plural, as the hint names them.

    Returns
    -------
    str
        ``'Type: message'``, with a hint for a write to the read-only scores.

    Examples
    --------
    >>> failure_message(ZeroDivisionError("division by zero"))
    'ZeroDivisionError: division by zero'
    """
    message = f"{type(err).__name__}: {err}"
    if isinstance(err, ValueError) and "read-only" in str(err):
        message += (f" (the {kind} changed its input in place; the scores are read-only, "
                    f"shared with the other {kinds}: work on a copy, e.g. np.sort(a) instead "
                    "of a.sort())")
    return message


def _unwrap(out):
    """A result's p-value: its ``pvalue`` attribute, or the second of a pair."""
    if hasattr(out, "pvalue"):
        return out.pvalue
    if isinstance(out, tuple) and len(out) == 2:
        return out[1]
    return out


def _pvalue_or_decision(out) -> float | bool:
    """One replication's answer as a decision (bool) or a p-value (float in [0, 1])."""
    answer = _unwrap(out)
    if isinstance(answer, (bool, np.bool_)):
        return bool(answer)
    if isinstance(answer, numbers.Integral):
        if answer in (0, 1):
            return bool(answer)
        raise TypeError(f"returned the integer {out!r}; {ANSWER_RULE}")
    if isinstance(answer, numbers.Real) and 0.0 <= float(answer) <= 1.0:
        return float(answer)
    raise TypeError(f"returned {out!r}; {ANSWER_RULE}")


_BY_VALUE_LOCK = threading.Lock()


def function_digest(func) -> str:
    """Digest of `func` pickled by value with cloudpickle.

    The pickle holds the code, defaults, closure and docstring, and the globals the function
    reads, functions of its module it calls included. cloudpickle pickles a function of an
    importable module by reference (by its name): for the digest that module is registered to
    be pickled by value, then unregistered unless it already was; except for installed code
    (the standard library, site-packages, evalmc), whose identity is its name and installed
    version. The user's other modules it uses (reached through the globals of its module,
    closure and functions, or imported by those files, transitively) add their names and the
    contents of their files (as on disk), so an edited helper module changes the digest; one
    imported only at call time, inside a function, is not seen. Code objects keep only the base
    name of their file, so a copy of the same files elsewhere has the same digest (and a user's
    criterion draws the same random streams). The digest is the same in every process (but
    for a global set of strings, whose order varies between processes: the cache then misses,
    never reuses stale blocks).

    Parameters
    ----------
    func : callable
        The function, usually a user's criterion.

    Returns
    -------
    str
        12 hexadecimal digits (a 6-byte BLAKE2b digest).

    Examples
    --------
    >>> def my_test(a, b):
    ...     return 0.5
    >>> digest = function_digest(my_test)
    >>> len(digest), digest == function_digest(my_test)
    (12, True)

    A helper module of the user's, edited, changes the digest of a function calling it:

    >>> import pathlib, sys, tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> helper = pathlib.Path(folder.name) / "my_helper.py"
    >>> _ = helper.write_text("def margin():\\n    return 0.0\\n")
    >>> sys.path.insert(0, folder.name)
    >>> import my_helper
    >>> def with_margin(a, b):
    ...     return a.mean() - b.mean() > my_helper.margin()
    >>> before = function_digest(with_margin)
    >>> _ = helper.write_text("def margin():\\n    return 10.0\\n")
    >>> function_digest(with_margin) == before
    False
    >>> _ = sys.path.remove(folder.name), sys.modules.pop("my_helper"), folder.cleanup()
    """
    module_name = getattr(func, "__module__", None)
    module = sys.modules.get(module_name) if isinstance(module_name, str) else None
    with _BY_VALUE_LOCK:
        register = (module is not None and not _installed(module)
                    and module.__name__ not in cloudpickle.list_registry_pickle_by_value())
        if register:
            cloudpickle.register_pickle_by_value(module)
        try:
            buffer = io.BytesIO()
            _PathFreePickler(buffer, protocol=5).dump(func)
            pickled = buffer.getvalue()
        finally:
            if register:
                cloudpickle.unregister_pickle_by_value(module)
    digest = hashlib.blake2b(pickled, digest_size=6)
    for name, path in sorted(_user_modules(func).items()):
        digest.update(b"\0" + name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _same(code):
    return code


class _PathFreePickler(cloudpickle.Pickler):
    """cloudpickle's pickler with each code object's file, and each function module's
    ``__file__``, named by its base name, so a digest does not depend on where the user's files
    lie (a clone elsewhere draws the same streams)."""

    def _function_getnewargs(self, func):
        code, base_globals, *rest = super()._function_getnewargs(func)
        if "__file__" in base_globals:
            base_globals = {**base_globals, "__file__": Path(base_globals["__file__"]).name}
        return (code, base_globals, *rest)

    def reducer_override(self, obj):
        if isinstance(obj, types.CodeType) and obj.co_filename != Path(obj.co_filename).name:
            return _same, (obj.replace(co_filename=Path(obj.co_filename).name),)
        return super().reducer_override(obj)


def _installed(module) -> bool:
    """Whether `module` is built in, evalmc, or lies under the standard library or
    site-packages."""
    name, path = getattr(module, "__name__", ""), getattr(module, "__file__", None)
    if path is None or name == "evalmc" or name.startswith("evalmc."):
        return True
    return _installed_path(path)


def _installed_path(path) -> bool:
    path = Path(path).resolve()
    return any(path.is_relative_to(root) for root in _installed_roots())


def _user_modules(func) -> dict[str, Path]:
    """Name to source file of the user's modules (not installed) that `func` uses: those it
    reaches through the globals of its module, its closure and the functions, classes and
    modules found there, and those their files import (found by
    :class:`modulefinder.ModuleFinder` on the user's entries of ``sys.path``), transitively;
    `func`'s own module left out (it is pickled by value)."""
    own = getattr(func, "__globals__", {})
    found = _reached_modules(func, own)
    own_file = own.get("__file__")
    found.update(_imported_modules([*found.values(), *([Path(own_file)] if own_file else [])]))
    return {name: path for name, path in found.items() if str(path) != own_file}


def _reached_modules(func, own: dict) -> dict[str, Path]:
    """Name to source file of the user's modules reached from `func`'s globals `own` and its
    closure, through the functions, classes and modules found there, transitively."""
    spaces, seen, found = [own], {id(own)}, {}
    values = [c.cell_contents for c in getattr(func, "__closure__", None) or ()
              if c.cell_contents is not None]
    while spaces or values:
        if spaces:
            values.extend(spaces.pop().values())
            continue
        space = _namespace(values.pop())
        if space is None or id(space) in seen:
            continue
        seen.add(id(space))
        module = types.SimpleNamespace(__name__=space.get("__name__", ""),
                                       __file__=space.get("__file__"))
        if not _installed(module) and Path(module.__file__).is_file():
            found[module.__name__] = Path(module.__file__)
            spaces.append(space)
    return found


def _namespace(value) -> dict | None:
    """The module globals `value` leads to: a function's, a module's own, or those of a
    class's module; None for any other value."""
    if isinstance(value, types.FunctionType):
        return value.__globals__
    if isinstance(value, types.ModuleType):
        return vars(value)
    if isinstance(value, type):
        return vars(sys.modules.get(value.__module__, types))
    return None


def _imported_modules(sources) -> dict[str, Path]:
    """Name to source file of the modules the user's files `sources` import, transitively,
    as :class:`modulefinder.ModuleFinder` finds them on the user's entries of ``sys.path``."""
    user_path = [p for p in sys.path if p and Path(p).is_dir() and not _installed_path(p)]
    found = {}
    for source in sources:
        if source.suffix == ".py" and not _installed_path(source):
            finder = _UserModuleFinder([str(source.parent), *user_path])
            finder.run_script(str(source))
            found.update((name, Path(m.__file__)) for name, m in finder.modules.items()
                         if m.__file__ and name != "__main__")
    return found


class _UserModuleFinder(modulefinder.ModuleFinder):
    """A module finder that takes a folder without ``__init__.py`` (a namespace package,
    such as a data folder named like a module) for a module it cannot find, as it does any
    module outside the user's folders, instead of failing on its missing loader."""

    def find_module(self, name, path, parent=None):
        try:
            return super().find_module(name, path, parent)
        except AttributeError as err:
            raise ImportError(f"no module {name!r} in the user's folders") from err


@functools.lru_cache(maxsize=1)
def _installed_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = [paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    roots += [*site.getsitepackages(), site.getusersitepackages()]
    return tuple({Path(r).resolve() for r in roots})


def _accepts(func, parameter: str) -> bool:
    try:
        return parameter in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
