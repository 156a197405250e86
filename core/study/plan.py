"""Plan a study: the design size, or the minimum detectable effect, that gives a criterion a
target power, solved by simulation (:func:`plan`, ``evalmc plan``).

The power of a criterion at a design point is the rejection rate of a condition of the engine
(:func:`~evalmc.study.rates.run_study`), so every number here is a Monte Carlo estimate, and the
solved value comes with a 95% interval from that error.

The algorithm
-------------
Two kinds of parameter are solved: an **integer** design parameter (runs ``n_a`` or ``n``,
items, clusters, data sets: the smallest value whose power reaches the target) and a
**continuous** effect (``shift``, ``delta``: the minimum detectable effect, the smallest
effect with the target power, at the fixed size of `params`).

1. **Bracket.** From `low` (default 2 for an integer, 0.1 for an effect) the parameter doubles
   until the power, on :data:`START_REPS` replications, reaches the target (never past
   `high`: then the plan stops with a message). An effect whose start already reaches the
   target halves instead until it does not; a size's start is taken as the answer only if it
   still reaches the target on :func:`_min_reps` replications.
2. **Fit.** A monotone curve of power against the parameter: a binomial GLM with probit link,
   ``power = Phi(b0 + b1 u)``, with ``u = log(value)`` for an integer and ``u = value`` for an
   effect, fitted by Fisher scoring on every evaluated point weighted by its replications,
   then again on the points within a factor 1.5 of the crossing for an integer, or within
   half the crossing for an effect, when at least three are (the probit is a local
   description of the power curve, and points far from the target only bias it: with a
   factor 2, the two-sample t's answer at d = 0.5 came out 1 standard error low on average).
   Where the points there carry no crossing (near a power of 1, all may reject on every
   replication), the window doubles until they do; where the fit on every point puts the
   crossing outside the values the points cross at (the largest value below the target, the
   smallest above it past that), the window starts from there instead: near a power of 1 a
   probit in log(size) fitted from far below extrapolates far too high. A refit whose
   crossing is outside its own points is not taken. The crossing ``u* = (Phi^-1(power) - b0)
   / b1`` has a 95% profile-likelihood interval (the deviance, maximised over the slope,
   within 1.96 ** 2 of its minimum): with few misses, near a power of 1, the likelihood is
   skewed and the delta method's interval too narrow on one side.
3. **Refine.** The crossing and the two ends of its interval (at least one unit, or the
   tolerance, apart, at most a factor 2) get more replications, doubling each round (800,
   1,600, 3,200, ... per point, counted cumulatively: the random streams of a condition depend
   only on its parameters and the seed, and the blocks already run are reused), then the
   curve is refitted; from a fit that is not local, crossing outside the values the points
   cross at, the points are moved between those, with the middle of the two. Where the curve
   cannot be fitted (a jump from no rejection to all), the bracket is bisected instead.
   **A power that levels off** below 1: when a point where the curve is at or above the
   target falls clearly short of it, or the power observed at the answer is above the target
   by more than three MCSEs, the power is measured far above the bracket (four times its top
   for a size, twice for an effect, :data:`PLATEAU_REPS` replications, also when doubling
   finds it flat above 0.5); a target not above that level by three MCSEs is refused,
   otherwise the curve becomes ``c * Phi(b0 + b1 u)`` with that level ``c`` (its MCSE widens
   the interval), and a note says so. For an effect, when the level's error is most of the
   interval's, the level is measured again on twice the replications before the points are
   (a size's power, often a sawtooth that overshoots its plateau, keeps the first measure).
4. **Stop**, after a round of :func:`_min_reps` per point at least (:data:`MIN_REPS`, two
   rounds, or enough to expect :data:`MIN_FAILURES` misses at the target: 12,800 for power
   0.999), on a local fit, when the interval is narrow enough -- an integer: at most three
   consecutive values, or within +-`tol` (default 10%) of the solved value; an effect:
   within +-`tol` (default 5%) -- and no point at the answer or the interval's ends measured
   as 1 (or 0) is clearly above (below) the curve there (an estimate of 1 has an interval
   too); or when the next round would pass `max_reps` replications in all (the plan then
   says it stopped at the cap). "Clearly" above or below a power `p` is a binomial tail at
   `p` below three normal sds' (0.00135), exact: near a power of 1 the normal approximation,
   and an MCSE of 0, fail.

The solved integer is the smallest integer at or above the crossing, its interval the
integers at or above the interval's ends; the solved effect is the crossing, rounded to four
significant digits. Its power is then measured afresh, on as many replications as its point
had, from a seed of their own (:func:`_stream_seed`): the search chose the answer by its
points, so their rate there is biased (a plan said 0.842, MCSE 0.009, where ``calibrate``
at the same size said 0.8195, MCSE 0.003); a power measured as 1 (or 0) has the MCSE of its
95% Wilson interval, not 0, and a note gives the interval. A size whose power there (its
point and the fresh measure, pooled) is clearly short of the target steps up to the next
value that is not (a discrete test's sawtooth, said in a note). Its size is the rate of the same
condition under `null` (default: the scenario's effect parameter, ``shift`` or ``delta``, at
its default), with Bradley's verdict: a plan that reaches its power by being liberal says
so. The cost is the number of replications simulated (each replication one
evaluation of the criterion), which grows as the square of the precision asked, not with the
width of the range searched. Every evaluated point is a condition of the engine, so a plan is
the same for a seed whatever the number of workers.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalmc.inputs.checks import check_float, check_int

#: Replications of each point while bracketing (one block: the unit later rounds add to).
START_REPS = 400
#: Replications per point of the last round before the plan may stop, at least (two rounds
#: of refinement).
MIN_REPS = 4 * START_REPS
#: The rarer outcome at the target power (misses near 1, rejections near 0) that the last
#: round's replications per point are to expect, at least (:func:`_min_reps`).
MIN_FAILURES = 10
#: Replications of the point far above the bracket where a power that levels off is measured.
PLATEAU_REPS = 8 * START_REPS
#: Values tried above a solved size whose power falls short of the target (a sawtooth).
SAWTOOTH_STEPS = 8
#: Replications of the null condition for the size, at least.
SIZE_REPS = 4000
#: The cap of replications in all, by default.
MAX_REPS = 400_000
#: The parameters taken as a scenario's effect, in this order.
EFFECTS = ("shift", "delta")
#: Default relative tolerance of the interval: integer parameters, effects.
TOL = {"integer": 0.1, "effect": 0.05}
_Z = 1.959963984540054
#: One-sided normal tail of three sds: a point "clearly" above or below a power.
_TAIL3 = 0.0013498980316301
#: The first spawn key of the streams of fresh replications (:func:`_stream_seed`).
_STREAM_KEY = 0x706C616E  # "plan"
#: Half-width of the window of the local fit of a size, on the log scale (a factor 1.5).
_WINDOW = math.log(1.5)


class UnreachableTarget(ValueError):
    """No value up to `high` is sure to reach the target power: the power levels off below
    it, or is still short of it at `high`.

    Parameters
    ----------
    message : str
        What was found, naming `power` or `high`.
    n_reps : int
        Replications run until then.

    Examples
    --------
    >>> err = UnreachableTarget("the power levels off at 0.5", 3600)
    >>> isinstance(err, ValueError), err.n_reps
    (True, 3600)
    """

    def __init__(self, message: str, n_reps: int = 0):
        super().__init__(message)
        self.n_reps = n_reps


@dataclass(frozen=True)
class PlanResult:
    """What :func:`plan` solved, with the points it evaluated and the fitted power curve.

    Attributes
    ----------
    scenario, criterion : str
        Their names.
    solve : str
        The parameter solved.
    kind : {'integer', 'effect'}
        Whether the smallest integer value or a continuous effect was solved.
    target, alpha : float
        The power sought and the level.
    value : int or float
        The solved value: the smallest with the target power (by the fitted curve).
    ci_low, ci_high : int or float
        Its 95% interval from the Monte Carlo error.
    power, power_mcse : float
        The power at `value`, measured afresh on replications the search did not use (a seed
        of their own), and its Monte Carlo standard error (for a power measured as 0 or 1,
        the half-width of its 95% Wilson interval over 1.96).
    size, size_mcse : float
        The rejection rate at `value` under `null`, and its MCSE.
    bradley : str
        Bradley's verdict on the size: robust, liberal, conservative or undetermined.
    n_reps : int
        Replications simulated in all (each an evaluation of the criterion), the fresh
        measure of the power and the size included.
    converged : bool
        Whether the interval reached the tolerance (False: the cap stopped the plan).
    points : DataFrame
        Every evaluated point: value, rejections, replications, power, Wilson interval.
    fit : dict
        The probit curve: ``b0``, ``b1``, ``scale`` ('log' or 'linear'), ``cov``,
        ``fitted_on``, the range of the points it was fitted on, and ``local``, whether those
        are the points near the crossing.
    params, null : dict
        The other parameters of the alternative, and the null's overrides.
    notes : list of str
        What the numbers alone do not say (a liberal size, the cap reached...).
    tie : list of str
        The parameters kept equal to the solved one.

    Examples
    --------
    >>> import evalmc
    >>> res = evalmc.plan("paired-normal", "paired-t", solve="n", power=0.8,
    ...                   params={"shift": 0.5, "rho": 0.5}, seed=1)
    >>> res.value, res.ci_low <= 34 <= res.ci_high, res.bradley
    (34, True, 'robust')
    """

    scenario: str
    criterion: str
    solve: str
    kind: str
    target: float
    alpha: float
    value: float
    ci_low: float
    ci_high: float
    power: float
    power_mcse: float
    size: float
    size_mcse: float
    bradley: str
    n_reps: int
    converged: bool
    points: pd.DataFrame
    fit: dict
    params: dict
    null: dict
    notes: list = field(default_factory=list)
    tie: list = field(default_factory=list)

    def summary(self) -> pd.DataFrame:
        """The plan in one row: solved value, interval, power and size with their MCSEs.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.plan("paired-normal", "paired-t", solve="n",
        ...                   params={"shift": 0.5, "rho": 0.5}, seed=1)
        >>> list(res.summary().columns)  # doctest: +NORMALIZE_WHITESPACE
        ['solve', 'value', 'ci_low', 'ci_high', 'target', 'power', 'power_mcse', 'size',
         'size_mcse', 'bradley', 'n_reps', 'points']
        """
        return pd.DataFrame([{
            "solve": self.solve, "value": self.value, "ci_low": self.ci_low,
            "ci_high": self.ci_high, "target": self.target, "power": self.power,
            "power_mcse": self.power_mcse, "size": self.size, "size_mcse": self.size_mcse,
            "bradley": self.bradley, "n_reps": self.n_reps, "points": len(self.points)}])

    def to_dict(self) -> dict:
        """Everything as plain values (for ``--format json``).

        Returns
        -------
        dict

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.plan("paired-normal", "paired-t", solve="n",
        ...                   params={"shift": 0.5, "rho": 0.5}, seed=1)
        >>> sorted(res.to_dict())[:4]
        ['alpha', 'bradley', 'ci_high', 'ci_low']
        """
        out = {k: getattr(self, k) for k in (
            "scenario", "criterion", "solve", "kind", "target", "alpha", "value", "ci_low",
            "ci_high", "power", "power_mcse", "size", "size_mcse", "bradley", "n_reps",
            "converged", "params", "null", "notes", "tie")}
        out["fit"] = {k: (np.asarray(v).tolist() if k == "cov" else v)
                      for k, v in self.fit.items()}
        out["points"] = self.points.to_dict(orient="records")
        return _plain(out)

    def curve(self, x):
        """The fitted power at `x` (values of the solved parameter).

        Parameters
        ----------
        x : array_like

        Returns
        -------
        ndarray

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.plan("paired-normal", "paired-t", solve="n",
        ...                   params={"shift": 0.5, "rho": 0.5}, seed=1)
        >>> bool(abs(res.curve([res.value])[0] - 0.8) < 0.02)
        True
        """
        from scipy.stats import norm

        x = np.asarray(x, dtype=float)
        u = np.log(x) if self.fit["scale"] == "log" else x
        return self.fit.get("ceiling", 1.0) * norm.cdf(self.fit["b0"] + self.fit["b1"] * u)

    def report(self) -> str:
        """The summary as a table, then the notes, one a line.

        Returns
        -------
        str

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.plan("paired-normal", "paired-t", solve="n",
        ...                   params={"shift": 0.5, "rho": 0.5}, seed=1)
        >>> print(res.report().splitlines()[0])  # doctest: +ELLIPSIS
        paired-normal, paired-t at alpha 0.05: smallest n with power 0.8 (shift=0.5, rho=0.5)
        """
        given = self._given()
        what = ("smallest " + self.solve if self.kind == "integer"
                else "minimum detectable " + self.solve)
        lines = [f"{self.scenario}, {self.criterion} at alpha {_fmt(self.alpha)}: {what} with "
                 f"power {_fmt(self.target)}" + (f" ({given})" if given else "")]
        table = self.summary().drop(columns=["target"])
        # four decimals, or one past the target's distance to 1: at 0.9999, 0.99998 (MCSE
        # 0.00003) is not to print as 1.0000 (MCSE 0.0000)
        places = max(4, 1 + math.ceil(-math.log10(1 - self.target) - 1e-9))
        for col in ("power", "power_mcse", "size", "size_mcse"):
            table[col] = table[col].map(lambda v: f"{v:.{places}f}")
        if self.kind == "effect":
            for col in ("value", "ci_low", "ci_high"):
                table[col] = table[col].map(lambda v: f"{v:.4g}")
        lines.append(table.to_string(index=False))
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines)

    def _given(self) -> str:
        """The fixed parameters and the tied ones, as ``key=value, ...``."""
        return _pairs({**self.params, **{k: self.solve for k in self.tie}})

    def plot(self, ax=None):
        """The power curve: evaluated points with Wilson bars, the fitted curve, the target,
        the solved value and its interval.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Default: a new figure's.

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.plan("paired-normal", "paired-t", solve="n",
        ...                   params={"shift": 0.5, "rho": 0.5}, seed=1)
        >>> res.plot().axes[0].get_xlabel()
        'n'
        """
        from evalmc.plots import axes_or_new

        ax = axes_or_new(ax, figsize=(7, 4.5))
        pts = self.points
        lo_x, hi_x = pts["value"].min(), pts["value"].max()
        grid = (np.geomspace(lo_x, hi_x, 200) if self.fit["scale"] == "log"
                else np.linspace(lo_x, hi_x, 200))
        ax.axvspan(self.ci_low, self.ci_high, color="tab:orange", alpha=0.2,
                   label=f"95% interval [{_fmt(self.ci_low)}, {_fmt(self.ci_high)}]")
        on = self.fit["fitted_on"]
        inside = (grid >= on[0]) & (grid <= on[1])
        ax.plot(grid, self.curve(grid), color="tab:blue", lw=0.8, ls=":")
        ax.plot(grid[inside], self.curve(grid[inside]), color="tab:blue",
                label="probit fit (solid: the points it is fitted on)")
        ax.errorbar(pts["value"], pts["power"],
                    yerr=[pts["power"] - pts["ci_low"], pts["ci_high"] - pts["power"]],
                    fmt="o", color="black", ms=3, capsize=2,
                    label="evaluated points (95% Wilson)")
        ax.axhline(self.target, color="gray", ls="--", lw=1, label=f"target {self.target:g}")
        ax.plot([self.value], [self.power], "D", color="tab:red", ms=7,
                label=f"solved {self.solve} = {_fmt(self.value)}")
        if self.fit["scale"] == "log":
            from matplotlib.ticker import LogLocator, ScalarFormatter

            ax.set_xscale("log")
            ax.xaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))  # 1, 2, 5: no crowding
            ax.xaxis.set_major_formatter(ScalarFormatter())
            ax.xaxis.set_minor_formatter(ScalarFormatter())
            ax.tick_params(axis="x", which="both", labelsize=8)
        ax.set_xlabel(self.solve)
        ax.set_ylabel(f"power (rejection rate at alpha {self.alpha:g})")
        ax.set_ylim(-0.02, 1.02)
        import textwrap

        given = self._given()
        head = (f"{self.criterion} on {self.scenario}" + (f" ({given})" if given else "")
                + f": power against {self.solve}")
        ax.set_title("\n".join(textwrap.wrap(head, 90)) + f"\n{self.n_reps:,} replications, "
                     f"size at the solution {self.size:.3f} ({self.bradley})", fontsize=9)
        ax.legend(fontsize=8, loc="lower right")
        ax.grid(alpha=0.3)
        return ax.figure


def plan(scenario, criterion, *, solve: str = "n", power: float = 0.8, alpha: float = 0.05,
         params: Mapping | None = None, null: Mapping | None = None, tie: Sequence = (),
         low=None, high=None, tol: float | None = None, max_reps: int = MAX_REPS,
         seed: int = 0, n_jobs: int = 1, backend: str | None = None, cache=None,
         progress: bool | None = False) -> PlanResult:
    """The smallest design size, or the minimum detectable effect, at which `criterion`
    reaches a target power on data drawn from `scenario`, with its 95% interval.

    The algorithm is in the module's docstring (:mod:`evalmc.study.plan`).

    Parameters
    ----------
    scenario : str or Scenario subclass
        A name from ``evalmc.SCENARIOS`` or a scenario class.
    criterion : str or callable
        One criterion (``evalmc.CRITERIA``, a ``file.py:function`` spec, a callable).
    solve : str
        The parameter solved: an integer one (``n``, ``n_a``, ``n_items``...) for the
        smallest size, a real one (``shift``, ``delta``) for the minimum detectable effect.
    power : float
        Target power, in (alpha, 1).
    alpha : float
        Level at which the criterion's p-values are judged, in (0, 1).
    params : mapping, optional
        The other parameters, one value each: the alternative (``{"shift": 0.5}``) and the
        fixed design (``{"n": 20}`` when solving the effect).
    null : mapping, optional
        Parameters that make the null condition, on top of `params`, for the size. Default:
        the scenario's effect parameter (``shift`` or ``delta``) at its default.
    tie : sequence of str
        Integer parameters set equal to the solved one (``tie=["n_b"]`` with ``solve="n_a"``:
        equal groups).
    low, high : number, optional
        Where the bracket starts, and the largest value tried (defaults: 2 and 2**20 for an
        integer, 0.1 and 0.1 * 2**20 for an effect).
    tol : float, optional
        Relative half-width of the interval at which to stop: default 0.1 for an integer
        (or an interval of at most three consecutive values), 0.05 for an effect.
    max_reps : int
        The cap of replications in all.
    seed : int
        Root seed; the plan does not depend on `n_jobs` or `backend`.
    n_jobs : int
        Workers; -1 for all cores.
    backend : {'threads', 'loky', 'dask'}, optional
        As in :func:`~evalmc.study.rates.run_study`.
    cache : path, optional
        Directory of finished blocks (default: a temporary one, removed at the end).
    progress : bool, optional
        Show the engine's progress bars.

    Returns
    -------
    PlanResult

    Raises
    ------
    UnreachableTarget
        A target never reached before `high`, or above the level the power levels off at
        (a ValueError, with the replications run until then).
    ValueError
        Naming the parameter: a `solve` that is not a numeric parameter of the scenario, a
        `power` or `alpha` out of range, an alternative equal to the null...

    Examples
    --------
    How many seeds, paired, for an 80% chance that the paired t-test detects a shift of half
    the differences' standard deviation (1 with unit sds and rho 0.5; statsmodels'
    ``TTestPower`` says 34)?

    >>> import evalmc
    >>> res = evalmc.plan("paired-normal", "paired-t", solve="n", power=0.8,
    ...                   params={"shift": 0.5, "rho": 0.5}, seed=1)
    >>> print(res.report())
    paired-normal, paired-t at alpha 0.05: smallest n with power 0.8 (shift=0.5, rho=0.5)
    solve  value  ci_low  ci_high  power power_mcse   size size_mcse bradley  n_reps  points
        n     34      33       35 0.8087     0.0098 0.0505    0.0035  robust   12800       9

    The minimum detectable shift with 20 seeds (statsmodels: 0.6604):

    >>> res = evalmc.plan("paired-normal", "paired-t", solve="shift",
    ...                   params={"n": 20, "rho": 0.5}, seed=1)
    >>> print(res.report())  # doctest: +NORMALIZE_WHITESPACE
    paired-normal, paired-t at alpha 0.05: minimum detectable shift with power 0.8 (n=20, rho=0.5)
    solve  value ci_low ci_high  power power_mcse   size size_mcse bradley  n_reps  points
    shift 0.6643 0.6562   0.673 0.7800     0.0104 0.0512    0.0035  robust   16000      11
    """
    iv = _plan_iv(scenario, criterion, solve, power, alpha, params, null, tie, low, high, tol,
                  max_reps)
    with tempfile.TemporaryDirectory(prefix="evalmc-plan-") as tmp:
        search = _Search(iv, _Power(iv, seed=seed, n_jobs=n_jobs, backend=backend,
                                    cache=cache or tmp, progress=progress))
        search.run()
    return search.result()


@dataclass(frozen=True)
class CostPlan:
    """What :func:`plan_cost` found: the cheapest design with two sizes, every design it
    solved, and the frontier of power against cost.

    Attributes
    ----------
    sizes : tuple of str
        The two integer parameters: the one set to each of `values`, the one solved.
    unit_costs : tuple of float
        The cost of one unit of each.
    target : float
        The power sought.
    designs : DataFrame
        One row per value of the first size: the second solved (``value``, ``ci_low``,
        ``ci_high``), the ``cost`` and its interval (``cost_low``, ``cost_high``), the
        ``power`` observed there, ``n_reps``; a value whose power never reaches the target
        (before `high`, or levelling off below it) has NaN and ``reached`` False.
    best : dict
        The cheapest row of `designs` (ties: the narrower cost interval, then the smaller
        first size).
    frontier : DataFrame
        ``budget``, the highest fitted ``power`` of a design costing at most that, and the
        design (both sizes). The power is read off each plan's fitted probit curve: close to
        the target it is as good as the plan, far from it an extrapolation.
    plans : list of PlanResult
        The plans behind `designs` (None where the target was not reached).
    searched : bool
        Whether the first size was searched (no `values` given) rather than listed.

    Examples
    --------
    >>> import evalmc
    >>> res = evalmc.plan_cost("normal", "student-t", sizes=("n_a", "n_b"),
    ...                        values=[16, 24], unit_costs=(1, 4), params={"shift": 1.0},
    ...                        seed=1)
    >>> res.best["n_a"], res.best["value"], res.best["cost"]
    (24, 14, 80.0)
    """

    sizes: tuple
    unit_costs: tuple
    target: float
    designs: pd.DataFrame
    best: dict
    frontier: pd.DataFrame
    plans: list
    searched: bool = False

    def report(self) -> str:
        """The designs, the cheapest, then the frontier, as text.

        Returns
        -------
        str

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.plan_cost("normal", "student-t", sizes=("n_a", "n_b"),
        ...                        values=[16, 24], unit_costs=(1, 4),
        ...                        params={"shift": 1.0}, seed=1)
        >>> print(res.report().splitlines()[0])
        cheapest design with power 0.8: n_a=24, n_b=14 [13, 14], cost 80 [76, 80]
        """
        a, b = self.sizes
        best = self.best
        lines = [f"cheapest design with power {self.target:g}: {a}={best[a]}, "
                 f"{b}={best['value']:g} [{best['ci_low']:g}, {best['ci_high']:g}], cost "
                 f"{best['cost']:g} [{best['cost_low']:g}, {best['cost_high']:g}]",
                 self.designs.to_string(index=False), "",
                 "frontier (power fitted):", self.frontier.to_string(index=False)]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Everything but the plans as plain values (for ``--format json``): sizes, unit
        costs, target, whether the first size was searched, the cheapest design, every design
        and the frontier.

        Returns
        -------
        dict

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.plan_cost("normal", "student-t", sizes=("n_a", "n_b"),
        ...                        values=[16, 24], unit_costs=(1, 4),
        ...                        params={"shift": 1.0}, seed=1)
        >>> out = res.to_dict()
        >>> sorted(out), out["best"]["cost"]
        (['best', 'designs', 'frontier', 'searched', 'sizes', 'target', 'unit_costs'], 80.0)
        """
        def rows(frame):
            return [{k: (None if v is pd.NA or (isinstance(v, float) and math.isnan(v))
                         else v) for k, v in r.items()}
                    for r in frame.astype(object).to_dict(orient="records")]

        return _plain({"sizes": list(self.sizes), "unit_costs": list(self.unit_costs),
                       "target": self.target, "searched": self.searched,
                       "best": rows(pd.DataFrame([self.best]))[0],
                       "designs": rows(self.designs), "frontier": rows(self.frontier)})

    def power_at(self, budgets) -> pd.DataFrame:
        """The frontier at `budgets`: for each, the highest fitted power of a design (the
        first size among those solved, the second as large as the budget allows) and it.

        Parameters
        ----------
        budgets : sequence of float

        Returns
        -------
        DataFrame
            ``budget``, ``power`` (NaN where no design fits the budget) and both sizes.

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.plan_cost("normal", "student-t", sizes=("n_a", "n_b"),
        ...                        values=[16, 24], unit_costs=(1, 4),
        ...                        params={"shift": 1.0}, seed=1)
        >>> res.power_at([80])[["budget", "n_a", "n_b"]].to_dict(orient="records")
        [{'budget': 80.0, 'n_a': 24, 'n_b': 14}]
        """
        return _frontier(self.designs, self.plans, self.sizes, self.unit_costs, budgets)

    def plot(self, ax=None):
        """The frontier of power against cost (fitted, a step per design change), each
        design at the target with its cost interval, and the cheapest marked.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Default: a new figure's.

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.plan_cost("normal", "student-t", sizes=("n_a", "n_b"),
        ...                        values=[16, 24], unit_costs=(1, 4),
        ...                        params={"shift": 1.0}, seed=1)
        >>> res.plot().axes[0].get_xlabel()
        'cost (1 per n_a, 4 per n_b)'
        """
        import textwrap

        from evalmc.plots import axes_or_new

        ax = axes_or_new(ax, figsize=(7, 4.5))
        a, b = self.sizes
        reached = self.designs[self.designs["reached"]]
        lo = float(min(self.frontier["budget"].min(), reached["cost_low"].min()))
        hi = float(max(self.frontier["budget"].max(), reached["cost_high"].max()))
        curve = self.power_at(np.linspace(lo, hi, 300))
        ax.plot(curve["budget"], curve["power"], color="tab:blue",
                label="frontier: highest fitted power for the cost")
        cost = reached["cost"].astype(float)
        ax.errorbar(cost, np.full(len(reached), self.target),
                    xerr=[cost - reached["cost_low"].astype(float),
                          reached["cost_high"].astype(float) - cost],
                    fmt="o", color="black", ms=4, capsize=3,
                    label=f"designs ({a} x {b}) reaching {self.target:g} (95% cost interval)")
        labels: dict = {}  # designs of the same cost share one label
        for _, row in reached.iterrows():
            labels.setdefault(float(row["cost"]), []).append(f"{row[a]}x{row['value']}")
        for i, (at, names) in enumerate(sorted(labels.items())):  # four rows, in turn
            ax.annotate(", ".join(names), (at, self.target), textcoords="offset points",
                        xytext=(0, (8, -15, 20, -27)[i % 4]), ha="center", fontsize=7,
                        arrowprops={"arrowstyle": "-", "color": "0.6", "lw": 0.5})
        best = self.best
        ax.plot([best["cost"]], [self.target], "D", color="tab:red", ms=8,
                label=f"cheapest: {a}={best[a]}, {b}={best['value']}, cost {best['cost']:g}")
        ax.axhline(self.target, color="gray", ls="--", lw=1)
        ax.set_xlabel(f"cost ({_fmt(self.unit_costs[0])} per {a}, "
                      f"{_fmt(self.unit_costs[1])} per {b})")
        ax.set_ylabel("power")
        ax.set_ylim(-0.02, 1.02)
        first = next(p for p in self.plans if p is not None)
        given = _pairs({k: v for k, v in first.params.items() if k != a})
        head = (f"{first.criterion} on {first.scenario}" + (f" ({given})" if given else "")
                + f": the most power a budget buys, {a} "
                + ("searched" if self.searched else "on a grid") + f", {b} solved for power "
                f"{self.target:g} at alpha {first.alpha:g}")
        ax.set_title("\n".join(textwrap.wrap(head, 90)), fontsize=9)
        ax.legend(fontsize=8, loc="lower right")
        ax.grid(alpha=0.3)
        return ax.figure


