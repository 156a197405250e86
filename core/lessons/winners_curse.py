"""Lesson ``winners-curse``: the best of N variants overstates its own gain (type-M error).

Study: the ``best-of-n`` scenario with every variant truly better than the baseline by 0.5
sd; 10 runs each; the variant with the best mean is reported with its estimated gain, the
difference of its mean and the baseline's (``mean-diff``), on the runs that chose it or on
fresh runs. The exaggeration ratio is the mean estimated gain over the true gain.
"""

from __future__ import annotations

from evalmc.lessons.base import Headline, Lesson, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure

VARIANTS = (1, 2, 5, 10, 20)
EFFECT = 0.5
TITLE = "The best of 10 variants reports twice its true gain; fresh runs report it right"


def _compute(n_reps, seed, n_jobs=1):
    from evalmc.study.estimation import run_estimation

    res = run_estimation({"variants": list(VARIANTS), "effect": EFFECT, "n": 10,
                          "select": ["same", "fresh"]}, "best-of-n", ["mean-diff"],
                         n_reps=n_reps, seed=seed, n_jobs=n_jobs, target="effect",
                         progress=False)
    frame = res.summary[["variants", "select", "mean", "bias_mcse", "n_reps"]].copy()
    frame["ratio"] = frame["mean"] / EFFECT
    frame["ratio_mcse"] = frame["bias_mcse"] / EFFECT
    return frame.reset_index(drop=True)


def _headline(frame):
    row = frame[(frame["variants"] == 10) & (frame["select"] == "same")].iloc[0]
    return Headline("estimated gain of the best of 10 variants / true gain",
                    float(row["ratio"]), float(row["ratio_mcse"]), 2)


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=11)
    curves(ax, frame, "variants", "ratio", "select", err="ratio_mcse",
           labels={"same": "gain measured on the runs that chose it",
                   "fresh": "gain measured on fresh runs"},
           xlabel="variants tried (each truly 0.5 sd better)",
           ylabel="estimated gain / true gain", logx=True)
    ax.set_xticks(list(VARIANTS), [str(v) for v in VARIANTS])
    level(ax, 1.0, "true gain")
    return finish(fig)


LESSON = Lesson(
    id="winners-curse",
    name="The winner's curse",
    title=TITLE,
    question="We tried ten variants of our method; the best one gained 1 point over the "
             "baseline, and we report that gain. Is 1 point what users will see?",
    predict=("Every variant truly gains 0.5 sd. What gain does the best of ten report, on "
             "average, from 10 runs each?",
             "Does it help to try more variants?"),
    answers=("About 1 sd, twice the truth: the winner is the variant whose runs were "
             "luckiest, and its luck is counted as gain.",
             "No, it gets worse: the more variants, the luckier the winner (the expected "
             "maximum of N standard normals grows like sqrt(2 log N))."),
    explanation="Each variant's estimated gain is its true gain plus noise of sd "
                "sigma sqrt(1/n) (plus the baseline's noise). Picking the largest estimate "
                "picks large noise: its expectation is the true gain plus sigma / sqrt(n) "
                "times the expected maximum of N standard normals (1.54 for N = 10). Gelman "
                "and Carlin call the ratio of the reported to the true effect the type-M "
                "(magnitude) error. Fresh runs of the winner estimate its gain without bias.",
    instead="Re-evaluate the chosen variant on fresh runs (or a held-out test set) before "
            "reporting its gain; report how many variants were tried; shrink the estimates "
            "of many variants toward their mean when you must compare them.",
    reps={"class": 4000, "full": 40_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(2000, 1.9429),
)
