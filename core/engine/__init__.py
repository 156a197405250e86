"""The Monte Carlo engine: blocks of replications, seeded, cached, scheduled as tasks.

:mod:`~evalmc.engine.scheduler` runs a :class:`Plan` of analyses over conditions,
:mod:`~evalmc.engine.tallies` keeps what a study keeps of each block, and
:mod:`~evalmc.engine.blockstore` stores finished blocks on disk. The engine knows nothing of
criteria, estimators or papers: an analysis is any object of the contract described in
:class:`Plan`.
"""

from evalmc.engine.scheduler import (
    BACKENDS,
    TASK_SECONDS,
    Failure,
    Plan,
    StudyError,
    analysis_rng,
    block_errors,
    block_rng,
    choose_backend,
    read_records,
    run,
    split_errors,
    write_records,
)

__all__ = ["BACKENDS", "TASK_SECONDS", "Failure", "Plan", "StudyError", "analysis_rng",
           "block_errors", "block_rng", "choose_backend", "read_records", "run",
           "split_errors", "write_records"]
