"""Lesson ``snooping``: choosing the best setting on the test set, then testing it there.

Study: the ``best-of-n`` scenario: N equally good settings of a model (a learning rate, an
architecture), 10 runs each; the one with the best mean is compared with a baseline of 10
runs by a one-sided Welch t-test, on the same runs it was chosen by (``select='same'``) or on
10 fresh runs of the chosen setting (a fresh test set, ``select='fresh'``). Giles and Lawrence
(1997) show the same with networks trained on random data.
"""

from __future__ import annotations

from evalmc.lessons.base import Lesson, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick, rates

VARIANTS = (1, 2, 5, 10, 20)
TITLE = "Picking the best of 10 settings on the test set: a false 'win' 1 time in 4"


def _compute(n_reps, seed, n_jobs=1):
    return rates("best-of-n", ["t-oracle"], {"variants": list(VARIANTS), "n": 10,
                                             "select": ["same", "fresh"]}, n_reps, seed, n_jobs)


def _headline(frame):
    return pick(frame, "false positive rate of the best of 10 settings, tested on the data "
                "that chose it", variants=10, select="same")


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=11)
    curves(ax, frame, "variants", "rate", "select", err="mcse",
           labels={"same": "tested on the runs that chose it",
                   "fresh": "tested on fresh runs"},
           xlabel="settings tried (all equally good)",
           ylabel="'significantly better' (one-sided t, 5%)", logx=True)
    ax.set_xticks(list(VARIANTS), [str(v) for v in VARIANTS])
    level(ax, 0.05)
    return finish(fig)


LESSON = Lesson(
    id="snooping",
    name="Data snooping on one test set",
    title=TITLE,
    question="I tried ten learning rates, kept the one with the best test accuracy, and a "
             "t-test says it beats the baseline. What is wrong?",
    predict=("If none of the ten settings is better than the baseline, how often does the "
             "chosen one test 'significantly better' at 5%?",
             "What if the chosen setting is tested again on runs (a test set) it was not "
             "chosen on?"),
    answers=("About 23% with ten settings and about 32% with twenty, instead of 5%: the "
             "choice picked the luckiest runs.",
             "Back to 5%: fresh data carry none of the luck that made the choice."),
    explanation="The maximum of N noisy means is biased upward by about sd / sqrt(n) times "
                "the expected maximum of N standard normals (1.54 for N = 10). Testing the "
                "winner on the data that chose it counts that selection bias as an effect. "
                "Giles and Lawrence (1997) found 'significant' results on purely random "
                "problems this way, by tuning on the test set.",
    instead="Choose settings on a validation set (or by nested cross-validation), and test "
            "the one chosen once, on a test set it never saw. When the test set has been "
            "used for choices, report how many were tried and correct for them.",
    reps={"class": 4000, "full": 40_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(2000, 0.2305),
)
