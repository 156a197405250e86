import re

import numpy as np
import pandas as pd
import pytest
from figure_checks import layout_of, quick_reproduction
from scipy import stats

from evalmc.analysis.power import average_power
from evalmc.bench.registry import WORKLOADS
from evalmc.reproductions import PAPERS, bouthillier2021
from evalmc.reproductions.runner import figures

#: Targets expected to fail at every scale, for the reasons in their notes: the test's false
#: negatives with the ideal estimator (T8 (ideal), about 5% where the paper reads 30%) and at
#: Noether's k = 29 (C3).
KNOWN_MISSES = {"T8 (ideal)", "C3"}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """The quick-scale figures: CI's main job's, or computed here (figure_checks.py)."""
    return quick_reproduction("bouthillier2021", tmp_path_factory)


def test_registered():
    assert "bouthillier2021" in PAPERS
    assert [f.name for f in figures("bouthillier2021")] == ["fig6", "sensitivity", "figc1", "figi6",
                                                         "eq7", "fpbias"]


def test_quick_scale_reports_every_target_once(quick):
    out, _ = quick
    import json

    ids = [c["id"] for f in figures("bouthillier2021") for c in json.loads(
        (out / "bouthillier2021" / f"{f.name}.checks.json").read_text())["checks"]]
    assert sorted(ids) == sorted(bouthillier2021.TARGETS.ids)


def test_quick_scale_meets_every_target_but_the_known_misses(quick):
    _, checks = quick
    missed = {i for i, c in checks.items() if c.passed is False}
    assert missed == KNOWN_MISSES
    assert abs(float(checks["T9"].ours.split(";")[0]) - 0.17) < 0.03  # the notes' ~17%
    assert checks["T9"].passed is None  # a finding beside "cannot guarantee a nominal control"
    assert abs(float(checks["C3"].ours) - 0.169) < 1e-3  # exact: no Monte Carlo error
    assert checks["C3 k"].ours == "55"  # quick grid: k in steps of 5


def test_figures_read_cleanly(quick):
    out, _ = quick
    problems = layout_of("bouthillier2021", out)
    assert not any(problems.values()), problems


def _fig6_with(estimator, criterion, p_ab, rate):
    """Figure 6 data where every rate is 0 except `rate` at one point (simulated and exact)."""
    grid = bouthillier2021._p_grid(5)
    rows = [{"estimator": e, "criterion": c, "source": s, "p_ab": p, "rate": 0.0, "mcse": 0.01,
             "task_sd": 0.0}
            for e in ("ideal", "biased") for c in bouthillier2021.LABELS for s in
            ("simulation", "exact") for p in grid]
    data = pd.DataFrame(rows)
    hit = ((data["estimator"] == estimator) & (data["criterion"] == criterion)
           & (data["p_ab"] == p_ab))
    data.loc[hit, "rate"] = rate
    return data


def test_fig6_checks_can_fail():
    checks = {c.id: c for c in bouthillier2021.check_fig6(
        _fig6_with("ideal", "prob-outperform", 0.5, 0.06), "quick")}
    assert checks["T7"].passed is False
    assert checks["T10"].passed is False  # biased false positives 0, below the ideal's
    # ideal false negatives (1 - 0) outside 0.3 +- 0.15: T8 (ideal) fails
    assert checks["T8 (ideal)"].passed is False
    checks = {c.id: c for c in bouthillier2021.check_fig6(
        _fig6_with("ideal", "prob-outperform", 0.75, 0.8), "quick")}
    assert checks["T8 (ideal)"].passed is True  # false negatives 0.2
    # false negatives 0.2 (ideal) and 1 (biased), false positives 0 (both): not above
    assert checks["T10"].passed is False


