"""Lesson ``wald-small``: the normal (Wald, CLT) interval of an accuracy on a small eval.

Study: the ``bernoulli`` scenario, one model's 0/1 answers to n independent questions, each
right with probability theta (its true accuracy); the coverage of three 95% intervals of
theta: the CLT's ``p +- 1.96 sqrt(p (1 - p) / n)`` (``wald``), Wilson's (``wilson``) and the
Beta(1, 1) posterior's equal-tailed interval (``beta-posterior``). Left: 30 questions, theta
from 0.5 to 0.98; right: theta = 0.9, n from 10 to 1,000 questions (Bowyer et al. 2025,
Sec 3.1, at single accuracies instead of their average over uniform ones).
"""

from __future__ import annotations

import pandas as pd

from evalmc.lessons.base import Lesson, Published, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick

N = 30
THETA = 0.9
ACCURACIES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98)
QUESTIONS = (10, 30, 100, 300, 1000)
ESTIMATORS = ("wald", "wilson", "beta-posterior")
LABELS = {"wald": "Wald / CLT: p ± 1.96 se", "wilson": "Wilson (drawn over the posterior)",
          "beta-posterior": "Beta(1, 1) posterior"}
TITLE = ("Small evals: the 95% Wald interval covers 81% at accuracy 0.9 on 30 questions; "
         "Wilson and Beta(1, 1) near 95%")


def _compute(n_reps, seed, n_jobs=1):
    from evalmc.study.estimation import run_estimation

    rows = ([{"n": N, "theta": t} for t in ACCURACIES]
            + [{"n": n, "theta": THETA} for n in QUESTIONS if n != N])
    res = run_estimation(pd.DataFrame(rows), "bernoulli", list(ESTIMATORS), n_reps=n_reps,
                         seed=seed, n_jobs=n_jobs, progress=False)
    frame = res.summary[["n", "theta", "estimator", "coverage", "coverage_mcse", "width",
                         "n_reps"]]
    return frame.rename(columns={"coverage_mcse": "mcse"}).reset_index(drop=True)


def _headline(frame):
    return pick(frame, f"coverage of the 95% Wald interval, {N} questions, true accuracy "
                f"{THETA:g}", value="coverage", n=N, theta=THETA, estimator="wald")


def _on_top(ax, label):
    """Draw the curve called `label` dashed, with open markers, above the others: Wilson's
    coverage equals the posterior's wherever both intervals cover the same counts."""
    for line in ax.get_lines():
        if line.get_label() == label:
            line.set(linestyle="--", markerfacecolor="white", zorder=5)


def _plot(frame):
    fig, (left, right) = new_figure(TITLE, ncols=2, width=15, height=6.5)
    curves(left, frame[frame["n"] == N], "theta", "coverage", "estimator", err="mcse",
           labels=LABELS, xlabel="true accuracy of the model", ylabel="coverage of the "
           "95% interval")
    _on_top(left, LABELS["wilson"])
    left.set_title(f"{N} questions", fontsize=16)
    level(left, 0.95, "nominal 95%")
    curves(right, frame[frame["theta"] == THETA], "n", "coverage", "estimator", err="mcse",
           labels=LABELS, xlabel="questions in the eval (n)", ylabel="coverage of the "
           "95% interval", logx=True)
    _on_top(right, LABELS["wilson"])
    right.set_xticks(list(QUESTIONS), [str(n) for n in QUESTIONS])
    right.set_title(f"true accuracy {THETA:g}", fontsize=16)
    level(right, 0.95, "nominal 95%")
    for ax in (left, right):
        ax.set_ylim(0.3, 1.02)
    return finish(fig)


LESSON = Lesson(
    id="wald-small",
    name="A normal (Wald) interval on a small eval",
    title=TITLE,
    question="My model got 27 of the 30 questions of a small benchmark right. I report 90% "
             "± 1.96 sqrt(p (1 - p) / n) = 90% ± 10.7 points. Is that a 95% interval?",
    predict=("If the model's true accuracy is 0.9, how often does this recipe's interval, "
             "computed on 30 questions, contain 0.9?",
             "What does the recipe give when the model gets 30 of 30, and how often does "
             "that happen to a model of true accuracy 0.98?",
             "How many questions until the Wald interval's coverage at accuracy 0.9 is "
             "within about a point of 95%?",
             "Do Wilson's interval and the Beta(1, 1) posterior's cover exactly 95% at every "
             "accuracy?"),
    answers=("About 81% (exactly 0.808, summing the binomial probabilities of the counts "
             "whose interval contains 0.9), not 95%. Its interval for 27/30 is [0.793, "
             "1.007]: it even runs past 100%.",
             "[1, 1]: an interval of zero width that excludes every accuracy below 100%. A "
             "model of accuracy 0.98 scores 30/30 with probability 0.98^30 = 0.55, so the "
             "Wald interval covers its accuracy only about 45% of the time.",
             "Hundreds: at 100 questions it covers about 93%, at 300 about 94%, and only "
             "near 1,000 questions does it reach 95%. The error falls slowly the closer "
             "the accuracy is to 0 or 1.",
             "Not exactly: the count is discrete, so every interval's coverage saws up and "
             "down with the accuracy (between 93% and 98% here, and the posterior's drops "
             "to 88% at 0.98 on 30 questions). Averaged over accuracies drawn uniformly, "
             "the Beta(1, 1) posterior covers exactly 95% and Wilson's very nearly; the "
             "Wald interval covers 87.5% on 30 questions."),
    explanation="The Wald interval is the central limit theorem's: it treats the observed "
                "accuracy p as normal with the standard error sqrt(p (1 - p) / n) estimated "
                "from p itself. With few questions and an accuracy near 0 or 1 the count is "
                "skewed and lumpy, not normal, and the estimated standard error is smallest "
                "exactly when p lands near the boundary, so the intervals that should be "
                "widest are the narrowest: zero at 0/n and n/n. Wilson's interval inverts "
                "the score test, using the standard error at the accuracy being tested, "
                "not at p, so it is never empty and stays in [0, 1]; the Beta(1, 1) "
                "posterior takes the binomial likelihood as it is. Brown, Cai and DasGupta "
                "(2001) documented the Wald interval's erratic coverage; Bowyer et al. "
                "(2025) show it for LLM evals with fewer than a few hundred questions.",
    instead="Report Wilson's interval (or the Beta(1, 1) posterior's, or Clopper-Pearson's "
            "if you want at least 95% at every accuracy) for an accuracy on fewer than a few "
            "hundred questions; when questions come in tasks, use the clustered Bayes or "
            "clustered standard error instead of treating them as independent.",
    reps={"class": 4000, "full": 40_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(1000, 0.79),
    published=Published(
        '"CLT-based methods perform very poorly, usually dramatically underestimating '
        'uncertainty (i.e. producing error bars that are too small)" (quoted)',
        "Bowyer, Aitchison and Ivanova (2025), abstract",
        "Their coverage is averaged over accuracies drawn uniformly: the exact 95% CLT "
        "coverage on 30 questions is then 0.875, Wilson's 0.952, the Beta(1, 1) "
        "posterior's 0.950 (our reproduction, figures/bowyer2025/iid-sim.csv); at the "
        "single accuracy 0.9 the CLT does worse than on that average."),
)
