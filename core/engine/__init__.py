"""The Monte Carlo engine: blocks of replications, seeded, cached, scheduled as tasks.

:mod:`~evalmc.engine.scheduler` runs a plan of analyses over conditions,
:mod:`~evalmc.engine.tasks` is what a worker runs, :mod:`~evalmc.engine.executors` provides the
workers, :mod:`~evalmc.engine.analysis` is the contract of what runs on each block,
:mod:`~evalmc.engine.tallies` what a study keeps of it, :mod:`~evalmc.engine.blockstore` stores
finished blocks and :mod:`~evalmc.engine.options` names the run options' defaults. The engine knows
nothing of criteria, estimators or papers.
"""
