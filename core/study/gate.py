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
  score's true mean;
- ``corrected`` (only with the scenario's ``rerun`` > 0): the selection-corrected estimate of
  that true mean minus it. The correction is the hold-out rerun: the final reported model
  measured again by ``rerun`` fresh runs on new seeds, whose mean no selection touched, so is
  unbiased for its true mean whatever the rule, the noise or the pairing; the price is the
  ``rerun`` runs, counted in ``runs``. It is the remedy for the winner's curse of genome scans
  (an independent replication sample: Goring, Terwilliger and Blangero 2001, Am J Hum Genet
  69:1357) and of model selection (an estimate held out of the selection: Cawley and Talbot
  2010, JMLR 11:2079).

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
#: Measured only when the loop reruns its final model.
RERUN = ("corrected",)


def loop_metrics(kept, effects, score, truth, spent, rerun=None) -> dict[str, np.ndarray]:
    """Each loop's measures (the module docstring) from its decisions ``kept`` (n_reps, K),
    its candidates' true `effects`, its final `score`, that score's `truth`, the runs it
    `spent` (one number for every loop, or one per loop) and the noise of the final model's
    fresh runs, `rerun` (n_reps, m; none by default)."""
    real = effects > 0
    n_real = real.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        power = np.where(n_real > 0, (kept & real).sum(axis=1) / n_real, np.nan)
    false = (kept & ~real).sum(axis=1)
    rows = {"any_false": false > 0, "false_keeps": false.astype(float), "power": power,
            "keeps": kept.sum(axis=1).astype(float),
            "runs": np.broadcast_to(np.asarray(spent, dtype=float), kept.shape[:1]).copy(),
            "overstatement": score - truth}
    if rerun is not None and rerun.shape[1]:
        rescore = truth + rerun.mean(axis=1)  # the final model's fresh runs
        rows["corrected"] = rescore - truth
    return rows


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
        return batch.effects, self.criterion.test.keeps(batch), batch.rerun

    def tallies(self, result, starts, scenario):
        effects, kept, rerun = result
        rows = loop_metrics(kept.kept, effects, kept.score, kept.truth,
                            kept.runs + rerun.shape[1], rerun)
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
    for name in MEANS + tuple(n for n in RERUN if n in tally.columns):
        values = tally.columns[name][~np.isnan(tally.columns[name])]
        row[name] = float(values.mean()) if values.size else np.nan
        row[f"{name}_mcse"] = (float(values.std(ddof=1) / np.sqrt(values.size))
                               if values.size > 1 else np.nan)
    return row


def run_gate(params=None, rules=RULES, *, n_reps: int, seed: int = 0, n_jobs: int = 1,
             cache=None, progress=None, block_size: int = BLOCK_SIZE) -> pd.DataFrame:
    """Measure keep rules on research loops: P(any false keep), the false keeps, the power to
    keep a real candidate, the runs spent and the overstatement of the final score (and, with
    ``rerun``, the bias of its selection-corrected estimate), each with its Monte Carlo error.

    Parameters
    ----------
    params : dict, optional
        The ``loop`` scenario's parameters (:data:`evalmc.sims.SCENARIOS`); its defaults
        otherwise (50 null candidates, one run each, two baseline runs, unit sd, Gaussian
        noise, no rerun).
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
        ``_mcse`` (``corrected`` only with ``rerun`` > 0).

    Examples
    --------
    >>> from evalmc.study.gate import run_gate
    >>> frame = run_gate(rules=["keep-noise-floor", "keep-ratchet"], n_reps=2000, seed=1,
    ...                  progress=False)
    >>> frame[["rule", "any_false", "false_keeps", "overstatement"]].round(3)
                   rule  any_false  false_keeps  overstatement
    0  keep-noise-floor      0.560        6.265          1.473
    1      keep-ratchet      0.982        3.476          2.288

    Skewed run noise, and the final model rerun on 2 fresh seeds:

    >>> frame = run_gate({"noise": "skew-normal", "rerun": 2}, ["keep-ratchet"], n_reps=2000,
    ...                  seed=1, progress=False)
    >>> frame[["overstatement", "corrected", "corrected_mcse", "runs"]].round(3)
       overstatement  corrected  corrected_mcse  runs
    0          1.656     -0.014           0.016  54.0
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
