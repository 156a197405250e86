"""Fig 1 of Giles and Lawrence (1997): 5-10-2 MLPs telling nasal from oral vowels on the ELENA
phoneme data; the distribution of their train and test classification error over 200 runs
(target G0).

The paper's data ("3600 training patterns, 1800 test patterns, five inputs provided by cochlear
spectra, and two outputs", ESPRIT ROARS, Verleysen et al. 1995) is the public ELENA set, 5404
patterns of 5 inputs, 3818 nasal and 1586 oral, shipped here (``phoneme.csv.gz``) as the KEEL
repository distributes it. Assumed: the first 3600 patterns train and the next 1800 test; the
two outputs are coded +-1, one per class, and a pattern goes to the larger output.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import ClassVar

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure
from scipy import stats

from evalmc.plots import draw_histogram
from evalmc.reproductions.giles1997.protocol import _BLOCK, SCALE, TARGETS, _collect
from evalmc.reproductions.report import Runs
from evalmc.sims import Scenario
from evalmc.sims.base import Records, param
from evalmc.sims.networks import Task, standardize, train_mlps
from evalmc.study.rates import make_design

N_TRAIN, N_TEST = 3600, 1800


@functools.lru_cache(maxsize=1)
def phoneme_task() -> Task:
    """The ELENA phoneme data as the paper's task: 3600 training and 1800 test patterns, inputs
    standardized with the training set, targets +-1 on two outputs (nasal, oral)."""
    path = resources.files("evalmc.reproductions.giles1997") / "phoneme.csv.gz"
    with resources.as_file(path) as file:
        data = pd.read_csv(file)
    x = data[[f"x{i}" for i in range(1, 6)]].to_numpy(float)
    oral = data["oral"].to_numpy() == 1
    y = np.where(np.c_[~oral, oral], 1.0, -1.0)
    x_train, x_test = standardize(x[:N_TRAIN], x[N_TRAIN:N_TRAIN + N_TEST])
    return Task(x_train, y[:N_TRAIN], x_test, y[N_TRAIN:N_TRAIN + N_TEST])


def _percent_wrong(nets, x, y):
    """Percentage of patterns whose larger output is not their class's."""
    return 100.0 * (nets.predict(x).argmax(axis=2) != y.argmax(axis=1)).mean(axis=1)


@dataclass(frozen=True)
class PhonemeRuns(Scenario):
    """Runs of a 5-10-2 MLP trained on the phoneme data: train and test % misclassified."""

    name: ClassVar[str] = "giles-phoneme"
    batch: ClassVar[type] = Records
    updates: int = param(25_000, int, "SGD updates per run")

    def draw(self, rng, n_reps):
        """`n_reps` runs from their own initial weights: ``rep, train_error, test_error`` (%
        misclassified)."""
        task = phoneme_task()
        nets = train_mlps(task.x_train, task.y_train, n_runs=n_reps, n_hidden=10,
                          n_updates=self.updates, rng=rng)
        train = _percent_wrong(nets, task.x_train, task.y_train)
        test = _percent_wrong(nets, task.x_test, task.y_test)
        return Records([{"rep": i, "train_error": train[i], "test_error": test[i]}
                        for i in range(n_reps)], n_reps)


@functools.lru_cache(maxsize=2)
def _phoneme(scale: str, runs: Runs) -> pd.DataFrame:
    cfg = SCALE[scale]
    data = _collect(PhonemeRuns, make_design(updates=cfg["phoneme_updates"]),
                    cfg["phoneme_runs"], runs, block_size=_BLOCK)
    return data.rename(columns={"rep": "run"}).drop(columns="updates")


def compute_fig1(scale, runs):
    """Fig 1's data: train and test % misclassified of every run on the phoneme data.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        One row per run: ``run``, ``train_error``, ``test_error``.

    Examples
    --------
    Seconds at the quick scale:

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_fig1("quick", Runs())  # doctest: +SKIP
    >>> data.shape, list(data.columns)  # doctest: +SKIP
    ((40, 3), ['run', 'train_error', 'test_error'])
    """
    return _phoneme(scale, runs).copy()


def plot_fig1(data):
    """Fig 1: histograms of the train and test % correct (the paper's abscissa).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig1`'s columns ``train_error, test_error``.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> errors = 15 + rng.gamma(1.0, 1.0, 40)
    >>> data = pd.DataFrame({"run": range(40), "train_error": errors, "test_error": errors + 1})
    >>> [ax.get_title() for ax in plot_fig1(data).axes]
    ['train', 'test']
    """
    fig = MplFigure(figsize=(8, 3.2), layout="constrained")
    for ax, col in zip(fig.subplots(1, 2), ("train_error", "test_error"), strict=True):
        draw_histogram(ax, 100 - data[col], title=col[:-6], xlabel="% correct")
    return fig


def check_fig1(data, scale):
    """Judge G0: the train and test errors are skewed toward better performance (their
    % misclassified skewed right, the tail toward worse runs) and not symmetric.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_fig1`'s data (at least 8 runs, for the skewness test).
    scale : {'quick', 'paper'}
        Unused.

    Returns
    -------
    list of Check
        G0.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> errors = 15 + rng.gamma(1.0, 1.0, 40)
    >>> data = pd.DataFrame({"run": range(40), "train_error": errors, "test_error": errors + 1})
    >>> [(c.id, c.passed) for c in check_fig1(data, "quick")]
    [('G0', True)]
    """
    parts, missed = [], []
    for col in ("train_error", "test_error"):
        skew = float(stats.skew(data[col], bias=False))
        p = float(stats.skewtest(data[col], alternative="greater").pvalue)
        if not (skew > 0 and p < 0.05):
            missed.append(col[:-6])
        parts.append(f"{col[:-6]} skewness {skew:+.2f} (P {p:.2g})")
    spread = "; ".join(f"{col[:-6]} % misclassified: median {data[col].median():.2f}, mean "
                       f"{data[col].mean():.2f}, range {data[col].min():.2f}-"
                       f"{data[col].max():.2f}" for col in ("train_error", "test_error"))
    return [TARGETS.holds(
        "G0", ours="; ".join(parts), passed=not missed,
        note=f"{len(data)} runs; {spread}" + ("" if not missed else (
            f"; our {' and '.join(missed)} errors are not significantly skewed toward worse "
            "runs; cause undetermined: the paper does not state how it split its 5,400 "
            "patterns (ours: the file's first 3,600 train); the learning rate is the paper's, 0.1 "
            "falling linearly to 0")))]
