"""Classic findings on cross-validation tests: Dietterich (1998), Alpaydin (1999), Nadeau and
Bengio (2003), Bouckaert and Frank (2004).

Tests that decide whether learning algorithm A beats B from their errors on several
train/test splits of one data set, measured on two problems whose truth is known
(:mod:`evalmc.sims.learning`): ``cv-regression`` (least squares on 10 features against 5 of
them) and ``cv-classification`` (linear discriminant against nearest mean, two Gaussian
classes in 10 dimensions), n = 300 examples. The null is "equal expected error when trained on
the scheme's training size"; each replication is a fresh data set of the population.

The papers' data sets (UCI tasks, C4.5, nearest neighbour, naive Bayes) are not simulated: a
miss says a claim does not hold on these two problems of stable learners, whose splits' errors
are little correlated, not that the paper measured wrongly. The size claims (J, K) are also
judged on ``cv-stumps``: two decision stumps of fewest training errors, on feature 1 (A) and
feature 2 (B) of a population symmetric in the two, so that the null is exact. The papers'
claims are taken from their abstracts, paraphrased in each target's source.

Assumed where the papers differ or are silent: two-sided tests at alpha = 0.05; a fold is a
contiguous block of a fresh permutation; the hold-out split tests a third of the data
(Dietterich's McNemar); the random splits test 10% (Nadeau and Bengio's n2/n = 0.1) or a third;
"near nominal" is Bradley's liberal criterion, size in [0.025, 0.075]; Monte Carlo bands are 2
MCSE. The truth's training size is the scheme's (n - n_test): 150 examples for 2 folds, 270 for
10.

Power across schemes (D4, D5, B1) compares each test at the same shift of its own estimand, B's
expected loss minus A's at the test's training size, so the populations differ a little
between schemes and the tests do not see the same data sets, as Dietterich's did. Raising the
features' correlation (the classification's alternative) changes the noise as well as the
effect (at shift 0.05 the two folds of a 5x2 repetition correlate about -0.33 instead of the
null's -0.10, and a fold's difference has 4.4 times the null's variance). D4, D5 and A1's power
are therefore judged on the exchange alternative of :mod:`evalmc.sims.learning` (on a share of
the examples, A's errors where B is right become B's), which keeps the examples where the
learners disagree and whose effect is exact; its folds' correlation still rises toward 0 as
more errors are exchanged (D5's note), and it reaches a shift of 2 E[P10] only (0.066 for 5x2,
0.057 for the hold-out, 0.049 for 10 folds, so D4 compares the tests at 0.01-0.03). The
correlation alternative's D4 and D5 stay as extension rows; B1 stays on it (agreement with
itself, not power at an effect).

With 0/1 losses on few test examples all the splits' differences can be equal; the t-tests then
reject a nonzero one at any level (zero variance, as scipy's ``ttest_rel``), which lifts their
size at J = 2 and k = 2. "Somewhat elevated" (K1) is judged with the Monte Carlo error: above
0.05 and not above 0.075, each by more than 2 MCSE.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure
from matplotlib.ticker import NullFormatter, ScalarFormatter

from evalmc.reproductions.report import Figure, Target, Targets, legend_below
from evalmc.sims import get_scenario
from evalmc.sims.learning import exchange_rate
from evalmc.study.rates import make_design, run_study

SEED = 1998
ALPHA = 0.05
N = 300
PROBLEMS = {"cv-regression": "regression: least squares, 10 vs 5 features",
            "cv-classification": "classification: discriminant vs nearest mean"}
#: The problems of the size figures: the two above and unstable learners, the kind the papers
#: trained (C4.5, neural networks), whose splits' errors are more correlated.
SIZE_PROBLEMS = {**PROBLEMS, "cv-stumps": "unstable: stump on feature 1 vs on feature 2"}
BRADLEY = (0.025, 0.075)
#: Shifts of the power curves (B's expected loss minus A's): sd^2 units for the regression,
#: error rate for the classification.
SHIFTS = {"cv-regression": (0.0, 0.05, 0.1, 0.2, 0.3),
          "cv-classification": (0.0, 0.01, 0.02, 0.03, 0.05)}

_D98 = ("Dietterich (1998), Neural Computation 10(7), abstract (paraphrased): the test for the "
        "difference of two proportions and the paired t-test over several random train/test "
        "splits have a high type I error in some situations and should never be used; the "
        "paired t-test over 10-fold cross-validation has a somewhat elevated one; McNemar's "
        "test has a low one; the new 5x2cv test has an acceptable one. The 10-fold "
        "cross-validated t-test is the most powerful, and 5x2cv slightly more powerful than "
        "McNemar's test.")
_A99 = ("Alpaydin (1999), Neural Computation 11(8), abstract (paraphrased): the combined 5x2cv "
        "F test has a lower type I error and a higher power than the 5x2cv t-test.")
_NB03 = ("Nadeau and Bengio (2003), Machine Learning 52, Sec 5 and 6 (paraphrased): the "
         "resampled t-test over J random splits is far too liberal, the more so as J grows; "
         "the corrected resampled t-test, variance times 1/J + n_test/n_train, has a size "
         "close to nominal.")
_BF04 = ("Bouckaert and Frank (2004), PAKDD, abstract (paraphrased): the corrected repeated "
         "k-fold cross-validation test (10 times 10 folds) has an appropriate type I error "
         "and a good replicability.")

_BF04_REPLICABILITY = (
    "Bouckaert and Frank (2004), PAKDD, abstract (paraphrased): replicability is the chance "
    "that the same test on the same data set with other random splits reaches the same "
    "decision; 5x2cv, the resampled t-test and 10-fold cross-validation have a low "
    "replicability, the corrected repeated 10 x 10-fold test a higher one.")

_BRADLEY = "Bradley's liberal criterion"
_POINT = "point estimates"
#: The two alternatives of the classification problem D4 and D5 are judged on: the exchange
#: (the null's noise; the targets), then the correlation, which changes the noise too
#: (extension rows).
_ALTERNATIVES = (("", "exchange alternative, its noise measured against the null's", "target"),
                 (" correlation", "correlation alternative, which changes the noise",
                  "extension"))
_POWER_TARGETS = [target for suffix, alternative, role in _ALTERNATIVES for target in (
    Target(f"D4{suffix}", "power of cv-paired-t, 5x2cv-t, 5x2cv-f and holdout-mcnemar "
           f"(classification, {alternative}, each shift > 0 all four have)",
           paper="most powerful", tolerance=f"cv-paired-t the highest at each shift ({_POINT})",
           source=_D98, role=role),
    Target(f"D5{suffix}", f"power of 5x2cv-t and holdout-mcnemar (classification, "
           f"{alternative}, each shift > 0)", paper="slightly more powerful",
           tolerance=f"5x2cv-t higher at each shift ({_POINT})", source=_D98, role=role))]
_BOUND = "Bradley's liberal bound"

TARGETS = Targets([
    Target("J1", "resampled-t (J = 15, 10% tested): size on each problem",
           paper="high type I error", tolerance=f"above {BRADLEY[1]} ({_BOUND})",
           source=_NB03 + " " + _D98),
    Target("J2", "resampled-t: size at J = 50 against J = 2, at each test share on each "
           "problem", paper="worse as J grows", tolerance="higher by more than 2 MCSE of the "
           "difference", source=_NB03),
    Target("J3", "corrected-resampled-t: size at every J and test share, on each problem",
           paper="close to nominal", tolerance=f"in [{BRADLEY[0]}, {BRADLEY[1]}] ({_BRADLEY})",
           source=_NB03),
    Target("J4", "corrected-resampled-t: the largest and smallest size over J, test shares "
           "and problems", paper="not stated", source=_NB03, role="finding"),
    Target("J5", "correlation of two random splits' loss differences (J = 15), measured, "
           "against n_test / n, which the correction assumes (10%, then a third tested)",
           paper="n_test / n", source=_NB03, role="finding"),
    Target("K1", "cv-paired-t (10 folds): size on the unstable learner (stumps), of which "
           "Dietterich says it; the stable problems reported beside it",
           paper="somewhat elevated",
           tolerance=f"above {ALPHA} by more than 2 MCSE (he names no upper bound)",
           source=_D98),
    Target("K2", "corrected-repeated-cv-t (10 x 10 folds): size on each problem",
           paper="appropriate type I error",
           tolerance=f"in [{BRADLEY[0]}, {BRADLEY[1]}] ({_BRADLEY})", source=_BF04),
    Target("K3", "cv-paired-t: size at k = 2, 3, 5, 10, 20, on each problem", paper="not stated",
           source=_D98, role="finding"),
    Target("K4", "correlation of two splits' loss differences, within one run of 10 folds "
           "and over 10 x 10 folds, on each problem",
           paper="not stated (the 10-fold t takes them as independent, the corrected 10 x 10 "
                 "as n_test / n)",
           source=_D98, role="finding"),
    Target("D1", "holdout-mcnemar (a third tested): size (classification)",
           paper="low type I error", tolerance=f"at most {BRADLEY[1]}", source=_D98),
    Target("D2", "5x2cv-t: size on both problems", paper="acceptable type I error",
           tolerance=f"at most {BRADLEY[1]} ({_BOUND})", source=_D98),
    Target("D3", "holdout-proportion: size (classification)", paper="high in some situations",
           source=_D98, role="finding"),
    *_POWER_TARGETS,
    Target("D6", "correlation of the two folds' loss differences in a 5x2 repetition, at the "
           "null (regression; classification)", paper="not stated (5x2cv takes them as "
           "independent)", source=_D98, role="finding"),
    Target("B1", "replicability of corrected-repeated-cv-t (10 x 10 folds) against 5x2cv-t, "
           "resampled-t (J = 15) and cv-paired-t (10 folds), at each shift, on both problems",
           paper="higher replicability",
           tolerance="below none at any shift by more than 2 MCSE of the difference (closer is "
                     "a tie)",
           source=_BF04_REPLICABILITY),
    Target("B2", "replicability at the largest shift: 10 x 10 corrected, 5x2cv-t, "
           "resampled-t, corrected-resampled-t, cv-paired-t (regression; classification)",
           paper="not stated", source=_BF04_REPLICABILITY, role="finding"),
    Target("A1", "5x2cv-f against 5x2cv-t: size, and power at each shift > 0, on both "
           "problems (classification: the exchange alternative, as D4 and D5)",
           paper="lower type I error, higher power",
           tolerance=f"size lower, power higher at each shift ({_POINT})", source=_A99),
])


def _reps(scale: str, paper: int, quick: int) -> int:
    return paper if scale == "paper" else quick


def split_correlation(scenario, n_reps: int, *, folds_of_5x2: bool = False):
    """Correlation of the loss differences of two splits of one data set, with its MCSE (from 20
    groups of `n_reps` data sets): for random splits ``1 - mean(within-data-set variance) / total
    variance``, the rho Nadeau and Bengio's correction takes as ``n_test / n``; with `folds_of_5x2`,
    that of the two folds of a 5x2 repetition."""
    groups = []
    for g in range(20):
        rng = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=(g,)))
        a, b, _, _ = scenario.fit(rng, max(n_reps // 20, 2))
        d = a - b
        if folds_of_5x2:
            pairs = d.reshape(-1, 5, 2)
            groups.append(np.corrcoef(pairs[..., 0].ravel(), pairs[..., 1].ravel())[0, 1])
        else:
            groups.append(1 - d.var(axis=1, ddof=1).mean() / d.var())
    return float(np.mean(groups)), float(np.std(groups, ddof=1) / np.sqrt(len(groups)))


def equal_differences(scenario, n_reps: int) -> float:
    """Share of `n_reps` data sets whose loss differences are equal and nonzero on every split,
    which the t-tests over splits reject at any level (zero variance; :mod:`evalmc.criteria.cv`)."""
    rng = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=(99,)))
    a, b, _, _ = scenario.fit(rng, n_reps)
    d = a - b
    return float(np.mean((d.max(axis=1) == d.min(axis=1)) & (d[:, 0] != 0)))


def _rates(scenario, design, criteria, n_reps, runs) -> pd.DataFrame:
    res = run_study(design, scenario, criteria, n_reps=n_reps, seed=SEED, alpha=ALPHA,
                    **runs.engine, progress=False)
    cols = [c for c in ("scheme", "j", "k", "r", "test_share", "shift") if c in res.summary]
    return res.summary[[*cols, "criterion", "rate", "mcse"]].assign(problem=scenario)


# --- Size against J and the test share (Nadeau and Bengio) -----------------------------------

J_VALUES = {"paper": (2, 5, 10, 15, 25, 50), "quick": (2, 15, 50)}
SHARES = (0.1, 1 / 3)
#: Rows of the size-j data that hold the measured correlation of two splits, not a rate.
CORRELATION = "split correlation"
#: Rows that hold the share of data sets with equal nonzero differences on its J = 2 splits.
EQUAL = "equal nonzero differences"


def compute_size_j(scale, runs):
    """The size-j figure's data: size of the naive and the corrected resampled t-test against
    the number J of random splits, for each test share, on both problems.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        ``problem, j, test_share, criterion, rate, mcse``: one row per (problem, J, share,
        test), `rate` the size; rows whose `criterion` is :data:`CORRELATION` or :data:`EQUAL`
        hold that measure in `rate`.

    Examples
    --------
    Tens of seconds at the quick scale:

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_size_j("quick", Runs())  # doctest: +SKIP
    >>> data.groupby("criterion").size().to_dict()  # doctest: +SKIP
    {'corrected-resampled-t': 12, 'equal nonzero differences': 4, 'resampled-t': 12, \
    'split correlation': 4}
    """
    parts = [_rates(p, make_design(n=N, scheme="random", j=list(J_VALUES[scale]),
                                   test_share=list(SHARES)),
                    ["resampled-t", "corrected-resampled-t"], _reps(scale, 4000, 300), runs)
             for p in SIZE_PROBLEMS]
    for p in SIZE_PROBLEMS:
        for share in SHARES:
            rho, mcse = split_correlation(get_scenario(p)(n=N, scheme="random", j=15,
                                                          test_share=share),
                                          _reps(scale, 4000, 400))
            tied = equal_differences(get_scenario(p)(n=N, scheme="random", j=2,
                                                     test_share=share), 4000)
            parts.append(pd.DataFrame([
                {"problem": p, "j": 15, "test_share": share, "criterion": CORRELATION,
                 "rate": rho, "mcse": mcse},
                {"problem": p, "j": 2, "test_share": share, "criterion": EQUAL, "rate": tied,
                 "mcse": np.sqrt(tied * (1 - tied) / 4000)}]))
    return pd.concat(parts, ignore_index=True)[
        ["problem", "j", "test_share", "criterion", "rate", "mcse"]]


def _nominal(ax):
    ax.axhspan(*BRADLEY, color="0.9", zorder=0)
    ax.axhline(ALPHA, color="0.5", ls="--", lw=0.8)


def _panels(data, x, curves, xlabel, ylabel="size (rate of rejecting a true null)", log=False,
            nominal=True, problems=PROBLEMS):
    fig = MplFigure(figsize=(5.5 * len(problems), 4.5), layout="constrained")
    axes = fig.subplots(1, len(problems), sharey=True)
    for ax, (problem, title) in zip(axes, problems.items(), strict=True):
        if nominal:
            _nominal(ax)
        rows = data[data["problem"] == problem]
        for i, (label, pick) in enumerate(curves):
            curve = pick(rows).sort_values(x)
            if curve.empty:
                continue
            ax.errorbar(curve[x], curve["rate"], yerr=2 * curve["mcse"], marker="o", ms=3,
                        color=f"C{i}", label=label, capsize=2)
        ax.set(xlabel=xlabel, title=title)
        if log:
            ax.set_xscale("log")
            ax.set_xticks(sorted(rows[x].unique()))
            ax.xaxis.set_major_formatter(ScalarFormatter())
            ax.xaxis.set_minor_formatter(NullFormatter())
    axes[0].set_ylabel(ylabel)
    legend_below(fig, axes, ncols=4, fontsize=8)
    return fig


def _pick(criterion, **where):
    def pick(rows):
        mask = rows["criterion"] == criterion
        for col, value in where.items():
            mask &= np.isclose(rows[col], value)
        return rows[mask]
    return pick


def plot_size_j(data):
    """Size against J, one panel per problem, one curve per (test, share), with the Bradley band.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_size_j`'s columns ``problem, j, test_share, criterion, rate, mcse``.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels, J on a log axis.

    Examples
    --------
    A hand-made table: the naive test's size grows with J, the corrected one's stays at 0.05.

    >>> import pandas as pd
    >>> rows = [{"problem": p, "j": j, "test_share": share, "criterion": c, "mcse": 0.01,
    ...          "rate": 0.05 + j / 200 if c == "resampled-t" else 0.05}
    ...         for p in SIZE_PROBLEMS for j in (2, 15, 50) for share in SHARES
    ...         for c in ("resampled-t", "corrected-resampled-t")]
    >>> rows += [{"problem": p, "j": j, "test_share": share, "criterion": c, "rate": rate,
    ...           "mcse": 0.01} for p in SIZE_PROBLEMS for share in SHARES
    ...          for j, c, rate in ((15, CORRELATION, 0.06), (2, EQUAL, 0.0))]
    >>> data = pd.DataFrame(rows)
    >>> fig = plot_size_j(data)
    >>> [ax.get_title() for ax in fig.axes], fig.axes[0].get_xscale()
    (['regression: least squares, 10 vs 5 features',
      'classification: discriminant vs nearest mean',
      'unstable: stump on feature 1 vs on feature 2'], 'log')
    """
    curves = [(f"{c}, {share:.0%} tested", _pick(c, test_share=share))
              for share in SHARES for c in ("resampled-t", "corrected-resampled-t")]
    return _panels(data, "j", curves, "J random train/test splits", log=True,
                   problems=SIZE_PROBLEMS)


def _rates_text(by_problem) -> str:
    """``'r1; r2'`` of ``{problem: (rate, mcse)}``."""
    return "; ".join(f"{r:.3f}" for r, _ in by_problem.values())


def _mcse_text(by_problem) -> str:
    """``'regression; classification (MCSE m1, m2)'`` of ``{problem: (rate, mcse)}``."""
    return "; ".join(p.removeprefix("cv-") for p in by_problem) + " (MCSE " + ", ".join(
        f"{m:.3f}" for _, m in by_problem.values()) + ")"


def _at(data, problem, criterion, **where):
    rows = _pick(criterion, **where)(data[data["problem"] == problem])
    if len(rows) != 1:
        raise ValueError(f"expected one row of {criterion} on {problem} at {where}; got "
                         f"{len(rows)}.")
    return float(rows["rate"].iloc[0]), float(rows["mcse"].iloc[0])


def check_size_j(data, scale):
    """Judge Nadeau and Bengio's claims on the resampled t-test: J1-J3 judged, J4 and J5
    (the corrected sizes' range, the split correlation against n_test / n) reported.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_size_j`'s data, at the J values of :data:`J_VALUES` for `scale`.
    scale : {'quick', 'paper'}
        Picks the J values compared by J2.

    Returns
    -------
    list of Check
        J1, J2, J3, J4, J5.

    Examples
    --------
    A hand-made table: the naive test's size grows with J, the corrected one's stays at 0.05.

    >>> import pandas as pd
    >>> rows = [{"problem": p, "j": j, "test_share": share, "criterion": c, "mcse": 0.01,
    ...          "rate": 0.05 + j / 200 if c == "resampled-t" else 0.05}
    ...         for p in SIZE_PROBLEMS for j in (2, 15, 50) for share in SHARES
    ...         for c in ("resampled-t", "corrected-resampled-t")]
    >>> rows += [{"problem": p, "j": j, "test_share": share, "criterion": c, "rate": rate,
    ...           "mcse": 0.01} for p in SIZE_PROBLEMS for share in SHARES
    ...          for j, c, rate in ((15, CORRELATION, 0.06), (2, EQUAL, 0.0))]
    >>> data = pd.DataFrame(rows)
    >>> [(c.id, c.passed) for c in check_size_j(data, "quick")]
    [('J1', True), ('J2', True), ('J3', True), ('J4', None), ('J5', None)]
    """
    js = J_VALUES[scale]
    naive = {p: _at(data, p, "resampled-t", j=15, test_share=0.1) for p in SIZE_PROBLEMS}
    j1 = [TARGETS.holds("J1", ours=_rates_text(naive), note=_mcse_text(naive),
                        passed=all(r > BRADLEY[1] for r, _ in naive.values()))]
    growth, grows = [], True
    for p in SIZE_PROBLEMS:
        for share in SHARES:
            lo, m_lo = _at(data, p, "resampled-t", j=js[0], test_share=share)
            hi, m_hi = _at(data, p, "resampled-t", j=js[-1], test_share=share)
            grows &= hi - lo > 2 * np.hypot(m_lo, m_hi)
            growth.append(f"{lo:.3f} -> {hi:.3f}")
    j2 = TARGETS.holds("J2", ours="; ".join(growth), passed=grows,
                       note=f"J = {js[0]} -> {js[-1]}; regression at 10%, a third; then "
                            "classification, then stumps")
    corrected = _pick("corrected-resampled-t")(data)
    rhos = _pick(CORRELATION)(data).sort_values(["problem", "test_share"])
    j3 = TARGETS.holds(
        "J3", ours=f"{corrected['rate'].min():.3f} to {corrected['rate'].max():.3f}",
        passed=corrected["rate"].between(*BRADLEY).all(),
        note=(band := _outside_band(corrected, rhos, _pick(EQUAL)(data)))[0],
        evidence=band[1])
    lo, hi = corrected.loc[corrected["rate"].idxmin()], corrected.loc[corrected["rate"].idxmax()]
    j4 = TARGETS.finding("J4", ours=f"{lo.rate:.3f} ({lo.problem}, J = {lo.j}, share "
                                    f"{lo.test_share:.2f}); {hi.rate:.3f} ({hi.problem}, "
                                    f"J = {hi.j}, share {hi.test_share:.2f})")
    j5 = TARGETS.finding("J5", ours="; ".join(
        f"{r.problem.removeprefix('cv-')} {r.rate:.3f} vs {r.test_share:.3f}"
        for r in rhos.itertuples()), note="MCSE " + ", ".join(f"{m:.3f}" for m in
                                                             rhos["mcse"]))
    return [*j1, j2, j3, j4, j5]


def _outside_band(corrected, rhos, tied) -> tuple[str, bool]:
    """J3's note: the corrected test's sizes outside Bradley's band, counted by cause (equal nonzero
    differences at J = 2, or the splits' correlation above or below ``n_test / n``); and whether
    every one has its cause."""
    rho = {(r.problem, round(r.test_share, 6)): r.rate for r in rhos.itertuples()}
    ties = {(r.problem, round(r.test_share, 6)): r.rate for r in tied.itertuples() if r.j == 2}
    causes, explained = {}, True
    for r in corrected.itertuples():
        if BRADLEY[0] <= r.rate <= BRADLEY[1]:
            continue
        key = (r.problem, round(r.test_share, 6))
        if r.rate > BRADLEY[1] and r.j == 2 and ties.get(key, 0) > 0:
            cause = (f"above at J = 2, where up to {max(ties.values()):.0%} of data sets have "
                     "equal nonzero differences on both splits: our t-tests over splits count a "
                     "zero variance with a nonzero mean as a rejection at any level (t infinite, "
                     "as scipy's ttest_rel)")
        elif key in rho and (rho[key] > r.test_share) == (r.rate > BRADLEY[1]):
            cause = ("above: two splits' correlation (J5) is above the n_test / n the "
                     "correction assumes, so its variance is too small" if r.rate > BRADLEY[1]
                     else "below: two splits' correlation (J5) is below n_test / n, so the "
                     "corrected variance is too large")
        else:
            cause = "above" if r.rate > BRADLEY[1] else "below"
            explained = False
        causes.setdefault(cause, []).append(r)
    if not causes:
        return f"all {len(corrected)} points in the band", False
    parts = []
    for cause, rows in causes.items():
        where = ", ".join(dict.fromkeys(r.problem.removeprefix("cv-") for r in rows))
        low, high = min(r.rate for r in rows), max(r.rate for r in rows)
        sizes = f"{low:.3f}" if low == high else f"{low:.3f} to {high:.3f}"
        parts.append(f"{len(rows)} {cause} ({where}: {sizes})")
    return f"of {len(corrected)} points, " + "; ".join(parts), explained


# --- Size against k (Dietterich's 10-fold t; Bouckaert and Frank's 10 x 10) ------------------

K_VALUES = {"paper": (2, 3, 5, 10, 20), "quick": (2, 10)}
#: Rows of the size-k data that hold the correlation of two of the 100 splits of 10 x 10 folds
#: (of one repetition or of two), which the corrected repeated test takes as n_test / n.
REPEATED_CORRELATION = "split correlation, 10 x 10"
K_REPEATED = {"paper": (2, 5, 10), "quick": (10,)}


def compute_size_k(scale, runs):
    """The size-k figure's data: size of the k-fold paired t-test against k, and of the
    corrected repeated (10 x k) cross-validation t-test, on both problems.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        ``problem, k, criterion, rate, mcse``: one row per (problem, k, test), `rate` the size;
        rows whose `criterion` is :data:`CORRELATION` or :data:`REPEATED_CORRELATION` hold the
        correlation in `rate`.

    Examples
    --------
    Seconds at the quick scale:

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_size_k("quick", Runs())  # doctest: +SKIP
    >>> data[data["problem"] == "cv-regression"].round(4)  # doctest: +SKIP
             problem   k                criterion    rate    mcse
    0  cv-regression   2              cv-paired-t  0.0733  0.0151
    1  cv-regression  10              cv-paired-t  0.0600  0.0137
    2  cv-regression  10  corrected-repeated-cv-t  0.0350  0.0130
    3  cv-regression  10        split correlation -0.0258  0.0073
    """
    reps = _reps(scale, 4000, 300)
    parts = []
    for p in SIZE_PROBLEMS:
        parts.append(_rates(p, make_design(n=N, scheme="kfold", k=list(K_VALUES[scale])),
                            ["cv-paired-t"], reps, runs))
        parts.append(_rates(p, make_design(n=N, scheme="repeated-kfold",
                                           k=list(K_REPEATED[scale]), r=10),
                            ["corrected-repeated-cv-t"], _reps(scale, 2000, 200), runs))
        rho, mcse = split_correlation(get_scenario(p)(n=N, scheme="kfold", k=10),
                                      _reps(scale, 4000, 400))
        rho_r, mcse_r = split_correlation(
            get_scenario(p)(n=N, scheme="repeated-kfold", k=10, r=10), _reps(scale, 2000, 200))
        parts.append(pd.DataFrame([{"problem": p, "k": 10, "criterion": CORRELATION,
                                    "rate": rho, "mcse": mcse},
                                   {"problem": p, "k": 10, "criterion": REPEATED_CORRELATION,
                                    "rate": rho_r, "mcse": mcse_r}]))
    return pd.concat(parts, ignore_index=True)[["problem", "k", "criterion", "rate", "mcse"]]


def plot_size_k(data):
    """Size against k, one panel per problem: the k-fold t-test and the 10 x k corrected one.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_size_k`'s columns ``problem, k, criterion, rate, mcse``.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels, k on a log axis.

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame([{"problem": p, "k": k, "criterion": c, "rate": rate, "mcse": 0.01}
    ...                      for p in SIZE_PROBLEMS
    ...                      for k, c, rate in ((2, "cv-paired-t", 0.07), (10, "cv-paired-t", 0.06),
    ...                                         (10, "corrected-repeated-cv-t", 0.05),
    ...                                         (10, CORRELATION, 0.0))])
    >>> fig = plot_size_k(data)
    >>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
    ('folds k', 'size (rate of rejecting a true null)')
    """
    curves = [("cv-paired-t (k folds)", _pick("cv-paired-t")),
              ("corrected-repeated-cv-t (10 x k folds)", _pick("corrected-repeated-cv-t"))]
    return _panels(data, "k", curves, "folds k", log=True, problems=SIZE_PROBLEMS)


def check_size_k(data, scale):
    """Judge Dietterich's elevated size of the 10-fold t-test (K1) and Bouckaert and Frank's
    nominal 10 x 10 corrected test (K2); report the folds' correlation (K4) and the sizes
    against k (K3).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_size_k`'s data, with k = 10 for both tests and the correlation.
    scale : {'quick', 'paper'}
        Names the k values in K3's note.

    Returns
    -------
    list of Check
        K1, K2, K4, K3.

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame([{"problem": p, "k": k, "criterion": c, "rate": rate, "mcse": 0.003}
    ...                      for p in SIZE_PROBLEMS
    ...                      for k, c, rate in ((2, "cv-paired-t", 0.07),
    ...                                         (10, "cv-paired-t", 0.065),
    ...                                         (10, "corrected-repeated-cv-t", 0.05),
    ...                                         (10, CORRELATION, 0.0),
    ...                                         (10, REPEATED_CORRELATION, 0.1))])
    >>> [(c.id, c.passed) for c in check_size_k(data, "quick")]
    [('K1', True), ('K2', True), ('K4', None), ('K3', None)]
    """
    ten = {p: _at(data, p, "cv-paired-t", k=10) for p in SIZE_PROBLEMS}
    rep = {p: _at(data, p, "corrected-repeated-cv-t", k=10) for p in SIZE_PROBLEMS}
    k3 = []
    for p in SIZE_PROBLEMS:
        rows = _pick("cv-paired-t")(data[data["problem"] == p]).sort_values("k")
        k3.append(", ".join(f"{r:.3f}" for r in rows["rate"]))
    rho = {p: _at(data, p, CORRELATION, k=10) for p in SIZE_PROBLEMS}
    rho_r = {p: _at(data, p, REPEATED_CORRELATION, k=10) for p in SIZE_PROBLEMS}
    k1_notes, k2_notes = [], []
    for p, (r, m) in ten.items():
        name, folds = p.removeprefix("cv-"), rho[p][0]
        state = "elevated" if r - 2 * m > ALPHA else "not elevated"
        k1_notes.append(f"{name} {state} (two folds' correlation {folds:.3f}, K4, which the "
                        "test takes as 0)" + ("" if p == "cv-stumps" else ", reported"))
    stumps, stumps_mcse = ten["cv-stumps"]
    k2_explained = True  # every miss of K2 with its cause
    for p, (r, _) in rep.items():
        name, splits = p.removeprefix("cv-"), rho_r[p][0]
        k2_explained &= ((r >= BRADLEY[0] or splits < 0.1)
                         and (r <= BRADLEY[1] or splits > 0.1))
        if r < BRADLEY[0]:
            k2_notes.append(f"{name} below" + (
                f": two splits' correlation {splits:.3f} (K4) is below the n_test / n = 0.1 "
                f"the correction assumes, so its variance is too large" if splits < 0.1 else ""))
        elif r > BRADLEY[1]:
            k2_notes.append(f"{name} above" + (
                f": two splits' correlation {splits:.3f} (K4) is above the n_test / n = 0.1 "
                f"the correction assumes, so its variance is too small" if splits > 0.1 else ""))
    return [TARGETS.holds("K1", ours=_rates_text(ten),
                          passed=stumps - 2 * stumps_mcse > ALPHA,
                          note="; ".join([_mcse_text(ten), *k1_notes])),
            TARGETS.holds("K2", ours=_rates_text(rep), passed=not k2_notes,
                          note="; ".join([_mcse_text(rep), *k2_notes]),
                          evidence=k2_explained),
            TARGETS.finding("K4", ours=f"10 folds {_rates_text(rho)}; 10 x 10 folds "
                                       f"{_rates_text(rho_r)}",
                            note=_mcse_text(rho) + "; " + _mcse_text(rho_r)),
            TARGETS.finding("K3", ours="; ".join(k3),
                            note=f"k = {', '.join(map(str, K_VALUES[scale]))}; "
                                 + "; ".join(p.removeprefix("cv-") for p in SIZE_PROBLEMS))]


# --- Dietterich's five tests and Alpaydin's F: size and power ---------------------------------

SCHEMES = {"holdout": ["holdout-mcnemar", "holdout-proportion"], "kfold": ["cv-paired-t"],
           "5x2": ["5x2cv-t", "5x2cv-f"], "random": ["resampled-t", "corrected-resampled-t"]}
LOSS_01 = ("holdout-mcnemar", "holdout-proportion")
#: Rows of the tests data that hold the correlation of the two folds of a 5x2 repetition.
FOLD_CORRELATION = "5x2 fold correlation"
#: Rows of the tests data that hold the variance of one 5x2 fold's loss difference.
FOLD_VARIANCE = "5x2 fold variance"
#: The `problem` of the tests data's rows on the classification problem's exchange
#: alternative (the null's noise; :mod:`evalmc.sims.learning`), which D4 and D5 judge.
MATCHED = "cv-classification, exchange"
#: The schemes and tests run on the exchange alternative: those of D4 and D5.
MATCHED_SCHEMES = {"holdout": ["holdout-mcnemar"], "kfold": ["cv-paired-t"],
                   "5x2": ["5x2cv-t", "5x2cv-f"]}


def compute_tests(scale, runs):
    """The tests figure's data: rate of rejecting 'equal expected loss' of each test of
    :data:`SCHEMES` against the shift, on both problems, and of :data:`MATCHED_SCHEMES` on the
    classification problem's exchange alternative (:data:`MATCHED`).

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        ``problem, shift, criterion, rate, mcse``: one row per (problem, test, shift), `rate`
        the size at shift 0 and the power above; rows whose `criterion` is
        :data:`FOLD_CORRELATION` or :data:`FOLD_VARIANCE` hold that measure in `rate`.

    Examples
    --------
    Tens of seconds at the quick scale:

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_tests("quick", Runs())  # doctest: +SKIP
    >>> data.shape, data.groupby("problem").size().to_dict()  # doctest: +SKIP
    ((95, 5), {'cv-classification': 39, 'cv-classification, exchange': 27, \
    'cv-regression': 29})
    """
    reps = _reps(scale, 4000, 300)
    parts = []
    for p in PROBLEMS:
        for scheme, criteria in SCHEMES.items():
            if p == "cv-regression":
                criteria = [c for c in criteria if c not in LOSS_01]
            if not criteria:
                continue
            design = make_design(n=N, scheme=scheme, shift=list(SHIFTS[p]),
                                 test_share=1 / 3 if scheme == "holdout" else 0.1)
            parts.append(_rates(p, design, criteria, reps, runs))
    null = pd.concat(parts)
    parts.append(_matched_rates(null[(null["problem"] == CLASSIFICATION) & (null["shift"] == 0)],
                                reps, runs))
    classification = get_scenario(CLASSIFICATION)
    noise = [(p, get_scenario(p)(n=N, scheme="5x2", shift=shift))
             for p in PROBLEMS for shift in (0.0, SHIFTS[p][-1])]
    noise += [(MATCHED, classification(n=N, scheme="5x2", shift=shift, alternative="exchange"))
              for shift in SHIFTS[CLASSIFICATION][1:]]
    for p, scenario in noise:
        rho, mcse = split_correlation(scenario, reps, folds_of_5x2=True)
        var = _fold_variance(scenario, reps)
        parts.append(pd.DataFrame([
            {"problem": p, "shift": scenario.shift, "criterion": FOLD_CORRELATION,
             "rate": rho, "mcse": mcse},
            {"problem": p, "shift": scenario.shift, "criterion": FOLD_VARIANCE, "rate": var,
             "mcse": var * np.sqrt(2 / (reps - 1))}]))
    return pd.concat(parts, ignore_index=True)[["problem", "shift", "criterion", "rate",
                                                "mcse"]]


def _matched_rates(null, reps, runs) -> pd.DataFrame:
    """Rates (``scheme, shift, criterion, rate, mcse, problem``) of the tests of
    :data:`MATCHED_SCHEMES` on the classification problem's exchange alternative, at shift 0 and at
    each shift of :data:`SHIFTS` in its reach."""
    parts = [null[null["criterion"].isin([c for cs in MATCHED_SCHEMES.values() for c in cs])]]
    for scheme, criteria in MATCHED_SCHEMES.items():
        share = 1 / 3 if scheme == "holdout" else 0.1
        scenario = get_scenario(CLASSIFICATION)(n=N, scheme=scheme, test_share=share)
        reach = exchange_rate(scenario.n_train, scenario.d, scenario.delta, 0.0)[2]
        design = make_design(n=N, scheme=scheme, test_share=share, alternative="exchange",
                             shift=[s for s in SHIFTS[CLASSIFICATION] if 0 < s <= reach])
        parts.append(_rates(CLASSIFICATION, design, criteria, reps, runs))
    return pd.concat(parts, ignore_index=True).assign(problem=MATCHED)


def _fold_variance(scenario, n_reps) -> float:
    """Variance of the loss difference on the first fold of a 5x2 scheme over `n_reps` data
    sets (the data sets of :func:`split_correlation`'s first group of seeds on)."""
    rng = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=(0,)))
    a, b, _, _ = scenario.fit(rng, n_reps)
    return float(np.var(a[:, 0] - b[:, 0], ddof=1))


