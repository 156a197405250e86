"""The Monte Carlo engine: blocks of replications, seeded, cached, scheduled as tasks.

:mod:`~evalmc.engine.scheduler` runs a plan of analyses over conditions (:func:`run`, the
:class:`Scheduler`), :mod:`~evalmc.engine.tasks` is what a worker runs on a task of blocks,
:mod:`~evalmc.engine.executors` provides the workers (inline, threads, loky, dask),
:mod:`~evalmc.engine.analysis` is the contract of what runs on each block,
:mod:`~evalmc.engine.tallies` keeps what a study keeps of each block,
:mod:`~evalmc.engine.blockstore` stores finished blocks on disk and
:mod:`~evalmc.engine.options` names the run options' defaults. The engine knows nothing of
criteria, estimators or papers.
"""