def plan_cost(scenario, criterion, *, sizes: Sequence, values: Sequence | None = None,
              unit_costs: Sequence = (1.0, 1.0), power: float = 0.8, alpha: float = 0.05,
              params: Mapping | None = None, null: Mapping | None = None, high: int = 4096,
              budgets: Sequence | None = None, seed: int = 0, **options) -> CostPlan:
    """The cheapest design with two integer sizes that reaches a target power, and the
    frontier of power against cost.

    The cost of a design is ``unit_costs[0] * a + unit_costs[1] * b`` for sizes ``(a, b)``
    (groups of two samples, runs and data sets, clusters and items per cluster...). For each
    `a` of `values`, :func:`plan` solves the smallest `b` with the target power, with its
    interval; the cheapest of these designs is the answer, and the cost interval of each
    (from the interval on `b`) says how sure the ranking is. The frontier: for each budget,
    the highest power any of these designs reaches for that cost, read off the plans'
    fitted curves.

    Without `values`, `a` is solved as well: it doubles from 2 until the cost has risen at two
    values past the cheapest (or `b` has reached its lowest value, or `a` passes `high`), then
    a ternary search over the integers between the cheapest's neighbours narrows it to three
    consecutive values, or to +-`tol` (10%) of it, or until its two new designs are both as
    cheap as the cheapest within their cost intervals. Near the optimum the cost is flat, so several
    designs are as cheap within their cost intervals: `best` is the cheapest solved, and
    ``as_cheap`` in `designs` marks those whose cost interval reaches the cheapest's cost.

    Parameters
    ----------
    scenario : str or Scenario subclass
        As in :func:`plan`.
    criterion : str or callable
        As in :func:`plan`.
    sizes : pair of str
        The two integer parameters: the first takes each of `values`, the second is solved.
    values : sequence of int, optional
        Values of the first size; default: the first size is solved too.
    unit_costs : pair of float
        The cost of one unit of each size, both > 0.
    power, alpha : float
        As in :func:`plan`.
    params, null : mapping, optional
        As in :func:`plan` (the effect to detect, other fixed parameters).
    high : int
        The largest size tried: a first size at which the power cannot reach the target
        with the second up to `high` is reported as not reached; the first size's search
        stops there too.
    budgets : sequence of float, optional
        Costs at which to read the frontier (default: 12 from half the cheapest design's
        cost to twice it).
    seed : int
        Root seed of every plan.
    **options
        Passed to :func:`plan` (``tol``, ``max_reps``, ``n_jobs``, ``backend``...).

    Returns
    -------
    CostPlan

    Raises
    ------
    ValueError
        Sizes that are not two distinct parameters, an empty `values`, a cost not positive,
        or no value of the first size at which the target is reached.

    Examples
    --------
    Two groups where a run of B costs four of A: the cheapest design has about twice A's
    runs (the optimal ratio ``n_a / n_b = sqrt(c_b / c_a)``).

    >>> import evalmc
    >>> res = evalmc.plan_cost("normal", "student-t", sizes=("n_a", "n_b"),
    ...                        values=[12, 16, 24, 48], unit_costs=(1, 4),
    ...                        params={"shift": 1.0}, seed=1)
    >>> print(res.designs[["n_a", "value", "ci_low", "ci_high", "cost"]].to_string(index=False))
     n_a  value  ci_low  ci_high  cost
      12     28      27       29 124.0
      16     18      16       19  88.0
      24     14      13       14  80.0
      48     10      10       10  88.0
    """
    sizes, values, costs, high = _plan_cost_iv(sizes, values, unit_costs, high)
    a, b = sizes

    def solve_second(v):
        return plan(scenario, criterion, solve=b, power=power, alpha=alpha,
                    params={**(params or {}), a: v}, null=null, high=high, seed=seed, **options)

    design = _CostDesigns(solve_second, sizes, costs)
    if values is not None:
        for v in values:
            design(v)
    else:
        _search_first(design, high, options.get("tol") or TOL["integer"])
    designs, plans = design.table()
    reached = designs[designs["reached"]]
    if reached.empty:
        raise ValueError(f"the power reaches {power:g} at no value of `{a}` with `{b}` up to "
                         f"{high} (`high`): raise `high` or give larger `values`.")
    best_row = reached.sort_values(["cost", "cost_high", a], kind="stable").iloc[0]
    best = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in best_row.items()}
    designs["as_cheap"] = designs["reached"] & (designs["cost_low"] <= best["cost"])
    best["as_cheap"] = True
    if budgets is None:
        budgets = np.geomspace(best["cost"] / 2, best["cost"] * 2, 12)
    frontier = _frontier(designs, plans, sizes, costs, budgets)
    return CostPlan(sizes, costs, float(power), designs, best, frontier, plans,
                    values is None)


