"""Solve a research loop's keep rule for targets: the threshold (the noise floor's `k`, a t
rule's `alpha`) that holds P(any false keep) at `max_false`, and the runs per candidate at
which it keeps a real candidate of effect `effect` with probability `power`, within a budget
of runs a loop if given (:func:`solve_gate`, ``evalmc gate --solve``).

The loops are the ``loop`` scenario's (:mod:`evalmc.sims.loops`) with a fixed baseline: K
candidates, one of them (at a random place) with a true effect `effect`, the K - 1 others
none, their runs' noise of any shape the scenario draws (``noise``: Gaussian, skewed,
multimodal, the user's own runs). Against a fixed baseline each rule keeps candidate j when a
statistic of its own passes the threshold: the noise floor when ``(c_j - b1) / |b1 - b2| >=
k``, a t rule when its one-sided p-value ``p_j < alpha`` (Bonferroni: ``< alpha / K``, the
same rule with `alpha` scaled by K). So every threshold is judged on the same simulated loops, and:

1. **Threshold.** A loop keeps a false candidate at threshold ``k`` when the largest of its
   null candidates' statistics passes ``k`` (for a t rule: the smallest p-value is below
   `alpha`); the threshold whose P(any false keep) is `max_false` is that statistic's
   ``1 - max_false`` quantile (the smallest p-value's `max_false` quantile) over the loops: the
   root of the simulated curve, with a 95% distribution-free interval from the order
   statistics (binomial counts). The threshold solved is that interval's safe end (`k` its
   upper end, `alpha` its lower), so that the rule holds P(any false keep) <= `max_false`
   with 97.5% confidence, not only on average. Its power is the share of loops whose real
   candidate passes it. Nothing here assumes Gaussian runs: a t rule's p-value is a
   statistic like the noise floor's ratio, and its solved `alpha` is calibrated on loops of
   the given noise, whatever level the p-values would have on Gaussian runs.
2. **Runs.** Where that power falls short of `power` at the given `runs`, the smallest runs
   per candidate (the baseline measured as often, at least twice) whose power at its own
   solved threshold reaches `power` is searched by the planner's search
   (:mod:`evalmc.study.plan`: bracket by doubling, a probit fit in log(runs) with a
   profile-likelihood interval, refined on doubling replications, a power that levels off
   below the target refused); a target no runs up to `max_runs` reach is said, not solved.
   With a `budget` of runs a loop, the search brackets only up to the most runs per candidate
   whose loop fits it (``base_runs + K runs <= budget``, the baseline's runs as the solve
   sets them), and an answer above that is refused (its curve may still be probed above it,
   as the planner does, to fit the crossing or to see whether the power levels off); where
   no runs within the budget reach the target, the search goes on up to `max_runs` only to
   say what budget would.
3. **Check.** The threshold is solved at the answer's runs on `n_reps` loops, rounded to four
   significant digits on the safe side (`k` up, `alpha` down), and the rule so named is run
   by :func:`~evalmc.study.gate.run_gate` on `n_reps` fresh loops from a seed of its own: the
   P(any false keep) and power printed are those, with their MCSEs and 95% Wilson intervals.
   The eye-set rules (their defaults) run on the given design beside it.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalmc.engine import scheduler as engine
from evalmc.engine.analysis import Analysis
from evalmc.engine.tallies import RecordsTally
from evalmc.inputs.checks import check_float, check_int
from evalmc.study.gate import RULES, run_gate
from evalmc.study.plan import START_REPS, UnreachableTarget, _Search, _stream_seed

#: The rules solved by default: the noise floor's `k` and Bonferroni's `alpha`.
SOLVED = ("keep-noise-floor", "keep-bonferroni")
#: The families a threshold is solved for, and the parameter solved.
SOLVABLE = {"noise-floor": "k", "t": "alpha", "bonferroni": "alpha"}
#: The loop's parameters a solve takes; the others it sets (one real candidate, fixed baseline).
DESIGN = ("candidates", "runs", "base_runs", "sd", "rho", "noise")
#: The largest runs per candidate searched, by default.
MAX_RUNS = 256
#: Loops of the search's points in all, at most.
SEARCH_REPS = 200_000
#: The stream of the fresh check's loops (:func:`evalmc.study.plan._stream_seed`).
_CHECK_STREAM = 101
_Z = 1.959963984540054


@dataclass(frozen=True)
class _Stats(Analysis):
    """Each loop's largest null statistic and its real candidate's (a t rule's: p-values, the
    smallest null one), as records."""

    method: str
    test: str

    @property
    def key(self) -> str:
        return f"gate-solve:{self.method}:{self.test}"

    tally_type = RecordsTally

    def run(self, batch, rng):
        stat = _statistic(self.method, self.test, batch)
        real = batch.effects > 0
        if self.method == "noise-floor":
            null = np.where(real, -np.inf, stat).max(axis=1)
        else:
            null = np.where(real, np.inf, stat).min(axis=1)
        return null, stat[real]

    def tallies(self, result, starts, scenario):
        null, real = result
        return [(RecordsTally(int(e - s), {"null": null[s:e], "real": real[s:e],
                                           "rep": np.arange(e - s)}), {})
                for s, e in zip(starts[:-1], starts[1:], strict=True)]


def _statistic(method, test, batch) -> np.ndarray:
    """Each candidate's statistic (n_reps, K): the noise floor's ``(c - b1) / |b1 - b2|``, a
    t rule's one-sided p-value (the rule's own, :mod:`evalmc.criteria.gate`)."""
    from evalmc.criteria.gate import _pvalues

    base = np.asarray(batch.b, dtype=float)
    if method == "noise-floor":
        spread = np.abs(base[:, 0] - base[:, 1])
        return (batch.cand.mean(axis=2) - base[:, :1]) / spread[:, None]
    return _pvalues(batch.cand, base[:, None, :], test)


@dataclass(frozen=True)
class _Family:
    """A rule family to solve: its method, test, the solved parameter and K."""

    method: str
    test: str
    candidates: int

    @property
    def param(self) -> str:
        return SOLVABLE[self.method]

    @property
    def name(self) -> str:
        """The rule's name without its parameter (the test named when paired)."""
        return f"keep-{self.method}" + ("(test=paired)" if self.test == "paired" else "")

    def threshold(self, null, max_false) -> tuple:
        """The rule's parameter at which P(any false keep) is `max_false`, taken at the safe
        end of its 95% interval from the order statistics (`k` high, `alpha` low), and that
        interval: ``(value, low, high)``."""
        from scipy.stats import binom

        n = null.size
        if self.method == "noise-floor":  # the 1 - max_false quantile of the largest
            q, ordered = 1 - max_false, np.sort(null)
        else:  # the max_false quantile of the smallest p-value
            q, ordered = max_false, np.sort(null)
        lo = int(max(binom.ppf(0.025, n, q) - 1, 0))
        hi = int(min(binom.ppf(0.975, n, q), n - 1))
        ends = (float(ordered[lo]), float(ordered[hi]))
        safe = ends[1] if self.method == "noise-floor" else ends[0]
        scale = self.candidates if self.method == "bonferroni" else 1
        return safe * scale, ends[0] * scale, ends[1] * scale

    def keeps(self, stat, value) -> np.ndarray:
        """Whether statistics `stat` pass the rule at parameter `value`."""
        if self.method == "noise-floor":
            return stat >= value
        return stat < value / (self.candidates if self.method == "bonferroni" else 1)

    def rounded(self, value) -> float:
        """`value` to four significant digits on the safe side: `k` up, `alpha` down."""
        if value <= 0:
            return 0.0
        step = 10.0 ** (math.floor(math.log10(value)) - 3)
        return float(f"{(math.ceil if self.param == 'k' else math.floor)(value / step) * step:.4g}")

    def spec(self, value) -> str:
        """The rule's name at `value` (the test named when paired)."""
        extra = ",test=paired" if self.test == "paired" else ""
        return f"keep-{self.method}({self.param}={value:g}{extra})"