PLOTTED = ("cv-paired-t", "5x2cv-t", "5x2cv-f", "holdout-mcnemar", "holdout-proportion",
           "corrected-resampled-t")


def plot_tests(data):
    """Rejection rate against the shift, one panel per problem and one for the classification
    problem's exchange alternative (:data:`MATCHED`), one curve per test of :data:`PLOTTED`.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_tests`'s columns ``problem, shift, criterion, rate, mcse``.

    Returns
    -------
    matplotlib.figure.Figure
        Three panels, the shift in each problem's units.

    Examples
    --------
    A hand-made table: every rate linear in the shift, from 0.04.

    >>> import pandas as pd
    >>> slope = {"cv-paired-t": 10, "5x2cv-t": 4, "5x2cv-f": 5, "holdout-mcnemar": 3,
    ...          "holdout-proportion": 2, "resampled-t": 10, "corrected-resampled-t": 8}
    >>> rows = [{"problem": p, "shift": s, "criterion": c, "mcse": 0.01,
    ...          "rate": min(0.04 + slope[c] * s, 1.0)}
    ...         for p in PROBLEMS for tests in SCHEMES.values() for c in tests for s in SHIFTS[p]
    ...         if p == CLASSIFICATION or c not in LOSS_01]
    >>> rows += [{"problem": p, "shift": 0.0, "criterion": FOLD_CORRELATION, "rate": 0.0,
    ...           "mcse": 0.02} for p in PROBLEMS]
    >>> rows += [{"problem": MATCHED, "shift": s, "criterion": c, "mcse": 0.01,
    ...           "rate": 0.04 + slope[c] * s} for cs in MATCHED_SCHEMES.values() for c in cs
    ...          for s in SHIFTS[CLASSIFICATION]]
    >>> data = pd.DataFrame(rows)
    >>> [ax.get_xlabel() for ax in plot_tests(data).axes]
    ['shift (sd^2)', 'shift (error rate)', 'shift (error rate)']
    """
    curves = [(name, _pick(name)) for name in PLOTTED]
    fig = _panels(data, "shift", curves, "shift: B's expected loss minus A's at n_train",
                  ylabel="rate of rejecting 'equal expected loss'",
                  problems={**PROBLEMS, MATCHED: "classification, exchange alternative "
                                                 "(A-only errors given to B)"})
    fig.axes[0].set_xlabel("shift (sd^2)")
    for ax in fig.axes[1:]:
        ax.set_xlabel("shift (error rate)")
    return fig


