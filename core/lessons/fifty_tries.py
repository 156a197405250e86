"""Lesson ``fifty-tries``: a research loop tries fifty candidates and keeps one that is no
better.

Study: the ``loop`` scenario with K null candidates (no real effect), three runs each against
a baseline of three runs, and four keep rules: the noise floor (keep a gain of twice the gap
between two baseline runs), the ratchet (keep what beats the best so far), a one-sided Welch
t-test of each candidate at 5%, and the same at 5% / K (Bonferroni); the rate of each is
P(the loop keeps some candidate), all of them false.
"""

from __future__ import annotations

from evalmc.lessons.base import Lesson, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick, rates

TRIES = (1, 2, 5, 10, 20, 50)
RULES = ("keep-noise-floor", "keep-ratchet", "keep-t", "keep-bonferroni")
TITLE = "Fifty tries of nothing: eye-set keep rules keep a false 'win' in 35% to 89% of loops"


def _compute(n_reps, seed, n_jobs=1):
    return rates("loop", list(RULES), {"candidates": list(TRIES), "runs": 3, "base_runs": 3},
                 n_reps, seed, n_jobs)


def _headline(frame):
    return pick(frame, "chance that the noise-floor rule keeps one of 50 null candidates",
                candidates=50, criterion="keep-noise-floor")


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=11)
    curves(ax, frame, "candidates", "rate", "criterion", err="mcse",
           labels={"keep-noise-floor": "noise floor: gain >= 2 |b1 - b2|",
                   "keep-ratchet": "ratchet: beats the best so far",
                   "keep-t": "Welch t at 5%, each candidate",
                   "keep-bonferroni": "Welch t at 5% / K (Bonferroni)"},
           xlabel="candidates tried (none better than the baseline; 3 runs each)",
           ylabel="P(the loop keeps a false candidate)", logx=True)
    ax.set_xticks(list(TRIES), [str(k) for k in TRIES])
    level(ax, 0.05)
    return finish(fig)


LESSON = Lesson(
    id="fifty-tries",
    name="Fifty tries, one false win",
    title=TITLE,
    question="My loop tried fifty changes overnight, three runs each, and kept the one that "
             "cleared the noise floor. Is it an improvement?",
    predict=("If none of the fifty changes does anything, how often does a rule 'keep a gain "
             "above twice the gap between two baseline runs' keep one of them?",
             "And a t-test at 5% for each change?"),
    answers=("About 36% of loops keep at least one change that does nothing (exact, by "
             "quadrature: 0.362): a single candidate passes about 1 time in 10, and fifty "
             "candidates share one noisy baseline, so their chances do not simply add up.",
             "About 40%, and keeping whatever beats the best so far about 89%. Bonferroni's "
             "5% / 50 keeps a false one in about 1% of loops."),
    explanation="A keep rule is a test, and a loop runs it once per candidate: K tries are "
                "K chances for noise to clear the bar. The noise floor sets the bar from two "
                "baseline runs, itself a noisy estimate, and compares against one of them, so "
                "in a loop whose baseline ran low every candidate looks better; the ratchet "
                "keeps anything that beats the running best, which the first few candidates "
                "do by luck. Only a bar that grows with K (Bonferroni, or Holm) holds the "
                "loop's chance of a false keep at its level.",
    instead="Set the bar for the whole loop, not one candidate: `evalmc gate --solve` finds "
            "the threshold that holds P(any false keep) at a target and the runs per "
            "candidate that keep a real gain with the power you want; confirm a kept "
            "candidate on fresh runs before building on it.",
    reps={"class": 2000, "full": 20_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(2000, 0.353),
)
