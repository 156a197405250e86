"""Figs 4-5 of Giles and Lawrence (1997): 5-5-1 MLPs trained on a teacher network's task
at weight scales K = 1, 5, 10, 15; each K on several teachers, each pattern judged by the share
of teachers showing it (targets G1-G5).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from evalmc.inputs.checks import check_choice
from evalmc.plots import draw_box_vs_mean_sd, draw_histogram, legend_below
from evalmc.reproductions.giles1997.protocol import (
    _BLOCK,
    SCALE,
    SEED,
    TARGETS,
    _below_best,
    _collect,
)
from evalmc.reproductions.report import Runs
from evalmc.sims import Scenario
from evalmc.sims.base import Records, param
from evalmc.sims.networks import (
    INPUTS,
    OUTPUTS,
    TARGET_SCALES,
    nmse,
    teacher_task,
    train_mlps,
)
from evalmc.stats.normality import ks_normal
from evalmc.study.rates import make_design

KS = (1, 5, 10, 15)


@functools.lru_cache(maxsize=128)
def _teacher_task(k: float, teacher: int, output: str = "linear", inputs: str = "normal",
                  targets: str = "standardized"):
    """Teacher number `teacher` of weight scale `k` (its own stream: the same weights under
    every output, inputs and targets)."""
    key = (1, KS.index(k), teacher)
    return teacher_task(np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=key)), k=k,
                        output=output, inputs=inputs, targets=targets)


@dataclass(frozen=True)
class TeacherRuns(Scenario):
    """Runs of a 5-5-1 MLP trained on one teacher network's task: train and test NMSE."""

    name: ClassVar[str] = "giles-teacher"
    batch: ClassVar[type] = Records
    k: float = param(5.0, float, "the teacher's weight scale K")
    teacher: int = param(0, int, "which teacher draw")
    updates: int = param(20_000, int, "SGD updates per run")
    output: str = param("linear", str, "the teacher's output unit: linear or tanh")
    student: str = param("linear", str, "the students' output unit: linear or tanh")
    inputs: str = param("normal", str, "the inputs' distribution: normal or uniform")
    targets: str = param("standardized", str, "the targets: standardized or raw")

    def __post_init__(self):
        check_choice("output", self.output, OUTPUTS)
        check_choice("student", self.student, OUTPUTS)
        check_choice("inputs", self.inputs, INPUTS)
        check_choice("targets", self.targets, TARGET_SCALES)

    def draw(self, rng, n_reps):
        """`n_reps` student networks trained on the teacher's task: ``rep, train_nmse,
        test_nmse``."""
        task = _teacher_task(self.k, self.teacher, self.output, self.inputs, self.targets)
        nets = train_mlps(task.x_train, task.y_train, n_runs=n_reps, n_hidden=5,
                          n_updates=self.updates, rng=rng, output=self.student)
        train, test = nmse(nets, task.x_train, task.y_train), nmse(nets, task.x_test,
                                                                   task.y_test)
        return Records([{"rep": i, "train_nmse": train[i], "test_nmse": test[i]}
                        for i in range(n_reps)], n_reps)


@functools.lru_cache(maxsize=2)
def _teacher(scale: str, runs: Runs) -> pd.DataFrame:
    cfg = SCALE[scale]
    design = make_design(k=[float(k) for k in KS], teacher=list(range(cfg["teachers"])),
                         updates=cfg["teacher_updates"])
    data = _collect(TeacherRuns, design, cfg["teacher_runs"], runs, block_size=_BLOCK)
    return data.rename(columns={"rep": "run"}).drop(columns=["updates"])


def compute_teacher(scale, runs):
    """The data of Figs 4 and 5: train and test NMSE of every run, per weight scale K of
    :data:`KS` and teacher.

    Parameters
    ----------
    scale : {'quick', 'paper'}
    runs : Runs
        Workers and cache of the engine.

    Returns
    -------
    DataFrame
        One row per (K, teacher, run): ``k``, ``teacher``, ``run``, ``train_nmse``,
        ``test_nmse``.

    Examples
    --------
    Seconds at the quick scale:

    >>> from evalmc.reproductions.report import Runs
    >>> data = compute_teacher("quick", Runs())  # doctest: +SKIP
    >>> data.shape, data.groupby("k").size().to_dict()  # doctest: +SKIP
    ((800, 5), {1.0: 200, 5.0: 200, 10.0: 200, 15.0: 200})
    """
    return _teacher(scale, runs).copy()


