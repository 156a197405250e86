"""Audit the tests and error bars of one evaluation, on data like its own.

:func:`audit` reads two models' item-level results (:func:`~evalmc.inputs.itemlogs.read_items`),
fits the generative model of :mod:`evalmc.sims.itemmodel` to them, and runs, on data drawn
from the fit:

- each procedure (a criterion) under the null, both models at the same expected score with
  everything else of the data kept: its size, with its Monte Carlo error and Bradley's
  verdict;
- each procedure under alternatives, A ahead of B by ``delta`` score points: its power
  (rejections of either sign, and of the right sign only), at the user's deltas and at a grid
  of multiples of the observed standard error, from which the minimum detectable difference
  at 80% power is read;
- each interval estimator of the difference: its coverage and mean width under the null;

then applies every procedure and interval to the data as observed, and judges each
procedure in one line.

Decisions of this module:

- **Replications**: :data:`NULL_REPS` under the null, so that a size near 5% has a Monte Carlo
  standard error of at most 0.003, and :data:`ALT_REPS` under each alternative (power's MCSE
  at most 0.011).
- **The grid of differences**: :data:`GRID` times the observed standard error of the mean
  difference, clustered when the data have clusters (the standard error a calibrated paired
  test works with); 2.8 of them is where a calibrated z-test reaches 80% power.
- **The minimum detectable difference** is interpolated linearly between the two
  differences of the power curve around 80%; its interval comes from the curve's pointwise 95%
  Wilson bounds (the interpolation's own error is not in it). Past the largest difference it is
  unknown (NaN), and the verdict says so.
"""

from __future__ import annotations

import os
import tempfile
import zlib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalmc.engine.options import AUDIT_ALT_REPS as ALT_REPS
from evalmc.engine.options import AUDIT_REPS as NULL_REPS
from evalmc.inputs.checks import check_choice, check_float, check_int
from evalmc.study.pvalues import format_p
from evalmc.study.recommend import recommend

#: Differences of the power curve, in multiples of the observed standard error.
GRID = (1.0, 2.0, 2.8, 4.0, 5.6)
#: Clusters up to which the audit runs the wild cluster bootstrap (Webb's weights) by default.
WEBB_CLUSTERS = 12
#: The power at which the minimum detectable difference is read.
POWER = 0.8
#: The verdict of each of Bradley's labels of a size.
VERDICTS = {"robust": "calibrated", "liberal": "liberal", "conservative": "conservative",
            "undetermined": "undetermined"}


