"""Data-generating processes: validated front ends over Numba kernels.

``SCENARIOS`` (:mod:`evalmc.sims.registry`) is the registry of the built-in scenarios, one row
each; ``get_scenario(name)`` loads one. Reading the registry imports no numerical library.
"""

import importlib

from evalmc.sims.registry import SCENARIOS

#: Names defined in :mod:`evalmc.sims.base`, loaded on first use.
_LAZY = ("Batch", "Scenario")


def get_scenario(name: str):
    """Return the scenario class called `name`, or raise ValueError listing the valid names.

    Parameters
    ----------
    name : str
        A name of :data:`SCENARIOS`.

    Returns
    -------
    Scenario subclass

    Examples
    --------
    >>> import evalmc
    >>> normal = evalmc.get_scenario("normal")
    >>> normal(n_a=5).truth, [p.name for p in normal.parameters()][:3]
    ('null', ['n_a', 'n_b', 'mean_a'])
    """
    if name not in SCENARIOS:
        valid = ", ".join(sorted(SCENARIOS))
        raise ValueError(f"unknown scenario {name!r}; valid names: {valid}.")
    return SCENARIOS[name].load()


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'evalmc.sims' has no attribute {name!r}")
    value = getattr(importlib.import_module("evalmc.sims.base"), name)
    globals()[name] = value
    return value


__all__ = ["Batch", "Scenario", "SCENARIOS", "get_scenario"]
