"""A student's function called in a worker process, each call within a time limit.

A call that never returns cannot be stopped from inside its own thread in Python (a thread
cannot be killed; an alarm signal reaches only the main thread, and not inside C code), so the
grader sends each call of the student's function to a worker process of its own (loky's, as
joblib uses) and waits at most `timeout` seconds for the answer. Past it, or on Ctrl-C, the
worker is killed by its process id (loky's ``shutdown(kill_workers=True)``) and the call raises
:class:`CallStopped`, which the per-replication failure handling (it records an ``Exception``
as a failed replication) lets through, so that grading stops. The worker's start is not
counted against the limit. Each thread of a study gets its own worker, so `n_jobs` threads call
`n_jobs` workers at once.

What the worker returns is what the function would have returned here: the same answer, the
same failure message (``Type: message``) for a call that raises, what it printed (printed here,
where the criterion captures it) and the random generator's state after the call; the scores it
receives are read-only, as here.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import inspect
import io
import signal
import threading
import time

import cloudpickle
import numpy as np

from evalmc.engine.options import check_interrupted

#: Seconds between two looks at the engine's stop event while a call runs.
_SLICE = 0.1
#: The function a worker calls (each worker loads one).
_LOADED: dict = {}


class CallStopped(BaseException):
    """A call of the student's function did not return in time (`timed_out`), or its worker
    ended; the message says which. A BaseException, not an Exception, so that it stops the
    study instead of failing one replication."""

    def __init__(self, message: str, timed_out: bool = False):
        super().__init__(message)
        self.timed_out = timed_out


class TimedFunction:
    """`func`, each call run in a worker process and stopped past `timeout` seconds.

    Parameters
    ----------
    func : callable
        The student's function (picklable by cloudpickle, as a user's criterion is).
    timeout : float
        Seconds each call may take, the worker's start not counted.
    """

    def __init__(self, func, timeout: float):
        self.func, self.timeout = func, timeout
        try:  # the criterion reads `axis` and `rng` from it, as from `func`
            self.__signature__ = inspect.signature(func)
        except (TypeError, ValueError):
            pass
        self.__doc__ = getattr(func, "__doc__", None)
        self._lock = threading.Lock()
        self._executors: dict = {}  # thread id -> its single-worker executor
        self._stopped: tuple | None = None  # the reason and whether a call timed out

    def __reduce__(self):
        return TimedFunction, (self.func, self.timeout)

    def __call__(self, *args, **kwargs):
        executor = self._executor()
        readonly = [isinstance(x, np.ndarray) and not x.flags.writeable for x in args]
        (kind, value), printed, state = self._wait(
            executor.submit(_call, args, kwargs, readonly), self.timeout)
        if printed:
            print(printed, end="")
        if state is not None:
            kwargs["rng"].bit_generator.state = state
        if kind == "raised":
            raise _stand_in(*value[:2])(value[2])
        return value

    def close(self) -> None:
        """Stop every worker, by its process id, and wait until each has ended."""
        with self._lock:
            executors, self._executors = list(self._executors.values()), {}
        for executor in executors:
            executor.shutdown(wait=True, kill_workers=True)

    def _executor(self):
        """This thread's worker, started (and the function loaded there) on its first call."""
        if self._stopped is not None:
            raise CallStopped(*self._stopped)
        ident = threading.get_ident()
        with self._lock:
            executor = self._executors.get(ident)
        if executor is not None:
            return executor
        from joblib.externals.loky import ProcessPoolExecutor

        # Ctrl-C reaches the worker too when typed in a terminal: there this process stops it.
        executor = ProcessPoolExecutor(max_workers=1, initializer=signal.signal,
                                       initargs=(signal.SIGINT, signal.SIG_IGN))
        with self._lock:
            self._executors[ident] = executor
        try:
            # by value, whatever pickler the executor's context uses (a library that sets
            # multiprocessing's start method makes it the standard one, which pickles the
            # student's module by name, unknown in the worker)
            self._wait(executor.submit(_load, cloudpickle.dumps(self.func)), None)
        except Exception as err:  # noqa: BLE001 - reported as the reason grading stops
            self._stop(f"could not be loaded in a worker process ({type(err).__name__}: "
                       f"{err})")
        return executor

    def _wait(self, future, limit):
        """`future`'s result within `limit` seconds (None: no limit), looking at the engine's
        stop event meanwhile; every worker is killed when it does not come."""
        deadline = None if limit is None else time.monotonic() + limit
        try:
            while True:
                check_interrupted()
                left = _SLICE if deadline is None else min(_SLICE, deadline - time.monotonic())
                if left <= 0:
                    self._stop(f"did not return within {self.timeout:g} s", timed_out=True)
                try:
                    return future.result(timeout=left)
                except concurrent.futures.TimeoutError:
                    continue
                except concurrent.futures.BrokenExecutor:
                    self._stop("ended its worker process (it exited, crashed or ran out of "
                               "memory)")
                except Exception:
                    if self._stopped is not None:  # another thread stopped every worker
                        raise CallStopped(*self._stopped) from None
                    raise  # the worker could not send the answer: a failed replication
        except BaseException as err:
            if not isinstance(err, Exception):
                self.close()
            raise

    def _stop(self, reason: str, timed_out: bool = False):
        """Raise CallStopped for `reason`, or for the first one given, which every later call
        repeats."""
        with self._lock:
            if self._stopped is None:
                self._stopped = (reason, timed_out)
        raise CallStopped(*self._stopped)


@functools.cache
def _stand_in(name: str, value_error: bool) -> type:
    """An exception class named as the one the student's function raised in its worker, so
    that its failure message (``Type: message``) reads as if raised here."""
    return type(name, (ValueError if value_error else Exception,), {})


def _load(func_bytes: bytes) -> None:
    """In the worker: keep the student's function, sent pickled by cloudpickle."""
    _LOADED["func"] = cloudpickle.loads(func_bytes)


def _call(args, kwargs, readonly):
    """In the worker: the function on `args` (read-only where they were), as ``(('returned',
    value) or ('raised', (type name, is a ValueError, message))), printed text, rng state)``."""
    for x, frozen in zip(args, readonly, strict=True):
        if frozen:
            x.flags.writeable = False
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            out = ("returned", _LOADED["func"](*args, **kwargs))
    except (Exception, SystemExit) as err:  # noqa: BLE001 - a failure is data, as here
        out = ("raised", (type(err).__name__, isinstance(err, ValueError), str(err)))
    rng = kwargs.get("rng")
    return out, printed.getvalue(), None if rng is None else rng.bit_generator.state