def _plan_cost_iv(sizes, values, unit_costs, high):
    """:func:`plan_cost`'s own inputs checked: ``(sizes, values, costs, high)``."""
    sizes = tuple(sizes)
    if len(sizes) != 2 or sizes[0] == sizes[1] or not all(isinstance(s, str) for s in sizes):
        raise ValueError(f"`sizes` must name two different parameters; got {sizes!r}.")
    if values is not None:
        values = [check_int("values", v, low=1) for v in values]
        if not values:
            raise ValueError("`values` must hold at least one value of the first size.")
    costs = tuple(check_float("unit_costs", c, low=0, open_low=True) for c in unit_costs)
    if len(costs) != 2:
        raise ValueError(f"`unit_costs` must hold two costs; got {unit_costs!r}.")
    return sizes, values, costs, check_int("high", high, low=2)


class _CostDesigns:
    """The designs of :func:`plan_cost` solved so far; called with a value of the first size,
    solves the second there (once) and returns the design's row."""

    def __init__(self, solve, sizes, costs):
        self.solve, self.sizes, self.costs = solve, sizes, costs
        self.solved: dict = {}  # value of the first size -> (row of designs, plan or None)

    def __call__(self, v) -> dict:
        if v not in self.solved:
            self.solved[v] = self._design(v)
        return self.solved[v][0]

    def _design(self, v) -> tuple:
        """``(row, plan)`` at ``a = v``; ``(row of NaN, None)`` where the target is not reached."""
        a, b = self.sizes
        try:
            res = self.solve(v)
        except UnreachableTarget as err:
            return {a: v, "value": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                    "cost": np.nan, "cost_low": np.nan, "cost_high": np.nan,
                    "power": np.nan, "n_reps": err.n_reps, "reached": False}, None
        if res.kind != "integer":
            raise ValueError(f"`sizes` must name integer parameters; `{b}` is an effect.")
        costs = self.costs
        return {a: v, "value": res.value, "ci_low": res.ci_low, "ci_high": res.ci_high,
                "cost": costs[0] * v + costs[1] * res.value,
                "cost_low": costs[0] * v + costs[1] * res.ci_low,
                "cost_high": costs[0] * v + costs[1] * res.ci_high,
                "power": res.power, "n_reps": res.n_reps, "reached": True}, res

    def table(self) -> tuple:
        """The designs in order of the first size, as a frame, and their plans."""
        order = sorted(self.solved)
        designs = pd.DataFrame([self.solved[v][0] for v in order]).astype(
            {"value": "Int64", "ci_low": "Int64", "ci_high": "Int64"})
        return designs, [self.solved[v][1] for v in order]


