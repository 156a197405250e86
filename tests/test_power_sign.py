"""Correct-sign power (Card et al. 2020): rejections whose estimate has the effect's sign; and
the estimates of the classifier tests, on which it and type-S/M are judged."""

import io
import json
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalmc import run_study
from evalmc.cli import main
from evalmc.criteria import get_criterion
from evalmc.criteria.classifiers import accuracy_difference, f1_difference
from evalmc.sims.classifiers import PairedClassifiers
from evalmc.stats.exact import discordant_law, mcnemar_pvalues, rejection_rates
from evalmc.study.rates import make_design

N, SHIFT, REPS = 6, 0.4, 20_000


@pytest.fixture(scope="module")
def summary():
    """Paired t-test and sign test, n = 6, mean difference 0 and 0.4 (sd of a difference
    sqrt 2), at two levels."""
    res = run_study(make_design(n=N, shift=[0.0, SHIFT]), "paired-normal", ["paired-t", "sign"],
                    n_reps=REPS, seed=17, alpha=[0.05, 0.01], progress=False)
    return res.summary


def _row(summary, criterion="paired-t", shift=SHIFT, alpha=0.05):
    return summary.query(f"criterion == '{criterion}' and shift == {shift} and alpha == {alpha}"
                         ).iloc[0]


def test_fixed_seed_value(summary):
    row = _row(summary)
    assert (row["power_sign"], row["rate"]) == (1671 / REPS, 1787 / REPS)
    assert row["power_sign_mcse"] == pytest.approx(np.sqrt(1671 / REPS * (1 - 1671 / REPS)
                                                           / REPS), rel=1e-12)


@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_paired_t_matches_the_noncentral_t(summary, alpha):
    """The t statistic is noncentral t(n - 1, shift sqrt(n) / sqrt 2): the right-sign
    rejections are its upper tail beyond the two-sided critical value, exactly."""
    row = _row(summary, alpha=alpha)
    df, nc = N - 1, SHIFT * np.sqrt(N) / np.sqrt(2)
    exact = stats.nct.sf(stats.t.isf(alpha / 2, df), df, nc)
    assert abs(row["power_sign"] - exact) <= 4 * np.sqrt(exact * (1 - exact) / REPS)
    both_tails = exact + stats.nct.cdf(-stats.t.isf(alpha / 2, df), df, nc)
    assert abs(row["rate"] - both_tails) <= 4 * np.sqrt(both_tails * (1 - both_tails) / REPS)


def test_power_sign_is_rate_less_the_wrong_signs(summary):
    """Every rejection of the paired t-test has an estimate: rate - power_sign = rate *
    type_s, up to rounding."""
    has = summary["power_sign"].notna()
    assert has.sum() == 2  # paired-t's two levels under the alternative
    rows = summary[has]
    assert (rows["power_sign"] <= rows["rate"]).all()
    np.testing.assert_allclose(rows["rate"] - rows["power_sign"], rows["rate"] * rows["type_s"],
                               atol=1e-12)


def test_only_alternative_rows_of_estimating_criteria(summary):
    """Null rows, and the sign test (no estimate), have no correct-sign power."""
    assert summary.query("shift == 0")["power_sign"].isna().all()
    assert summary.query("criterion == 'sign'")["power_sign"].isna().all()
    plain = run_study(make_design(n=N), "paired-normal", ["paired-t"], n_reps=200, seed=1,
                      progress=False).summary
    assert "power_sign" not in plain.columns  # the columns appear only when some row has them


def test_no_rejection_is_zero_power_not_missing():
    """Signs counted and nothing rejected: correct-sign power 0; type-S, undefined, has no
    column."""
    res = run_study(make_design(n=3, shift=0.01), "paired-normal", ["paired-t"], n_reps=20,
                    seed=2, alpha=0.001, progress=False)
    row = res.summary.iloc[0]
    assert (row["rate"], row["power_sign"], row["power_sign_mcse"]) == (0.0, 0.0, 0.0)
    assert "type_s" not in res.summary.columns


def _calibrate(fmt):
    out = io.StringIO()
    with redirect_stdout(out):
        main(["calibrate", "--scenario", "paired-normal", "--param", "n=6", "--param",
              f"shift={SHIFT}", "--criterion", "paired-t", "--reps", "400", "--seed", "3",
              "--quiet", "--format", fmt])
    return out.getvalue()


def test_csv_and_json_show_it_the_table_does_not():
    """The console table keeps its columns (those of the README's examples)."""
    assert "power_sign" not in _calibrate("table")
    assert "type_s" in _calibrate("table")
    record, = json.loads(_calibrate("json"))
    assert record["power_sign"] <= record["rate"]
    assert record["power_sign_mcse"] > 0
    assert "power_sign,power_sign_mcse" in _calibrate("csv").splitlines()[0]


# The classifier tests: each estimates the difference it tests, in the sign of the effect.

