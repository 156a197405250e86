"""Fig 8 of Giles and Lawrence (1997): network types (TDNN, FIR MLP with synaptic gains,
Elman) compared on a temporal random task by pairwise t-tests and Tukey's HSD (targets G13).
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import ClassVar

import pandas as pd
from matplotlib.figure import Figure as MplFigure

from evalmc.reproductions.giles1997.protocol import _RUNS_PER_SET, TARGETS, _accuracies, _data_sets
from evalmc.reproductions.report import Runs
from evalmc.sims import Scenario
from evalmc.sims.base import Records, param
from evalmc.sims.networks import percent_correct, train_mlps
from evalmc.sims.temporal import elman_test_accuracy, fir_gains_test_accuracy, temporal_random_task
from evalmc.stats.groups import pairwise
from evalmc.stats.mcse import rate_mcse

NETWORKS = ("TDNN", "FIR gains", "Elman")
ORDER = 5


@dataclass(frozen=True)
class TemporalSets(Scenario):
    """Temporal random-label data sets, 10 runs of each network type: test accuracies."""

    name: ClassVar[str] = "giles-temporal"
    updates: int = param(20_000, int, "SGD updates per run")

    def draw(self, rng, n_reps):
        common = {"n_runs": _RUNS_PER_SET, "n_hidden": 3, "n_updates": self.updates}
        rows = []
        for rep in range(n_reps):
            task = temporal_random_task(rng)
            x = task.windows(ORDER)
            nets = train_mlps(x[:task.n_train], task.labels[:task.n_train], rng=rng, **common)
            accs = {"TDNN": percent_correct(nets, x[task.n_train:], task.labels[task.n_train:]),
                    "FIR gains": fir_gains_test_accuracy(task, order=ORDER, rng=rng, **common),
                    "Elman": elman_test_accuracy(task, rng=rng, **common)}
            rows += [{"rep": rep, "network": name, **{f"acc{r}": a for r, a in enumerate(acc)}}
                     for name, acc in accs.items()]
        return Records(rows, n_reps)


@functools.lru_cache(maxsize=2)
def _temporal(scale: str, runs: Runs) -> pd.DataFrame:
    return _data_sets(TemporalSets, scale, "temporal_sets", runs)


def compute_fig8(scale, runs):
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
    right.axhline(0.05, color="grey", lw=0.8, ls=":")
    right.set_xticks(range(len(rates)), list(rates), fontsize=7, rotation=15)
    right.set_ylabel("share of data sets with a 'difference' at 5%")
    return fig


def _fig8_rates(data):
    pairs = _fig8_pairs(data)
    per_set = pairs.groupby("data_set")[["t_p", "tukey_p"]].min()
    n = len(per_set)
    out = {}
    for label, col in (("any pairwise t-test", "t_p"), ("any Tukey HSD pair", "tukey_p")):
        rate, mcse = rate_mcse(int((per_set[col] <= 0.05).sum()), n)
        out[label] = (float(rate), float(mcse))
    return out


def check_fig8(data, scale):
    rates = _fig8_rates(data)
    t_rate, t_se = rates["any pairwise t-test"]
    tk_rate, tk_se = rates["any Tukey HSD pair"]
    n = int(data["data_set"].nunique())
    setting = (f"{n} temporal random data sets, {', '.join(NETWORKS)} (order {ORDER}, 3 hidden "
               "units), 10 runs each; family-wise: any of the 3 pairs at 5%")
    return [
        TARGETS.holds("G13 t-tests", ours=f"{t_rate:.2f} (MCSE {t_se:.3f})",
                      passed=t_rate > 0.05 + 4 * t_se, note=setting),
        TARGETS.finding("G13 Tukey", ours=f"{tk_rate:.2f} (MCSE {tk_se:.3f})",
                        note="the network types share one test set per data set, so "
                             "conditionally on it their mean accuracies really differ; Tukey's "
                             "HSD, like the t-test, treats the 10 runs as the only noise"),
    ]