#: The problem of the tests that count errors (McNemar, the proportion test), and of D4, D5.
CLASSIFICATION = "cv-classification"
#: The tests whose power D4 compares, cv-paired-t first.
POWER_TESTS = ("cv-paired-t", "5x2cv-t", "5x2cv-f", "holdout-mcnemar")


def check_tests(data, scale):
    """Judge Dietterich's and Alpaydin's claims on the size and power of the tests (D1-D6, A1);
    D4 and D5 on the exchange alternative, then on the correlation alternative (extension).

    Parameters
    ----------
    data : DataFrame
        The tests figure's data (:func:`compute_tests`).
    scale : {'quick', 'paper'}
        Unused: the claims are judged alike at both scales.

    Returns
    -------
    list of Check
        D1, D2, D3, D4, D5, D4 correlation, D5 correlation, D6 and A1, in this order.

    Examples
    --------
    A hand-made table: every rate linear in the shift, from 0.04.

    >>> import pandas as pd
    >>> slope = {"cv-paired-t": 10, "5x2cv-t": 4, "5x2cv-f": 5, "holdout-mcnemar": 3,
    ...          "holdout-proportion": 2, "resampled-t": 10, "corrected-resampled-t": 8}
    >>> rows = [{"problem": p, "shift": s, "criterion": c, "mcse": 0.01,
    ...          "rate": min(0.04 + slope[c] * s, 1.0)}
    ...         for p in PROBLEMS for tests in SCHEMES.values() for c in tests for s in SHIFTS[p]
    ...         if p == CLASSIFICATION or c not in LOSS_01]
    >>> rows += [{"problem": MATCHED, "shift": s, "criterion": c, "mcse": 0.01,
    ...           "rate": 0.04 + slope[c] * s} for cs in MATCHED_SCHEMES.values() for c in cs
    ...          for s in SHIFTS[CLASSIFICATION] if c != "cv-paired-t" or s < 0.05]
    >>> rows += [{"problem": p, "shift": s, "criterion": c, "mcse": 0.02,
    ...           "rate": 0.0 if c == FOLD_CORRELATION else 0.01}
    ...          for p, shifts in [*((p, (0.0, SHIFTS[p][-1])) for p in PROBLEMS),
    ...                            (MATCHED, (SHIFTS[CLASSIFICATION][-1],))]
    ...          for s in shifts for c in (FOLD_CORRELATION, FOLD_VARIANCE)]
    >>> data = pd.DataFrame(rows)
    >>> [(c.id, c.passed) for c in check_tests(data, "quick")]
    [('D1', True), ('D2', True), ('D3', None), ('D4', True), ('D5', True),
     ('D4 correlation', True), ('D5 correlation', True), ('D6', None), ('A1', False)]
    """
    fold_rho = _fold_correlations(data)
    power = [check for problem, suffix in ((MATCHED, ""), (CLASSIFICATION, " correlation"))
             for check in (_check_most_powerful(data, problem, suffix),
                           _check_5x2_over_mcnemar(data, problem, suffix, fold_rho,
                                                   _noise(data, problem)))]
    return [_check_mcnemar_size(data), _check_5x2_size(data, fold_rho),
            _check_proportion_size(data), *power, _check_fold_correlation(data),
            _check_f_over_t(data, fold_rho)]


