import json

import numpy as np
import pandas as pd
import pytest
from figure_checks import layout_of, quick_reproduction
from scipy import stats

from evalmc.reproductions import bajgar2018
from evalmc.reproductions.runner import figures, reproduce


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """The quick-scale figures: CI's main job's, or computed here (figure_checks.py)."""
    return quick_reproduction("bajgar2018", tmp_path_factory)


def test_every_target_is_reported_once(quick):
    out, checks = quick
    ids = [c["id"] for f in figures("bajgar2018") for c in json.loads(
        (out / "bajgar2018" / f"{f.name}.checks.json").read_text())["checks"]]
    assert sorted(ids) == sorted(bajgar2018.TARGETS.ids)
    report = (out / "REPORT.md").read_text()
    for name in ("boon-normal", "fig1", "fig2", "fig3"):
        assert (out / "bajgar2018" / f"{name}.png").exists()
        assert f"### {name}:" in report


def test_quick_scale_outcomes(quick):
    _, checks = quick
    missed = {i for i, c in checks.items() if c.passed is False}
    # the fixed pools' ranges are too narrow for a Gaussian (B14, B15), and fit it read as the
    # runs' 5th and 95th percentiles (B14 5-95%, B15 5-95%), which the random pool, fitted to
    # the minimum and maximum, misses (B12 5-95%); Boo_5 rises with m in panel (b) (B13), by
    # less than best single (B13 vs best)
    assert missed == {"B13", "B14", "B15", "B12 5-95%"}
    assert checks["B13 vs best"].passed and checks["B16"].ours.startswith("outside at m = ")
    # the Scott kernel would lift the best of 20 runs above the pool's best run (note only)
    smoothed = float(checks["B5"].note.rsplit(" ", 1)[1])
    assert smoothed > 64.0 > float(checks["B5"].ours)
    assert {checks[i].role for i in ("B3", "B4", "B5", "B10", "B11", "B12", "B14", "B15",
                                     "B12 5-95%", "B14 5-95%", "B15 5-95%")} == {"calibration"}


def test_figures_read_cleanly(quick):
    out, _ = quick
    problems = layout_of("bajgar2018", out)
    assert not any(problems.values()), problems


def test_fig2_has_boo5_only_from_n_runs(quick):
    out, _ = quick
    data = pd.read_csv(out / "bajgar2018" / "fig2.csv")
    assert data.loc[data["statistic"] == "Boo_5", "m"].min() == bajgar2018.N
    assert data.loc[data["statistic"] == "mean", "m"].min() == 1


def test_smoothed_bootstrap_fixed_seed():
    val, test = bajgar2018.finite_pool("asreader-random", 197)
    x, y = bajgar2018.smoothed_bootstrap(val, test, np.random.default_rng(1), (3,))
    np.testing.assert_allclose(x, [60.73865438, 62.61403447, 63.09091086], atol=1e-6)
    np.testing.assert_allclose(y, [62.82677147, 62.90442838, 63.38462633], atol=1e-6)


def test_smoothed_bootstrap_follows_the_kernel_density_estimate():
    """Mean and covariance of the draws against scipy's gaussian_kde: the pool's mean, and the
    pool's covariance (ddof 0) plus the kernel's, within 4 standard errors."""
    val, test = bajgar2018.finite_pool("resnet-fixed", 75)
    n = 400_000
    x, y = bajgar2018.smoothed_bootstrap(val, test, np.random.default_rng(3), (n,))
    kde = stats.gaussian_kde(np.vstack([val, test]))
    cov = np.cov(np.vstack([val, test]), ddof=0) + kde.covariance
    draws = np.vstack([x, y])
    for i in range(2):
        assert abs(draws[i].mean() - kde.dataset[i].mean()) <= 4 * np.sqrt(cov[i, i] / n)
    got = np.cov(draws)
    ref = np.cov(kde.resample(n, seed=4))
    for i, j in ((0, 0), (1, 1), (0, 1)):
        # the sd of a sample (co)variance is at most about sqrt(2 / n) var for these shapes
        se = np.sqrt(2 / n) * np.sqrt(cov[i, i] * cov[j, j]) * 2
        assert abs(got[i, j] - cov[i, j]) <= 4 * se
        assert abs(ref[i, j] - cov[i, j]) <= 4 * se


