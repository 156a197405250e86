"""Fig 6 of Giles and Lawrence (1997) and its closing note on the test-set size: 10 runs of a
5-3-1 MLP on each random-label data set, judged by t-tests against 50% (targets G7-G11, G14).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure
from scipy import stats

from evalmc.reproductions.giles1997.protocol import (
    _RUNS_PER_SET,
    ALPHAS,
    PAPER_RATES,
    TARGETS,
    _accuracies,
    _data_sets,
    _t_pvalue,
)
from evalmc.reproductions.report import Runs
from evalmc.sims import Scenario
from evalmc.sims.base import Records, param
from evalmc.sims.networks import percent_correct, random_label_task, train_mlps
from evalmc.stats.groups import f_test_variances
from evalmc.stats.mcse import rate_mcse

TEST_SIZES = (100, 300, 1000, 3000)


@dataclass(frozen=True)
class RandomLabelSets(Scenario):
    """Data sets with random labels, each with 10 runs of a 5-3-1 MLP: their test accuracy on
    the first 100, 300, 1000 and 3000 test points."""

    name: ClassVar[str] = "giles-random-labels"
    batch: ClassVar[type] = Records
    updates: int = param(20_000, int, "SGD updates per run")

    def draw(self, rng, n_reps):
        """`n_reps` random-label data sets of 10 runs, per test size of :data:`TEST_SIZES`: ``rep,
        n_test, mean, sd``, the two-sided t-test against 50% (``t_p``), Shapiro-Wilk's ``shapiro_p``
        and ``acc0..acc9`` (run r's % correct)."""
        rows = []
        for rep in range(n_reps):
            task = random_label_task(rng, n_train=100, n_test=max(TEST_SIZES))
            nets = train_mlps(task.x_train, task.y_train, n_runs=_RUNS_PER_SET, n_hidden=3,
                              n_updates=self.updates, rng=rng)
            for m in TEST_SIZES:
                acc = percent_correct(nets, task.x_test[:m], task.y_test[:m])
                rows.append({"rep": rep, "n_test": m, "mean": acc.mean(),
                             "sd": acc.std(ddof=1), "t_p": _t_pvalue(acc),
                             "shapiro_p": _shapiro_pvalue(acc),
                             **{f"acc{r}": a for r, a in enumerate(acc)}})
        return Records(rows, n_reps)


@functools.lru_cache(maxsize=2)
def _random(scale: str, runs: Runs) -> pd.DataFrame:
    return _data_sets(RandomLabelSets, scale, "random_sets", runs)


def _shapiro_pvalue(acc):
    return float(stats.shapiro(acc).pvalue) if np.ptp(acc) > 0 else 0.0


def compute_fig6(scale, runs):
    """Fig 6's data: 10 runs on each random-label data set, at each test size.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        :meth:`RandomLabelSets.draw`'s columns with ``data_set`` for ``rep``: ``data_set,
        n_test, mean, sd, t_p, shapiro_p, acc0..acc9``.

    Examples
    --------
    Seconds at the quick scale:

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_fig6("quick", Runs())  # doctest: +SKIP
    >>> data.shape, data.groupby("n_test").size().to_dict()  # doctest: +SKIP
    ((400, 16), {100: 100, 300: 100, 1000: 100, 3000: 100})
    """
    return _random(scale, runs).copy()


def plot_fig6(data):
    """Fig 6: box-whiskers of the 10 runs' accuracy on each of the first 20 data sets, 100
    test points.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig6`'s columns ``data_set, n_test, acc0..acc9``.

    Returns
    -------
    matplotlib.figure.Figure
        One panel.

    Examples
    --------
    A hand-made table: 20 data sets of 10 runs scattered around 50%.

    >>> import numpy as np
    >>> import pandas as pd
    >>> from scipy import stats
    >>> rng = np.random.default_rng(0)
    >>> acc = rng.normal(50, 3, (20, 10)).round()
    >>> data = pd.DataFrame({"data_set": range(20), "n_test": 100, "mean": acc.mean(axis=1),
    ...                      "sd": acc.std(axis=1, ddof=1),
    ...                      "t_p": stats.ttest_1samp(acc, 50, axis=1).pvalue,
    ...                      "shapiro_p": [stats.shapiro(a).pvalue for a in acc],
    ...                      **{f"acc{r}": acc[:, r] for r in range(10)}})
    >>> plot_fig6(data).axes[0].get_title()
    'Random labels: 20 data sets x 10 runs, 100 test points'
    """
    sub = data[(data["n_test"] == 100) & (data["data_set"] < 20)]
    fig = MplFigure(figsize=(9, 3.6), layout="constrained")
    ax = fig.add_subplot()
    ax.boxplot(_accuracies(sub).T, whis=(0, 100), medianprops={"color": "black"})
    ax.axhline(50, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("random data set")
    ax.set_ylabel("test % correct (10 runs)")
    ax.set_title("Random labels: 20 data sets x 10 runs, 100 test points", fontsize=9)
    return fig


def _pair_f_rates(sub, alpha=0.05):
    """Share of pairs of data sets whose run variances differ (F-test), per group of 20."""
    acc = _accuracies(sub)
    shares = []
    for start in range(0, len(acc) - 19, 20):
        group = acc[start:start + 20]
        ps = [f_test_variances(group[i], group[j])[1]
              for i in range(20) for j in range(i + 1, 20)]
        shares.append(np.nanmean(np.array(ps) <= alpha))
    return np.array(shares)


def check_fig6(data, scale):
    """Judge the 100-point test set's rates: of t-tests 'significant' at 1%, 5% and 10%
    (G7-G9), of Shapiro-Wilk rejecting normality at 5% (G10), and of pairs of data sets
    whose run variances differ (G11).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig6`'s data, with at least 20 data sets at ``n_test`` = 100.
    scale : {'quick', 'paper'}
        Unused.

    Returns
    -------
    list of Check
        G7, G8, G9, G10, G11.

    Examples
    --------
    A hand-made table of well-behaved runs: the t-tests reject about as often as their level,
    far from the paper's rates.

    >>> import numpy as np
    >>> import pandas as pd
    >>> from scipy import stats
    >>> rng = np.random.default_rng(0)
    >>> acc = rng.normal(50, 3, (20, 10)).round()
    >>> data = pd.DataFrame({"data_set": range(20), "n_test": 100, "mean": acc.mean(axis=1),
    ...                      "sd": acc.std(axis=1, ddof=1),
    ...                      "t_p": stats.ttest_1samp(acc, 50, axis=1).pvalue,
    ...                      "shapiro_p": [stats.shapiro(a).pvalue for a in acc],
    ...                      **{f"acc{r}": acc[:, r] for r in range(10)}})
    >>> [(c.id, c.passed, c.ours) for c in check_fig6(data, "quick")]
    [('G7', False, '0'), ('G8', False, '0.1'), ('G9', False, '0.1'), ('G10', True, '0.15'),
     ('G11', False, '0')]
    """
    sub = data[data["n_test"] == 100].sort_values("data_set")
    first20 = sub[sub["data_set"] < 20]
    checks = []
    for gid, a in zip(("G7", "G8", "G9"), ALPHAS, strict=True):
        rate, mcse = rate_mcse(int((sub["t_p"] <= a).sum()), len(sub))
        r20 = (first20["t_p"] <= a).mean()
        checks.append(TARGETS.within(gid, float(rate), note=(
            f"over {len(sub)} data sets, MCSE {float(mcse):.3f}; the paper's protocol "
            f"(first 20 data sets): {r20:.2f}; {_paper_noise(PAPER_RATES[a])}")))
    rate, mcse = rate_mcse(int((sub["shapiro_p"] <= 0.05).sum()), len(sub))
    checks.append(TARGETS.within("G10", float(rate), note=(
        f"over {len(sub)} data sets, MCSE {float(mcse):.3f}; first 20: "
        f"{(first20['shapiro_p'] <= 0.05).mean():.2f}; at 10%: "
        f"{(sub['shapiro_p'] <= 0.10).mean():.2f}; {_paper_noise(0.30)}")))
    shares = _pair_f_rates(sub)
    se = shares.std(ddof=1) / np.sqrt(len(shares)) if len(shares) > 1 else float("nan")
    checks.append(TARGETS.within("G11", float(shares.mean()), note=(
        f"pairs within {len(shares)} groups of 20 data sets; MCSE {se:.3f}; first group: "
        f"{shares[0]:.2f}; level 5% assumed")))
    return checks


def _paper_noise(rate):
    """The binomial standard error of a share measured on the paper's 20 data sets."""
    return (f"the paper's {rate:.0%} rests on 20 data sets (binomial SE "
            f"{np.sqrt(rate * (1 - rate) / 20):.2f})")


def compute_test_size(scale, runs):
    """The test-size figure's data: per test size, the t-test's rate of 'significant' random
    data sets at each alpha, and the RMS deviation of the data sets' mean accuracy from 50%.

    Reads the data sets of :func:`compute_fig6`; the RMS's SE is by the delta method.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        One row per (test size, alpha): ``n_test``, ``alpha``, ``rate``, ``mcse``,
        ``rms_deviation`` (points), ``rms_deviation_se`` and ``n_sets``.

    Examples
    --------
    Seconds at the quick scale (instant once :func:`compute_fig6` has run):

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_test_size("quick", Runs())  # doctest: +SKIP
    >>> data[data["alpha"] == 0.05].round(4)  # doctest: +SKIP
        n_test  alpha  rate    mcse  rms_deviation  rms_deviation_se  n_sets
    1      100   0.05  0.53  0.0499         3.8546            0.2524     100
    4      300   0.05  0.57  0.0495         2.2652            0.1791     100
    7     1000   0.05  0.49  0.0500         1.0592            0.0745     100
    10    3000   0.05  0.51  0.0500         0.6188            0.0412     100
    """
    data = _random(scale, runs)
    rows = []
    for m, sub in data.groupby("n_test"):
        deviation = _accuracies(sub).mean(axis=1) - 50
        rms = float(np.sqrt(np.mean(deviation**2)))
        rms_se = float(np.std(deviation**2, ddof=1) / np.sqrt(len(sub)) / (2 * rms))
        for a in ALPHAS:
            rate, mcse = rate_mcse(int((sub["t_p"] <= a).sum()), len(sub))
            rows.append({"n_test": m, "alpha": a, "rate": float(rate), "mcse": float(mcse),
                         "rms_deviation": rms, "rms_deviation_se": rms_se,
                         "n_sets": len(sub)})
    return pd.DataFrame(rows)


def plot_test_size(data):
    """Left: the t-test's rate against the test size, per alpha; right: the RMS deviation from
    50% against the test size, beside 1 / sqrt(test size).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_test_size`'s data.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels, log axes.

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame([{"n_test": m, "alpha": a, "rate": 0.2, "mcse": 0.04,
    ...                       "rms_deviation": 10 / m**0.5, "rms_deviation_se": 0.05,
    ...                       "n_sets": 100} for m in TEST_SIZES for a in ALPHAS])
    >>> [ax.get_ylabel() for ax in plot_test_size(data).axes]
    ["share of random data sets 'significant'", 'deviation from 50% (points)']
    """
    fig = MplFigure(figsize=(10, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    for a, sub in data.groupby("alpha"):
        left.errorbar(sub["n_test"], sub["rate"], yerr=2 * sub["mcse"], marker="o", capsize=3,
                      label=f"t-test at {a:g}")
        left.axhline(a, color="grey", lw=0.6, ls=":")
    left.set(xscale="log", xlabel="test-set size", ylabel="share of random data sets "
             "'significant'")
    left.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1, 0.2))  # above the alpha lines
    dev = data.drop_duplicates("n_test")
    right.errorbar(dev["n_test"], dev["rms_deviation"], yerr=2 * dev["rms_deviation_se"],
                   marker="o", capsize=3, label="RMS of mean accuracy - 50")
    ref = dev["rms_deviation"].iloc[0] * np.sqrt(dev["n_test"].iloc[0] / dev["n_test"])
    right.plot(dev["n_test"], ref, color="grey", ls="--", label="1 / sqrt(test size)")
    right.set(xscale="log", yscale="log", xlabel="test-set size",
              ylabel="deviation from 50% (points)")
    right.legend(fontsize=8)
    return fig


def check_test_size(data, scale):
    """Judge G14 (a larger test set cuts the t-test's spurious-significance rate at 5%: the
    rate at the largest test size below the rate at the smallest by more than 4 MCSE of the
    difference) and report G14 deviation (the log-log slope of the RMS deviation from 50%).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_test_size`'s data, with alpha = 0.05.
    scale : {'quick', 'paper'}
        Unused.

    Returns
    -------
    list of Check
        G14, G14 deviation.

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame([{"n_test": m, "alpha": a, "rate": 0.2, "mcse": 0.04,
    ...                       "rms_deviation": 10 / m**0.5, "rms_deviation_se": 0.05,
    ...                       "n_sets": 100} for m in TEST_SIZES for a in ALPHAS])
    >>> [(c.id, c.passed) for c in check_test_size(data, "quick")]
    [('G14', False), ('G14 deviation', None)]
    """
    dev = data.drop_duplicates("n_test").sort_values("n_test")
    slope = float(np.polyfit(np.log(dev["n_test"]), np.log(dev["rms_deviation"]), 1)[0])
    sub = data[data["alpha"] == 0.05].sort_values("n_test")
    small, large = sub.iloc[0], sub.iloc[-1]
    drop, drop_se = small["rate"] - large["rate"], float(np.hypot(small["mcse"], large["mcse"]))
    passed = bool(drop > 4 * drop_se)
    return [
        TARGETS.holds("G14", ours=f"{small['rate']:.2f} (MCSE {small['mcse']:.3f}) at "
                      f"{small['n_test']:.0f} test points, {large['rate']:.2f} (MCSE "
                      f"{large['mcse']:.3f}) at {large['n_test']:.0f}", passed=passed,
                      note="" if passed else (
                          "the rate does not fall: the 10 runs share one test set and the "
                          "t-test ignores that shared noise; both it and the run-to-run sd "
                          "shrink like 1/sqrt(test size), so their ratio, and the rate, stay "
                          "(G14 deviation)"), evidence=True),
        TARGETS.finding("G14 deviation", ours=f"slope {slope:.2f}; RMS "
                        f"{dev['rms_deviation'].iloc[0]:.2f} at {dev['n_test'].iloc[0]:.0f} "
                        f"test points, {dev['rms_deviation'].iloc[-1]:.2f} at "
                        f"{dev['n_test'].iloc[-1]:.0f}",
                        note="the deviations do shrink, as any binomial share does; the "
                             "t-test's rate is the paper's 'difficulty' (G14)"),
    ]