def _fold_correlations(data) -> dict:
    """Correlation of the two folds of a 5x2 repetition, at the null, per problem."""
    return {p: _at(data, p, FOLD_CORRELATION, shift=0.0)[0] for p in PROBLEMS}


def _noise(data, problem) -> str:
    """How an alternative changes the 5x2 folds' noise: their correlation and one fold's variance at
    each positive shift against the null's (with MCSEs), and the shifts where both match the null
    within 2 MCSE."""
    rows = _pick(FOLD_CORRELATION)(data[data["problem"] == problem])
    shifts = sorted(float(s) for s in rows["shift"] if s > 0)
    rho0 = _at(data, CLASSIFICATION, FOLD_CORRELATION, shift=0.0)
    var0 = _at(data, CLASSIFICATION, FOLD_VARIANCE, shift=0.0)
    rhos, ratios, matched, rho_se, ratio_se = [], [], [], 0.0, 0.0
    for s in shifts:
        rho = _at(data, problem, FOLD_CORRELATION, shift=s)
        var = _at(data, problem, FOLD_VARIANCE, shift=s)
        ratio = var[0] / var0[0]
        se = (np.hypot(rho0[1], rho[1]), ratio * np.hypot(var0[1] / var0[0], var[1] / var[0]))
        rhos.append(rho[0])
        ratios.append(ratio)
        rho_se, ratio_se = max(rho_se, se[0]), max(ratio_se, se[1])
        if abs(rho[0] - rho0[0]) <= 2 * se[0] and abs(ratio - 1) <= 2 * se[1]:
            matched.append(f"{s:g}")
    return (f"at shift{'s' * (len(shifts) > 1)} {', '.join(f'{s:g}' for s in shifts)} the two "
            f"folds' correlation is "
            f"{'/'.join(f'{r:.3f}' for r in rhos)} (null {rho0[0]:.3f}; MCSE of a difference "
            f"at most {rho_se:.3f}) and a fold's difference has "
            f"{'/'.join(f'{r:.2f}' for r in ratios)} times the null's variance (MCSE at most "
            f"{ratio_se:.2f}): the null's noise within 2 MCSE at "
            + (", ".join(matched) if matched else "no shift"))


