"""Lesson ``student-t``: Student's t-test when the variances and the numbers of runs differ.

Study: the ``normal`` scenario, A with 5 runs and B with 20, both of mean 0; A's sd from 1 to
4 times B's; the size of Student's (pooled-variance) t-test and of Welch's.
"""

from __future__ import annotations

from evalmc.lessons.base import Grading, Lesson, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick, rates

N_A, N_B = 5, 20
SD_A = (1.0, 1.5, 2.0, 3.0, 4.0)
HEADLINE_SD = 3.0
TITLE = "Fewer runs with more spread: Student's t rejects 5x too often, Welch's t stays at 5%"


def _compute(n_reps, seed, n_jobs=1):
    return rates("normal", ["student-t", "welch-t"],
                 {"n_a": N_A, "n_b": N_B, "sd_a": list(SD_A)}, n_reps, seed, n_jobs)


def _headline(frame):
    return pick(frame, f"size of Student's t ({N_A} vs {N_B} runs, sd {HEADLINE_SD:g} vs 1)",
                sd_a=HEADLINE_SD, criterion="student-t")


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=11)
    curves(ax, frame, "sd_a", "rate", "criterion", err="mcse",
           labels={"student-t": "Student's t (pooled variance)",
                   "welch-t": "Welch's t (unequal variances)"},
           xlabel=f"sd of A's {N_A} runs / sd of B's {N_B} runs", ylabel="false positive rate")
    level(ax, 0.05)
    return finish(fig)


LESSON = Lesson(
    id="student-t",
    name="Student's t with unequal variances",
    title=TITLE,
    question="My new method has 5 runs, the baseline 20 from earlier papers, and my runs "
             "vary more. I used the textbook two-sample t-test. Is its 5% still 5%?",
    predict=("When A's 5 runs have 3 times the sd of B's 20, how often does Student's t "
             "reject at 5% although the means are equal?",
             "Would it be better or worse if A had the 20 runs and B the 5?"),
    answers=("About 27%, five times too often: the pooled variance is dominated by B's 20 "
             "quiet runs, so it underestimates the variance of A's mean and the test is far "
             "too liberal.",
             "Conservative instead: the pooled variance is then dominated by the noisy "
             "group, and the test rejects less than 5% (and loses power)."),
    explanation="Student's t pools the two variances weighted by degrees of freedom and "
                "assumes they are equal. When the smaller group is the noisier one the "
                "pooled estimate is too small for the mean difference's real variance, and "
                "the statistic's tails are heavier than the t distribution it is compared "
                "with. Welch's test estimates each group's variance of the mean separately "
                "and corrects the degrees of freedom (Welch-Satterthwaite), so its size "
                "stays near 5% whatever the ratio.",
    instead="Use Welch's t-test by default (it loses almost nothing when the variances are "
            "equal); better, run both methods with the same number of seeds, paired where "
            "you can.",
    reps={"class": 4000, "full": 40_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(2000, 0.2615),
    grading=Grading("normal", {"n_a": N_A, "n_b": N_B, "sd_a": HEADLINE_SD},
                    ("shift", 0.0, 3.0), ("welch-t",)),
)
