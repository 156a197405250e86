"""Lesson ``seeds-power``: how many seeds are enough for a paired comparison.

Study: the planner (:func:`evalmc.plan`) on the ``paired-normal`` scenario (A and B run on the
same seeds, correlation 0.5, unit sds, so the per-seed differences have sd 1) and the paired
t-test: the smallest number of seeds with 80% power, for gains of 0.3, 0.5 and 0.8 sd of the
differences, each with its 95% interval, and the power at every number of seeds it tried.
A student's test is graded on 12 paired seeds: a test that ignores the pairing (Welch's) is
conservative and loses power there.
"""

from __future__ import annotations

import pandas as pd

from evalmc.lessons.base import Grading, Headline, Lesson, Published, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure

GAINS = (0.3, 0.5, 0.8)
POWER = 0.8
TITLE = "80% power takes about 34 paired seeds for a gain of half an sd, 90 for 0.3 sd"


def _compute(n_reps, seed, n_jobs=1):
    from evalmc.study.plan import plan

    frames = []
    for gain in GAINS:
        res = plan("paired-normal", "paired-t", solve="n", power=POWER,
                   params={"shift": gain, "rho": 0.5}, seed=seed, n_jobs=n_jobs,
                   max_reps=n_reps)
        points = res.points.rename(columns={"value": "n"})
        points["mcse"] = (points["power"] * (1 - points["power"]) / points["n_reps"]) ** 0.5
        frames.append(points.assign(gain=gain, solved_n=res.value, solved_low=res.ci_low,
                                    solved_high=res.ci_high))
    return pd.concat(frames, ignore_index=True)[
        ["gain", "n", "power", "mcse", "n_reps", "solved_n", "solved_low", "solved_high"]]


def _replications(frame, cap):
    """What the planner ran at the numbers of seeds it tried, per gain, beside its cap."""
    totals = frame.groupby("gain", sort=True)["n_reps"].sum()
    counts = [f"{int(n):,}" for n in totals]
    gains = [f"{g:g}" for g in totals.index]
    return (f"the planner ran {', '.join(counts[:-1])} and {counts[-1]} replications at the "
            f"numbers of seeds it tried for gains of {', '.join(gains[:-1])} and {gains[-1]} sd "
            f"({int(frame['n_reps'].min()):,} to {int(frame['n_reps'].max()):,} at each; its "
            f"cap is {cap:,} per gain, its check of the test's size at the null included)")


def _headline(frame):
    row = frame[frame["gain"] == 0.5].iloc[0]
    half_width = (row["solved_high"] - row["solved_low"]) / 2
    return Headline("paired seeds for 80% power at a gain of 0.5 sd",
                    float(row["solved_n"]), float(half_width / 1.96), 0)


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=11)
    frame = frame.assign(curve=frame["gain"].map(lambda g: f"gain {g:g} sd"))
    curves(ax, frame, "n", "power", "curve", err="mcse", xlabel="paired seeds (runs of each)",
           ylabel="power of the paired t-test", logx=True)
    for (_, part), color in zip(frame.groupby("gain"), ("#1b6ca8", "#d1495b", "#2e933c"),
                                strict=False):
        ax.axvline(part["solved_n"].iloc[0], color=color, linestyle=":", linewidth=1.5)
    level(ax, POWER, "80% power")
    ticks = [2, 4, 8, 16, 32, 64, 128, 256]
    ax.set_xticks([t for t in ticks if t <= frame["n"].max() * 1.5],
                  [str(t) for t in ticks if t <= frame["n"].max() * 1.5])
    return finish(fig)


LESSON = Lesson(
    id="seeds-power",
    name="How many seeds are enough",
    title=TITLE,
    question="Everyone uses 3 or 5 seeds. How many do I need to detect a real improvement "
             "of my method over the baseline, most of the time?",
    predict=("A and B run on the same seeds; A gains half the sd of the per-seed "
             "differences. How many seeds give the paired t-test an 80% chance of "
             "detecting it at 5%?",
             "How many for a gain of 0.3 sd? And with 5 seeds, what is the power at 0.5 sd?"),
    answers=("About 34 (the textbook formula for a paired t-test says the same).",
             "About 90: halving the gain roughly quadruples the seeds. With 5 seeds the "
             "power at 0.5 sd is about 14% (8% with 3): most real gains of that size go "
             "undetected."),
    explanation="The paired t-test's power depends on the gain divided by the sd of the "
                "per-seed differences, times sqrt(n). For 80% power at 5% (two-sided) "
                "that ratio must reach about 2.8, so n grows like 1 / gain^2. Pairing "
                "helps: a correlation rho between A's and B's runs on a seed shrinks the sd "
                "of the differences by sqrt(2 (1 - rho)). Bouthillier et al. (2021) give "
                "29 pairs for their P(A>B) test at gamma = 0.75 (Noether's formula).",
    instead="Decide the number of seeds before running, from the smallest gain that would "
            "matter and the spread of your runs (evalmc plan does it for any criterion "
            "and scenario, including your own runs' distribution); run A and B on the "
            "same seeds; report the power.",
    reps={"class": 40_000, "full": 400_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(40_000, 34),
    published=Published("29 pairs for the P(A>B) test at gamma = 0.75",
                        "Bouthillier et al. (2021), Noether's sample size",
                        "A different test and effect; statsmodels' TTestPower gives 34 "
                        "for this one."),
    grading=Grading("paired-normal", {"n": 12, "rho": 0.5}, ("shift", 0.0, 0.8),
                    ("paired-t",)),
    replications=_replications,
)
