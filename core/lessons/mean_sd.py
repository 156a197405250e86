"""Lesson ``mean-sd-skewed``: mean +- sd of skewed or bimodal results (Giles and Lawrence 1997).

Study: m runs' errors (lower is better) from three distributions with the same story told
differently: Gaussian (``normal``), skewed with a long tail of bad runs (``skew-normal``,
shape 8) and bimodal, one run in five stuck at a high error (``mixture``: 0.8 N(0, 0.25^2) +
0.2 N(2, 0.5^2)); for each, how often ``mean - sd`` falls below the best run made: an error
the summary claims is common that no run reached.
"""

from __future__ import annotations

import pandas as pd

from evalmc.lessons.base import Lesson, Published, Regression
from evalmc.lessons.figures import curves, finish, new_figure
from evalmc.lessons.studies import pick

RUNS = (5, 10, 20, 40)
SHAPES = {"normal": {}, "skew-normal": {"skew": 8.0},
          "mixture": {"weight": 0.2, "loc1": 0.0, "scale1": 0.25, "loc2": 2.0, "scale2": 0.5}}
LABELS = {"normal": "Gaussian errors", "skew-normal": "skewed (long tail of bad runs)",
          "mixture": "bimodal (1 run in 5 stuck)"}
TITLE = "Bimodal errors: 'mean - sd' beats the best of 10 runs two times in three"


def below_best(a, b):
    """Whether mean - sd of A's errors is below its best (lowest) run: 1.0 or 0.0."""
    return float(a.mean() - a.std(ddof=1) < a.min())


def _compute(n_reps, seed, n_jobs=1):
    from evalmc.study.estimation import run_estimation

    frames = []
    for shape, params in SHAPES.items():
        grid = {"n_a": list(RUNS), "n_b": 2, **params}
        res = run_estimation(grid, shape, [below_best], n_reps=n_reps, seed=seed,
                             n_jobs=n_jobs, backend="threads", target=0.0, progress=False)
        frames.append(res.summary[["n_a", "mean", "bias_mcse", "n_reps"]].assign(shape=shape))
    frame = pd.concat(frames, ignore_index=True)
    return frame.rename(columns={"n_a": "runs", "mean": "share", "bias_mcse": "mcse"})[
        ["shape", "runs", "share", "mcse", "n_reps"]]


def _headline(frame):
    return pick(frame, "share of 10-run studies of bimodal errors whose mean - sd is below "
                "the best run", value="share", runs=10, shape="mixture")


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=11)
    curves(ax, frame, "runs", "share", "shape", err="mcse", labels=LABELS,
           xlabel="runs per study", ylabel="share with mean - sd < best run", logx=True)
    ax.set_xticks(list(RUNS), [str(m) for m in RUNS])
    return finish(fig)


LESSON = Lesson(
    id="mean-sd-skewed",
    name="Mean +- sd on skewed results",
    title=TITLE,
    question="My 10 runs' test errors are 0.8 +- 1.0 (mean +- sd). Is that a fair summary "
             "of what a reader will get from my method?",
    predict=("If the errors are Gaussian, how often does mean - sd fall below the best of "
             "the 10 runs, an error no run reached?",
             "And if one run in five gets stuck at a high error (a bimodal result)?"),
    answers=("Rarely, about 2% of the time: for a Gaussian the best of 10 is about 1.5 sd "
             "below the mean.",
             "About two times in three: the stuck runs inflate the sd, and mean - sd lands "
             "below every good run. The summary describes results that do not exist."),
    explanation="Mean and sd describe a Gaussian completely, and nothing else. Training "
                "runs are often skewed (a tail of bad runs) or multimodal (runs that "
                "converge and runs that get stuck). Giles and Lawrence (1997) show results "
                "of exactly these shapes from networks trained from different random "
                "initializations, with mean - sd below the best trial, and ask for the "
                "distribution to be shown.",
    instead="Show the distribution of the runs (a box or strip plot, or a histogram), "
            "report the median and quartiles, the best and worst runs, and test normality "
            "before summarizing with mean +- sd (evalmc describe does all of it).",
    reps={"class": 2000, "full": 20_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(1000, 0.657),
    published=Published("mean - sd below the best trial (a qualitative finding, no rate)",
                        "Giles and Lawrence (1997), Figs. 4-5"),
)
