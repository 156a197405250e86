"""Keller, Bengio and Wong (2005), "Benchmarking Non-Parametric Statistical Tests".

Figure 1 (size) and Figure 2 (power) of the proportion test (Eq 3), McNemar's test (Eq 4),
and the bootstrap percentile test on dCerr and on dF1, against the evaluation set size N, at
alpha = 0.05, in four panels: (a) balanced classes, different models; (b) unbalanced,
different; (c) balanced, close models; (d) unbalanced, close. Ours add McNemar's exact and
mid-p variants.

Paper: RCV1 (798,809 documents as the population, 101 categories, linear SVM, RBF SVM, MLP);
per category S = 500 evaluation sets of N documents, N in {100, 200, 500, 1000, 2000, 3000,
4000, 5000, 6000}; rates pooled over sets and categories; alpha in {0.01, 0.05, 0.1}; B = 5000
bootstrap replicates.

Protocol, after a third reading of the paper:

- Truth. The paper says only that a category's H0 "was true over D_true"; its captions imply a
  rule that depends on N ("-1 ... H0 was always false" in Fig 1(b), "H1 was never true" in Figs
  2(c), 2(d), "the first points ... were computed over only 500 evaluation sets"). The primary
  rule is the measure's resolution at N (:func:`resolution_truth`): H0 holds when the
  population difference is smaller than one example's worth of the measure on a set of N. It
  tends to the exact null as N grows, and a category under it shifts the test statistic by at
  most about ``1 / sqrt(expected discordant count)`` sds, so a calibrated test's size stays
  near alpha. The central-range rule (H0 when 0 lies in the central 1 - alpha range of the
  statistic over the S sets, :func:`central_range_truth`) inflates size by construction; it is
  a sensitivity variant (``fig1-range``, ``fig2-range``, ids ending in ``' range'``). The
  exact null (population difference exactly 0, on exact-null twins of the first categories)
  is a further extension (``fig1-exact``, ``fig2-exact``).
- Categories (:func:`panel_categories`), 50 per panel: unbalanced prevalence ``1 / (1 + r)``,
  r log-uniform on [10, 100] ("often with a ratio of 10 to 100"), balanced 0.4-0.5. Different
  models are SVM vs MLP ("the MLP gave poorer results on average"): balanced, a dCerr gap
  log-uniform on [1e-5, 0.1], the MLP worse in 70%; unbalanced, the MLP misses a share of the
  SVM's positives log-uniform on [0.02, 0.5] and has an FPR 1-1.25 times the SVM's. Close
  models are two SVMs ("very similar results"): a dCerr gap of either sign log-uniform on
  [1/20000, 1/1200], except a first, distinct category with a gap of 0.015-0.03 (the one H1
  category at N <= 1000 of Figs 2(c), 2(d)); unbalanced, 10% are exact ties, both SVMs
  predicting no positive. The caption facts are calibration rows (C1-C4).
- F1 on a set: ``2 TP / (2 TP + FN + FP)``, 0 when the denominator is 0, so dF1 = 0 on a set
  where neither model has a positive prediction or a positive example; a replicate likewise.
- The bootstrap interval, "an interval [a, b] such that p(a < dF1 < b) = 1 - alpha centered
  around the mean of p(dF1)", is run both as its citation's percentile interval
  (``bootstrap-df1``, B = 5000) and centred on the replicates' mean
  (``bootstrap-df1-centred``, B = 1000 = 50 / alpha, as it cannot stop early).
- A rate's MCSE is the cluster (category) standard error of the pooled ratio, as the paper
  reports spread across categories ("a standard deviation std, over the categories").
- K1 follows "most of the statistical tests [...] converges to alpha": most, not every, test.
  K6 and K7 compare the tests at the N values all of them have.
- One row per claim: K1's three levels, K4's three levels and its two interval readings, and
  K5's two readings are sub-checks of one row (every level must hold; the readings must
  agree, else the row is inconclusive). K3 ("a similar performance") is judged as the paper
  words it: never on opposite sides of alpha by 2 MCSE, never opposite steps between
  neighbouring N; the gaps themselves are a finding. K8 compares a close panel with a
  different one only at the N where both pool more than one H1 category (the paper calls its
  close panels' points at N <= 1000, one task each, unreliable).

Other assumptions (the paper's data are not available): a category is the 8-cell table of a
Gaussian copula of the two models' correctness (latent correlation 0.5-0.7 for different
models, 0.98-0.995 for close ones). A bootstrap replicate is a multinomial draw over the set's
cells; the percentile tests' decisions are drawn exactly: for dCerr the counts of replicates on
each side of 0 are one multinomial draw from their exact law; for dF1 a set far from 0 draws
only its rare side's replicates (rejection sampling under a Chernoff bound), and any other set
stops once its decision at every alpha <= 0.1 is settled (``p_max=0.1``). Rates where no case
exists are left empty (the paper plots -1); a panel without any is marked "no H0 case" or "no
H1 case".
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from evalmc.criteria import get_criterion
from evalmc.inputs.checks import check_choice, check_float, check_int
from evalmc.registry import parse_spec
from evalmc.reproductions.report import (
    Figure,
    Runs,
    Target,
    Targets,
    agree,
    combine,
    pooled_mcse,
)
from evalmc.sims.classifiers import PairedClassifiers
from evalmc.stats.mcse import rate_mcse, wilson_interval
from evalmc.study.rates import make_design, run_study

SEED = 2005
ALPHAS = (0.01, 0.05, 0.1)
ALPHA = 0.05  # the figures' level
DCERR_TESTS = ("proportion", "mcnemar", "mcnemar-exact", "mcnemar-midp", "bootstrap-dcerr")
DF1_TESTS = ("bootstrap-df1", "bootstrap-df1-centred")
TESTS = (*DCERR_TESTS, *DF1_TESTS)
PAPER_TESTS = ("proportion", "mcnemar", "bootstrap-dcerr", "bootstrap-df1")
#: The figures' curves: the paper's four tests and the dF1 interval centred on the mean.
FIGURE_TESTS = (*PAPER_TESTS, "bootstrap-df1-centred")
#: Truth definitions: the primary resolution rule, the central-range rule (sensitivity) and
#: the exact null (extension).
DEFINITIONS = ("resolution", "range", "exact")


def resolution(population: PairedClassifiers, measure: str, n: int) -> float:
    """One example's worth of `measure` on a set of `n` examples of `population`: ``1 / n`` for
    dCerr; for dF1, the change of F1 when one positive moves from a miss to a hit at each model's
    expected counts, the finer of the two models' (inf without an expected positive)."""
    measure = check_choice("measure", measure, ("dcerr", "df1"))
    n = check_int("n", n, low=1)
    if measure == "dcerr":
        return 1.0 / n
    pi = population.prevalence
    steps = [np.inf]
    for tpr, fpr in ((population.tpr_a, population.fpr_a),
                     (population.tpr_b, population.fpr_b)):
        t = n * pi * tpr
        e = n * (pi * (1 - tpr) + (1 - pi) * fpr)
        d = 2 * t + e
        if d > 0:
            steps.append(2 * (t + e) / (d * (d + 1)))
    return float(min(steps))


def resolution_truth(population: PairedClassifiers, measure: str, n: int) -> str:
    """The primary truth rule: ``'null'`` when the population difference in `measure` is smaller
    than its :func:`resolution` at `n`, else ``'alternative'``."""
    step = resolution(population, measure, n)
    return "null" if abs(population.difference(measure)) < step else "alternative"


