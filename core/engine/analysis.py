"""The engine's contract with what it runs on each block of replications: :class:`Analysis`.

An analysis (a criterion's rejections, an estimator's errors, a scenario's own records) runs on
a batch of replications and summarises each block of it as a *tally*, a small summary that adds
up block after block (:mod:`evalmc.engine.tallies`). The base class owns the cache's record of
a block (:mod:`evalmc.engine.blockstore`): under the analysis's key, the tally's arrays and
metadata with the messages of the block's failed replications; under ``key + "#values"``, when
a study keeps them, every replication's values. A subclass implements only what differs: how it
runs and tallies, and, if it keeps values, how they are split by block and stored.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

import numpy as np

#: A stored record: named arrays and JSON metadata.
Record = tuple[dict[str, np.ndarray], dict]


class Analysis(abc.ABC):
    """What the engine runs on every block of a plan's conditions.

    A subclass defines :attr:`key`, :attr:`tally_type`, :meth:`run` and :meth:`tallies`; every
    other member has a default here. The engine reads and writes a block's cache records only
    through :meth:`usable`, :meth:`from_records` and :meth:`to_records`.

    Attributes
    ----------
    key : str
        Names the analysis's stored records and its tallies in the outcome.
    stream : str
        Names its random stream: block ``b`` of condition ``c`` gives :meth:`run` the
        generator of ``SeedSequence(seed, spawn_key=(c, b, crc32(stream)))``. Default: `key`.
    name : str
        Shown in messages. Default: `key`.
    uses_rng : bool
        Whether :meth:`run` draws random numbers. False (the default): the engine runs it once
        on a whole slab of blocks joined, with no generator.
    pure_python : bool
        Whether it runs Python code that holds the GIL (a user's function): several workers
        then run in processes rather than threads. Default False.
    tally_type : type
        Its tallies' class: ``associative`` (whether they add up in any order), ``n``,
        ``failed``, ``+``, ``to_record()`` and ``from_record(arrays, meta)``.

    Examples
    --------
    A toy analysis that counts the replications whose first score of A is positive:

    >>> import numpy as np
    >>> from evalmc.engine.analysis import Analysis
    >>> from evalmc.engine.tallies import RecordsTally
    >>> class Positive(Analysis):
    ...     key = "positive"
    ...     tally_type = RecordsTally
    ...     def run(self, batch, rng):
    ...         return batch.a[:, 0] > 0
    ...     def tallies(self, result, starts, scenario):
    ...         return [(RecordsTally(int(stop - start), {
    ...                     "rep": np.arange(stop - start),
    ...                     "positive": result[start:stop]}), {})
    ...                 for start, stop in zip(starts[:-1], starts[1:])]
    >>> (tally, errors), = Positive().tallies(np.array([True, False]), np.array([0, 2]), None)
    >>> records = Positive().to_records(tally, {}, None)
    >>> sorted(records), Positive().usable(records, keep_values=False)
    (['positive'], True)
    >>> Positive().from_records(records, block=3, keep_values=False)[0].columns["positive"]
    array([ True, False])
    """

    uses_rng: ClassVar[bool] = False
    pure_python: ClassVar[bool] = False

    @property
    @abc.abstractmethod
    def key(self) -> str:
        """Names the analysis's stored records and its tallies.

        Examples
        --------
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Count(Analysis):
        ...     key, tally_type = "count", RecordsTally
        ...     run = tallies = None
        >>> Count().key, Count().values_key
        ('count', 'count#values')
        """

    @property
    def stream(self) -> str:
        """Names the analysis's random stream; default: :attr:`key`.

        Two analyses of one stream draw the same random numbers on the same block: an
        analysis whose key names more than what it draws with (an estimator and its target)
        gives its stream the shorter name.

        Examples
        --------
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Count(Analysis):
        ...     key, tally_type = "count|target=1.0", RecordsTally
        ...     stream = "count"
        ...     run = tallies = None
        >>> Count().key, Count().stream
        ('count|target=1.0', 'count')
        """
        return self.key

    @property
    def name(self) -> str:
        """The analysis's name in messages; default: :attr:`key`.

        Examples
        --------
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Count(Analysis):
        ...     key, tally_type = "count", RecordsTally
        ...     run = tallies = None
        >>> Count().name
        'count'
        """
        return self.key

    @property
    @abc.abstractmethod
    def tally_type(self) -> type:
        """The class of the analysis's tallies (see the class doc).

        Examples
        --------
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Count(Analysis):
        ...     key, tally_type = "count", RecordsTally
        ...     run = tallies = None
        >>> Count().tally_type.__name__, Count().tally_type.associative
        ('RecordsTally', False)
        """

    @abc.abstractmethod
    def run(self, batch, rng) -> Any:
        """The analysis's result over a batch of replications.

        Parameters
        ----------
        batch : Batch or Records
            One block, or consecutive blocks joined (when :attr:`uses_rng` is False).
        rng : numpy.random.Generator or None
            The block's stream for this analysis; None for a slab of blocks.

        Returns
        -------
        object
            Whatever :meth:`tallies` and :meth:`split` read.

        Examples
        --------
        An analysis that reads each replication's mean score of A, run on a batch of four:

        >>> import numpy as np
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> from evalmc.sims.scores import Normal
        >>> class MeanA(Analysis):
        ...     key, tally_type = "mean-a", RecordsTally
        ...     tallies = None
        ...     def run(self, batch, rng):
        ...         return batch.moments()[0]
        >>> batch = Normal(n_a=5).draw(np.random.default_rng(0), 4)
        >>> MeanA().run(batch, None).round(4).tolist()
        [0.0562, -0.0591, 0.2864, 0.0469]
        """

    @abc.abstractmethod
    def tallies(self, result, starts: np.ndarray, scenario) -> list[tuple[Any, dict[int, str]]]:
        """One ``(tally, errors)`` per block of `result`.

        Parameters
        ----------
        result : object
            From :meth:`run`.
        starts : ndarray of int64
            Block ``k`` is replications ``starts[k]:starts[k + 1]`` of `result`; a single block
            may span all of it.
        scenario : Scenario
            The condition the replications come from.

        Returns
        -------
        list of tuple
            The block's tally, and the message of each failed replication by its index in the
            block (:meth:`split_errors` splits them).

        Examples
        --------
        The means of A over two blocks of two replications, a tally of records per block:

        >>> import numpy as np
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> from evalmc.sims.scores import Normal
        >>> class MeanA(Analysis):
        ...     key, tally_type = "mean-a", RecordsTally
        ...     def run(self, batch, rng):
        ...         return batch.moments()[0]
        ...     def tallies(self, result, starts, scenario):
        ...         return [(RecordsTally(int(e - s), {"rep": np.arange(e - s),
        ...                                            "mean": result[s:e]}), {})
        ...                 for s, e in zip(starts[:-1], starts[1:])]
        >>> scenario = Normal(n_a=5)
        >>> result = MeanA().run(scenario.draw(np.random.default_rng(0), 4), None)
        >>> (first, errors), (second, _) = MeanA().tallies(result, np.array([0, 2, 4]), scenario)
        >>> first.n, first.columns["mean"].round(4).tolist(), errors
        (2, [0.0562, -0.0591], {})
        """

    def split(self, result, starts: np.ndarray) -> list:
        """Each block's values, for a study that keeps them; default: none kept (Nones).

        Parameters
        ----------
        result : object
            From :meth:`run`.
        starts : ndarray of int64
            Block ``k`` is replications ``starts[k]:starts[k + 1]`` of `result`.

        Returns
        -------
        list
            One value per block (None: nothing kept).

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Count(Analysis):
        ...     key, tally_type = "count", RecordsTally
        ...     run = tallies = None
        >>> Count().split(np.arange(5.0), np.array([0, 3, 5]))
        [None, None]
        >>> class Kept(Count):
        ...     def split(self, result, starts):
        ...         return [result[s:e] for s, e in zip(starts[:-1], starts[1:])]
        >>> [part.tolist() for part in Kept().split(np.arange(5.0), np.array([0, 3, 5]))]
        [[0.0, 1.0, 2.0], [3.0, 4.0]]
        """
        return [None] * (len(starts) - 1)

    # -- the cache's records -------------------------------------------------------------

    @property
    def values_key(self) -> str:
        """The key of the record of the values: ``key + "#values"``.

        Examples
        --------
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Count(Analysis):
        ...     key, tally_type = "count", RecordsTally
        ...     run = tallies = None
        >>> Count().values_key
        'count#values'
        """
        return f"{self.key}#values"

    def record_meta(self) -> dict:
        """Metadata stored with each tally, beyond the tally's own; default: none.

        Returns
        -------
        dict
            JSON-serialisable; :meth:`serves` reads it back.

        Examples
        --------
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Count(Analysis):
        ...     key, tally_type = "count", RecordsTally
        ...     run = tallies = None
        >>> Count().record_meta()
        {}
        """
        return {}

    def serves(self, meta: dict) -> bool:
        """Whether a stored tally, by its metadata, serves this study; default: always.

        Parameters
        ----------
        meta : dict
            The stored tally's metadata: its own and :meth:`record_meta`'s.

        Returns
        -------
        bool

        Examples
        --------
        An analysis whose tallies count rejections at a level only when stored with it:

        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class AtLevel(Analysis):
        ...     key, tally_type = "at-level", RecordsTally
        ...     run = tallies = None
        ...     def record_meta(self):
        ...         return {"level": 0.01}
        ...     def serves(self, meta):
        ...         return meta.get("level") == 0.01
        >>> AtLevel().serves({"level": 0.01}), AtLevel().serves({"level": 0.05})
        (True, False)
        """
        return True

    def values_to_record(self, values) -> Record:
        """A block's values as named arrays (None: left out) and JSON metadata; an analysis
        whose :meth:`split` gives values overrides this and :meth:`values_from_record`.

        Parameters
        ----------
        values : object
            One block's values, from :meth:`split`.

        Returns
        -------
        arrays : dict of str to ndarray or None
        meta : dict

        Raises
        ------
        NotImplementedError
            By default: the analysis keeps no values.

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Kept(Analysis):
        ...     key, tally_type = "kept", RecordsTally
        ...     run = tallies = None
        ...     def values_to_record(self, values):
        ...         return {"x": values, "unused": None}, {"size": values.size}
        >>> Kept().values_to_record(np.array([0.5, 1.5]))
        ({'x': array([0.5, 1.5]), 'unused': None}, {'size': 2})
        """
        raise NotImplementedError(f"{type(self).__name__} keeps no values.")

    def values_from_record(self, arrays: dict, info: dict, errors: dict[int, str]):
        """A block's values from their record, with the block's errors by replication.

        Parameters
        ----------
        arrays : dict of str to ndarray
            The named arrays :meth:`values_to_record` gave (those not None).
        info : dict
            Its metadata.
        errors : dict of int to str
            Messages of the block's failed replications, by index in the block.

        Returns
        -------
        object
            The block's values, as :meth:`split` gives them.

        Raises
        ------
        NotImplementedError
            By default: the analysis keeps no values.

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Kept(Analysis):
        ...     key, tally_type = "kept", RecordsTally
        ...     run = tallies = None
        ...     def values_from_record(self, arrays, info, errors):
        ...         return arrays["x"][:info["size"]]
        >>> Kept().values_from_record({"x": np.array([0.5, 1.5])}, {"size": 2}, {}).tolist()
        [0.5, 1.5]
        """
        raise NotImplementedError(f"{type(self).__name__} keeps no values.")

    def usable(self, records: dict[str, Record], keep_values: bool) -> bool:
        """Whether a block's stored `records` hold this analysis's tally in a form that serves
        this study (:meth:`serves`), and its values when the study keeps them.

        Parameters
        ----------
        records : dict
            Key to record, as :meth:`evalmc.engine.blockstore.BlockStore.load` gives them.
        keep_values : bool
            Whether the study keeps every replication's values.

        Returns
        -------
        bool

        Examples
        --------
        Without the record of the values, a block serves a study that does not keep them:

        >>> import numpy as np
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Count(Analysis):
        ...     key, tally_type = "count", RecordsTally
        ...     run = tallies = None
        >>> records = Count().to_records(RecordsTally(2, {"rep": np.arange(2)}), {}, None)
        >>> Count().usable(records, keep_values=False), Count().usable(records, keep_values=True)
        (True, False)
        >>> Count().usable({}, keep_values=False)
        False
        """
        return (self.key in records and self.serves(records[self.key][1])
                and (not keep_values or self.values_key in records))

    def from_records(self, records: dict[str, Record], block: int, keep_values: bool):
        """The tally, errors and values of block `block` from its stored records.

        Parameters
        ----------
        records : dict
            As for :meth:`usable`, which they pass.
        block : int
            The block's index in its condition.
        keep_values : bool
            Whether to read the values too.

        Returns
        -------
        tuple
            ``(tally, errors, values)``: errors by ``(block, rep)``; values None unless kept.

        Examples
        --------
        The records of block 4, whose second replication failed, read back with its values:

        >>> import numpy as np
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Kept(Analysis):
        ...     key, tally_type = "kept", RecordsTally
        ...     run = tallies = None
        ...     def values_to_record(self, values):
        ...         return {"x": values}, {}
        ...     def values_from_record(self, arrays, info, errors):
        ...         return arrays["x"]
        >>> records = Kept().to_records(RecordsTally(2, {"rep": np.arange(2)}),
        ...                             {(4, 1): "degenerate"}, np.array([0.5, np.nan]))
        >>> tally, errors, values = Kept().from_records(records, block=4, keep_values=True)
        >>> tally.n, errors, values.tolist()
        (2, {(4, 1): 'degenerate'}, [0.5, nan])
        """
        arrays, meta = records[self.key]
        errors = {(block, int(rep)): msg for rep, msg in meta["errors"].items()}
        values = None
        if keep_values:
            named, info = records[self.values_key]
            values = self.values_from_record(named, info,
                                             {rep: msg for (_, rep), msg in errors.items()})
        return self.tally_type.from_record(arrays, meta), errors, values

    def to_records(self, tally, errors: dict[tuple[int, int], str], values) -> dict[str, Record]:
        """The records of a block: its tally with its errors, and its values unless None.

        Parameters
        ----------
        tally : object
            The block's tally.
        errors : dict
            Messages by ``(block, rep)``.
        values : object or None
            The block's values (:meth:`split`).

        Returns
        -------
        dict
            Key to record; missing arrays (None) of the values are left out.

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.engine.analysis import Analysis
        >>> from evalmc.engine.tallies import RecordsTally
        >>> class Kept(Analysis):
        ...     key, tally_type = "kept", RecordsTally
        ...     run = tallies = None
        ...     def values_to_record(self, values):
        ...         return {"x": values, "unused": None}, {"size": values.size}
        >>> records = Kept().to_records(RecordsTally(2, {"rep": np.arange(2)}),
        ...                             {(4, 1): "degenerate"}, np.array([0.5, np.nan]))
        >>> sorted(records), records["kept"][1]
        (['kept', 'kept#values'], {'n': 2, 'errors': {'1': 'degenerate'}})
        >>> sorted(records["kept#values"][0]), records["kept#values"][1]
        (['x'], {'size': 2})
        """
        arrays, meta = tally.to_record()
        meta = {**meta, **self.record_meta(),
                "errors": {str(rep): msg for (_, rep), msg in errors.items()}}
        records = {self.key: (arrays, meta)}
        if values is not None:
            named, info = self.values_to_record(values)
            records[self.values_key] = ({k: v for k, v in named.items() if v is not None}, info)
        return records

    @staticmethod
    def split_errors(errors: dict[int, str], starts) -> list[dict[int, str]]:
        """Messages by replication of a run of blocks, as one dict per block.

        Parameters
        ----------
        errors : dict of int to str
            Messages by replication, numbered from the run's first.
        starts : sequence of int
            Block ``k`` is replications ``starts[k]:starts[k + 1]``.

        Returns
        -------
        list of dict
            Per block, its messages by replication numbered within the block.

        Examples
        --------
        >>> from evalmc.engine.analysis import Analysis
        >>> Analysis.split_errors({1: "a", 5: "b"}, [0, 4, 8])
        [{1: 'a'}, {1: 'b'}]
        """
        out = [{} for _ in range(len(starts) - 1)]
        for rep, msg in errors.items():
            k = int(np.searchsorted(starts, rep, side="right")) - 1
            out[k][rep - int(starts[k])] = msg
        return out
