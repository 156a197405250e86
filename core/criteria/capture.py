"""What a user's criterion (or estimator) prints is kept off standard output, thread by thread: a
proxy of ``sys.stdout`` sends each capturing thread's writes to its buffer while any capture is
open."""

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
    """Capture what this thread prints; yields the ``io.StringIO`` that receives it."""
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
    """Warn once per `kind` (plural `kinds`) and process that `name` printed `text`, quoting its
    first line."""
    with _LOCK:
        if not text or (kind, name) in _WARNED:
            return
        _WARNED.add((kind, name))
    first = text.strip().splitlines()[0] if text.strip() else ""
    warnings.warn(f"{kind} {name!r} printed to standard output (first line: {first!r}); "
                  f"evalmc keeps what {kinds} print out of its results", CriterionPrinted,
                  stacklevel=2)


class CriterionPrinted(UserWarning):
    """A user's criterion (or estimator) wrote to standard output, which evalmc captured."""