def central_range_truth(statistics, alpha: float) -> str:
    """The N-dependent truth rule: ``'null'`` when 0 lies in the central ``1 - alpha`` range
    (numpy's quantiles) of `statistics` over the sets, else ``'alternative'``."""
    alpha = check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    values = np.asarray(statistics, dtype=float)
    if values.size == 0 or not np.isfinite(values).all():
        raise ValueError("`statistics` must be a non-empty array of finite numbers.")
    low, high = np.quantile(values, [alpha / 2, 1 - alpha / 2])
    return "null" if low <= 0.0 <= high else "alternative"


#: The four panels of Keller et al.'s Figures 1 and 2: (balanced, close models).
PANELS = {
    "a": (True, False),
    "b": (False, False),
    "c": (True, True),
    "d": (False, True),
}
PANEL_TITLES = {
    "a": "balanced, different models",
    "b": "unbalanced, different models",
    "c": "balanced, close models",
    "d": "unbalanced, close models",
}


#: Negatives per positive of an unbalanced category: "often with a ratio of 10 to 100".
RATIO = (10.0, 100.0)
#: Share of unbalanced close-model categories where both SVMs predict no positive.
SILENT_SHARE = 0.1


def _svm(rng, balanced):
    """Prevalence, TPR and FPR of a category and its SVM."""
    if balanced:
        prevalence = rng.uniform(0.4, 0.5)
        return prevalence, rng.uniform(0.80, 0.92), rng.uniform(0.05, 0.15)
    ratio = np.exp(rng.uniform(np.log(RATIO[0]), np.log(RATIO[1])))
    return 1 / (1 + ratio), rng.uniform(0.60, 0.85), rng.uniform(0.002, 0.01)


def _category(rng, balanced, close, first):
    """One category of a panel (see :func:`panel_categories`); ValueError if unreachable."""
    prevalence, tpr, fpr = _svm(rng, balanced)
    if close and first and not balanced:  # the distinct category needs room for its gap
        prevalence = 1 / (1 + np.exp(rng.uniform(np.log(RATIO[0]), np.log(15.0))))
    rho = rng.uniform(0.98, 0.995) if close else rng.uniform(0.5, 0.7)
    svm = PairedClassifiers(n=1000, prevalence=prevalence, tpr_a=tpr, fpr_a=fpr, tpr_b=tpr,
                            fpr_b=fpr, rho=rho, measure="df1")
    if close:
        if not balanced and not first and rng.random() < SILENT_SHARE:
            return replace(svm, tpr_a=0.0, fpr_a=0.0, tpr_b=0.0, fpr_b=0.0)
        gap = (rng.uniform(0.015, 0.03) if first
               else np.exp(rng.uniform(np.log(1 / 20000), np.log(1 / 1200))))
        value = rng.choice((-1.0, 1.0)) * gap
    elif balanced:
        gap = np.exp(rng.uniform(np.log(1e-5), np.log(0.1)))
        value = (1.0 if rng.random() < 0.7 else -1.0) * gap  # A, the MLP, worse in 70%
    else:
        miss, fpr_ratio = np.exp(rng.uniform(np.log(0.02), np.log(0.5))), rng.uniform(1, 1.25)
        if miss > tpr:
            raise ValueError("the MLP's missed share exceeds the SVM's TPR")
        return replace(svm, tpr_a=tpr - miss, fpr_a=fpr * fpr_ratio)
    return replace(svm.with_difference("dcerr", float(value)), measure="df1")


def panel_categories(panel: str, n_categories: int, *, seed: int = 2005,
                     n: int = 1000) -> list[PairedClassifiers]:
    """A reproducible spread of `n_categories` populations ("categories": :class:`PairedClassifiers`
    of `n` examples, measured by dF1) for `panel`, drawn as the module's protocol says."""
    check_choice("panel", panel, tuple(PANELS))
    n_categories = check_int("n_categories", n_categories, low=1)
    n = check_int("n", n, low=1)
    balanced, close = PANELS[panel]
    key = (list(PANELS).index(panel),)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))
    out = []
    while len(out) < n_categories:
        try:
            out.append(replace(_category(rng, balanced, close, not out), n=n))
        except ValueError:
            continue
    return out


@dataclass(frozen=True)
class Protocol:
    """Sizes of one scale: N values, sets per category (S), bootstrap replicates (B, and of the
    centred dF1 interval), categories per panel, exact-null twins."""

    n_values: tuple[int, ...]
    n_sets: int
    n_boot: int
    n_categories: int
    n_twins: int
    n_boot_centred: int


PROTOCOLS = {
    "quick": Protocol((100, 1000, 6000), 100, 1000, 6, 1, 1000),
    "paper": Protocol((100, 200, 500, 1000, 2000, 3000, 4000, 5000, 6000), 500, 5000, 50, 3,
                      1000),
}


def _test(crit) -> str:
    """The test's registered name, without the bootstrap's replicates and stopping rule."""
    return parse_spec(crit.name)[0]


def _measure(crit) -> str:
    return "df1" if _test(crit) in DF1_TESTS else "dcerr"


def _criteria(names, protocol):
    # the percentile dF1 test stops a set's replicates once its decisions at every alpha are
    # settled; the centred one needs all its replicates' mean
    options = {"bootstrap-dcerr": {"n_boot": protocol.n_boot},
               "bootstrap-df1": {"n_boot": protocol.n_boot, "p_max": max(ALPHAS)},
               "bootstrap-df1-centred": {"n_boot": protocol.n_boot_centred}}
    return [get_criterion(t, **options.get(t, {})) for t in names]


def _twins(categories, measure, count):
    """Exact-null twins of the first categories that admit one."""
    out = []
    for cat in categories:
        if len(out) == count:
            break
        try:
            out.append(cat.with_difference(measure, 0.0))
        except ValueError:
            continue
    return out


def _run_group(panel, group, populations, tests, protocol, runs):
    """Rejection counts per (category, N, test, alpha, definition, kind) for one group."""
    if not populations:
        return []
    frames = [make_design(**{**c.to_dict(), "n": list(protocol.n_values)}) for c in populations]
    design = pd.concat(frames, ignore_index=True)
    index = np.repeat(np.arange(len(populations)), len(protocol.n_values))
    criteria = _criteria(tests, protocol)
    res = run_study(design, "paired-classifiers", criteria, n_reps=protocol.n_sets, seed=SEED,
                    alpha=ALPHAS, block_size=protocol.n_sets, **runs.engine, progress=False,
                    keep_values=True)
    rows = []
    for cat, row in zip(index, res.design.to_dict("records"), strict=True):
        cid = int(row["condition_id"])
        cond = res.conditions[cid]
        stats = {_measure(c): res.outcomes[(cid, c.key)].statistic
                 for c in criteria if c.name.startswith("bootstrap")}
        for crit in criteria:
            outcome = res.outcomes[(cid, crit.key)]
            measure = _measure(crit)
            for alpha in ALPHAS:
                k = int(outcome.decisions(alpha).sum())
                truths = {"exact": cond.truth_of(measure)}
                if group == "category":
                    truths["resolution"] = resolution_truth(cond, measure, int(row["n"]))
                    truths["range"] = central_range_truth(stats[measure], alpha)
                for definition, truth in truths.items():
                    rows.append({"panel": panel, "group": group, "category": int(cat),
                                 "n": row["n"], "criterion": _test(crit), "alpha": alpha,
                                 "definition": definition,
                                 "kind": "size" if truth == "null" else "power",
                                 "k": k, "sets": protocol.n_sets})
    return rows


