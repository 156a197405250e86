"""``njit`` for every kernel of evalmc: Numba's, its on-disk cache dropped where it cannot be
written.

Numba caches compiled kernels beside their source or in the user's cache folder; with neither
writable (a read-only install and home, as in containers and HPC modules) ``cache=True`` would
stop the import. The kernels are then compiled in each process instead, with one warning.
"""

from __future__ import annotations

import warnings

import numba

#: Said once per process when no cache location is writable.
NO_CACHE_WARNING = ("Numba found no writable cache location: kernels are compiled again in "
                    "each run; set NUMBA_CACHE_DIR to a writable folder to cache them")
_warned = False


def njit(**options):
    """``numba.njit(**options)``, falling back to ``cache=False`` with one warning where Numba has
    no writable cache location."""
    def decorate(func):
        global _warned
        try:
            return numba.njit(**options)(func)
        except RuntimeError as err:
            if not options.get("cache") or "cannot cache function" not in str(err):
                raise
        if not _warned:
            _warned = True
            warnings.warn(NO_CACHE_WARNING, RuntimeWarning, stacklevel=3)
        return numba.njit(**{**options, "cache": False})(func)

    return decorate
