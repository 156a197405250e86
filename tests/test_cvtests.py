import json

import numpy as np
import pandas as pd
import pytest
from figure_checks import layout_of, quick_reproduction

from evalmc.reproductions import PAPERS, cvtests
from evalmc.reproductions.runner import figures

#: Claims that do not hold on the simulated problems, for the reasons in their notes: the
#: corrections are conservative on the two stable learners and liberal on the unstable stumps
#: (J3, K2), the 10-fold t is not elevated on the stable learners and more than somewhat on the
#: stumps (K1), 5x2cv has little power on 0/1 losses where the alternative raises the noise
#: (D5 correlation, an extension row), the F test is not better on both problems (A1), and
#: 5x2cv-t is liberal on the regression (D2: 0.093 here, 0.088 at the paper scale). At the paper
#: scale B1 (5x2cv-t more replicable where it seldom rejects) misses too; the quick scale's
#: fewer data sets and shifts do not show it.
KNOWN_MISSES = {"J3", "K2", "D5 correlation", "A1", "D2"}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """The quick-scale figures: CI's main job's, or computed here (figure_checks.py)."""
    return quick_reproduction("cvtests", tmp_path_factory)


def test_registered():
    assert "cvtests" in PAPERS
    assert [f.name for f in figures("cvtests")] == ["size-j", "size-k", "tests", "replicability"]


def test_quick_scale_reports_every_target_once(quick):
    out, _ = quick
    ids = [c["id"] for f in figures("cvtests") for c in json.loads(
        (out / "cvtests" / f"{f.name}.checks.json").read_text())["checks"]]
    assert sorted(ids) == sorted(cvtests.TARGETS.ids)


def test_quick_scale_meets_every_target_but_the_known_misses(quick):
    _, checks = quick
    assert {i for i, c in checks.items() if c.passed is False} == KNOWN_MISSES
    naive = [float(x) for x in checks["J1"].ours.split("; ")]
    assert all(r > 0.1 for r in naive)  # the notes' 0.18 and 0.14 at paper scale


def test_figures_read_cleanly(quick):
    out, _ = quick
    problems = layout_of("cvtests", out)
    assert not any(problems.values()), problems


def _size_j(rate_naive, rate_corrected):
    rows = [{"problem": p, "j": j, "test_share": s, "criterion": c, "mcse": 0.003,
             "rate": rate_naive(j) if c == "resampled-t" else rate_corrected}
            for p in cvtests.SIZE_PROBLEMS for j in cvtests.J_VALUES["quick"]
            for s in cvtests.SHARES for c in ("resampled-t", "corrected-resampled-t")]
    rows += [{"problem": p, "j": 15, "test_share": s, "criterion": cvtests.CORRELATION,
              "rate": s, "mcse": 0.01} for p in cvtests.SIZE_PROBLEMS for s in cvtests.SHARES]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("naive", "corrected", "want"), [
    (lambda j: 0.05 + j / 100, 0.05, {"J1": True, "J2": True, "J3": True}),
    (lambda j: 0.05, 0.05, {"J1": False, "J2": False, "J3": True}),
    (lambda j: 0.05 + j / 100, 0.02, {"J1": True, "J2": True, "J3": False}),
])
def test_size_j_checks_can_fail(naive, corrected, want):
    got = {c.id: c.passed for c in cvtests.check_size_j(_size_j(naive, corrected), "quick")}
    assert {k: got[k] for k in want} == want


def _size_k(ten, mcse, repeated=0.05, rho_repeated=0.1):
    rows = [{"problem": p, "k": k, "criterion": c, "rate": rate, "mcse": m}
            for p in cvtests.SIZE_PROBLEMS
            for k, c, rate, m in ((2, "cv-paired-t", 0.07, 0.004), (10, "cv-paired-t", ten, mcse),
                                  (10, "corrected-repeated-cv-t", repeated, 0.004),
                                  (10, cvtests.CORRELATION, 0.0, 0.01),
                                  (10, cvtests.REPEATED_CORRELATION, rho_repeated, 0.01))]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("ten", "mcse", "passed"), [
    (0.065, 0.003, True),  # above 0.05 by 5 MCSE
    (0.055, 0.003, False),  # above 0.05, but within 2 MCSE of it: not shown elevated
    (0.080, 0.003, True),
    (0.090, 0.003, True),  # "somewhat elevated" names no upper bound (0.075 was ours)
])
def test_k1_judges_somewhat_elevated_with_the_monte_carlo_error(ten, mcse, passed):
    k1 = cvtests.check_size_k(_size_k(ten, mcse), "quick")[0]
    assert k1.id == "K1" and k1.passed is passed


