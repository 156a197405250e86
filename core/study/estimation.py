"""Estimator studies: bias, empirical SE, RMSE, interval coverage and width, with their Monte
Carlo errors (Morris, White and Crowther 2019), on the same engine as the rejection studies:
the same seeding, caching, resumption, failure capture and workers.

A study given ``target_mcse`` runs each condition block by block until every estimator's
Monte Carlo error is at most the target, or until its cap (``max_reps``, default ``n_reps``):
that of its coverage when it gives intervals, else that of its bias (:class:`EstimateTarget`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalmc.engine import scheduler as engine
from evalmc.engine.analysis import Analysis
from evalmc.engine.options import (
    BLOCK_SIZE,
    MAX_FAILURE_RATE,
    MIN_BLOCKS,
    TASK_SECONDS,
    check_run_options,
    check_target,
)
from evalmc.engine.scheduler import Failure
from evalmc.engine.tallies import EstimateTally, precision_mcse
from evalmc.estimators.intervals import EstimateResult, UserEstimator, get_estimator
from evalmc.estimators.registry import TARGET_DOCS, TARGETS
from evalmc.inputs.checks import check_choice, check_float
from evalmc.sims import Scenario
from evalmc.sims.base import check_needs
from evalmc.study.design import Design

MEASURES = ("bias", "emp_se", "rmse", "coverage", "width")


@dataclass
class EstimationResult:
    """Outcome of :func:`run_estimation`: performance measures per estimator and condition.

    Attributes
    ----------
    truths : dict
        Condition id to the estimand's true value.
    tallies : dict
        ``(condition_id, estimator key)`` to its :class:`~evalmc.engine.tallies.EstimateTally`.
    outcomes : dict or None
        ``(condition_id, estimator key)`` to every replication's :class:`EstimateResult`,
        when the study kept them (as :attr:`StudyResult.outcomes`; ``values``, its old name,
        still works, with a DeprecationWarning).
    failures : list of Failure
    n_reps : int
        Replications per condition: with a `target_mcse`, the cap (each condition's own count
        is in :attr:`reps_used` and the summary's ``n_reps``).
    target_mcse : float or None
        The precision the study stopped at (:class:`EstimateTarget`); None: none.
    reps_used : dict or None
        Condition id to the replications its measures are over (None: `n_reps` each).
    target_met : dict or None
        Condition id to whether it reached `target_mcse` (False: the cap stopped it).

    Examples
    --------
    In a notebook the result shows as its summary table; ``plot`` draws a measure against the
    design column that varies.

    >>> import evalmc
    >>> res = evalmc.run_estimation({"n_a": [3, 5, 10]}, "normal", ["percentile-bootstrap"],
    ...                             n_reps=1000, seed=2, progress=False)
    >>> res.to_frame()[["n_a", "coverage", "width"]].round(3)
       n_a  coverage  width
    0    3     0.735  1.687
    1    5     0.835  1.432
    2   10     0.890  1.129
    >>> fig = res.plot(measure="coverage")  # a matplotlib Figure, not saved
    >>> fig.axes[0].get_xlabel()
    'n_a'
    """

    design: pd.DataFrame
    scenario: type[Scenario]
    estimators: list
    target: object
    n_reps: int
    seed: int
    truths: dict[int, float]
    tallies: dict = field(repr=False)
    failures: list[Failure] = field(default_factory=list, repr=False)
    outcomes: dict | None = field(default=None, repr=False)
    summarise_values: Callable | None = field(default=None, repr=False)
    blocks_computed: int = 0
    blocks_reused: int = 0
    target_mcse: float | None = None
    reps_used: dict[int, int] | None = None
    target_met: dict[int, bool] | None = None

    @property
    def values(self) -> dict | None:
        """Deprecated name of :attr:`outcomes`: the same dict, with a DeprecationWarning.

        Returns
        -------
        dict or None

        Examples
        --------
        >>> import warnings
        >>> import evalmc
        >>> res = evalmc.run_estimation({"n_a": 3}, "normal", ["t-interval"], n_reps=10,
        ...                             seed=0, keep_values=True, progress=False)
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     same = res.values is res.outcomes
        >>> same, caught[0].category.__name__
        (True, 'DeprecationWarning')
        """
        warnings.warn("`EstimationResult.values` is deprecated; use `outcomes` (as "
                      "StudyResult).", DeprecationWarning, stacklevel=2)
        return self.outcomes

    @property
    def summary(self) -> pd.DataFrame:
        """One row per (condition, estimator): ``truth``, ``level``, ``n_reps`` (with a
        `target_mcse`, the replications the condition used), ``n_failed``, ``target_met``
        (only with a `target_mcse`: whether the condition reached it before its cap), then
        ``mean``, ``bias``, ``emp_se``, ``rmse``, ``coverage``, ``width``, each but the
        mean with its ``_mcse``; NaN where it does not apply (coverage of a point estimator).
        A user's `summarise` adds its columns.

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.run_estimation({"n_a": [3, 10]}, "normal", ["t-interval"],
        ...                             n_reps=200, seed=1, progress=False)
        >>> res.summary[["n_a", "estimator", "bias", "coverage", "width"]].round(3)
           n_a   estimator   bias  coverage  width
        0    3  t-interval  0.043      0.95  4.405
        1   10  t-interval  0.015      0.95  1.374
        """
        design_cols = [c for c in self.design.columns if c != "condition_id"]
        rows = []
        for cond in self.design.to_dict("records"):
            cid = int(cond["condition_id"])
            for est in self.estimators:
                tally = self.tallies[(cid, est.key)]
                row = {"scenario": self.scenario.name, "condition_id": cid,
                       **{c: cond[c] for c in design_cols}, "estimator": est.name,
                       "truth": self.truths[cid], "level": est.level,
                       "n_reps": self.n_reps if self.reps_used is None
                       else self.reps_used[cid], "n_failed": tally.failed,
                       **({} if self.target_met is None
                          else {"target_met": self.target_met[cid]}),
                       **tally.summary(self.truths[cid])}
                if self.summarise_values is not None:
                    row.update(self.summarise_values(self.outcomes[(cid, est.key)],
                                                     self.truths[cid]))
                rows.append(row)
        return pd.DataFrame(rows)

    def to_frame(self) -> pd.DataFrame:
        """The summary (:attr:`summary`).

        Returns
        -------
        DataFrame
            One row per (condition, estimator).

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.run_estimation({"n_a": [3, 10]}, "normal", ["t-interval"],
        ...                             n_reps=200, seed=1, progress=False)
        >>> frame = res.to_frame()
        >>> frame.shape
        (2, 19)
        >>> frame[["n_a", "truth", "level", "n_reps", "n_failed"]]
           n_a  truth  level  n_reps  n_failed
        0    3    0.0   0.95     200         0
        1   10    0.0   0.95     200         0
        """
        return self.summary

    def _repr_html_(self) -> str:
        return self.summary.to_html(index=False, na_rep="-")

    def plot(self, ax=None, *, x: str | None = None, measure: str = "coverage"):
        """A measure with its 95% Monte Carlo interval (1.96 MCSE), one series per estimator.

        Parameters
        ----------
        ax : matplotlib Axes, optional
        x : str, optional
            Design column on the horizontal axis; default: the first that varies.
        measure : {'bias', 'emp_se', 'rmse', 'coverage', 'width'}

        Returns
        -------
        matplotlib.figure.Figure
            Not saved. For coverage, dashed lines mark each estimator's nominal level.

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.run_estimation({"n_a": [3, 10]}, "normal", ["t-interval"],
        ...                             n_reps=200, seed=1, progress=False)
        >>> ax = res.plot(measure="width").axes[0]
        >>> ax.get_xlabel(), ax.get_ylabel()
        ('n_a', 'width (95% Monte Carlo interval)')
        """
        from evalmc.plots import axes_or_new

        check_choice("measure", measure, MEASURES)
        frame = self.summary
        cols = [c for c in self.design.columns if c != "condition_id"]
        varying = [c for c in cols if self.design[c].nunique() > 1] or cols
        x = varying[0] if x is None else x
        if x not in cols:
            raise ValueError(f"`x` must be a design column ({', '.join(cols)}); got {x!r}.")
        ax = axes_or_new(ax, figsize=(6, 4))
        for name, rows in frame.groupby("estimator", sort=False):
            ax.errorbar(rows[x], rows[measure], yerr=1.96 * rows[f"{measure}_mcse"],
                        marker="o", capsize=2, label=name)
            level = rows["level"].iloc[0]
            if measure == "coverage" and level is not None and not pd.isna(level):
                ax.axhline(level, color="k", ls="--", lw=0.8)
        if measure == "bias":
            ax.axhline(0.0, color="k", ls="--", lw=0.8)
        reps = (f"{self.n_reps} replications per condition" if self.target_mcse is None
                else f"up to {self.n_reps} replications per condition (target MCSE "
                     f"{self.target_mcse:g})")
        shown = "interval" if measure in ("coverage", "width") else "estimator"
        ax.set(xlabel=x, ylabel=f"{measure} (95% Monte Carlo interval)",
               title=f"{measure.capitalize()} of each {shown} by {x}\n"
                     f"(scenario {self.scenario.name}; {reps})")
        ax.legend(fontsize=8)
        return ax.figure


def run_estimation(design, scenario, estimators, *, n_reps: int, seed: int,
                   target="mean-a", block_size: int = BLOCK_SIZE, n_jobs: int = 1,
                   backend: str | None = None, cache=None, progress: bool | None = None,
                   scheduler: str | None = None, keep_values: bool = False,
                   summarise: Callable | None = None, task_seconds: float = TASK_SECONDS,
                   max_failure_rate: float = MAX_FAILURE_RATE, target_mcse: float | None = None,
                   max_reps: int | None = None) -> EstimationResult:
    """Run a Monte Carlo study of estimators: bias, variance, RMSE, coverage and width.

    Parameters
    ----------
    design : Design, DataFrame or dict
        Conditions, as :func:`~evalmc.study.rates.run_study` takes them.
    scenario : str or Scenario subclass
    estimators : sequence
        Built-in names (``evalmc.estimators.registry.ESTIMATORS``), ``'file.py:function'``
        specs or callables ``f(a, b)`` (or ``f(a, b, rng)``) returning an estimate,
        ``(low, high)`` or ``(estimate, low, high)`` for one replication.
    n_reps, seed, block_size, n_jobs, backend, cache, progress, scheduler, task_seconds,
    max_failure_rate
        As for :func:`~evalmc.study.rates.run_study`.
    target : {'mean-a', 'effect', 'odds-ratio'}, float or callable
        The estimand: A's population mean, the population difference A - B, the odds of A's
        accuracy over B's (scenarios of two rates), a number, or a function of the
        condition's scenario giving its true value. A named target must be
        what each estimator estimates, when it declares it (each built-in one does: 'effect'
        for ``mean-diff``, ``welch-interval``, ``paired-t-interval``, ``bootstrap-diff``).
    keep_values : bool
        Keep every replication's estimate (``EstimationResult.outcomes``).
    summarise : callable, optional
        ``summarise(values, truth) -> dict`` of extra summary columns, from a condition's
        :class:`EstimateResult` over all its replications (SimDesign's Summarise); implies
        `keep_values`.
    target_mcse : float, optional
        Stop each condition, block by block, once every estimator's Monte Carlo error is at
        most this: that of its coverage when it gives intervals (the error at the least
        favourable coverage of its 95% Wilson interval), else that of its bias, in the
        estimate's units (so any positive number; :class:`EstimateTarget`). Checked
        after each block from the second on; where a condition stops depends on the seed
        only. Default: every condition runs `n_reps`.
    max_reps : int, optional
        With `target_mcse`, the cap of replications per condition; default `n_reps`.

    Returns
    -------
    EstimationResult

    Examples
    --------
    >>> import evalmc
    >>> res = evalmc.run_estimation({"n_a": [3, 10]}, "normal", ["t-interval"], n_reps=2000,
    ...                             seed=1, progress=False)
    >>> res.summary[["n_a", "coverage", "coverage_mcse"]].round(4)
       n_a  coverage  coverage_mcse
    0    3    0.9545         0.0047
    1   10    0.9485         0.0049

    Until each coverage is within 0.01, 20,000 replications at most:

    >>> res = evalmc.run_estimation({"n_a": [3, 10]}, "normal", ["t-interval"], n_reps=20_000,
    ...                             target_mcse=0.01, seed=1, progress=False)
    >>> res.summary[["n_a", "coverage", "n_reps", "target_met"]].round(4)
       n_a  coverage  n_reps  target_met
    0    3    0.9545    2000        True
    1   10    0.9485    2000        True
    """
    n_reps, seed, block_size, n_jobs = check_run_options(
        n_reps=n_reps, seed=seed, block_size=block_size, n_jobs=n_jobs, backend=backend,
        scheduler=scheduler, task_seconds=task_seconds, max_failure_rate=max_failure_rate)
    target_mcse, n_reps = check_target(target_mcse, max_reps, n_reps, high=None)
    design = Design.build(design, scenario)
    scenario, conditions = design.scenario, design.conditions
    estimators = [get_estimator(e) for e in estimators]
    if not estimators:
        raise ValueError("`estimators` must name at least one estimator.")
    if len({e.key for e in estimators}) != len(estimators):
        raise ValueError("`estimators` lists an estimator twice.")
    for estimator in estimators:
        check_needs(f"estimator {estimator.key!r}", estimator.needs, scenario)
        _check_estimand(estimator, target)
        _check_paired(estimator, design)
    truths = {cid: _truth(target, cond) for cid, cond in conditions.items()}
    label = _target_label(target)
    by_scenario = {conditions[cid]: truth for cid, truth in truths.items()}
    runs = [_EstimatorRun(e, label, by_scenario) for e in estimators]
    stop = None if target_mcse is None else EstimateTarget(target_mcse,
                                                           [run.key for run in runs])
    plan = engine.Plan(conditions, runs, n_reps, seed, block_size, stop)
    keep = keep_values or summarise is not None
    out = engine.run(plan, n_jobs=n_jobs, backend=backend, scheduler=scheduler, cache=cache,
                     progress=progress, task_seconds=task_seconds, keep_values=keep,
                     max_failure_rate=max_failure_rate, desc=f"evalmc {scenario.name}")
    name = {run.key: run.estimator.key for run in runs}  # stored by estimator and target
    outcomes = None
    if keep:
        outcomes = {(cid, name[key]): EstimateResult.concat(parts)
                    for (cid, key), parts in out.values.items()}
    tallies = {(cid, name[key]): t for (cid, key), t in out.tallies.items()}
    return EstimationResult(design.frame, scenario, estimators, target, n_reps, seed, truths,
                            tallies, out.failures, outcomes, summarise, out.blocks_computed,
                            out.blocks_reused, target_mcse,
                            None if target_mcse is None else out.reps, out.met)


def _truth(target, cond: Scenario) -> float:
    if callable(target):
        value = target(cond)
    elif isinstance(target, str):
        check_choice("target", target, tuple(TARGETS))
        value = getattr(cond, TARGETS[target], None)
        if value is None:
            raise ValueError(f"scenario {cond.name!r} does not define `target` {target!r}; "
                             "give `target` as a number or a function of the scenario.")
    else:
        value = target
    return check_float("target", value)


def _check_estimand(estimator, target) -> None:
    """Refuse a named `target` other than the one `estimator` declares it estimates: its
    coverage of it would be of another quantity's intervals."""
    declared = estimator.estimand
    if isinstance(target, str) and declared is not None and target != declared:
        check_choice("target", target, tuple(TARGETS))
        raise ValueError(
            f"`target` {target!r} ({TARGET_DOCS[target]}) is not what estimator "
            f"{estimator.name!r} estimates, {declared!r} ({TARGET_DOCS[declared]}); give "
            f"target {declared!r}, or an estimator of {target!r}.")


def _check_paired(estimator, design: Design) -> None:
    """Refuse a paired estimator on a condition whose A and B differ in size, before drawing."""
    if not estimator.paired:
        return
    for cid, cond in design.conditions.items():
        if len(set(cond.sizes)) != 1:
            values = {p: getattr(cond, p) for p in design.params}
            raise ValueError(
                f"estimator {estimator.name!r} needs paired samples of equal size; condition "
                f"{cid} {values} of scenario {design.scenario.name!r} has sizes {cond.sizes}.")


def _target_label(target) -> str:
    if callable(target):
        from evalmc.criteria.base import function_digest

        return f"{getattr(target, '__qualname__', 'target')}@{function_digest(target)}"
    return str(target) if isinstance(target, str) else repr(float(target))


@dataclass(frozen=True)
class _EstimatorRun(Analysis):
    """An estimator as the engine runs it; its stored tallies are named by the estimator and
    the target, its random stream by the estimator."""

    estimator: object
    target: str
    truths: dict
    tally_type = EstimateTally

    @property
    def key(self) -> str:
        return f"{self.estimator.key}|target={self.target}"

    @property
    def stream(self) -> str:
        return self.estimator.key

    @property
    def name(self) -> str:
        return self.estimator.name

    @property
    def uses_rng(self) -> bool:
        return self.estimator.uses_rng

    @property
    def pure_python(self) -> bool:
        return isinstance(self.estimator, UserEstimator)

    def run(self, batch, rng) -> EstimateResult:
        return self.estimator(batch, rng)

    def tallies(self, result, starts, scenario):
        truth = self.truths[scenario]
        parts = self.split(result, starts)
        return [(EstimateTally.of(p.estimate, p.low, p.high, p.failed, truth), p.errors)
                for p in parts]

    def split(self, result, starts):
        return [result.take(int(starts[k]), int(starts[k + 1])) for k in range(len(starts) - 1)]

    def values_to_record(self, values):
        return {f: getattr(values, f) for f in ("estimate", "low", "high", "failed")}, {}

    def values_from_record(self, arrays, info, errors):
        return EstimateResult(arrays["estimate"], arrays.get("low"), arrays.get("high"),
                              arrays["failed"], errors)


class EstimateTarget:
    """The stopping rule of a study of estimators: after :data:`~evalmc.engine.options.MIN_BLOCKS`
    blocks, each one's Monte Carlo error (of its coverage when it gives intervals, else of its bias,
    ``sd / sqrt(k)``) at most `target`."""

    def __init__(self, target: float, keys):
        self.target, self.keys = target, tuple(keys)

    def errors(self, tallies: dict) -> np.ndarray:
        """Each estimator's error, of its coverage or of its bias (inf when undefined)."""
        out = []
        for key in self.keys:
            t = tallies[key]
            if t.k_int > 0:
                out.append(float(precision_mcse(t.covered, t.k_int)))
            else:
                out.append(float(np.sqrt(t.m2 / (t.k - 1) / t.k)) if t.k > 1 else np.inf)
        return np.array(out)

    def __call__(self, tallies: dict, blocks: int) -> bool:
        return blocks >= MIN_BLOCKS and bool((self.errors(tallies) <= self.target).all())
