"""Lesson ``rerun``: re-running the experiment until the t-test is significant.

Study: the ``rerun`` scenario (two equally good models, 10 runs each, the whole experiment
drawn again, up to k times, until Welch's t-test gives p < 0.05) and Welch's t-test on the
try that is reported: its rejection rate is the chance of a "significant" result from nothing.
"""

from __future__ import annotations

from evalmc.lessons.base import Lesson, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick, rates

TRIES = (1, 2, 3, 5, 10)
TITLE = "Re-running until p < 0.05: 5 tries make a false 'win' about 1 time in 5"


def _compute(n_reps, seed, n_jobs=1):
    frame = rates("rerun", ["welch-t"], {"tries": list(TRIES)}, n_reps, seed, n_jobs)
    frame["independent_tries"] = 1 - 0.95 ** frame["tries"]  # k honest tests of size 0.05
    return frame


def _headline(frame):
    return pick(frame, "false positive rate after up to 5 tries", tries=5)


def _plot(frame):
    fig, (ax,) = new_figure(TITLE)
    curves(ax, frame, "tries", "rate", "criterion", err="mcse",
           labels={"welch-t": "Welch's t on the reported try"},
           xlabel="tries at most (re-runs until p < 0.05)", ylabel="false positive rate")
    ax.plot(frame["tries"], frame["independent_tries"], ":", color="0.2",
            label=r"$1 - 0.95^k$")
    level(ax, 0.05)
    return finish(fig)


LESSON = Lesson(
    id="rerun",
    name="Re-running until significant",
    title=TITLE,
    question="My t-test was not significant, so I ran the whole experiment again with new "
             "seeds, and the second time it was. Can I report that p-value?",
    predict=("If the two models are exactly as good, and you allow yourself up to 5 tries, "
             "how often do you end up with p < 0.05?",
             "Does it matter that each single try is a perfectly valid t-test?"),
    answers=("About 22% of the time, not 5%: each try is another chance, 1 - 0.95^5 = 0.226.",
             "No: the reported test is chosen by its own outcome. Each test is valid, the "
             "selection is not."),
    explanation="Every try is a fresh 5% chance of a false positive. Stopping at the first "
                "success and reporting only it makes the reported p-value the smallest of "
                "the tries', so the false positive rate grows as 1 - (1 - alpha)^k. Adding "
                "seeds and testing after each batch (peeking) inflates it the same way, a "
                "little more slowly, because the looks share their data.",
    instead="Fix the number of runs before looking (a power analysis: the seeds-power "
            "lesson), report every try, or pool all the runs into one test planned in "
            "advance. To look as you go, use a sequential design with an alpha-spending rule.",
    reps={"class": 4000, "full": 40_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(2000, 0.216),
)