class _Loops:
    """Loops of a design drawn on the engine at a given runs per candidate (the baseline's
    runs tied to them unless fixed), as ``(null, real)`` statistics of a family."""

    def __init__(self, family, design, effect, *, seed, n_jobs, cache, progress):
        self.family, self.design, self.effect = family, design, effect
        self.seed, self.n_jobs, self.cache, self.progress = seed, n_jobs, cache, progress

    def params(self, runs) -> dict:
        """The ``loop`` scenario's parameters at `runs` per candidate."""
        base = self.design["base_runs"]
        base = max(int(runs), 2) if base is None else base
        return {**self.design, "runs": int(runs), "base_runs": base,
                "share": 1 / self.design["candidates"], "gain": self.effect,
                "baseline": "fixed"}

    def draw(self, runs, reps, seed=None) -> tuple:
        """``(null, real)`` statistics of `reps` loops at `runs`."""
        from evalmc.sims import get_scenario

        condition = get_scenario("loop")(**self.params(runs))
        fam = self.family
        plan = engine.Plan({0: condition}, [_Stats(fam.method, fam.test)], reps,
                           self.seed if seed is None else seed, START_REPS)
        out = engine.run(plan, n_jobs=self.n_jobs, cache=self.cache, progress=self.progress,
                         desc="evalmc gate --solve")
        cols = out.tallies[(0, _Stats(fam.method, fam.test).key)].columns
        return cols["null"], cols["real"]


