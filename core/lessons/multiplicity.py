"""Lesson ``multiplicity``: many pairs of models, one "significant" win.

Study: the ``multi-dataset`` scenario: k equally good models on 20 data sets (each data set
with its own difficulty and model-by-data-set noise); "some pair of models differs" decided
by Wilcoxon signed-rank tests of every pair at 5% without adjustment (``wilcoxon-any``), with
Holm's adjustment (``wilcoxon-holm``), and by Friedman's test of all k at once.
"""

from __future__ import annotations

from evalmc.lessons.base import Lesson, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick, rates

MODELS = (2, 3, 5, 8)
TITLE = "5 equal models, 10 pairs tested: a 'significant' difference 3 times in 10"


def _compute(n_reps, seed, n_jobs=1):
    frame = rates("multi-dataset", ["wilcoxon-any", "wilcoxon-holm", "friedman"],
                  {"k": list(MODELS), "n_datasets": 20}, n_reps, seed, n_jobs)
    frame["pairs"] = frame["k"] * (frame["k"] - 1) // 2
    return frame[["k", "pairs", "criterion", "rate", "mcse", "n_reps"]]


def _headline(frame):
    return pick(frame, "chance that some pair of 5 equal models differs 'significantly' "
                "(10 unadjusted tests)", k=5, criterion="wilcoxon-any")


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=11)
    curves(ax, frame, "k", "rate", "criterion", err="mcse",
           labels={"wilcoxon-any": "Wilcoxon on every pair, unadjusted",
                   "wilcoxon-holm": "Wilcoxon on every pair, Holm-adjusted",
                   "friedman": "Friedman test of all models"},
           xlabel="models compared on 20 data sets (all equally good)",
           ylabel="'some pair differs' (family-wise)")
    ax.set_xticks(list(MODELS), [f"{k}\n({k * (k - 1) // 2} pair{'s' if k > 2 else ''})"
                                 for k in MODELS])
    level(ax, 0.05)
    return finish(fig)


LESSON = Lesson(
    id="multiplicity",
    name="Many comparisons, one win",
    title=TITLE,
    question="We compared five models on 20 data sets, tested every pair, and one pair came "
             "out significant at 5%. Is that a finding?",
    predict=("If all five models are equally good, how often is at least one of the 10 "
             "pairwise tests significant at 5%?",
             "With eight models (28 pairs)?"),
    answers=("About 30%: ten tests are ten chances. Fewer than 1 - 0.95^10 = 40% because the "
             "pairs share models and data sets, but six times the 5% the reader assumes.",
             "About 55%: more likely than not, a 'significant' pair appears by chance."),
    explanation="Each test has a 5% chance of a false positive; a family of m tests has a "
                "chance of at least one near 1 - 0.95^m when they are independent. Holm's "
                "step-down adjustment (or Bonferroni's) multiplies the smallest p-values so "
                "that the family's chance stays at 5%; Friedman's test asks the family's "
                "question once. The same holds for many subsets of a benchmark, many "
                "metrics, or many data sets reported one by one.",
    instead="Decide the comparisons before looking; adjust for all of them (Holm), or test "
            "the family first (Friedman, then Nemenyi or Holm-adjusted pairs, as Demsar "
            "recommends: evalmc ranks); report how many comparisons were made.",
    reps={"class": 2000, "full": 20_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(800, 0.28875),
)
