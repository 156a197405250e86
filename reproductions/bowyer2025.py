"""Bowyer, Aitchison and Ivanova (2025), "Position: Don't use the CLT in LLM evals with fewer
than a few hundred datapoints" (ICML 2025, arXiv 2503.01747): one model's accuracy.

The paper's text is not in the project. Its claims are quoted from its abstract ("CLT-based
methods perform very poorly, usually dramatically underestimating uncertainty"); its settings
and numbers are read from the authors' public code (github sambowyer/no_clt_paper:
``basic_experiments.py``, ``subtask_experiments.py``, ``eval_lib/src``) and the figures it
plots (``PLOTS_FINAL``); a target read off a figure says so and is paraphrased.

IID setting (Sec 3.1; ``iid``, ``iid-sim``, ``mismatch``): a true rate theta, N Bernoulli(theta)
answers, N in {3, 10, 30, 100} (and 300, the authors' ``basic_medium``); 100 rates from the
prior Beta(1, 1) x 200 repeats; nominal levels ``1 - alpha``, alpha on ``linspace(0.005, 0.2,
100)``. Intervals: CLT ``p +- z sqrt(p (1 - p) / N)`` (``wald``), Wilson and Clopper-Pearson,
the Beta(1 + k, 1 + N - k) posterior's equal-tailed interval (``beta-posterior``), and the
percentile bootstrap (K = 10,000, ``proportion-bootstrap``). Every interval but the bootstrap
depends on the count k only, so its coverage averaged over a Beta prior is a finite sum over k
(:mod:`evalmc.stats.binomial`): ``iid`` and ``mismatch`` are exact, at all 100 levels; the
bootstrap's exact line is its limit as K grows. ``iid-sim`` runs the paper's simulation on the
engine at 95%. Prior mismatch (the authors' ``--prior_alpha``, ``--prior_beta``): rates from
Beta(100, 20), Beta(20, 100), Beta(10, 10), the Bayesian interval keeping Beta(1, 1).

Clustered setting (Sec 3.2; ``clustered``): T tasks of 5 questions, T in {2, 6, 20, 60} (the
authors' ``subtask_small``); per repeat d ~ Gamma(1, 1), task rates Beta(d theta, d (1 - theta))
(``bernoulli-tasks``). Intervals: the IID ones on the pooled answers, the clustered CLT (CR0,
``clustered-wald``) and the importance-sampled hierarchical Bayes interval (10,000 prior draws,
``clustered-bayes``). Departure: one nominal level (95%), not 100, as the importance sampling
dominates the time; the clustered bootstraps are left out.

The two-model comparisons (Secs 3.3, 3.4) add their targets to :data:`TARGET_ROWS` and their
figures beside these, from :mod:`.bowyer2025_pairs`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from evalmc.estimators.proportions import bounds
from evalmc.reproductions import bowyer2025_pairs as _pairs
from evalmc.reproductions.report import (
    Figure,
    Target,
    Targets,
    estimator_labels,
    legend_below,
    pooled_mcse,
)
from evalmc.stats.binomial import coverage_at, prior_coverage, prior_width
from evalmc.study.estimation import run_estimation

SEED = 2025
#: The paper's N (``basic_small``) and 300 (``basic_medium``).
NS = (3, 10, 30, 100, 300)
#: The paper's nominal levels, ``1 - linspace(0.005, 0.2, 100)``.
LEVELS = 1 - np.linspace(0.005, 0.2, 100)
LEVEL = 0.95
#: Exact-table methods (:func:`~evalmc.estimators.proportions.bounds`) and the estimators that
#: simulate them, with the paper's labels.
METHODS = {"wald": "CLT", "wilson": "Wilson", "clopper-pearson": "Clopper-Pearson",
           "beta-posterior": "Bayes, Beta(1, 1)", "bootstrap": "Bootstrap"}
ESTIMATORS = {"wald": "wald", "wilson": "wilson", "clopper-pearson": "clopper-pearson",
              "beta-posterior": "beta-posterior", "bootstrap": "proportion-bootstrap"}
COLOURS = {"wald": "darkorange", "wilson": "darkgreen", "clopper-pearson": "limegreen",
           "beta-posterior": "blue", "bootstrap": "brown", "clustered-wald": "red",
           "clustered-bayes": "purple"}
#: The rates' prior of each IID run: the paper's, and its three mismatches.
PRIORS = {"Beta(1, 1)": (1.0, 1.0), "Beta(100, 20)": (100.0, 20.0),
          "Beta(20, 100)": (20.0, 100.0), "Beta(10, 10)": (10.0, 10.0)}
#: Clustered setting: questions per task and the numbers of tasks.
PER_TASK = 5
TASKS = (2, 6, 20, 60)
CLUSTERED_METHODS = {"wald": "CLT", "wilson": "Wilson", "clopper-pearson": "Clopper-Pearson",
             "beta-posterior": "Bayes, Beta(1, 1)", "clustered-wald": "clustered CLT",
             "clustered-bayes": "clustered Bayes (IS)"}

_TITLE = ('"Don\'t use the CLT in LLM evals with fewer than a few hundred datapoints" (title); '
          '"CLT-based methods for uncertainty quantification are appropriate when benchmarks '
          'consist of thousands of examples" (abstract)')
_RECOMMEND = ('"We give recommendations for alternative frequentist and Bayesian methods that are '
              'both easy to implement and more appropriate in these increasingly common '
              'scenarios." (abstract)')


def _figure(name: str, what: str) -> str:
    return (f"{what}, read off the coverage-error panel of the authors' {name} figure "
            "(repository no_clt_paper, PLOTS_FINAL; log scale, about 10% reading error) "
            "(paraphrased)")


#: The targets, in report order; the two-model comparisons append theirs.
TARGET_ROWS = [
    Target("I1", "CLT: 95% coverage averaged over uniform rates, below 0.93 at N = 3, 10, 30",
           paper="dramatic under-coverage", source=_pairs.ABSTRACT),
    Target("I2", "CLT: mean |coverage - level| over the 100 levels at N = 3", paper="0.4",
           source=_figure("exp4-1 (Fig 2)", "CLT's coverage error at N = 3 is about 0.4"),
           tolerance="±0.1", value=0.4, tol=0.1),
    Target("I3", "CLT: mean |coverage - level| at N = 100, still above Wilson's", paper="0.02",
           source=_TITLE, tolerance="±0.01", value=0.02, tol=0.01),
    Target("I4", "Bayes, Beta(1, 1): mean |coverage - level| at most 0.013 at every N",
           paper="<= 0.013", source=_figure("exp4-1 (Fig 2)", "Bayes' coverage error is the "
                                            "smallest, 0.013 at N = 3 and below after")),
    Target("I5", "Wilson: mean |coverage - level| at N = 3", paper="0.03",
           source=_figure("exp4-1 (Fig 2)", "Wilson's coverage error is about 0.03 at N = 3"),
           tolerance="±0.015", value=0.03, tol=0.015),
    Target("I6", "Clopper-Pearson: over-covers, mean |coverage - level| at N = 3",
           paper="0.09", source=_figure("exp4-1 (Fig 2)", "Clopper-Pearson's coverage lies "
                                        "above the diagonal, error about 0.09 at N = 3"),
           tolerance="±0.03", value=0.09, tol=0.03),
    Target("I7", "Bootstrap: under-covers as the CLT, mean |coverage - level| at N = 3",
           paper="0.45", source=_figure("exp4-1 (Fig 2)", "the bootstrap's coverage error is "
                                        "about 0.45 at N = 3, as the CLT's"),
           tolerance="±0.1", value=0.45, tol=0.1),
    Target("I8", "CLT: share of evaluations with a zero-width interval (k = 0 or N), uniform "
           "rates, N = 10", paper="not stated", role="finding",
           source="error bars of zero width at 0% or 100% accuracy, in the paper's "
                  "real-data examples, Fig 1 (paraphrased)"),
    Target("I9", "CLT: share of evaluations whose 95% interval leaves [0, 1], uniform rates, "
           "N = 10", paper="not stated", role="finding",
           source="error bars that extend beyond [0, 1], in the paper's real-data "
                  "examples, Fig 1 (paraphrased)"),
    Target("S1", "simulated 95% coverage (100 rates x 200 repeats) within 4 MCSE of the exact "
           "coverage at the same rates, every interval and N", paper="-", role="extension",
           source=_RECOMMEND + "; our check of the exact sums against the engine"),
    Target("M1", "prior Beta(100, 20), Bayes keeping Beta(1, 1): mean |coverage - level| at "
           "N = 3", paper="0.03", source=_figure("exp4-1_beta-100-20_mismatch", "Bayes' "
                                                 "coverage error is about 0.03 at N = 3"),
           tolerance="±0.015", value=0.03, tol=0.015),
    Target("M2", "every mismatched prior: Bayes' coverage error below the CLT's at N <= 30",
           paper="yes", source=_figure("exp4-1 mismatch", "Bayes stays close to the diagonal, "
                                       "the CLT far below it, at small N")),
    Target("M3", "Beta(10, 10) rates: the coverage errors, N = 3 and 10", paper="not stated",
           role="finding", source=_figure("exp4-1_beta-10-10_mismatch", "the third mismatch")),
    Target("C1", "clustered CLT: 95% coverage at N = 10 (T = 2 tasks)", paper="0.45",
           source=_figure("exp4-2 (Fig 3)", "the clustered CLT covers about 45% at the 95% "
                                            "level with T = 2"),
           tolerance="±0.1", value=0.45, tol=0.1),
    Target("C2", "clustered Bayes (IS): 95% coverage within 0.02 (+ 2 MCSE) of 0.95 at every N",
           paper="on the diagonal", source=_figure("exp4-2 (Fig 3)", "the clustered Bayes "
                                                   "curve lies on the diagonal at every N")),
    Target("C3", "IID intervals ignore the tasks: Wilson's 95% coverage below 0.85 at every N",
           paper="about 0.7", source=_figure("exp4-2 (Fig 3)", "Wilson, Clopper-Pearson and "
                                             "Bayes cover about 70-80% at every N")),
]
# The two-model comparisons (Secs 3.3, 3.4) live in their own module: their rows join this
# list, and their figures this module's namespace, from which the registry loads every figure
# of bowyer2025.
TARGET_ROWS += list(_pairs.TARGETS)
INDEPENDENT, PAIRED, PAIRED_MISMATCH = _pairs.INDEPENDENT, _pairs.PAIRED, _pairs.PAIRED_MISMATCH
TARGETS = Targets(TARGET_ROWS)


def _scale(ax, axis="y"):
    """The paper's coverage axis: -log10(1 - coverage), ticks 0.5, 0.9, 0.99, 0.999 (a
    nominal level's axis: 0.8, 0.9, 0.95, 0.99)."""
    def forward(y):
        return -np.log10(np.clip(1 - np.asarray(y, float), 1e-5, None))

    def inverse(t):
        return 1 - 10 ** -np.asarray(t, float)

    getattr(ax, f"set_{axis}scale")("function", functions=(forward, inverse))
    ticks = [0.5, 0.9, 0.99, 0.999] if axis == "y" else [0.8, 0.95, 0.99]
    getattr(ax, f"set_{axis}ticks")(ticks, [f"{t:g}" for t in ticks])
    getattr(ax, f"set_{axis}lim")((0.2, 0.9999) if axis == "y" else (0.79, 0.996))