def _power(data, problem, tests) -> tuple[list, dict]:
    """The shifts above 0 where all of `tests` have a rate on `problem`, and ``{test: rates
    there}``."""
    rows = data[(data["problem"] == problem) & data["criterion"].isin(tests)
                & (data["shift"] > 0)]
    have = rows.groupby("shift")["criterion"].nunique()
    shifts = sorted(float(s) for s in have.index[have == len(tests)])
    return shifts, {c: _rates_at(data, problem, c, shifts) for c in tests}


def _rates_at(data, problem, criterion, shifts) -> list:
    """The rejection rates of `criterion` on `problem` at each of `shifts`."""
    return [_at(data, problem, criterion, shift=s)[0] for s in shifts]


def _slashed(rates) -> str:
    """``'0.12/0.34'``: `rates` to two decimals."""
    return "/".join(f"{r:.2f}" for r in rates)


def _check_mcnemar_size(data):
    """D1: the size of McNemar's test on one hold-out split is at most 0.075."""
    mcnemar, m = _at(data, CLASSIFICATION, "holdout-mcnemar", shift=0.0)
    return TARGETS.holds("D1", ours=f"{mcnemar:.3f}", passed=mcnemar <= BRADLEY[1],
                         note=f"classification, MCSE {m:.3f}")


