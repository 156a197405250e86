"""Lesson ``boo-n``: reporting the best of m runs, against Boo_n (Bajgar et al. 2018).

Study: the ``normal`` scenario, m runs of a model (scores N(0, 1): one unit is the run-to-run
sd), m from 5 to 50; two numbers reported from the m runs: the best run (the usual "best
single model"), and the non-parametric estimate of Boo_5, the expected best of 5 runs
(Bajgar et al.'s Eq 7). Their mean over studies shows what each reports on average.
"""

from __future__ import annotations

from evalmc.lessons.base import Lesson, Published, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick

RUNS = (5, 10, 20, 50)
N = 5
BOO_5 = 1.16296  # Boo_5 of N(0, 1), Bajgar et al.'s Table
TITLE = "The best of m runs climbs with m; the Boo_5 estimate settles at the expected best of 5"


def best_run(a, b):
    """The best of A's runs (what a paper reports as its single best model)."""
    return float(a.max())


def boo_5(a, b):
    """Bajgar et al.'s non-parametric estimate of Boo_5 from A's runs."""
    from evalmc.estimators.boon import boon_nonparametric

    return boon_nonparametric(a, n=N)


def _compute(n_reps, seed, n_jobs=1):
    from evalmc.study.estimation import run_estimation

    res = run_estimation({"n_a": list(RUNS), "n_b": 2}, "normal", [best_run, boo_5],
                         n_reps=n_reps, seed=seed, n_jobs=n_jobs, backend="threads",
                         target=0.0, progress=False)
    frame = res.summary[["n_a", "estimator", "mean", "bias_mcse", "emp_se", "n_reps"]]
    return frame.rename(columns={"n_a": "runs", "bias_mcse": "mcse"}).reset_index(drop=True)


def _headline(frame):
    return pick(frame, "expected best of 10 runs, in run-to-run sds above the mean",
                value="mean", runs=10, estimator="best_run")


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=11)
    curves(ax, frame, "runs", "mean", "estimator", err="mcse",
           labels={"best_run": "best of the m runs", "boo_5": "Boo_5 estimated from m runs"},
           xlabel="runs made (m)", ylabel="reported score (sds above the mean run)",
           logx=True)
    ax.set_xticks(list(RUNS), [str(m) for m in RUNS])
    level(ax, BOO_5, "true Boo_5 = 1.163")
    return finish(fig)


LESSON = Lesson(
    id="boo-n",
    name="The best of n runs vs Boo_n",
    title=TITLE,
    question="We report our best model out of all the runs we made; the baseline's authors "
             "made fewer runs. Is the comparison fair?",
    predict=("Runs vary with sd 1 around the mean. How far above the mean is the best of 10 "
             "runs, on average? The best of 50?",
             "What does Boo_5 estimated from 50 runs report, compared with one estimated "
             "from 10?"),
    answers=("About 1.54 sd for 10 runs and 2.25 for 50: the 'best model' measures how many "
             "runs were made as much as the method.",
             "From 50 runs about 1.14, close to the true 1.163; from 10 runs about 1.04. The "
             "estimate is biased low for few runs (it is the best of 5 drawn with "
             "replacement from the runs), but it settles at Boo_5 instead of climbing, so "
             "methods with different budgets compare fairly once m is several times n."),
    explanation="The best of m draws is the maximum of m samples, whose expectation grows "
                "with m (like sqrt(2 log m) for a normal). Reporting it rewards compute, not "
                "method, and its variance is large. Bajgar et al. define Boo_n, the "
                "expected best of n runs, as the quantity to report, and estimate it from "
                "any m >= n runs with weights on the sorted runs (their Eq 7); for normal "
                "runs it is the mean plus sd times the expected maximum of n standard "
                "normals (1.163 for n = 5, 1.539 for n = 10).",
    instead="Report the mean and sd over runs, or Boo_n for a fixed n with its interval "
            "(evalmc boon), instead of the best run; compare methods at the same n.",
    reps={"class": 2000, "full": 20_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(600, 1.5873),
    published=Published("Boo_10 of N(0, 1) = 1.53875", "Bajgar et al. (2018)",
                        "The expected best of 10 normal runs is Boo_10 of the runs' "
                        "distribution."),
)
