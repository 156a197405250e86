"""Lesson ``mcnemar``: two classifiers on one test set, McNemar's test vs the proportion test.

Study: the ``paired-classifiers`` scenario given its paired table: 200 test examples, B right
on 80% of them, and a share d of the examples on which exactly one of the two is right (d
from 0.04 to 0.3: the models agree on the rest); A as good as B (the null) or 3 points better.
The proportion test (Keller et al.'s Eq 3: the two error rates as independent samples)
against McNemar's continuity-corrected test (Dietterich 1998).
"""

from __future__ import annotations

import pandas as pd

from evalmc.lessons.base import Lesson, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick, rates

N = 200
ACCURACY_B = 0.8
GAIN = 0.03
DISCORDANT = (0.04, 0.1, 0.2, 0.3)
TITLE = ("Models that mostly agree: McNemar's test finds a 3-point gain, the proportion test "
         "does not")


def table(discordant: float, gain: float) -> dict:
    """The paired table of the lesson: P(both right), P(only A right), P(only B right).

    Parameters
    ----------
    discordant : float
        Share of examples on which exactly one model is right (above `gain`).
    gain : float
        A's accuracy minus B's.

    Returns
    -------
    dict
        ``p_both``, ``p_a_only``, ``p_b_only``, with B's accuracy 0.8.

    Examples
    --------
    >>> from evalmc.lessons.mcnemar import table
    >>> {k: round(v, 3) for k, v in table(0.1, 0.03).items()}
    {'p_both': 0.765, 'p_a_only': 0.065, 'p_b_only': 0.035}
    """
    p_b_only = (discordant - gain) / 2
    return {"p_both": ACCURACY_B - p_b_only, "p_a_only": p_b_only + gain,
            "p_b_only": p_b_only}


def _compute(n_reps, seed, n_jobs=1):
    frames = []
    for d in DISCORDANT:
        for truth, gain in (("equal", 0.0), ("gain", GAIN)):
            frame = rates("paired-classifiers", ["proportion", "mcnemar"],
                          {"n": N, **table(d, gain)}, n_reps, seed, n_jobs)
            frames.append(frame.assign(discordant=d, truth=truth))
    return pd.concat(frames, ignore_index=True)[
        ["discordant", "truth", "criterion", "rate", "mcse", "n_reps"]]


def _headline(frame):
    return pick(frame, "power of the proportion test (3-point gain, 10% discordant, "
                f"{N} examples)", discordant=0.1, truth="gain", criterion="proportion")


def _plot(frame):
    fig, (size, power) = new_figure(TITLE, ncols=2, width=14)
    labels = {"proportion": "proportion test (unpaired)", "mcnemar": "McNemar (paired)"}
    curves(size, frame[frame["truth"] == "equal"], "discordant", "rate", "criterion",
           err="mcse", labels=labels, xlabel="share of examples where they disagree",
           ylabel="false positive rate (equal accuracy)")
    size.set_ylim(-0.003, 0.09)
    level(size, 0.05)
    curves(power, frame[frame["truth"] == "gain"], "discordant", "rate", "criterion",
           err="mcse", labels=labels, xlabel="share of examples where they disagree",
           ylabel="power (A 3 points better)")
    return finish(fig)


LESSON = Lesson(
    id="mcnemar",
    name="McNemar vs the proportion test",
    title=TITLE,
    question="Two classifiers, one test set of 200 examples: 83% against 80% accuracy. I "
             "compared the two accuracies with a test of two proportions. Is that right?",
    predict=("When the models agree on most examples (they are wrong on the same hard "
             "ones), is the proportion test's 5% too high or too low?",
             "Which test finds a real 3-point gain more often when the models disagree on "
             "10% of the examples?"),
    answers=("Too low: it treats the two accuracies as independent samples, but on one "
             "test set they share most of their errors, so their difference varies much "
             "less than it assumes. It is conservative, rarely rejecting at all.",
             "McNemar's, by far (about 19% against 2% with 200 examples): it looks only at "
             "the examples where the models disagree, which is where the difference lives. "
             "The gap closes when they disagree on a third of the examples."),
    explanation="On one test set the two models' correctness is paired by example. The "
                "variance of the accuracy difference is (p01 + p10 - (p01 - p10)^2) / n, "
                "driven by the disagreements; the proportion test uses 2 C (1 - C) / n, "
                "which ignores the agreement and is far larger when the models agree. "
                "Dietterich (1998) and Keller et al. (2005) both find the proportion test "
                "conservative and the least powerful; McNemar's test keeps its level and "
                "gains the power.",
    instead="On a shared test set, test the paired outcomes: McNemar's test (exact or "
            "mid-p for few disagreements), a paired bootstrap, or the per-example paired "
            "z-test; report how many examples the models disagree on.",
    reps={"class": 4000, "full": 40_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(2000, 0.02),
)