def _check_5x2_size(data, fold_rho):
    """D2: the size of the 5x2cv t-test is at most 0.075 on both problems."""
    t52 = {p: _at(data, p, "5x2cv-t", shift=0.0) for p in PROBLEMS}
    liberal = [p for p, (r, _) in t52.items() if r > BRADLEY[1]]
    return TARGETS.holds(
        "D2", ours=_rates_text(t52), passed=not liberal, note=_mcse_text(t52) + "".join(
            f"; {p.removeprefix('cv-')}: the two folds of a repetition are positively "
            f"correlated ({fold_rho[p]:.3f}, D6), which 5x2cv's variance takes as independent"
            for p in liberal if fold_rho[p] > 0), evidence=all(fold_rho[p] > 0 for p in liberal))


def _check_proportion_size(data):
    """D3 (a finding): the size of the proportion test on one hold-out split."""
    prop, m = _at(data, CLASSIFICATION, "holdout-proportion", shift=0.0)
    return TARGETS.finding("D3", ours=f"{prop:.3f}", note=f"MCSE {m:.3f}")


def _check_most_powerful(data, problem, suffix):
    """D4: the 10-fold cv t-test is the most powerful of :data:`POWER_TESTS` at each shift
    they all have on `problem`."""
    shifts, power = _power(data, problem, POWER_TESTS)
    best = all(power["cv-paired-t"][i] >= max(v[i] for v in power.values())
               for i in range(len(shifts)))
    rows = data[(data["problem"] == problem) & data["criterion"].isin(POWER_TESTS)]
    short = sorted(c for c, top in rows.groupby("criterion")["shift"].max().items()
                   if top < rows["shift"].max())
    return TARGETS.holds(f"D4{suffix}", passed=best, ours="; ".join(
        f"{c} " + _slashed(v) for c, v in power.items()),
        note=f"shifts {', '.join(f'{s:g}' for s in shifts)}" + "".join(
            f"; {c} has no point at {rows['shift'].max():g} (beyond the exchange's reach at "
            f"its training size)" for c in short))


