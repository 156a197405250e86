"""Cluster-robust tests and intervals of mean(A - B) for few clusters: CR1 and CR2 with t(G - 1),
CR2 with Bell-McCaffrey degrees of freedom, the wild cluster bootstrap; against statsmodels,
the general matrix formulas, clubSandwich's closed forms and wildboottest, and their sizes at
14 clusters."""

import warnings
from pathlib import Path

import naive
import numpy as np
import pytest
from scipy import stats

from evalmc import make_design, run_estimation, run_study
from evalmc.criteria import cluster_robust, get_criterion
from evalmc.estimators.intervals import get_estimator
from evalmc.sims.base import Batch
from evalmc.sims.items import ClusteredBatch
from evalmc.stats.mcse import wilson_interval

T_TESTS = ["cr1-t", "cr2-t", "cr2-bm"]
NEW = [*T_TESTS, "wild-cluster-bootstrap", "wild-cluster-bootstrap(weights=webb)"]
INTERVALS = ["cr1-t-interval", "cr2-t-interval", "cr2-bm-interval", "wild-cluster-interval",
             "wild-cluster-interval(weights=webb)"]
UNEQUAL = (2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 40, 50, 80)  # 14 clusters, 280 items


def _data(rng, sizes, reps=1, binary=False):
    """Paired scores with a shared cluster effect on the differences, continuous or 0/1."""
    n, g = sum(sizes), len(sizes)
    shift = np.repeat(rng.normal(0, 0.5, (reps, g)), sizes, axis=1)
    if binary:
        a = (rng.random((reps, n)) < 0.6 + 0.3 * np.tanh(shift)).astype(float)
        b = (rng.random((reps, n)) < 0.6).astype(float)
    else:
        a, b = rng.normal(0.1, 1, (reps, n)) + shift, rng.normal(0, 1, (reps, n))
    return ClusteredBatch(a, b, paired=True, cluster_sizes=sizes), np.repeat(np.arange(g), sizes)


SETS = [((6,) * 10, False), ((6,) * 10, True), ((3, 1, 5, 2, 4, 5, 9, 1), False),
        ((3, 1, 5, 2, 4, 5, 9, 1), True), (UNEQUAL, True), ((20,) * 14, False)]


@pytest.mark.parametrize(("sizes", "binary"), SETS)
def test_cr1_is_statsmodels_cluster_robust_ols_with_t(sizes, binary):
    """statsmodels' OLS of d on a constant, ``cov_type='cluster'`` (G/(G-1) (N-1)/(N-K)) and
    ``use_t=True`` (t with G - 1 df): its standard error, p-value and 95% interval."""
    import statsmodels.api as sm

    batch, groups = _data(np.random.default_rng(sum(sizes)), sizes, reps=4, binary=binary)
    res = get_criterion("cr1-t")(batch, None)
    interval = get_estimator("cr1-t-interval")(batch, None)
    _, sizes_arr, _, resid = cluster_robust.cluster_fit(batch)
    se = cluster_robust.cluster_se(resid, sizes_arr, "CR1")
    for i in range(4):
        d = batch.a[i] - batch.b[i]
        fit = sm.OLS(d, np.ones(len(d))).fit(cov_type="cluster", use_t=True,
                                              cov_kwds={"groups": groups})
        assert se[i] == pytest.approx(fit.bse[0], rel=1e-10)
        assert res.pvalue[i] == pytest.approx(fit.pvalues[0], rel=1e-9)
        low, high = fit.conf_int(alpha=0.05)[0]
        assert (interval.low[i], interval.high[i]) == pytest.approx((low, high), rel=1e-10)


@pytest.mark.parametrize("sizes", [(6,) * 10, (3, 1, 5, 2, 4, 5, 9, 1), UNEQUAL, (1,) * 12,
                                   (1, 1, 30, 2), (40, 2)])