@dataclass(frozen=True)
class AuditResult:
    """What :func:`audit` found. Each table is a DataFrame; :meth:`report` says it in words.

    Attributes
    ----------
    data : dict
        The data audited: file, models, metric, items, samples, clusters, scores' kind, the
        observed means and their difference.
    fit : DataFrame
        The fitted model's parameters (one row each).
    faithfulness : DataFrame
        Each statistic of the data beside its value on data simulated from the fit.
    sizes : DataFrame
        Per procedure: size, MCSE, Wilson interval, Bradley's label.
    power : DataFrame
        Per procedure and difference: power, correct-sign power, their MCSEs.
    detectable : DataFrame
        Per procedure: the minimum detectable difference at 80% power and its interval.
    coverage : DataFrame
        Per interval estimator: coverage, MCSE, mean width, under the null.
    observed : DataFrame
        Each procedure's and interval's result on the data as observed.
    verdicts : DataFrame
        Per procedure: its verdict and the line that explains it.
    settings : dict
        Replications, seed, alpha, differences.
    recommendation : dict
        The procedure to report, or why none holds (:func:`~evalmc.study.recommend.recommend`).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import evalmc
    >>> path = Path(tempfile.mkdtemp()) / "items.csv"
    >>> _ = path.write_text("model,item,score\\n" + "".join(
    ...     f"{m},{i},{int((i * 7 + (m == 'x')) % 3 > 0)}\\n" for m in "xy" for i in range(60)))
    >>> result = evalmc.audit(path, "x", "y", criteria=["paired-items"], estimators=[],
    ...                       n_reps=200, n_reps_alt=100, progress=False)
    >>> print(result.report().splitlines()[0])  # doctest: +ELLIPSIS
    evalmc audit ...items.csv: x (A) against y (B), metric score (binary scores)
    >>> sorted(result.to_dict())[:4]
    ['coverage', 'data', 'detectable', 'faithfulness']
    """

    data: dict
    fit: pd.DataFrame
    faithfulness: pd.DataFrame
    sizes: pd.DataFrame
    power: pd.DataFrame
    detectable: pd.DataFrame
    coverage: pd.DataFrame
    observed: pd.DataFrame
    verdicts: pd.DataFrame
    settings: dict = field(default_factory=dict)
    recommendation: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Every table as a list of records, with the data and settings (for ``--format json``).

        Returns
        -------
        dict

        Examples
        --------
        See :func:`audit`.
        """
        tables = ("fit", "faithfulness", "sizes", "power", "detectable", "coverage",
                  "observed", "verdicts")
        out = {"data": self.data, "settings": self.settings,
               "recommendation": {k: (None if isinstance(v, float) and np.isnan(v) else v)
                                  for k, v in self.recommendation.items()}}
        for name in tables:
            frame = getattr(self, name)
            out[name] = frame.astype(object).where(frame.notna(), None).to_dict("records")
        return out

    def report(self) -> str:
        """The audit in words and tables, as ``evalmc audit`` prints it.

        Returns
        -------
        str

        Examples
        --------
        See :func:`audit`.
        """
        d, s = self.data, self.settings
        clusters = (f"in {d['n_clusters']} clusters ({d['cluster']})" if d["cluster"]
                    else "each its own cluster")
        lines = [
            f"evalmc audit {d['file']}: {d['a']} (A) against {d['b']} (B), metric "
            f"{d['metric']} ({d['kind']} scores)",
            f"{d['n_items']} items {clusters}, {d['n_samples']} sample(s) per item; observed "
            f"A {d['mean_a']:.4f}, B {d['mean_b']:.4f}, A - B {d['difference']:+.4f} "
            f"(standard error {d['se']:.4f}).",
            "",
            "The fitted model (latent scale, one score's variance 1):",
            _table(self.fit),
            "",
            "Is the fit faithful? Each statistic of the data beside data simulated from the fit "
            "(sd: its spread over simulated data sets):",
            _table(self.faithfulness),
            "",
            f"Procedures at alpha = {s['alpha']}: size under the null ({s['n_reps']} "
            f"replications), power when A leads by delta ({s['n_reps_alt']} each; correct "
            "sign in brackets), minimum detectable difference (MDD) at 80% power:",
            _table(self._procedure_table()),
            "",
            f"Intervals of A - B at their nominal level, under the null ({s['n_reps']} "
            "replications), and on your data:",
            _table(self._interval_table()),
            "",
            "Verdicts:",
            *(f"- {line}" for line in self.verdicts["line"]),
        ]
        if self.recommendation:
            lines += ["", "Recommendation:", self.recommendation["line"]]
        return "\n".join(lines)

    def _procedure_table(self) -> pd.DataFrame:
        rows = []
        for _, size in self.sizes.iterrows():
            name = size["procedure"]
            row = {"procedure": name,
                   "size": f"{size['rate']:.4f} ({size['mcse']:.4f})",
                   "Bradley": size["bradley"]}
            power = self.power[self.power["procedure"] == name]
            for _, p in power[power["asked"]].iterrows():
                row[f"power {p['delta']:+g}"] = (f"{p['power']:.3f} "
                                                 f"[{_number(p['power_sign'], '.3f')}]")
            mdd = self.detectable[self.detectable["procedure"] == name].iloc[0]
            row["MDD"] = ("-" if np.isnan(mdd["mdd"]) else
                          f"{mdd['mdd']:.4f} [{_number(mdd['mdd_low'], '.4f')}, "
                          f"{_number(mdd['mdd_high'], '.4f')}]")
            obs = self.observed[self.observed["name"] == name].iloc[0]
            row["p on your data"] = format_p(obs["pvalue"], obs["resamples"])
            rows.append(row)
        return pd.DataFrame(rows)

    def _interval_table(self) -> pd.DataFrame:
        rows = []
        for _, c in self.coverage.iterrows():
            obs = self.observed[self.observed["name"] == c["estimator"]].iloc[0]
            rows.append({"interval": c["estimator"], "level": c["level"],
                         "coverage": f"{c['coverage']:.4f} ({c['coverage_mcse']:.4f})",
                         "mean width": f"{c['width']:.4f}",
                         "on your data": f"[{_number(obs['low'])}, {_number(obs['high'])}]"})
        return pd.DataFrame(rows)

    def plot(self):
        """Size, power and coverage in three panels.

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        See :func:`audit`.
        """
        from evalmc.plots import audit_figure

        return audit_figure(self)

    def markdown(self, path) -> str:
        """Write the audit's tables, recommendation and figure (``<name>.png`` beside it) to
        the Markdown file `path` (:func:`~evalmc.study.audit_markdown.write_markdown`).

        Returns
        -------
        str
            The Markdown written.

        Examples
        --------
        See :func:`evalmc.study.audit_markdown.write_markdown`.
        """
        from evalmc.study.audit_markdown import write_markdown

        return write_markdown(self, path)


def audit(path, a: str, b: str, *, metric: str | None = None, cluster: str | None = None,
          sample: str | None = None, item: str = "item", model: str | None = None,
          fmt: str | None = None, tasks=None, labels=None, common: bool = False,
          deltas=(), criteria=None,
          estimators=None, alpha: float = 0.05, n_reps: int = NULL_REPS,
          n_reps_alt: int = ALT_REPS, seed: int = 0, n_jobs: int = 1,
          backend: str | None = None, cache=None, progress: bool | None = None,
          draws: str = "auto") -> AuditResult:
    """Check procedures and intervals on data simulated like the item-level results in `path`.

    Parameters
    ----------
    path : path or sequence of paths
        Item-level results (:func:`~evalmc.inputs.itemlogs.read_items` reads each: a CSV or
        JSONL table, an lm-evaluation-harness samples or results file or output folder, an
        inspect_ai log); several files (one log per model, as the harnesses write them) are
        stacked (:func:`~evalmc.inputs.itemlogs.stack_items`) and the model is fitted to the
        stacked table.
    a, b : str
        The two models compared, A - B.
    metric, cluster, sample, item, model, fmt : str, optional
        What to read, passed to :func:`~evalmc.inputs.itemlogs.read_items`.
    tasks, labels, common
        Passed to :func:`~evalmc.inputs.itemlogs.read_items`: the lm-evaluation-harness tasks
        to read, a model name per file (two runs of one model told apart), and whether to keep
        only the items both models have.
    deltas : sequence of float
        Differences A - B, in score points, at which to report power (besides the grid); a
        negative one counts as its absolute value, since the fitted model treats A and B
        alike.
    criteria, estimators : sequence of str, optional
        The procedures (criteria) and the intervals of the difference; default:
        :func:`default_procedures` and :func:`default_intervals` for the data.
    alpha : float
        The level of every procedure.
    n_reps, n_reps_alt : int
        Replications under the null and under each alternative.
    seed, n_jobs, backend, progress
        As :func:`~evalmc.study.rates.run_study` takes them; results do not depend on
        `n_jobs` or `backend`. Before the first study, the audit times every procedure and
        interval on a few replications and says how long it expects to take (when `progress`
        shows, or it passes a minute).
    cache : path, None or False
        The folder of finished blocks, from which a re-run resumes (results do not depend on
        it). None: an audit expected to pass a minute keeps its blocks in the user's cache
        folder (:func:`default_cache`) and says so, a shorter one keeps none; False: none.
    draws : {'auto', 'scores'}
        How the fitted model draws (the ``draws`` of the ``item-model`` scenario): 'auto',
        0/1 scores as each cluster's counts of item types, their sufficient statistic (the
        procedures read the counts); 'scores', every score (the general path, slower, the same
        law).

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> import evalmc
    >>> rng = np.random.default_rng(1)
    >>> skill = rng.normal(0, 1, 200)
    >>> rows = ["model,item,score"] + [
    ...     f"{m},{i},{int(skill[i] + rng.normal(0, 1) > (0.1 if m == 'x' else 0))}"
    ...     for m in "xy" for i in range(200)]
    >>> path = Path(tempfile.mkdtemp()) / "items.csv"
    >>> _ = path.write_text("\\n".join(rows) + "\\n")
    >>> result = evalmc.audit(path, "x", "y", criteria=["paired-items", "unpaired-z"],
    ...                       estimators=["paired-z-interval"], n_reps=400, n_reps_alt=200,
    ...                       progress=False)
    >>> result.sizes[["procedure", "rate", "bradley"]]
          procedure    rate       bradley
    0  paired-items  0.0600  undetermined
    1    unpaired-z  0.0225  undetermined
    >>> result.verdicts["verdict"].tolist()
    ['undetermined', 'undetermined']
    """
    from evalmc.inputs.itemlogs import read_items
    from evalmc.sims.itemmodel import DRAWS

    alpha = check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    n_reps = check_int("n_reps", n_reps, low=2)
    n_reps_alt = check_int("n_reps_alt", n_reps_alt, low=2)
    deltas = tuple(check_float("deltas", d) for d in np.atleast_1d(deltas))
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    check_choice("draws", draws, DRAWS)
    read = {"fmt": fmt, "metric": metric, "sample": sample, "cluster": cluster, "item": item,
            "model": model, "tasks": tasks, "labels": labels, "common": common}
    with tempfile.TemporaryDirectory(prefix="evalmc-audit-") as folder:
        if len(paths) == 1 and os.path.isfile(paths[0]) and not (tasks or labels or common):
            table = read_items(paths[0], **read)
            base = {"file": str(paths[0]), "metric": metric or "", "cluster": cluster or "",
                    "sample": sample or "", "item": item, "model": model or ""}
        else:  # the stacked table, written once for the scenario to read
            table = read_items(paths, **read)
            stacked = os.path.join(folder, "items.csv")
            table.to_csv(stacked, index=False)
            base = {"file": stacked, "metric": "score", "sample": "sample",
                    "cluster": "cluster" if table.attrs.get("cluster") else "",
                    "item": "item", "model": ""}
        return _audit(paths, table, {**base, "a": a, "b": b, "draws": draws}, deltas=deltas,
                      criteria=criteria, estimators=estimators, alpha=alpha, n_reps=n_reps,
                      n_reps_alt=n_reps_alt, seed=seed, n_jobs=n_jobs, backend=backend,
                      cache=cache, progress=progress)


def _audit(paths, table, base, *, deltas, criteria, estimators, alpha, n_reps, n_reps_alt,
           seed, n_jobs, backend, cache, progress) -> AuditResult:
    """The audit of `table` (read from `paths`), the scenario reading ``base['file']``."""
    from evalmc.sims import get_scenario
    from evalmc.sims.itemmodel import faithfulness, paired

    a, b = base["a"], base["b"]
    pair = paired(table, a, b)  # the scenario's fit pairs the same table: paired once
    batch = observed_batch(pair)
    kind = _kind(pair)
    crits, ests = _procedures(batch, kind, criteria, estimators)
    scenario = get_scenario("item-model")
    model = scenario(**base)
    se = observed_se(batch)
    asked, differences = _differences(scenario, base, deltas, se)
    seconds = _expected_seconds(model, crits, ests, seed=seed, n_jobs=n_jobs,
                                reps=(n_reps, n_reps_alt * len(differences)))
    cache = _announce(seconds, (n_reps, n_reps_alt, len(differences), bool(ests)), cache,
                      progress)
    run = {"seed": seed, "n_jobs": n_jobs, "backend": backend, "cache": cache,
           "progress": progress}
    null, alt, cover = _simulate(scenario, base, crits, ests, differences, alpha=alpha,
                                 n_reps=n_reps, n_reps_alt=n_reps_alt, run=run)
    sizes = _sizes(null.summary, alpha)
    power = _power(null.summary, alt.summary if alt is not None else None, alpha,
                   {abs(d) for d in asked})
    detectable = _detectable(power)
    coverage = _coverage(cover)
    observed = _observed(batch, crits, ests, alpha, seed)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    faithful = faithfulness(model, rng)
    verdicts = _verdicts(sizes, power, detectable, asked)
    d = batch.a.mean() - batch.b.mean()
    data = {"file": ", ".join(map(str, paths)), "a": a, "b": b,
            "metric": table.attrs.get("metric"),
            "kind": kind, "n_items": len(pair.items), "n_samples": batch.n_samples,
            "n_clusters": len(batch.cluster_sizes), "cluster": table.attrs.get("cluster"),
            "mean_a": float(batch.a.mean()), "mean_b": float(batch.b.mean()),
            "difference": float(d), "se": float(se)}
    settings = {"alpha": alpha, "n_reps": n_reps, "n_reps_alt": n_reps_alt, "seed": seed,
                "deltas": list(asked), "grid": list(differences)}
    answer = recommend(sizes, power, detectable, observed, alpha=alpha, n_reps=n_reps,
                       n_clusters=data["n_clusters"] if data["cluster"] else None)
    return AuditResult(data, fit_table(model), faithful, sizes, power, detectable, coverage,
                       observed, verdicts, settings, answer)


#: Seconds the timing of the procedures before an audit aims at.
PILOT_SECONDS = 0.5


def _expected_seconds(model, crits, ests, *, seed, n_jobs, reps) -> float:
    """Seconds the audit's studies should take: each procedure and interval run on a few
    replications of the null (from a stream of their own, apart from the studies'), once to
    load their kernels, then timed, the time per replication scaled to ``reps`` (under the
    null and under all the alternatives; the intervals under the null) over the workers that
    the machine's other work leaves a core."""
    import time

    from evalmc.engine.executors import local_workers

    rng = np.random.default_rng(np.random.SeedSequence([seed, 4]))

    def run(analyses, batch):
        for analysis in analyses:
            try:
                analysis(batch, rng)
            except Exception:  # noqa: BLE001 - the study records a replication's failure
                pass

    def timed(size):
        start = time.perf_counter()
        batch = model.draw(rng, size)
        drawn = time.perf_counter()
        run(crits, batch)
        tested = time.perf_counter()
        run(ests, batch)
        return drawn - start, tested - drawn, time.perf_counter() - tested

    timed(2)  # kernels compiled or loaded
    first = sum(timed(2)) / 2
    size = int(min(200, max(2, PILOT_SECONDS / max(first, 1e-9))))
    draw, tests, intervals = (t / size for t in timed(size))
    null, alternatives = reps
    serial = ((null + alternatives) * (draw + tests) + (null * (draw + intervals) if ests
                                                         else 0.0))
    return serial / min(local_workers(n_jobs), _free_cores())


def _free_cores() -> float:
    """The cores other processes leave free, by the load average (at least one; every core
    where the system does not tell)."""
    cores = os.cpu_count() or 1
    try:
        others = max(0.0, os.getloadavg()[0] - 1.0)  # this process is running
    except (AttributeError, OSError):
        return cores
    return max(1.0, cores - others)


def default_cache() -> str:
    """The folder where a long audit keeps its finished blocks by default: ``evalmc/audit`` under
    ``$XDG_CACHE_HOME``, else under ``~/.cache`` (blocks are named by all they depend on)."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "evalmc", "audit")


def _announce(seconds, reps, cache, progress):
    """Say how long the audit should take (shown progress, or a long audit), its replications
    (`reps`: under the null, under each alternative, the alternatives, whether intervals are
    audited) and the cache it uses: `cache`, or for a long audit without one
    :func:`default_cache` (when it can be made)."""
    import sys

    from evalmc.engine.scheduler import LONG_RUN_SECONDS, _duration

    n_reps, n_reps_alt, n_alt, intervals = reps
    long = seconds > LONG_RUN_SECONDS
    if cache is None and long:
        try:
            os.makedirs(default_cache(), exist_ok=True)
            cache = default_cache()
        except OSError:
            cache = None
    cache = cache or None
    if progress is True or (progress is None and (long or sys.stderr.isatty())):
        parts = [f"{n_reps:,} under the null"]
        if n_alt:
            parts.append(f"{n_reps_alt:,} at each of {n_alt} differences")
        if intervals:
            parts.append(f"{n_reps:,} for the intervals")
        total = n_reps * (1 + intervals) + n_reps_alt * n_alt
        when = _duration(seconds) if seconds >= 60 else f"{max(seconds, 1):.0f} s"
        where = (f"finished blocks are kept in {cache}, where a re-run resumes" if cache
                 else "add --cache DIR to keep finished blocks and resume")
        print(f"evalmc audit: about {when} to go ({total:,} replications: "
              f"{', '.join(parts)}); {where}.", file=sys.stderr)
    return cache


def _kind(pair) -> str:
    """``'binary'`` when every score of the pair is 0 or 1, else ``'continuous'``."""
    scores = np.concatenate([pair.a.ravel(), pair.b.ravel()])
    return "binary" if set(np.unique(scores)) <= {0.0, 1.0} else "continuous"


def _procedures(batch, kind: str, criteria, estimators) -> tuple[list, list]:
    """The criteria and interval estimators to audit, by default those suited to `batch`; a
    built-in estimator must be an interval of A - B (a user's own is taken for one)."""
    from evalmc.criteria import get_criterion
    from evalmc.estimators.intervals import UserEstimator, get_estimator

    criteria = list(criteria) if criteria is not None else default_procedures(batch, kind)
    estimators = (list(estimators) if estimators is not None
                  else default_intervals(batch, kind))
    crits = [get_criterion(c) for c in criteria]
    ests = [get_estimator(e) for e in estimators]
    for est in ests:  # a user's own declares nothing: it is taken as an interval of A - B
        if getattr(est, "estimand", None) != "effect" and not isinstance(est, UserEstimator):
            raise ValueError(f"`estimators` must be intervals of A - B (the difference the "
                             f"audit knows the truth of); {est.name!r} estimates "
                             f"{est.estimand or 'something else'}.")
    return crits, ests


def _differences(scenario, base, deltas, se) -> tuple[tuple, list]:
    """The user's nonzero `deltas` (each checked reachable: one the scores cannot reach is
    refused, naming it) and the sorted differences of the power curve: theirs, and the grid's
    multiples of `se` that the scores can reach."""
    grid = tuple(float(f"{m * se:.3g}") for m in GRID) if se > 0 else ()
    asked = tuple(d for d in deltas if d != 0)
    for d in asked:  # one the scores cannot reach raises here
        scenario(**base, delta=abs(d))
    differences = sorted({abs(d) for d in asked}
                         | {d for d in grid if _feasible(scenario, base, d)})
    return asked, differences


def _simulate(scenario, base, crits, ests, differences, *, alpha, n_reps, n_reps_alt, run):
    """The studies of the audit: the criteria under the null and at the `differences` (None
    without any), and the estimators' coverage under the null (None without any)."""
    from evalmc.study.estimation import run_estimation
    from evalmc.study.rates import run_study

    null = run_study({**base, "delta": [0.0]}, scenario, crits, n_reps=n_reps, alpha=alpha,
                     **run)
    alt = (run_study({**base, "delta": differences}, scenario, crits, n_reps=n_reps_alt,
                     alpha=alpha, **run) if differences else None)
    cover = (run_estimation({**base, "delta": [0.0]}, scenario, ests, n_reps=n_reps,
                            target="effect", **run) if ests else None)
    return null, alt, cover


#: The columns of the coverage table.
_COVERAGE = ("estimator", "level", "coverage", "coverage_mcse", "width", "width_mcse")


def _coverage(cover) -> pd.DataFrame:
    """The coverage table of the estimators' study `cover` (empty when None)."""
    if cover is None:
        return pd.DataFrame(columns=list(_COVERAGE))
    return cover.summary[list(_COVERAGE)].reset_index(drop=True)


def observed_batch(pair):
    """The two models' scores on the observed items as a batch of one replication.

    Items are grouped by cluster (clusters in the order they first appear, items in their
    order within); each model must have as many samples per item as the other.

    Parameters
    ----------
    pair : PairedItems
        From :func:`~evalmc.inputs.itemlogs.paired_items`.

    Returns
    -------
    ClusteredBatch

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.inputs.itemlogs import PairedItems
    >>> pair = PairedItems(["1", "2", "3"], ["p", "q", "p"], np.array([[1.0], [0.0], [1.0]]),
    ...                    np.array([[0.0], [0.0], [1.0]]), {})
    >>> batch = observed_batch(pair)
    >>> batch.a.tolist(), batch.cluster_sizes
    ([[1.0, 1.0, 0.0]], (2, 1))
    """
    from evalmc.sims.items import ClusteredBatch

    if pair.a.shape[1] != pair.b.shape[1]:
        raise ValueError(f"the two models must have as many samples per item to be audited; "
                         f"A has {pair.a.shape[1]}, B {pair.b.shape[1]}.")
    keys = pd.Series(pair.clusters).astype(str)
    first = {key: i for i, key in reversed(list(enumerate(keys)))}
    order = np.argsort([first[key] for key in keys], kind="stable")
    sizes = keys.iloc[order].value_counts(sort=False).reindex(
        dict.fromkeys(keys.iloc[order])).to_numpy()
    return ClusteredBatch(pair.a[order].reshape(1, -1), pair.b[order].reshape(1, -1),
                          paired=True, cluster_sizes=sizes, n_samples=pair.a.shape[1])


def observed_se(batch) -> float:
    """The standard error of mean(A - B) on one replication: cluster-robust (CR0) over its
    clusters, which is the paired standard error when each item is its own cluster.

    Parameters
    ----------
    batch : ClusteredBatch
        One replication.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.items import ClusteredBatch
    >>> batch = ClusteredBatch(np.array([[1.0, 0.0, 1.0, 1.0]]), np.zeros((1, 4)), paired=True,
    ...                        cluster_size=1)
    >>> round(observed_se(batch), 4)
    0.2165
    """
    from evalmc.criteria.items import clustered_mean_se

    return float(clustered_mean_se(batch)[1][0])


def default_procedures(batch, kind: str) -> list[str]:
    """The procedures audited by default, for data like `batch`.

    The comparisons harnesses and papers use: lm-evaluation-harness' unpaired z, the paired z
    on items (Miller 2024), sacrebleu's paired bootstrap and approximate randomisation, the
    sign and signed-rank tests on the items' differences; with several samples per item the z
    that pools them as items and, for 0/1 scores, the paired pass@k test at k = the samples;
    with clusters the clustered z and the cluster bootstrap, and the two that hold their level
    with few clusters: CR2 with Bell-McCaffrey degrees of freedom and, up to 12 clusters, the
    wild cluster bootstrap with Webb's weights; with one 0/1 answer per item the exact McNemar
    test.

    Parameters
    ----------
    batch : ClusteredBatch
        The observed data.
    kind : {'binary', 'continuous'}
        Its scores.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.items import ClusteredBatch
    >>> batch = ClusteredBatch(np.ones((1, 8)), np.zeros((1, 8)), paired=True, cluster_size=2,
    ...                        n_samples=2)
    >>> default_procedures(batch, "binary")
    ['unpaired-z', 'paired-items', 'sacrebleu-paired-bs', 'sacrebleu-paired-ar', 'sign',
     'wilcoxon', 'paired-samples-z', 'passk-paired(k=2)', 'clustered-z', 'cluster-bootstrap',
     'cr2-bm', 'wild-cluster-bootstrap(weights=webb)']
    """
    names = ["unpaired-z", "paired-items", "sacrebleu-paired-bs", "sacrebleu-paired-ar",
             "sign", "wilcoxon"]
    if batch.n_samples > 1:
        names.append("paired-samples-z")
        if kind == "binary":
            names.append(f"passk-paired(k={batch.n_samples})")
    if max(batch.cluster_sizes) > 1:
        names += ["clustered-z", "cluster-bootstrap", "cr2-bm", *_wild(batch)]
    if kind == "binary" and batch.n_samples == 1:
        names.append("mcnemar-items")
    return names


def _wild(batch, what: str = "wild-cluster-bootstrap") -> list[str]:
    """The wild cluster bootstrap with Webb's six-point weights (Rademacher weights give at most
    2^G distinct draws; Webb 2023) up to :data:`WEBB_CLUSTERS` clusters, where a t reference is
    least to be trusted; above, CR2 with Bell-McCaffrey's degrees of freedom holds and costs a
    thousandth of it, so the bootstrap is audited only when named."""
    return [f"{what}(weights=webb)"] if len(batch.cluster_sizes) <= WEBB_CLUSTERS else []


def default_intervals(batch, kind: str) -> list[str]:
    """The intervals of the difference audited by default, for data like `batch`.

    Welch's (unpaired, as a harness's two standard errors make it), the paired z interval
    (Miller 2024), for one 0/1 answer per item Newcombe's paired score interval, with clusters
    the clustered, cluster-bootstrap and CR2 (Bell-McCaffrey) intervals, and up to 12 clusters
    the wild cluster bootstrap's.

    Parameters
    ----------
    batch : ClusteredBatch
        The observed data.
    kind : {'binary', 'continuous'}
        Its scores.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.items import ClusteredBatch
    >>> batch = ClusteredBatch(np.ones((1, 4)), np.zeros((1, 4)), paired=True, cluster_size=1)
    >>> default_intervals(batch, "binary")
    ['welch-interval', 'paired-z-interval', 'newcombe-paired']
    """
    names = ["welch-interval", "paired-z-interval"]
    if kind == "binary" and batch.n_samples == 1:
        names.append("newcombe-paired")
    if max(batch.cluster_sizes) > 1:
        names += ["clustered-interval", "cluster-bootstrap-interval", "cr2-bm-interval",
                  *_wild(batch, "wild-cluster-interval")]
    return names


#: The fitted model's parameters, as the audit shows them.
FIT_ROWS = {
    "mu_a": "A's latent mean (its expected score through the score map)",
    "mu_b": "B's latent mean",
    "cluster": "variance of a cluster's difficulty, shared by both models",
    "interaction": "variance of a cluster's advantage of one model (model x cluster)",
    "item": "variance of an item's difficulty, shared by both models",
    "model_item": "variance of a model's own luck on an item (what makes A and B discordant)",
    "sample": "variance of one sample's noise (repeated answers to one item)",
}


def fit_table(model) -> pd.DataFrame:
    """The fitted parameters of an ``item-model`` scenario, one row each.

    Parameters
    ----------
    model : ItemModel
        An ``item-model`` scenario.

    Returns
    -------
    DataFrame
        Columns ``parameter``, ``value``, ``meaning``; a variance clipped at 0 (its moment
        estimate was negative) says so.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from evalmc.sims import get_scenario
    >>> path = Path(tempfile.mkdtemp()) / "items.csv"
    >>> _ = path.write_text("model,item,score\\n" + "".join(
    ...     f"{m},{i},{int((i * 7 + (m == 'x')) % 3 > 0)}\\n" for m in "xy" for i in range(30)))
    >>> fit_table(get_scenario("item-model")(file=str(path), a="x", b="y"))["parameter"].tolist()
    ['mu_a', 'mu_b', 'cluster', 'interaction', 'item', 'model_item', 'sample']
    """
    fit = model.fit
    rows = []
    for name, meaning in FIT_ROWS.items():
        if name in fit.clipped:
            meaning += " (clipped at 0: its estimate was negative)"
        rows.append({"parameter": name, "value": float(getattr(fit, name)),
                     "meaning": meaning})
    return pd.DataFrame(rows)


def _feasible(scenario, base, delta) -> bool:
    try:
        scenario(**base, delta=delta)
    except ValueError:
        return False
    return True


def _sizes(summary, alpha) -> pd.DataFrame:
    rows = summary[np.isclose(summary["alpha"], alpha)]
    return pd.DataFrame({"procedure": rows["criterion"], "rate": rows["rate"],
                         "mcse": rows["mcse"], "ci_low": rows["ci_low"],
                         "ci_high": rows["ci_high"],
                         "bradley": rows["bradley"]}).reset_index(drop=True)


def _power(null, alt, alpha, asked) -> pd.DataFrame:
    frames = [null.assign(delta=0.0)]
    if alt is not None:
        frames.append(alt)
    rows = pd.concat(frames, ignore_index=True)
    rows = rows[np.isclose(rows["alpha"], alpha)]
    out = pd.DataFrame({"procedure": rows["criterion"], "delta": rows["delta"].astype(float),
                        "power": rows["rate"], "power_mcse": rows["mcse"],
                        "power_low": rows["ci_low"], "power_high": rows["ci_high"],
                        "power_sign": rows["power_sign"],
                        "power_sign_mcse": rows["power_sign_mcse"]})
    out["asked"] = out["delta"].isin(asked)
    return out.sort_values(["procedure", "delta"], kind="stable").reset_index(drop=True)


def _crossing(delta, power) -> float:
    """The first delta where the piecewise-linear `power` curve reaches :data:`POWER`."""
    above = np.flatnonzero(power >= POWER)
    if not above.size:
        return np.nan
    k = above[0]
    if k == 0:
        return float(delta[0])
    d0, d1, p0, p1 = delta[k - 1], delta[k], power[k - 1], power[k]
    return float(d0 + (POWER - p0) * (d1 - d0) / (p1 - p0))


def _detectable(power) -> pd.DataFrame:
    rows = []
    for name, curve in power.groupby("procedure", sort=False):
        delta = curve["delta"].to_numpy()
        rows.append({"procedure": name,
                     "mdd": _crossing(delta, curve["power"].to_numpy()),
                     "mdd_low": _crossing(delta, curve["power_high"].to_numpy()),
                     "mdd_high": _crossing(delta, curve["power_low"].to_numpy()),
                     "largest_delta": float(delta.max())})
    return pd.DataFrame(rows)


def _observed(batch, crits, ests, alpha, seed) -> pd.DataFrame:
    from evalmc.criteria import resamples

    rows = []
    for crit in crits:  # each its own stream, keyed by its name as the engine keys them
        rng = np.random.default_rng(np.random.SeedSequence([seed, 2, zlib.crc32(
            crit.key.encode())]))
        result = crit(batch, rng)
        p = result.pvalues()[0]
        estimate = result.estimate[0] if result.estimate is not None else np.nan
        rows.append({"name": crit.key, "kind": "procedure", "estimate": float(estimate),
                     "pvalue": float(p), "reject": bool(result.decisions(alpha)[0]),
                     "low": np.nan, "high": np.nan, "resamples": resamples(crit.key)})
    for est in ests:
        rng = np.random.default_rng(np.random.SeedSequence([seed, 3, zlib.crc32(
            est.key.encode())]))
        result = est(batch, rng)
        rows.append({"name": est.key, "kind": "interval", "estimate": float(result.estimate[0]),
                     "pvalue": np.nan, "reject": None,
                     "low": float(result.low[0]) if result.low is not None else np.nan,
                     "high": float(result.high[0]) if result.high is not None else np.nan,
                     "resamples": None})
    return pd.DataFrame(rows).astype({"resamples": "Int64"})


def _verdicts(sizes, power, detectable, asked) -> pd.DataFrame:
    rows = []
    for _, size in sizes.iterrows():
        name = size["procedure"]
        verdict = VERDICTS.get(size["bradley"], "undetermined")
        mdd = detectable[detectable["procedure"] == name].iloc[0]
        if verdict == "liberal":
            reach = ("its power is not comparable, since it also rejects equal models; do not "
                     "report its p-values on data like yours")
        elif np.isnan(mdd["mdd"]):
            reach = f"it does not reach 80% power up to a difference of {mdd['largest_delta']:.4f}"
        else:
            reach = f"it detects a difference of {mdd['mdd']:.4f} with 80% power"
        what = {"calibrated": "it holds its level",
                "liberal": "it rejects equal models too often",
                "conservative": "it rejects equal models too rarely, which costs power",
                "undetermined": "its size is not told apart from an edge of Bradley's band "
                                "at this many replications"}[verdict]
        line = (f"{name}: {verdict}, size {size['rate']:.4f} (MCSE {size['mcse']:.4f}); "
                f"{what}; {reach}.")
        rows.append({"procedure": name, "verdict": verdict, "line": line})
    return pd.DataFrame(rows)


def _number(value, spec: str = ".4g") -> str:
    return "-" if value is None or np.isnan(value) else format(value, spec)


def _table(frame: pd.DataFrame) -> str:
    return frame.mask(frame.isna()).to_string(index=False, na_rep="-")