class _SolvedPower:
    """The power function the planner's search runs on: at `runs`, the share of loops whose
    real candidate passes the threshold solved on the same loops."""

    def __init__(self, loops: _Loops, max_false):
        self.loops, self.max_false = loops, max_false

    def __call__(self, x, reps, extra=None, stream=0) -> tuple:
        seed = _stream_seed(self.loops.seed, stream) if stream else None
        null, real = self.loops.draw(x, reps, seed)
        fam = self.loops.family
        value = fam.threshold(null, self.max_false)[0]
        return int(fam.keeps(real, value).sum()), int(real.size), reps, None


@dataclass(frozen=True)
class _RunsInputs:
    """What the planner's search reads of its inputs, for a search over runs."""

    power: float
    low: int
    high: int
    max_reps: int
    solve: str = "runs"
    kind: str = "integer"
    tol: float = 0.1


@dataclass(frozen=True)
class GateSolution:
    """What :func:`solve_gate` found.

    Attributes
    ----------
    table : DataFrame
        A row per rule: each solved rule, then the eye-set rules on the given design.
        ``rule`` (the solved rule's name with its parameter), ``source`` (``'solved'``,
        ``'unattainable'`` where no runs up to `max_runs` reach the targets,
        ``'over-budget'`` where some do but not within `budget`, ``'eye-set'``), ``value``,
        ``ci_low``, ``ci_high`` (the parameter and its 95% interval; NaN for an eye-set rule),
        ``runs``, ``base_runs``, ``spent`` (runs per loop; over budget: those the targets
        need), then from the
        check on fresh loops ``any_false``, ``any_false_mcse``, ``any_false_low``,
        ``any_false_high``, ``power``, ``power_mcse``, ``power_low``, ``power_high`` (95%
        Wilson intervals).
    max_false, power, effect : float
        The targets.
    params : dict
        The given design.
    notes : list of str
        What the numbers alone do not say (a target no runs reach...).
    budget : int or None
        The runs a loop may spend, if given.

    Examples
    --------
    >>> from evalmc.study.gate_solve import solve_gate
    >>> sol = solve_gate({"candidates": 10, "runs": 25}, ["keep-bonferroni"], n_reps=2000,
    ...                  compare=(), seed=1)
    >>> print(sol.table[["rule", "runs", "spent", "any_false", "power"]].to_string(index=False))
                              rule  runs  spent  any_false  power
    keep-bonferroni(alpha=0.06493)    25    275      0.037 0.8215
    """

    table: pd.DataFrame
    max_false: float
    power: float
    effect: float
    params: dict
    notes: list = field(default_factory=list)
    budget: int | None = None

    def report(self) -> str:
        """The targets, the table (rates to four decimals, with their 95% intervals, not their
        MCSEs) and the notes.

        Returns
        -------
        str

        Examples
        --------
        >>> from evalmc.study.gate_solve import solve_gate
        >>> sol = solve_gate({"candidates": 10, "runs": 25}, ["keep-bonferroni"],
        ...                  n_reps=2000, compare=(), seed=1)
        >>> sol.report().splitlines()[2].split()[:3]
        ['keep-bonferroni(alpha=0.06493)', 'solved', '0.06493']
        """
        k, noise = self.params["candidates"], self.params.get("noise", "normal")
        shape = "" if noise == "normal" else f", noise {noise}"
        head = (f"K = {k} candidates, one of effect {self.effect:g} (sd "
                f"{self.params.get('sd', 1.0):g}{shape}) among {k - 1} nulls: P(any false "
                f"keep) <= {self.max_false:g}, power >= {self.power:g}")
        if self.budget is not None:
            head += f", within {self.budget:,} runs a loop"
        table = self.table.drop(columns=["any_false_mcse", "power_mcse"])
        for col in table.columns[table.columns.str.startswith(("any_false", "power"))]:
            table[col] = table[col].map(lambda v: "-" if np.isnan(v) else f"{v:.4f}")
        for col in ("value", "ci_low", "ci_high"):
            table[col] = table[col].map(lambda v: "-" if np.isnan(v) else f"{v:.4g}")
        lines = [head, table.to_string(index=False)]
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines)