@functools.lru_cache(maxsize=2)
def simulate(scale: str, runs: Runs) -> pd.DataFrame:
    """Rejection counts ``k`` among ``sets`` per panel, group (categories or exact-null twins),
    category, N, test, alpha, truth definition and kind (size or power); cached, as both figures
    read it."""
    protocol = PROTOCOLS[scale]
    rows = []
    for panel in PANELS:
        cats = panel_categories(panel, protocol.n_categories, seed=SEED)
        rows += _run_group(panel, "category", cats, TESTS, protocol, runs)
        rows += _run_group(panel, "dcerr-null", _twins(cats, "dcerr", protocol.n_twins),
                           DCERR_TESTS, protocol, runs)
        rows += _run_group(panel, "df1-null", _twins(cats, "df1", protocol.n_twins),
                           DF1_TESTS, protocol, runs)
    return pd.DataFrame(rows)


def pooled(raw: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Rates of `kind` pooled over sets and categories per panel, definition, N, test and alpha,
    with the cluster MCSE over categories (never below the binomial one), a ``+- 2 MCSE`` band
    (Wilson's with one category), and the ``std`` of the categories' own rates."""
    keys = ["panel", "definition", "n", "criterion", "alpha"]
    full = raw[keys].drop_duplicates()
    cases = raw[raw["kind"] == kind]
    part = cases.groupby(keys, as_index=False).agg(
        k=("k", "sum"), sets=("sets", "sum"), categories=("category", "size"))
    out = full.merge(part, on=keys, how="left").fillna({"k": 0, "sets": 0, "categories": 0})
    out[["k", "sets", "categories"]] = out[["k", "sets", "categories"]].astype(int)
    out["rate"], binomial = rate_mcse(out["k"], out["sets"])
    resid = cases.merge(out[[*keys, "rate"]], on=keys)
    resid["sq"] = (resid["k"] - resid["rate"] * resid["sets"]) ** 2
    sq = out[keys].merge(resid.groupby(keys, as_index=False)["sq"].sum(), on=keys,
                         how="left")["sq"].to_numpy()
    c = out["categories"].to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        cluster = np.sqrt(c / (c - 1) * sq) / out["sets"].to_numpy()
    many = c >= 2
    out["mcse"] = np.where(many, np.fmax(cluster, binomial), binomial)
    cases = cases.assign(share=cases["k"] / cases["sets"])
    spread = cases.groupby(keys, as_index=False)["share"].std(ddof=1)
    out["std"] = out[keys].merge(spread, on=keys, how="left")["share"].to_numpy()
    wilson_low, wilson_high = wilson_interval(out["k"], out["sets"])
    out["ci_low"] = np.where(many, np.clip(out["rate"] - 2 * out["mcse"], 0, 1), wilson_low)
    out["ci_high"] = np.where(many, np.clip(out["rate"] + 2 * out["mcse"], 0, 1), wilson_high)
    order = ["panel", "definition", "n", "criterion", "alpha", "rate", "mcse", "ci_low",
             "ci_high", "sets", "categories", "std"]
    return out[order].sort_values(keys, ignore_index=True)


def compute_fig1(scale, runs):
    """Figure 1's data: rates of rejecting H0 where it holds (:func:`pooled` of
    :func:`simulate`) under both definitions of H0; ``fig1-exact`` reads the same data.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        :func:`pooled`'s columns ``panel, definition, n, criterion, alpha, rate, mcse, ci_low,
        ci_high, sets, categories, std``, one row per (panel, definition, N, test, alpha).

    Examples
    --------
    Seconds at the quick scale (:func:`simulate`, cached, is shared with
    :func:`compute_fig2`):

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_fig1("quick", Runs())  # doctest: +SKIP
    >>> data.shape  # doctest: +SKIP
    (756, 12)
    """
    return pooled(simulate(scale, runs), "size")


def compute_fig2(scale, runs):
    """Figure 2's data: rates of rejecting H0 where it fails (:func:`pooled` of
    :func:`simulate`) under both definitions of H0; ``fig2-exact`` reads the same data.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        As :func:`compute_fig1`, with powers for rates.

    Examples
    --------
    Seconds at the quick scale (:func:`simulate`, cached, is shared with
    :func:`compute_fig1`):

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_fig2("quick", Runs())  # doctest: +SKIP
    >>> data.shape  # doctest: +SKIP
    (756, 12)
    """
    return pooled(simulate(scale, runs), "power")


COLORS = {"proportion": "tab:green", "mcnemar": "tab:blue", "mcnemar-exact": "tab:cyan",
          "mcnemar-midp": "tab:purple", "bootstrap-dcerr": "tab:orange",
          "bootstrap-df1": "tab:red", "bootstrap-df1-centred": "tab:brown"}
#: Our variants are dashed.
DASHED = ("mcnemar-exact", "mcnemar-midp", "bootstrap-df1-centred")


def _plot(data, ylabel, definition, tests):
    fig = MplFigure(figsize=(10, 7.5), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True).ravel()
    data = data[(data["alpha"] == ALPHA) & (data["definition"] == definition)
                & data["criterion"].isin(tests)]
    for ax, panel in zip(axes, PANELS, strict=True):
        for crit in tests:
            curve = data[(data["panel"] == panel) & (data["criterion"] == crit)].sort_values("n")
            ax.plot(curve["n"], curve["rate"], color=COLORS[crit], marker=".", label=crit,
                    linestyle="--" if crit in DASHED else "-")
            ax.fill_between(curve["n"], curve["ci_low"], curve["ci_high"], color=COLORS[crit],
                            alpha=0.12, linewidth=0)
        if not data.loc[data["panel"] == panel, "rate"].notna().any():
            ax.text(0.5, 0.5, "no H0 case" if ylabel == "size" else "no H1 case",
                    transform=ax.transAxes, ha="center", va="center")
        if ylabel == "size":
            ax.axhline(ALPHA, color="black", linewidth=0.8)
        ax.set_title(f"({panel}) {PANEL_TITLES[panel]}", fontsize=10)
        ax.set_xlabel("evaluation set size N")
        ax.set_ylabel(ylabel)
    handles, labels = axes[0].get_legend_handles_labels()  # below the panels: covers no curve
    fig.legend(handles, labels, loc="outside lower center", ncols=len(tests), fontsize=8)
    return fig


_PLOT_EXAMPLE = """
    Examples
    --------
    A hand-made table of constant rates:

    >>> import pandas as pd
    >>> rows = [{{"panel": p, "definition": d, "n": n, "criterion": c, "alpha": 0.05,
    ...          "rate": 0.04, "ci_low": 0.03, "ci_high": 0.05}}
    ...         for p in PANELS for d in DEFINITIONS for n in (100, 1000, 6000) for c in TESTS]
    >>> fig = {name}(pd.DataFrame(rows))
    >>> ax = fig.axes[0]
    >>> len(fig.axes), ax.get_title(), ax.get_ylabel(), len(fig.legends[0].get_texts())
    (4, '(a) balanced, different models', '{ylabel}', {curves})
