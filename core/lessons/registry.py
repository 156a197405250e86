"""The lessons, one row each: its id, the one-line summary the gallery's index shows, the module
defining it, and whether it grades a student's test. Like every registry
(:mod:`evalmc.registry`), it imports no numerical library: ``evalmc lesson list`` reads it.
"""

from __future__ import annotations

from evalmc.registry import Entry, Registry


def _lesson(name: str, module: str, summary: str, grades: bool = False) -> Entry:
    return Entry(name, f"evalmc.lessons.{module}:LESSON", summary, facts={"grades": grades})


LESSONS = Registry("lesson", [
    _lesson("single-run", "single_run", "one run each decides 'A beats B' by luck: its false "
            "positives and misses beside the average's (Bouthillier et al. 2021)", grades=True),
    _lesson("boo-n", "boo_n", "reporting the best of m runs rewards making many runs; "
            "the Boo_n estimate does not climb with m (Bajgar et al. 2018)"),
    _lesson("mean-sd-skewed", "mean_sd", "mean +- sd of skewed or bimodal results claims "
            "results no run reached (Giles and Lawrence 1997)"),
    _lesson("snooping", "snooping", "choosing the best setting on the test set makes it "
            "'significant'; a fresh test set does not (Giles and Lawrence 1997)"),
    _lesson("student-t", "student_t", "Student's t-test with unequal variances and unequal "
            "numbers of runs rejects far too often; Welch's does not", grades=True),
    _lesson("resampled-t", "resampled_t", "the t-test over random train/test splits is very "
            "liberal; the corrected resampled t is not (Dietterich 1998; Nadeau and Bengio "
            "2003)"),
    _lesson("rerun", "rerun", "re-running the experiment until the t-test is significant "
            "turns 5% into 1 - 0.95^k"),
    _lesson("multiplicity", "multiplicity", "many pairs of models on many data sets: one "
            "uncorrected 'win' is expected; Holm's correction keeps 5%"),
    _lesson("winners-curse", "winners_curse", "the best of N variants overstates its own "
            "gain: the winner's curse (type-M error)"),
    _lesson("clustered-items", "clustered", "questions in clusters: a z-test treating them "
            "as independent is liberal; the clustered standard error is not"),
    _lesson("seeds-power", "seeds_power", "how many seeds are enough: the runs a paired "
            "t-test needs for 80% power, from the planner", grades=True),
    _lesson("mcnemar", "mcnemar", "two classifiers on one test set: the proportion test "
            "ignores the pairing and loses power; McNemar's does not (Dietterich 1998)"),
    _lesson("wald-small", "wald", "a normal (Wald) interval of an accuracy on a small eval "
            "covers far less than 95%; Wilson's and the Beta posterior's do not (Bowyer et "
            "al. 2025)"),
    _lesson("fifty-tries", "fifty_tries", "a research loop that tries fifty null candidates "
            "keeps a false 'win' in 35% to 89% of loops under eye-set keep rules; Bonferroni's "
            "bar, which grows with the tries, does not"),
    _lesson("rank-one-tie", "rank_one", "a leaderboard's rank 1 is often a tie: the Arena's "
            "bootstrap over battles names a false #1 when prompts are reused; the bootstrap "
            "over prompts does not"),
])
