"""``calibrate``: the size and power of criteria under a scenario, in one call.

The function behind ``evalmc calibrate``: everything it is given is checked before the study
engine is imported, so a bad argument is reported at once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from evalmc.criteria import get_criterion
from evalmc.sims import get_scenario
from evalmc.sims.validation import check_float


def calibrate(scenario, criteria, *, params: Mapping | None = None, reps: int = 10_000,
              alpha=0.05, seed: int = 0, jobs: int = 1, backend: str = "threads",
              scheduler: str | None = None, cache=None, block_size: int | None = None,
              progress: bool | None = None):
    """Rejection rates of `criteria` on data drawn from `scenario`, over a grid of its parameters.

    Parameters
    ----------
    scenario : str or Scenario subclass
        A name from ``evalmc.SCENARIOS`` or a scenario class.
    criteria : str, callable, or a sequence of them
        Built-in names (``evalmc.CRITERIA``), ``'path/to/file.py:function'`` specs, or
        callables ``f(a, b)`` returning a p-value or a decision.
    params : mapping, optional
        Parameter name to a value or a list of values; lists make a full grid. Default: the
        scenario's first parameter at its default.
    reps : int
        Replications per condition.
    alpha : float or sequence of float
        Level(s) each p-value is judged at.
    seed : int
        Root seed; results do not depend on `jobs`, `backend` or `cache`.
    jobs, backend, scheduler, cache, progress
        As :func:`evalmc.run_study` (`jobs` is its ``n_jobs``).
    block_size : int, optional
        Replications per block; default: the engine's.

    Returns
    -------
    StudyResult

    Examples
    --------
    >>> import evalmc
    >>> res = evalmc.calibrate("normal", ["welch-t"], params={"n_a": 5, "sd_a": [1.0, 3.0]},
    ...                        reps=2000, seed=1, progress=False)
    >>> res.summary[["sd_a", "criterion", "rate", "bradley"]]
       sd_a criterion    rate bradley
    0   1.0   welch-t  0.0550  robust
    1   3.0   welch-t  0.0575  robust
    """
    scenario = get_scenario(scenario) if isinstance(scenario, str) else scenario
    if isinstance(criteria, (str, Callable)):
        criteria = [criteria]
    criteria = [get_criterion(c) for c in criteria]
    if not criteria:
        raise ValueError("`criteria` must name at least one criterion.")
    alphas = [alpha] if not isinstance(alpha, Sequence) else list(alpha)
    for a in alphas:
        check_float("alpha", a, low=0, high=1, open_low=True, open_high=True)
    grid = dict(params or {})
    scenario.check_names(grid)
    if not grid:
        first = scenario.parameters()[0]
        grid = {first.name: first.default}
    values = {k: v if isinstance(v, (list, tuple)) else [v] for k, v in grid.items()}
    for combo in _combinations(values):  # every condition's parameters are valid
        scenario(**combo)

    from evalmc.study import make_design, run_study

    options = {} if block_size is None else {"block_size": block_size}
    return run_study(make_design(**grid), scenario, criteria, n_reps=reps, seed=seed,
                     alpha=alphas, n_jobs=jobs, backend=backend, cache=cache,
                     progress=progress, scheduler=scheduler, **options)


def _combinations(values: dict):
    import itertools

    for combo in itertools.product(*values.values()):
        yield dict(zip(values, combo, strict=True))