def solve_gate(params: Mapping | None = None, rules: Sequence = SOLVED, *,
               max_false: float = 0.05, power: float = 0.8, effect: float = 1.0,
               n_reps: int = 20_000, seed: int = 0, compare: Sequence | None = None,
               max_runs: int = MAX_RUNS, budget: int | None = None, n_jobs: int = 1,
               progress: bool | None = False) -> GateSolution:
    """Solve keep rules' thresholds (and, where needed, the runs per candidate) for a target
    P(any false keep) and power on research loops, and check them on fresh loops.

    The algorithm is in the module's docstring (:mod:`evalmc.study.gate_solve`).

    Parameters
    ----------
    params : mapping, optional
        The loop's design: ``candidates`` (K, default 50), ``runs`` (default 1),
        ``base_runs`` (default: as many as `runs`, at least 2), ``sd`` (default 1), ``rho``
        (default 0), ``noise`` (default ``'normal'``; a shape of :mod:`evalmc.sims.noise`,
        standardized to ``sd``). The solve sets the rest: one real candidate, a fixed
        baseline.
    rules : sequence of str
        Keep rules to solve, of the families ``keep-noise-floor`` (`k`), ``keep-t`` and
        ``keep-bonferroni`` (`alpha`); a test may be named (``'keep-t(test=paired)'``).
    max_false : float
        Target P(any false keep) per loop, in (0, 1).
    power : float
        Target probability of keeping the real candidate, in (0, 1).
    effect : float
        The real candidate's true effect, in the runs' units (> 0).
    n_reps : int
        Loops of the final solve, and as many fresh ones of the check (and of each eye-set
        rule).
    seed : int
        Root seed; the check's loops come from a stream of their own.
    compare : sequence of str, optional
        Eye-set rules run on the given design beside the solution; default every rule of
        :data:`evalmc.study.gate.RULES` at its defaults that fits the design.
    max_runs : int
        The largest runs per candidate searched.
    budget : int, optional
        The runs a loop may spend, the baseline's included: the answer is among the runs per
        candidate whose loop fits it, and a target they do not reach is said, with the
        budget it needs (when some runs up to `max_runs` reach it).
    n_jobs : int
        Workers; the result does not depend on them.
    progress : bool, optional
        The engine's progress bars.

    Returns
    -------
    GateSolution

    Examples
    --------
    Ten candidates, 25 runs each, one with an effect of 1 sd: the Bonferroni alpha that
    holds P(any false keep) at 0.05 (above 0.05: the candidates share the baseline, so their
    tests are correlated and alpha / K is conservative), checked on fresh loops:

    >>> from evalmc.study.gate_solve import solve_gate
    >>> sol = solve_gate({"candidates": 10, "runs": 25}, ["keep-bonferroni"], n_reps=2000,
    ...                  compare=(), seed=1)
    >>> row = sol.table.iloc[0]
    >>> print(row["rule"], row["spent"], row["any_false"], row["power"])
    keep-bonferroni(alpha=0.06493) 275 0.037 0.8215
    """
    design, families = _solve_iv(params, rules, max_false, power, effect, max_runs, budget)
    n_reps = check_int("n_reps", n_reps, low=START_REPS)
    notes: list[str] = []
    rows = []
    check_seed = _stream_seed(seed, _CHECK_STREAM)
    with tempfile.TemporaryDirectory(prefix="evalmc-gate-") as tmp:
        for fam in families:
            loops = _Loops(fam, design, effect, seed=seed, n_jobs=n_jobs, cache=tmp,
                           progress=progress)
            rows.append(_solve_one(fam, loops, design, max_false, power, n_reps,
                                   check_seed, (max_runs, budget), notes))
    rows.extend(_eye_set(design, effect, compare, n_reps, check_seed, n_jobs))
    return GateSolution(pd.DataFrame(rows), float(max_false), float(power), float(effect),
                        design, notes, budget)


