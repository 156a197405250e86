"""Correct-sign power (Card et al. 2020): rejections whose estimate has the effect's sign."""

import io
import json
from contextlib import redirect_stdout

import numpy as np
import pytest
from scipy import stats

from evalmc import run_study
from evalmc.cli import main
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