def _check_5x2_over_mcnemar(data, problem, suffix, fold_rho, noise):
    """D5: the 5x2cv t-test is more powerful than McNemar's at each shift of `problem`."""
    shifts, power = _power(data, problem, ("5x2cv-t", "holdout-mcnemar"))
    d5 = all(a > b for a, b in zip(power["5x2cv-t"], power["holdout-mcnemar"], strict=True))
    why = ("" if d5 or fold_rho[CLASSIFICATION] >= 0 else
           f"the two folds of a repetition are negatively correlated at the null "
           f"({fold_rho[CLASSIFICATION]:.3f}, D6): s_i^2 over-estimates the variance of d_11; ")
    se = [np.hypot(_at(data, problem, "5x2cv-t", shift=s)[1],
                   _at(data, problem, "holdout-mcnemar", shift=s)[1]) for s in shifts]
    gaps = [a - b for a, b in zip(power["5x2cv-t"], power["holdout-mcnemar"], strict=True)]
    return TARGETS.holds(
        f"D5{suffix}", passed=d5, note=f"shifts {', '.join(f'{s:g}' for s in shifts)}; "
        f"5x2cv-t minus mcnemar {'/'.join(f'{g:+.3f}' for g in gaps)} (MCSE "
        f"{'/'.join(f'{e:.3f}' for e in se)}); " + why + noise,
        ours="5x2cv-t " + _slashed(power["5x2cv-t"]) + "; mcnemar "
             + _slashed(power["holdout-mcnemar"]))


def _check_fold_correlation(data):
    """D6 (a finding): the correlation of the two folds of a 5x2 repetition, per problem."""
    folds = _pick(FOLD_CORRELATION, shift=0.0)(data)
    return TARGETS.finding("D6", ours="; ".join(f"{r:.3f}" for r in folds["rate"]),
                           note="MCSE " + ", ".join(f"{m:.3f}" for m in folds["mcse"]))


#: Alpaydin's F and the 5x2cv t-test it refines (A1).
F_AND_T = ("5x2cv-f", "5x2cv-t")


def _f_against_t(data, problem):
    """Alpaydin's F against the 5x2cv t on `problem` (size at the null, power above it): whether F's
    size is lower and power higher at every shift, the values as text, and the misses."""
    size_f = _at(data, problem, "5x2cv-f", shift=0.0)[0]
    size_t = _at(data, problem, "5x2cv-t", shift=0.0)[0]
    _, power = _power(data, MATCHED if problem == CLASSIFICATION else problem, F_AND_T)
    pf, pt = power.values()
    lower, stronger = size_f < size_t, all(f > t for f, t in zip(pf, pt, strict=True))
    misses = [f"{problem.removeprefix('cv-')}: {what}" for what, ok in
              (("F's size not lower", lower), ("F not more powerful", stronger)) if not ok]
    part = f"size {size_f:.3f} vs {size_t:.3f}, power {_slashed(pf)} vs {_slashed(pt)}"
    return lower and stronger, part, misses


def _check_f_over_t(data, fold_rho):
    """A1: the 5x2cv F test has a lower size and a higher power than the 5x2cv t-test."""
    holds, parts, misses = True, [], []
    for p in PROBLEMS:
        ok, part, missed = _f_against_t(data, p)
        holds &= ok
        parts.append(part)
        misses += missed
    causes = _f_causes(data, misses, fold_rho) if misses else ""
    return TARGETS.holds("A1", ours="; ".join(parts), passed=holds,
                         note="F vs t; regression, then classification" + (
                             "; " + ", ".join(misses) + causes if misses else ""),
                         evidence=bool(causes))


def _f_causes(data, misses, fold_rho) -> str:
    """What explains A1's misses (the regression's positively correlated folds; in classification, F
    against t on the correlation alternative too), as text to append to the note."""
    causes = []
    if "regression: F's size not lower" in misses and fold_rho["cv-regression"] > 0:
        causes.append(
            f"in regression the two folds of a repetition are positively correlated "
            f"({fold_rho['cv-regression']:.3f}, D6), which both statistics take as "
            f"independent, so both are liberal")
    if "classification: F not more powerful" in misses:
        sizes = [_at(data, CLASSIFICATION, c, shift=0.0)[0] for c in ("5x2cv-f", "5x2cv-t")]
        shifts, power = _power(data, MATCHED, F_AND_T)
        weaker = [f"{s:g}" for s, f, t in zip(shifts, *power.values(), strict=True) if f <= t]
        other, power = _power(data, CLASSIFICATION, F_AND_T)
        of, ot = power.values()
        causes.append(
            f"in classification F's size is the lower ({sizes[0]:.3f} vs {sizes[1]:.3f}), "
            f"which costs it power at the exchange alternative's shifts {', '.join(weaker)}; "
            f"on the correlation alternative, which changes the folds' noise too, F is not "
            f"above t at {sum(f <= t for f, t in zip(of, ot, strict=True))} of {len(other)} "
            f"shifts ({_slashed(of)} vs {_slashed(ot)})")
    return ": " + "; ".join(causes) if causes else ""


# --- Replicability (Bouckaert and Frank) ------------------------------------------------------

REPLICATED = {"repeated-kfold": ["corrected-repeated-cv-t"], "5x2": ["5x2cv-t"],
              "random": ["resampled-t", "corrected-resampled-t"], "kfold": ["cv-paired-t"]}
#: Runs of each scheme on one data set: replicability is the share of agreeing pairs of runs,
#: whatever their number.
RUNS = 4
REPLICABILITY_SHIFTS = {"cv-regression": (0.0, 0.1, 0.2), "cv-classification": (0.0, 0.02, 0.05)}


def compute_replicability(scale, runs):
    """The replicability figure's data: the chance that two runs of a test on one data set
    agree, for each test of :data:`REPLICATED`, against the shift, on both problems.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        ``problem, shift, criterion, rate, replicability, replicability_mcse``: one row per
        (problem, test, shift); `rate` is the rejection rate.

    Examples
    --------
    Seconds at the quick scale:

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_replicability("quick", Runs())  # doctest: +SKIP
    >>> best = data[data["criterion"] == "corrected-repeated-cv-t"]  # doctest: +SKIP
    >>> best[["problem", "shift", "rate", "replicability"]].round(4)  # doctest: +SKIP
                  problem  shift  rate  replicability
    0       cv-regression   0.00  0.05         0.9900
    1       cv-regression   0.20  0.98         0.9733
    10  cv-classification   0.00  0.00         0.9950
    11  cv-classification   0.05  0.63         0.9183
    """
    reps = _reps(scale, 1000, 100)
    parts = []
    for p in PROBLEMS:
        shifts = REPLICABILITY_SHIFTS[p] if scale == "paper" else REPLICABILITY_SHIFTS[p][::2]
        for scheme, criteria in REPLICATED.items():
            design = make_design(n=N, scheme=scheme, shift=list(shifts), runs=RUNS)
            res = run_study(design, p, criteria, n_reps=reps, seed=SEED, alpha=ALPHA,
                            **runs.engine, progress=False)
            parts.append(res.summary[["shift", "criterion", "rate", "replicability",
                                      "replicability_mcse"]].assign(problem=p))
    return pd.concat(parts, ignore_index=True)[
        ["problem", "shift", "criterion", "rate", "replicability", "replicability_mcse"]]