def plot_fig4(data):
    """Fig 4: histograms of the first teacher's train and test NMSE, one row per K.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_teacher`'s columns ``k, teacher, train_nmse, test_nmse``.

    Returns
    -------
    matplotlib.figure.Figure
        Eight panels.

    Examples
    --------
    A hand-made table of log-normal errors:

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame([{"k": k, "teacher": t, "run": r, "train_nmse": x, "test_nmse": 1.1 * x}
    ...                      for k in KS for t in (0, 1)
    ...                      for r, x in enumerate(rng.lognormal(-3, 1, 20))])
    >>> fig = plot_fig4(data)
    >>> len(fig.axes), fig.axes[0].get_title()
    (8, 'K = 1, train')
    """
    data = data[data["teacher"] == 0]
    fig = MplFigure(figsize=(8, 9), layout="constrained")
    axes = fig.subplots(len(KS), 2)
    for row, k in zip(axes, KS, strict=True):
        for ax, col in zip(row, ("train_nmse", "test_nmse"), strict=True):
            draw_histogram(ax, data.loc[data["k"] == k, col], title=f"K = {k}, {col[:-5]}",
                           xlabel="NMSE")
            ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0), useMathText=True)
    return fig


def plot_fig5(data):
    """Fig 5: box-whiskers beside mean +- sd of the first teacher's runs, one panel per K.

    Parameters
    ----------
    data : DataFrame
        :func:`compute_teacher`'s columns ``k, teacher, train_nmse, test_nmse``.

    Returns
    -------
    matplotlib.figure.Figure
        Four panels.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame([{"k": k, "teacher": t, "run": r, "train_nmse": x, "test_nmse": 1.1 * x}
    ...                      for k in KS for t in (0, 1)
    ...                      for r, x in enumerate(rng.lognormal(-3, 1, 20))])
    >>> [ax.get_title() for ax in plot_fig5(data).axes]
    ['K = 1', 'K = 5', 'K = 10', 'K = 15']
    """
    data = data[data["teacher"] == 0]
    fig = MplFigure(figsize=(11, 3.8), layout="constrained")
    for ax, k in zip(fig.subplots(1, len(KS)), KS, strict=True):
        sub = data[data["k"] == k]
        draw_box_vs_mean_sd(ax, {"train": sub["train_nmse"], "test": sub["test_nmse"]},
                            ylabel="NMSE" if k == KS[0] else "", legend=False)
        ax.set_title(f"K = {k}", fontsize=9)
    legend_below(fig, ax)
    return fig


def _by_teacher(data, k, col):
    """``{teacher: that teacher's runs}`` of column `col` at weight scale `k`."""
    sub = data[data["k"] == k]
    return {t: g[col].to_numpy() for t, g in sub.groupby("teacher")}


def _share(flags) -> tuple[float, float]:
    """Share of True among the teachers' `flags`, and its binomial SE."""
    flags = np.asarray(list(flags), dtype=bool)
    p = float(flags.mean())
    return p, float(np.sqrt(p * (1 - p) / flags.size))


