"""The run options every study shares: each default named once, and their checks; and the
check by which a worker thread of an interrupted run stops (:func:`check_interrupted`).

This module imports nothing heavy, so the command line reads the defaults for its help
without loading the engine.
"""

from __future__ import annotations

import threading

#: Where tasks run: threads (the kernels release the GIL), loky processes, or dask.
BACKENDS = ("threads", "loky", "dask")
#: Target duration of a task, a run of blocks sent to a worker at once, in seconds.
TASK_SECONDS = 0.5
#: Replications per block: the unit of seeding and caching.
BLOCK_SIZE = 1000
#: Replications per block at most: a block's scores are held in memory at once (the number
#: of replications itself streams, block after block, in constant memory).
MAX_BLOCK_SIZE = 100_000
#: Bytes of scores a block (or a slab of blocks drawn at once) may hold. A condition whose
#: replications are so wide that `block_size` of them would hold more (above 33,554 scores
#: of A and B together per replication, at the default block size) gets blocks of as many
#: replications as fit: its results then come from other random streams than at the block
#: size asked for. Every other condition keeps it.
MAX_BLOCK_BYTES = 2**28
#: Replications per condition of ``calibrate`` and ``coverage`` when none are asked for.
REPS = 10_000
#: Replications of ``audit`` under the null (the MCSE of a 5% size is then at most 0.003), and
#: under each alternative (the MCSE of a power at most 0.0112).
AUDIT_REPS = 5300
AUDIT_ALT_REPS = 2000
#: Refits of the audit's fitted model (a parametric bootstrap) over which its null
#: replications are split, so that each size carries the fit's uncertainty.
AUDIT_REFITS = 20
#: A study stops when a condition's failed share of replications exceeds this.
MAX_FAILURE_RATE = 0.5
#: A study warns when a condition's failed share of replications exceeds this: its rates and
#: estimates are then over the replications that did not fail, fewer than asked for, and a
#: failure that depends on the data (a test that fails where it would reject) biases them.
WARN_FAILURE_RATE = 0.01
#: Blocks a condition of a study with a ``target_mcse`` runs at least before the target may
#: stop it: a first block's rates alone never do (at a rate of 0, say).
MIN_BLOCKS = 2


def block_rows(scenario, rows: int) -> int:
    """`rows` replications of `scenario`, or as many (at least 1) as keep their scores (8 bytes
    each) within :data:`MAX_BLOCK_BYTES`."""
    sizes = getattr(scenario, "sizes", None)
    if "scores" not in scenario.batch.holds or sizes is None:
        return rows
    return max(1, min(rows, MAX_BLOCK_BYTES // (8 * sum(sizes))))


def check_run_options(*, n_reps, seed, block_size, n_jobs, backend, scheduler, task_seconds,
                      max_failure_rate) -> tuple[int, int, int, int]:
    """Check the options of a run; returns `n_reps`, `seed`, `block_size` and `n_jobs` as ints."""
    import importlib.util

    from evalmc.inputs.checks import check_choice, check_float, check_int

    n_reps = check_int("n_reps", n_reps, low=1)
    seed = check_int("seed", seed, low=0)
    block_size = check_int("block_size", block_size, low=1, high=MAX_BLOCK_SIZE)
    n_jobs = check_int("n_jobs", n_jobs)
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"`n_jobs` must be a positive integer or -1; got {n_jobs}.")
    if backend is not None:
        check_choice("backend", backend, BACKENDS)
    check_float("max_failure_rate", max_failure_rate, low=0, high=1, open_low=True)
    asked = "`backend` 'dask'" if backend == "dask" else "`scheduler`" if scheduler else None
    if asked and importlib.util.find_spec("distributed") is None:
        raise ValueError(f"{asked} needs dask.distributed, which is not installed: "
                         "pip install \"evalmc[dist]\".")
    if scheduler is not None and backend != "dask":
        got = f"backend {backend!r}" if backend else "no backend (add --backend dask)"
        raise ValueError(f"`scheduler` needs backend 'dask'; got {got}.")
    check_float("task_seconds", task_seconds, low=0, open_low=True)
    return n_reps, seed, block_size, n_jobs


def check_target(target_mcse, max_reps, n_reps: int, *, high: float | None = 0.5):
    """Check ``target_mcse`` (in (0, `high`], or None) and ``max_reps`` (only with a target);
    returns the target and the cap of replications per condition."""
    from evalmc.inputs.checks import check_float, check_int

    if target_mcse is None:
        if max_reps is not None:
            raise ValueError("`max_reps` caps a study that stops at `target_mcse`; give "
                             "`target_mcse` too, or set `n_reps` alone.")
        return None, n_reps
    target_mcse = check_float("target_mcse", target_mcse, low=0, high=high, open_low=True,
                              open_high=high is None)
    cap = n_reps if max_reps is None else check_int("max_reps", max_reps, low=1)
    return target_mcse, cap


def check_alphas(alpha) -> tuple[float, ...]:
    """The levels `alpha` of a study (one, or a list) as floats in (0, 1), at least one; else
    ValueError."""
    import numpy as np

    from evalmc.inputs.checks import check_float

    values = alpha if isinstance(alpha, (list, tuple, np.ndarray)) else [alpha]
    if len(values) == 0:
        raise ValueError("`alpha` needs at least one value.")
    return tuple(check_float("alpha", a, low=0, high=1, open_low=True, open_high=True)
                 for a in values)


#: In a pool's worker thread: the pool's event, set once the pool closes on Ctrl-C or an error.
_WORKER = threading.local()


def check_interrupted() -> None:
    """Raise KeyboardInterrupt in a worker thread whose pool is closing on Ctrl-C or an error (the
    analyses' long loops call it); elsewhere do nothing."""
    stop = getattr(_WORKER, "stop", None)
    if stop is not None and stop.is_set():
        raise KeyboardInterrupt