DCERR_TESTS = ("proportion", "mcnemar", "mcnemar-uncorrected", "mcnemar-exact", "mcnemar-midp",
               "bootstrap-dcerr(n_boot=999)")


@pytest.mark.parametrize("name", [*DCERR_TESTS, "bootstrap-df1(n_boot=999)"])
def test_a_clearly_better_gives_positive_estimates_of_the_effect(name):
    """A's TPR 0.9 against B's 0.8 (prevalence 0.5): A better by 0.05 in accuracy and by
    0.0579 in F1, the effect of the scenario of each test's measure. The estimates are
    positive, and those of the accuracy difference (unbiased) average the effect within 4
    MCSE."""
    measure = "df1" if name.startswith("bootstrap-df1") else "dcerr"
    scenario = PairedClassifiers(n=2000, tpr_a=0.9, measure=measure)
    assert scenario.effect > 0.04
    batch = scenario.draw(np.random.default_rng(4), 400)
    estimate = get_criterion(name)(batch, np.random.default_rng(5)).estimate
    assert (estimate > 0).all()
    if measure == "dcerr":
        np.testing.assert_array_equal(estimate, accuracy_difference(batch.counts))
        mcse = estimate.std(ddof=1) / np.sqrt(estimate.size)
        assert abs(estimate.mean() - scenario.effect) <= 4 * mcse
    else:
        np.testing.assert_array_equal(estimate, f1_difference(batch.counts))


def test_accuracy_difference_is_b_errors_less_a_errors():
    counts = np.array([[10, 3, 8, 29, 12, 2, 9, 27]])  # A wrong: 10 + 3 + 12 + 2, B: 10 + 8
    assert accuracy_difference(counts)[0] == ((10 + 8 + 12 + 9) - (10 + 3 + 12 + 2)) / 100


@pytest.fixture(scope="module")
def classifiers():
    """A slightly better (TPR 0.85 against 0.8) on 60 examples, each measure; small enough
    for wrong signs."""
    design = make_design(n=60, tpr_a=0.85, measure=["dcerr", "df1"])
    exact = run_study(design, "paired-classifiers", DCERR_TESTS, n_reps=REPS, seed=27,
                      progress=False)
    # the bootstrap's rows need only signs and a defined type M: 2,000 replications suffice
    boot = run_study(design, "paired-classifiers", ["bootstrap-df1(n_boot=999)"],
                     n_reps=2_000, seed=27, progress=False)
    return pd.concat([exact.summary, boot.summary], ignore_index=True)


def test_classifier_rows_get_sign_errors_of_their_own_measure(classifiers):
    """Type-S/M and correct-sign power where the test's estimate is the scenario's effect:
    the tests of dCerr under 'dcerr', the test of dF1 under 'df1'."""
    own = classifiers["measure"].eq("df1") == classifiers["criterion"].str.startswith(
        "bootstrap-df1")
    assert classifiers["truth"].eq("alternative").all()
    for column in ("power_sign", "type_s", "type_m"):
        assert classifiers.loc[own, column].notna().all()
        assert classifiers.loc[~own, column].isna().all()
    rows = classifiers[own]
    np.testing.assert_allclose(rows["rate"] - rows["power_sign"], rows["rate"] * rows["type_s"],
                               atol=1e-12)
    assert (rows["type_s"] > 0).all() and (rows["type_m"] > 1.5).all()  # 60 examples: noisy
    mcnemar = rows.query("criterion == 'mcnemar' and measure == 'dcerr'").iloc[0]
    assert (mcnemar["power_sign"], mcnemar["rate"]) == (672 / REPS, 750 / REPS)
    assert (mcnemar["type_s"], round(mcnemar["type_m"], 4)) == (78 / 750, 5.6098)


@pytest.mark.parametrize("name", ["mcnemar", "mcnemar-uncorrected", "mcnemar-exact",
                                  "mcnemar-midp"])
def test_mcnemar_power_sign_and_type_s_match_exact_enumeration(classifiers, name):
    """Summed over every outcome (n01, n10) of the 60 examples: the rejections with n10 > n01
    (A's accuracy above B's, the effect's sign) and those with n10 < n01."""
    row = classifiers.query(f"criterion == '{name}' and measure == 'dcerr'").iloc[0]
    scenario = PairedClassifiers(n=60, tpr_a=0.85)
    cells = scenario.cells
    n01, n10, prob = discordant_law(60, cells[1] + cells[5], cells[2] + cells[6])
    pvalues = mcnemar_pvalues(n01, n10)[name]
    right = rejection_rates(pvalues[n10 > n01], prob[n10 > n01], 0.05)
    wrong = rejection_rates(pvalues[n10 < n01], prob[n10 < n01], 0.05)
    assert abs(row["power_sign"] - right) <= 4 * np.sqrt(right * (1 - right) / REPS)
    type_s = wrong / (right + wrong)
    n_rejected = row["rate"] * REPS
    assert abs(row["type_s"] - type_s) <= 4 * np.sqrt(type_s * (1 - type_s) / n_rejected)