@pytest.mark.parametrize(("repeated", "rho", "cause"), [
    (0.01, 0.05, "below: two splits' correlation 0.050 (K4) is below"),
    (0.10, 0.15, "above: two splits' correlation 0.150 (K4) is above"),
])
def test_k2_names_the_correlation_that_moves_the_corrected_size(repeated, rho, cause):
    k2 = cvtests.check_size_k(_size_k(0.065, 0.003, repeated, rho), "quick")[1]
    assert k2.passed is False and cause in k2.note


def test_j3_note_counts_each_point_outside_the_band_by_its_cause():
    corrected = pd.DataFrame([
        {"problem": "cv-classification", "j": 2, "test_share": 0.1, "rate": 0.10},
        {"problem": "cv-classification", "j": 15, "test_share": 0.1, "rate": 0.01},
        {"problem": "cv-stumps", "j": 15, "test_share": 0.1, "rate": 0.09},
        {"problem": "cv-stumps", "j": 50, "test_share": 0.1, "rate": 0.05}])
    rhos = pd.DataFrame([{"problem": "cv-classification", "test_share": 0.1, "rate": 0.06},
                         {"problem": "cv-stumps", "test_share": 0.1, "rate": 0.14}])
    tied = pd.DataFrame([{"problem": "cv-classification", "j": 2, "test_share": 0.1,
                          "rate": 0.05}])
    note, explained = cvtests._outside_band(corrected, rhos, tied)
    assert explained  # every point outside the band has its cause: J3 is contradicted
    assert note.startswith("of 4 points, 1 above at J = 2")
    assert "rejection at any level" in note
    assert "1 below: two splits' correlation (J5) is below n_test / n" in note
    assert "1 above: two splits' correlation (J5) is above" in note and "(stumps: 0.090)" in note
    rhos.loc[1, "rate"] = 0.05  # the stumps' correlation no longer explains their excess
    note, explained = cvtests._outside_band(corrected, rhos, tied)
    assert not explained and "1 above (stumps: 0.090)" in note


def test_split_correlation_is_the_correction_s_rho_on_independent_test_noise():
    """With equal models the loss difference is test noise alone: two random splits share
    n_test^2 / n examples on average, so their correlation is n_test / n, the value the
    Nadeau-Bengio correction assumes."""
    class Noise:
        def fit(self, rng, n_reps):
            n, n_test, j = 100, 20, 15
            d = np.empty((n_reps, j))
            for i in range(n_reps):
                e = rng.standard_normal(n)
                for s in range(j):
                    d[i, s] = e[rng.permutation(n)[:n_test]].mean()
            return d, np.zeros_like(d), None, None

    rho, mcse = cvtests.split_correlation(Noise(), 4000)
    assert abs(rho - 0.2) <= 4 * mcse


def test_fold_correlation_of_5x2_is_zero_on_independent_test_noise():
    """The two folds of a 5x2 repetition test disjoint halves: on test noise alone their
    differences are uncorrelated."""
    class Noise:
        def fit(self, rng, n_reps):
            e = rng.standard_normal((n_reps, 5, 100))
            d = np.stack([e[..., :50].mean(axis=2), e[..., 50:].mean(axis=2)], axis=2)
            return d.reshape(n_reps, 10), np.zeros((n_reps, 10)), None, None

    rho, mcse = cvtests.split_correlation(Noise(), 4000, folds_of_5x2=True)
    assert abs(rho) <= 4 * mcse and mcse < 0.02


def test_replicability_check_names_the_test_that_beats_the_corrected_one():
    rows = [{"problem": p, "shift": 0.0, "criterion": c, "rate": 0.01 if c == "5x2cv-t" else 0.3,
             "replicability": 0.99 if c == "5x2cv-t" else 0.9, "replicability_mcse": 0.01}
            for p in cvtests.PROBLEMS for cs in cvtests.REPLICATED.values() for c in cs]
    b1, _ = cvtests.check_replicability(pd.DataFrame(rows), "quick")
    assert b1.passed is False
    assert "5x2cv-t (-0.0900, MCSE 0.0141), which rejects 0.010 of the time" in b1.note


