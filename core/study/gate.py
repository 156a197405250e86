"""What a research loop's keep rule costs: keep rules run on loops whose truth is known (the
``loop`` scenario), on the engine.

Per loop, against each candidate's true effect (:mod:`evalmc.sims.loops`):

- ``any_false``: the loop keeps some candidate without a real effect (effect <= 0);
- ``false_keeps``: how many it keeps;
- ``power``: the share of its real candidates it keeps (NaN where the loop has none);
- ``keeps``: the candidates it keeps;
- ``runs``: the runs it spends, the baseline's included (with ``looks`` above 1, those its
  rule read);
- ``overstatement``: its final reported score (:mod:`evalmc.criteria.gate`) minus that
  score's true mean.

``any_false`` is a rate, with Monte Carlo error ``sqrt(p (1 - p) / n)``; the others are means,
with ``sd / sqrt(n)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalmc.criteria import get_criterion
from evalmc.criteria.gate import user_rule
from evalmc.engine import scheduler as engine
from evalmc.engine.analysis import Analysis
from evalmc.engine.tallies import RecordsTally
from evalmc.inputs.checks import check_int
from evalmc.sims import get_scenario
from evalmc.stats.mcse import rate_mcse

#: The rules compared by default: the eye-set ones and the tests that hold a level.
RULES = ("keep-noise-floor", "keep-ratchet", "keep-t", "keep-bonferroni", "keep-holm")
#: Added to them when a rule may look again: the rules made for looks.
SEQUENTIAL = ("keep-spending", "keep-anytime")
#: Loops per block.
BLOCK_SIZE = 10_000
#: What each loop records: the rate first, then the means.
RATES = ("any_false",)
MEANS = ("false_keeps", "power", "keeps", "runs", "overstatement")


def loop_metrics(kept, effects, score, truth, spent) -> dict[str, np.ndarray]:
    """Each loop's measures (the module docstring) from its decisions ``kept`` (n_reps, K),
    its candidates' true `effects`, its final `score`, that score's `truth` and the runs it
    `spent` (one number for every loop, or one per loop)."""
    real = effects > 0
    n_real = real.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        power = np.where(n_real > 0, (kept & real).sum(axis=1) / n_real, np.nan)
    false = (kept & ~real).sum(axis=1)
    return {"any_false": false > 0, "false_keeps": false.astype(float), "power": power,
            "keeps": kept.sum(axis=1).astype(float),
            "runs": np.broadcast_to(np.asarray(spent, dtype=float), kept.shape[:1]).copy(),
            "overstatement": score - truth}


@dataclass(frozen=True)
class _LoopRun(Analysis):
    """A keep rule as the engine runs it: each loop's measures, as records."""

    criterion: object

    @property
    def key(self) -> str:
        return f"loop:{self.criterion.key}"

    @property
    def name(self) -> str:
        return self.criterion.name

    tally_type = RecordsTally

    def run(self, batch, rng):
        self.criterion.check_batch(batch)
        return batch.effects, self.criterion.test.keeps(batch)

    def tallies(self, result, starts, scenario):
        effects, kept = result
        rows = loop_metrics(kept.kept, effects, kept.score, kept.truth, kept.runs)
        out = []
        for s, e in zip(starts[:-1], starts[1:], strict=True):
            block = {name: values[s:e] for name, values in rows.items()}
            block["rep"] = np.arange(e - s)
            out.append((RecordsTally(int(e - s), block), {}))
        return out


def summarise(tally: RecordsTally) -> dict:
    """Rates and means of a rule's loop records, each with its Monte Carlo error."""
    row = {"loops": tally.n}
    for name in RATES:
        rate, mcse = rate_mcse(int(tally.columns[name].sum()), tally.n)
        row[name], row[f"{name}_mcse"] = float(rate), float(mcse)
    for name in MEANS:
        values = tally.columns[name][~np.isnan(tally.columns[name])]
        row[name] = float(values.mean()) if values.size else np.nan
        row[f"{name}_mcse"] = (float(values.std(ddof=1) / np.sqrt(values.size))
                               if values.size > 1 else np.nan)
    return row


def run_gate(params=None, rules=RULES, *, n_reps: int, seed: int = 0, n_jobs: int = 1,
             cache=None, progress=None, block_size: int = BLOCK_SIZE) -> pd.DataFrame:
    """Measure keep rules on research loops: P(any false keep), the false keeps, the power to
    keep a real candidate, the runs spent and the overstatement of the final score, each with
    its Monte Carlo error.

    Parameters
    ----------
    params : dict, optional
        The ``loop`` scenario's parameters (:data:`evalmc.sims.SCENARIOS`); its defaults
        otherwise (50 null candidates, one run each, two baseline runs, unit sd).
    rules : sequence of str or callable
        Registered keep rules (criteria that need a loop), e.g. ``'keep-noise-floor(k=3)'``;
        a user's rule as ``'path/to/file.py:function'`` or a callable
        (:func:`evalmc.criteria.gate.user_rule`).
    n_reps : int
        Loops.
    seed : int
        Root seed; block b of the loops is drawn from ``SeedSequence(seed, spawn_key=(0, b))``.
    n_jobs, cache, progress, block_size
        As :func:`evalmc.run_study`; results do not depend on `n_jobs`.

    Returns
    -------
    DataFrame
        A row per rule: ``rule``, ``loops``, then each measure of the module docstring and its
        ``_mcse``.

    Examples
    --------
    >>> from evalmc.study.gate import run_gate
    >>> frame = run_gate(rules=["keep-noise-floor", "keep-ratchet"], n_reps=2000, seed=1,
    ...                  progress=False)
    >>> frame[["rule", "any_false", "false_keeps", "overstatement"]].round(3)
                   rule  any_false  false_keeps  overstatement
    0  keep-noise-floor      0.560        6.265          1.473
    1      keep-ratchet      0.982        3.476          2.288
    """
    n_reps = check_int("n_reps", n_reps, low=1)
    condition = get_scenario("loop")(**(params or {}))
    criteria = [user_rule(r) if _is_user(r) else get_criterion(r) for r in rules]
    if not criteria:
        raise ValueError("`rules` must name at least one keep rule.")
    for crit in criteria:
        crit.check_scenario(condition)
        crit.test.check(condition.runs, condition.base_runs, condition.baseline,
                        condition.looks)
    plan = engine.Plan({0: condition}, [_LoopRun(c) for c in criteria], n_reps, seed,
                       block_size)
    out = engine.run(plan, n_jobs=n_jobs, cache=cache, progress=progress, desc="evalmc gate")
    return pd.DataFrame([{"rule": c.name, **summarise(out.tallies[(0, f"loop:{c.key}")])}
                         for c in criteria])


def _is_user(rule) -> bool:
    """Whether `rule` is a user's: a callable or a ``file.py:function``."""
    return callable(rule) or (isinstance(rule, str) and ":" in rule
                              and rule.rsplit(":", 1)[0].endswith(".py"))
