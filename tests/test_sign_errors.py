"""Type-S and type-M errors (Gelman and Carlin 2014) of criteria that estimate the effect."""

import numpy as np
import pytest
from scipy import stats

from evalmc import run_study
from evalmc.study.rates import make_design


def _study(criteria=("paired-t", "wilcoxon", "bootstrap-mean-paired-percentile"), **kwargs):
    return run_study(make_design(n=6, shift=[0.0, 0.4]), "paired-normal", list(criteria),
                     n_reps=kwargs.pop("n_reps", 20_000), seed=17, alpha=[0.05, 0.01], **kwargs)


def test_paired_t_errors_match_a_plain_simulation():
    """Paired-normal, n = 6, mean difference 0.4 (sd of a difference sqrt 2): scipy's paired
    t-test on independent draws gives type-S and type-M within 4 combined MCSEs. Only the
    paired t-test runs: its rows do not depend on the other criteria (its own stream), and the
    9,999-resample bootstrap would take 95% of the time."""
    res = _study(criteria=["paired-t"])
    row = res.summary.query("criterion == 'paired-t' and shift == 0.4 and alpha == 0.05")
    rng = np.random.default_rng(99)
    d = rng.normal(0.4, np.sqrt(2), (20_000, 6))
    test = stats.ttest_1samp(d, 0, axis=1)
    sig = test.pvalue <= 0.05
    est = d.mean(axis=1)[sig]
    ref_s, ref_m = np.mean(est < 0), np.mean(np.abs(est) / 0.4)
    ref_s_se = np.sqrt(ref_s * (1 - ref_s) / sig.sum())
    ref_m_se = np.std(np.abs(est) / 0.4, ddof=1) / np.sqrt(sig.sum())
    ours = row.iloc[0]
    assert abs(ours["type_s"] - ref_s) <= 4 * np.hypot(ours["type_s_mcse"], ref_s_se)
    assert abs(ours["type_m"] - ref_m) <= 4 * np.hypot(ours["type_m_mcse"], ref_m_se)
    assert ours["type_s"] > 0 and ours["type_m"] > 2  # small studies exaggerate


@pytest.fixture(scope="module")
def small():
    """The three criteria at 2000 replications (two blocks per condition), values kept."""
    return _study(n_reps=2000, keep_values=True)


def test_tallies_equal_the_kept_estimates(small):
    res = small
    summary = res.summary
    for (cid, key), result in res.outcomes.items():
        cond = res.conditions[cid]
        if cond.effect == 0 or result.estimate is None:
            continue
        for alpha in (0.05, 0.01):
            sig = result.decisions(alpha)
            ratio = np.abs(result.estimate[sig]) / cond.effect
            row = summary[(summary["condition_id"] == cid) & (summary["criterion"] == key)
                          & (summary["alpha"] == alpha)].iloc[0]
            assert row["type_s"] == np.mean(result.estimate[sig] < 0)
            assert row["type_m"] == pytest.approx(ratio.mean(), abs=1e-6)
            assert row["type_m_mcse"] == pytest.approx(
                ratio.std(ddof=1) / np.sqrt(sig.sum()), rel=1e-4)


def test_errors_do_not_depend_on_workers_or_the_cache(small, tmp_path):
    one = small.summary
    two = _study(n_reps=2000, n_jobs=2, cache=tmp_path).summary
    again = _study(n_reps=2000, cache=tmp_path).summary
    for other in (two, again):
        np.testing.assert_array_equal(one[["type_s", "type_m", "type_m_mcse"]].to_numpy(),
                                      other[["type_s", "type_m", "type_m_mcse"]].to_numpy())


def test_only_alternative_rows_of_estimating_criteria_have_them(small):
    summary = small.summary
    has = summary["type_m"].notna()
    assert not has[summary["shift"] == 0].any()
    assert not has[summary["criterion"] == "wilcoxon"].any()
    assert has[(summary["shift"] > 0) & (summary["criterion"] == "paired-t")].all()
    plain = run_study(make_design(n_a=5, n_b=5, shift=1.0), "normal", ["mann-whitney"],
                      n_reps=500, seed=1).summary
    assert "type_s" not in plain.columns


def test_fixed_seed_regression(small):
    summary = small.summary
    row = summary.query("criterion == 'bootstrap-mean-paired-percentile' and shift == 0.4 "
                        "and alpha == 0.05").iloc[0]
    assert round(row["rate"] * 2000) == 462
    assert (row["type_s"], round(row["type_m"], 6)) == (38 / 462, 2.819194)


def test_capped_ratios_are_counted_and_said():
    """An effect near 0: |estimate / effect| above the cap is counted as the cap; the summary
    says how many, gives no MCSE to the lower bound, and warns."""
    from evalmc.engine.tallies import RATIO_CAP

    with pytest.warns(RuntimeWarning, match="type_m is a lower bound"):
        res = run_study(make_design(n_a=10, shift=[1e-6, 0.5]), "normal", ["welch-t"],
                        n_reps=2000, seed=1, keep_values=True)
        summary = res.summary
    for cid, cond in res.conditions.items():
        result = res.outcomes[(cid, "welch-t")]
        sig = result.decisions(0.05)
        capped = int((np.abs(result.estimate[sig] / cond.effect) > RATIO_CAP).sum())
        row = summary[summary["condition_id"] == cid].iloc[0]
        if cond.effect < 1e-3:
            assert capped > 0 and row["type_m_capped"] == capped
            assert np.isnan(row["type_m_mcse"]) and row["type_m"] <= RATIO_CAP
        else:
            assert capped == 0 and np.isnan(row["type_m_capped"])
            assert row["type_m_mcse"] > 0
