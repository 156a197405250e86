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

Protocol, after a second reading of the paper:

- Truth. The N-dependent rule is the paper's H0 and the primary definition: H0 holds for a
  category at size N when 0 lies in the central 1 - alpha range of the statistic (dCerr or
  dF1) over its S sets (its captions: "H0 was always false" in Fig 1(b), "H1 was never true"
  in Figs 2(c), 2(d), and "the first points ... of Figures 2(c) and 2(d) were computed over
  only 500 evaluation sets"). The exact null (population difference exactly 0, measured on
  exact-null twins of the first categories) is our extension, reported in the supplementary
  figures ``fig1-exact`` and ``fig2-exact``, not judged against the paper.
- Categories (:func:`panel_categories`), calibrated to RCV1 and the paper's description: 50
  per panel ("101 categories"); unbalanced prevalence log-uniform on 0.001-0.1 ("most of them
  resulted in highly unbalanced tasks, often with a ratio of 10 to 100 between the two
  classes"), balanced 0.4-0.5 (the meta-categories); close models are two SVMs ("Most of the
  times the two SVMs gave very similar results"): latent correlation 0.98-0.995 and |dF1|
  log-normal around 0.003, of either sign; different models are SVM vs MLP ("the MLP gave
  poorer results on average"): correlation 0.5-0.7 and dF1 ~ N(-0.03, 0.04), gaps of both signs
  and widely varying size.
- Bands and MCSE across categories: the paper reports spread across categories ("a standard
  deviation std, over the categories"), so a rate's MCSE is the cluster (category) standard
  error of the pooled ratio, not a binomial one over sets pooled as independent.
- K1 follows "most of the statistical tests are positively influenced by the size of the
  evaluation set, in the sense that their alpha_true value converges to alpha": most, not every,
  test. K6 and K7 compare the tests at the N values all of them have.
- The bootstrap interval. The paper centres its interval "around the mean of p(dF1)"; ours is
  the percentile interval ``[x_(k), x_(B+1-k)]``, ``k = alpha B / 2``, of the ordered
  replicates, which equals a mean-centred interval only for a symmetric replicate law.

Other assumptions (the paper's data are not available):

- A category is a simulated population: the 8-cell table of a Gaussian copula of the two
  models' correctness, with the prevalence, the models' TPR/FPR, their latent correlation and
  their population dF1 drawn as above.
- A bootstrap replicate is a multinomial draw over the set's cells. Decisions are drawn
  exactly, not approximated: for dCerr the counts of replicates on each side of 0 are one
  multinomial draw from their exact law; for dF1 a set far from 0 draws only its rare side's
  replicates (rejection sampling under a Chernoff bound), and any other set stops once its
  decision at every alpha <= 0.1 is settled (``p_max=0.1``).
- Rates where no case exists are left empty (the paper plots -1).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from evalmc.criteria import get_criterion
from evalmc.registry import parse_spec
from evalmc.reproductions.report import Figure, Runs, Target, Targets
from evalmc.sims.classifiers import PairedClassifiers
from evalmc.sims.validation import check_choice, check_float, check_int
from evalmc.stats.mcse import rate_mcse, wilson_interval
from evalmc.study.rates import make_design, run_study

SEED = 2005
ALPHAS = (0.01, 0.05, 0.1)
ALPHA = 0.05  # the figures' level
DCERR_TESTS = ("proportion", "mcnemar", "mcnemar-exact", "mcnemar-midp", "bootstrap-dcerr")
TESTS = (*DCERR_TESTS, "bootstrap-df1")
PAPER_TESTS = ("proportion", "mcnemar", "bootstrap-dcerr", "bootstrap-df1")
DEFINITIONS = ("rule", "exact")


def central_range_truth(statistics, alpha: float) -> str:
    """The N-dependent truth rule: ``'null'`` when 0 lies in the statistic's central range.

    Parameters
    ----------
    statistics : array_like, shape (S,)
        The statistic (dCerr or dF1) on S evaluation sets of one population and size.
    alpha : float
        The range is ``[quantile(alpha / 2), quantile(1 - alpha / 2)]`` (numpy's linear
        interpolation).

    Returns
    -------
    str
        ``'null'`` or ``'alternative'``.

    Examples
    --------
    >>> central_range_truth([-0.02, 0.01, 0.03, 0.05], alpha=0.05)
    'null'
    >>> central_range_truth([0.01, 0.02, 0.03], alpha=0.05)
    'alternative'
    """
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


def panel_categories(panel: str, n_categories: int, *, seed: int = 2005,
                     n: int = 1000) -> list[PairedClassifiers]:
    """A spread of `n_categories` populations ("categories") for one panel, reproducibly.

    Each category draws, from ``SeedSequence(seed, spawn_key=(panel index,))``:

    - prevalence: U(0.4, 0.5) balanced; log-uniform on [0.001, 0.1] unbalanced;
    - B (an SVM): TPR U(0.80, 0.92), FPR U(0.05, 0.15) balanced; TPR U(0.60, 0.85),
      FPR U(0.002, 0.01) unbalanced;
    - close models (two SVMs): rho U(0.98, 0.995), A's FPR = B's times U(0.97, 1.03), and a
      population dF1 of random sign and size log-normal with median 0.003 (log-sd 0.7);
    - different models (SVM vs MLP): rho U(0.5, 0.7), A's FPR = B's times U(0.8, 1.25), and
      dF1 ~ N(-0.03, 0.04);
    - A's TPR is then set to give that dF1.

    A draw whose TPR falls outside [0, 1] is redrawn.

    Parameters
    ----------
    panel : {'a', 'b', 'c', 'd'}
        A panel of :data:`PANELS`.
    n_categories : int
        Categories drawn.
    seed : int
        Root of the draws.
    n : int
        Size of the categories' evaluation sets.

    Returns
    -------
    list of PairedClassifiers
        With ``measure='df1'`` and evaluation sets of `n` examples.

    Examples
    --------
    >>> cats = panel_categories("a", 2)
    >>> [round(c.prevalence, 3) for c in cats], [round(c.rho, 3) for c in cats]
    ([0.459, 0.428], [0.615, 0.577])
    """
    check_choice("panel", panel, tuple(PANELS))
    n_categories = check_int("n_categories", n_categories, low=1)
    balanced, close = PANELS[panel]
    key = (list(PANELS).index(panel),)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))
    out = []
    while len(out) < n_categories:
        prevalence = (rng.uniform(0.4, 0.5) if balanced
                      else float(np.exp(rng.uniform(np.log(0.001), np.log(0.1)))))
        tpr_b = rng.uniform(0.80, 0.92) if balanced else rng.uniform(0.60, 0.85)
        fpr_b = rng.uniform(0.05, 0.15) if balanced else rng.uniform(0.002, 0.01)
        if close:
            rho = rng.uniform(0.98, 0.995)
            fpr_a = fpr_b * rng.uniform(0.97, 1.03)
            df1 = rng.choice((-1.0, 1.0)) * 0.003 * np.exp(0.7 * rng.standard_normal())
        else:
            rho = rng.uniform(0.5, 0.7)
            fpr_a = fpr_b * rng.uniform(0.8, 1.25)
            df1 = rng.normal(-0.03, 0.04)
        base = PairedClassifiers(n=n, prevalence=prevalence, tpr_a=tpr_b, fpr_a=fpr_a,
                                 tpr_b=tpr_b, fpr_b=fpr_b, rho=rho, measure="df1")
        try:
            out.append(base.with_difference("df1", float(df1)))
        except ValueError:
            continue
    return out


@dataclass(frozen=True)
class Protocol:
    """Sizes of one scale: N values, sets per category, replicates, categories, null twins.

    Attributes
    ----------
    n_values : tuple of int
        Evaluation set sizes N.
    n_sets : int
        Evaluation sets per category and N (the paper's S).
    n_boot : int
        Bootstrap replicates (the paper's B).
    n_categories : int
        Categories per panel.
    n_twins : int
        Exact-null twins per panel and measure.

    Examples
    --------
    >>> PROTOCOLS["quick"]
    Protocol(n_values=(100, 1000, 6000), n_sets=100, n_boot=1000, n_categories=6, n_twins=1)
    """

    n_values: tuple[int, ...]
    n_sets: int
    n_boot: int
    n_categories: int
    n_twins: int


PROTOCOLS = {
    "quick": Protocol((100, 1000, 6000), 100, 1000, 6, 1),
    "paper": Protocol((100, 200, 500, 1000, 2000, 3000, 4000, 5000, 6000), 500, 5000, 50, 3),
}


def _test(crit) -> str:
    """The test's registered name, without the bootstrap's replicates and stopping rule."""
    return parse_spec(crit.name)[0]


def _measure(crit) -> str:
    return "df1" if _test(crit) == "bootstrap-df1" else "dcerr"


def _criteria(names, n_boot):
    # the dF1 test stops a set's replicates once its decisions at every alpha are settled
    options = {"bootstrap-dcerr": {"n_boot": n_boot},
               "bootstrap-df1": {"n_boot": n_boot, "p_max": max(ALPHAS)}}
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
    criteria = _criteria(tests, protocol.n_boot)
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
                    truths["rule"] = central_range_truth(stats[measure], alpha)
                for definition, truth in truths.items():
                    rows.append({"panel": panel, "group": group, "category": int(cat),
                                 "n": row["n"], "criterion": _test(crit), "alpha": alpha,
                                 "definition": definition,
                                 "kind": "size" if truth == "null" else "power",
                                 "k": k, "sets": protocol.n_sets})
    return rows


@functools.lru_cache(maxsize=2)
def simulate(scale: str, runs: Runs) -> pd.DataFrame:
    """Rejections per category, N, test, alpha, truth definition (shared by both figures).

    Cached: Figures 1 and 2 and their supplements read one simulation per scale.

    Parameters
    ----------
    scale : {'quick', 'paper'}
        Sizes of :data:`PROTOCOLS`.
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        ``panel, group, category, n, criterion, alpha, definition, kind, k, sets``; `group` is
        'category', 'dcerr-null' or 'df1-null' (exact-null twins); `kind` is 'size' or
        'power' by the truth under `definition` ('rule' for categories only, 'exact'); `k`
        counts the rejections among `sets` evaluation sets.

    Examples
    --------
    Seconds at the quick scale:

    >>> from evalmc.reproductions.report import Runs
    >>> raw = simulate("quick", Runs())  # doctest: +SKIP
    >>> raw["group"].value_counts().to_dict()  # doctest: +SKIP
    {'category': 2592, 'dcerr-null': 180, 'df1-null': 36}
    """
    protocol = PROTOCOLS[scale]
    rows = []
    for panel in PANELS:
        cats = panel_categories(panel, protocol.n_categories, seed=SEED)
        rows += _run_group(panel, "category", cats, TESTS, protocol, runs)
        rows += _run_group(panel, "dcerr-null", _twins(cats, "dcerr", protocol.n_twins),
                           DCERR_TESTS, protocol, runs)
        rows += _run_group(panel, "df1-null", _twins(cats, "df1", protocol.n_twins),
                           ("bootstrap-df1",), protocol, runs)
    return pd.DataFrame(rows)


def pooled(raw: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Rates pooled over sets and categories, for every panel, definition, N, test and alpha.

    The MCSE is the cluster standard error of the pooled ratio over categories,
    ``sqrt(C / (C - 1) sum_c (k_c - rate s_c)^2) / sum_c s_c``: it carries the spread across
    categories, not only the sets' binomial noise. It is never taken below the binomial MCSE
    of the pooled sets (a few categories can agree by chance, e.g. three exact-null twins);
    with one category it is the binomial MCSE.
    The band is ``rate +- 2 MCSE`` (Wilson's interval with one category), clipped to [0, 1].

    Returns
    -------
    DataFrame
        ``panel, definition, n, criterion, alpha, rate, mcse, ci_low, ci_high, sets,
        categories``; `rate` is empty where no case exists (`sets` = 0); `categories`
        counts the populations pooled (categories, or exact-null twins).

    Parameters
    ----------
    raw : DataFrame
        :func:`simulate`'s rejection counts.
    kind : {'size', 'power'}
        The cases pooled: sets where H0 holds, or where it fails.

    Examples
    --------
    Two categories, 50 sets each, where H0 holds:

    >>> import pandas as pd
    >>> raw = pd.DataFrame({"panel": "a", "group": "category", "category": [0, 1], "n": 100,
    ...                     "criterion": "mcnemar", "alpha": 0.05, "definition": "rule",
    ...                     "kind": "size", "k": [4, 6], "sets": 50})
    >>> pooled(raw, "size")[["rate", "mcse", "ci_low", "ci_high", "sets", "categories"]]
       rate  mcse  ci_low  ci_high  sets  categories
    0   0.1  0.03    0.04     0.16   100           2
    """
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
    wilson_low, wilson_high = wilson_interval(out["k"], out["sets"])
    out["ci_low"] = np.where(many, np.clip(out["rate"] - 2 * out["mcse"], 0, 1), wilson_low)
    out["ci_high"] = np.where(many, np.clip(out["rate"] + 2 * out["mcse"], 0, 1), wilson_high)
    order = ["panel", "definition", "n", "criterion", "alpha", "rate", "mcse", "ci_low",
             "ci_high", "sets", "categories"]
    return out[order].sort_values(keys, ignore_index=True)


def compute_fig1(scale, runs):
    """Figure 1's data: pooled sizes.

    The rates of rejecting H0 on the sets where it holds (:func:`pooled` of :func:`simulate`),
    under both definitions of H0; ``fig1-exact`` reads the same data.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        :func:`pooled`'s columns ``panel, definition, n, criterion, alpha, rate, mcse, ci_low,
        ci_high, sets, categories``, one row per (panel, definition, N, test, alpha).

    Examples
    --------
    Seconds at the quick scale (:func:`simulate`, cached, is shared with
    :func:`compute_fig2`):

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_fig1("quick", Runs())  # doctest: +SKIP
    >>> data.shape, int(data["rate"].notna().sum())  # doctest: +SKIP
    ((432, 11), 406)
    """
    return pooled(simulate(scale, runs), "size")


def compute_fig2(scale, runs):
    """Figure 2's data: pooled powers.

    The rates of rejecting H0 on the sets where it fails (:func:`pooled` of :func:`simulate`),
    under both definitions of H0; ``fig2-exact`` reads the same data.

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
    >>> data.shape, int(data["rate"].notna().sum())  # doctest: +SKIP
    ((432, 11), 291)
    """
    return pooled(simulate(scale, runs), "power")


COLORS = {"proportion": "tab:green", "mcnemar": "tab:blue", "mcnemar-exact": "tab:cyan",
          "mcnemar-midp": "tab:purple", "bootstrap-dcerr": "tab:orange",
          "bootstrap-df1": "tab:red"}


def _plot(data, ylabel, definition, tests):
    fig = MplFigure(figsize=(10, 7.5), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True).ravel()
    data = data[(data["alpha"] == ALPHA) & (data["definition"] == definition)
                & data["criterion"].isin(tests)]
    for ax, panel in zip(axes, PANELS, strict=True):
        for crit in tests:
            curve = data[(data["panel"] == panel) & (data["criterion"] == crit)].sort_values("n")
            ax.plot(curve["n"], curve["rate"], color=COLORS[crit], marker=".", label=crit)
            ax.fill_between(curve["n"], curve["ci_low"], curve["ci_high"], color=COLORS[crit],
                            alpha=0.12, linewidth=0)
        if ylabel == "size":
            ax.axhline(ALPHA, color="black", linewidth=0.8)
        ax.set_title(f"({panel}) {PANEL_TITLES[panel]}", fontsize=10)
        ax.set_xlabel("evaluation set size N")
        ax.set_ylabel(ylabel)
    axes[0].legend(fontsize=7)
    return fig


def plot_fig1(data):
    """Figure 1: size against N, one panel per panel of :data:`PANELS`, at alpha = 0.05.

    The paper's four tests, H0 by its N-dependent rule.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig1`'s columns ``panel, definition, n, criterion, alpha, rate, ci_low,
        ci_high``.

    Returns
    -------
    matplotlib.figure.Figure
        Four panels, (a) to (d), a curve per test with a band from ``ci_low`` to ``ci_high``.

    Examples
    --------
    A hand-made table of constant rates:

    >>> import pandas as pd
    >>> rate = {"proportion": 0.02, "mcnemar": 0.04, "mcnemar-exact": 0.03, "mcnemar-midp": 0.045,
    ...         "bootstrap-dcerr": 0.045, "bootstrap-df1": 0.08}
    >>> data = pd.DataFrame([{"panel": p, "definition": d, "n": n, "criterion": c, "alpha": 0.05,
    ...                       "rate": rate[c], "mcse": 0.01, "ci_low": rate[c] - 0.02,
    ...                       "ci_high": rate[c] + 0.02}
    ...                      for p in PANELS for d in DEFINITIONS for n in (100, 1000, 6000)
    ...                      for c in TESTS])
    >>> fig = plot_fig1(data)
    >>> ax = fig.axes[0]
    >>> len(fig.axes), ax.get_title(), ax.get_ylabel(), len(ax.get_legend().get_texts())
    (4, '(a) balanced, different models', 'size', 4)
    """
    return _plot(data, "size", "rule", PAPER_TESTS)


def plot_fig2(data):
    """Figure 2: power against N, one panel per panel of :data:`PANELS`, at alpha = 0.05.

    The paper's four tests, H0 by its N-dependent rule.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig2`'s columns ``panel, definition, n, criterion, alpha, rate, ci_low,
        ci_high``.

    Returns
    -------
    matplotlib.figure.Figure
        Four panels, (a) to (d), a curve per test with a band from ``ci_low`` to ``ci_high``.

    Examples
    --------
    A hand-made table of constant rates:

    >>> import pandas as pd
    >>> rate = {"proportion": 0.02, "mcnemar": 0.04, "mcnemar-exact": 0.03, "mcnemar-midp": 0.045,
    ...         "bootstrap-dcerr": 0.045, "bootstrap-df1": 0.08}
    >>> data = pd.DataFrame([{"panel": p, "definition": d, "n": n, "criterion": c, "alpha": 0.05,
    ...                       "rate": rate[c], "mcse": 0.01, "ci_low": rate[c] - 0.02,
    ...                       "ci_high": rate[c] + 0.02}
    ...                      for p in PANELS for d in DEFINITIONS for n in (100, 1000, 6000)
    ...                      for c in TESTS])
    >>> fig = plot_fig2(data)
    >>> ax = fig.axes[0]
    >>> len(fig.axes), ax.get_title(), ax.get_ylabel(), len(ax.get_legend().get_texts())
    (4, '(a) balanced, different models', 'power', 4)
    """
    return _plot(data, "power", "rule", PAPER_TESTS)


def plot_fig1_exact(data):
    """Supplement to Figure 1: size against N under exact nulls, one panel per panel of
    :data:`PANELS`, at alpha = 0.05.

    All six tests of :data:`TESTS`, H0 the exact null.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig1`'s columns ``panel, definition, n, criterion, alpha, rate, ci_low,
        ci_high``.

    Returns
    -------
    matplotlib.figure.Figure
        Four panels, (a) to (d), a curve per test with a band from ``ci_low`` to ``ci_high``.

    Examples
    --------
    A hand-made table of constant rates:

    >>> import pandas as pd
    >>> rate = {"proportion": 0.02, "mcnemar": 0.04, "mcnemar-exact": 0.03, "mcnemar-midp": 0.045,
    ...         "bootstrap-dcerr": 0.045, "bootstrap-df1": 0.08}
    >>> data = pd.DataFrame([{"panel": p, "definition": d, "n": n, "criterion": c, "alpha": 0.05,
    ...                       "rate": rate[c], "mcse": 0.01, "ci_low": rate[c] - 0.02,
    ...                       "ci_high": rate[c] + 0.02}
    ...                      for p in PANELS for d in DEFINITIONS for n in (100, 1000, 6000)
    ...                      for c in TESTS])
    >>> fig = plot_fig1_exact(data)
    >>> ax = fig.axes[0]
    >>> len(fig.axes), ax.get_title(), ax.get_ylabel(), len(ax.get_legend().get_texts())
    (4, '(a) balanced, different models', 'size', 6)
    """
    return _plot(data, "size", "exact", TESTS)


def plot_fig2_exact(data):
    """Supplement to Figure 2: power against N, exact truth, one panel per panel of
    :data:`PANELS`, at alpha = 0.05.

    All six tests of :data:`TESTS`, H0 the exact null.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig2`'s columns ``panel, definition, n, criterion, alpha, rate, ci_low,
        ci_high``.

    Returns
    -------
    matplotlib.figure.Figure
        Four panels, (a) to (d), a curve per test with a band from ``ci_low`` to ``ci_high``.

    Examples
    --------
    A hand-made table of constant rates:

    >>> import pandas as pd
    >>> rate = {"proportion": 0.02, "mcnemar": 0.04, "mcnemar-exact": 0.03, "mcnemar-midp": 0.045,
    ...         "bootstrap-dcerr": 0.045, "bootstrap-df1": 0.08}
    >>> data = pd.DataFrame([{"panel": p, "definition": d, "n": n, "criterion": c, "alpha": 0.05,
    ...                       "rate": rate[c], "mcse": 0.01, "ci_low": rate[c] - 0.02,
    ...                       "ci_high": rate[c] + 0.02}
    ...                      for p in PANELS for d in DEFINITIONS for n in (100, 1000, 6000)
    ...                      for c in TESTS])
    >>> fig = plot_fig2_exact(data)
    >>> ax = fig.axes[0]
    >>> len(fig.axes), ax.get_title(), ax.get_ylabel(), len(ax.get_legend().get_texts())
    (4, '(a) balanced, different models', 'power', 6)
    """
    return _plot(data, "power", "exact", TESTS)


# --- Targets K1-K7: the N-dependent rule (targets) and exact nulls (extensions) -------------

_CONVERGE = ('"First of all, as expected, most of the statistical tests are positively '
             'influenced by the size of the evaluation set, in the sense that their alpha_true '
             'value converges to alpha for large sample sizes." (Sec 3.3)')
_SIMILAR = ('"On the available results, the McNemar test and the bootstrap test over dCerr '
            'have a similar performance. They are always pessimistic even for small evaluation '
            'set sizes" (Sec 3.3)')
_POWER_SIMILAR = ('"They have also a similar performance in Power over all the different '
                  'conditions, higher in general when comparing very different models." '
                  '(Sec 3.3)')
_DF1 = ('"When the compared models are similar, the bootstrap test over dF1 has a pessimistic '
        'behavior even on quite small evaluation sets. However, when the models are really '
        'different the bootstrap test over dF1 is on average always optimistic." (Sec 3.3)')
_PROPORTION = ('"The proportion test have in general, on the available results, a more '
               'conservative behavior than the McNemar test and the dCerr bootstrap test. It has '
               'more pessimistic results and less Power." (Sec 3.3)')
_PROPORTION_D = ('"However, when comparing close models in a small unbalanced evaluation set '
                 '(Figure 1(d)), this conservative behavior is not present." (Sec 3.3)')
_DF1_POWER = ('"The bootstrap-based statistical test over dF1 has higher Power than the other '
              'compared tests" (Sec 4)')

_BASE = [
    Target("K1", "most of the paper's four tests have size <= alpha + 3 MCSE at N = 6000",
           paper="most converge to alpha", source=_CONVERGE, tolerance="3 MCSE"),
    Target("K2", "McNemar, bootstrap-dCerr never optimistic (size <= alpha + 2 MCSE)",
           paper="always pessimistic", source=_SIMILAR, tolerance="2 MCSE"),
    Target("K3-size", "McNemar and bootstrap-dCerr sizes agree", paper="|difference| <= 0.01",
           source=_SIMILAR, tolerance="0.01"),
    Target("K4", "bootstrap-dF1 optimistic, different models (mean size over N <= 1000)",
           paper="> 0.05 in a, b", source=_DF1, tolerance="2 MCSE"),
    Target("K5", "bootstrap-dF1 pessimistic, close models (mean size over N)",
           paper="< 0.05 in c, d", source=_DF1, tolerance="2 MCSE"),
    Target("K7-size", "proportion test the most conservative (a, b, c)",
           paper="lowest mean size", source=_PROPORTION),
    Target("K7-d", "proportion test optimistic, close models, small unbalanced sets "
           "(d, N <= 1000)", paper="> 0.05 in d", source=_PROPORTION_D, tolerance="2 MCSE"),
    Target("K3-power", "McNemar and bootstrap-dCerr powers agree",
           paper="|difference| <= 0.05", source=_POWER_SIMILAR, tolerance="0.05"),
    Target("K6", "bootstrap-dF1 has the highest power (mean over the N all tests share)",
           paper="highest in every panel", source=_DF1_POWER),
    Target("K7-power", "proportion test has the lowest power (mean over the N all tests share)",
           paper="lowest in every panel", source=_PROPORTION),
]

#: The paper's targets under its N-dependent rule, then the same under exact nulls (ours).
TARGETS = Targets([*_BASE, *(replace(t, id=f"{t.id} exact", claim=f"{t.claim}; exact nulls",
                                     role="extension") for t in _BASE)])


def _id(base, definition):
    return base if definition == "rule" else f"{base} exact"


def _curves(data, definition):
    """``{(panel, criterion): DataFrame indexed by n}`` at the figures' alpha."""
    data = data[(data["alpha"] == ALPHA) & (data["definition"] == definition)]
    return {key: g.set_index("n").sort_index() for key, g in data.groupby(["panel", "criterion"])}


#: Why a target can fail under the N-dependent rule, whatever the test does.
RULE_WHY = ("the rule counts as H0 a category whose true difference lies within its sets' "
            "central range, so rejections of real but small differences count as size")


#: Why the proportion test is conservative for close models.
PROPORTION_WHY = ("Eq 3 assumes A's and B's errors independent, which overstates the variance "
                  "of D when they are strongly correlated (close models: rho 0.98-0.995)")


def _excesses(curves, tests, at_n):
    """``(excess in MCSE, panel, test, n, rate)`` of every defined size of `tests`."""
    out = []
    for panel in PANELS:
        for test in tests:
            curve = curves[(panel, test)]
            if at_n is not None:
                curve = curve[curve.index == at_n]
            for n, row in curve[curve["rate"].notna()].iterrows():
                out.append(((row["rate"] - ALPHA) / max(row["mcse"], 1e-12), panel, test, n,
                            row["rate"]))
    return out


def _most_check(id, curves, at_n, z, definition):
    """Most (more than half) of the defined sizes of the paper's tests at N = `at_n` are
    <= alpha + z MCSE."""
    points = _excesses(curves, PAPER_TESTS, at_n)
    if not points:
        return TARGETS.holds(id, ours="no null case", passed=False,
                             note="no evaluation set where H0 holds: size undefined")
    over = [p for p in points if p[0] > z]
    ours = f"{len(points) - len(over)} of {len(points)} (panel, test) sizes within"
    note = "; ".join(f"{test} {rate:.3f} in {panel} ({excess:+.1f} MCSE)"
                     for excess, panel, test, _, rate in over)
    if over and definition == "rule":
        note += f": {RULE_WHY}"
    return TARGETS.holds(id, ours=ours, passed=2 * len(over) < len(points), note=note)


def _bound_check(id, curves, tests, z, definition):
    """Every defined size of `tests`, at every N, is <= alpha + z MCSE."""
    points = _excesses(curves, tests, None)
    if not points:
        return TARGETS.holds(id, ours="no null case", passed=False,
                             note="no evaluation set where H0 holds: size undefined")
    excess, panel, test, n, rate = max(points)
    ours = f"worst {rate:.3f} ({test}, {panel}, N={n}: {excess:+.1f} MCSE); {len(points)} points"
    note = ""
    if excess > z:
        note = f"{test} optimistic in panel {panel} at N={n}"
        note += f": {RULE_WHY}" if definition == "rule" else ""
    return TARGETS.holds(id, ours=ours, passed=excess <= z, note=note)


#: Rates are ratios of counts: a gap equal to the tolerance in exact arithmetic may exceed it
#: by rounding (458/1000 - 408/1000 = 0.050000000000000044).
EXACT = 1e-12


def _agree_check(id, curves, tol):
    """McNemar's and bootstrap-dCerr's rates differ by at most `tol` wherever both exist."""
    worst = None
    for panel in PANELS:
        a, b = curves[(panel, "mcnemar")]["rate"], curves[(panel, "bootstrap-dcerr")]["rate"]
        for n, gap in (a - b).abs().dropna().items():
            if worst is None or gap > worst[0]:
                worst = (float(gap), panel, n, a[n], b[n])
    if worst is None:
        return TARGETS.holds(id, ours="no case", passed=False,
                             note="no evaluation set in this case")
    gap, panel, n, a, b = worst
    passed = gap <= tol + EXACT
    note = ""
    if not passed:
        note = f"McNemar {a:.3f} vs bootstrap-dCerr {b:.3f}"
        if a < b:
            note += ("; the continuity-corrected McNemar test is more conservative than the "
                     "uncorrected percentile bootstrap when discordant pairs are few")
    return TARGETS.holds(id, ours=f"max {gap:.3f} (panel {panel}, N={n})", passed=passed,
                         note=note)


def _order_check(id, curves, panels, best, highest, case):
    """`best` has the highest (or lowest) mean rate among the paper's four tests, each averaged
    over the N values where all four have a rate (not each over its own)."""
    failed, parts = [], []
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
            failed.append(f"{panel}: {pick} {word}")
    return TARGETS.holds(id, ours="; ".join(parts) or "no case",
                         passed=not failed and bool(parts), note="; ".join(failed))


def _mean_vs_alpha(id, curves, test, panels, max_n, above, definition, why=""):
    """The mean size of `test` over N (<= max_n) is above (or below) alpha by more than
    2 MCSE (of the mean) in every panel."""
    parts, missed = [], []
    for panel in panels:
        curve = curves[(panel, test)]
        if max_n is not None:
            curve = curve[curve.index <= max_n]
        curve = curve[curve["rate"].notna()]
        m = float(curve["rate"].mean()) if len(curve) else float("nan")
        se = float(np.sqrt((curve["mcse"] ** 2).sum())) / max(len(curve), 1)
        parts.append(f"{panel}: {m:.3f} (MCSE {se:.3f})")
        if not (np.isfinite(m) and ((m - ALPHA) if above else (ALPHA - m)) > 2 * se):
            missed.append(panel)
    note = ""
    if missed:
        side = "above" if above else "below"
        note = f"mean size not {side} {ALPHA} by 2 MCSE in panel {', '.join(missed)}"
        if definition == "rule" and not above:
            note += f": {RULE_WHY}"
        note += f"; {why}" if why else ""
    return TARGETS.holds(id, ours="; ".join(parts), passed=not missed, note=note)


def _size_checks(data, definition):
    c = _curves(data, definition)
    return [
        _most_check(_id("K1", definition), c, 6000, 3, definition),
        _bound_check(_id("K2", definition), c, ("mcnemar", "bootstrap-dcerr"), 2, definition),
        _agree_check(_id("K3-size", definition), c, 0.01),
        _mean_vs_alpha(_id("K4", definition), c, "bootstrap-df1", "ab", 1000, True,
                       definition),
        _mean_vs_alpha(_id("K5", definition), c, "bootstrap-df1", "cd", None, False,
                       definition),
        _order_check(_id("K7-size", definition), c, "abc", "proportion", False, "null set"),
        _mean_vs_alpha(_id("K7-d", definition), c, "proportion", "d", 1000, True, definition,
                       why=PROPORTION_WHY),
    ]


def _power_checks(data, definition):
    c = _curves(data, definition)
    return [
        _agree_check(_id("K3-power", definition), c, 0.05),
        _order_check(_id("K6", definition), c, PANELS, "bootstrap-df1", True,
                     "alternative set"),
        _order_check(_id("K7-power", definition), c, PANELS, "proportion", False,
                     "alternative set"),
    ]


def check_fig1(data, scale):
    """Judge the size targets K1, K2, K3-size, K4, K5, K7-size and K7-d under the paper's
    N-dependent rule.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig1`'s columns ``panel, definition, n, criterion, alpha, rate, mcse``,
        with every panel and test, and N = 6000.
    scale : {'quick', 'paper'}
        Unused: the targets are judged alike at both scales.

    Returns
    -------
    list of Check
        K1, K2, K3-size, K4, K5, K7-size, K7-d.

    Examples
    --------
    A hand-made table of constant rates:

    >>> import pandas as pd
    >>> rate = {"proportion": 0.02, "mcnemar": 0.04, "mcnemar-exact": 0.03, "mcnemar-midp": 0.045,
    ...         "bootstrap-dcerr": 0.045, "bootstrap-df1": 0.08}
    >>> data = pd.DataFrame([{"panel": p, "definition": d, "n": n, "criterion": c, "alpha": 0.05,
    ...                       "rate": rate[c], "mcse": 0.01, "ci_low": rate[c] - 0.02,
    ...                       "ci_high": rate[c] + 0.02}
    ...                      for p in PANELS for d in DEFINITIONS for n in (100, 1000, 6000)
    ...                      for c in TESTS])
    >>> [(c.id, c.passed) for c in check_fig1(data, "quick")]
    [('K1', True), ('K2', True), ('K3-size', True), ('K4', True), ('K5', False),
     ('K7-size', True), ('K7-d', False)]
    """
    return _size_checks(data, "rule")


def check_fig2(data, scale):
    """Judge the power targets K3-power, K6 and K7-power under the paper's N-dependent rule.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig2`'s columns ``panel, definition, n, criterion, alpha, rate, mcse``,
        with every panel and test.
    scale : {'quick', 'paper'}
        Unused: the targets are judged alike at both scales.

    Returns
    -------
    list of Check
        K3-power, K6, K7-power.

    Examples
    --------
    A hand-made table of constant rates:

    >>> import pandas as pd
    >>> rate = {"proportion": 0.02, "mcnemar": 0.04, "mcnemar-exact": 0.03, "mcnemar-midp": 0.045,
    ...         "bootstrap-dcerr": 0.045, "bootstrap-df1": 0.08}
    >>> data = pd.DataFrame([{"panel": p, "definition": d, "n": n, "criterion": c, "alpha": 0.05,
    ...                       "rate": rate[c], "mcse": 0.01, "ci_low": rate[c] - 0.02,
    ...                       "ci_high": rate[c] + 0.02}
    ...                      for p in PANELS for d in DEFINITIONS for n in (100, 1000, 6000)
    ...                      for c in TESTS])
    >>> [(c.id, c.passed) for c in check_fig2(data, "quick")]
    [('K3-power', True), ('K6', True), ('K7-power', True)]
    """
    return _power_checks(data, "rule")


def check_fig1_exact(data, scale):
    """Judge the size targets under exact nulls (extensions: the ids end in ``' exact'``).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig1`'s columns ``panel, definition, n, criterion, alpha, rate, mcse``,
        with every panel and test, and N = 6000.
    scale : {'quick', 'paper'}
        Unused: the targets are judged alike at both scales.

    Returns
    -------
    list of Check
        K1 exact, ..., K7-d exact.

    Examples
    --------
    A hand-made table of constant rates:

    >>> import pandas as pd
    >>> rate = {"proportion": 0.02, "mcnemar": 0.04, "mcnemar-exact": 0.03, "mcnemar-midp": 0.045,
    ...         "bootstrap-dcerr": 0.045, "bootstrap-df1": 0.08}
    >>> data = pd.DataFrame([{"panel": p, "definition": d, "n": n, "criterion": c, "alpha": 0.05,
    ...                       "rate": rate[c], "mcse": 0.01, "ci_low": rate[c] - 0.02,
    ...                       "ci_high": rate[c] + 0.02}
    ...                      for p in PANELS for d in DEFINITIONS for n in (100, 1000, 6000)
    ...                      for c in TESTS])
    >>> [(c.id, c.passed) for c in check_fig1_exact(data, "quick")]
    [('K1 exact', True), ('K2 exact', True), ('K3-size exact', True), ('K4 exact', True),
     ('K5 exact', False), ('K7-size exact', True), ('K7-d exact', False)]
    """
    return _size_checks(data, "exact")


def check_fig2_exact(data, scale):
    """Judge the power targets under the exact truth (extensions: the ids end in ``' exact'``).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig2`'s columns ``panel, definition, n, criterion, alpha, rate, mcse``,
        with every panel and test.
    scale : {'quick', 'paper'}
        Unused: the targets are judged alike at both scales.

    Returns
    -------
    list of Check
        K3-power exact, K6 exact, K7-power exact.

    Examples
    --------
    A hand-made table of constant rates:

    >>> import pandas as pd
    >>> rate = {"proportion": 0.02, "mcnemar": 0.04, "mcnemar-exact": 0.03, "mcnemar-midp": 0.045,
    ...         "bootstrap-dcerr": 0.045, "bootstrap-df1": 0.08}
    >>> data = pd.DataFrame([{"panel": p, "definition": d, "n": n, "criterion": c, "alpha": 0.05,
    ...                       "rate": rate[c], "mcse": 0.01, "ci_low": rate[c] - 0.02,
    ...                       "ci_high": rate[c] + 0.02}
    ...                      for p in PANELS for d in DEFINITIONS for n in (100, 1000, 6000)
    ...                      for c in TESTS])
    >>> [(c.id, c.passed) for c in check_fig2_exact(data, "quick")]
    [('K3-power exact', True), ('K6 exact', True), ('K7-power exact', True)]
    """
    return _power_checks(data, "exact")


_SETUP = ("alpha = 0.05; panels (a) balanced, different models, (b) unbalanced, different, "
          "(c) balanced, close, (d) unbalanced, close; per panel 50 simulated categories "
          "(quick: 6), 500 evaluation sets of N examples per category and N (quick: 100), "
          "B = 5000 bootstrap replicates (quick: 1000). Rates pool sets and categories; bands: "
          "+-2 MCSE across categories (at least the binomial MCSE). Empty where no case exists "
          "(the paper plots -1). "
          "Assumed: categories drawn to match RCV1 and the paper's description of its models "
          "(see evalmc.reproductions.keller2005).")

FIG1 = Figure("Size (rate of rejecting H0 where H0 holds) of the paper's four tests "
              "against N, H0 by the paper's N-dependent rule (0 inside the central 95% range of "
              "the statistic over the category's sets). " + _SETUP,
              compute_fig1, plot_fig1, check_fig1,
              title="Keller et al. 2005, Fig 1: size against the evaluation set size")

FIG2 = Figure("Power (rate of rejecting H0 where it fails) of the paper's four tests "
              "against N, H0 by the paper's N-dependent rule. " + _SETUP,
              compute_fig2, plot_fig2, check_fig2,
              title="Keller et al. 2005, Fig 2: power against the evaluation set size")

FIG1_EXACT = Figure("Supplementary to Fig 1 (ours): size under exact nulls (population "
                    "difference exactly 0: three twins per panel of categories with A moved "
                    "to equal B), for the paper's four tests and McNemar's exact and mid-p "
                    "variants. " + _SETUP,
                    compute_fig1, plot_fig1_exact, check_fig1_exact,
                    title="Keller et al. 2005, Fig 1 supplement: size under exact nulls")

FIG2_EXACT = Figure("Supplementary to Fig 2 (ours): power where the population "
                    "difference is not 0, for the paper's four tests and McNemar's exact and mid-p "
                    "variants. " + _SETUP, compute_fig2, plot_fig2_exact, check_fig2_exact,
                    title="Keller et al. 2005, Fig 2 supplement: power, exact truth")