def _search_first(design, high, tol) -> None:
    """Search the first size of :func:`plan_cost` (`design(v)` solves the second there and
    returns its row): doubling from 2, then a ternary search about the cheapest."""
    def cost(v):
        row = design(v)
        return row["cost"] if row["reached"] else math.inf

    grid, v = [], 2
    while v <= high:
        grid.append(v)
        row = design(v)
        best = min(grid, key=cost)
        if row["reached"] and (row["value"] <= 1 or sum(cost(g) > cost(best)
                                                         for g in grid[grid.index(best):]) >= 2):
            break
        v *= 2
    if math.isinf(cost(best)):
        return
    i = grid.index(best)
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    while hi - lo > 2 and (hi - lo) / 2 > tol * best:
        m1, m2 = lo + (hi - lo) // 3, hi - (hi - lo) // 3
        best = min([best, m1, m2], key=cost)
        if all(design(m)["cost_low"] <= cost(best) for m in (m1, m2)):
            break  # both as cheap as the cheapest within their intervals: no direction is sure
        if cost(m1) <= cost(m2):
            hi = m2
        else:
            lo = m1


def _frontier(designs, plans, sizes, costs, budgets) -> pd.DataFrame:
    """For each budget, the design of highest fitted power that costs at most that."""
    a, b = sizes
    frontier = []
    for budget in budgets:
        top = (np.nan, None, None)
        for v, res in zip(designs[a], plans, strict=True):
            if res is None:
                continue
            n_b = math.floor((budget - costs[0] * v) / costs[1] + 1e-9)
            if n_b < 1:
                continue
            pw = (float(res.curve([n_b])[0]) if np.isfinite(res.fit["b0"])
                  else float(n_b >= res.value))
            if not pw <= top[0]:  # NaN-safe: the first feasible design counts
                top = (pw, int(v), n_b)
        frontier.append({"budget": float(budget), "power": top[0], a: top[1], b: top[2]})
    return pd.DataFrame(frontier)


