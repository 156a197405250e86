"""What a worker runs: a task, consecutive blocks of one condition, drawn a slab at a time.

A worker draws up to :data:`SLAB_REPS` replications at once (fewer when their scores would pass
:data:`~evalmc.engine.options.MAX_BLOCK_BYTES`), each block from its own stream
(:class:`~evalmc.compute.streams.BlockStreams`); an analysis that needs no randomness runs once on
the whole slab, so Python's share of the work, which holds the GIL, stays small, and one that draws
random numbers runs block by block with each block's stream. The task returns each block's tally
(or one summed tally, when nothing needs them one by one and they add up in any order), never the
values unless the study keeps them.
"""

from __future__ import annotations

import collections
import threading
import time
import warnings
import zlib
from dataclasses import dataclass, field

import numpy as np

from evalmc.compute.streams import BlockStreams
from evalmc.engine.options import block_rows, check_interrupted

#: Replications a worker draws at once (bounds its memory); analyses run once per slab.
SLAB_REPS = 16_384


def analysis_rng(seed: int, cid: int, block: int, stream: str) -> np.random.Generator:
    """The generator of stream `stream` on block `block` of condition `cid`:
    ``default_rng(SeedSequence(seed, spawn_key=(cid, block, crc32(stream))))``."""
    return np.random.default_rng(
        np.random.SeedSequence(seed, spawn_key=(cid, block, zlib.crc32(stream.encode()))))


#: A block's outcome for one analysis: ``(block, tally, errors by (block, rep), values)``.
Entry = tuple[int, object, dict, object]


@dataclass(frozen=True)
class Task:
    """Blocks ``first, first + 1, ...`` of condition `cid`, one per size in `sizes`; with
    `per_block` False an associative tally comes back summed over the task."""

    scenario: object
    analyses: tuple
    seed: int
    cid: int
    first: int
    sizes: tuple[int, ...]
    per_block: bool = True
    keep_values: bool = False
    max_failures: int = 1000


@dataclass
class TaskResult:
    """What a task returns: its blocks' :data:`Entry` lists by analysis key, its wall time, and the
    warnings it counted by text."""

    cid: int
    first: int
    sizes: tuple[int, ...]
    seconds: float
    out: dict[str, list[Entry]]
    warned: dict[str, int] = field(default_factory=dict)


def run_task(task: Task) -> TaskResult:
    """Run a task (on a worker); in a process's main thread its warnings are counted by text, on a
    thread of the study's process they go the usual way (filters are process-wide)."""
    if threading.current_thread() is not threading.main_thread():
        return _run(task)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = _run(task)
    result.warned = dict(collections.Counter(
        str(w.message) if issubclass(w.category, UserWarning)
        else f"{w.category.__name__}: {w.message}" for w in seen))
    return result


def _run(task: Task) -> TaskResult:
    start = time.perf_counter()
    out = {a.key: [] for a in task.analyses}
    streams = BlockStreams(task.seed, task.cid, task.first, len(task.sizes))
    step = max(1, block_rows(task.scenario, SLAB_REPS) // max(task.sizes))  # within budget
    for s in range(0, len(task.sizes), step):
        _run_slab(task, streams[s:s + step], task.sizes[s:s + step], out)
    if not task.per_block:
        for a in task.analyses:
            if a.tally_type.associative:
                out[a.key] = [_summed(out[a.key], task.first, task.max_failures)]
    return TaskResult(task.cid, task.first, task.sizes, time.perf_counter() - start, out)


def _run_slab(task: Task, streams: BlockStreams, sizes, out: dict) -> None:
    """Draw a slab of blocks and add every analysis's entries for them to `out`."""
    joint, batches = task.scenario.draw_slab(streams, sizes)
    blocks = list(range(streams.first, streams.first + len(sizes)))
    for a in task.analyses:
        if a.uses_rng or joint is None:  # block by block, each with its own stream
            for b, size, batch in zip(blocks, sizes, batches, strict=True):
                check_interrupted()
                result = a.run(batch, analysis_rng(task.seed, task.cid, b, a.stream))
                out[a.key] += _entries(task, a, [b], result, np.array([0, size]))
        else:  # once on the slab: its blocks' results are the same, computed at once
            out[a.key] += _entries(task, a, blocks, a.run(joint, None),
                                   np.cumsum([0, *sizes]))


def _entries(task: Task, a, blocks: list[int], result, starts: np.ndarray) -> list[Entry]:
    """The entries of a run of `blocks` (replications ``starts[k]:starts[k + 1]`` of
    `result`): one per block, or a single one for the run when a summed tally will do."""
    if not task.per_block and a.tally_type.associative:
        ((tally, errors),) = a.tallies(result, starts[[0, -1]], task.scenario)
        where = np.searchsorted(starts, list(errors), side="right") - 1
        return [(blocks[0], tally, {
            (blocks[k], rep - int(starts[k])): msg
            for k, (rep, msg) in zip(where.tolist(), errors.items(), strict=True)}, None)]
    values = a.split(result, starts) if task.keep_values else [None] * len(blocks)
    return [(b, tally, {(b, rep): msg for rep, msg in errors.items()}, vals)
            for b, (tally, errors), vals in zip(blocks, a.tallies(result, starts, task.scenario),
                                                values, strict=True)]


def _summed(entries: list[Entry], first: int, max_failures: int) -> Entry:
    """One entry for a task's entries: their tallies added, their first failures."""
    total = entries[0][1]
    for entry in entries[1:]:
        total = total + entry[1]
    errors = {}
    for entry in entries:
        errors.update(list(entry[2].items())[:max_failures - len(errors)])
    return first, total, errors, None
