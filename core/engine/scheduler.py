"""The Monte Carlo engine: blocks of replications, seeded, cached, scheduled as tasks.

Seeding: block ``b`` of condition ``c`` draws from ``SeedSequence(seed, spawn_key=(c, b))``,
and an analysis that needs randomness (a bootstrap test, a user's function) from its own stream
``SeedSequence(seed, spawn_key=(c, b, crc32(key)))``. A block's outcome therefore depends on
nothing but the seed, the condition, the block, its size and the analysis: never on the number
of workers, the backend, the order blocks finish in, or which other analyses run.

Scheduling: a task is a run of consecutive blocks of one condition. Its length aims at a target
duration, from the fastest time per block the condition's tasks have reported so far (the
first task of a condition is a single block), and shrinks as the study nears its end so that
workers finish together. A worker draws its blocks a slab at a time and runs each analysis that
needs no randomness once on the whole slab, so Python's share of the work, which holds the
GIL, stays small; it returns each block's summary (:mod:`evalmc.engine.tallies`), not its values.
The engine keeps at most two tasks per worker in flight and adds the summaries as they come.
"""

from __future__ import annotations

import bisect
import collections
import concurrent.futures
import contextlib
import hashlib
import math
import sys
import threading
import time
import warnings
import zlib
from dataclasses import dataclass, field

import joblib
import numpy as np
from tqdm.auto import tqdm

from evalmc.engine.analysis import Analysis
from evalmc.engine.blockstore import FORMAT_VERSION, BlockStore
from evalmc.engine.options import TASK_SECONDS
from evalmc.sims import Scenario

#: Replications a worker draws at once (bounds its memory); analyses run once per slab.
SLAB_REPS = 16_384
#: Failed replications whose message a study keeps, per analysis and condition (the first ones).
MAX_FAILURES_KEPT = 1000


class StudyError(RuntimeError):
    """A study stopped because a condition's replications mostly failed."""


@dataclass(frozen=True)
class Failure:
    """A replication on which an analysis failed; ``StudyResult.replay`` redraws its data."""

    condition_id: int
    block: int
    rep: int
    criterion: str
    message: str


