"""Lesson ``resampled-t``: the t-test over random train/test splits (Dietterich 1998;
Nadeau and Bengio 2003).

Study: the ``cv-regression`` scenario (least squares on 10 features against the first 5,
equally good at the data set's size: the null), one data set of 100 examples split J times at
random into 90 for training and 10 for testing; the paired t-test over the J splits' loss
differences as if they were independent (``resampled-t``) against Nadeau and Bengio's
corrected resampled t (``corrected-resampled-t``).
"""

from __future__ import annotations

from evalmc.lessons.base import Lesson, Published, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick, rates

SPLITS = (2, 5, 15, 50)
TITLE = "More random splits make the resampled t-test worse: 15 splits, 4x the false wins"


def _compute(n_reps, seed, n_jobs=1):
    return rates("cv-regression", ["resampled-t", "corrected-resampled-t"],
                 {"n": 100, "scheme": "random", "test_share": 0.1, "j": list(SPLITS)},
                 n_reps, seed, n_jobs)


def _headline(frame):
    return pick(frame, "size of the resampled t-test over 15 random splits", j=15,
                criterion="resampled-t")


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=11)
    curves(ax, frame, "j", "rate", "criterion", err="mcse",
           labels={"resampled-t": "t over splits, as if independent",
                   "corrected-resampled-t": "Nadeau-Bengio corrected t"},
           xlabel="random train/test splits of one data set (J)",
           ylabel="false positive rate", logx=True)
    ax.set_xticks(list(SPLITS), [str(j) for j in SPLITS])
    level(ax, 0.05)
    return finish(fig)


LESSON = Lesson(
    id="resampled-t",
    name="The resampled t-test",
    title=TITLE,
    question="I split my data set at random into train and test 15 times, and ran a paired "
             "t-test on the 15 differences in test error. More splits, more evidence?",
    predict=("When the two models are equally good, how often does the t-test over 15 "
             "random splits reject at 5%?",
             "What happens with 50 splits?"),
    answers=("About 19%: the 15 differences share most of their training data and all of "
             "their examples come from one data set, so they are far from independent.",
             "Worse, about 40%: more splits shrink the t-test's standard error toward zero, "
             "but not the real uncertainty, which comes from the one data set."),
    explanation="The variance of the mean of J split differences is sigma^2 (1/J + rho / (1 "
                "- rho)) roughly, where rho, the correlation between two splits' "
                "differences, is about n_test / n. The t-test assumes rho = 0 and divides by "
                "J; as J grows its standard error vanishes while the real one does not. "
                "Dietterich (1998) found the resampled paired t-test's type I error far "
                "above 5%; Nadeau and Bengio (2003) correct the variance to (1/J + n_test / "
                "n_train) times the sample variance.",
    instead="Use the corrected resampled t-test (or the corrected repeated cross-validation "
            "t-test of Bouckaert and Frank), or Dietterich's 5x2cv test; better still, "
            "compare on several independent data sets.",
    reps={"class": 2000, "full": 20_000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(300, 0.1667),
    published=Published("far above 5% ('high type I error')", "Dietterich (1998), the "
                        "resampled paired t-test; Nadeau and Bengio (2003)"),
)
