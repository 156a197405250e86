"""Where tasks run: inline, on threads, on loky processes, or on dask.

:func:`open_pool` gives a pool with two methods, ``submit(fn, *args)`` and ``next_result()``
(the result of a finished task, in the order tasks finish), whatever the backend.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import threading
import warnings

import joblib

from evalmc.engine.options import _WORKER


def local_workers(n_jobs: int) -> int:
    """Workers on this machine for `n_jobs` (-1: every core), capped at one per core with a
    warning."""
    cores = joblib.cpu_count()
    if n_jobs > cores:
        warnings.warn(f"`n_jobs` = {n_jobs} is more than this machine's {cores} cores; "
                      f"running {cores} workers", stacklevel=3)
    return cores if n_jobs == -1 else min(n_jobs, cores)


@contextlib.contextmanager
def open_pool(backend: str, n_jobs: int, scheduler: str | None = None):
    """A pool of workers as ``(workers, pool)``, the pool's ``submit(fn, *args)`` and
    ``next_result()`` alike for every backend; pending tasks are cancelled on exit."""
    if backend == "dask":
        with _dask_pool(n_jobs, scheduler) as pool:
            yield pool
        return
    workers = local_workers(n_jobs)
    if workers == 1 and backend == "threads":
        yield 1, _Inline()
        return
    stop = threading.Event()  # told to the worker threads when the pool closes on an error
    if backend == "threads":
        executor = concurrent.futures.ThreadPoolExecutor(
            workers, initializer=setattr, initargs=(_WORKER, "stop", stop))
    else:
        from joblib.externals.loky import get_reusable_executor

        executor = get_reusable_executor(max_workers=workers)
    pool = _FuturesPool(executor)
    try:
        yield workers, pool
    except BaseException:
        stop.set()
        raise
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
                with _sigint_ignored():  # Ctrl-C is this process's to handle, not theirs
                    cluster = stack.enter_context(LocalCluster(
                        n_workers=workers, threads_per_worker=1, dashboard_address=None))
                client = stack.enter_context(Client(cluster))
        pool = _DaskPool(client, as_completed())
        try:
            yield max(1, sum(client.nthreads().values())), pool
        finally:
            pool.finished.clear()


@contextlib.contextmanager
def _sigint_ignored():
    """SIGINT ignored while the processes of a local cluster start, so that they inherit it: a
    terminal's Ctrl-C reaches every process of its group, and a dask worker's own
    KeyboardInterrupt prints tracebacks while this process closes the cluster."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class TaskInterrupted(Exception):
    """A KeyboardInterrupt raised in a dask task, carried back as an error: raised as it is,
    it kills the worker, which the nanny restarts, and the task is run again."""


def _interrupt_as_error(fn, *args):
    """``fn(*args)``, a KeyboardInterrupt raised as :class:`TaskInterrupted`."""
    try:
        return fn(*args)
    except KeyboardInterrupt:
        raise TaskInterrupted("the task was interrupted") from None


class _DaskPool:
    """Tasks submitted to a dask client, gathered with ``as_completed`` as they finish; a task
    interrupted on its worker interrupts the study, as on threads or loky."""

    def __init__(self, client, finished):
        self.client, self.finished = client, finished

    def submit(self, fn, *args):
        self.finished.add(self.client.submit(_interrupt_as_error, fn, *args, pure=False))

    def next_result(self):
        try:
            return next(self.finished).result()
        except TaskInterrupted:
            raise KeyboardInterrupt from None
