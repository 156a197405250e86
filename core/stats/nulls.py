"""Null distributions of test statistics, named as a criterion's result names them."""

from __future__ import annotations

import functools

import numpy as np
import scipy  # scipy.stats loads on first use: the command line stays light


@functools.lru_cache(maxsize=256)
def null_distribution(null: tuple):
    """The frozen scipy distribution of ``null = (name, args)``, e.g. ``('t', (9,))``.

    Parameters
    ----------
    null : tuple of (str, tuple)
        A ``scipy.stats`` distribution's name and its shape arguments.

    Returns
    -------
    scipy.stats frozen distribution

    Examples
    --------
    >>> from evalmc.stats.nulls import null_distribution
    >>> round(float(null_distribution(("t", (9,))).isf(0.025)), 4)
    2.2622
    """
    name, args = null
    return getattr(scipy.stats, name)(*args)


@functools.lru_cache(maxsize=256)
def critical_values(null: tuple, levels) -> np.ndarray:
    """``|statistic|`` at or above which a two-sided test with null `null` rejects at `levels`.

    Parameters
    ----------
    null : tuple of (str, tuple)
        The statistic's null distribution, as :func:`null_distribution` takes it.
    levels : sequence of float
        Levels in (0, 1).

    Returns
    -------
    ndarray
        One critical value per level.

    Examples
    --------
    >>> from evalmc.stats.nulls import critical_values
    >>> critical_values(("norm", ()), (0.05, 0.01)).round(4)
    array([1.96  , 2.5758])
    """
    return null_distribution(null).isf(np.asarray(levels) / 2)
