"""evalmc: a Monte Carlo testbed for ML evaluation methodology.

Is a way of deciding "A beats B" right on the score distributions that training runs produce?
evalmc measures the size and power of decision criteria by simulation, estimates Boo_n and
P(A>B) on your own runs, and reproduces the method papers' figures.

The names of ``__all__`` are what a user calls; each is imported on first use, so ``import
evalmc`` (and the ``evalmc`` command) starts at once. Everything else is reached by its module.
"""

import importlib as _importlib

__version__ = "0.2.0"

#: Public name -> the module that defines it, imported on first use.
_LAZY = {
    "make_design": "evalmc.study.design",
    "run_study": "evalmc.study.rates",
    "StudyResult": "evalmc.study.rates",
    "calibrate": "evalmc.study.calibration",
    "run_estimation": "evalmc.study.estimation",
    "EstimationResult": "evalmc.study.estimation",
    "boo_n": "evalmc.estimators.boon",
    "boo_n_normal": "evalmc.estimators.boon",
    "boon_interval": "evalmc.estimators.boon",
    "BoonInterval": "evalmc.estimators.boon",
    "compare": "evalmc.analysis.comparison",
    "ranks": "evalmc.analysis.ranks",
    "RanksResult": "evalmc.analysis.ranks",
    "CompareResult": "evalmc.analysis.comparison",
    "reproduce": "evalmc.reproductions.runner",
    "audit": "evalmc.study.audit",
    "AuditResult": "evalmc.study.audit",
    "audit_models": "evalmc.study.audit_models",
    "AuditModelsResult": "evalmc.study.audit_models",
    "plan": "evalmc.study.plan",
    "PlanResult": "evalmc.study.plan",
    "plan_cost": "evalmc.study.plan",
    "CostPlan": "evalmc.study.plan",
    "SCENARIOS": "evalmc.sims",
    "get_scenario": "evalmc.sims",
    "CRITERIA": "evalmc.criteria",
    "get_criterion": "evalmc.criteria",
    "lesson": "evalmc.lessons.runner",
    "run_gate": "evalmc.study.gate",
    "solve_gate": "evalmc.study.gate_solve",
    "GateSolution": "evalmc.study.gate_solve",
}

__all__ = [
    "make_design", "run_study", "StudyResult", "calibrate", "run_estimation", "EstimationResult",
    "boo_n", "boo_n_normal", "boon_interval", "BoonInterval",
    "compare", "CompareResult", "ranks", "RanksResult", "describe", "reproduce",
    "audit", "AuditResult", "audit_models", "AuditModelsResult",
    "plan", "PlanResult", "plan_cost", "CostPlan",
    "SCENARIOS", "get_scenario", "CRITERIA", "get_criterion", "lesson", "__version__",
    "run_gate", "solve_gate", "GateSolution",
]


def describe(data, columns=None, *, dropna=True, best="min"):
    """The descriptive report of run results: one row per column of `data`.

    Median, IQR, minimum and maximum beside the mean and sd, the skewness, Sarle's bimodality
    coefficient, normality tests and whether ``mean - sd`` falls below the best run, as Giles
    and Lawrence (1997) recommend; ``evalmc describe FILE.csv`` prints the same report. The
    IQR is the median of the upper half of the runs minus that of the lower half (the median
    left out when n is odd): numpy's default percentiles interpolate, and differ on few runs.

    Parameters
    ----------
    data : DataFrame, dict of str to array_like, or array_like of shape (n,)
        Runs: a DataFrame or dict (column name to its n >= 4 results), or one unnamed sample,
        reported as column ``0``.
    columns : list of str, optional
        Columns to describe; default: every column of numbers.
    dropna : bool
        Skip missing values and count them (``n_missing``); False makes one an error.
    best : {'min', 'max'}
        Which end is the best run: ``'min'`` for errors and losses (the flag
        ``mean_minus_sd_below_min``), ``'max'`` for accuracies (``mean_plus_sd_above_max``).

    Returns
    -------
    DataFrame
        ``column``, the keys of :func:`evalmc.estimators.describe.describe`, ``n_missing``
        and ``note`` (why a column too short or constant has no shape statistics).

    Examples
    --------
    >>> import numpy as np
    >>> import evalmc
    >>> rng = np.random.default_rng(0)
    >>> runs = {"lognormal": rng.lognormal(size=30), "normal": rng.normal(size=30)}
    >>> evalmc.describe(runs)[["column", "n", "skewness", "shapiro_p"]].round(4)
          column   n  skewness  shapiro_p
    0  lognormal  30    1.4993     0.0002
    1     normal  30   -0.0700     0.2725
    """
    from evalmc.estimators.describe import describe_columns

    return describe_columns(data, columns, dropna=dropna, best=best)


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'evalmc' has no attribute {name!r}")
    value = getattr(_importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__():
    """The public names, and the module's dunders: not its helpers or loaded submodules."""
    return sorted({*__all__, *(n for n in globals() if n.startswith("__"))})
