"""Monte Carlo study engine: Design, Generate, Analyse, Summarise (after R's SimDesign).

A study runs every condition of a design grid through a scenario (Generate) and a set of
criteria (Analyse), block by block on :mod:`evalmc.engine` (seeding, scheduling, caching), and
summarises each criterion's rejection rate with its Monte Carlo error (Summarise). It keeps a
:class:`~evalmc.engine.tallies.RejectionTally` per criterion and condition, in memory that does not
grow with the replications; every p-value is kept only on request (``keep_values``).

A study given ``target_mcse`` runs each condition block by block until the Monte Carlo error
of every criterion's rejection rate at every level of the study (one rate for a criterion that
decides without p-values) is at most the target, or until its cap (``max_reps``, default
``n_reps``): :class:`RateTarget`. The engine asks after each block, of the blocks ``0..k`` added
up in block order, so where a condition stops depends on the seed alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from evalmc.criteria import get_criterion
from evalmc.criteria.base import CriterionResult, UserCriterion
from evalmc.engine import scheduler as engine
from evalmc.engine.analysis import Analysis
from evalmc.engine.options import (
    BLOCK_SIZE,
    MAX_FAILURE_RATE,
    MIN_BLOCKS,
    TASK_SECONDS,
    block_rows,
    check_alphas,
    check_run_options,
    check_target,
)
from evalmc.engine.scheduler import Failure, StudyError
from evalmc.engine.tallies import RejectionTally, grid_index, precision_mcse
from evalmc.sims import Batch, Scenario
from evalmc.sims.learning import SplitsBatch
from evalmc.stats.mcse import bradley, rate_mcse, wilson_interval
from evalmc.study.design import Design, make_design

__all__ = ["Failure", "RateTarget", "StudyError", "StudyResult", "make_design", "run_study"]

#: The columns of correct-sign power: CSV, JSON and Python only, the console table leaves
#: them out.
POWER_SIGN = ("power_sign", "power_sign_mcse")


@dataclass
class StudyResult:
    """Outcome of :func:`run_study`: per-replication results and their summary.

    Attributes
    ----------
    tallies : dict
        ``(condition_id, criterion key)`` to the :class:`~evalmc.engine.tallies.RejectionTally` of
        all its replications.
    outcomes : dict or None
        ``(condition_id, criterion key)`` to a :class:`CriterionResult` over all replications,
        when the study kept them (``keep_values=True``).
    failures : list of Failure
        The first :data:`~evalmc.engine.MAX_FAILURES_KEPT` failed replications of each
        criterion and condition, in order (``n_failed`` in the summary counts them all).
    n_reps : int
        Replications per condition: with a `target_mcse`, the cap (each condition's own count
        is in :attr:`reps_used` and the summary's ``n_reps``).
    blocks_computed, blocks_reused : int
        Blocks run in this call, and blocks read back from the cache (with a target, those
        computed past a condition's stopping point included).
    target_mcse : float or None
        The precision the study stopped at (:class:`RateTarget`); None: none.
    reps_used : dict or None
        Condition id to the replications its rates are over (None: `n_reps` each).
    target_met : dict or None
        Condition id to whether it reached `target_mcse` (False: the cap stopped it).

    Examples
    --------
    In a notebook the result shows as its summary table; ``plot`` draws the rates.

    >>> import evalmc
    >>> res = evalmc.calibrate("skew-normal", ["welch-t", "mann-whitney"],
    ...                        params={"n_a": [5, 20], "n_b": 20}, n_reps=1000, progress=False)
    >>> res.to_frame()[["n_a", "criterion", "rate"]]
       n_a     criterion   rate
    0    5       welch-t  0.059
    1    5  mann-whitney  0.037
    2   20       welch-t  0.041
    3   20  mann-whitney  0.042
    >>> fig = res.plot()  # a matplotlib Figure, not saved
    >>> fig.axes[0].get_xlabel()
    'n_a'
    """

    design: pd.DataFrame
    scenario: type[Scenario]
    conditions: dict[int, Scenario]
    criteria: list
    n_reps: int
    seed: int
    alpha: tuple[float, ...]
    block_size: int
    tallies: dict[tuple[int, str], RejectionTally] = field(repr=False)
    failures: list[Failure] = field(default_factory=list, repr=False)
    outcomes: dict[tuple[int, str], CriterionResult] | None = field(default=None, repr=False)
    blocks_computed: int = 0
    blocks_reused: int = 0
    target_mcse: float | None = None
    reps_used: dict[int, int] | None = None
    target_met: dict[int, bool] | None = None

    def to_frame(self) -> pd.DataFrame:
        """The summary at the study's levels (:meth:`summarise`).

        Returns
        -------
        DataFrame
            One row per (condition, criterion, level).

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.run_study({"n": [5, 10]}, "paired-normal", ["paired-t", "sign"],
        ...                        n_reps=400, seed=7, progress=False)
        >>> res.to_frame()[["n", "criterion", "alpha", "rate", "bradley"]]
            n criterion  alpha    rate       bradley
        0   5  paired-t   0.05  0.0400  undetermined
        1   5      sign   0.05  0.0000  conservative
        2  10  paired-t   0.05  0.0500  undetermined
        3  10      sign   0.05  0.0175  undetermined
        """
        return self.summarise()

    def _repr_html_(self) -> str:
        return self.to_frame().to_html(index=False, na_rep="-")

    def plot(self, ax=None, *, x: str | None = None):
        """Rejection rate with its 95% Wilson interval: a marker per criterion and condition.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; default: a new Figure.
        x : str, optional
            Design column on the horizontal axis; default: the design column that varies when
            only one does, else the conditions, labelled by the values that vary. Other varying
            columns, and several levels, make separate series.

        Returns
        -------
        matplotlib.figure.Figure
            Not saved: call its ``savefig``. The dashed lines are the levels.

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.run_study({"n": [5, 10]}, "paired-normal", ["paired-t", "sign"],
        ...                        n_reps=400, seed=7, progress=False)
        >>> ax = res.plot().axes[0]
        >>> ax.get_xlabel(), ax.get_title()
        ('n', 'Rejection rate of each criterion (paired-normal; 400 replications per condition)')
        """
        from evalmc.plots import rate_plot

        return rate_plot(self.to_frame(), self.design, alpha=self.alpha, ax=ax, x=x,
                         title=f"Rejection rate of each criterion ({self.scenario.name}; "
                               f"{reps_title(self)})")

    @property
    def summary(self) -> pd.DataFrame:
        """One row per (condition, criterion, alpha), one per (condition, criterion) for a
        decision-only criterion; see :meth:`summarise`.

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.run_study({"n": [5, 10]}, "paired-normal", ["paired-t", "sign"],
        ...                        n_reps=400, seed=7, progress=False)
        >>> res.summary.shape, res.summary["criterion"].tolist()
        ((4, 13), ['paired-t', 'sign', 'paired-t', 'sign'])
        """
        return self.summarise()

    def summarise(self, alpha=None) -> pd.DataFrame:
        """Rejection rates with their Monte Carlo error.

        Parameters
        ----------
        alpha : float or sequence of float, optional
            Levels to judge p-values at; default: the study's. Any multiple of 0.001 is exact
            without re-running (the p-value histogram's grid), as is every level of the study.

        Returns
        -------
        DataFrame
            ``scenario``, ``condition_id``, the design columns, ``criterion``, ``alpha`` (NaN
            for a decision-only criterion: one row, whatever the levels), ``rate`` (rejections
            / valid replications), ``mcse``, ``ci_low``, ``ci_high`` (Wilson 95%), ``bradley``
            (size judged against [0.5a, 1.5a]; None under the alternative and without alpha),
            ``n_reps`` (replications run: with a `target_mcse`, those the condition used),
            ``n_failed``, ``target_met`` (only with a `target_mcse`: whether the condition
            reached it before its cap), ``truth`` (the condition's, for the
            criterion's alternative: ``Scenario.truth_for`` where the scenario defines it).
            When a criterion estimates the scenario's effect (its ``estimand`` is the
            scenario's: a mean difference, or paired classifiers' F1 difference), alternative
            rows at the study's levels add ``power_sign`` (rejections whose estimate has the
            effect's sign / valid replications: the power of Card et al. 2020, at most
            ``rate``, which exceeds it by ``rate * type_s`` when every rejection has an
            estimate), ``type_s`` (share of the rejections whose estimate has the wrong sign),
            ``type_m`` (mean |estimate / effect| over the rejections) and each one's
            ``_mcse``; the columns appear only when some row has them. When the
            scenario runs each replication several times (a cross-validation scenario's
            ``runs``), rows at the study's levels add ``replicability`` (the chance that two
            runs reach the same decision; Bouckaert and Frank 2004) and its ``_mcse``.

        Examples
        --------
        Other levels than the study's, from the same replications:

        >>> import evalmc
        >>> res = evalmc.run_study({"n": [5, 10]}, "paired-normal", ["paired-t", "sign"],
        ...                        n_reps=400, seed=7, progress=False)
        >>> res.summarise(alpha=[0.01, 0.1])[["n", "criterion", "alpha", "rate"]]
            n criterion  alpha    rate
        0   5  paired-t   0.01  0.0125
        1   5  paired-t   0.10  0.1025
        2   5      sign   0.01  0.0000
        3   5      sign   0.10  0.0500
        4  10  paired-t   0.01  0.0075
        5  10  paired-t   0.10  0.1100
        6  10      sign   0.01  0.0000
        7  10      sign   0.10  0.0175
        """
        alphas = self.alpha if alpha is None else check_alphas(alpha)
        design_cols = [c for c in self.design.columns if c != "condition_id"]
        rows, rejections, right, signs, agree = self._level_rows(alphas, design_cols)
        frame = pd.DataFrame(rows)
        valid = frame["n_reps"] - frame["n_failed"]
        frame["rate"], frame["mcse"] = rate_mcse(rejections, valid)
        frame["ci_low"], frame["ci_high"] = wilson_interval(rejections, valid)
        judged = bradley(frame["ci_low"], frame["ci_high"], frame["alpha"])
        judged[((frame["truth"] != "null") | frame["alpha"].isna()).to_numpy()] = None
        frame["bradley"] = judged
        power_sign = pd.DataFrame(dict(zip(POWER_SIGN, rate_mcse(right, valid), strict=True)),
                                  index=frame.index)
        order = ["scenario", "condition_id", *design_cols, "criterion", "alpha", "rate", "mcse",
                 "ci_low", "ci_high", "bradley", "n_reps", "n_failed",
                 *(["target_met"] if self.target_met is not None else []), "truth"]
        return _with_present(frame, order, (power_sign, signs, agree))

    def _level_rows(self, alphas, design_cols) -> tuple[list, ...]:
        """The summary's rows, one per condition, criterion and level, without their rates;
        and per row its rejections, rejections of the right sign (NaN: not counted), sign
        errors and replicability."""
        decision_only = {
            crit.key: _decision_only(crit, [self.tallies[(cid, crit.key)]
                                            for cid in self.conditions])
            for crit in self.criteria
        }
        rows, rejections, right, signs, agree = [], [], [], [], []
        for cond in self.design.to_dict("records"):
            cid = int(cond["condition_id"])
            for crit in self.criteria:
                tally = self.tallies[(cid, crit.key)]
                row = self._row(cond, cid, crit, tally, design_cols)
                for a, rejected, counted in self._levels(tally, decision_only[crit.key], alphas):
                    rows.append({**row, "alpha": a})
                    rejections.append(rejected)
                    sign_errors, right_sign, replicability = self._judged(tally, row["truth"],
                                                                          counted)
                    signs.append(sign_errors)
                    right.append(right_sign)
                    agree.append(replicability)
        return rows, rejections, right, signs, agree

    def _row(self, cond, cid, crit, tally, design_cols) -> dict:
        """The columns of criterion `crit`'s rows in condition `cond` that do not depend on
        the level."""
        row = {"scenario": self.scenario.name, "condition_id": cid,
               **{c: cond[c] for c in design_cols}, "criterion": crit.name,
               "n_reps": self.n_reps if self.reps_used is None else self.reps_used[cid],
               "n_failed": tally.failed,
               "truth": self.conditions[cid].truth_for(crit.alternative)}
        if self.target_met is not None:
            row["target_met"] = self.target_met[cid]
        return row

    def _levels(self, tally, decision_only: bool, alphas) -> list[tuple]:
        """``(alpha, rejections, level counted at)`` of each row of a tally: one per level in
        `alphas`, or one with no alpha for a decision-only criterion (the same decisions at
        every level, counted at the study's first)."""
        if decision_only:
            return [(np.nan, tally.decided_reject, self.alpha[0])]
        return [(a, tally.rejections(a), a) for a in alphas]

    def _judged(self, tally, truth: str, counted) -> tuple:
        """A row's sign errors, rejections of the right sign (NaN: not counted) and
        replicability: sign counts under the alternative at the study's levels only, and
        replicability at the study's levels only."""
        judged = truth == "alternative" and counted in self.alpha
        sign_errors = tally.sign_errors(counted if judged else None)
        counts = tally.signs.get(counted) if judged else None  # None: not counted
        right = np.nan if counts is None else counts[0] - counts[1]
        replicability = tally.replicability(counted if counted in self.alpha else None)
        return sign_errors, right, replicability

    def size_curve(self, criterion, condition_id: int) -> pd.DataFrame:
        """Rejection rate at every level ``k / 1000``: the p-values' distribution function.

        Under the null a calibrated test's curve is the diagonal (a P-P plot against the
        uniform distribution).

        Parameters
        ----------
        criterion : str
            A criterion of the study, by name.
        condition_id : int

        Returns
        -------
        DataFrame
            ``alpha`` and ``rate`` (share of the p-values at or below it).

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.run_study({"n": [5, 10]}, "paired-normal", ["paired-t"], n_reps=400,
        ...                        seed=7, progress=False)
        >>> curve = res.size_curve("paired-t", int(res.design["condition_id"][0]))
        >>> curve.shape
        (1001, 2)
        >>> curve.iloc[[10, 50, 100, 500]]
             alpha    rate
        10    0.01  0.0125
        50    0.05  0.0400
        100   0.10  0.1025
        500   0.50  0.5700
        """
        names = {crit.name: crit.key for crit in self.criteria}
        if criterion not in names:
            raise ValueError(f"`criterion` must be one of the study's ({', '.join(names)}); "
                             f"got {criterion!r}.")
        if (condition_id, names[criterion]) not in self.tallies:
            raise ValueError(f"`condition_id` {condition_id} is not a condition of the study.")
        levels, rate = self.tallies[(condition_id, names[criterion])].pvalue_cdf()
        return pd.DataFrame({"alpha": levels, "rate": rate})

    def replay(self, failure: Failure) -> Batch:
        """Redraw the data of a failed replication, as a batch of one.

        Parameters
        ----------
        failure : Failure
            One of :attr:`failures`.

        Returns
        -------
        Batch
            The replication's scores, as the criterion saw them.

        Examples
        --------
        A criterion of the user's that fails when A's first score is above 2:

        >>> import evalmc
        >>> def first_above(a, b):
        ...     if a[0] > 2:
        ...         raise ValueError("first score of A above 2")
        ...     return 0.5
        >>> res = evalmc.run_study({"n_a": 5}, "normal", [first_above], n_reps=200, seed=3,
        ...                        progress=False)
        >>> failure = res.failures[0]
        >>> len(res.failures), failure.block, failure.rep, failure.message
        (8, 0, 0, 'ValueError: first score of A above 2')
        >>> batch = res.replay(failure)
        >>> batch.n_reps, batch.a.round(4).tolist()
        (1, [[2.3315, -0.3315, -0.2632, -1.2291, 0.866]])
        """
        cond = self.conditions[failure.condition_id]
        block_size = block_rows(cond, self.block_size)  # the condition's (options.py)
        size = min(block_size, self.n_reps - failure.block * block_size)
        rng = engine.block_rng(self.seed, failure.condition_id, failure.block)
        batch = cond.draw(rng, size)
        return batch.take(failure.rep)


def run_study(
    design,
    scenario,
    criteria,
    *,
    n_reps: int,
    seed: int,
    alpha=0.05,
    block_size: int = BLOCK_SIZE,
    n_jobs: int = 1,
    backend: str | None = None,
    cache=None,
    progress: bool | None = None,
    scheduler: str | None = None,
    max_failure_rate: float = MAX_FAILURE_RATE,
    keep_values: bool = False,
    task_seconds: float = TASK_SECONDS,
    target_mcse: float | None = None,
    max_reps: int | None = None,
) -> StudyResult:
    """Run a Monte Carlo study of criteria's rejection rates.

    Parameters
    ----------
    design : Design, DataFrame or dict
        Conditions: a :class:`~evalmc.study.design.Design`, a frame from :func:`make_design`
        or a dict passed to it. Conditions are keyed on `scenario`: a value equal to its
        default is the same condition as none (:func:`~evalmc.study.design.condition_id`).
    scenario : str or Scenario subclass
        The data-generating process; design columns are its parameters.
    criteria : sequence
        Built-in names, ``'file.py:function'`` specs or callables (see ``evalmc.criteria``).
    n_reps : int
        Replications per condition.
    seed : int
        Root seed of every random stream.
    alpha : float or sequence of float
        Level(s) the summary judges p-values at.
    block_size : int
        Replications per block. Results depend on it; keep it fixed to reuse a cache.
    n_jobs : int
        Workers (-1: all cores). Results do not depend on it.
    backend : {'threads', 'loky', 'dask'}, optional
        Threads, loky processes, or dask: the running ``distributed`` client, the one at
        `scheduler`, or a ``LocalCluster`` of `n_jobs` workers made for this call. Default:
        threads, or loky when several workers would run a user's Python criterion.
    cache : path, optional
        Directory where finished blocks are stored as they complete and read back on a re-run.
    progress : bool, optional
        Progress bar on stderr; default: when stderr is a terminal.
    scheduler : str, optional
        Address of a dask scheduler, with ``backend='dask'``.
    max_failure_rate : float
        Stop with :class:`StudyError` when a condition's failed share exceeds this.
    keep_values : bool
        Keep every replication's result (``StudyResult.outcomes``): memory then grows with
        `n_reps`. By default the study keeps the tallies only.
    task_seconds : float
        Target duration of a task, a run of blocks sent to a worker at once.
    target_mcse : float, optional
        Stop each condition, block by block, once the Monte Carlo error of every criterion's
        rate at every level is at most this, in (0, 0.5]; checked after each block, from the
        second on, with the error at the least favourable rate of the rate's 95% Wilson
        interval, never 0 (:class:`RateTarget`). Where a condition stops depends
        on the seed only (not on `n_jobs`, `backend` or a resumption from `cache`). Default:
        every condition runs `n_reps`.
    max_reps : int, optional
        With `target_mcse`, the cap of replications per condition; default `n_reps`.

    Returns
    -------
    StudyResult

    Examples
    --------
    >>> import evalmc
    >>> design = evalmc.make_design(n=[5, 10], rho=0.5)
    >>> res = evalmc.run_study(design, "paired-normal", ["paired-t", "sign"], n_reps=2000,
    ...                        seed=7, progress=False)
    >>> res.summary[["n", "criterion", "rate", "bradley"]]
        n criterion    rate       bradley
    0   5  paired-t  0.0505        robust
    1   5      sign  0.0000  conservative
    2  10  paired-t  0.0485        robust
    3  10      sign  0.0200  undetermined

    Stopping once every rate is within 0.005 of its own, 10,000 replications at most:

    >>> res = evalmc.run_study(design, "paired-normal", ["paired-t"], n_reps=10_000,
    ...                        target_mcse=0.005, seed=7, progress=False)
    >>> res.summary[["n", "rate", "mcse", "n_reps", "target_met"]].round(4)
        n    rate    mcse  n_reps  target_met
    0   5  0.0503  0.0040    3000        True
    1  10  0.0520  0.0041    3000        True
    """
    n_reps, seed, block_size, n_jobs = check_run_options(
        n_reps=n_reps, seed=seed, block_size=block_size, n_jobs=n_jobs, backend=backend,
        scheduler=scheduler, task_seconds=task_seconds, max_failure_rate=max_failure_rate)
    target_mcse, n_reps = check_target(target_mcse, max_reps, n_reps)
    alphas = check_alphas(alpha)
    design = Design.build(design, scenario)
    scenario, conditions = design.scenario, design.conditions
    criteria = [get_criterion(c) for c in criteria]
    if not criteria:
        raise ValueError("`criteria` must name at least one criterion.")
    keys = [c.key for c in criteria]
    if len(set(keys)) != len(keys):
        raise ValueError("`criteria` lists a criterion twice.")
    for cid, cond in conditions.items():
        for crit in criteria:
            crit.check_scenario(cond)
            if crit.paired and len(set(cond.sizes)) != 1:
                values = {p: getattr(cond, p) for p in design.params}
                raise ValueError(
                    f"criterion {crit.name!r} needs paired samples of equal size; condition "
                    f"{cid} {values} of scenario {scenario.name!r} has sizes {cond.sizes}."
                )

    off_grid = tuple(a for a in alphas if grid_index(a) is None)
    stop = None if target_mcse is None else RateTarget(target_mcse, keys, alphas)
    plan = engine.Plan(conditions, [_CriterionRun(c, off_grid, alphas) for c in criteria],
                       n_reps, seed, block_size, stop)
    out = engine.run(plan, n_jobs=n_jobs, backend=backend, scheduler=scheduler, cache=cache,
                     progress=progress, task_seconds=task_seconds, keep_values=keep_values,
                     max_failure_rate=max_failure_rate, desc=f"evalmc {scenario.name}")
    outcomes = None
    if keep_values:
        outcomes = {key: CriterionResult.concat(parts) for key, parts in out.values.items()}
    return StudyResult(design.frame, scenario, conditions, criteria, n_reps, seed, alphas,
                       block_size,
                       out.tallies, out.failures, outcomes, out.blocks_computed,
                       out.blocks_reused, target_mcse,
                       None if target_mcse is None else out.reps, out.met)


@dataclass(frozen=True)
class _CriterionRun(Analysis):
    """A criterion as the engine runs it; its stored tallies name the levels they count
    exactly and the levels whose sign errors they count."""

    criterion: object
    off_grid: tuple[float, ...]
    levels: tuple[float, ...]
    tally_type = RejectionTally

    @property
    def key(self) -> str:
        return self.criterion.key

    @property
    def name(self) -> str:
        return self.criterion.name

    @property
    def uses_rng(self) -> bool:
        return self.criterion.uses_rng

    @property
    def pure_python(self) -> bool:
        return isinstance(self.criterion, UserCriterion)

    def run(self, batch, rng) -> CriterionResult:
        result = self.criterion(batch, rng)
        if not isinstance(batch, SplitsBatch) or not batch.reruns:
            return result
        return replace(result, reruns=tuple(
            self.criterion(other, rng) for other in batch.rerun_batches()))

    def tallies(self, result, starts, scenario):
        # what the criterion's estimate estimates (a user's criterion gives none)
        estimand = getattr(self.criterion, "estimand", None)
        effect = scenario.effect if estimand is not None and scenario.estimand == estimand \
            else None
        return list(zip(RejectionTally.of_blocks(result, starts, self.off_grid, self.levels,
                                                 effect),
                        self.split_errors(result.errors, starts), strict=True))

    def split(self, result, starts):
        """Each block's values, of the first run only (the values kept per replication)."""
        return [replace(result.take(starts[k], starts[k + 1]), reruns=())
                for k in range(len(starts) - 1)]

    def record_meta(self) -> dict:
        return {"sign_levels": list(self.levels)}  # counted, with estimates or not

    def serves(self, meta) -> bool:
        counted = meta.get("sign_levels", [])
        return (all(a in meta["levels"] for a in self.off_grid)
                and all(a in counted for a in self.levels))

    def values_to_record(self, values):
        return {f: getattr(values, f) for f in _VALUES}, {"null": values.null}

    def values_from_record(self, arrays, info, errors):
        null = info["null"]
        return CriterionResult(**{f: arrays.get(f) for f in _VALUES}, errors=errors,
                               null=None if null is None else (null[0], tuple(null[1])))


_VALUES = ("failed", "statistic", "pvalue", "reject", "estimate")


def reps_title(result) -> str:
    """The replications of a result's plot title.

    Parameters
    ----------
    result : StudyResult
        Read: ``n_reps`` and ``target_mcse``.

    Returns
    -------
    str

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from evalmc.study.rates import reps_title
    >>> reps_title(SimpleNamespace(n_reps=2000, target_mcse=None))
    '2000 replications per condition'
    >>> reps_title(SimpleNamespace(n_reps=10000, target_mcse=0.002))
    'up to 10000 replications per condition (target MCSE 0.002)'
    """
    if result.target_mcse is None:
        return f"{result.n_reps} replications per condition"
    return (f"up to {result.n_reps} replications per condition (target MCSE "
            f"{result.target_mcse:g})")


class RateTarget:
    """The rule of a study of criteria: every criterion's rejection rate at every level of
    the study within `target` (:func:`~evalmc.engine.tallies.precision_mcse`), after
    :data:`~evalmc.engine.options.MIN_BLOCKS` blocks.

    Parameters
    ----------
    target : float
        The largest Monte Carlo error allowed.
    keys : sequence of str
        The criteria's keys (the engine's analysis keys).
    alphas : tuple of float
        The study's levels.

    Examples
    --------
    4,000 replications of a criterion rejecting 5% of them:

    >>> import numpy as np
    >>> from evalmc.criteria.base import CriterionResult
    >>> from evalmc.engine.tallies import RejectionTally
    >>> from evalmc.study.rates import RateTarget
    >>> pvalues = np.where(np.arange(4000) % 20 == 0, 0.01, 0.5)
    >>> tally, = RejectionTally.of_blocks(CriterionResult.from_pvalues(pvalues),
    ...                                   np.array([0, 4000]), ())
    >>> rule = RateTarget(0.004, ["t"], (0.05,))
    >>> round(rule.worst({"t": tally}), 5), rule({"t": tally}, blocks=4)
    (0.00367, True)
    >>> rule({"t": tally}, blocks=1)  # too few blocks, whatever the error
    False
    """

    def __init__(self, target: float, keys, alphas):
        self.target, self.keys, self.alphas = target, tuple(keys), tuple(alphas)

    def worst(self, tallies: dict) -> float:
        """The largest error over the criteria and levels (inf when one has no valid
        replication).

        Parameters
        ----------
        tallies : dict
            Key to :class:`~evalmc.engine.tallies.RejectionTally`.

        Returns
        -------
        float

        Examples
        --------
        1,000 replications without a rejection (a test that cannot reject at 0.05):

        >>> import numpy as np
        >>> from evalmc.criteria.base import CriterionResult
        >>> from evalmc.engine.tallies import RejectionTally
        >>> from evalmc.study.rates import RateTarget
        >>> tally, = RejectionTally.of_blocks(CriterionResult.from_pvalues(np.ones(1000)),
        ...                                   np.array([0, 1000]), ())
        >>> round(RateTarget(0.002, ["sign"], (0.05,)).worst({"sign": tally}), 5)
        0.00195
        """
        k = [tallies[key].rejections(a) for key in self.keys for a in self.alphas]
        n = [tallies[key].valid for key in self.keys for a in self.alphas]
        errors = precision_mcse(k, n)
        return float(np.inf if np.isnan(errors).any() else errors.max())

    def __call__(self, tallies: dict, blocks: int) -> bool:
        return blocks >= MIN_BLOCKS and self.worst(tallies) <= self.target


def _with_present(frame, order, extras) -> pd.DataFrame:
    """`frame`'s columns `order`, then those of each of `extras` (a frame or the records of
    one, per row of `frame`) that some row has."""
    for extra in extras:
        columns = pd.DataFrame(extra, index=frame.index)
        if columns.notna().any().any():
            frame = frame.join(columns)
            order = [*order, *columns.columns]
    return frame[order]


def _decision_only(crit, tallies) -> bool:
    """Whether `crit` gives decisions only: as it declares, else as all its `tallies` show."""
    if crit.decision_only is not None:
        return crit.decision_only
    total = tallies[0]
    for tally in tallies[1:]:
        total = total + tally
    return total.decision_only
