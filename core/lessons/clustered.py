"""Lesson ``clustered-items``: questions in clusters, tested as if independent.

Study: the ``llm-items`` scenario: two equally skilled models on 500 questions in 25 topics of
20 (difficulty shared within a topic: icc 0.3), where each topic favours one model or the
other by a random amount (sd tau, probit scale) that averages out over topics; the per-item
z-test (``paired-items``, as if the 500 questions were independent) against the z-test with
the clustered standard error (``clustered-z``).
"""

from __future__ import annotations

from evalmc.lessons.base import Lesson, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick, rates

TAU = (0.0, 0.2, 0.4, 0.8)
TITLE = "Questions come in topics: the per-question z-test rejects 1.7x to 6.6x too often"


def _compute(n_reps, seed, n_jobs=1):
    return rates("llm-items", ["paired-items", "clustered-z"],
                 {"n_items": 500, "n_clusters": 25, "icc": 0.3, "tau": list(TAU)}, n_reps,
                 seed, n_jobs)


def _headline(frame):
    return pick(frame, "size of the per-question z-test, topic effects of sd 0.4", tau=0.4,
                criterion="paired-items")


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=11)
    curves(ax, frame, "tau", "rate", "criterion", err="mcse",
           labels={"paired-items": "z-test, questions as independent",
                   "clustered-z": "z-test, clustered standard error"},
           xlabel="sd of a topic's advantage for one model (tau, probit scale)",
           ylabel="false positive rate")
    level(ax, 0.05)
    return finish(fig)


LESSON = Lesson(
    id="clustered-items",
    name="Clustered questions in an LLM benchmark",
    title=TITLE,
    question="Our model beats the other on a 500-question benchmark, p = 0.01 by the "
             "standard error of the mean over questions. The questions come from 25 topics "
             "(20 each). Does that matter?",
    predict=("If the two models are equally good overall, but each topic favours one of "
             "them a little, how often does the per-question test say one is better?",
             "Does the clustered standard error fix it, with only 25 topics?"),
    answers=("Around 15% or more once the topics' effects are moderate (tau = 0.4), and it "
             "grows with them: the per-question test does not see that 20 questions of a "
             "topic move together.",
             "Mostly: it stays near 5-7%. With few clusters the clustered (CR0) standard "
             "error is itself a little small, so its size sits slightly above 5%."),
    explanation="A topic that suits one model shifts all its questions together, so the "
                "500 differences are not independent: the variance of their mean is larger "
                "than sd^2 / 500 by the design effect 1 + (m - 1) ICC (m questions per "
                "topic, ICC the differences' correlation within a topic). The clustered "
                "standard error sums the differences within each topic first, so it sees "
                "that variance. Miller (2024) recommends it for evals whose questions share "
                "a passage, a document or a template.",
    instead="Use the clustered standard error (evalmc's clustered-z, or a cluster "
            "bootstrap) whenever questions share a source; report the number of clusters, "
            "which is the real sample size; with few clusters use more of them rather than "
            "more questions per cluster.",
    reps={"class": 4000, "full": 40_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(1500, 0.15),
)