def _log_axes(ax, ns, labels=None):
    """N on a log axis ticked at `ns`, without minor labels."""
    from matplotlib.ticker import NullFormatter

    ax.set_xscale("log")
    ax.set_xticks(ns, labels or [str(n) for n in ns])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.grid(alpha=0.3)


def exact_table(priors, ns=NS, levels=LEVELS) -> pd.DataFrame:
    """Exact ``coverage`` and expected ``width`` of every IID interval, one row per (prior, method,
    n, level), over rates from each Beta prior of `priors` (label to ``(a, b)``)."""
    rows = []
    for label, (a, b) in priors.items():
        for method in METHODS:
            for n in ns:
                for level in levels:
                    lo, hi = bounds(method, n, level)
                    rows.append({"prior": label, "method": method, "n": n, "level": level,
                                 "coverage": prior_coverage(lo, hi, a, b),
                                 "width": prior_width(lo, hi, a, b)})
    return pd.DataFrame(rows)


def coverage_error(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's "coverage error": mean ``|coverage - level|`` over the levels (the ``on_grid``
    rows if marked) per ``prior``, ``method`` and ``n``."""
    if "on_grid" in table:
        table = table[table["on_grid"]]
    gap = table.assign(error=(table["coverage"] - table["level"]).abs())
    return gap.groupby(["prior", "method", "n"], as_index=False, sort=False)["error"].mean()


def _exact(priors, scale):
    """:func:`exact_table` at the paper's levels (quick: 12 of them), marked ``on_grid``, and
    at 95%, which the grid misses."""
    grid = LEVELS if scale == "paper" else LEVELS[::9]
    table = exact_table(priors, NS, [*grid, LEVEL])
    return table.assign(on_grid=~np.isclose(table["level"], LEVEL))


def compute_iid(scale, runs):
    """``iid``'s data: exact coverage and width over uniform rates, every level and N.

    Parameters
    ----------
    scale : {'quick', 'paper'}
        Quick: 12 of the 100 levels.
    runs : Runs
        Unused: nothing is simulated.

    Returns
    -------
    DataFrame
        :func:`exact_table` of the uniform prior, ``on_grid`` False at the added 95%.

    Examples
    --------
    >>> from evalmc.reproductions.report import Runs
    >>> compute_iid("quick", Runs()).shape
    (325, 7)
    """
    return _exact({"Beta(1, 1)": PRIORS["Beta(1, 1)"]}, scale)


def plot_iid(data):
    """``iid``: coverage against nominal level (top) and against width (bottom) for each N,
    and the coverage error against N (top right).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_iid`'s.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from evalmc.reproductions.report import Runs
    >>> len(plot_iid(compute_iid("quick", Runs())).axes)
    12
    """
    fig = MplFigure(figsize=(17, 6.5), layout="constrained")
    axes = fig.subplots(2, len(NS) + 1)
    for j, n in enumerate(NS):
        top, bottom = axes[0, j], axes[1, j]
        for method, label in METHODS.items():
            rows = data[(data["n"] == n) & (data["method"] == method)].sort_values("level")
            top.plot(rows["level"], rows["coverage"], color=COLOURS[method], label=label)
            bottom.plot(rows["width"], rows["coverage"], color=COLOURS[method])
        levels = np.sort(data["level"].unique())
        top.plot(levels, levels, color="grey", ls="--", lw=1.2, zorder=3, label="1 - alpha")
        for ax in (top, bottom):
            _scale(ax)
            ax.grid(alpha=0.3)
        _scale(top, "x")
        top.set_title(f"N = {n}")
        top.set_xlabel("nominal level 1 - alpha")
        bottom.set_xlabel("mean width")
    axes[0, 0].set_ylabel("coverage (uniform rates)")
    axes[1, 0].set_ylabel("coverage (uniform rates)")
    err = coverage_error(data)
    ax = axes[0, -1]
    for method in METHODS:
        rows = err[err["method"] == method]
        ax.plot(rows["n"], np.maximum(rows["error"], 1e-4), marker="o", color=COLOURS[method])
    ax.set(yscale="log", xlabel="N", ylabel="mean |coverage - level|", title="coverage error")
    _log_axes(ax, NS)
    axes[1, -1].set_visible(False)
    legend_below(fig, [axes[0, 0]], ncols=6)
    return fig


def _errors(data):
    """The coverage error of ``(method, n, prior)``, :func:`coverage_error` computed once."""
    err = coverage_error(data).set_index(["prior", "method", "n"])["error"]

    def error(method, n, prior="Beta(1, 1)"):
        return float(err[(prior, method, n)])

    return error


def check_iid(data, scale):
    """``iid``'s targets I1-I9.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_iid`'s.
    scale : {'quick', 'paper'}

    Returns
    -------
    list of Check

    Examples
    --------
    >>> from evalmc.reproductions.report import Runs
    >>> [c.result for c in check_iid(compute_iid("quick", Runs()), "quick")][:3]
    ['pass', 'pass', 'pass']
    """
    at95 = data[np.isclose(data["level"], LEVEL)].set_index(["method", "n"])["coverage"]
    small = [float(at95[("wald", n)]) for n in (3, 10, 30)]
    levels = f"over {data[data['on_grid']]['level'].nunique()} levels"
    error = _errors(data)
    bayes = [error("beta-posterior", n) for n in NS]
    lo, hi = bounds("wald", 10, LEVEL)
    k = np.arange(11)
    share = float((lo == hi).sum() / 11)  # uniform rates: every k has probability 1 / (N + 1)
    outside = float(((lo < 0) | (hi > 1)).sum() / 11)
    cp = data[data["method"] == "clopper-pearson"]
    conservative = bool((cp["coverage"] >= cp["level"] - 1e-12).all())
    return [
        TARGETS.holds("I1", ours=", ".join(f"{c:.3f}" for c in small),
                      passed=all(c < 0.93 for c in small), note="exact, N = 3, 10, 30"),
        TARGETS.within("I2", error("wald", 3), note=f"exact, {levels}"),
        TARGETS.within("I3", error("wald", 100),
                       note=f"exact, {levels}; Wilson's {error('wilson', 100):.4f}; at "
                            f"N = 300 the CLT's is {error('wald', 300):.4f}"),
        TARGETS.holds("I4", ours=f"max {max(bayes):.1e}", passed=max(bayes) <= 0.013,
                      note="exact: the Beta(1, 1) posterior interval covers its level exactly "
                           "on average over uniform rates"),
        TARGETS.within("I5", error("wilson", 3), note=f"exact, {levels}"),
        TARGETS.within("I6", error("clopper-pearson", 3),
                       note=f"exact, {levels}; coverage >= level at every level and N: "
                            f"{conservative}"),
        TARGETS.within("I7", error("bootstrap", 3),
                       note=f"exact limit of the percentile bootstrap, {levels}"),
        TARGETS.finding("I8", ours=f"{share:.3f}",
                        note=f"2 / (N + 1): k = {k[lo == hi].tolist()} of 0..10"),
        TARGETS.finding("I9", ours=f"{outside:.3f}",
                        note=f"k = {k[(lo < 0) | (hi > 1)].tolist()} of 0..10"),
    ]


def _thetas(scale, prior=(1.0, 1.0)):
    """The rates of a simulated study: 100 draws from the prior (quick: 12), seeded."""
    return np.random.default_rng(SEED).beta(*prior, 100 if scale == "paper" else 12)


def _per_rate(summary, keys):
    """Coverage and width averaged over the rates, with MCSEs: the sd of the per-rate
    estimates over sqrt(rates) (the rates are drawn, so this holds both noises: the error
    against the prior's average); and ``coverage_mcse_given_rates``, the replications' noise
    alone (the error against the average at these very rates)."""
    def sem(s):
        return s.std(ddof=1) / np.sqrt(s.size)

    return summary.groupby(keys, as_index=False, sort=False).agg(
        coverage=("coverage", "mean"), coverage_mcse=("coverage", sem),
        coverage_mcse_given_rates=("coverage_mcse", pooled_mcse),
        width=("width", "mean"), width_mcse=("width", sem), rates=("coverage", "size"))


def compute_iid_sim(scale, runs):
    """``iid-sim``'s data: the paper's simulation at the 95% level on the engine, beside the
    exact coverage at the same rates and over uniform rates.

    Parameters
    ----------
    scale : {'quick', 'paper'}
        Paper: 100 rates drawn from Beta(1, 1) x 200 repeats, N in :data:`NS`, 10,000
        bootstrap resamples; quick: 12 rates x 40 repeats, N = 3, 10, 30, 1,000 resamples.
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        One row per (method, n): simulated ``coverage``, ``coverage_mcse``,
        ``coverage_mcse_given_rates``, ``width``, ``width_mcse``, ``rates`` (:func:`_per_rate`);
        ``exact_at_rates`` (the exact coverage averaged over the
        same rates), ``exact`` (over uniform rates) and ``exact_width``.

    Examples
    --------
    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_iid_sim("quick", Runs())
    >>> data.shape, data.set_index(["method", "n"]).loc["wald", "coverage"].round(4).tolist()
    ((15, 11), [0.6229, 0.8958, 0.9312])
    """
    paper = scale == "paper"
    ns = NS if paper else (3, 10, 30)
    thetas = _thetas(scale)
    specs = {e if m != "bootstrap" else f"{e}(n_boot={10_000 if paper else 1000})": m
             for m, e in ESTIMATORS.items()}
    res = run_estimation(pd.DataFrame([(n, t) for n in ns for t in thetas],
                                      columns=["n", "theta"]),
                         "bernoulli", list(specs), n_reps=200 if paper else 40,
                         seed=SEED, progress=False, **runs.engine)
    summary = res.summary.assign(method=estimator_labels(res.summary, specs))
    out = _per_rate(summary, ["method", "n"])
    exact = {(m, n): bounds(m, n, LEVEL) for m in METHODS for n in ns}
    out["exact_at_rates"] = [float(coverage_at(*exact[(m, n)], thetas).mean())
                             for m, n in zip(out["method"], out["n"], strict=True)]
    out["exact"] = [prior_coverage(*exact[(m, n)]) for m, n in zip(out["method"], out["n"],
                                                                   strict=True)]
    out["exact_width"] = [prior_width(*exact[(m, n)]) for m, n in zip(out["method"], out["n"],
                                                                      strict=True)]
    return out


def plot_iid_sim(data):
    """``iid-sim``: simulated 95% coverage and width against N (dots, 2 MCSE bars) over the
    exact values at uniform rates (lines).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_iid_sim`'s.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"method": ["wald"] * 2, "n": [3, 10], "coverage": [0.5, 0.77],
    ...                      "coverage_mcse": [0.03, 0.02], "width": [0.5, 0.4],
    ...                      "width_mcse": [0.01, 0.01], "exact": [0.5, 0.77],
    ...                      "exact_width": [0.5, 0.4]})
    >>> len(plot_iid_sim(data).axes)
    2
    """
    fig = MplFigure(figsize=(11, 4.5), layout="constrained")
    cov, width = fig.subplots(1, 2)
    for method, rows in data.groupby("method", sort=False):
        colour = COLOURS[method]
        cov.plot(rows["n"], rows["exact"], color=colour, label=METHODS[method])
        cov.errorbar(rows["n"], rows["coverage"], yerr=2 * rows["coverage_mcse"], fmt="o",
                     color=colour, capsize=2)
        if "exact_at_rates" in rows:
            cov.plot(rows["n"], rows["exact_at_rates"], "x", color=colour, ms=8)
        width.plot(rows["n"], rows["exact_width"], color=colour)
        width.errorbar(rows["n"], rows["width"], yerr=2 * rows["width_mcse"], fmt="o",
                       color=colour, capsize=2)
    cov.axhline(LEVEL, color="k", ls="--", lw=0.8)
    _scale(cov)
    ns = sorted(data["n"].unique())
    _log_axes(cov, ns)
    _log_axes(width, ns)
    cov.set(xlabel="N", ylabel="coverage of the 95% interval",
            title="coverage")
    width.set(xlabel="N", ylabel="mean width", title="width")
    legend_below(fig, [cov], ncols=3)
    return fig


def check_iid_sim(data, scale):
    """``iid-sim``'s target S1: simulated and exact coverage agree within 4 MCSE.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_iid_sim`'s.
    scale : {'quick', 'paper'}

    Returns
    -------
    list of Check

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"method": ["wald"], "n": [3], "coverage": [0.5],
    ...                      "coverage_mcse": [0.03], "coverage_mcse_given_rates": [0.01],
    ...                      "exact_at_rates": [0.52], "exact": [0.496]})
    >>> check_iid_sim(data, "quick")[0].result
    'pass'
    """
    z = (data["coverage"] - data["exact_at_rates"]).abs() / data["coverage_mcse_given_rates"]
    prior = (data["coverage"] - data["exact"]).abs() / data["coverage_mcse"]
    worst = data.loc[z.idxmax()]
    return [TARGETS.holds("S1", ours=f"largest gap {z.max():.2f} MCSE",
                          passed=bool((z <= 4).all()),
                          note=f"at {worst['method']}, N = {worst['n']}, {len(data)} (interval, "
                               "N) pairs, MCSE of the replications given the rates; against "
                               "the exact coverage over uniform rates (MCSE with the rates' "
                               f"spread) the largest gap is {prior.max():.2f} MCSE")]


def compute_mismatch(scale, runs):
    """``mismatch``'s data: exact coverage and width over rates from the three mismatched
    priors, the Bayesian interval keeping Beta(1, 1).

    Parameters
    ----------
    scale : {'quick', 'paper'}
        Quick: 12 of the 100 levels.
    runs : Runs
        Unused: nothing is simulated.

    Returns
    -------
    DataFrame
        :func:`exact_table` of the three priors.

    Examples
    --------
    >>> from evalmc.reproductions.report import Runs
    >>> compute_mismatch("quick", Runs())["prior"].unique().tolist()
    ['Beta(100, 20)', 'Beta(20, 100)', 'Beta(10, 10)']
    """
    return _exact({k: v for k, v in PRIORS.items() if k != "Beta(1, 1)"}, scale)


def plot_mismatch(data):
    """``mismatch``: for each prior, 95% coverage against N (top) and the coverage error over
    the levels against N (bottom).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_mismatch`'s.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from evalmc.reproductions.report import Runs
    >>> len(plot_mismatch(compute_mismatch("quick", Runs())).axes)
    6
    """
    priors = list(dict.fromkeys(data["prior"]))
    fig = MplFigure(figsize=(14, 7.5), layout="constrained")
    axes = fig.subplots(2, len(priors))
    err = coverage_error(data)
    at95 = data[np.isclose(data["level"], LEVEL)]
    for j, prior in enumerate(priors):
        top, bottom = axes[0, j], axes[1, j]
        for method, label in METHODS.items():
            rows = at95[(at95["prior"] == prior) & (at95["method"] == method)]
            top.plot(rows["n"], rows["coverage"], marker="o", color=COLOURS[method],
                     label=label)
            rows = err[(err["prior"] == prior) & (err["method"] == method)]
            bottom.plot(rows["n"], rows["error"], marker="o", color=COLOURS[method])
        top.axhline(LEVEL, color="k", ls="--", lw=0.8)
        _scale(top)
        top.set(xlabel="N", title=f"rates from {prior}")
        bottom.set(yscale="log", xlabel="N")
        _log_axes(top, NS)
        _log_axes(bottom, NS)
    axes[0, 0].set_ylabel("coverage of the 95% interval")
    axes[1, 0].set_ylabel("mean |coverage - level|")
    legend_below(fig, [axes[0, 0]], ncols=5)
    return fig


def check_mismatch(data, scale):
    """``mismatch``'s targets M1-M3.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_mismatch`'s.
    scale : {'quick', 'paper'}

    Returns
    -------
    list of Check

    Examples
    --------
    >>> from evalmc.reproductions.report import Runs
    >>> [c.result for c in check_mismatch(compute_mismatch("quick", Runs()), "quick")]
    ['pass', 'pass', 'finding']
    """
    priors = [p for p in PRIORS if p != "Beta(1, 1)"]
    error = _errors(data)
    pairs = [(p, n, error("beta-posterior", n, p), error("wald", n, p))
             for p in priors for n in (3, 10, 30)]
    worst = max(pairs, key=lambda x: x[2] / x[3])
    ten = "; ".join(f"{METHODS[m]} {error(m, 3, 'Beta(10, 10)'):.3f} / "
                    f"{error(m, 10, 'Beta(10, 10)'):.3f}" for m in METHODS)
    return [
        TARGETS.within("M1", error("beta-posterior", 3, "Beta(100, 20)"),
                       note="exact; Beta(20, 100) gives the same by symmetry"),
        TARGETS.holds("M2", ours=f"largest ratio Bayes / CLT {worst[2] / worst[3]:.2f}",
                      passed=all(b < c for _, _, b, c in pairs),
                      note=f"at {worst[0]}, N = {worst[1]}: {worst[2]:.3f} vs {worst[3]:.3f}"),
        TARGETS.finding("M3", ours=ten, note="exact, at N = 3 / N = 10"),
    ]


def compute_clustered(scale, runs):
    """``clustered``'s data: 95% coverage and width of each interval when the questions come
    in tasks, simulated on the engine.

    Parameters
    ----------
    scale : {'quick', 'paper'}
        Paper: T in :data:`TASKS` tasks of 5 questions, 100 rates drawn from Beta(1, 1) x 200
        repeats, 10,000 importance draws; quick: T = 2, 6, 12 rates x 20 repeats, 2,000 draws.
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        One row per (method, tasks): ``n``, ``coverage``, ``coverage_mcse``, ``width``,
        ``width_mcse``, ``rates``.

    Examples
    --------
    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_clustered("quick", Runs())
    >>> data.shape, data.set_index("method").loc["clustered-wald", "coverage"].round(4).tolist()
    ((12, 9), [0.5125, 0.8458])
    """
    paper = scale == "paper"
    tasks = TASKS if paper else TASKS[:2]
    specs = {m if m != "clustered-bayes" else f"{m}(n_samples={10_000 if paper else 2000})": m
             for m in CLUSTERED_METHODS}
    res = run_estimation(pd.DataFrame([(t, PER_TASK, x) for t in tasks for x in _thetas(scale)],
                                      columns=["tasks", "per_task", "theta"]),
                         "bernoulli-tasks", list(specs), n_reps=200 if paper else 20,
                         seed=SEED, progress=False, **runs.engine)
    summary = res.summary.assign(method=estimator_labels(res.summary, specs))
    out = _per_rate(summary, ["method", "tasks"])
    out.insert(2, "n", out["tasks"] * PER_TASK)
    return out


def plot_clustered(data):
    """``clustered``: 95% coverage and mean width against N (T tasks of 5 questions).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_clustered`'s.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"method": ["clustered-wald"] * 2, "tasks": [2, 6], "n": [10, 30],
    ...                      "coverage": [0.45, 0.7], "coverage_mcse": [0.03, 0.02],
    ...                      "width": [0.5, 0.4], "width_mcse": [0.01, 0.01]})
    >>> len(plot_clustered(data).axes)
    2
    """
    fig = MplFigure(figsize=(11, 4.5), layout="constrained")
    cov, width = fig.subplots(1, 2)
    for method, rows in data.groupby("method", sort=False):
        style = {"color": COLOURS[method], "marker": "o", "capsize": 2,
                 "ls": "-" if method.startswith("clustered") else ":"}
        cov.errorbar(rows["n"], rows["coverage"], yerr=2 * rows["coverage_mcse"],
                     label=CLUSTERED_METHODS[method], **style)
        width.errorbar(rows["n"], rows["width"], yerr=2 * rows["width_mcse"], **style)
    cov.axhline(LEVEL, color="k", ls="--", lw=0.8)
    _scale(cov)
    ticks = sorted(data["n"].unique())
    for ax in (cov, width):
        _log_axes(ax, ticks, [f"{n}\n(T = {n // PER_TASK})" for n in ticks])
        ax.set_xlabel("N questions (T tasks of 5)")
    cov.set(ylabel="coverage of the 95% interval", title="coverage (bars: 2 MCSE)")
    width.set(ylabel="mean width", title="width")
    legend_below(fig, [cov], ncols=3)
    return fig


def check_clustered(data, scale):
    """``clustered``'s targets C1-C3.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_clustered`'s.
    scale : {'quick', 'paper'}

    Returns
    -------
    list of Check

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"method": ["clustered-wald", "clustered-bayes", "wilson"],
    ...                      "n": [10] * 3, "coverage": [0.45, 0.95, 0.7],
    ...                      "coverage_mcse": [0.03, 0.01, 0.03]})
    >>> [c.result for c in check_clustered(data, "quick")]
    ['pass', 'pass', 'pass']
    """
    at = data.set_index(["method", "n"])
    bayes, wilson = at.loc["clustered-bayes"], at.loc["wilson"]
    gap = (bayes["coverage"] - LEVEL).abs() - 2 * bayes["coverage_mcse"]
    mcse = f"MCSE about {at['coverage_mcse'].median():.3f}"
    return [
        TARGETS.within("C1", float(at.loc[("clustered-wald", 10), "coverage"]),
                       note=f"simulated, {mcse}; N = 30: "
                            + (f"{at.loc[('clustered-wald', 30), 'coverage']:.3f}"
                               if ("clustered-wald", 30) in at.index else "not run")),
        TARGETS.holds("C2", ours=", ".join(f"{c:.3f}" for c in bayes["coverage"]),
                      passed=bool((gap <= 0.02).all()),
                      note=f"N = {', '.join(str(n) for n in bayes.index)}; {mcse}"),
        TARGETS.holds("C3", ours=", ".join(f"{c:.3f}" for c in wilson["coverage"]),
                      passed=bool((wilson["coverage"] < 0.85).all()),
                      note=f"N = {', '.join(str(n) for n in wilson.index)}"),
    ]


IID = Figure("Coverage of five intervals for one model's accuracy against the nominal level "
             "1 - alpha (top; alpha on the paper's linspace(0.005, 0.2, 100), quick: 12 of "
             "them) and against their mean width (bottom), for N = 3, 10, 30, 100 (paper) and "
             "300 answers, averaged over true rates from the uniform prior, exact (finite sums "
             "over the count k); top right: mean |coverage - level| over the levels (Bayes' is 0, "
             "drawn at 1e-4, and its curves lie on the diagonal). Bootstrap: "
             "the percentile bootstrap's limit as its resamples grow. Dashed: coverage = level.",
             compute_iid, plot_iid, check_iid,
             title="Bowyer et al. 2025, Fig 2: IID questions, coverage against level and width")

IID_SIM = Figure("The paper's simulation on the engine: 100 true rates drawn from Beta(1, 1) "
                 "x 200 repeats (quick: 12 x 40, N <= 30), 95% intervals, percentile bootstrap "
                 "with 10,000 resamples (quick: 1,000); dots: coverage and width averaged over "
                 "the rates, bars 2 MCSE (the rates' spread included); crosses: exact at the "
                 "same rates; lines: exact over uniform rates.", compute_iid_sim, plot_iid_sim,
                 check_iid_sim,
                 title="Bowyer et al. 2025, Sec 3.1: simulated against exact coverage")

MISMATCH = Figure("Prior mismatch: true rates from Beta(100, 20), Beta(20, 100) and "
                  "Beta(10, 10) while the Bayesian interval keeps its Beta(1, 1) prior; exact "
                  "95% coverage against N (top) and mean |coverage - level| over the paper's "
                  "levels (bottom; quick: 12 levels).", compute_mismatch, plot_mismatch,
                  check_mismatch,
                  title="Bowyer et al. 2025, App: IID coverage under prior mismatch")

CLUSTERED = Figure("Questions in T tasks of 5 (N = 10, 30, 100, 300; quick: T = 2, 6): "
                       "per repeat d ~ Gamma(1, 1), task rates Beta(d theta, d (1 - theta)); "
                       "100 rates theta from Beta(1, 1) x 200 repeats (quick: 12 x 20). 95% "
                       "intervals: the IID ones on the pooled answers (dotted), the clustered "
                       "CLT (CR0 standard error) and the importance-sampled hierarchical Bayes "
                       "interval (10,000 prior draws; quick: 2,000). One level, not the paper's "
                       "100; bars 2 MCSE.", compute_clustered, plot_clustered, check_clustered,
                       title="Bowyer et al. 2025, Fig 3: clustered questions, 95% coverage")
