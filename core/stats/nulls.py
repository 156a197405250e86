"""Null distributions of test statistics, named as a criterion's result names them."""

from __future__ import annotations

import functools

import numpy as np
import scipy  # scipy.stats loads on first use: the command line stays light


@functools.lru_cache(maxsize=256)
def null_distribution(null: tuple):
    """The frozen scipy distribution of ``null = (name, args)``, e.g. ``('t', (9,))``."""
    name, args = null
    return getattr(scipy.stats, name)(*args)


@functools.lru_cache(maxsize=256)
def critical_values(null: tuple, levels) -> np.ndarray:
    """``|statistic|`` at or above which a two-sided test with null `null` rejects at `levels`."""
    return null_distribution(null).isf(np.asarray(levels) / 2)
