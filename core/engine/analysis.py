"""The engine's contract with what it runs on each block of replications: :class:`Analysis`.

An analysis (a criterion's rejections, an estimator's errors, a scenario's own records) runs on a
batch of replications and summarises each block as a *tally* that adds up block after block
(:mod:`evalmc.engine.tallies`). The base class owns the block's cache records
(:mod:`evalmc.engine.blockstore`): under the key, the tally with the messages of the failed
replications; under ``key + "#values"``, when a study keeps them, every replication's values.
core/README.md shows how to write one.
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
    other member has a default. The engine calls ``run(batch, rng)`` on one block or, when
    :attr:`uses_rng` is False, on consecutive blocks joined with ``rng=None``, then
    ``tallies(result, starts, scenario)``: block ``k`` is replications ``starts[k]:starts[k + 1]``
    of the result, and each gives ``(tally, errors)``, the messages of its failed replications by
    index in the block. A study that keeps values also calls :meth:`split`, and stores each block's
    values with :meth:`values_to_record`.

    Guarantees: a block's result depends only on the seed, the condition, the block, its size and
    the analysis's :attr:`stream`, whatever the workers; tallies are added in block order unless
    ``tally_type.associative``; the engine reads and writes a block's cache records only through
    :meth:`usable`, :meth:`from_records` and :meth:`to_records`.

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
    """

    uses_rng: ClassVar[bool] = False
    pure_python: ClassVar[bool] = False

    @property
    @abc.abstractmethod
    def key(self) -> str:
        """Names the analysis's stored records and its tallies."""

    @property
    def stream(self) -> str:
        """Names the analysis's random stream; default :attr:`key`. Analyses of one stream draw the
        same numbers on a block (an estimator keyed with its target names it shorter)."""
        return self.key

    @property
    def name(self) -> str:
        """The analysis's name in messages; default: :attr:`key`."""
        return self.key

    @property
    @abc.abstractmethod
    def tally_type(self) -> type:
        """The class of the analysis's tallies (see the class doc)."""

    @abc.abstractmethod
    def run(self, batch, rng) -> Any:
        """The analysis's result over `batch` (a block, or a slab of blocks with `rng` None),
        whatever :meth:`tallies` and :meth:`split` read."""

    @abc.abstractmethod
    def tallies(self, result, starts: np.ndarray, scenario) -> list[tuple[Any, dict[int, str]]]:
        """One ``(tally, errors)`` per block ``starts[k]:starts[k + 1]`` of `result`, errors being
        the failed replications' messages by index in the block."""

    def split(self, result, starts: np.ndarray) -> list:
        """Each block's values, for a study that keeps them; default: none kept (Nones)."""
        return [None] * (len(starts) - 1)

    # -- the cache's records -------------------------------------------------------------

    @property
    def values_key(self) -> str:
        """The key of the record of the values: ``key + "#values"``."""
        return f"{self.key}#values"

    def record_meta(self) -> dict:
        """Metadata stored with each tally beyond its own, which :meth:`serves` reads; default
        none."""
        return {}

    def serves(self, meta: dict) -> bool:
        """Whether a stored tally, by its metadata `meta`, serves this study; default: always."""
        return True

    def values_to_record(self, values) -> Record:
        """A block's values as named arrays (None: left out) and JSON metadata; an analysis whose
        :meth:`split` gives values overrides this and :meth:`values_from_record`."""
        raise NotImplementedError(f"{type(self).__name__} keeps no values.")

    def values_from_record(self, arrays: dict, info: dict, errors: dict[int, str]):
        """A block's values from their record's `arrays` and `info`, with the block's `errors` by
        replication; the inverse of :meth:`values_to_record`."""
        raise NotImplementedError(f"{type(self).__name__} keeps no values.")

    def usable(self, records: dict[str, Record], keep_values: bool) -> bool:
        """Whether a block's stored `records` hold this analysis's tally in a form that serves this
        study (:meth:`serves`), and its values when the study keeps them."""
        return (self.key in records and self.serves(records[self.key][1])
                and (not keep_values or self.values_key in records))

    def from_records(self, records: dict[str, Record], block: int, keep_values: bool):
        """``(tally, errors, values)`` of block `block` from its stored records: errors by
        ``(block, rep)``, values None unless `keep_values`."""
        arrays, meta = records[self.key]
        errors = {(block, int(rep)): msg for rep, msg in meta["errors"].items()}
        values = None
        if keep_values:
            named, info = records[self.values_key]
            values = self.values_from_record(named, info,
                                             {rep: msg for (_, rep), msg in errors.items()})
        return self.tally_type.from_record(arrays, meta), errors, values

    def to_records(self, tally, errors: dict[tuple[int, int], str], values) -> dict[str, Record]:
        """A block's records, key to ``(arrays, meta)``: its tally with its errors (by ``(block,
        rep)``), and its values unless None (their None arrays left out)."""
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
        """Messages by replication of a run of blocks (numbered from its first), as one dict per
        block ``starts[k]:starts[k + 1]`` numbered within the block."""
        out = [{} for _ in range(len(starts) - 1)]
        for rep, msg in errors.items():
            k = int(np.searchsorted(starts, rep, side="right")) - 1
            out[k][rep - int(starts[k])] = msg
        return out