@dataclass
class Plan:
    """What to run: conditions, analyses and the replications of each condition.

    Attributes
    ----------
    conditions : dict
        Condition id to its scenario.
    analyses : list of Analysis
        What runs on every block (:class:`~evalmc.engine.analysis.Analysis`).
    n_reps, seed, block_size : int
        Replications per condition, root seed, replications per block.

    Examples
    --------
    >>> from evalmc.engine.scheduler import Plan
    >>> from evalmc.sims.scores import Normal
    >>> plan = Plan({0: Normal()}, [], n_reps=2500, seed=1, block_size=1000)
    >>> plan.n_blocks, plan.sizes(1, 3)
    (3, [1000, 500])
    """

    conditions: dict[int, Scenario]
    analyses: list[Analysis]
    n_reps: int
    seed: int
    block_size: int

    def __post_init__(self):
        for a in self.analyses:
            if not isinstance(a, Analysis):
                raise TypeError(f"a plan's analyses derive from evalmc.engine.analysis."
                                f"Analysis; got {type(a).__name__}.")

    @property
    def n_blocks(self) -> int:
        return -(-self.n_reps // self.block_size)

    def sizes(self, start: int, stop: int) -> list[int]:
        """Replications of blocks ``start:stop`` (all full but the study's last)."""
        return [min(self.block_size, self.n_reps - b * self.block_size)
                for b in range(start, stop)]


@dataclass
class Outcome:
    """The summed tallies of every (condition id, analysis key), and what ran."""

    tallies: dict[tuple[int, str], object]
    values: dict[tuple[int, str], list] | None
    failures: list[Failure]
    blocks_computed: int = 0
    blocks_reused: int = 0


def block_rng(seed: int, cid: int, block: int) -> np.random.Generator:
    """The generator of block `block` of condition `cid`."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(cid, block)))


def analysis_rng(seed: int, cid: int, block: int, key: str) -> np.random.Generator:
    """The generator of analysis `key` on block `block` of condition `cid`."""
    return np.random.default_rng(
        np.random.SeedSequence(seed, spawn_key=(cid, block, zlib.crc32(key.encode()))))


def namespace(cond: Scenario, seed: int, block_size: int) -> str:
    """The cache folder of a condition: everything its blocks depend on but their index."""
    text = f"{cond.fingerprint()}|seed={seed}|block_size={block_size}|v{FORMAT_VERSION}"
    return f"{cond.name}-{hashlib.blake2b(text.encode(), digest_size=8).hexdigest()}"


def run_task(scenario, analyses, seed, cid, first, sizes, per_block, keep_values):
    """Run blocks ``first, first + 1, ...`` (of `sizes`) of condition `cid` (on a worker).

    Returns ``(cid, first, sizes, seconds, out, warned)``: `out` maps each analysis key to a
    list of ``(block, tally, errors, values)``, one per block, or, when not `per_block` and its
    tally adds up in any order, a single entry for the whole task. `errors` maps
    ``(block, rep)`` to the message of each failed replication. `warned` counts the warnings
    raised, by text (with their category unless a UserWarning), when the task runs in a
    process's main thread (a loky or dask worker, or the study's own thread); elsewhere, on a
    thread of the study's process, they go the usual way (the warnings module's filters are
    process-wide and not thread-safe to swap).
    """
    if threading.current_thread() is not threading.main_thread():
        return (*_run_blocks(scenario, analyses, seed, cid, first, sizes, per_block,
                             keep_values), {})
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = _run_blocks(scenario, analyses, seed, cid, first, sizes, per_block,
                             keep_values)
    return (*result, dict(collections.Counter(
        str(w.message) if issubclass(w.category, UserWarning)
        else f"{w.category.__name__}: {w.message}" for w in seen)))


def _run_blocks(scenario, analyses, seed, cid, first, sizes, per_block, keep_values):
    start = time.perf_counter()
    out = {a.key: [] for a in analyses}
    step = max(1, SLAB_REPS // max(sizes))
    for s in range(0, len(sizes), step):
        slab = list(enumerate(sizes[s:s + step], start=first + s))
        joint, batches = scenario.draw_slab([block_rng(seed, cid, b) for b, _ in slab],
                                            [size for _, size in slab])
        for a in analyses:
            if a.uses_rng or joint is None:  # block by block, each with its own stream
                runs = [([b], a.run(batch, analysis_rng(seed, cid, b, a.stream)), [0, size])
                        for (b, size), batch in zip(slab, batches, strict=True)]
            else:  # once on the slab: its blocks' results are the same, computed at once
                runs = [([b for b, _ in slab], a.run(joint, None),
                         np.cumsum([0, *(size for _, size in slab)]))]
            for blocks, result, starts in runs:
                starts = np.asarray(starts, np.int64)
                if not per_block and a.tally_type.associative:  # one tally for the run
                    ((tally, errors),) = a.tallies(result, starts[::len(starts) - 1], scenario)
                    where = np.searchsorted(starts, list(errors), side="right") - 1
                    out[a.key].append((blocks[0], tally, {
                        (blocks[k], rep - int(starts[k])): m
                        for k, (rep, m) in zip(where.tolist(), errors.items(), strict=True)},
                        None))
                    continue
                values = a.split(result, starts) if keep_values else [None] * len(blocks)
                tallied = a.tallies(result, starts, scenario)
                for b, (tally, errors), vals in zip(blocks, tallied, values, strict=True):
                    out[a.key].append((b, tally, {(b, rep): m for rep, m in errors.items()},
                                       vals))
    if not per_block:
        for a in analyses:
            if a.tally_type.associative:
                entries = out[a.key]
                total = entries[0][1]
                for entry in entries[1:]:
                    total = total + entry[1]
                errors = {}
                for entry in entries:
                    errors.update(list(entry[2].items())[:MAX_FAILURES_KEPT - len(errors)])
                out[a.key] = [(first, total, errors, None)]
    return cid, first, sizes, time.perf_counter() - start, out


class _Condition:
    """Scheduling state of one condition: next block, speed, cache."""

    def __init__(self, cid, n_blocks, store):
        self.cid, self.n_blocks, self.store = cid, n_blocks, store
        self.next = 0
        self.seconds_per_block = math.inf
        self.probing = False  # its first task is out and its speed unknown
        self.peeked = None  # (block, records) read from the cache ahead of a task


@dataclass
class _Sums:
    """Tallies added as they come; tallies that must add in block order wait for their turn."""

    associative: bool
    total: object = None
    next_block: int = 0
    waiting: dict = field(default_factory=dict)

    def add(self, block, tally):
        if self.associative:
            self.total = tally if self.total is None else self.total + tally
            return
        self.waiting[block] = tally
        while self.next_block in self.waiting:
            part = self.waiting.pop(self.next_block)
            self.total = part if self.total is None else self.total + part
            self.next_block += 1


def choose_backend(analyses, n_jobs: int) -> str:
    """'loky' processes when several workers would run a pure-Python analysis (a user's
    function, which holds the GIL), else 'threads' (built-in kernels release it)."""
    pure = any(a.pure_python for a in analyses)
    return "loky" if pure and n_jobs != 1 else "threads"


def run(plan: Plan, *, n_jobs=1, backend=None, scheduler=None, cache=None,
        progress=None, task_seconds=TASK_SECONDS, keep_values=False, max_failure_rate=0.5,
        desc="evalmc") -> Outcome:
    """Run every block of `plan` not in `cache`, and sum the tallies (see the module doc).

    `backend` None chooses by :func:`choose_backend`.
    """
    backend = choose_backend(plan.analyses, n_jobs) if backend is None else backend
    def size(block):
        return plan.sizes(block, block + 1)[0]

    keys = [a.key for a in plan.analyses]
    by_key = {a.key: a for a in plan.analyses}
    conds = {cid: _Condition(cid, plan.n_blocks, BlockStore(cache, namespace(
        sc, plan.seed, plan.block_size)) if cache is not None else None)
        for cid, sc in plan.conditions.items()}
    sums = {(cid, k): _Sums(by_key[k].tally_type.associative) for cid in conds for k in keys}
    values = {(cid, k): {} for cid in conds for k in keys} if keep_values else None
    kept = {(cid, k): [] for cid in conds for k in keys}  # failures, in (block, rep) order
    failed, done = collections.Counter(), collections.Counter()
    outcome = Outcome({}, None, [])
    per_block = (cache is not None or keep_values
                 or not all(a.tally_type.associative for a in plan.analyses))

    def record(cid, key, block, tally, errors, vals):
        sums[(cid, key)].add(block, tally)
        failed[(cid, key)] += tally.failed
        done[(cid, key)] += tally.n
        if vals is not None:
            values[(cid, key)][block] = vals
        items = kept[(cid, key)]
        for where, msg in sorted(errors.items()):
            if len(items) < MAX_FAILURES_KEPT or where < items[-1][0]:
                bisect.insort(items, (where, msg))
                del items[MAX_FAILURES_KEPT:]
        if failed[(cid, key)] > max_failure_rate * plan.n_reps:
            cond = plan.conditions[cid]
            first = items[0][1] if items else "?"
            raise StudyError(
                f"condition {cid} ({cond.name} {cond.to_dict()}): criterion "
                f"{by_key[key].name!r} failed in {failed[(cid, key)]} of "
                f"{done[(cid, key)]} replications; first error: {first}. Finished blocks "
                "are kept in the cache, if one was given.")

    def load(cond, block):
        """The records stored for `block` (read once, even when peeked at ahead of a task)."""
        if cond.store is None:
            return {}
        if cond.peeked is not None and cond.peeked[0] == block:
            return cond.peeked[1]
        return cond.store.load(block, size(block))

    def missing(records):
        """The keys whose stored record this study cannot use."""
        return [k for k in keys if not by_key[k].usable(records, keep_values)]

    def take_cached(cond, block, records, absent):
        for key in keys:
            if key not in absent:
                record(cond.cid, key, block,
                       *by_key[key].from_records(records, block, keep_values))

    def next_task(cond, chunk):
        """The next task of `cond` (after taking its cached blocks), or None when done."""
        while cond.next < cond.n_blocks:
            b = cond.next
            records = load(cond, b)
            absent = missing(records)
            take_cached(cond, b, records, absent)
            if not absent:
                cond.next += 1
                outcome.blocks_reused += 1
                bar.update(size(b))
                continue
            stop = b + 1
            while stop < cond.n_blocks and stop - b < chunk:
                ahead = load(cond, stop)
                if missing(ahead) != absent:
                    cond.peeked = (stop, ahead)
                    break
                take_cached(cond, stop, ahead, absent)
                stop += 1
            cond.next = stop
            return [by_key[k] for k in absent], b, plan.sizes(b, stop)
        return None

    show = sys.stderr.isatty() if progress is None else progress
    announce, announced = progress is not False, False
    started, done_reps, warned_total = time.perf_counter(), 0, collections.Counter()
    remaining = plan.n_blocks * len(conds)
    bar = tqdm(total=plan.n_reps * len(conds), disable=not show, file=sys.stderr, unit="rep",
               unit_scale=True, desc=desc)
    with bar, _pool(backend, n_jobs, scheduler) as (workers, pool):
        order = list(conds.values())
        in_flight = 0
        while True:
            while in_flight < 2 * workers:
                cond = next((c for c in order if c.next < c.n_blocks and not c.probing), None)
                if cond is None:
                    break
                target = 1 if math.isinf(cond.seconds_per_block) else max(
                    1, int(task_seconds / cond.seconds_per_block))
                chunk = max(1, min(target, math.ceil(remaining / (2 * workers))))
                task = next_task(cond, chunk)
                if task is None:
                    continue
                analyses, first, task_sizes = task
                cond.probing = math.isinf(cond.seconds_per_block)
                remaining -= len(task_sizes)
                pool.submit(run_task, plan.conditions[cond.cid], analyses, plan.seed, cond.cid,
                            first, task_sizes, per_block, keep_values)
                in_flight += 1
            if in_flight == 0:
                break
            cid, first, task_sizes, seconds, out, warned = pool.next_result()
            warned_total.update(warned)
            in_flight -= 1
            cond = conds[cid]
            cond.probing = False
            cond.seconds_per_block = min(cond.seconds_per_block, seconds / len(task_sizes))
            by_block = collections.defaultdict(list)
            for key, entries in out.items():
                for block, *entry in entries:
                    by_block[block].append((key, entry))
            for block in sorted(by_block):
                if cond.store is not None:  # stored first: a stop keeps this block
                    cond.store.save(block, size(block), {
                        name: rec for key, entry in by_block[block]
                        for name, rec in by_key[key].to_records(*entry).items()})
                for key, entry in by_block[block]:
                    record(cid, key, block, *entry)
            outcome.blocks_computed += len(task_sizes)
            bar.update(sum(task_sizes))
            done_reps += sum(task_sizes)
            if announce and not announced:
                announced = _announce_long_run(time.perf_counter() - started, done_reps,
                                               plan.n_reps * len(conds) - done_reps,
                                               cache is not None)
    for text, count in warned_total.items():
        warnings.warn(text + (f" ({count} times)" if count > 1 else ""), stacklevel=2)
    outcome.tallies = {ck: s.total for ck, s in sums.items()}
    if keep_values:
        outcome.values = {ck: [v[b] for b in sorted(v)] for ck, v in values.items()}
    outcome.failures = [Failure(cid, b, rep, by_key[key].name, msg)
                        for (cid, key), items in kept.items() for (b, rep), msg in items]
    return outcome


#: A study expected to take longer than this says so, with its estimate, as it starts.
LONG_RUN_SECONDS = 60.0


def _announce_long_run(elapsed: float, done: int, left: int, cached: bool) -> bool:
    """Print the time a study has left, once, when it is more than :data:`LONG_RUN_SECONDS`;
    returns whether the estimate was given (after the first second of work, it is)."""
    if elapsed < 1.0 and left:
        return False
    eta = elapsed / done * left
    if eta > LONG_RUN_SECONDS:
        keep = ("its finished blocks are kept in --cache" if cached
                else "add --cache DIR to keep finished blocks and resume")
        print(f"evalmc: about {_duration(eta)} to go ({done:,} of {done + left:,} "
              f"replications in {elapsed:.1f} s); Ctrl-C stops the study, {keep}.",
              file=sys.stderr)
    return True


def _duration(seconds: float) -> str:
    """``'3 h 12 min'``, ``'4 min 10 s'`` or ``'75 days'``."""
    minutes, hours, days = seconds / 60, seconds / 3600, seconds / 86400
    if days >= 2:
        return f"{days:,.0f} days"
    if hours >= 1:
        return f"{int(hours)} h {int(minutes % 60)} min"
    return f"{int(minutes)} min {int(seconds % 60)} s"


def local_workers(n_jobs: int) -> int:
    """Workers on this machine for `n_jobs` (-1: every core), at most one per core: more
    would only share the cores (and loky would start a process each), so a larger request
    is capped with a warning."""
    cores = joblib.cpu_count()
    if n_jobs > cores:
        warnings.warn(f"`n_jobs` = {n_jobs} is more than this machine's {cores} cores; "
                      f"running {cores} workers", stacklevel=3)
    return cores if n_jobs == -1 else min(n_jobs, cores)


@contextlib.contextmanager
def _pool(backend, n_jobs, scheduler):
    """``(workers, pool)``: a pool with ``submit(fn, *args)`` and ``next_result()``."""
    if backend == "dask":
        with _dask_pool(n_jobs, scheduler) as pool:
            yield pool
        return
    workers = local_workers(n_jobs)
    if workers == 1 and backend == "threads":
        yield 1, _Inline()
        return
    if backend == "threads":
        executor = concurrent.futures.ThreadPoolExecutor(workers)
    else:
        from joblib.externals.loky import get_reusable_executor

        executor = get_reusable_executor(max_workers=workers)
    pool = _FuturesPool(executor)
    try:
        yield workers, pool
    finally:
        pool.cancel()
        if backend == "threads":
            executor.shutdown(wait=True, cancel_futures=True)


class _Inline:
    """Runs each task as it is submitted, in this thread."""

    def __init__(self):
        self.done = collections.deque()

    def submit(self, fn, *args):
        self.done.append(fn(*args))

    def next_result(self):
        return self.done.popleft()


class _FuturesPool:
    """Tasks on a ``concurrent.futures`` executor (threads, or loky's processes)."""

    def __init__(self, executor):
        self.executor = executor
        self.pending = set()
        self.done = collections.deque()

    def submit(self, fn, *args):
        self.pending.add(self.executor.submit(fn, *args))

    def next_result(self):
        if not self.done:
            finished, self.pending = concurrent.futures.wait(
                self.pending, return_when=concurrent.futures.FIRST_COMPLETED)
            self.done.extend(finished)
        return self.done.popleft().result()

    def cancel(self):
        for future in self.pending:
            future.cancel()
        concurrent.futures.wait(self.pending)


@contextlib.contextmanager
def _dask_pool(n_jobs, scheduler):
    """The running ``distributed`` client, the one at `scheduler`, or a new LocalCluster's."""
    from distributed import Client, LocalCluster, as_completed, get_client

    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            client = stack.enter_context(Client(scheduler))
        else:
            try:
                client = get_client()
            except ValueError:
                workers = local_workers(n_jobs)
                cluster = stack.enter_context(LocalCluster(
                    n_workers=workers, threads_per_worker=1, dashboard_address=None))
                client = stack.enter_context(Client(cluster))
        pool = _DaskPool(client, as_completed())
        try:
            yield max(1, sum(client.nthreads().values())), pool
        finally:
            pool.finished.clear()


class _DaskPool:
    """Tasks submitted to a dask client, gathered with ``as_completed`` as they finish."""

    def __init__(self, client, finished):
        self.client, self.finished = client, finished

    def submit(self, fn, *args):
        self.finished.add(self.client.submit(fn, *args, pure=False))

    def next_result(self):
        return next(self.finished).result()
