"""Fig 7 of Giles and Lawrence (1997): the learning rate chosen on test set 1, judged on it
and on a fresh test set 2 (targets G12).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure
from scipy import stats

from evalmc.reproductions.giles1997.protocol import _RUNS_PER_SET, TARGETS, _data_sets, _t_pvalue
from evalmc.reproductions.report import Runs
from evalmc.sims import Scenario
from evalmc.sims.base import Records, param
from evalmc.sims.networks import percent_correct, random_label_task, train_mlps
from evalmc.stats.mcse import rate_mcse

LEARNING_RATES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)


@dataclass(frozen=True)
class LearningRateSets(Scenario):
    """Data sets with random labels, 10 runs at each learning rate: accuracy, t-test and vote on
    each half of a test set of 200 points."""

    name: ClassVar[str] = "giles-learning-rates"
    batch: ClassVar[type] = Records
    updates: int = param(20_000, int, "SGD updates per run")

    def draw(self, rng, n_reps):
        """`n_reps` random-label data sets, 10 runs at each rate of :data:`LEARNING_RATES`: ``rep,
        lr0`` and, per test half ``test1``/``test2``, the runs' mean % correct (``_mean``),
        one-sided t-test (``_t_p``) and binomial test of their vote (``_binom_p``) above 50%."""
        rows = []
        for rep in range(n_reps):
            task = random_label_task(rng, n_train=100, n_test=200)
            halves = ((task.x_test[:100], task.y_test[:100]),
                      (task.x_test[100:], task.y_test[100:]))
            for lr in LEARNING_RATES:
                nets = train_mlps(task.x_train, task.y_train, n_runs=_RUNS_PER_SET, n_hidden=3,
                                  n_updates=self.updates, lr0=lr, rng=rng)
                row = {"rep": rep, "lr0": lr}
                for name, (x, y) in zip(("test1", "test2"), halves, strict=True):
                    acc = percent_correct(nets, x, y)
                    vote = np.sign(nets.predict(x)[..., 0].mean(axis=0))
                    correct = int((vote == y).sum())
                    row |= {f"{name}_mean": acc.mean(),
                            f"{name}_t_p": _t_pvalue(acc, "greater"),
                            f"{name}_binom_p": float(stats.binomtest(correct, y.size, 0.5,
                                                                     "greater").pvalue)}
                rows.append(row)
        return Records(rows, n_reps)


@functools.lru_cache(maxsize=2)
def _learning_rates(scale: str, runs: Runs) -> pd.DataFrame:
    return _data_sets(LearningRateSets, scale, "lr_sets", runs)


def compute_fig7(scale, runs):
    """Fig 7's data: on each random-label data set, each learning rate's results on test sets
    1 and 2.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        :meth:`LearningRateSets.draw`'s columns with ``data_set`` for ``rep``: ``data_set,
        lr0, test1_mean, test1_t_p, test1_binom_p, test2_mean, test2_t_p, test2_binom_p``.

    Examples
    --------
    Seconds at the quick scale:

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_fig7("quick", Runs())  # doctest: +SKIP
    >>> data.shape, int(data["data_set"].nunique())  # doctest: +SKIP
    ((180, 8), 30)
    """
    return _learning_rates(scale, runs).copy()


def plot_fig7(data):
    """Fig 7. Left: the first data set's mean accuracy against the learning rate, on test sets
    1 and 2; right: the share of data sets 'better than chance' at 5%, by test and test set.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig7`'s data.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels.

    Examples
    --------
    A hand-made table: accuracies around 50%, uniform p-values.

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame([{"data_set": d, "lr0": lr, "test1_mean": rng.normal(50, 3),
    ...                       "test2_mean": rng.normal(50, 3), "test1_t_p": rng.uniform(),
    ...                       "test2_t_p": rng.uniform(), "test1_binom_p": rng.uniform(),
    ...                       "test2_binom_p": rng.uniform()}
    ...                      for d in range(10) for lr in LEARNING_RATES])
    >>> [ax.get_ylabel() for ax in plot_fig7(data).axes]
    ['mean test % correct (10 runs)', "share 'better than chance' at 5%"]
    """
    fig = MplFigure(figsize=(9, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    first = data[data["data_set"] == data["data_set"].min()]
    left.plot(first["lr0"], first["test1_mean"], "o-", label="test set 1 (used to choose)")
    left.plot(first["lr0"], first["test2_mean"], "s--", label="fresh test set 2")
    left.axhline(50, color="grey", lw=0.8, ls=":")
    left.set_xscale("log")
    left.set_xlabel("initial learning rate")
    left.set_ylabel("mean test % correct (10 runs)")
    left.set_title(f"one data set (the first of {data['data_set'].nunique()})", fontsize=9)
    left.legend(fontsize=8)
    summary = _fig7_rates(data)
    labels = list(summary)
    right.bar(range(len(labels)), [v[0] for v in summary.values()],
              yerr=[2 * v[1] for v in summary.values()], capsize=3)
    right.axhline(0.05, color="grey", lw=0.8, ls=":")
    right.set_xticks(range(len(labels)), labels, fontsize=7, rotation=20)
    right.set_ylabel("share 'better than chance' at 5%")
    right.set_title(f"all {data['data_set'].nunique()} data sets", fontsize=9)
    return fig


def _chosen(data):
    best = data.loc[data.groupby("data_set")["test1_mean"].idxmax()]
    fixed = data[data["lr0"] == 0.1]
    return best, fixed


def _fig7_rates(data):
    best, fixed = _chosen(data)
    out = {}
    for label, frame, col in (("t, lr=0.1, test 1", fixed, "test1_t_p"),
                              ("t, chosen, test 1", best, "test1_t_p"),
                              ("t, chosen, test 2", best, "test2_t_p"),
                              ("binom, chosen, test 1", best, "test1_binom_p"),
                              ("binom, chosen, test 2", best, "test2_binom_p")):
        rate, mcse = rate_mcse(int((frame[col] <= 0.05).sum()), len(frame))
        out[label] = (float(rate), float(mcse))
    return out


def check_fig7(data, scale):
    """Judge G12: choosing the learning rate on test set 1 makes the t-test 'significant' far
    above 5% there (snooped), and a fresh test set 2 brings its rate back to the t-test's rate
    at the fixed rate 0.1 within 4 MCSE (fresh).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig7`'s data, with the learning rate 0.1.
    scale : {'quick', 'paper'}
        Unused.

    Returns
    -------
    list of Check
        G12 snooped, G12 fresh.

    Examples
    --------
    A hand-made table of uniform p-values: nothing to snoop.

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame([{"data_set": d, "lr0": lr, "test1_mean": rng.normal(50, 3),
    ...                       "test2_mean": rng.normal(50, 3), "test1_t_p": rng.uniform(),
    ...                       "test2_t_p": rng.uniform(), "test1_binom_p": rng.uniform(),
    ...                       "test2_binom_p": rng.uniform()}
    ...                      for d in range(10) for lr in LEARNING_RATES])
    >>> [(c.id, c.passed) for c in check_fig7(data, "quick")]
    [('G12 snooped', False), ('G12 fresh', True)]
    """
    r = _fig7_rates(data)
    setting = (f"{int(data['data_set'].nunique())} data sets; learning rates "
               + ", ".join(f"{lr:g}" for lr in LEARNING_RATES) + " (assumed); one-sided tests "
               "of 'better than chance' at 5%")
    snooped, snooped_se = r["t, chosen, test 1"]
    fresh, fresh_se = r["t, chosen, test 2"]
    fixed, fixed_se = r["t, lr=0.1, test 1"]
    se = np.hypot(fresh_se, fixed_se)
    gap = abs(fresh - fixed) / se if se > 0 else (0.0 if fresh == fixed else np.inf)
    binom = (f"binomial test of the 10 runs' averaged-output vote (exact on a fresh test set): "
             f"{r['binom, chosen, test 1'][0]:.2f} on test 1, {r['binom, chosen, test 2'][0]:.2f}"
             " on test 2")
    return [
        TARGETS.holds("G12 snooped", ours=f"{snooped:.2f} (MCSE {snooped_se:.3f}); same t-test "
                      f"at the fixed rate 0.1: {fixed:.2f}",
                      passed=snooped > 0.05 + 4 * snooped_se, note=setting),
        TARGETS.holds("G12 fresh", ours=f"{fresh:.2f} (MCSE {fresh_se:.3f}) against {fixed:.2f} "
                      f"(MCSE {fixed_se:.3f}): {gap:.1f} MCSE", passed=gap <= 4,
                      note="the t-test's own rate on random data is above 5% (G8); " + binom),
    ]
