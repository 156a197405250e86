"""What a user's criterion (or estimator) prints is kept off standard output, thread by thread.

A summary written to stdout (``evalmc calibrate --format csv``) must hold the summary only, so
the prints of a user's function are captured while it runs. Criteria run on several threads at
once, and ``contextlib.redirect_stdout`` swaps ``sys.stdout`` for every thread and restores it in
whatever order the threads finish; here one proxy is installed while any capture is open and
sends each thread's writes to that thread's buffer, or to the real stream when the thread
captures nothing.
"""

from __future__ import annotations

import io
import sys
import threading
import warnings
from contextlib import contextmanager

_LOCK = threading.Lock()
_LOCAL = threading.local()
_STATE = {"open": 0, "original": None}
_WARNED: set[tuple[str, str]] = set()


class _PerThreadStdout(io.TextIOBase):
    """``sys.stdout`` while captures are open: a capturing thread writes to its buffer."""

    def __init__(self, original):
        self.original = original

    def write(self, text):
        buffer = getattr(_LOCAL, "buffer", None)
        return (buffer if buffer is not None else self.original).write(text)

    def flush(self):
        if getattr(_LOCAL, "buffer", None) is None:
            self.original.flush()

    def __getattr__(self, name):  # encoding, fileno, isatty...: the real stream's
        return getattr(self.original, name)


@contextmanager
def captured_stdout():
    """Capture what this thread prints; yields the ``io.StringIO`` that receives it.

    Yields
    ------
    io.StringIO
        What this thread printed while the capture was open.

    Examples
    --------
    >>> with captured_stdout() as printed:
    ...     print("progress: 50%")
    >>> printed.getvalue()
    'progress: 50%\\n'
    """
    with _LOCK:
        if _STATE["open"] == 0:
            _STATE["original"] = sys.stdout
            sys.stdout = _PerThreadStdout(sys.stdout)
        _STATE["open"] += 1
    outer = getattr(_LOCAL, "buffer", None)
    _LOCAL.buffer = buffer = io.StringIO()
    try:
        yield buffer
    finally:
        _LOCAL.buffer = outer
        with _LOCK:
            _STATE["open"] -= 1
            if _STATE["open"] == 0:
                sys.stdout = _STATE["original"]


def warn_printed(name: str, text: str, kind: str = "criterion", kinds: str = "criteria") -> None:
    """Say once per criterion (or estimator) and process that `name` printed, with its first
    line.

    Parameters
    ----------
    name : str
        The criterion's name.
    text : str
        What it printed; nothing is said when empty.
    kind, kinds : str
        What printed (``'criterion'``, ``'estimator'``), and its plural, as the warning says.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_printed("my-test", "hello\\nworld\\n")
    ...     warn_printed("my-test", "again\\n")  # said once only
    >>> len(caught), caught[0].category.__name__
    (1, 'CriterionPrinted')
    """
    with _LOCK:
        if not text or (kind, name) in _WARNED:
            return
        _WARNED.add((kind, name))
    first = text.strip().splitlines()[0] if text.strip() else ""
    warnings.warn(f"{kind} {name!r} printed to standard output (first line: {first!r}); "
                  f"evalmc keeps what {kinds} print out of its results", CriterionPrinted,
                  stacklevel=2)


class CriterionPrinted(UserWarning):
    """A user's criterion (or estimator) wrote to standard output, which evalmc captured.

    Examples
    --------
    >>> issubclass(CriterionPrinted, UserWarning)
    True
    """
