"""evalmc: a Monte Carlo testbed for ML evaluation methodology.

Is a way of deciding "A beats B" right on the score distributions that training runs produce?
evalmc measures the size and power of decision criteria by simulation, estimates Boo_n and
P(A>B) on your own runs, and reproduces the method papers' figures.

The names below are what a user calls; each is imported on first use, so ``import evalmc``
(and the ``evalmc`` command) starts at once. Everything else is reached by its module.
"""

import importlib as _importlib

__version__ = "0.2.0"

#: Public name -> the module that defines it.
_PUBLIC = {
    "make_design": "evalmc.study",
    "run_study": "evalmc.study",
    "StudyResult": "evalmc.study",
    "calibrate": "evalmc.calibration",
    "boo_n": "evalmc.estimators.boon",
    "boo_n_normal": "evalmc.estimators.boon",
    "boon_interval": "evalmc.estimators.boon",
    "BoonInterval": "evalmc.estimators.boon",
    "compare": "evalmc.comparison",
    "CompareResult": "evalmc.comparison",
    "describe": "evalmc.estimators.describe",
    "reproduce": "evalmc.reproductions.runner",
    "SCENARIOS": "evalmc.sims",
    "get_scenario": "evalmc.sims",
    "CRITERIA": "evalmc.criteria",
    "get_criterion": "evalmc.criteria",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'evalmc' has no attribute {name!r}")
    value = getattr(_importlib.import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *_PUBLIC})
