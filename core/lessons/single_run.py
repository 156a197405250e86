"""Lesson ``single-run``: one run each decides "A beats B" (Bouthillier et al. 2021).

Study: the ``pipelines`` scenario (k = 50 runs of two pipelines, the ideal estimator), P(A>B)
from 0.5 (no difference) to 0.9, and three ways to conclude "A is better": one run each with
the paper's threshold of 1.9952 sigma (``single-point``), the average of the 50 runs with the
same threshold (``average-delta``), and the paper's P(A>B) test (``prob-outperform``,
gamma = 0.75).
"""

from __future__ import annotations

from evalmc.lessons.base import Grading, Lesson, Published, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick, rates

P_AB = (0.5, 0.6, 0.75, 0.9)
CRITERIA = ("single-point(sigma=1)", "average-delta(sigma=1)", "prob-outperform")
LABELS = {"single-point(sigma=1)": "one run each, gap > 1.9952 sigma",
          "average-delta(sigma=1)": "mean of 50 runs, gap > 1.9952 sigma",
          "prob-outperform": "P(A>B) test on 50 pairs"}
TITLE = "One run each says 'A is better' 1 time in 12 when it is not, and misses 3 in 4 wins"


def _compute(n_reps, seed, n_jobs=1):
    return rates("pipelines", list(CRITERIA), {"p_ab": list(P_AB), "k": 50}, n_reps, seed,
                 n_jobs)


def _headline(frame):
    return pick(frame, "false positives of one run each at P(A>B) = 0.5", p_ab=0.5,
                criterion=CRITERIA[0])


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=12)
    curves(ax, frame, "p_ab", "rate", "criterion", err="mcse", labels=LABELS,
           xlabel="P(A>B): chance that a run of A beats a run of B",
           ylabel="share of studies concluding 'A better'")
    level(ax, 0.05)
    return finish(fig)


LESSON = Lesson(
    id="single-run",
    name="The best single run",
    title=TITLE,
    question="I trained my model and the baseline once each; mine scored higher by a margin "
             "as large as the improvements papers report. Is that evidence that mine is "
             "better?",
    predict=("When the two pipelines are equally good (P(A>B) = 0.5), how often does one run "
             "each show a gap above the typical published improvement (1.9952 sigma)?",
             "When A really is better (P(A>B) = 0.75), how often does one run each detect it?",
             "Averaging 50 runs removes the noise: does the same threshold then do better?"),
    answers=("About 8% of the time (exactly 1 - Phi(1.9952 / sqrt(2)) = 0.079 with a known "
             "sigma): one false 'improvement' in twelve.",
             "About 23% of the time: it misses three real improvements out of four.",
             "No: with the noise averaged away the gap of a P(A>B) = 0.75 improvement "
             "(0.95 sigma) never reaches 1.9952 sigma, so it misses nearly all of them. A "
             "threshold on the raw gap is the wrong rule; the P(A>B) test with its "
             "interval keeps false positives below 2.5% and finds most real improvements."),
    explanation="A single run's score carries the full run-to-run variance (data order, "
                "initialization, dropout), so the difference of two single runs has sd "
                "sqrt(2) sigma: gaps of two sigma happen by chance. Averages shrink that "
                "noise by sqrt(k), but then the decision has to be a test that knows the "
                "remaining uncertainty (an interval), not the same fixed threshold. "
                "Bouthillier et al. vary every source of variance and find the single-point "
                "comparison wrong in both directions, and recommend the probability of "
                "outperforming with a bootstrap interval, over many seeds.",
    instead="Run both pipelines over several seeds (and data splits), pair them, and decide "
            "with a test that has an interval: the P(A>B) test (evalmc's prob-outperform), "
            "or a paired t-test on the means; report the spread, not the best run.",
    reps={"class": 2000, "full": 20_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(1000, 0.092),
    published=Published("about 10% (tolerance in our report: 4 points)",
                        "Bouthillier et al. (2021), Fig. 6, single point at P(A>B) = 0.5"),
    grading=Grading("pipelines", {"k": 10}, ("p_ab", 0.5, 0.75), ("welch-t",)),
)