"""


def _plotter(name, ylabel, definition, tests, what):
    def plot(data):
        return _plot(data, ylabel, definition, tests)

    plot.__name__ = plot.__qualname__ = name
    plot.__doc__ = (f"{what}, one panel per panel of :data:`PANELS`, at alpha = 0.05."
                    """

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig1`'s (or :func:`compute_fig2`'s) columns ``panel, definition, n,
        criterion, alpha, rate, ci_low, ci_high``.

    Returns
    -------
    matplotlib.figure.Figure
        Four panels, (a) to (d), a curve per test with a band from ``ci_low`` to ``ci_high``;
        a panel without any case says so.
""" + _PLOT_EXAMPLE.format(name=name, ylabel=ylabel, curves=len(tests)))
    plot.__module__ = __name__
    return plot


plot_fig1 = _plotter("plot_fig1", "size", "resolution", FIGURE_TESTS,
                     "Figure 1: size against N of the paper's four tests and the centred dF1 "
                     "interval, H0 by the resolution rule")
plot_fig2 = _plotter("plot_fig2", "power", "resolution", FIGURE_TESTS,
                     "Figure 2: power against N of the paper's four tests and the centred dF1 "
                     "interval, H0 by the resolution rule")
plot_fig1_range = _plotter("plot_fig1_range", "size", "range", FIGURE_TESTS,
                           "Sensitivity of Figure 1: size against N, H0 by the central-range "
                           "rule")
plot_fig2_range = _plotter("plot_fig2_range", "power", "range", FIGURE_TESTS,
                           "Sensitivity of Figure 2: power against N, H0 by the central-range "
                           "rule")
#: The exact-null supplements' curves: the paper's four tests and McNemar's exact and mid-p
#: variants (the centred dF1 interval is in their data and checks).
EXACT_TESTS = (*DCERR_TESTS, "bootstrap-df1")
plot_fig1_exact = _plotter("plot_fig1_exact", "size", "exact", EXACT_TESTS,
                           "Supplement to Figure 1: size against N under exact nulls, the "
                           "paper's four tests and McNemar's exact and mid-p variants")
plot_fig2_exact = _plotter("plot_fig2_exact", "power", "exact", EXACT_TESTS,
                           "Supplement to Figure 2: power against N, exact truth, the paper's "
                           "four tests and McNemar's exact and mid-p variants")


# --- Targets: K (the paper's claims) and C (its captions' facts) ----------------------------

_CONVERGE = ('"First of all, as expected, most of the statistical tests are positively '
             'influenced by the size of the evaluation set, in the sense that their alpha_true '
             'value converges to alpha for large sample sizes." (Sec 3.3)')
_LEVELS = ('"Note that the same is true for the variance of alpha_true (-> 0), and this for '
           'any of the alpha values tested." (Sec 3.3, footnote 1)')
_SIMILAR = ('"On the available results, the McNemar test and the bootstrap test over dCerr '
            'have a similar performance. They are always pessimistic even for small evaluation '
            'set sizes" (Sec 3.3)')
_POWER_SIMILAR = ('"They have also a similar performance in Power over all the different '
                  'conditions, higher in general when comparing very different models." '
                  '(Sec 3.3)')
_DF1 = ('"When the compared models are similar, the bootstrap test over dF1 has a pessimistic '
        'behavior even on quite small evaluation sets. However, when the models are really '
        'different the bootstrap test over dF1 is on average always optimistic." (Sec 3.3)')
_HEDGE = ('"Note nevertheless that most of the points in Figures 1(a) and 1(b) have a '
          'standard deviation std, over the categories, such that alpha_true - std < alpha" '
          '(Sec 3.3)')
_CENTRED = ('"one can for instance consider an interval [a,b] such that p(a < dF1 < b) = '
            '1 - alpha centered around the mean of p(dF1). If 0 lies outside this interval, '
            '[...] reject the null hypothesis." (Sec 2.2)')
_CONSISTENT = ('"Note however that for dF1 the only available statistical test was too '
               'optimistic although consistant for different levels." (Sec 4)')
_PROPORTION = ('"The proportion test have in general, on the available results, a more '
               'conservative behavior than the McNemar test and the dCerr bootstrap test. It has '
               'more pessimistic results and less Power." (Sec 3.3)')
_PROPORTION_D = ('"However, when comparing close models in a small unbalanced evaluation set '
                 '(Figure 1(d)), this conservative behavior is not present." (Sec 3.3)')
_DF1_POWER = ('"The bootstrap-based statistical test over dF1 has higher Power than the other '
              'compared tests, however it must be emphasized that it is slightly '
              'over-optimistic in particular for small evaluation sets." (Sec 3.3)')
_LOW_POWER = ('"However both significance test performances in Power are low even for big '
              'evaluation sets in particular when the compared models are close." (Sec 3.3)')
_FIG1_CAPTION = ('"The proportion of Type I error equals -1, in Figure 1(b), when there was no '
                 'data to compute the proportion (ie H0 was always false)." (Fig 1 caption)')
_FIG2_CAPTION = ('"The power equals -1, in Figures 2(c) and 2(d), when there was not data to '
                 'compute the proportion (ie H1 was never true)." (Fig 2 caption)')
_FIRST_POINTS = ('"Hence, for instance the first points ({100,...,1000}) of Figures 2(c) and '
                 '2(d) were computed over only 500 evaluation sets on which respectively the '
                 'same categorization task was performed." (Sec 3.3)')

_MEAN_ABOVE = "mean size over N <= 1000 above 0.05 by 2 MCSE"
_BASE = [
    Target("K1", "most of the paper's four tests have size <= alpha + 3 MCSE at N = 6000, at "
           "alpha = 0.01, 0.05 and 0.1 (sub-checks; each must hold)",
           paper="most of the statistical tests [...] converges to alpha [...] for any of the "
           "alpha values tested", source=f"{_CONVERGE} {_LEVELS}",
           tolerance="3 MCSE, at every alpha"),
    Target("K2", "McNemar, bootstrap-dCerr never optimistic (size <= alpha + 2 MCSE)",
           paper="always pessimistic even for small evaluation set sizes", source=_SIMILAR,
           tolerance="2 MCSE"),
    Target("K3-size", "McNemar and bootstrap-dCerr sizes similar: on the same side of alpha at "
           "every (panel, N), and the same trend against N",
           paper="a similar performance", source=_SIMILAR,
           tolerance="no point with one above alpha + 2 MCSE and the other below alpha - 2 "
           "MCSE; no step between neighbouring N up by 2 MCSE for one and down for the other"),
    Target("K3-size gaps", "McNemar - bootstrap-dCerr size, under each truth rule, and with "
           "McNemar's mid-p variant in its place", paper="not stated", source=_SIMILAR,
           role="finding"),
    Target("K4", "bootstrap-dF1 optimistic, different models (a, b): the percentile interval "
           "at alpha = 0.01, 0.05 and 0.1, and the interval centred on the mean at 0.05 "
           "(sub-checks)", paper="on average always optimistic [...] too optimistic although "
           "consistant for different levels", source=f"{_DF1} {_HEDGE} {_CONSISTENT} {_CENTRED}",
           tolerance="mean size over N <= 1000 above alpha by 2 MCSE, at every alpha, both "
           "intervals"),
    Target("K5", "bootstrap-dF1 pessimistic, close models (c, d): the percentile interval and "
           "the interval centred on the mean (sub-checks)",
           paper="a pessimistic behavior even on quite small evaluation sets",
           source=f"{_DF1} {_CENTRED}",
           tolerance="mean size over N below 0.05 by 2 MCSE, both intervals"),
    Target("K7-size", "proportion test the most conservative (a, b, c; mean size over the N "
           "all tests share)", paper="a more conservative behavior than the McNemar test and "
           "the dCerr bootstrap test", source=_PROPORTION, tolerance="lowest mean size"),
    Target("K7-d", "proportion test optimistic, close models, small unbalanced sets "
           "(d, N <= 1000)", paper="this conservative behavior is not present",
           source=_PROPORTION_D, tolerance=_MEAN_ABOVE),
    Target("K3-power", "McNemar and bootstrap-dCerr powers similar: the same trend against N",
           paper="a similar performance in Power", source=_POWER_SIMILAR,
           tolerance="no step between neighbouring N up by 2 MCSE for one and down for the "
           "other"),
    Target("K3-power gaps", "McNemar - bootstrap-dCerr power, under each truth rule, and with "
           "McNemar's mid-p variant in its place", paper="not stated", source=_POWER_SIMILAR,
           role="finding"),
    Target("K6", "bootstrap-dF1 has the highest power (mean over the N all tests share)",
           paper="higher Power than the other compared tests", source=_DF1_POWER,
           tolerance="highest mean power in every panel"),
    Target("K7-power", "proportion test has the lowest power (mean over the N all tests share)",
           paper="less Power", source=_PROPORTION, tolerance="lowest mean power in every panel"),
    Target("K8", "McNemar and bootstrap-dCerr power lower for close models (c below a, d below "
           "b; mean over the N where both panels have more than one H1 category)",
           paper="low even for big evaluation sets in particular when the compared models are "
           "close", source=f"{_LOW_POWER} "
           f"{_POWER_SIMILAR}", tolerance="lower mean power"),
]
_CALIBRATION = [
    Target("C1", "panel b has an H1 category at every N (every test)",
           paper="-1 [...] in Figures 2(c) and 2(d)", source=_FIG2_CAPTION,
           tolerance="no empty power", role="calibration"),
    Target("C2", "panel b has an N with no H0 category", paper="-1, in Figure 1(b) [...] H0 "
           "was always false", source=_FIG1_CAPTION, tolerance="an empty size",
           role="calibration"),
    Target("C3", "panels c, d: one H1 category at every N <= 1000, more at some N > 1000",
           paper="the first points ({100,...,1000}) [...] computed over only 500 evaluation "
           "sets", source=_FIRST_POINTS, tolerance="exactly 1, then > 1", role="calibration"),
    Target("C4", "panels a, c, d have an H0 category at every N (every test)",
           paper="-1, in Figure 1(b)", source=_FIG1_CAPTION, tolerance="no empty size",
           role="calibration"),
]
#: Labels of the truth definitions in the targets' ids and claims.
_VARIANTS = {"range": "central-range rule (sensitivity)", "exact": "exact nulls"}

#: The paper's targets and its captions' facts under the resolution rule; the targets again
#: under the central-range rule and under exact nulls (ours).
TARGETS = Targets([*_BASE, *_CALIBRATION, *(
    replace(t, id=f"{t.id} {d}", claim=f"{t.claim}; {label}", role="extension")
    for d, label in _VARIANTS.items() for t in _BASE if t.role != "finding")])


def _id(base, definition):
    return base if definition == "resolution" else f"{base} {definition}"


def _curves(data, definition, alpha=ALPHA):
    """``{(panel, criterion): DataFrame indexed by n}`` at level `alpha`."""
    data = data[(data["alpha"] == alpha) & (data["definition"] == definition)]
    return {key: g.set_index("n").sort_index() for key, g in data.groupby(["panel", "criterion"])}


#: Why a target can fail under the central-range rule, whatever the test does.
RULE_WHY = ("the central-range rule counts as H0 a category whose true difference lies within "
            "its sets' central range, so rejections of real but small differences count as "
            "size")


#: Why the proportion test is conservative for close models.
PROPORTION_WHY = ("Eq 3 assumes A's and B's errors independent, which overstates the variance "
                  "of D when they are strongly correlated (close models: rho 0.98-0.995)")


#: Why the percentile dF1 test is not optimistic on unbalanced sets (measured on three
#: exact-null twins of panel b: 50-76% of replicates tie at N = 100, 4-14% at N = 500).
DF1_TIES_WHY = ("in b, with 1-9% positives a set of N <= 1000 holds few of them, so many "
                "replicates tie at dF1* = 0 and a tie counts on both sides of 0: the test is "
                "conservative there; in a (balanced) its size stays near alpha")

#: Why close models' power need not be below different models' in this population.
POWER_WHY = ("the close panels' H1 categories include the one distinct SVM pair (dCerr gap "
             "0.015-0.03, power near 1 at every N), and panel a's include many gaps just above "
             "the resolution (the gaps down to 1e-5 that C4 needs), whose power is low")


def _why(definition):
    return f": {RULE_WHY}" if definition == "range" else ""


def _excesses(curves, tests, at_n, alpha):
    """``(excess in MCSE, panel, test, n, rate)`` of every defined size of `tests`."""
    out = []
    for panel in PANELS:
        for test in tests:
            curve = curves.get((panel, test))
            if curve is None:
                continue
            if at_n is not None:
                curve = curve[curve.index == at_n]
            for n, row in curve[curve["rate"].notna()].iterrows():
                out.append(((row["rate"] - alpha) / max(row["mcse"], 1e-12), panel, test, n,
                            row["rate"]))
    return out


def _most_check(id, curves, at_n, z, definition, alpha=ALPHA):
    """Most (more than half) of the defined sizes of the paper's tests at N = `at_n` are
    <= alpha + z MCSE."""
    points = _excesses(curves, PAPER_TESTS, at_n, alpha)
    if not points:
        return TARGETS.holds(id, ours="no null case", passed=False,
                             note="no evaluation set where H0 holds: size undefined")
    over = [p for p in points if p[0] > z]
    ours = f"{len(points) - len(over)} of {len(points)} (panel, test) sizes within"
    note = "; ".join(f"{test} {rate:.3f} in {panel} ({excess:+.1f} MCSE)"
                     for excess, panel, test, _, rate in over)
    if over:
        note += _why(definition)
    passed = 2 * len(over) < len(points)
    return TARGETS.holds(id, ours=ours, passed=passed, note=note,
                         evidence=definition == "range")


#: How a claim's sub-checks at the three levels combine.
LEVELS_RULE = ("sub-checks at alpha = 0.01, 0.05, 0.1: the row passes only if every level "
               "passes, fails if one fails, else is inconclusive (the paper says it at every "
               "level)")
#: How the two readings of the paper's dF1 interval combine.
READINGS_RULE = ("the percentile interval and the interval centred on the mean are two "
                 "readings of the paper's interval: the row is inconclusive when they disagree")


def _folded(id, subs, rule, passed, evidence=False, extra=""):
    """One row of a claim from its labelled sub-checks ``{label: Check}``: each one's result
    and note, then the `rule` that gave `passed`."""
    ours = "; ".join(f"{label}: {c.ours}" for label, c in subs.items())
    notes = [f"{label} {c.result}" + (f" ({c.note})" if c.note and c.passed is not True else "")
             for label, c in subs.items()]
    note = "; ".join(notes) + f". Rule: {rule}" + (f". {extra}" if extra else "")
    return TARGETS.holds(id, ours=ours, passed=passed, note=note, evidence=evidence)


def _converge_check(data, definition):
    """K1 at each level of :data:`ALPHAS`, folded into one row (:data:`LEVELS_RULE`)."""
    id = _id("K1", definition)
    subs = {f"alpha {a:g}": _most_check(id, _curves(data, definition, a), 6000, 3, definition,
                                        alpha=a) for a in (ALPHA, 0.01, 0.1)}
    passed = combine(c.passed for c in subs.values())
    return _folded(id, subs, LEVELS_RULE, passed,
                   evidence=all(c.evidence for c in subs.values() if c.passed is False))


def _bound_check(id, curves, tests, z, definition):
    """Every defined size of `tests`, at every N, is <= alpha + z MCSE."""
    points = _excesses(curves, tests, None, ALPHA)
    if not points:
        return TARGETS.holds(id, ours="no null case", passed=False,
                             note="no evaluation set where H0 holds: size undefined")
    excess, panel, test, n, rate = max(points)
    ours = f"worst {rate:.3f} ({test}, {panel}, N={n}: {excess:+.1f} MCSE); {len(points)} points"
    note = ""
    if excess > z:
        note = f"{test} optimistic in panel {panel} at N={n}" + _why(definition)
    return TARGETS.holds(id, ours=ours, passed=excess <= z, note=note,
                         evidence=definition == "range")


#: Rates are ratios of counts: a gap equal to the tolerance in exact arithmetic may exceed it
#: by rounding (458/1000 - 408/1000 = 0.050000000000000044).
EXACT = 1e-12
#: The pair whose similarity K3 claims.
_PAIR = ("mcnemar", "bootstrap-dcerr")


def _side(rate, mcse, alpha):
    """+1 above `alpha` by more than 2 MCSE, -1 below by more, 0 within."""
    return int(np.sign(rate - alpha)) if abs(rate - alpha) > 2 * mcse + EXACT else 0


def _similar_check(id, curves, alpha=None):
    """McNemar and bootstrap-dCerr behave alike: with `alpha` (sizes), never on opposite sides of
    it by 2 MCSE at a (panel, N); and never opposite steps between neighbouring N, each step
    judged by 2 MCSE of the difference (the trend)."""
    sides, steps, points = [], [], 0
    for panel in PANELS:
        both = pd.DataFrame({(t, k): curves[(panel, t)][k] for t in _PAIR
                             for k in ("rate", "mcse")}).dropna()
        points += len(both)
        rates = {t: both[(t, "rate")].to_numpy() for t in _PAIR}
        ses = {t: both[(t, "mcse")].to_numpy() for t in _PAIR}
        if alpha is not None:
            sides += [f"{panel} N={n}" for n, *s in zip(both.index, *(
                [_side(r, m, alpha) for r, m in zip(rates[t], ses[t], strict=True)]
                for t in _PAIR), strict=True) if s[0] * s[1] < 0]
        step = {t: [_side(r1 - r0, np.hypot(m0, m1), 0.0) for r0, r1, m0, m1 in zip(
            rates[t][:-1], rates[t][1:], ses[t][:-1], ses[t][1:], strict=True)] for t in _PAIR}
        steps += [f"{panel} N={a}-{b}" for a, b, s0, s1 in zip(
            both.index[:-1], both.index[1:], *step.values(), strict=True) if s0 * s1 < 0]
    if not points:
        return TARGETS.holds(id, ours="no case", passed=False,
                             note="no evaluation set in this case")
    ours = (f"{points} (panel, N) points: "
            + (f"opposite sides of alpha at {len(sides)}; " if alpha is not None else "")
            + f"opposite steps at {len(steps)}")
    note = "; ".join([*(f"opposite sides at {s}" for s in sides),
                      *(f"opposite steps at {s}" for s in steps)])
    return TARGETS.holds(id, ours=ours, passed=not sides and not steps, note=note)


def _gap_range(curves, test):
    """The range of `test` - bootstrap-dCerr over the (panel, N) where both have a rate, and
    where its widest gap is."""
    gaps = pd.concat([(curves[(p, test)]["rate"] - curves[(p, "bootstrap-dcerr")]["rate"])
                      .dropna().rename(lambda n, p=p: (p, n)) for p in PANELS])
    if not len(gaps):
        return "no case"
    widest = gaps.abs().idxmax()
    return (f"{gaps.min():+.3f} to {gaps.max():+.3f} (widest: {widest[0]}, "
            f"N={widest[1]})")


def _gaps_finding(id, data):
    """The K3 gaps as a finding: McNemar's (and its mid-p variant's) rate minus
    bootstrap-dCerr's, under each truth rule."""
    parts = {d: {t: _gap_range(_curves(data, d), t) for t in ("mcnemar", "mcnemar-midp")}
             for d in DEFINITIONS}
    ours = "; ".join(f"{d}: {parts[d]['mcnemar']}" for d in DEFINITIONS)
    note = ("McNemar's mid-p variant in its place: "
            + "; ".join(f"{d} {parts[d]['mcnemar-midp']}" for d in DEFINITIONS)
            + ": the continuity-corrected McNemar test is the more conservative when "
              "discordant pairs are few (small N, unbalanced or close panels); without the "
              "correction's conservatism the gap narrows")
    return TARGETS.finding(id, ours=ours, note=note)


def _order_check(id, curves, panels, best, highest, case):
    """`best` has the highest (or lowest) mean rate among the paper's four tests, each averaged
    over the N values where all four have a rate (not each over its own); a panel where another
    test leads by less than 2 MCSE of the difference is a coin flip: inconclusive."""
    failed, parts, close = [], [], []
    word = "highest" if highest else "lowest"
    for panel in panels:
        rates = pd.DataFrame({t: curves[(panel, t)]["rate"] for t in PAPER_TESTS}).dropna()
        means = {t: float(rates[t].mean()) for t in PAPER_TESTS} if len(rates) else {}
        if best not in means:
            failed.append(f"{panel}: no {case}")
            continue
        pick = max(means, key=means.get) if highest else min(means, key=means.get)
        if abs(means[pick] - means[best]) <= EXACT:  # a tie counts for `best`
            pick = best
        parts.append(f"{panel}: {best} {means[best]:.3f}"
                     + ("" if pick == best else f" ({word}: {pick} {means[pick]:.3f})"))
        if pick != best:
            se = {t: pooled_mcse(curves[(panel, t)]["mcse"].reindex(rates.index))
                  for t in (pick, best)}
            gap = abs(means[pick] - means[best])
            failed.append(f"{panel}: {pick} {word} by {gap:.3f} "
                          f"(the means' MCSEs {se[pick]:.3f}, {se[best]:.3f})")
            close.append(gap <= 2 * np.hypot(se[pick], se[best]))
    passed = not failed and bool(parts)
    note = "; ".join(failed)
    if failed and len(close) == len(failed) and all(close):
        passed = None
        note += ("; inconclusive: the lead is within 2 MCSE of the difference (the MCSEs "
                 "combined as independent)")
    return TARGETS.holds(id, ours="; ".join(parts) or "no case", passed=passed, note=note)


def _mean_vs_alpha(id, curves, test, panels, max_n, above, definition, why="", alpha=ALPHA,
                   hedge=False, evidence=False):
    """The mean size of `test` over N (<= max_n) is above (or below) `alpha` by more than
    2 MCSE (of the mean) in every panel; it fails when a panel is on the other side by more than
    2 MCSE, and is inconclusive when every panel that misses is within 2 MCSE of `alpha`; with
    `hedge`, also how many points have ``rate - std < alpha`` (std over the categories, the
    paper's own hedge)."""
    parts, missed, hedged, close = [], [], [], []
    for panel in panels:
        curve = curves.get((panel, test), pd.DataFrame({"rate": [], "mcse": [], "std": []}))
        if max_n is not None:
            curve = curve[curve.index <= max_n]
        curve = curve[curve["rate"].notna()]
        m = float(curve["rate"].mean()) if len(curve) else float("nan")
        se = float(np.sqrt((curve["mcse"] ** 2).sum())) / max(len(curve), 1)
        parts.append(f"{panel}: {m:.3f} (MCSE {se:.3f})")
        margin = (m - alpha) if above else (alpha - m)
        if not (np.isfinite(m) and margin > 2 * se):
            missed.append(panel)
            if np.isfinite(m) and margin >= -2 * se:
                close.append(f"{panel} {margin / se:+.2f}" if se > 0 else f"{panel} 0")
        if hedge:
            hedged.append(((curve["rate"] - curve["std"]) < alpha).sum())
    ours = "; ".join(parts)
    if hedge:
        ours += f"; {sum(hedged)} of the points have rate - std < {alpha}"
    note, passed = "", not missed
    if missed:
        side = "above" if above else "below"
        note = f"mean size not {side} {alpha} by 2 MCSE in panel {', '.join(missed)}"
        if len(close) == len(missed):
            passed = None
            note += (f"; inconclusive: within 2 MCSE of {alpha} (MCSEs toward the paper's "
                     f"side: {', '.join(close)}), not beyond it on the other side")
        else:
            note += _why(definition) if not above else ""
            note += f"; {why}" if why else ""
    return TARGETS.holds(id, ours=ours, passed=passed, note=note,
                         evidence=evidence or (definition == "range" and not above))


def _cross_rule(data):
    """K2 and K4 (the percentile dF1 interval at 0.05) under each truth rule: the text, and
    whether no rule that keeps McNemar and bootstrap-dCerr pessimistic (K2) makes the dF1 test
    optimistic (K4)."""
    verdicts = {}
    for d in DEFINITIONS:
        c = _curves(data, d)
        verdicts[d] = (_bound_check(_id("K2", d), c, _PAIR, 2, d).passed,
                       _mean_vs_alpha(_id("K4", d), c, "bootstrap-df1", "ab", 1000, True,
                                      d).passed)
    holds = not any(k2 and k4 for k2, k4 in verdicts.values())
    words = {True: "pass", False: "FAIL", None: "inconclusive"}
    text = ("Across truth rules (K2, K4 at 0.05): " + "; ".join(
        f"{d} {words[k2]}, {words[k4]}" for d, (k2, k4) in verdicts.items()))
    if holds:
        text += (": no truth rule that keeps McNemar and bootstrap-dCerr pessimistic makes the "
                 "percentile dF1 test optimistic at N <= 1000; the rule that does (the central "
                 "range) makes them optimistic too")
    return text, holds


def _optimistic_check(data, definition):
    """K4: the percentile dF1 interval at each level (:data:`LEVELS_RULE`) and the centred one
    at 0.05 (:data:`READINGS_RULE`), with the cross-rule argument (:func:`_cross_rule`)."""
    id = _id("K4", definition)
    subs = {f"percentile {a:g}": _mean_vs_alpha(
        id, _curves(data, definition, a), "bootstrap-df1", "ab", 1000, True, definition,
        alpha=a, hedge=a == ALPHA) for a in (ALPHA, 0.01, 0.1)}
    subs["centred 0.05"] = _mean_vs_alpha(
        id, _curves(data, definition), "bootstrap-df1-centred", "ab", 1000, True, definition,
        hedge=True)
    levels = combine(subs[f"percentile {a:g}"].passed for a in (ALPHA, 0.01, 0.1))
    passed = agree((levels, subs["centred 0.05"].passed))
    cross, holds = _cross_rule(data)
    why = f"Why not: {DF1_TIES_WHY}. " if passed is not True else ""
    return _folded(id, subs, f"{LEVELS_RULE}; {READINGS_RULE}", passed,
                   evidence=passed is False and holds, extra=why + cross)


def _pessimistic_check(data, definition):
    """K5: the percentile and the centred dF1 intervals at 0.05 (:data:`READINGS_RULE`)."""
    id, c = _id("K5", definition), _curves(data, definition)
    subs = {label: _mean_vs_alpha(id, c, test, "cd", None, False, definition)
            for label, test in (("percentile", "bootstrap-df1"),
                                ("centred", "bootstrap-df1-centred"))}
    return _folded(id, subs, READINGS_RULE, agree(s.passed for s in subs.values()),
                   evidence=all(s.evidence for s in subs.values()))


def _power_lower_check(id, curves, definition):
    """McNemar's and bootstrap-dCerr's mean powers are lower in the close panel than in the
    different one (c vs a, d vs b), over the N where both panels pool more than one H1
    category (the paper calls its close panels' points at N <= 1000, one task each,
    unreliable); inconclusive where no such N exists."""
    parts, failed, empty = [], [], []
    for test in _PAIR:
        for close, different in (("c", "a"), ("d", "b")):
            frames = {p: curves[(p, test)] for p in (close, different)}
            many = pd.DataFrame({p: f["categories"] > 1 for p, f in frames.items()}).all(axis=1)
            rates = pd.DataFrame({p: f["rate"] for p, f in frames.items()})[many].dropna()
            if not len(rates):
                empty.append(f"{test} {close}/{different}")
                continue
            low, high = float(rates[close].mean()), float(rates[different].mean())
            parts.append(f"{test} {close} {low:.3f} vs {different} {high:.3f} "
                         f"(N {rates.index.min()}-{rates.index.max()})")
            if not low < high:
                failed.append(f"{test}: {close} not below {different}")
    note = "; ".join(failed)
    if failed and definition != "exact":
        note += f": {POWER_WHY}"
    passed = not failed and not empty
    if empty and not failed:
        passed = None
        note = ("inconclusive: no N where both panels have more than one H1 category ("
                + ", ".join(empty) + ")")
    return TARGETS.holds(id, ours="; ".join(parts) or "no case", passed=passed, note=note)


def _size_checks(data, definition):
    c = _curves(data, definition)
    return [
        _converge_check(data, definition),
        _bound_check(_id("K2", definition), c, _PAIR, 2, definition),
        _similar_check(_id("K3-size", definition), c, alpha=ALPHA),
        _optimistic_check(data, definition),
        _pessimistic_check(data, definition),
        _order_check(_id("K7-size", definition), c, "abc", "proportion", False, "null set"),
        _mean_vs_alpha(_id("K7-d", definition), c, "proportion", "d", 1000, True, definition,
                       why=PROPORTION_WHY, evidence=True),
    ]


def _power_checks(data, definition):
    c = _curves(data, definition)
    return [
        _similar_check(_id("K3-power", definition), c),
        _order_check(_id("K6", definition), c, PANELS, "bootstrap-df1", True,
                     "alternative set"),
        _order_check(_id("K7-power", definition), c, PANELS, "proportion", False,
                     "alternative set"),
        _power_lower_check(_id("K8", definition), c, definition),
    ]


def _categories(data):
    """``{(panel, n): [categories pooled by each of the paper's tests]}`` under the
    resolution rule, at the figures' alpha."""
    data = data[(data["alpha"] == ALPHA) & (data["definition"] == "resolution")
                & data["criterion"].isin(PAPER_TESTS)]
    return {key: g["categories"].tolist() for key, g in data.groupby(["panel", "n"])}


def _caption_checks_size(data):
    cats = _categories(data)
    empty_b = sorted(n for (p, n), c in cats.items() if p == "b" and min(c) == 0)
    empty = sorted(f"{p}, N={n}" for (p, n), c in cats.items() if p in "acd" and min(c) == 0)
    return [
        TARGETS.holds("C2", ours=f"no H0 category at N = {', '.join(map(str, empty_b))}"
                      if empty_b else "an H0 category at every N", passed=bool(empty_b)),
        TARGETS.holds("C4", ours="no empty size" if not empty else "empty: " + "; ".join(empty),
                      passed=not empty),
    ]


def _caption_checks_power(data):
    cats = _categories(data)
    empty_b = sorted(n for (p, n), c in cats.items() if p == "b" and min(c) == 0)
    parts, ok = [], True
    for panel in "cd":
        small = sorted({x for (p, n), c in cats.items() if p == panel and n <= 1000 for x in c})
        large = max((max(c) for (p, n), c in cats.items() if p == panel and n > 1000), default=0)
        parts.append(f"{panel}: {small} at N <= 1000, up to {large} beyond")
        ok = ok and small == [1] and large > 1
    return [
        TARGETS.holds("C1", ours="an H1 category at every N" if not empty_b
                      else f"no H1 category at N = {', '.join(map(str, empty_b))}",
                      passed=not empty_b),
        TARGETS.holds("C3", ours="; ".join(parts), passed=ok),
    ]


_CHECK_EXAMPLE = """
    Examples
    --------
    A hand-made table of constant rates, one category pooled everywhere:

    >>> import pandas as pd
    >>> rate = {{"proportion": 0.02, "mcnemar": 0.04, "mcnemar-exact": 0.03,
    ...         "mcnemar-midp": 0.045, "bootstrap-dcerr": 0.045, "bootstrap-df1": 0.08,
    ...         "bootstrap-df1-centred": 0.07}}
    >>> data = pd.DataFrame([{{"panel": p, "definition": d, "n": n, "criterion": c,
    ...                       "alpha": a, "rate": rate[c], "mcse": 0.01, "std": 0.02,
    ...                       "categories": 1}}
    ...                      for p in PANELS for d in DEFINITIONS for n in (100, 1000, 6000)
    ...                      for c in TESTS for a in ALPHAS])
    >>> [(c.id, c.passed) for c in {name}(data, "quick")][:{k}]
    {result}
"""


def _checker(name, checks, definition, what, result, k):
    def check(data, scale):
        return checks(data, definition)

    check.__name__ = check.__qualname__ = name
    check.__doc__ = (f"{what}." """

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig1`'s (or :func:`compute_fig2`'s) columns ``panel, definition, n,
        criterion, alpha, rate, mcse, std, categories``, with every panel, test and alpha,
        and N = 6000.
    scale : {'quick', 'paper'}
        Unused: the targets are judged alike at both scales.

    Returns
    -------
    list of Check