def test_fig6_t10_and_t6_edge():
    data = _fig6_with("biased", "prob-outperform", 0.75, 0.7)
    hit = ((data["estimator"] == "biased") & (data["criterion"] == "prob-outperform")
           & (data["p_ab"] == 0.5))
    data.loc[hit, "rate"] = 0.2
    ideal = ((data["estimator"] == "ideal") & (data["criterion"] == "prob-outperform")
             & (data["p_ab"] == 0.75))
    data.loc[ideal, "rate"] = 0.9
    checks = {c.id: c for c in bouthillier2021.check_fig6(data, "quick")}
    assert checks["T10"].passed is True  # 0 -> 0.2 and 0.1 -> 0.3
    # the average never concludes (rate 0): false negatives 1, at 0.9 + 0.1
    assert checks["T6 (ideal)"].passed is True and "edge" in checks["T6 (ideal)"].note


def test_mean_sd_reading_lowers_every_bias():
    ratios, read = bouthillier2021.bias_ratios(), bouthillier2021.mean_sd_ratios(10)
    for task, r in ratios.items():
        assert read[task] == pytest.approx(np.sqrt(max(r**2 - 0.1, 0.0)))
    with pytest.raises(ValueError, match="`k` must be a positive integer"):
        bouthillier2021.mean_sd_ratios(0)


def test_oracle_threshold_gives_beta_false_negatives_at_gamma():
    for k in (10, 29, 50):
        fn = 1 - average_power(0.75, k=k, delta=bouthillier2021.oracle_threshold(k))[0]
        assert fn == pytest.approx(bouthillier2021.BETA, abs=1e-12)


def test_normal_interval_decision_matches_its_definition():
    k = 50
    better = bouthillier2021.normal_interval_better(k)
    p = np.arange(k + 1) / k
    z = stats.norm.ppf(0.975)
    for w in range(k + 1):
        lo = p[w] - z * np.sqrt(p[w] * (1 - p[w]) / k)
        hi = p[w] + z * np.sqrt(p[w] * (1 - p[w]) / k)
        assert better[w] == float(lo > 0.5 and hi > 0.75)
    assert int(np.argmax(better)) == 32 and better[32:].all()  # p = 0.64: lower end 0.507


def test_report_and_files(quick):
    out, _ = quick
    report = (out / "REPORT.md").read_text()
    row = r"\| T1 \| Noether N at gamma = 0.75.* \| 29 \| 29 \| ±0 \| target \| pass \|"
    assert re.search(row, report)
    for name in ("fig6", "figc1", "figi6", "eq7", "fpbias"):
        assert (out / "bouthillier2021" / f"{name}.png").stat().st_size > 1000


def test_fig6_simulation_agrees_with_the_exact_curves(quick):
    """Every simulated rate of the three criteria within 4 MCSE of its exact value."""
    import pandas as pd

    out, _ = quick
    data = pd.read_csv(out / "bouthillier2021" / "fig6.csv")
    sim = data[data["source"] == "simulation"].set_index(["estimator", "criterion", "p_ab"])
    exact = data[(data["source"] == "exact") & (data["criterion"] != "oracle")].set_index(
        ["estimator", "criterion", "p_ab"])
    joined = exact.merge(sim, left_index=True, right_index=True, suffixes=("", "_sim"))
    assert len(joined) == len(exact)
    # A binomial test of each simulated count against its exact rate (130 points, so a
    # per-point level of 1e-4). The biased rate is a mean over 5 case studies of n studies
    # each: its count is tested as Binomial(5 n, mean rate), whose variance bounds the true one.
    n = 300 * np.where(joined.index.get_level_values("estimator") == "biased", 5, 1)
    counts = np.round(joined["rate_sim"].to_numpy() * n).astype(int)
    pvalues = [stats.binomtest(c, m, min(max(p, 0.0), 1.0)).pvalue
               for c, m, p in zip(counts, n, joined["rate"], strict=True)]
    assert min(pvalues) > 1e-4


def test_bench_workload_sides_agree():
    ours, peer = WORKLOADS["fig6-outperform"].load()()
    rate = float(ours(small=True).split()[-1])
    ref = float(peer(small=True).split()[-1])
    assert abs(rate - ref) <= 4 * np.sqrt(2 * 0.25 / 2000)
