"""``calibrate``: the size and power of criteria under a scenario, in one call.

The function behind ``evalmc calibrate``. The scenario, the criteria and the levels are checked
first, then every condition of the grid is built and validated once
(:class:`~evalmc.study.design.Design`), before any replication runs.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterable, Mapping

from evalmc.criteria import get_criterion
from evalmc.engine.options import BLOCK_SIZE, REPS, TASK_SECONDS, check_alphas
from evalmc.sims import get_scenario
from evalmc.sims.base import Scenario
from evalmc.study.design import Design, default_grid


def _renamed(**renames):
    """Let a function still take its keywords' old names (``old="new"``), each with a
    DeprecationWarning naming the new one; the function's signature shows the new names."""
    def wrap(func):
        @functools.wraps(func)
        def call(*args, **kwargs):
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{func.__name__}() got both `{old}` and `{new}`; "
                                        f"`{old}` is the deprecated name of `{new}`.")
                    warnings.warn(f"`{old}` is deprecated; use `{new}` (as in run_study).",
                                  DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)
        return call
    return wrap


@_renamed(reps="n_reps", jobs="n_jobs")
def calibrate(scenario, criteria, *, params: Mapping | None = None, n_reps: int = REPS,
              alpha=0.05, seed: int = 0, n_jobs: int = 1, backend: str | None = None,
              scheduler: str | None = None, cache=None, block_size: int = BLOCK_SIZE,
              task_seconds: float = TASK_SECONDS, progress: bool | None = None,
              target_mcse: float | None = None, max_reps: int | None = None):
    """Rejection rates of `criteria` on data drawn from `scenario`, over a grid of its parameters.

    Parameters
    ----------
    scenario : str or Scenario subclass
        A name from ``evalmc.SCENARIOS`` or a scenario class.
    criteria : str, callable, or a sequence of them
        Built-in names (``evalmc.CRITERIA``), ``'path/to/file.py:function'`` specs, or
        callables ``f(a, b)`` (or ``f(a, b, rng)``) returning a p-value or a decision.
    params : mapping, optional
        Parameter name to a value or a list of values; lists make a full grid. Default: one
        condition, the scenario's defaults.
    n_reps : int
        Replications per condition (``reps``, its old name, still works, with a
        DeprecationWarning).
    alpha : float or sequence of float
        Level(s) each p-value is judged at, in (0, 1).
    seed : int
        Root seed; the result does not depend on `n_jobs`, `backend` or `cache`.
    n_jobs : int
        Workers; -1 for all cores (``jobs``, its old name, still works, with a
        DeprecationWarning).
    backend : {'threads', 'loky', 'dask'}, optional
        Default: threads, or loky processes when several workers run a user's function.
    scheduler : str, optional
        Address of a dask scheduler (with ``backend='dask'``).
    cache : path, optional
        Directory of finished blocks: a re-run resumes from it.
    block_size : int
        Replications per block, the unit of seeding and caching.
    task_seconds : float
        Target duration of a task (a run of blocks) sent to a worker.
    progress : bool, optional
        Show a progress bar; default: when stderr is a terminal.
    target_mcse : float, optional
        Stop each condition once every rate's Monte Carlo error is at most this, in (0, 0.5]
        (:func:`~evalmc.study.rates.run_study`); `n_reps` is then the cap.
    max_reps : int, optional
        With `target_mcse`, the cap instead of `n_reps`.

    Returns
    -------
    StudyResult

    Examples
    --------
    >>> import evalmc
    >>> res = evalmc.calibrate("normal", ["welch-t"], params={"n_a": 5, "sd_a": [1.0, 3.0]},
    ...                        n_reps=2000, seed=1, progress=False)
    >>> res.summary[["sd_a", "criterion", "rate", "bradley"]]
       sd_a criterion    rate bradley
    0   1.0   welch-t  0.0500  robust
    1   3.0   welch-t  0.0575  robust

    Each condition until its size is known within 0.004, at most 10,000 replications:

    >>> res = evalmc.calibrate("normal", ["welch-t"], params={"n_a": 5, "sd_a": [1.0, 3.0]},
    ...                        target_mcse=0.004, seed=1, progress=False)
    >>> res.summary[["sd_a", "rate", "n_reps", "target_met"]]
       sd_a     rate  n_reps  target_met
    0   1.0  0.05075    4000        True
    1   3.0  0.05900    4000        True
    """
    if isinstance(scenario, str):
        scenario = get_scenario(scenario)
    if not (isinstance(scenario, type) and issubclass(scenario, Scenario)):
        raise ValueError(f"`scenario` must be a scenario name or class; got {scenario!r}.")
    if isinstance(criteria, str) or callable(criteria) or not isinstance(criteria, Iterable):
        criteria = [criteria]
    criteria = [get_criterion(c) for c in criteria]
    if not criteria:
        raise ValueError("`criteria` must name at least one criterion.")
    alphas = _values(alpha)
    check_alphas(alphas)  # the study's own check, before the design is built
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise ValueError("`params` must be a mapping of parameter name to a value or a list of "
                         f"values; got {params!r}.")
    grid = {name: _values(value) for name, value in params.items()} or default_grid(scenario)
    design = Design.build(grid, scenario)  # every condition validated before the engine loads

    from evalmc.study.rates import run_study

    return run_study(design, scenario, criteria, n_reps=n_reps, seed=seed, alpha=alphas,
                     block_size=block_size, n_jobs=n_jobs, backend=backend, cache=cache,
                     progress=progress, scheduler=scheduler, task_seconds=task_seconds,
                     target_mcse=target_mcse, max_reps=max_reps)


def _values(value) -> list:
    """A value or a list of values (list, tuple, range, 1-D array or Series) as a list."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable) \
            or getattr(value, "ndim", 1) == 0:
        return [value]
    return list(value)