def test_cr2_and_bm_df_closed_forms_are_the_matrix_formulas(sizes):
    """For the mean, ``A_g = (I - H_gg)^(-1/2)`` and the Bell-McCaffrey df reduce to the
    cluster sizes (module docstring): against the general N x N and G x G matrix formulas, and
    against clubSandwich's own closed forms (tests/testthat/test_intercept_formulas.R)."""
    batch, groups = _data(np.random.default_rng(len(sizes)), sizes)
    d = batch.a[0] - batch.b[0]
    mean, var, df = naive.cr2_matrix(d, np.ones((len(d), 1)), groups, [1.0])
    _, sizes_arr, ours, resid = cluster_robust.cluster_fit(batch)
    se = cluster_robust.cluster_se(resid, sizes_arr, "CR2")[0]
    assert (ours[0], se**2) == pytest.approx((mean, var), rel=1e-10)
    assert cluster_robust.bm_df(sizes_arr) == pytest.approx(df, rel=1e-10)
    # clubSandwich, in its notation: nj the sizes, y_bar the cluster means, N the items
    nj, n = np.asarray(sizes, float), float(sum(sizes))
    y_bar = np.array([d[groups == g].mean() for g in range(len(sizes))])
    vcr2_f = np.sum(nj**2 * (y_bar - d.mean()) ** 2 / (1 - nj / n)) / n**2
    df2_f = n**2 / (n**2 * np.sum(nj**2 / (n - nj) ** 2) - 2 * n * np.sum(nj**3 / (n - nj) ** 2)
                    + np.sum(nj**2 / (n - nj)) ** 2)
    assert (se**2, cluster_robust.bm_df(sizes_arr)) == pytest.approx((vcr2_f, df2_f), rel=1e-10)
    p = 2 * stats.t.sf(abs(mean / np.sqrt(var)), df)
    assert get_criterion("cr2-bm")(batch, None).pvalue[0] == pytest.approx(p, rel=1e-9)


def test_equal_clusters_make_the_three_t_tests_one():
    """Equal clusters: ``1 - n_g / N = (G - 1) / G``, so CR2 = CR1 and the Bell-McCaffrey df is
    G - 1; clusters of one item: the paired t-test (scipy's ttest_rel)."""
    batch, _ = _data(np.random.default_rng(3), (7,) * 9, reps=20, binary=True)
    first = get_criterion("cr1-t")(batch, None).pvalue
    for name in T_TESTS[1:]:
        np.testing.assert_allclose(get_criterion(name)(batch, None).pvalue, first, rtol=1e-10)
    assert cluster_robust.bm_df(np.full(9, 7)) == pytest.approx(8, rel=1e-12)
    rng = np.random.default_rng(4)
    plain = Batch(rng.normal(0.3, 1, (5, 15)), rng.normal(0, 1, (5, 15)), paired=True)
    expected = stats.ttest_rel(plain.a, plain.b, axis=1).pvalue
    for name in T_TESTS:
        np.testing.assert_allclose(get_criterion(name)(plain, None).pvalue, expected, rtol=1e-10)


@pytest.mark.parametrize(("name", "test"), [("cr1-t-interval", "cr1-t"),
                                            ("cr2-t-interval", "cr2-t"),
                                            ("cr2-bm-interval", "cr2-bm")])
def test_each_t_interval_is_its_test_inverted(name, test):
    batch, _ = _data(np.random.default_rng(5), UNEQUAL, reps=300, binary=True)
    est = get_estimator(name)(batch, None)
    p = get_criterion(test)(batch, None).pvalue
    excluded = (est.low > 0) | (est.high < 0)
    assert np.array_equal(excluded, p < 0.05) and 0 < excluded.sum() < 300