def _solve_iv(params, rules, max_false, power, effect, max_runs, budget) -> tuple:
    """The design with its defaults and the families, checked, each error naming its input."""
    from evalmc.criteria import get_criterion

    params = dict(params or {})
    for name in params:
        if name not in DESIGN:
            raise ValueError(f"`params` may set only {', '.join(DESIGN)} (a solve draws one "
                             f"real candidate against a fixed baseline); got `{name}`.")
    design = {"candidates": 50, "runs": 1, "base_runs": None, "sd": 1.0, "rho": 0.0,
              "noise": "normal", **params}
    k = check_int("candidates", design["candidates"], low=2)
    check_int("runs", design["runs"], low=1)
    if design["base_runs"] is not None:
        check_int("base_runs", design["base_runs"], low=2)
    check_float("max_false", max_false, low=0, high=1, open_low=True, open_high=True)
    check_float("power", power, low=0, high=1, open_low=True, open_high=True)
    check_float("effect", effect, low=0, open_low=True)
    max_runs = check_int("max_runs", max_runs, low=2)
    if budget is not None:
        check_int("budget", budget, low=1)
        if _budget_runs(design, budget) < design["runs"]:
            raise ValueError(f"`budget` must hold a loop at `runs` {design['runs']}: "
                             f"{_spent_at(design, design['runs']):,} runs; got {budget}.")
    if not rules:
        raise ValueError("`rules` must name at least one keep rule to solve.")
    families = []
    for rule in rules:
        test = get_criterion(rule).test
        if test.method not in SOLVABLE:
            raise ValueError(f"`rules`: {rule!r} has no threshold to solve; solvable are "
                             "keep-noise-floor (k), keep-t and keep-bonferroni (alpha).")
        families.append(_Family(test.method, test.test, k))
    from evalmc.sims import get_scenario

    get_scenario("loop")(**_Loops(families[0], design, effect, seed=0, n_jobs=1, cache=None,
                                  progress=False).params(design["runs"]))  # its own checks
    return design, families


def _solve_one(fam, loops, design, max_false, power, n_reps, check_seed, limits,
               notes) -> dict:
    """One family: the threshold at the given runs, or the runs searched (up to `limits`,
    ``(max_runs, budget)``); then checked."""
    runs = design["runs"]
    low = max(runs, 2) if fam.method != "noise-floor" else runs
    name = fam.name
    high = max(limits[0], low + 1)
    cap = high if limits[1] is None else min(high, _budget_runs(design, limits[1]))
    if low > cap:
        why = (f"it needs {low} runs per candidate at least, "
               f"{_spent_at(design, low):,} runs a loop")
        return _over_budget(fam, loops, max_false, power, (low, high), limits[1], why,
                            {}, notes)
    null, real = loops.draw(low, n_reps)
    value = fam.threshold(null, max_false)[0]
    if fam.keeps(real, value).mean() < power:
        search = _runs_search(loops, max_false, power, low, cap)
        try:
            est = _searched(search, low)
        except UnreachableTarget as err:
            if cap < high and "`high`" in str(err):
                why = str(err).replace(" (`high`)", " (the most it allows)").replace(
                    "raise `high`", "raise `budget`")
                return _over_budget(fam, loops, max_false, power, (low, high), limits[1],
                                    why, search.seen, notes)
            text = str(err).replace("`high`", "`max_runs`")
            notes.append(f"{name}: unattainable: {text} ({_spent(search):,} loops searched)")
            return _unattainable(fam, loops.params(low))
        if est[0] > cap:
            why = f"the smallest runs that reach the targets, {est[0]}, are more than it allows"
            return _over_budget(fam, loops, max_false, power, (low, high), limits[1], why,
                                search.seen, notes)
        runs = est[0]
        notes.append(f"{name}: at {design['runs']} run(s) per candidate its power is short of "
                     f"{power:g}; the smallest runs that reach it: {runs} (95% interval "
                     f"{est[1]} to {est[2]}; {_spent(search):,} loops searched).")
        null, real = loops.draw(runs, n_reps)
    else:
        runs = low
    value, lo, hi = fam.threshold(null, max_false)
    spec = fam.spec(fam.rounded(value))
    params = loops.params(runs)
    checked = run_gate(params, [spec], n_reps=n_reps, seed=check_seed,
                       progress=False).iloc[0]
    row = {"rule": spec, "source": "solved", "value": fam.rounded(value), "ci_low": lo,
           "ci_high": hi, **_design_cols(params), **_checked(checked)}
    if checked["power"] + 3 * checked["power_mcse"] < power:
        notes.append(f"{spec}: on fresh loops its power, {checked['power']:.4f}, is short of "
                     f"{power:g} by more than three MCSEs (the search's answer is at the "
                     "crossing of its curve).")
    return row


def _runs_search(loops, max_false, power, low, high) -> _Search:
    """The planner's search over runs per candidate from `low` to `high`."""
    return _Search(_RunsInputs(power, low, high, SEARCH_REPS), _SolvedPower(loops, max_false))


