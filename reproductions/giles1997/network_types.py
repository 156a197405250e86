"""Fig 8 of Giles and Lawrence (1997): network types (TDNN, FIR MLP with synaptic gains,
Elman, each of order 5) compared on a temporal random task by pairwise t-tests and Tukey's HSD
at the paper's 1% (targets G13).
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from evalmc.reproductions.giles1997.protocol import _RUNS_PER_SET, TARGETS, _accuracies, _data_sets
from evalmc.reproductions.report import Runs
from evalmc.sims import Scenario
from evalmc.sims.base import Records, param
from evalmc.sims.networks import percent_correct, train_mlps
from evalmc.sims.temporal import elman_test_accuracy, fir_test_accuracy, temporal_random_task
from evalmc.stats.groups import pairwise
from evalmc.stats.mcse import rate_mcse

NETWORKS = ("TDNN", "FIR gains", "Elman")
ORDER = 5
#: The level of the paper's Fig 8 statement ("at the 1% level of significance").
ALPHA = 0.01


@dataclass(frozen=True)
class TemporalSets(Scenario):
    """Temporal random-label data sets, 10 runs of each network type: test accuracies."""

    name: ClassVar[str] = "giles-temporal"
    batch: ClassVar[type] = Records
    updates: int = param(20_000, int, "SGD updates per run")

    def draw(self, rng, n_reps):
        """`n_reps` temporal random-label data sets, 10 runs of each network type of
        :data:`NETWORKS`: ``rep, network, acc0..acc9`` (run r's % correct)."""
        common = {"n_runs": _RUNS_PER_SET, "n_hidden": 3, "n_updates": self.updates}
        rows = []
        for rep in range(n_reps):
            task = temporal_random_task(rng)
            x = task.windows(ORDER)
            nets = train_mlps(x[:task.n_train], task.labels[:task.n_train], rng=rng, **common)
            accs = {"TDNN": percent_correct(nets, x[task.n_train:], task.labels[task.n_train:]),
                    "FIR gains": fir_test_accuracy(task, order=ORDER, rng=rng, **common),
                    "Elman": elman_test_accuracy(task, order=ORDER, rng=rng, **common)}
            rows += [{"rep": rep, "network": name, **{f"acc{r}": a for r, a in enumerate(acc)}}
                     for name, acc in accs.items()]
        return Records(rows, n_reps)


@functools.lru_cache(maxsize=2)
def _temporal(scale: str, runs: Runs) -> pd.DataFrame:
    return _data_sets(TemporalSets, scale, "temporal_sets", runs)


def compute_fig8(scale, runs):
    """Fig 8's data: on each temporal random-label data set, the 10 runs' accuracies of each
    network type.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        :meth:`TemporalSets.draw`'s columns with ``data_set`` for ``rep``: ``data_set,
        network, acc0..acc9``.

    Examples
    --------
    Seconds at the quick scale:

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_fig8("quick", Runs())  # doctest: +SKIP
    >>> data.shape, data.groupby("network").size().to_dict()  # doctest: +SKIP
    ((90, 12), {'Elman': 30, 'FIR gains': 30, 'TDNN': 30})
    """
    return _temporal(scale, runs).copy()


def _fig8_pairs(data):
    """Pairwise tests per data set. Runs of one type may all score the same: scipy then warns
    of precision loss, and a pair of two constant groups has no t-test (NaN, never counted)."""
    frames = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for d, sub in data.groupby("data_set"):
            groups = [_accuracies(sub[sub["network"] == name])[0] for name in NETWORKS]
            frames.append(pairwise(groups, labels=list(NETWORKS)).assign(data_set=d))
    return pd.concat(frames, ignore_index=True)


def plot_fig8(data):
    """Fig 8. Left: box-whiskers of each network type's runs on the first data set; right: the
    share of data sets where some pair differs at 1%, by pairwise t-tests and by Tukey's HSD.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig8`'s data.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels.

    Examples
    --------
    A hand-made table: five data sets, the network types' means 1 point apart.

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame([{"data_set": d, "network": name,
    ...                       **{f"acc{r}": a for r, a in enumerate(rng.normal(50 + i, 2, 10))}}
    ...                      for d in range(5) for i, name in enumerate(NETWORKS)])
    >>> fig = plot_fig8(data)
    >>> fig.axes[0].get_title(), fig.axes[1].get_ylabel()
    ('one temporal random data set', "share of data sets with a 'difference' at 1%")
    """
    fig = MplFigure(figsize=(9, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    first = data[data["data_set"] == data["data_set"].min()]
    left.boxplot([_accuracies(first[first["network"] == n])[0] for n in NETWORKS],
                 whis=(0, 100), medianprops={"color": "black"})
    left.set_xticks(range(1, len(NETWORKS) + 1), NETWORKS)
    left.axhline(50, color="grey", lw=0.8, ls=":")
    left.set_ylabel("test % correct (10 runs)")
    left.set_title("one temporal random data set", fontsize=9)
    rates = _fig8_rates(data)
    right.bar(range(len(rates)), [v[0] for v in rates.values()],
              yerr=[2 * v[1] for v in rates.values()], capsize=3)
    right.axhline(ALPHA, color="grey", lw=0.8, ls=":")
    right.set_xticks(range(len(rates)), list(rates), fontsize=7, rotation=15)
    right.set_ylabel(f"share of data sets with a 'difference' at {ALPHA:.0%}")
    return fig


def _fig8_rates(data, alpha=ALPHA):
    """``{test: (rate, MCSE)}``: the share of data sets where some pair of network types differs
    at `alpha`, by pairwise t-tests and by Tukey's HSD."""
    pairs = _fig8_pairs(data)
    per_set = pairs.groupby("data_set")[["t_p", "tukey_p"]].min()
    n = len(per_set)
    out = {}
    for label, col in (("any pairwise t-test", "t_p"), ("any Tukey HSD pair", "tukey_p")):
        rate, mcse = rate_mcse(int((per_set[col] <= alpha).sum()), n)
        out[label] = (float(rate), float(mcse))
    return out


def check_fig8(data, scale):
    """Judge G13 t-tests (some pair of network types 'significant' by a t-test at 1% on far more
    than 1% of random data sets) and report G13 Tukey (the same by Tukey's HSD).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig8`'s data.
    scale : {'quick', 'paper'}
        Unused.

    Returns
    -------
    list of Check
        G13 t-tests, G13 Tukey.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame([{"data_set": d, "network": name,
    ...                       **{f"acc{r}": a for r, a in enumerate(rng.normal(50 + i, 2, 10))}}
    ...                      for d in range(5) for i, name in enumerate(NETWORKS)])
    >>> [(c.id, c.passed, c.ours) for c in check_fig8(data, "quick")]
    [('G13 t-tests', False, '0.60 (MCSE 0.219)'), ('G13 Tukey', None, '0.40 (MCSE 0.219)')]
    """
    rates, at5 = _fig8_rates(data), _fig8_rates(data, 0.05)
    t_rate, t_se = rates["any pairwise t-test"]
    tk_rate, tk_se = rates["any Tukey HSD pair"]
    n = int(data["data_set"].nunique())
    identical = {name: float(np.mean([np.ptp(a) == 0 for a in _accuracies(
        data[data["network"] == name])])) for name in NETWORKS}
    setting = (f"{n} temporal random data sets, {', '.join(NETWORKS)} (order {ORDER}, 3 hidden "
               f"units), 10 runs each; family-wise: any of the 3 pairs at 1%; at 5%: "
               f"{at5['any pairwise t-test'][0]:.2f}; data sets whose 10 runs all score the "
               "same: " + ", ".join(f"{k} {v:.2f}" for k, v in identical.items()))
    return [
        TARGETS.holds("G13 t-tests", ours=f"{t_rate:.2f} (MCSE {t_se:.3f})",
                      passed=t_rate > ALPHA + 4 * t_se, note=setting),
        TARGETS.finding("G13 Tukey", ours=f"{tk_rate:.2f} (MCSE {tk_se:.3f})",
                        note=f"at 5%: {at5['any Tukey HSD pair'][0]:.2f}; the network types "
                             "share one test set per data set, so conditionally on it their "
                             "mean accuracies really differ; Tukey's HSD, like the t-test, "
                             "treats the 10 runs as the only noise"),
    ]