@dataclass(frozen=True)
class _PlanInputs:
    """The inputs of :func:`plan`, checked and normalised by :func:`_plan_iv`."""

    name: str
    scenario: type
    crit: object
    solve: str
    kind: str
    power: float
    alpha: float
    params: dict
    null: dict
    tie: list
    low: float
    high: float
    tol: float
    max_reps: int

    def cond(self, x, extra=None) -> dict:
        """The scenario's parameters at ``solve = x`` (and the tied ones), `extra` on top."""
        values = {**self.params, self.solve: x, **{k: x for k in self.tie}}
        values.update(extra or {})  # the null of an effect sets the effect itself
        return values


def _plan_iv(scenario, criterion, solve, power, alpha, params, null, tie, low, high, tol,
             max_reps) -> _PlanInputs:
    """Check :func:`plan`'s inputs, each error naming its input, before any replication runs;
    the first condition and its null are built to check their values too."""
    from evalmc.criteria import get_criterion
    from evalmc.study.design import Design

    scenario, name = _scenario_iv(scenario)
    crit = get_criterion(criterion)
    check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    check_float("power", power, low=0, high=1, open_low=True, open_high=True)
    if power <= alpha:
        raise ValueError(f"`power` must exceed `alpha` ({alpha:g}); got {power:g}.")
    max_reps = check_int("max_reps", max_reps, low=2 * START_REPS)
    defaults = _defaults(scenario, name)
    kind = _kind_iv(solve, defaults, name)
    params = _params_iv(params, solve, defaults, name)
    tie = _tie_iv(tie, solve, kind, params, defaults, name)
    null = _null_iv(null, solve, kind, params, tie, defaults, name)
    tol = TOL[kind] if tol is None else check_float("tol", tol, low=0, high=1,
                                                    open_low=True, open_high=True)
    low, high = _bounds(kind, low, high)
    iv = _PlanInputs(name, scenario, crit, solve, kind, power, alpha, params, null, tie, low,
                     high, tol, max_reps)
    for extra in (None, null):  # names and values at once
        Design.build({k: [v] for k, v in iv.cond(low, extra).items()}, scenario)
    return iv


def _scenario_iv(scenario) -> tuple:
    """The scenario class and its name, from a name or a class."""
    from evalmc.sims import get_scenario
    from evalmc.sims.base import Scenario

    name = scenario if isinstance(scenario, str) else getattr(scenario, "name", None)
    if isinstance(scenario, str):
        scenario = get_scenario(scenario)
    if not (isinstance(scenario, type) and issubclass(scenario, Scenario)):
        raise ValueError(f"`scenario` must be a scenario name or class; got {scenario!r}.")
    return scenario, name or scenario.__name__


def _defaults(scenario, name) -> dict:
    """The scenario's parameters and their defaults (the registry's, for a registered one)."""
    from evalmc.sims import SCENARIOS

    if name in SCENARIOS and SCENARIOS[name].load() is scenario:
        return {p.name: p.default for p in SCENARIOS[name].params}
    return {p.name: p.default for p in scenario.parameters()}


def _kind_iv(solve, defaults, name) -> str:
    """'integer' or 'effect': the kind of the parameter solved."""
    if solve not in defaults:
        raise ValueError(f"`solve` must be a parameter of scenario {name!r}: "
                         f"{', '.join(defaults)}; got {solve!r}.")
    kinds = {int: "integer", float: "effect"}
    if type(defaults[solve]) not in kinds:
        raise ValueError(f"`solve` must be a numeric parameter; {solve!r} of scenario "
                         f"{name!r} is a {type(defaults[solve]).__name__}.")
    return kinds[type(defaults[solve])]


def _params_iv(params, solve, defaults, name) -> dict:
    """The fixed parameters as a dict: known, one value each, not the one solved."""
    params = dict(params or {})
    if not isinstance(params, Mapping):
        raise ValueError(f"`params` must be a mapping of name to one value; got {params!r}.")
    for key, value in params.items():
        if key not in defaults:
            raise ValueError(f"unknown parameter `{key}` for scenario {name!r}; valid "
                             f"parameters: {', '.join(defaults)}.")
        if isinstance(value, (list, tuple, np.ndarray)):
            raise ValueError(f"`params` takes one value per parameter; got {key}={value!r}.")
    if solve in params:
        raise ValueError(f"`{solve}` is the parameter solved: leave it out of `params` (give "
                         "`low` to start the search elsewhere).")
    return params


def _tie_iv(tie, solve, kind, params, defaults, name) -> list:
    """The tied parameters as a list: integer ones, other than `solve` and `params`'."""
    tie = [tie] if isinstance(tie, str) else list(tie)
    for key in tie:
        if (key not in defaults or type(defaults[key]) is not int or key == solve
                or key in params):
            raise ValueError(f"`tie` must name integer parameters of scenario {name!r} other "
                             f"than `{solve}` and those of `params`; got {key!r}.")
    if kind == "effect" and tie:
        raise ValueError("`tie` goes with an integer parameter solved, not an effect.")
    return tie


def _null_iv(null, solve, kind, params, tie, defaults, name) -> dict:
    """The null's overrides as a dict (default: the effect parameter at its default), which
    must differ from the alternative when a size is solved."""
    if null is None:
        effect = next((e for e in EFFECTS if e in defaults), None)
        if effect is None:
            raise ValueError(f"scenario {name!r} has no `shift` or `delta` parameter: give "
                             "`null`, the parameters of its null condition (e.g. "
                             "null={'mean_a': 0.0}).")
        null = {effect: defaults[effect]}
    null = dict(null)
    for key in null:
        if key not in defaults or key == solve and kind == "integer" or key in tie:
            raise ValueError(f"`null` must name parameters of scenario {name!r} other than "
                             f"`{solve}`; got {key!r}.")
    if kind == "integer" and all(params.get(k, defaults[k]) == v for k, v in null.items()):
        raise ValueError(f"the alternative is the null ({_pairs(null)}): give the effect to "
                         f"detect in `params` (e.g. {next(iter(null))}=0.5).")
    return null


def _bounds(kind, low, high):
    """`low` and `high` checked, with their defaults."""
    if kind == "integer":
        low = 2 if low is None else low
        for label, v in (("low", low), ("high", high)):
            if v is not None and (isinstance(v, bool) or not float(v).is_integer() or v < 1):
                raise ValueError(f"`{label}` must be a positive integer for an integer "
                                 f"parameter; got {v!r}.")
        low = int(low)
        high = 2 ** 20 if high is None else int(high)
    else:
        low = 0.1 if low is None else check_float("low", low, low=0, open_low=True)
        high = low * 2 ** 20 if high is None else check_float("high", high, low=0,
                                                              open_low=True)
    if high <= low:
        raise ValueError(f"`high` must exceed `low` ({_fmt(low)}); got {_fmt(high)}.")
    return low, high


class _Power:
    """The power function of :func:`plan`: the criterion's rejections at a value of the solved
    parameter, one condition of the engine; under the null, its size."""

    def __init__(self, iv: _PlanInputs, *, seed, n_jobs, backend, cache, progress):
        self.iv, self.seed, self.n_jobs, self.backend = iv, seed, n_jobs, backend
        self.cache, self.progress = cache, progress

    def __call__(self, x, reps, extra=None, stream=0) -> tuple:
        """``(rejections, valid replications, replications run, summary row)`` at ``solve =
        x`` on `reps` replications (`extra`: the null's parameters on top; `stream` > 0: the
        replications of a seed of their own, :func:`_stream_seed`, that the search never saw)."""
        from evalmc.study.design import Design
        from evalmc.study.rates import run_study

        iv = self.iv
        seed = _stream_seed(self.seed, stream) if stream else self.seed
        design = Design.build({k: [v] for k, v in iv.cond(x, extra).items()}, iv.scenario)
        res = run_study(design, iv.scenario, [iv.crit], n_reps=reps, seed=seed,
                        alpha=(iv.alpha,), block_size=START_REPS, n_jobs=self.n_jobs,
                        backend=self.backend, cache=self.cache, progress=self.progress)
        row = res.summary.iloc[0]
        valid = int(row["n_reps"] - row["n_failed"])
        if valid == 0:
            raise ValueError(f"{iv.crit.name} failed on every replication at "
                             f"{iv.solve}={_fmt(x)}.")
        return int(round(row["rate"] * valid)), valid, reps, row

    def size(self, x, reps):
        """The summary row of the null condition at ``solve = x``: the size, its verdict."""
        return self(x, reps, self.iv.null)[3]