def test_finite_pool_is_fixed_and_read_only():
    a = bajgar2018.finite_pool("asreader-random", 197)
    assert a[1].size == 197 and not a[1].flags.writeable
    bajgar2018.finite_pool.cache_clear()
    b = bajgar2018.finite_pool("asreader-random", 197)
    np.testing.assert_array_equal(a[1], b[1])


def _fig2(boo_drift):
    rows = []
    for panel, (name, m_max, _) in bajgar2018.PANELS.items():
        for m in sorted({1, 5, 20, 50, m_max}):
            for stat, mean, width in (("best single", 60 + m / 100, 3.0),
                                      ("Boo_5", 60 + boo_drift * m / 100, 1.0),
                                      ("mean", 60.0, 2.0)):
                if stat == "Boo_5" and m < 5:
                    continue
                rows.append({"panel": panel, "pool": name, "m": m, "statistic": stat,
                             "mean": mean, "mean_smoothed": mean + 0.1,
                             "ci_low": mean - width, "ci_high": mean + width})
    return pd.DataFrame(rows)


def test_fig2_checks_can_fail():
    ok = {c.id: c for c in bajgar2018.check_fig2(_fig2(0.05), "quick")}
    assert ok["B13"].passed and ok["B6"].passed and ok["B7"].passed
    assert ok["B13 vs best"].passed and ok["B16"].ours == "inside at every m"
    slow = {c.id: c for c in bajgar2018.check_fig2(_fig2(0.5), "quick")}
    assert slow["B13"].passed is False and slow["B13 vs best"].passed  # +0.48 vs +0.95
    drifting = {c.id: c for c in bajgar2018.check_fig2(_fig2(2.0), "quick")}
    assert drifting["B13"].passed is False and drifting["B13 vs best"].passed is False


def test_fig2_flags_a_mean_outside_its_interval():
    data = _fig2(0.05)
    low = (data["panel"] == "b") & (data["statistic"] == "best single") & (data["m"] >= 20)
    data.loc[low, "ci_low"] = data.loc[low, "mean"] + 0.5
    checks = {c.id: c for c in bajgar2018.check_fig2(data, "quick")}
    assert checks["B16"].ours == "outside at m = 20, 50, 100"
    assert bajgar2018._ranges([45, 46, 47, 60]) == "45-47, 60"
    crosses = [line for line in bajgar2018.plot_fig2(data).axes[1].lines
               if line.get_marker() == "x"]
    assert len(crosses) == 1 and list(crosses[0].get_xdata()) == [20, 50, 100]


def test_gaussian_range_cdf_against_simulation():
    x = np.random.default_rng(5).standard_normal((20_000, 74))
    ranges = x.max(axis=1) - x.min(axis=1)
    for width in (4.0, 4.75, 5.5):
        p = bajgar2018.gaussian_range_cdf(74, width)
        assert abs((ranges <= width).mean() - p) <= 4 * np.sqrt(p * (1 - p) / 20_000)
    assert bajgar2018.gaussian_range_cdf(74, 3.134) < 1e-3  # the paper's ResNet range
    with pytest.raises(ValueError, match="`runs` must be an integer of at least 2"):
        bajgar2018.gaussian_range_cdf(1, 1.0)


def test_unknown_figure_is_refused():
    with pytest.raises(ValueError, match="unknown figure 'fig9' of bajgar2018"):
        reproduce("bajgar2018.fig9")


def test_plain_sampling_draws_only_the_pools_runs():
    val, test = bajgar2018.finite_pool("asreader-random", 197)
    batch = bajgar2018.PoolRuns(m=7, pool_size=197, kernel="none").draw(
        np.random.default_rng(3), 50)
    assert np.isin(batch.a, test).all() and np.isin(batch.a_val, val).all()
    pairs = set(zip(val, test, strict=True))
    assert all(p in pairs for p in zip(batch.a_val.ravel(), batch.a.ravel(), strict=True))
    with pytest.raises(ValueError, match="`kernel` must be one of 'scott', 'none'"):
        bajgar2018.PoolRuns(kernel="silverman")
