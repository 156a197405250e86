"""Collecting studies: every replication's records, for figures that show the raw runs.

A scenario whose ``draw`` returns :class:`~evalmc.sims.base.Records` (its ``batch`` type;
trained networks' errors, per-data-set test results) runs on the engine like any other study:
the same seeding, caching, resumption and workers; the study keeps all its rows, in
replication order.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from evalmc.engine import scheduler as engine
from evalmc.engine.analysis import Analysis
from evalmc.engine.options import TASK_SECONDS, check_run_options
from evalmc.engine.tallies import RecordsTally
from evalmc.sims.base import check_needs
from evalmc.study.design import Design


def collect(design, scenario, *, n_reps: int, seed: int, block_size: int = 1, n_jobs: int = 1,
            backend: str = "threads", scheduler: str | None = None, cache=None,
            progress: bool | None = None, task_seconds: float = TASK_SECONDS) -> pd.DataFrame:
    """Every record of `n_reps` replications of each condition, its scenario drawing
    :class:`~evalmc.sims.base.Records`: ``condition_id``, the design columns, ``rep`` (from 0), then
    the scenario's columns."""
    n_reps, seed, block_size, n_jobs = check_run_options(
        n_reps=n_reps, seed=seed, block_size=block_size, n_jobs=n_jobs, backend=backend,
        scheduler=scheduler, task_seconds=task_seconds, max_failure_rate=1.0)
    design = Design.build(design, scenario)
    scenario, conditions, params = design.scenario, design.conditions, design.params
    check_needs("a collecting study", "records", scenario)
    plan = engine.Plan(conditions, [_Collect()], n_reps, seed, block_size)
    out = engine.run(plan, n_jobs=n_jobs, backend=backend, scheduler=scheduler, cache=cache,
                     progress=progress, task_seconds=task_seconds,
                     desc=f"evalmc {scenario.name}")
    frames = []
    for row in design.frame.to_dict("records"):
        table = pd.DataFrame(out.tallies[(int(row["condition_id"]), _Collect.key)].columns)
        for i, name in enumerate(["condition_id", *params]):
            table.insert(i, name, row[name])
        frames.append(table)
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class _Collect(Analysis):
    """The engine's analysis that keeps a block's records: a :class:`RecordsTally` per block."""

    key = "records"
    tally_type = RecordsTally

    def run(self, records, rng):
        return records

    def tallies(self, records, starts, scenario):
        rep = records.columns["rep"]
        out = []
        for k in range(len(starts) - 1):
            rows = (rep >= starts[k]) & (rep < starts[k + 1])
            columns = {name: col[rows] for name, col in records.columns.items()}
            columns["rep"] = columns["rep"] - starts[k]
            out.append((RecordsTally(int(starts[k + 1] - starts[k]), columns), {}))
        return out
