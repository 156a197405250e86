"""The Monte Carlo engine: blocks of replications, seeded, cached, scheduled as tasks.

Seeding: block ``b`` of condition ``c`` draws from ``SeedSequence(seed, spawn_key=(c, b))``, and an
analysis that needs randomness from its own stream ``SeedSequence(seed, spawn_key=(c, b,
crc32(key)))``. A block's outcome therefore depends on nothing but the seed, the condition, the
block, its size and the analysis: never on the workers, the backend, the order blocks finish in, or
which other analyses run.

Scheduling: a task is a run of consecutive blocks of one condition (:mod:`evalmc.engine.tasks`),
its length aimed at a target duration from the fastest time per block seen so far (a condition's
first task is one block), shrinking near the end so that workers finish together. It returns each
block's tally (:mod:`evalmc.engine.tallies`), not its values. The :class:`Scheduler` keeps at most
two tasks per worker in flight, takes cached blocks from the :mod:`~evalmc.engine.blockstore` and
stores the new ones.

Stopping at a precision (:attr:`Plan.stop`): the rule is asked after each block, of the summed
tallies of blocks ``0..k`` (a complete prefix in block order), `n_reps` being the cap. Blocks
computed past the stopping point are stored but neither counted nor reported, so the outcome is the
same bits for any workers, backend, and a run resumed from the cache.
"""

from __future__ import annotations

import bisect
import collections
import hashlib
import math
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

from tqdm.auto import tqdm
from tqdm.std import EMA

from evalmc.compute.pcg64 import block_rng
from evalmc.engine.analysis import Analysis
from evalmc.engine.blockstore import FORMAT_VERSION, BlockStore
from evalmc.engine.executors import open_pool
from evalmc.engine.options import (
    MAX_FAILURE_RATE,
    TASK_SECONDS,
    WARN_FAILURE_RATE,
    block_rows,
    check_interrupted,
)
from evalmc.engine.tasks import Task, TaskResult, run_task
from evalmc.sims import Scenario

__all__ = ["Failure", "Outcome", "Plan", "Scheduler", "StudyError", "block_rng",
           "choose_backend", "run"]

#: Failed replications whose message a study keeps, per analysis and condition (the first ones).
MAX_FAILURES_KEPT = 1000


class StudyError(RuntimeError):
    """A study stopped because an analysis failed on more than ``max_failure_rate`` of a
    condition's replications; the blocks finished until then stay in the cache. `criterion`
    (its name), `failed`, `done` and `first` (its first error) say which and how, when known."""

    def __init__(self, message: str, *, criterion: str | None = None, failed: int | None = None,
                 done: int | None = None, first: str | None = None):
        super().__init__(message)
        self.criterion, self.failed, self.done, self.first = criterion, failed, done, first