class _Search:
    """The search of :func:`plan` (the module's algorithm) on a power function; `seen` holds
    the evaluated points, value -> ``(rejections, valid reps, reps run, summary row)``."""

    def __init__(self, iv: _PlanInputs, power: _Power):
        self.iv, self.power = iv, power
        self.seen: dict = {}
        self.notes: list[str] = []
        self.failed: list = []  # integer values passed over while bracketing
        self.fresh_reps: list = []  # replications of each fresh measure at the answer

    def run(self) -> None:
        """Bracket, refine, confirm the answer (a sawtooth's next tooth), then its size."""
        iv = self.iv
        self.bracket()
        if all(_rate(s) >= iv.power for s in self.seen.values()):  # reached at `low` already
            self.converged, self.fit, est = True, _fallback_fit(iv.kind), (iv.low,) * 3
        else:
            self.converged, self.fit, est = self.refine()
        self._answer(est)
        self.confirm()
        if (iv.kind == "integer" and self.converged
                and _above(self._evidence(), iv.power, below=True)):
            self.sawtooth()
        self.size_row = self.power.size(self.value, max(self.per_point, SIZE_REPS))

    def result(self) -> PlanResult:
        """The plan, once :meth:`run`."""
        iv, row = self.iv, self.size_row
        spent = self.spent() + max(self.per_point, SIZE_REPS) + self.fit.pop("ceiling_reps")
        pw, pw_se = _rate_se(*self.at[:2])
        if self.at[0] in (0, self.at[1]):
            self.notes.append(_certain_note(iv.solve, self.value, *self.at[:2]))
        self.notes.extend(_size_notes(iv, row, self.value))
        return PlanResult(iv.name, iv.crit.name, iv.solve, iv.kind, float(iv.power),
                          float(iv.alpha), self.value, self.ci_low, self.ci_high, pw, pw_se,
                          float(row["rate"]), float(row["mcse"]), str(row["bradley"]),
                          int(spent), self.converged, _points_frame(self.seen, iv.solve),
                          self.fit, iv.params, iv.null, self.notes, iv.tie)

    def point(self, x, reps) -> tuple:
        """The point at `x` on `reps` replications at least: run (and kept) unless it was."""
        if self.seen.get(x, (0, 0, 0))[2] < reps:
            self.seen[x] = self.power(x, reps)
        return self.seen[x]

    def spent(self, ceiling=None) -> int:
        """Replications run so far: the points', the fresh ones at the answer, and the
        plateau's once measured."""
        return (sum(s[2] for s in self.seen.values()) + sum(self.fresh_reps)
                + (ceiling[3] if ceiling else 0))

    def bracket(self) -> None:
        """Double from `low` until the power reaches the target (an effect above it halves);
        an integer value where the criterion fails too often is passed over, in a note."""
        iv = self.iv
        x = iv.low
        power = self._start(x)
        if power >= iv.power and iv.kind == "integer":
            power = self._hold(x)
        if power >= iv.power:
            self._reached_at_low()
            return
        history = [power]
        checked = False
        while power < iv.power:
            if x >= iv.high:
                raise UnreachableTarget(
                    f"the power at {iv.solve}={_fmt(x)} (`high`) is {power:.3f}, below the "
                    f"target {iv.power:g}: raise `high`, or check the effect.", self.spent())
            if (not checked and len(history) >= 3 and power > 0.5
                    and power - history[-3] < 0.02):  # flat over two doublings: a plateau?
                self.plateau()  # raises if below the target
                checked = True
            x = min(_round(x * 2, iv.kind), iv.high)
            power = self._start(x)
            history.append(power)
        if self.failed:
            self.notes.append(f"the criterion failed too often at {iv.solve} = "
                              f"{', '.join(map(str, self.failed))} (degenerate samples): "
                              "passed over.")

    def _start(self, x) -> float:
        """The power at `x` on :data:`START_REPS`; -1 for an integer where it fails."""
        from evalmc.engine.scheduler import StudyError

        if self.iv.kind != "integer":
            return _rate(self.point(x, START_REPS))
        try:
            return _rate(self.point(x, START_REPS))
        except StudyError:
            self.failed.append(x)
            return -1.0

    def _hold(self, x) -> float:
        """The power at `x`, on doubling replications while it reaches the target, up to
        :func:`_min_reps` (a first estimate at or above the target, even of 1, is not enough
        to stop at `low`)."""
        reps = START_REPS
        while _rate(self.seen[x]) >= self.iv.power and reps < _min_reps(self.iv.power):
            reps *= 2
            self.point(x, reps)
        return _rate(self.seen[x])

    def _reached_at_low(self) -> None:
        """The target reached at `low`: said for an integer; an effect halves until it is not."""
        iv = self.iv
        if iv.kind == "integer":
            self.notes.append(f"the target is reached at the lowest value tried, "
                              f"{iv.solve}={iv.low}: the answer is at most that (give a "
                              "smaller `low`).")
            return
        x = iv.low
        for _ in range(20):
            x = _round(x / 2, iv.kind)
            if self._start(x) < iv.power:
                return
        raise ValueError(f"the power reaches {iv.power:g} even at {iv.solve}={_fmt(x)}: give "
                         "`low`.")

    def refine(self, ceiling=None) -> tuple:
        """Fit, evaluate near the crossing with doubling replications, refit, until precise:
        ``(converged, fit, (value, lo, hi))``. `ceiling`: :meth:`plateau`'s, once measured."""
        iv = self.iv
        reps = START_REPS
        while True:
            span = _span(self.seen, iv.power)
            fit, est = _estimate(self.seen, iv.kind, iv.power,
                                 ceiling[:2] if ceiling else (1.0, 0.0), span)
            measured = self._measure_ceiling(fit, est, ceiling)
            if measured is not None:
                ceiling = measured
                continue
            if fit is None:  # no monotone fit: bisect the bracket
                below, above = self._straddle()
                if iv.kind == "integer" and above - below <= 1:
                    return True, _fallback_fit(iv.kind), (above, above, above)
                nxt = [_round((below + above) / 2, iv.kind)]
            elif self._done(fit, est, reps):
                self._said(fit, ceiling)
                return True, fit, est
            else:
                nxt = _next_points(iv.kind, fit, est, iv.tol, iv.low)
                if not fit["local"]:
                    nxt = _within(nxt, est[0], span, iv.kind)
            reps *= 2
            if self._over_cap(nxt, reps, ceiling):
                return self._capped(fit, est, ceiling)
            for x in sorted(set(nxt)):
                self.point(x, reps)

    def _done(self, fit, est, reps) -> bool:
        """Whether the search may stop: an interval within the tolerance, from a local fit,
        after a round of :func:`_min_reps` per point at least, and no point at the answer or
        its ends measured as 0 or 1 where the curve is clearly not."""
        iv = self.iv
        return (_precise(iv.kind, *est, iv.tol) and reps >= _min_reps(iv.power)
                and fit["local"] and not self._certain_off(fit, est))

    def _certain_off(self, fit, est) -> bool:
        """Whether a point at the answer or its interval's ends measured as 1 (or 0) is clearly
        above (below) the fitted curve there: an estimate of 1 has an interval too, and the
        curve must fall in it."""
        from scipy.stats import norm

        for x in set(est):
            if x in self.seen and self.seen[x][0] in (0, self.seen[x][1]):
                u = math.log(x) if self.iv.kind == "integer" else x
                p = fit["ceiling"] * norm.cdf(fit["b0"] + fit["b1"] * u)
                if _above(self.seen[x], p) or _above(self.seen[x], p, below=True):
                    return True
        return False

    def _measure_ceiling(self, fit, est, ceiling):
        """The plateau measured when the fit calls for it, else None: once a point falls short
        or the crossing is unconfirmed, again (an effect's) when its error dominates."""
        if fit is None:
            return None
        if ceiling is None:
            return self.plateau() if self._falls_short(fit) or self._unconfirmed(est) else None
        iv = self.iv
        if (iv.kind == "effect" and ceiling[0] < 1 and not _precise(iv.kind, *est, iv.tol)
                and fit["ceiling_half"] ** 2 > fit["half"] ** 2 / 2
                and self.spent(ceiling) + ceiling[3] + SIZE_REPS <= iv.max_reps):
            # (a size's power often overshoots its plateau, a sawtooth, where it would not help)
            return self.plateau(ceiling[2], 2 * ceiling[3])
        return None

    def _straddle(self) -> tuple:
        """The largest value below the target and the smallest above it past that."""
        target = self.iv.power
        below = max(x for x, s in self.seen.items() if _rate(s) < target)
        above = min(x for x, s in self.seen.items() if _rate(s) >= target and x > below)
        return below, above

    def _over_cap(self, nxt, reps, ceiling) -> bool:
        """Whether evaluating `nxt` on `reps` each, then the size, would pass `max_reps`."""
        extra = sum(reps - self.seen.get(x, (0, 0, 0))[2] for x in set(nxt))
        return self.spent(ceiling) + extra + reps + max(reps, SIZE_REPS) > self.iv.max_reps

    def _capped(self, fit, est, ceiling) -> tuple:
        """Stop at the cap, saying so: ``(False, fit, est)``; an error without a fit."""
        iv = self.iv
        if fit is None:
            raise ValueError(f"no power curve could be fitted within `max_reps` "
                             f"({iv.max_reps}) replications.")
        self._said(fit, ceiling)
        self.notes.append(f"stopped at the cap of {iv.max_reps:,} replications before the "
                          f"interval reached the tolerance (+-{iv.tol:.0%}); raise `max_reps`.")
        return False, fit, est

    def _said(self, fit, ceiling) -> None:
        """Record the plateau's replications in `fit`; a level below 1 is said in a note."""
        fit["ceiling_reps"] = ceiling[3] if ceiling else 0
        if ceiling and ceiling[0] < 1:
            self.notes.append(f"the power levels off below 1: {ceiling[0]:.4f} (MCSE "
                              f"{ceiling[1]:.4f}, {ceiling[3]:,} replications) at "
                              f"{self.iv.solve}={_fmt(ceiling[2])}; the curve is fitted with "
                              "that ceiling.")

    def _falls_short(self, fit) -> bool:
        """Whether a point where the curve (local, or fitted on every point) reaches the target
        is clearly short of it (binomial tail < 1e-3, 0.01 short): a sign of a plateau."""
        from scipy.stats import binom, norm

        _, u, k, n = _arrays(self.seen, self.iv.kind)
        curves = [(fit["b0"], fit["b1"])]
        whole = _probit(u, k, n)  # on every point: the local fit may not reach the flat part
        if whole is not None:
            curves.append(whole[0])
        for b0, b1 in curves:
            p = fit["ceiling"] * norm.cdf(b0 + b1 * u)
            above = p >= self.iv.power
            if np.any(above & (p - k / n > 0.01) & (binom.cdf(k, n, p) < 1e-3)):
                return True
        return False

    def _unconfirmed(self, est) -> bool:
        """Whether the power at the answer or its low end (refined) is above the target by
        three MCSEs, or at the high end below it: the points do not cross where the fit does."""
        value, lo, hi = est
        seen, target = self.seen, self.iv.power
        return any(x in seen and seen[x][1] >= 2 * START_REPS and _above(seen[x], target, below)
                   for x, below in ((lo, False), (value, False), (hi, True)))

    def plateau(self, where=None, reps=PLATEAU_REPS) -> tuple:
        """The power far above the bracket: ``(level, MCSE, where, replications)``, level 1
        when within three MCSEs of it; raises when not clearly above the target."""
        from evalmc.stats.mcse import rate_mcse

        iv = self.iv
        reps = max(reps, _min_reps(iv.power))
        if where is None:  # four times the bracket's top for a size, twice for an effect
            where = _round(max(self.seen) * (4 if iv.kind == "integer" else 2), iv.kind)
        k, n = self.power(where, reps)[:2]
        level, se = (float(v) for v in rate_mcse(k, n))
        se = max(se, 0.5 / n)  # never zero: all rejections still leave 1/n of doubt
        if level - 3 * se <= iv.power:
            raise UnreachableTarget(
                f"the power levels off at {level:.4f} (MCSE {se:.4f}, at {iv.solve}="
                f"{_fmt(where)}, {n:,} replications), not clearly above the target `power` "
                f"{iv.power:g}: no {iv.solve} is sure to reach it. Lower `power`, or give a "
                "larger effect.", self.spent() + n)
        if level + 3 * se >= 1:
            return 1.0, 0.0, where, n
        return level, se, where, n

    def _answer(self, est) -> None:
        """Take `est` as the answer: measure the power there as well as any point, and again
        on replications of its own (:meth:`fresh`), the power reported."""
        self.value, self.ci_low, self.ci_high = est
        self.per_point = max(s[2] for s in self.seen.values())
        self.point(self.value, max(self.per_point, START_REPS))
        self.at = self.fresh(self.value)

    def fresh(self, x) -> tuple:
        """The power at `x` on as many replications as the answer's point, from a stream of
        their own (a new one at each call): the search chose `x` by its points, whose power
        there it overstates or understates; these it never saw."""
        reps = self.seen[x][2]
        self.fresh_reps.append(reps)
        return self.power(x, reps, stream=len(self.fresh_reps))

    def _evidence(self) -> tuple:
        """The answer's point and its fresh confirmation pooled: ``(rejections, valid)``."""
        point = self.seen[self.value]
        return point[0] + self.at[0], point[1] + self.at[1]

    def confirm(self) -> None:
        """Where the power at the answer is above the target by three MCSEs, measure the
        plateau: refine again below a ceiling under 1, or say the curve misses the points."""
        iv, fit = self.iv, self.fit
        if not (np.isfinite(fit["b0"]) and not fit["ceiling_reps"]
                and _above(self._evidence(), iv.power)):
            return
        ceiling = self.plateau()
        if ceiling[0] < 1:
            self.converged, self.fit, est = self.refine(ceiling)
            self._answer(est)
        else:
            fit["ceiling_reps"] = ceiling[3]
            self.notes.append(f"the power at {iv.solve}={_fmt(self.value)} is "
                              f"{_rate(self._evidence()):.4f}, above the target by more than "
                              "three MCSEs: the fitted curve does not describe the points near "
                              "it (see `points`).")

    def sawtooth(self) -> None:
        """A discrete test's sawtooth, the answer's power clearly short of the target: step up
        to the next value that reaches it (at most :data:`SAWTOOTH_STEPS`)."""
        solve, power = self.iv.solve, self.iv.power
        first, reps, short = self.value, self.at[2], _rate(self._evidence())
        for _ in range(SAWTOOTH_STEPS):
            self.value += 1
            if not _above(self.point(self.value, reps), power, below=True):
                break
        else:
            self.converged = False
        self.at = self.fresh(self.value)
        self.ci_high = max(self.ci_high, self.value)
        self.notes.append(f"the power is not monotone in {solve} (a sawtooth): at {solve}="
                          f"{first} it is {short:.4f}, below the target by "
                          "more than three MCSEs; " + (
                              f"{solve}={self.value} is the next value that reaches it."
                              if self.converged else f"none of the {SAWTOOTH_STEPS} values "
                              f"after it reaches it (the last, {self.value}, is given)."))


