"""The audit's recommendation: the most powerful procedure whose size is robust, or, when none
is, the reasons and what would decide them."""

import math

import numpy as np
import pandas as pd

from evalmc.study.recommend import recommend


def _tables(bradley, rates, mdds):
    names = [f"p{k}" for k in range(len(rates))]
    sizes = pd.DataFrame({"procedure": names, "rate": rates, "mcse": [0.002] * len(rates),
                          "bradley": bradley})
    power = pd.DataFrame({"procedure": np.repeat(names, 2), "delta": [0.0, 0.1] * len(names),
                          "power": [0.05, 0.5] * len(names)})
    detectable = pd.DataFrame({"procedure": names, "mdd": mdds})
    observed = pd.DataFrame({"name": names, "pvalue": np.linspace(0.01, 0.04, len(names)),
                             "low": np.nan, "high": np.nan})
    return sizes, power, detectable, observed


def test_the_most_powerful_robust_procedure_is_recommended():
    tables = _tables(["liberal", "robust", "robust", "undetermined"],
                     [0.2, 0.05, 0.049, 0.074], [0.001, 0.03, 0.02, 0.002])
    answer = recommend(*tables, alpha=0.05, n_reps=10_000)
    assert answer["procedure"] == "p2" and answer["pvalue"] == tables[3]["pvalue"][2]
    assert answer["line"].startswith("Report p2:")


def test_a_procedure_never_reaching_80_percent_ranks_last():
    tables = _tables(["robust", "robust"], [0.05, 0.05], [np.nan, 0.04])
    assert recommend(*tables, alpha=0.05, n_reps=1000)["procedure"] == "p1"


def test_none_robust_says_why_and_the_replications_that_would_decide():
    tables = _tables(["liberal", "undetermined"], [0.083, 0.072], [0.01, 0.01])
    answer = recommend(*tables, alpha=0.05, n_reps=1000, n_clusters=14)
    assert answer["procedure"] is None and math.isnan(answer["pvalue"])
    needed = math.ceil(1.959963984540054 ** 2 * 0.072 * 0.928 / 0.003 ** 2)
    assert f"about {needed:,} replications" in answer["line"]
    assert "p0 is liberal (size 0.0830)" in answer["line"] and "14 clusters" in answer["line"]