def _searched(search, low) -> tuple:
    """Bracket and refine: the runs that reach the target and their 95% interval."""
    search.bracket()
    if all(s[0] / s[1] >= search.iv.power for s in search.seen.values()):
        return (low,) * 3
    return search.refine()[2]


def _over_budget(fam, loops, max_false, power, span, budget, why, seen, notes) -> dict:
    """A family whose targets the `budget` does not reach (`why`): the runs up to `max_runs`
    that do are searched (the points in `seen` kept), and the row holds what they spend."""
    name, (low, high) = fam.name, span
    head = f"{name}: unattainable within the budget of {budget:,} runs a loop: {why.rstrip('.')}."
    search = _runs_search(loops, max_false, power, low, high)
    search.seen.update(seen)
    try:
        est = _searched(search, low)
    except UnreachableTarget as err:
        text = str(err).replace("`high`", "`max_runs`")
        notes.append(f"{head} No runs reach them either: {text} ({_spent(search):,} loops "
                     "searched)")
        return _unattainable(fam, loops.params(low))
    params = loops.params(est[0])
    notes.append(f"{head} The targets need {est[0]} runs per candidate (95% interval {est[1]} "
                 f"to {est[2]}), a budget of {_spent_at(loops.design, est[0]):,} runs a loop "
                 f"({_spent(search):,} loops searched).")
    return {**_unattainable(fam, params), "source": "over-budget"}


def _spent_at(design, runs) -> int:
    """Runs a loop of `design` spends at `runs` per candidate (the baseline's as the solve
    sets them: as many, at least 2, unless given)."""
    base = max(runs, 2) if design["base_runs"] is None else design["base_runs"]
    return base + design["candidates"] * runs


def _budget_runs(design, budget) -> int:
    """The most runs per candidate whose loop fits `budget` runs; 0 when none does."""
    k, base = design["candidates"], design["base_runs"]
    if base is not None:
        return max((budget - base) // k, 0)
    tied = budget // (k + 1)  # the baseline as many as each candidate's, from 2 runs up
    if tied >= 2:
        return tied
    return 1 if budget >= 2 + k else 0


def _spent(search) -> int:
    """Loops the planner's search ran."""
    return int(search.spent())


def _unattainable(fam, params) -> dict:
    """The row of a family whose targets no runs reach."""
    nan = float("nan")
    return {"rule": fam.name, "source": "unattainable", "value": nan, "ci_low": nan,
            "ci_high": nan, **_design_cols(params),
            **{c: nan for c in _checked(None)}}


def _design_cols(params) -> dict:
    """Runs per candidate, the baseline's, and the runs a loop spends."""
    return {"runs": params["runs"], "base_runs": params["base_runs"],
            "spent": params["base_runs"] + params["candidates"] * params["runs"]}


def _checked(row) -> dict:
    """P(any false keep) and power of a :func:`run_gate` row, with MCSEs and Wilson
    intervals."""
    from evalmc.stats.mcse import wilson_interval

    out = {}
    for name in ("any_false", "power"):
        if row is None:
            out.update({name: 0, f"{name}_mcse": 0, f"{name}_low": 0, f"{name}_high": 0})
            continue
        rate, loops = float(row[name]), int(row["loops"])
        lo, hi = wilson_interval(int(round(rate * loops)), loops)
        out.update({name: rate, f"{name}_mcse": float(row[f"{name}_mcse"]),
                    f"{name}_low": float(lo), f"{name}_high": float(hi)})
    return out


def _eye_set(design, effect, compare, n_reps, seed, n_jobs) -> list:
    """The eye-set rules on the given design (every default rule that fits, unless named)."""
    from evalmc.criteria import get_criterion

    params = {**design, "base_runs": design["base_runs"] or max(design["runs"], 2),
              "share": 1 / design["candidates"], "gain": effect, "baseline": "fixed"}
    if compare is None:
        compare = []
        for name in RULES:
            try:
                get_criterion(name).test.check(params["runs"], params["base_runs"], "fixed")
            except ValueError:
                continue
            compare.append(name)
    if not compare:
        return []
    frame = run_gate(params, list(compare), n_reps=n_reps, seed=seed, n_jobs=n_jobs,
                     progress=False)
    nan = float("nan")
    return [{"rule": row["rule"], "source": "eye-set", "value": nan, "ci_low": nan, "ci_high": nan,
             **_design_cols(params), **_checked(row)}
            for _, row in frame.iterrows()]