def _size_notes(iv: _PlanInputs, row, value) -> list:
    """What the size at the answer says of the plan: a null that is not one, a liberal or
    conservative criterion, a size above alpha."""
    notes = []
    if row["truth"] != "null":
        notes.append(f"the null condition ({_pairs(iv.null)}) is not a null of the scenario "
                     f"(truth: {row['truth']}); give `null`.")
    at = f"the size at {iv.solve}={_fmt(value)} is {row['rate']:.4f}"
    bradley = str(row["bradley"])
    if bradley == "liberal":
        notes.append(f"{at} (Bradley: liberal): part of this power is false positives; the "
                     "plan is not to be trusted with this criterion.")
    elif bradley not in ("robust", "conservative") and row["ci_low"] > iv.alpha:
        notes.append(f"{at} (95% interval from {row['ci_low']:.4f}), above alpha "
                     f"{iv.alpha:g}: part of this power is false positives.")
    elif bradley == "conservative":
        notes.append(f"{at} (Bradley: conservative): a calibrated criterion would need less.")
    return notes


def _above(entry, target, below=False) -> bool:
    """Whether the power of a point is above `target` (or, `below`, under it) by more than
    three MCSEs: its binomial tail at `target` is below three normal sds' (0.00135). Exact,
    as near a power of 1 (or 0) the normal approximation fails, and an estimate of 1 has no
    MCSE of its own."""
    from scipy.stats import binom

    k, n = entry[:2]
    tail = binom.cdf(k, n, target) if below else binom.sf(k - 1, n, target)
    return bool(tail < _TAIL3)


def _min_reps(target) -> int:
    """Replications per point of the last round, at least: :data:`MIN_REPS`, or enough to
    expect :data:`MIN_FAILURES` of the rarer outcome at the target."""
    return max(MIN_REPS, math.ceil(MIN_FAILURES / min(target, 1 - target)))


def _stream_seed(seed, stream) -> int:
    """The root seed of replications of their own: numpy's ``SeedSequence(seed, spawn_key=
    (_STREAM_KEY, stream))``, as independent of the search's as two spawned streams."""
    return int(np.random.SeedSequence(seed, spawn_key=(_STREAM_KEY, stream))
               .generate_state(1, np.uint64)[0])


def _rate_se(k, n) -> tuple:
    """A rate and its MCSE, ``sqrt(p (1 - p) / n)``; at 0 or 1, where that is 0, the half-width
    of the 95% Wilson interval over 1.96 (about 1/n: the error an estimate of 1 still has)."""
    from evalmc.stats.mcse import rate_mcse, wilson_interval

    rate, se = (float(v) for v in rate_mcse(k, n))
    if k in (0, n):
        lo, hi = wilson_interval(k, n)
        se = float(hi - lo) / (2 * _Z)
    return rate, se


def _certain_note(solve, value, k, n) -> str:
    """What a power measured as 0 or 1 says: its 95% Wilson interval."""
    from evalmc.stats.mcse import wilson_interval

    lo, hi = (float(v) for v in wilson_interval(k, n))
    return (f"the power at {solve}={_fmt(value)} is {k / n:g} on {n:,} replications: its 95% "
            f"interval is [{lo:.4f}, {hi:.4f}], not a point.")


def _precise(kind, value, lo, hi, tol) -> bool:
    """Whether the interval ``[lo, hi]`` is within the tolerance (a size's: or three values)."""
    if kind == "integer":
        return hi - lo <= 2 or (hi - lo) / 2 <= tol * value
    return (hi - lo) / 2 <= tol * value


def _next_points(kind, fit, est, tol, low=1):
    """The next round's points: the crossing and its interval's ends, at least a unit or the
    tolerance apart (a size's: at most a factor 2, and not below `low`)."""
    value, lo, hi = est
    u = fit["u"]
    half = max(fit["half"], math.log1p(tol) if kind == "integer" else tol * abs(u))
    if kind == "integer":
        half = min(half, math.log(2))
        pts = {value, _round(math.exp(u - half), kind), _round(math.exp(u + half), kind)}
        if len(pts) < 3:
            pts |= {max(1, value - 1), value + 1}
        pts = {max(x, low) for x in pts}
    else:
        pts = {_round(u, kind), _round(u - half, kind), _round(u + half, kind)}
    return [p for p in pts if p > 0]


def _span(seen, target) -> tuple:
    """Where the points cross the target: the largest value whose power is below it and the
    smallest past that at or above it (-inf and inf where there is none)."""
    below = max((x for x, s in seen.items() if _rate(s) < target), default=-math.inf)
    above = min((x for x, s in seen.items() if _rate(s) >= target and x > below),
                default=math.inf)
    return below, above


def _within(pts, value, span, kind) -> list:
    """The next points as they are where the crossing `value` is inside `span`; else (a curve
    fitted far from the crossing extrapolates, as near a power of 1) moved into it, with its
    middle."""
    below, above = span
    if below < value <= above or not (math.isfinite(below) and math.isfinite(above)):
        return pts
    mid = math.sqrt(below * above) if kind == "integer" else (below + above) / 2
    return sorted({min(max(x, below), above) for x in pts} | {_round(mid, kind)})