def plot_replicability(data):
    """Replicability against the shift, one panel per problem, one curve per test, bars of
    2 MCSE.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_replicability`'s columns ``problem, shift, criterion, replicability,
        replicability_mcse``.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels.

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame([{"problem": p, "shift": s, "criterion": c,
    ...                       "rate": 0.05 if s == 0 else 0.6, "replicability_mcse": 0.01,
    ...                       "replicability": 0.95 if c == "corrected-repeated-cv-t" else 0.85}
    ...                      for p in PROBLEMS for s in REPLICABILITY_SHIFTS[p][::2]
    ...                      for tests in REPLICATED.values() for c in tests])
    >>> fig = plot_replicability(data)
    >>> fig.axes[0].get_ylabel(), [ax.get_xlabel() for ax in fig.axes]
    ('replicability (two runs agree)', ['shift (sd^2)', 'shift (error rate)'])
    """
    data = data.assign(rate=data["replicability"], mcse=data["replicability_mcse"])
    curves = [(c, _pick(c)) for cs in REPLICATED.values() for c in cs]
    fig = _panels(data, "shift", curves, "shift", ylabel="replicability (two runs agree)",
                  nominal=False)
    fig.axes[0].set_xlabel("shift (sd^2)")
    fig.axes[1].set_xlabel("shift (error rate)")
    return fig


def check_replicability(data, scale):
    """Judge Bouckaert and Frank's claim that the 10 x 10 corrected test is the most
    replicable (B1, at every shift) and report every test's replicability at the largest
    shift (B2).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_replicability`'s data.
    scale : {'quick', 'paper'}
        Unused.

    Returns
    -------
    list of Check
        B1, B2.

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame([{"problem": p, "shift": s, "criterion": c,
    ...                       "rate": 0.05 if s == 0 else 0.6, "replicability_mcse": 0.01,
    ...                       "replicability": 0.95 if c == "corrected-repeated-cv-t" else 0.85}
    ...                      for p in PROBLEMS for s in REPLICABILITY_SHIFTS[p][::2]
    ...                      for tests in REPLICATED.values() for c in tests])
    >>> [(c.id, c.passed) for c in check_replicability(data, "quick")]
    [('B1', True), ('B2', None)]
    """
    rejections = data
    data = data.assign(rate=data["replicability"], mcse=data["replicability_mcse"])
    others = ("5x2cv-t", "resampled-t", "cv-paired-t")
    parts, b2, misses, ties = [], [], [], []
    for p in PROBLEMS:
        rows = rejections[rejections["problem"] == p]
        shifts = sorted(rows["shift"].unique())
        for shift in shifts:
            best, best_mcse = _at(data, p, "corrected-repeated-cv-t", shift=shift)
            rivals = {c: _at(data, p, c, shift=shift) for c in others}
            top = max(rivals, key=lambda c: rivals[c][0])
            gap, gap_mcse = best - rivals[top][0], np.hypot(best_mcse, rivals[top][1])
            parts.append(f"{best:.2f} vs {rivals[top][0]:.2f}")
            where = (f"{p.removeprefix('cv-')} at {shift:g}: {top} "
                     f"({gap:+.4f}, MCSE {gap_mcse:.4f}")
            if gap < -2 * gap_mcse:
                rate = float(_pick(top, shift=shift)(rows)["rate"].iloc[0])
                misses.append(f"{where}), which rejects {rate:.3f} of the time")
            elif gap <= 2 * gap_mcse:
                ties.append(where + ")")
        names = ["corrected-repeated-cv-t", "5x2cv-t", "resampled-t", "corrected-resampled-t",
                 "cv-paired-t"]
        b2.append(", ".join(f"{_at(data, p, c, shift=shifts[-1])[0]:.2f}" for c in names))
    note = (f"10 x 10 corrected vs the best of {', '.join(others)}, at each shift, "
            f"regression then classification; {RUNS} runs per data set")
    if misses:
        note += ("; beaten by " + "; ".join(misses) + " (a test that seldom rejects "
                 "agrees with itself by not rejecting)")
    if ties:
        note += "; tied within 2 MCSE with " + "; ".join(ties)
    return [TARGETS.holds("B1", ours="; ".join(parts), passed=not misses, note=note),
            TARGETS.finding("B2", ours="; ".join(b2))]


SIZE_J = Figure(f"Size of the paired t-test over J random train/test splits as if they "
                f"were independent (resampled-t) and of Nadeau and Bengio's corrected resampled "
                f"t-test, against J, with 10% and a third of the n = {N} examples tested, at "
                f"alpha = {ALPHA} (two-sided). Left: regression (least squares on 10 features vs "
                "5); middle: classification (linear discriminant vs nearest mean); right: "
                "unstable learners (decision stumps of fewest training errors on feature 1 vs "
                "feature 2); all at equal expected loss at the training size. 4000 data sets per "
                "point (quick: 300), bars 2 MCSE; grey band: Bradley's [0.025, 0.075]; dashed: "
                "0.05. A t over splits whose differences are all equal and nonzero (zero "
                "variance) counts as a rejection at any level, as scipy's ttest_rel (t "
                "infinite).",
                compute_size_j, plot_size_j, check_size_j,
                title="Nadeau and Bengio 2003: size of resampled t-tests against J")

SIZE_K = Figure("Size of the paired t-test over k folds as if they were independent "
                "(Dietterich's 10-fold cv t) and of Bouckaert and Frank's corrected repeated "
                f"k-fold test (10 repetitions), against k, n = {N}, at the null (equal expected "
                "loss at n - n/k), on the regression, the classification and the unstable "
                "learners (decision stumps) of the size-j figure. 4000 data sets per point for k "
                "folds, 2000 for 10 x k (quick: 300 and 200), bars 2 MCSE; grey band: Bradley's "
                "[0.025, 0.075]. A zero variance with a nonzero mean counts as a rejection.",
                compute_size_k, plot_size_k, check_size_k,
                title="Dietterich 1998, Bouckaert and Frank 2004: size of k-fold t-tests")

TESTS = Figure("Rate of rejecting 'equal expected loss' against the shift (B's expected "
               "loss minus A's at the training size; 0 is the null): 10-fold cv t, 5x2cv t "
               "(Dietterich), 5x2cv F (Alpaydin), McNemar and the proportion test on one hold-out "
               "split testing a third (classification only: they count errors), and the corrected "
               f"resampled t (J = 15, 10% tested). Left and middle: the regression and the "
               "classification, whose alternative raises the features' correlation (which "
               "changes the noise too). Right: the classification's exchange alternative, the "
               "null's population with A's errors where B is right given to B on a share of "
               "the examples (the null's share of disagreements, an exact effect), at the "
               f"shifts it reaches at each test's training size. n = {N}, 4000 data sets per "
               "point (quick: 300), bars 2 MCSE.", compute_tests, plot_tests, check_tests,
               title="Dietterich 1998, Alpaydin 1999: size and power of five CV tests")

REPLICABILITY = Figure("Replicability: the chance that two runs of a test on the same "
                       "data set, with other random splits, reach the same decision (pairs of "
                       f"{RUNS} runs per data set), against the shift, for Bouckaert and "
                       "Frank's corrected 10 x 10-fold test, 5x2cv t, the resampled and "
                       "corrected resampled t (J = 15, 10% tested) and the 10-fold cv t. "
                       f"n = {N}, 1000 data sets per point (quick: 100, two shifts), bars 2 "
                       "MCSE.", compute_replicability, plot_replicability,
                       check_replicability,
                       title="Bouckaert and Frank 2004: replicability of five CV tests")