def _wildboottest(d, groups, n_resamples, weights, seed):
    peer = pytest.importorskip("wildboottest.wildboottest")
    boot = peer.WildboottestCL(X=np.ones((len(d), 1)), Y=d, cluster=groups, R=np.array([1.0]),
                          B=n_resamples, seed=seed, parallel=False)
    boot.get_scores(bootstrap_type="11", impose_null=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot.get_weights(weights_type=weights)
    boot.get_numer()
    boot.get_denom()
    boot.get_tboot()
    boot.get_vcov()
    boot.get_tstat()
    boot.get_pvalue()
    return boot


@pytest.mark.parametrize("sizes", [(3, 1, 5, 2, 4, 5, 9, 1), (5,) * 9])
def test_wild_bootstrap_enumerates_as_wildboottest(sizes):
    """G <= 9 and Rademacher weights: every sign vector, as wildboottest's full enumeration
    (2^G < B): the same t, the same 2^G values of |t*|, and the share of them at or above |t|
    (wildboottest counts those strictly above: the two vectors +-1 give back the data and tie
    with it up to rounding, so its p-value is ours or 2 / 2^G lower); and the same p by a plain
    loop over the items."""
    g = len(sizes)
    batch, groups = _data(np.random.default_rng(g), sizes, reps=3)
    res = get_criterion("wild-cluster-bootstrap", n_resamples=2**g)(batch, None)
    for i in range(3):
        d = batch.a[i] - batch.b[i]
        boot = _wildboottest(d, groups, 2**g + 1, "rademacher", 0)
        assert boot.B == 2**g
        assert res.statistic[i] == pytest.approx(float(boot.t_stat), rel=1e-10)
        stars = cluster_robust.wild_abs_t(cluster_robust.cluster_fit(batch)[0][i:i + 1],
                                          np.asarray(sizes), None, "rademacher", 2**g)[0]
        np.testing.assert_allclose(np.sort(np.repeat(stars, 2)), np.sort(np.abs(boot.t_boot)),
                                   rtol=1e-10)
        tb, t = np.abs(boot.t_boot), abs(float(boot.t_stat))
        ties = np.isclose(tb, t, rtol=1e-10, atol=0)
        assert ties.sum() == 2 and boot.pvalue == np.mean(tb > t)
        assert res.pvalue[i] == np.mean(tb > t) + np.mean(ties & (tb <= t))
        assert res.pvalue[i] == naive.wild_enumerated(d, groups)


@pytest.mark.parametrize("weights", ["rademacher", "webb"])
def test_wild_bootstrap_draws_agree_with_wildboottest(weights):
    """14 clusters, 9999 random draws each: p-values within 4 Monte Carlo errors of
    wildboottest's (whose |t*| > |t| differs from |t*| >= |t| only on ties, of probability 0
    with continuous scores and 14 clusters)."""
    sizes = UNEQUAL
    batch, groups = _data(np.random.default_rng(14), sizes, reps=3)
    res = get_criterion("wild-cluster-bootstrap", weights=weights, n_resamples=9999)(
        batch, np.random.default_rng(1))
    for i in range(3):
        d = batch.a[i] - batch.b[i]
        theirs = _wildboottest(d, groups, 9999, weights, 100 + i).pvalue
        p = res.pvalue[i]
        mcse = np.sqrt(max(p * (1 - p), 1e-3) * 2 / 9999)
        assert abs(p - theirs) <= 4 * mcse, (i, p, theirs)


def test_wild_bootstrap_streams_do_not_depend_on_chunks(monkeypatch):
    batch, _ = _data(np.random.default_rng(6), UNEQUAL, reps=7, binary=True)
    for weights in cluster_robust.WEIGHTS:
        test = get_criterion("wild-cluster-bootstrap", weights=weights)
        whole = test(batch, np.random.default_rng(2)).pvalue
        monkeypatch.setattr(cluster_robust, "CHUNK", 3 * 999 * 14)  # three rows at a time
        assert np.array_equal(test(batch, np.random.default_rng(2)).pvalue, whole)
        monkeypatch.undo()


def test_wild_interval_is_the_unrestricted_test_inverted():
    """The WCU interval keeps the means m0 whose ``#{|t*| >= |t(m0)|} / B`` exceeds 0.05, t*
    from the draws of the unrestricted residuals (same stream)."""
    batch, _ = _data(np.random.default_rng(7), UNEQUAL, reps=200, binary=True)
    est = get_estimator("wild-cluster-interval")(batch, np.random.default_rng(3))
    _, sizes, mean, resid = cluster_robust.cluster_fit(batch)
    stars = cluster_robust.wild_abs_t(resid, sizes, np.random.default_rng(3), "rademacher", 999)
    t0 = np.abs(mean) / cluster_robust.cluster_se(resid, sizes, "CR1")
    p0 = (stars >= t0[:, None]).mean(axis=1)
    excluded = (est.low > 0) | (est.high < 0)
    assert np.array_equal(excluded, p0 <= 0.05) and 0 < excluded.sum() < 200


def test_one_cluster_fails_and_bad_weights_are_named():
    batch = ClusteredBatch(np.ones((2, 6)), np.zeros((2, 6)), paired=True, cluster_size=6)
    for name in NEW:
        assert get_criterion(name)(batch, np.random.default_rng(0)).failed.all()
    for name in INTERVALS:
        res = get_estimator(name)(batch, np.random.default_rng(0))
        assert res.failed.all() and "fewer than two clusters" in res.errors[0]
    for make, name in ((get_criterion, "wild-cluster-bootstrap"),
                       (get_estimator, "wild-cluster-interval")):
        with pytest.raises(ValueError, match="`weights` must be one of 'rademacher', 'webb'"):
            make(f"{name}(weights=mammen)")


def test_fixed_seed_values():
    """Regression values of every new criterion and interval on one seeded draw of 14 unequal
    clusters (the llm-items model drawn plainly)."""
    a, b = naive.clustered_items_sized(np.random.default_rng(2024), 3, UNEQUAL, 0.3, 0.5, 0.5)
    batch = ClusteredBatch(a, b, paired=True, cluster_sizes=UNEQUAL)
    expected = {
        "cr1-t": [0.016488042868321746, 0.5216357958889486, 0.9274322809169492],
        "cr2-t": [0.022181085068709673, 0.5325419625193989, 0.9295237408443648],
        "cr2-bm": [0.043779577571949634, 0.5468477859479678, 0.9313023984934077],
        "wild-cluster-bootstrap": [105 / 999, 465 / 999, 961 / 999],
        "wild-cluster-bootstrap(weights=webb)": [92 / 999, 513 / 999, 929 / 999],
    }
    for name in NEW:
        p = get_criterion(name)(batch, np.random.default_rng(1)).pvalue
        np.testing.assert_allclose(p, expected[name], rtol=1e-10, err_msg=name)
    expected = {
        "cr1-t-interval": ([0.026090392758443062, -0.0407170564507633, -0.08666189635341122],
                           [0.21676675009869978, 0.07643134216504902, 0.07951903921055407]),
        "cr2-t-interval": ([0.02036985647290908, -0.04230926920310072, -0.08913522940397002],
                           [0.22248728638423376, 0.07802355491738644, 0.08199237226111288]),
        "cr2-bm-interval": ([0.004800179604290786, -0.05157884674060575, -0.10231767221652668],
                            [0.23805696325285208, 0.08729313245489145, 0.09517481507366954]),
        "wild-cluster-interval": (
            [0.0015689417521315002, -0.04180987356858036, -0.10387569261868478],
            [0.24128820110501137, 0.07752415928286607, 0.09673283547582763]),
        "wild-cluster-interval(weights=webb)": (
            [0.004426580964641505, -0.04145398860967037, -0.09892036663211264],
            [0.23843056189250134, 0.07716827432395608, 0.09177750948925549]),
    }
    for name in INTERVALS:
        res = get_estimator(name)(batch, np.random.default_rng(1))
        np.testing.assert_allclose((res.low, res.high), expected[name], rtol=1e-10,
                                   err_msg=name)


def _in_band(hits, n, low=0.025, high=0.075):
    lo, hi = wilson_interval(hits, n)
    return low <= lo and hi <= high


def test_sizes_with_14_equal_clusters():
    """llm-items, 280 items in 14 clusters, tau = 0.5: CR0 + z (clustered-z) rejects 8.4% of
    null comparisons at 5%; CR2 + t(13) (here CR1 = CR2, df = G - 1) and both wild bootstraps
    stay within Bradley's band [0.025, 0.075], their Wilson interval inside it, and CR2 + t
    is closer to 0.05 than clustered-z. The counts are fixed-seed regression values."""
    reps = 4000
    res = run_study(make_design(n_items=280, n_clusters=14, tau=0.5, icc=0.3), "llm-items",
                    ["clustered-z", *NEW], n_reps=reps, seed=1, progress=False)
    hits = {row.criterion: round(row.rate * reps) for row in res.summary.itertuples()}
    assert hits == {"clustered-z": 334, "cr1-t": 196, "cr2-t": 196, "cr2-bm": 196,
                    "wild-cluster-bootstrap": 151, "wild-cluster-bootstrap(weights=webb)": 199}
    for name in NEW:
        assert _in_band(hits[name], reps), name
    assert abs(hits["cr2-t"] / reps - 0.05) <= abs(hits["clustered-z"] / reps - 0.05)
    assert not _in_band(hits["clustered-z"], reps)


def test_sizes_with_14_unequal_clusters():
    """14 clusters of 2 to 80 items (the llm-items model drawn plainly, tau = 0.5): CR0 + z
    rejects 14.9%, CR1 and CR2 with t(13) 10.1% and 9.0%; CR2 with the Bell-McCaffrey df (5.6)
    and the wild bootstraps hold 5%, and CR2 + BM is the closest to it of the t-tests;
    fixed-seed counts as regression values."""
    reps = 4000
    a, b = naive.clustered_items_sized(np.random.default_rng(5), reps, UNEQUAL, 0.3, 0.5, 0.5)
    batch = ClusteredBatch(a, b, paired=True, cluster_sizes=UNEQUAL)
    hits = {name: int(get_criterion(name)(batch, np.random.default_rng(2)).decisions(0.05).sum())
            for name in ["clustered-z", *NEW]}
    assert hits == {"clustered-z": 595, "cr1-t": 404, "cr2-t": 358, "cr2-bm": 225,
                    "wild-cluster-bootstrap": 179, "wild-cluster-bootstrap(weights=webb)": 201}
    assert cluster_robust.bm_df(np.array(UNEQUAL)) == pytest.approx(5.5720, abs=1e-4)
    for name in ("cr2-bm", "wild-cluster-bootstrap", "wild-cluster-bootstrap(weights=webb)"):
        assert _in_band(hits[name], reps), name
    for name in ("clustered-z", "cr1-t", "cr2-t"):
        assert abs(hits["cr2-bm"] / reps - 0.05) < abs(hits[name] / reps - 0.05), name


def test_coverage_with_14_clusters():
    """The intervals of llm-items' accuracy difference (A's skill 0.7, B's 0.5; 14 clusters):
    each covers within Bradley's band [0.925, 0.975], Wilson interval inside it, where the CR0
    interval covers 92%; fixed-seed counts as regression values."""
    reps = 4000
    res = run_estimation({"n_items": [280], "n_clusters": [14], "tau": [0.5], "icc": [0.3],
                          "skill_a": [0.7]}, "llm-items", ["clustered-interval", *INTERVALS],
                         n_reps=reps, seed=1, target="effect", progress=False)
    covered = {row.estimator: round(row.coverage * reps) for row in res.summary.itertuples()}
    assert covered == {"clustered-interval": 3674, "cr1-t-interval": 3784,
                       "cr2-t-interval": 3784, "cr2-bm-interval": 3784,
                       "wild-cluster-interval": 3783, "wild-cluster-interval(weights=webb)": 3783}
    for name in INTERVALS:
        assert _in_band(covered[name], reps, 0.925, 0.975), name
    assert not _in_band(covered["clustered-interval"], reps, 0.925, 0.975)


def test_counts_of_item_types_give_the_scores_cluster_sums():
    """The audit's draws of 0/1 items as counts per cluster: the cluster sums, so every
    cluster-robust p-value, are those of the scores the counts stand for."""
    from evalmc.criteria.cluster_robust import _by_cells, _cell_sums, cluster_t
    from evalmc.criteria.items import _cluster_sums
    from evalmc.sims import get_scenario

    items = Path(__file__).parent / "examples" / "items.csv"
    model = get_scenario("item-model")(
        file=str(items), a="candidate", b="baseline", metric="correct",
        cluster="subject", sample="generation", item="question")
    batch = model.draw(np.random.default_rng(1), 20)
    assert _by_cells(batch)
    sums, sizes = _cell_sums(batch)
    scored, scored_sizes = _cluster_sums(batch)
    np.testing.assert_allclose(sums, scored, atol=1e-12)
    np.testing.assert_array_equal(sizes, scored_sizes)
    assert np.isfinite(cluster_t(batch, "CR2", "bm").pvalues()).all()
