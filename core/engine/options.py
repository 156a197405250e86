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
    """`rows` replications of `scenario`, or as many (at least 1) as keep their scores within
    :data:`MAX_BLOCK_BYTES`: 8 bytes a score, ``sum(scenario.sizes)`` scores a replication,
    for a scenario whose batches hold scores.

    Parameters
    ----------
    scenario : Scenario
        A condition.
    rows : int
        Replications asked for at once: a block size, or a slab's.

    Returns
    -------
    int

    Examples
    --------
    >>> from evalmc.engine.options import block_rows
    >>> from evalmc.sims.scores import Normal
    >>> block_rows(Normal(n_a=1000), 1000), block_rows(Normal(n_a=10**6, n_b=10**6), 1000)
    (1000, 16)
    """
    sizes = getattr(scenario, "sizes", None)
    if "scores" not in scenario.batch.holds or sizes is None:
        return rows
    return max(1, min(rows, MAX_BLOCK_BYTES // (8 * sum(sizes))))


def check_run_options(*, n_reps, seed, block_size, n_jobs, backend, scheduler, task_seconds,
                      max_failure_rate) -> tuple[int, int, int, int]:
    """Check the options of a run; returns `n_reps`, `seed`, `block_size` and `n_jobs` as ints.

    Parameters
    ----------
    n_reps : int
        Replications per condition, at least 1.
    seed : int
        Root seed, at least 0.
    block_size : int
        Replications per block, from 1 to :data:`MAX_BLOCK_SIZE`.
    n_jobs : int
        Workers: a positive integer, or -1 for every core.
    backend : {'threads', 'loky', 'dask'} or None
        None lets the engine choose.
    scheduler : str or None
        A dask scheduler's address; only with backend 'dask'.
    task_seconds : float
        Target duration of a task, above 0.
    max_failure_rate : float
        In (0, 1].

    Returns
    -------
    tuple of int
        ``(n_reps, seed, block_size, n_jobs)``.

    Raises
    ------
    ValueError
        Naming the first option that breaks its rule.

    Examples
    --------
    >>> from evalmc.engine.options import check_run_options
    >>> check_run_options(n_reps=2000.0, seed=1, block_size=1000, n_jobs=-1, backend=None,
    ...                   scheduler=None, task_seconds=0.5, max_failure_rate=0.5)
    (2000, 1, 1000, -1)
    >>> check_run_options(n_reps=10, seed=1, block_size=1000, n_jobs=0, backend=None,
    ...                   scheduler=None, task_seconds=0.5, max_failure_rate=0.5)
    Traceback (most recent call last):
    ...
    ValueError: `n_jobs` must be a positive integer or -1; got 0.
    """
    import importlib.util

    from evalmc.sims.validation import check_choice, check_float, check_int

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
    """Check ``target_mcse`` and ``max_reps``; returns the target (or None) and the cap.

    A study with a target runs each condition block by block until its rule holds
    (:attr:`evalmc.engine.scheduler.Plan.stop`), at most the cap.

    Parameters
    ----------
    target_mcse : float or None
        The precision to stop at, in (0, `high`]; None: every condition runs `n_reps`.
    max_reps : int or None
        The cap of replications per condition with a target; default `n_reps`. Only with a
        target.
    n_reps : int
        The study's (checked) replications per condition.
    high : float or None
        The largest target (0.5, the largest error of a rate); None: no bound (a target in
        an estimate's units).

    Returns
    -------
    tuple
        ``(target_mcse, cap)``: a float or None, and the replications per condition at most.

    Raises
    ------
    ValueError
        Naming the parameter that breaks its rule.

    Examples
    --------
    >>> from evalmc.engine.options import check_target
    >>> check_target(0.002, None, 10_000), check_target(None, None, 500)
    ((0.002, 10000), (None, 500))
    >>> check_target(0.002, 50_000, 10_000)
    (0.002, 50000)
    >>> check_target(0.7, None, 10_000)
    Traceback (most recent call last):
    ...
    ValueError: `target_mcse` must be in (0, 0.5]; got 0.7.
    """
    from evalmc.sims.validation import check_float, check_int

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

    from evalmc.sims.validation import check_float

    values = alpha if isinstance(alpha, (list, tuple, np.ndarray)) else [alpha]
    if len(values) == 0:
        raise ValueError("`alpha` needs at least one value.")
    return tuple(check_float("alpha", a, low=0, high=1, open_low=True, open_high=True)
                 for a in values)


#: In a pool's worker thread: the pool's event, set once the pool closes on Ctrl-C or an error.
_WORKER = threading.local()


def check_interrupted() -> None:
    """Raise KeyboardInterrupt in a worker thread whose pool is closing on Ctrl-C or an error.

    Ctrl-C reaches the main thread only; the long loops of the analyses (each replication of
    a user's criterion, each chunk of a long kernel) call this, so an interrupted study stops
    its running tasks instead of waiting for them. Elsewhere it does nothing.

    Examples
    --------
    >>> from evalmc.engine.options import check_interrupted
    >>> check_interrupted()  # not in a closing pool's worker
    """
    stop = getattr(_WORKER, "stop", None)
    if stop is not None and stop.is_set():
        raise KeyboardInterrupt