def test_replicability_within_two_mcse_of_a_rival_is_a_tie_not_a_miss():
    rows = [{"problem": p, "shift": 0.0, "criterion": c, "rate": 0.3,
             "replicability": 0.905 if c == "5x2cv-t" else 0.9, "replicability_mcse": 0.01}
            for p in cvtests.PROBLEMS for cs in cvtests.REPLICATED.values() for c in cs]
    b1, _ = cvtests.check_replicability(pd.DataFrame(rows), "quick")
    assert b1.passed is True and "tied within 2 MCSE with" in b1.note


def test_report_rows(quick):
    out, _ = quick
    record = json.loads((out / "cvtests" / "tests.checks.json").read_text())
    assert record["title"].startswith("Dietterich 1998")
    assert (out / "cvtests" / "tests.png").stat().st_size > 1000


def _tests_table(slope_5x2=None, matched_variance=0.01):
    """A tests table whose rates grow linearly with the shift (slopes per test; 5x2cv-t's per
    problem), the exchange alternative without cv-paired-t at 0.05, and fold rows with a
    variance of 0.01 at the null."""
    slope = {"cv-paired-t": 10, "5x2cv-t": 4, "5x2cv-f": 5, "holdout-mcnemar": 3,
             "holdout-proportion": 2, "resampled-t": 10, "corrected-resampled-t": 8}
    slope_5x2 = slope_5x2 or {}
    rows = [{"problem": p, "shift": s, "criterion": c, "mcse": 0.01,
             "rate": min(0.04 + slope_5x2.get((p, c), slope[c]) * s, 1.0)}
            for p, tests, shifts in [
                *((p, [c for cs in cvtests.SCHEMES.values() for c in cs
                       if p == cvtests.CLASSIFICATION or c not in cvtests.LOSS_01],
                   cvtests.SHIFTS[p]) for p in cvtests.PROBLEMS),
                (cvtests.MATCHED, [c for cs in cvtests.MATCHED_SCHEMES.values() for c in cs],
                 cvtests.SHIFTS[cvtests.CLASSIFICATION])]
            for c in tests for s in shifts
            if not (p == cvtests.MATCHED and c == "cv-paired-t" and s == 0.05)]
    for p, shifts in [*((p, (0.0, cvtests.SHIFTS[p][-1])) for p in cvtests.PROBLEMS),
                      (cvtests.MATCHED, cvtests.SHIFTS[cvtests.CLASSIFICATION][1:])]:
        for s in shifts:
            rows += [{"problem": p, "shift": s, "criterion": cvtests.FOLD_CORRELATION,
                      "rate": -0.1, "mcse": 0.006},
                     {"problem": p, "shift": s, "criterion": cvtests.FOLD_VARIANCE,
                      "rate": matched_variance if p == cvtests.MATCHED else 0.01,
                      "mcse": 0.0002}]
    return pd.DataFrame(rows)


def test_d5_is_judged_on_the_exchange_alternative_and_reported_on_the_correlation_one():
    table = _tests_table({(cvtests.MATCHED, "5x2cv-t"): 1})
    checks = {c.id: c for c in cvtests.check_tests(table, "quick")}
    assert checks["D5"].passed is False and checks["D5 correlation"].passed is True
    assert checks["D5"].role == "target" and checks["D5 correlation"].role == "extension"
    assert checks["D5"].note.startswith("shifts 0.01, 0.02, 0.03, 0.05; 5x2cv-t minus mcnemar "
                                        "-0.020/-0.040/-0.060/-0.100 (MCSE 0.014/0.014/0.014/"
                                        "0.014); the two folds")
    assert checks["D5"].note.endswith("1.00/1.00/1.00/1.00 times the null's variance (MCSE at "
                                      "most 0.03): the null's noise within 2 MCSE at 0.01, "
                                      "0.02, 0.03, 0.05")


def test_d5_note_says_when_the_alternative_changes_the_noise():
    d5 = cvtests.check_tests(_tests_table(matched_variance=0.012), "quick")[4]
    assert d5.id == "D5" and d5.note.endswith("1.20/1.20/1.20/1.20 times the null's variance "
                                              "(MCSE at most 0.03): the null's noise within 2 "
                                              "MCSE at no shift")


def test_d4_compares_the_shifts_all_four_tests_have():
    d4 = cvtests.check_tests(_tests_table(), "quick")[3]
    assert d4.id == "D4" and d4.passed is True
    assert d4.note.startswith("shifts 0.01, 0.02, 0.03; cv-paired-t has no point at 0.05")
    assert d4.ours.startswith("cv-paired-t 0.14/0.24/0.34; 5x2cv-t")