def _shares_check(id, parts, teachers, note="", cause="", evidence=False):
    """Judge a pattern seen by most of the `teachers` (their count), every ``(label, share, se)``
    share against one half: passes when each is above it by more than 2 SE, fails when one is
    below it by more than 2 SE, and is otherwise inconclusive (a share within 2 SE of one half
    is a coin flip); `cause` follows a failure's note, `evidence` when it is evidenced."""
    ours = "; ".join(f"{label}: {p:.2f} (SE {se:.2f})" for label, p, se in parts)
    notes = [note] if note else []
    below = [label for label, p, se in parts if 0.5 - p > 2 * se]
    flips = [label for label, p, se in parts if abs(p - 0.5) <= 2 * se]
    passed = False if below else None if flips else True
    if below:
        notes.append(f"{', '.join(below)}: a minority of the {teachers} teachers, below one half "
                     f"by more than 2 SE" + (f"; {cause}" if cause else ""))
    elif flips:
        notes.append(f"inconclusive: {', '.join(flips)} within 2 SE of one half, a coin flip "
                     f"over {teachers} teachers")
    n = "of teachers showing it"
    return TARGETS.holds(id, ours=f"share {n}: {ours}", passed=passed, note="; ".join(notes),
                         evidence=evidence)


def _ks_pvalues(data, k, teacher):
    return [ks_normal(_by_teacher(data, k, c)[teacher]).pvalue
            for c in ("train_nmse", "test_nmse")]


def check_fig4(data, scale):
    """Judge Fig 4's non-Gaussian errors at each K (G1) by the share of teachers showing them
    (G2 and G5 are judged under the primary protocol of :mod:`.teacher_sweep`).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_teacher`'s data, with every K of :data:`KS`.
    scale : {'quick', 'paper'}
        Unused.

    Returns
    -------
    list of Check
        G1 K=1, G1 K=5, G1 K=10, G1 K=15.

    Examples
    --------
    A hand-made table of log-normal errors: Gaussian by no teacher's K-S test at 1%? Not with 20
    runs each.

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame([{"k": k, "teacher": t, "run": r, "train_nmse": x, "test_nmse": 1.1 * x}
    ...                      for k in KS for t in (0, 1)
    ...                      for r, x in enumerate(rng.lognormal(-3, 1, 20))])
    >>> [(c.id, c.passed) for c in check_fig4(data, "quick")]  # doctest: +NORMALIZE_WHITESPACE
    [('G1 K=1', False), ('G1 K=5', False), ('G1 K=10', False), ('G1 K=15', False)]
    """
    teachers = sorted(data["teacher"].unique())
    ks_p = {k: {t: _ks_pvalues(data, k, t) for t in teachers} for k in KS}
    checks = [_shares_check(f"G1 K={k}", [(f"K={k}", *_share(
        max(ks_p[k][t]) < 0.01 for t in teachers))], len(teachers)) for k in (1, 5, 10)]
    test_share, test_se = _share(ks_p[15][t][1] < 0.01 for t in teachers)
    checks.append(_shares_check("G1 K=15", [("K=15 train", *_share(
        ks_p[15][t][0] < 0.01 for t in teachers))], len(teachers),
        note=f"test errors P < 0.01 for a share {test_share:.2f} (SE {test_se:.2f})"))
    return checks


def check_fig5(data, scale):
    """Judge Fig 5's mean minus one sd below the best run at K = 1 and 5 (G4) by the share of
    teachers showing it (G3 is judged under the primary protocol of :mod:`.teacher_sweep`).

    Parameters
    ----------
    data : DataFrame
        :func:`compute_teacher`'s data, with K = 1 and 5.
    scale : {'quick', 'paper'}
        Unused.

    Returns
    -------
    list of Check
        G4 K=1, G4 K=5.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame([{"k": k, "teacher": t, "run": r, "train_nmse": x, "test_nmse": 1.1 * x}
    ...                      for k in KS for t in (0, 1)
    ...                      for r, x in enumerate(rng.lognormal(-3, 1, 20))])
    >>> [(c.id, c.passed) for c in check_fig5(data, "quick")]
    [('G4 K=1', None), ('G4 K=5', True)]
    """
    teachers = sorted(data["teacher"].unique())
    checks = []
    for k in (1, 5):
        runs = {c: _by_teacher(data, k, c) for c in ("train_nmse", "test_nmse")}
        checks.append(_shares_check(f"G4 K={k}", [(f"K={k}", *_share(
            _below_best(runs["train_nmse"][t])[1] and _below_best(runs["test_nmse"][t])[1]
            for t in teachers))], len(teachers)))
    return checks