""" + _CHECK_EXAMPLE.format(name=name, result=result, k=k))
    check.__module__ = __name__
    return check


def _with_gaps(checks, kind, data):
    """`checks` with the K3 gaps' finding of `kind` (``'size'`` or ``'power'``) after K3's row."""
    at = next(i for i, c in enumerate(checks) if c.id == f"K3-{kind}") + 1
    return [*checks[:at], _gaps_finding(f"K3-{kind} gaps", data), *checks[at:]]


check_fig1 = _checker(
    "check_fig1", lambda data, d: [*_with_gaps(_size_checks(data, d), "size", data),
                                   *_caption_checks_size(data)],
    "resolution", "Judge the size targets (K1, K2, K3-size, K4, K5, K7-size, K7-d) under the "
    "resolution rule, report the K3 gaps under every rule (a finding), and judge the captions' "
    "facts C2 and C4", "[('K1', False), ('K2', True), ('K3-size', True)]", 3)
check_fig2 = _checker(
    "check_fig2", lambda data, d: [*_with_gaps(_power_checks(data, d), "power", data),
                                   *_caption_checks_power(data)],
    "resolution", "Judge the power targets (K3-power, K6, K7-power, K8) under the resolution "
    "rule, report the K3 gaps under every rule (a finding), and judge the captions' facts C1 "
    "and C3", "[('K3-power', True), ('K3-power gaps', None), ('K6', True)]", 3)
check_fig1_range = _checker(
    "check_fig1_range", _size_checks, "range", "Judge the size targets under the "
    "central-range rule (extensions: the ids end in ``' range'``)",
    "[('K1 range', False), ('K2 range', True), ('K3-size range', True)]", 3)
check_fig2_range = _checker(
    "check_fig2_range", _power_checks, "range", "Judge the power targets under the "
    "central-range rule (extensions: the ids end in ``' range'``)",
    "[('K3-power range', True), ('K6 range', True), ('K7-power range', True)]", 3)
check_fig1_exact = _checker(
    "check_fig1_exact", _size_checks, "exact", "Judge the size targets under exact nulls "
    "(extensions: the ids end in ``' exact'``)",
    "[('K1 exact', False), ('K2 exact', True), ('K3-size exact', True)]", 3)
check_fig2_exact = _checker(
    "check_fig2_exact", _power_checks, "exact", "Judge the power targets under the exact "
    "truth (extensions: the ids end in ``' exact'``)",
    "[('K3-power exact', True), ('K6 exact', True), ('K7-power exact', True)]", 3)


_SETUP = ("alpha = 0.05; panels (a) balanced, different models, (b) unbalanced, different, "
          "(c) balanced, close, (d) unbalanced, close; per panel 50 simulated categories "
          "(quick: 6), 500 evaluation sets of N examples per category and N (quick: 100), "
          "B = 5000 percentile bootstrap replicates (quick: 1000), 1000 for the dF1 interval "
          "centred on the mean; tests beyond the paper's four dashed. Rates pool sets and "
          "categories; bands: +-2 MCSE "
          "across categories (at least the binomial MCSE). Empty where no case exists (the "
          "paper plots -1). F1 = 2TP / (2TP + FN + FP), 0 on a set where it is 0 / 0. "
          "Assumed: categories drawn to match RCV1 and the paper's description of its models "
          "and captions (see evalmc.reproductions.keller2005).")
_RESOLUTION = ("H0 by the resolution rule (the paper's rule is undetermined; ours: the "
               "population difference is below one example's worth of the measure at N)")

FIG1 = Figure("Size (rate of rejecting H0 where H0 holds) of the paper's four tests and the "
              "centred dF1 interval against N, " + _RESOLUTION + ". " + _SETUP,
              compute_fig1, plot_fig1, check_fig1,
              title="Keller et al. 2005, Fig 1: size against the evaluation set size")

FIG2 = Figure("Power (rate of rejecting H0 where it fails) of the paper's four tests and the "
              "centred dF1 interval against N, " + _RESOLUTION + ". In (c) and (d) the spike "
              "at N <= 1000 rests on one engineered category, the only one whose difference "
              "counts as real at those N (the paper itself calls its N <= 1000 points of these "
              "panels unreliable). " + _SETUP,
              compute_fig2, plot_fig2, check_fig2,
              title="Keller et al. 2005, Fig 2: power against the evaluation set size")

FIG1_RANGE = Figure("Sensitivity of Fig 1 (ours): size with H0 by the central-range rule (0 "
                    "inside the central 1 - alpha range of the statistic over the category's "
                    "sets), which inflates size by construction. " + _SETUP,
                    compute_fig1, plot_fig1_range, check_fig1_range,
                    title="Keller et al. 2005, Fig 1 sensitivity: size, central-range rule")

FIG2_RANGE = Figure("Sensitivity of Fig 2 (ours): power with H0 by the central-range rule. "
                    + _SETUP, compute_fig2, plot_fig2_range, check_fig2_range,
                    title="Keller et al. 2005, Fig 2 sensitivity: power, central-range rule")

FIG1_EXACT = Figure("Supplementary to Fig 1 (ours): size under exact nulls (population "
                    "difference exactly 0: three twins per panel of categories with A moved "
                    "to equal B), for the paper's four tests and McNemar's exact and mid-p "
                    "variants (the centred dF1 interval: in the data). " + _SETUP,
                    compute_fig1, plot_fig1_exact, check_fig1_exact,
                    title="Keller et al. 2005, Fig 1 supplement: size under exact nulls")

FIG2_EXACT = Figure("Supplementary to Fig 2 (ours): power where the population "
                    "difference is not 0, for the paper's four tests and McNemar's exact and "
                    "mid-p variants (the centred dF1 interval: in the data). " + _SETUP,
                    compute_fig2,
                    plot_fig2_exact, check_fig2_exact,
                    title="Keller et al. 2005, Fig 2 supplement: power, exact truth")