def _estimate(seen, kind, target, ceiling=(1.0, 0.0), span=(-math.inf, math.inf)):
    """The probit fit and ``(crossing, lo, hi)``, its 95% profile-likelihood interval, or
    ``(None, None)``; `ceiling`, the power's level and its MCSE, widens the interval. The fit
    is local (:func:`_refit_near`), first centred on the crossing of the fit on every point,
    or on the nearest end of `span` (:func:`_span`) when that is outside."""
    from scipy.stats import norm

    c, c_se = ceiling
    xs, u, k, n = _arrays(seen, kind)
    fit = _probit(u, k, n, c)
    if fit is None:
        return None, None
    z = norm.ppf(target / c)
    lims = np.log(span) if kind == "integer" else span
    fit, used, local = _refit_near(fit, u, k, n, c, z, kind, lims)
    (b0, b1), cov = fit
    ustar = (z - b0) / b1
    grad = np.array([-1 / b1, -(z - b0) / b1 ** 2])
    dc = -target / c ** 2 / norm.pdf(z) / b1  # d u* / d c
    se = math.sqrt(max(float(grad @ cov @ grad), 0.0))
    half = _Z * math.sqrt(se ** 2 + (dc * c_se) ** 2)
    ends = [ustar + math.copysign(math.hypot(e - ustar, _Z * dc * c_se), e - ustar)
            for e in _profile_ends(u[used], k[used], n[used], c, z, (b0, b1), se)]
    info = {"b0": float(b0), "b1": float(b1), "scale": "log" if kind == "integer" else "linear",
            "cov": cov, "u": float(ustar), "half": half, "ceiling_half": _Z * abs(dc * c_se),
            "fitted_on": [float(xs[used].min()), float(xs[used].max())], "ceiling": c,
            "ceiling_mcse": c_se, "local": local}
    if kind == "integer":
        if not (ustar < 50 and ends[1] < 50):
            return None, None
        value = max(1, math.ceil(math.exp(ustar) - 1e-9))
        return info, (value, max(1, math.ceil(math.exp(ends[0]) - 1e-9)),
                      math.ceil(math.exp(ends[1]) - 1e-9))
    value = _round(ustar, kind)
    return info, (value, _round(ends[0], kind), _round(ends[1], kind))


def _profile_ends(u, k, n, c, z, beta, se) -> list:
    """The 95% profile-likelihood interval of the crossing ``u* = (z - b0) / b1``: where the
    deviance, maximised over the slope at each ``u*``, reaches 1.96 ** 2. Unlike the delta
    method's it is as skewed as the likelihood, which with few misses near a power of 1 (or
    few rejections near 0) it is; searched within eight of the delta method's `se`."""
    from scipy.optimize import brentq, minimize_scalar

    b0, b1 = beta
    ustar, top = (z - b0) / b1, _loglik(b0 + b1 * u, k, n, c)

    def deviance(at):  # minus the level: its roots are the ends
        res = minimize_scalar(lambda lb: -_loglik(z + math.exp(lb) * (u - at), k, n, c),
                              bounds=(math.log(b1) - 4, math.log(b1) + 4), method="bounded")
        return 2 * (top + res.fun) - _Z ** 2

    ends = []
    for far in (ustar - 8 * se, ustar + 8 * se):
        ends.append(far if not se > 0 or deviance(far) <= 0 else brentq(deviance, ustar, far,
                                                                         xtol=1e-6 * se))
    return ends


def _loglik(eta, k, n, c) -> float:
    """The binomial log-likelihood of `k` in `n` at power ``c * Phi(eta)``."""
    from scipy.stats import norm

    if c == 1:
        return float(np.sum(k * norm.logcdf(eta) + (n - k) * norm.logsf(eta)))
    mu = np.clip(c * norm.cdf(eta), 1e-300, 1 - 1e-16)
    return float(np.sum(k * np.log(mu) + (n - k) * np.log1p(-mu)))


def _refit_near(fit, u, k, n, c, z, kind, lims) -> tuple:
    """Refit `fit` (on every point) near its crossing, twice (the crossing moves):
    ``(fit, used, local)``, `local` whether the last is on the window's points. The crossing
    of a fit on more points is first brought within `lims`, where the points cross; a refit
    whose crossing falls outside the points it is fitted on (a flat stretch of noise,
    extrapolated) is not taken."""
    used, local = np.ones(len(u), dtype=bool), False
    for _ in range(2):
        centre = (z - fit[0][0]) / fit[0][1]
        if not local:  # a fit on more points may extrapolate: start where the points cross
            centre = min(max(centre, lims[0]), lims[1])
        base, refit = _local_fit(u, k, n, c, centre, kind)
        if refit is None:
            break
        (b0, b1), _ = refit[0]
        if not u[refit[1]].min() <= (z - b0) / b1 <= u[refit[1]].max():
            break
        (fit, used), local = refit, base
    return fit, used, local


def _local_fit(u, k, n, c, ustar, kind):
    """The probit on the points near `ustar`, within :data:`_WINDOW` for a size (a factor
    1.5) or half of `ustar` for an effect: ``(base, (fit, used))``, `base` whether they are
    those of that window; where they carry no crossing (all rejected, or none: near a power
    of 1, every point there may reject), the window doubles until they do. ``(False, None)``
    with fewer than three points, or without a fit short of every point."""
    base = _WINDOW if kind == "integer" else 0.5 * abs(ustar)
    width = base
    while True:
        near = np.abs(u - ustar) <= width
        if near.sum() < 3:
            return False, None
        fit = _probit(u[near], k[near], n[near], c)
        if fit is not None:
            return width == base, (fit, near)
        if near.all():
            return False, None
        width *= 2


def _arrays(seen, kind):
    """The evaluated values in order, the scale the probit is fitted on (the log of a size),
    their rejections and valid replications, as float arrays."""
    xs = np.array(sorted(seen), dtype=float)
    k = np.array([seen[x][0] for x in sorted(seen)], dtype=float)
    n = np.array([seen[x][1] for x in sorted(seen)], dtype=float)
    return xs, (np.log(xs) if kind == "integer" else xs), k, n


def _probit(u, k, n, ceiling=1.0):
    """Binomial probit GLM ``ceiling * Phi(b0 + b1 u)`` of `k` in `n` by Fisher scoring:
    ``((b0, b1), cov)``, or None without an increasing curve."""
    from scipy.stats import norm

    if len(np.unique(u)) < 2:
        return None
    centre = float(np.average(u, weights=n))
    X = np.column_stack([np.ones_like(u), u - centre])
    p = np.clip((k + 0.5) / (n + 1) / ceiling, 1e-4, 1 - 1e-4)
    beta = np.linalg.lstsq(X * np.sqrt(n)[:, None], norm.ppf(p) * np.sqrt(n), rcond=None)[0]
    for _ in range(100):
        eta = X @ beta
        mu = np.clip(ceiling * norm.cdf(eta), 1e-12, 1 - 1e-12)
        dens = np.maximum(ceiling * norm.pdf(eta), 1e-300)
        w = n * dens ** 2 / (mu * (1 - mu))
        zwork = eta + (k / n - mu) / dens
        info = X.T @ (w[:, None] * X)
        try:
            new = np.linalg.solve(info, X.T @ (w * zwork))
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(new)) or abs(new[1]) > 1e4:
            return None
        done = np.max(np.abs(new - beta)) < 1e-10
        beta = new
        if done:
            break
    else:
        return None
    try:
        cov = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        return None
    if beta[1] <= 0:
        return None
    b0 = beta[0] - beta[1] * centre  # back to the scale of u
    T = np.array([[1.0, -centre], [0.0, 1.0]])
    return (b0, beta[1]), T @ cov @ T.T


def _fallback_fit(kind):
    """The fit of a plan without a curve (NaN coefficients)."""
    return {"b0": float("nan"), "b1": float("nan"), "ceiling_reps": 0,
            "scale": "log" if kind == "integer" else "linear", "cov": np.full((2, 2), np.nan),
            "u": float("nan"), "half": float("nan"), "ceiling_half": float("nan"),
            "fitted_on": [float("nan")] * 2,
            "ceiling": 1.0, "ceiling_mcse": 0.0}


def _points_frame(seen, solve):
    """The evaluated points as a frame, with Wilson intervals."""
    from evalmc.stats.mcse import wilson_interval

    rows = []
    for x in sorted(seen):
        k, n, reps = seen[x][:3]
        lo, hi = wilson_interval(k, n)
        rows.append({"value": x, "rejections": k, "n_reps": reps, "power": k / n,
                     "ci_low": float(lo), "ci_high": float(hi)})
    return pd.DataFrame(rows)


def _rate(entry) -> float:
    """A point's rejection rate among its valid replications."""
    return entry[0] / entry[1]


def _round(x, kind):
    """A value of the solved parameter: the integer at or above, or four significant digits."""
    if kind == "integer":
        return max(1, int(math.ceil(x - 1e-9)))
    return float(f"{x:.4g}")


def _fmt(v) -> str:
    """A value as the messages show it."""
    return f"{v:g}" if isinstance(v, float) else str(v)


def _pairs(mapping) -> str:
    """``key=value, ...``."""
    return ", ".join(f"{k}={_fmt(v)}" for k, v in mapping.items())


def _plain(value):
    """Nested dicts, lists and numpy scalars as plain Python values (for JSON)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
