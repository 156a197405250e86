"""The planner's cost against a plain grid search for the same sample size: the n at which the
paired t-test has power 0.8 for Cohen's d of 0.5 (statsmodels: 34), by :func:`evalmc.plan`
and by simulating every n from 2 upward at the replications matching the plan's MCSE."""

from __future__ import annotations

import math

#: The question: scenario, criterion, parameters, target power, level.
SCENARIO, CRITERION = "paired-normal", "paired-t"
PARAMS = {"shift": 0.5, "rho": 0.5}
TARGET, ALPHA = 0.8, 0.05


def grid_search(n_reps: int, *, target: float = TARGET, start: int = 2, stop: int = 10_000,
                params=None, seed: int = 1) -> dict:
    """A plain grid search over n until the power's lower 95% bound passes `target`."""
    from evalmc.study.design import make_design
    from evalmc.study.rates import run_study

    params = dict(PARAMS if params is None else params)
    first = None
    for n in range(start, stop + 1):
        row = run_study(make_design(n=n, **params), SCENARIO, [CRITERION], n_reps=n_reps,
                        seed=seed, alpha=ALPHA, progress=False).summary.iloc[0]
        if first is None and row["rate"] >= target:
            first = n
        if row["ci_low"] >= target:
            return {"first": first, "stopped": n, "n_reps": n_reps * (n - start + 1)}
    raise ValueError(f"the power's lower bound did not pass {target:g} by n = {stop}.")


def plan_t_test():
    """`evalmc.plan` solving n for the paired t-test (power 0.8) against a plain grid search at
    the replications that give the same MCSE of the power at the answer.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns a line of text: the n solved and the
        replications spent.

    Examples
    --------
    >>> from evalmc.bench.planning import plan_t_test
    >>> ours, peer = plan_t_test()  # runs the plan once; the timed searches are not run
    >>> callable(ours), callable(peer)
    (True, True)
    """
    from evalmc.study.plan import plan

    def solve(params):
        return plan(SCENARIO, CRITERION, solve="n", power=TARGET, alpha=ALPHA, params=params,
                    seed=1)

    first = solve(PARAMS)
    grid_reps = math.ceil(TARGET * (1 - TARGET) / first.power_mcse ** 2)

    def ours(small=False):
        res = solve({"shift": 1.5, "rho": 0.5} if small else PARAMS)
        return (f"n = {res.value} [{res.ci_low}, {res.ci_high}], power {res.power:.3f} "
                f"(MCSE {res.power_mcse:.4f}), {res.n_reps:,} replications, "
                f"{len(res.points)} points")

    def peer(small=False):
        if small:
            out = grid_search(100, params={"shift": 1.5, "rho": 0.5})
        else:
            out = grid_search(grid_reps)
        return (f"n = {out['first']} (lower bound past {TARGET:g} at {out['stopped']}), "
                f"{grid_reps:,} replications per n, {out['n_reps']:,} in all")

    return ours, peer