class FailureWarning(UserWarning):
    """An analysis failed on more than :data:`~evalmc.engine.options.WARN_FAILURE_RATE` of a
    condition's replications; its fields let a caller group the warnings of many conditions."""

    def __init__(self, name: str, failed: int, done: int, condition: str, first: str):
        self.name, self.failed, self.done = name, failed, done
        self.condition, self.first = condition, first
        super().__init__(f"{name!r} failed in {failed} of {done} replications "
                         f"({failed / done:.1%}) of condition {condition}: its rates and "
                         f"estimates are over the {done - failed} that did not fail (first "
                         f"error: {first})")


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
    """What to run: `conditions` (id to scenario), `analyses`, `n_reps` per condition (the cap with
    a stopping rule), `seed`, `block_size`, and `stop(tallies, blocks) -> bool`, which given the
    summed tallies of a condition's first `blocks` blocks by key says it has reached its target."""

    conditions: dict[int, Scenario]
    analyses: list[Analysis]
    n_reps: int
    seed: int
    block_size: int
    stop: Callable[[dict, int], bool] | None = None

    def __post_init__(self):
        for a in self.analyses:
            if not isinstance(a, Analysis):
                raise TypeError(f"a plan's analyses derive from evalmc.engine.analysis."
                                f"Analysis; got {type(a).__name__}.")

    def block_size_of(self, cid: int) -> int:
        """Replications per block of condition `cid`: `block_size`, or fewer when its scores would
        pass :data:`~evalmc.engine.options.MAX_BLOCK_BYTES`."""
        return block_rows(self.conditions[cid], self.block_size)

    def n_blocks(self, cid: int) -> int:
        """Blocks of condition `cid`: ``ceil(n_reps / block size)``."""
        return -(-self.n_reps // self.block_size_of(cid))

    def sizes(self, cid: int, start: int, stop: int) -> list[int]:
        """Replications of condition `cid`'s blocks ``start:stop`` (all full but its last)."""
        size = self.block_size_of(cid)
        return [min(size, self.n_reps - b * size) for b in range(start, stop)]


@dataclass
class Outcome:
    """The summed tallies of every ``(condition id, analysis key)``, its blocks' values when kept,
    the first failures, blocks computed and reused, replications used per condition (`reps`) and,
    with a stopping rule, whether it held when the condition stopped (`met`)."""

    tallies: dict[tuple[int, str], object]
    values: dict[tuple[int, str], list] | None
    failures: list[Failure]
    blocks_computed: int = 0
    blocks_reused: int = 0
    reps: dict[int, int] = field(default_factory=dict)
    met: dict[int, bool] | None = None


def namespace(cond: Scenario, seed: int, block_size: int) -> str:
    """The cache folder of a condition, ``<scenario name>-<16 hex digits>``: a digest of all its
    blocks depend on but their index (parameters, seed, block size, store format)."""
    text = f"{cond.fingerprint()}|seed={seed}|block_size={block_size}|v{FORMAT_VERSION}"
    return f"{cond.name}-{hashlib.blake2b(text.encode(), digest_size=8).hexdigest()}"


def choose_backend(analyses, n_jobs: int) -> str:
    """'loky' processes when several workers would run a pure-Python analysis (a user's function,
    which holds the GIL), else 'threads' (built-in kernels release it)."""
    pure = any(a.pure_python for a in analyses)
    return "loky" if pure and n_jobs != 1 else "threads"


def run(plan: Plan, *, n_jobs=1, backend=None, scheduler=None, cache=None,
        progress=None, task_seconds=TASK_SECONDS, keep_values=False,
        max_failure_rate=MAX_FAILURE_RATE, desc="evalmc") -> Outcome:
    """Run every block of `plan` not in `cache` on `n_jobs` workers and sum the tallies into an
    :class:`Outcome` (see the module doc); :class:`StudyError` past `max_failure_rate`."""
    backend = choose_backend(plan.analyses, n_jobs) if backend is None else backend
    total = None if plan.stop is not None else plan.n_reps * len(plan.conditions)
    with _Progress(total, progress, cache is not None, desc) as shown, \
            open_pool(backend, n_jobs, scheduler) as (workers, pool):
        state = Scheduler(plan, workers, shown, cache=cache, keep_values=keep_values,
                          max_failure_rate=max_failure_rate, task_seconds=task_seconds)
        in_flight = 0
        while True:
            check_interrupted()  # Ctrl-C noted, its KeyboardInterrupt cleared by a library
            while in_flight < 2 * workers and (task := state.next_task()) is not None:
                pool.submit(run_task, task)
                in_flight += 1
            if in_flight == 0:
                break
            in_flight -= 1
            result = pool.next_result()
            shown.computed(state.finish(result), result.seconds / workers)
    for text, count in state.warned.items():
        warnings.warn(text + (f" ({count} times)" if count > 1 else ""), stacklevel=2)
    for warning in state.failure_warnings():
        warnings.warn(warning, stacklevel=2)
    return state.outcome()


class _Condition:
    """Scheduling state of one condition: next block, speed, cache; with a stopping rule, the
    blocks taken in so far (a prefix), those waiting for an earlier one, and the decision."""

    def __init__(self, cid, n_blocks, store):
        self.cid, self.n_blocks, self.store = cid, n_blocks, store
        self.next = 0
        self.prefix = 0  # blocks 0..prefix-1 are added up (with a stopping rule)
        self.used = 0  # their replications
        self.pending = {}  # block -> {key: (tally, errors, values)}, past the prefix
        self.closed = False  # the rule held, or the cap was reached: no more blocks
        self.met = None
        self.seconds_per_block = math.inf
        self.probing = False  # its first task is out and its speed unknown
        self.peeked = None  # (block, records) read from the cache ahead of a task

    def load(self, block: int, size: int) -> dict:
        """The records stored for `block` (read once, even when peeked at ahead of a task)."""
        if self.store is None:
            return {}
        if self.peeked is not None and self.peeked[0] == block:
            return self.peeked[1]
        return self.store.load(block, size)


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


class Scheduler:
    """A plan's run on a pool of workers: hands out tasks (:meth:`next_task`), taking cached blocks
    as it goes, and takes in finished ones (:meth:`finish`), storing and adding their blocks."""

    def __init__(self, plan: Plan, workers: int, progress, *, cache=None, keep_values=False,
                 max_failure_rate=MAX_FAILURE_RATE, task_seconds=TASK_SECONDS):
        self.plan, self.workers, self.progress = plan, workers, progress
        self.keep_values, self.max_failure_rate = keep_values, max_failure_rate
        self.task_seconds, self.max_failures = task_seconds, MAX_FAILURES_KEPT
        self.by_key = {a.key: a for a in plan.analyses}
        self.conditions = {cid: _Condition(cid, plan.n_blocks(cid), BlockStore(
            cache, namespace(sc, plan.seed, plan.block_size_of(cid)))
            if cache is not None else None) for cid, sc in plan.conditions.items()}
        pairs = [(cid, k) for cid in self.conditions for k in self.by_key]
        self.sums = {ck: _Sums(self.by_key[ck[1]].tally_type.associative) for ck in pairs}
        self.values = {ck: {} for ck in pairs} if keep_values else None
        self.kept = {ck: [] for ck in pairs}  # failures, in (block, rep) order
        self.failed, self.done = collections.Counter(), collections.Counter()
        self.warned = collections.Counter()
        self.per_block = (cache is not None or keep_values or plan.stop is not None
                          or not all(a.tally_type.associative for a in plan.analyses))
        self.remaining = sum(c.n_blocks for c in self.conditions.values())  # not yet sent
        self.blocks_computed = self.blocks_reused = 0

    # -- handing out tasks ---------------------------------------------------------------

    def next_task(self) -> Task | None:
        """The next task to send; None while no condition has blocks to send (all sent, or only
        first tasks, which time their conditions' blocks, still out)."""
        while (cond := self._ready()) is not None:
            task = self._task(cond, self._chunk(cond))
            if task is not None:
                cond.probing = math.isinf(cond.seconds_per_block)
                self.remaining -= len(task.sizes)
                return task
        return None

    def _ready(self) -> _Condition | None:
        return next((c for c in self.conditions.values()
                     if c.next < c.n_blocks and not c.probing and not c.closed
                     and self._ahead(c) > 0), None)

    def _ahead(self, cond: _Condition) -> int | float:
        """Blocks `cond` may still send past those added up: without a stopping rule, any;
        with one, up to half its prefix (at least one per worker) in all, so that the blocks
        computed past its stopping point stay a fraction of those it uses. This bounds work,
        never results: those depend on the prefix alone."""
        if self.plan.stop is None:
            return math.inf
        return max(self.workers, cond.prefix // 2) - (cond.next - cond.prefix)

    def _chunk(self, cond: _Condition) -> int:
        """Blocks for `cond`'s next task: a task's target duration at the condition's speed,
        fewer near the end of the study, and with a stopping rule, a share of what the
        condition may send ahead (:meth:`_ahead`) per worker."""
        target = 1 if math.isinf(cond.seconds_per_block) else max(
            1, int(self.task_seconds / cond.seconds_per_block))
        chunk = max(1, min(target, math.ceil(self.remaining / (2 * self.workers))))
        if self.plan.stop is not None:
            chunk = min(chunk, max(1, math.ceil(self._ahead(cond) / self.workers)))
        return chunk

    def _task(self, cond: _Condition, chunk: int) -> Task | None:
        """The next task of `cond`, after taking its cached blocks; None when it has none."""
        while cond.next < cond.n_blocks and not cond.closed:
            first = cond.next
            records = cond.load(first, self._size(cond.cid, first))
            absent = self._missing(records)
            self._take_cached(cond, first, records, absent)
            if absent:
                cond.next = self._extend(cond, first, absent, chunk)
                return Task(self.plan.conditions[cond.cid],
                            tuple(self.by_key[k] for k in absent), self.plan.seed, cond.cid,
                            first, tuple(self.plan.sizes(cond.cid, first, cond.next)),
                            self.per_block, self.keep_values, self.max_failures)
            cond.next += 1
            self.blocks_reused += 1
            self.progress.reused(self._size(cond.cid, first))
        return None

    def _extend(self, cond: _Condition, first: int, absent: list[str], chunk: int) -> int:
        """The end of a task from block `first`: the next blocks that miss the same records
        (taking what they have), up to `chunk` blocks in all."""
        stop = first + 1
        while stop < cond.n_blocks and stop - first < chunk:
            ahead = cond.load(stop, self._size(cond.cid, stop))
            if self._missing(ahead) != absent:
                cond.peeked = (stop, ahead)
                break
            self._take_cached(cond, stop, ahead, absent)
            stop += 1
        return stop

    def _size(self, cid: int, block: int) -> int:
        return self.plan.sizes(cid, block, block + 1)[0]

    def _missing(self, records: dict) -> list[str]:
        """The keys whose stored record this study cannot use."""
        return [k for k, a in self.by_key.items() if not a.usable(records, self.keep_values)]

    def _take_cached(self, cond: _Condition, block: int, records: dict, absent: list[str]):
        for key, a in self.by_key.items():
            if key not in absent:
                self._take(cond, key, block, *a.from_records(records, block,
                                                              self.keep_values))

    # -- taking in results ---------------------------------------------------------------

    def finish(self, result: TaskResult) -> int:
        """Take in a finished task: store its blocks in the cache, then add their tallies; returns
        its replications."""
        self.warned.update(result.warned)
        cond = self.conditions[result.cid]
        cond.probing = False
        cond.seconds_per_block = min(cond.seconds_per_block, result.seconds / len(result.sizes))
        by_block = collections.defaultdict(list)
        for key, entries in result.out.items():
            for block, *entry in entries:
                by_block[block].append((key, entry))
        for block in sorted(by_block):
            if cond.store is not None:  # stored first: a stop keeps this block
                cond.store.save(block, self._size(result.cid, block), {
                    name: record for key, entry in by_block[block]
                    for name, record in self.by_key[key].to_records(*entry).items()})
            for key, entry in by_block[block]:
                self._take(cond, key, block, *entry)
        self.blocks_computed += len(result.sizes)
        return sum(result.sizes)

    def _take(self, cond: _Condition, key: str, block: int, tally, errors, values) -> None:
        """Add a block's entry of analysis `key`: at once without a stopping rule; with one,
        once every analysis's entry of it and of every earlier block is in (in block order),
        asking the rule after each block; nothing of a closed condition."""
        if self.plan.stop is None:
            self.record(cond.cid, key, block, tally, errors, values)
            return
        if cond.closed:  # computed ahead of the decision: not counted
            return
        cond.pending.setdefault(block, {})[key] = (tally, errors, values)
        while (self.by_key and not cond.closed
               and len(cond.pending.get(cond.prefix, ())) == len(self.by_key)):
            entries = cond.pending.pop(cond.prefix)
            for k in self.by_key:
                self.record(cond.cid, k, cond.prefix, *entries[k])
            cond.used += self._size(cond.cid, cond.prefix)
            cond.prefix += 1
            if hasattr(self.progress, "used"):
                self.progress.used(1)
            met = bool(self.plan.stop({k: self.sums[(cond.cid, k)].total for k in self.by_key},
                                      cond.prefix))
            if met or cond.prefix == cond.n_blocks:
                self._close(cond, met)

    def _close(self, cond: _Condition, met: bool) -> None:
        """Stop `cond` at its prefix: no more tasks, waiting blocks dropped; the share of
        failures is judged over the replications it used."""
        cond.closed, cond.met = True, met
        self.remaining -= max(0, cond.n_blocks - cond.next)  # its blocks not sent
        cond.pending.clear()
        for key in self.by_key:
            ck = (cond.cid, key)
            if self.failed[ck] > self.max_failure_rate * self.done[ck]:
                self._fail(ck)

    def record(self, cid: int, key: str, block: int, tally, errors: dict, values) -> None:
        """Add a block's (or a task's) tally of analysis `key`, its failures and values; raises
        :class:`StudyError` past the allowed share of failures."""
        ck = (cid, key)
        self.sums[ck].add(block, tally)
        self.failed[ck] += tally.failed
        self.done[ck] += tally.n
        if values is not None:
            self.values[ck][block] = values
        items = self.kept[ck]
        for where, msg in sorted(errors.items()):
            if len(items) < self.max_failures or where < items[-1][0]:
                bisect.insort(items, (where, msg))
                del items[self.max_failures:]
        if self.failed[ck] > self.max_failure_rate * self.plan.n_reps:
            self._fail(ck)

    def _fail(self, ck: tuple[int, str]):
        """Raise the StudyError of analysis ``ck[1]`` on condition ``ck[0]``."""
        cid, key = ck
        items = self.kept[ck]
        cond = self.plan.conditions[cid]
        first = items[0][1] if items else "?"
        raise StudyError(
            f"condition {cid} ({cond.name} {cond.to_dict()}): criterion "
            f"{self.by_key[key].name!r} failed in {self.failed[ck]} of "
            f"{self.done[ck]} replications; first error: {first}. Finished blocks "
            "are kept in the cache, if one was given.", criterion=self.by_key[key].name,
            failed=self.failed[ck], done=self.done[ck], first=first)

    def failure_warnings(self) -> list[FailureWarning]:
        """A :class:`FailureWarning` for each analysis and condition that failed on more than
        :data:`~evalmc.engine.options.WARN_FAILURE_RATE` of its replications."""
        out = []
        for ck in self.kept:  # in the plan's order
            failed, done = self.failed[ck], self.done[ck]
            if failed <= WARN_FAILURE_RATE * done:
                continue
            cid, key = ck
            cond = self.plan.conditions[cid]
            first = self.kept[ck][0][1] if self.kept[ck] else "?"
            out.append(FailureWarning(self.by_key[key].name, failed, done,
                                      f"{cid} ({cond.name} {cond.to_dict()})", first))
        return out

    def outcome(self) -> Outcome:
        """The summed tallies, values and kept failures so far."""
        values = None
        if self.values is not None:
            values = {ck: [v[b] for b in sorted(v)] for ck, v in self.values.items()}
        failures = [Failure(cid, b, rep, self.by_key[key].name, msg)
                    for (cid, key), items in self.kept.items() for (b, rep), msg in items]
        stop = self.plan.stop is not None
        reps = {cid: c.used if stop else self.plan.n_reps for cid, c in self.conditions.items()}
        met = {cid: bool(c.met) for cid, c in self.conditions.items()} if stop else None
        return Outcome({ck: s.total for ck, s in self.sums.items()}, values, failures,
                       self.blocks_computed, self.blocks_reused, reps, met)


class _Progress:
    """The progress bar, and the estimate of a long study's time left, given once.

    The estimate times the tasks after the first (which holds the compilation of the kernels
    and would inflate it), by their own durations: the time between two finished tasks also
    holds the tasks run meanwhile, and counts their replications only later. The bar's rate
    starts afresh after the first task too.
    """

    def __init__(self, total: int | None, progress: bool | None, cached: bool, desc: str):
        show = sys.stderr.isatty() if progress is None else progress
        # total None (a stopping rule): the bar counts the blocks used, with no estimate
        self.announce, self.cached = progress is not False and total is not None, cached
        self.total, self.done, self.started = total, 0, time.perf_counter()
        self.steady = None  # seconds and replications of the tasks after the first
        self.bar = tqdm(total=total, disable=not show, file=sys.stderr,
                        unit="rep" if total is not None else "block",
                        unit_scale=total is not None, desc=desc)

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc)

    def reused(self, reps: int) -> None:
        if self.total is not None:
            self.bar.update(reps)

    def used(self, blocks: int) -> None:
        """`blocks` more blocks added up, with a stopping rule (the bar's count)."""
        self.bar.update(blocks)

    def computed(self, reps: int, seconds: float) -> None:
        """`reps` replications more, computed by a task in `seconds` (a worker's time over
        the number of workers)."""
        if self.total is None:
            return
        self.bar.update(reps)
        self.done += reps
        if self.steady is None:
            self.steady = [0.0, 0]
            if not self.bar.disable:
                self.bar._ema_dn, self.bar._ema_dt = EMA(self.bar.smoothing), EMA(
                    self.bar.smoothing)
                self.bar.last_print_t, self.bar.last_print_n = self.bar._time(), self.bar.n
            return
        self.steady[0] += seconds
        self.steady[1] += reps
        if self.announce and (self.steady[0] >= 1.0 or self.done == self.total):
            self.announce = not _announce_long_run(
                time.perf_counter() - self.started, self.done, self.total - self.done,
                self.cached, seconds_per_rep=self.steady[0] / self.steady[1])


#: A study expected to take longer than this says so, with its estimate, as it starts.
LONG_RUN_SECONDS = 60.0


def _announce_long_run(elapsed: float, done: int, left: int, cached: bool,
                       seconds_per_rep: float | None = None) -> bool:
    """Print the time a study has left, once, when it is more than :data:`LONG_RUN_SECONDS`;
    returns whether the estimate was given (after the first second of work, it is). The
    time per replication is `seconds_per_rep`, default the average so far."""
    if elapsed < 1.0 and left:
        return False
    eta = (elapsed / done if seconds_per_rep is None else seconds_per_rep) * left
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

