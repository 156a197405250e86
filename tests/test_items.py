"""The two-models-on-the-same-items scenario (LLM evaluations) and its criteria."""

import naive
import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.weightstats import ztest

from evalmc import get_scenario, run_study
from evalmc.criteria import get_criterion, kernels
from evalmc.sims.base import Batch
from evalmc.sims.items import ClusteredBatch
from evalmc.study.rates import make_design

CRITERIA_NAMES = ["unpaired-z", "paired-items", "mcnemar-items", "clustered-z",
                  "cluster-bootstrap"]


def _batch(rng, reps=30, n=40, cluster_size=None):
    a = (rng.random((reps, n)) < 0.6).astype(float)
    b = (rng.random((reps, n)) < 0.55).astype(float)
    if cluster_size is None:
        return Batch(a, b, paired=True)
    return ClusteredBatch(a, b, paired=True, cluster_size=cluster_size)


def test_accuracy_and_agreement_are_the_models():
    """Accuracy Phi(skill / sqrt(sd^2 + 1 + tau^2/4)); both right with the bivariate normal
    probability (scipy), each within 4 standard errors over 400,000 items."""
    scen = get_scenario("llm-items")(n_items=1000, skill_a=0.3, skill_b=0.3, sd=1.2, rho=0.4,
                                     n_clusters=50, icc=0.2)
    batch = scen.draw(np.random.default_rng(0), 400)
    a, b = batch.a, batch.b
    acc = a.mean(axis=1)  # replications are independent: their spread gives the error
    assert abs(acc.mean() - scen.accuracy(0.3)) <= 4 * acc.std(ddof=1) / np.sqrt(400)
    both = (a * b).mean(axis=1)
    assert abs(both.mean() - naive.item_cells(0.3, 1.2, 0.4)[0]) <= \
        4 * both.std(ddof=1) / np.sqrt(400)
    assert batch.cluster_sizes == (20,) * 50 and scen.truth == "null" and scen.effect == 0


def test_the_interaction_makes_cluster_differences_alike():
    scen = get_scenario("llm-items")(n_items=1000, n_clusters=20, tau=1.0, skill_a=0.5,
                                     skill_b=0.5)
    batch = scen.draw(np.random.default_rng(1), 200)
    d = (batch.a - batch.b).reshape(200, 20, 50).mean(axis=2)
    flat = scen.__class__(n_items=1000, n_clusters=20, tau=0.0).draw(
        np.random.default_rng(1), 200)
    d0 = (flat.a - flat.b).reshape(200, 20, 50).mean(axis=2)
    # cluster means of the differences vary far more than 50 independent items allow
    assert d.var(axis=1).mean() > 3 * d0.var(axis=1).mean()


@pytest.mark.parametrize("bad", [{"n_clusters": 7}, {"n_clusters": 1}, {"icc": 1.0},
                                 {"tau": -1.0}, {"rho": 1.0}, {"n_items": 1}])
def test_bad_parameters_are_named(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=f"`{name}`"):
        get_scenario("llm-items")(**bad)


def test_unpaired_z_is_lm_evaluation_harness_formula():
    """lm-evaluation-harness: Z = (acc1 - acc2) / sqrt(se1^2 + se2^2), se = sample sd /
    sqrt(n) (scipy.stats.sem), p = 2 norm.sf(|Z|)."""
    batch = _batch(np.random.default_rng(2))
    ours = get_criterion("unpaired-z")(batch, None).pvalues()
    z = (batch.a.mean(1) - batch.b.mean(1)) / np.sqrt(stats.sem(batch.a, axis=1) ** 2
                                                      + stats.sem(batch.b, axis=1) ** 2)
    np.testing.assert_allclose(ours, 2 * stats.norm.sf(np.abs(z)), rtol=1e-12)


def test_paired_items_and_mcnemar_are_statsmodels():
    batch = _batch(np.random.default_rng(3))
    paired = get_criterion("paired-items")(batch, None).pvalues()
    exact = get_criterion("mcnemar-items")(batch, None).pvalues()
    for i, (a, b) in enumerate(zip(batch.a, batch.b, strict=True)):
        assert paired[i] == pytest.approx(ztest(a - b)[1], rel=1e-12)
        table = [[np.sum((a == 1) & (b == 1)), np.sum((a == 1) & (b == 0))],
                 [np.sum((a == 0) & (b == 1)), np.sum((a == 0) & (b == 0))]]
        assert exact[i] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)


def test_clustered_z_is_statsmodels_cluster_robust_cr0():
    import statsmodels.api as sm

    batch = _batch(np.random.default_rng(4), reps=10, n=60, cluster_size=6)
    ours = get_criterion("clustered-z")(batch, None).pvalues()
    groups = np.repeat(np.arange(10), 6)
    for i in range(10):
        d = batch.a[i] - batch.b[i]
        fit = sm.OLS(d, np.ones(60)).fit(cov_type="cluster", use_t=False,
                                          cov_kwds={"groups": groups, "use_correction": False})
        assert ours[i] == pytest.approx(fit.pvalues[0], rel=1e-10)


def test_cluster_resamples_follow_the_exact_bootstrap_law():
    """Six clusters: the law of the resampled mean over all 6^6 index tuples (plain
    enumeration) against 30,000 multinomial resamples, by a chi-square test."""
    sums = np.array([[3, -1, 0, 2, 0, -2]])
    k = 4
    values = np.arange(-k, k + 1)
    counts = np.stack([(sums == v).sum(axis=1) for v in values], axis=1)
    out = np.empty((1, 30_000))
    kernels.multinomial_ratios(np.random.default_rng(5), values[None, :].astype(float),
                               np.full((1, values.size), float(k)), counts, out)
    law = naive.bootstrap_distribution_enumerated(list(sums[0] / k))
    support = np.array(sorted(law))
    observed = np.array([np.sum(np.isclose(out[0], m)) for m in support])
    assert observed.sum() == out.size
    expected = np.array([law[m] for m in support]) * out.size
    keep = expected >= 5
    pooled_obs = np.append(observed[keep], observed[~keep].sum())
    pooled_exp = np.append(expected[keep], expected[~keep].sum())
    assert stats.chisquare(pooled_obs, pooled_exp).pvalue > 1e-3


def _chisquare_pvalue(out, law):
    """The chi-square p-value of the draws `out` against the exact `law` (value: probability),
    cells of fewer than 5 expected draws pooled."""
    support = np.array(sorted(law))
    observed = np.array([np.sum(np.isclose(out, m, rtol=0, atol=1e-12)) for m in support])
    assert observed.sum() == out.size
    expected = np.array([law[m] for m in support]) * out.size
    keep = expected >= 5
    if (~keep).any():
        observed = np.append(observed[keep], observed[~keep].sum())
        expected = np.append(expected[keep], expected[~keep].sum())
    return stats.chisquare(observed, expected).pvalue


@pytest.mark.parametrize("sizes", [(4,) * 6, (3, 1, 4, 2, 2)])
def test_cluster_pairs_follow_the_exact_bootstrap_law(sizes):
    """The cluster bootstrap of counts of item types draws its clusters two at a time (an odd
    one alone): the law of the resampled ratio over all G^G index tuples (plain enumeration)
    against 40,000 resamples, by a chi-square test, clusters of equal and unequal sizes."""
    import itertools

    g = len(sizes)
    sums = np.array([3.0, -1.0, 0.0, 2.0, 0.0, -2.0, 1.0][:g])
    law = {}
    for idx in itertools.product(range(g), repeat=g):
        ratio = round(sum(sums[i] for i in idx) / (2 * sum(sizes[i] for i in idx)), 12)
        law[ratio] = law.get(ratio, 0) + g ** -g
    out = np.empty((1, 40_000))
    kernels.cluster_resample_ratios(np.random.default_rng(6), sums[None, :],
                                    np.array(sizes, dtype=float), 2.0, out)
    assert _chisquare_pvalue(np.round(out[0], 12), law) > 1e-3


def test_cluster_picks_are_uniform_past_pairs():
    """Past 45 clusters each is drawn alone; the times cluster 0 is drawn in a resample of G
    is Binomial(G, 1/G), at 47 (pairs and one alone) and 60 clusters (alone)."""
    for g in (47, 60):
        sums = np.zeros((1, g))
        sums[0, 0] = 1.0
        out = np.empty((1, 100_000))
        kernels.cluster_resample_ratios(np.random.default_rng(g), sums, np.ones(g), 1.0, out)
        times = np.rint(out[0] * g).astype(int)
        law = {k: stats.binom.pmf(k, g, 1 / g) for k in range(g + 1)}
        assert _chisquare_pvalue(times.astype(float), law) > 1e-3


def _z(num, den):
    return 2 * stats.norm.sf(abs(num / np.sqrt(den))) if den > 0 else np.nan


@pytest.mark.parametrize(("criterion", "pvalue"), [
    ("unpaired-z", lambda n11, n10, n01, n00, n=40: _z(
        (n10 - n01) / n, ((n11 + n10) * (n01 + n00) + (n11 + n01) * (n10 + n00)) / n**2
        / (n - 1))),
    ("paired-items", lambda n11, n10, n01, n00, n=40: _z(
        (n10 - n01) / n, (n10 + n01 - (n10 - n01) ** 2 / n) / (n - 1) / n)),
    ("clustered-z", lambda n11, n10, n01, n00, n=40: _z(  # clusters of one: CR0 = 1/n^2
        (n10 - n01) / n, (n10 + n01 - (n10 - n01) ** 2 / n) / n**2)),
    ("mcnemar-items", lambda n11, n10, n01, n00: min(
        1.0, 2 * stats.binom.cdf(min(n10, n01), n10 + n01, 0.5))),
])
def test_size_on_independent_items_is_the_exact_multinomial_size(criterion, pvalue):
    """No clusters, 40 items: every table of counts enumerated under the scenario's cell
    probabilities (scipy's bivariate normal) gives the exact size; the study is within 4
    MCSEs of it."""
    cells = naive.item_cells(0.5, 1.0, 0.5)
    exact = naive.exact_item_size(40, cells, lambda *c: np.nan_to_num(pvalue(*c), nan=1.0),
                                  0.05)
    reps = 20_000
    res = run_study(make_design(n_items=40), "llm-items", [criterion], n_reps=reps, seed=6)
    rate = res.summary["rate"].iloc[0]
    assert abs(rate - exact) <= 4 * np.sqrt(exact * (1 - exact) / reps)


def test_fixed_seed_regression():
    res = run_study(make_design(n_items=200, n_clusters=[0, 10], tau=1.0), "llm-items",
                    CRITERIA_NAMES, n_reps=500, seed=7)
    counts = [round(r * 500) for r in res.summary["rate"]]
    assert list(res.summary["criterion"][:5]) == CRITERIA_NAMES
    assert counts == [7, 31, 23, 33, 28, 138, 191, 182, 46, 46]


def test_calibrate_plot_draws_a_panel_per_value_of_the_second_parameter(tmp_path):
    import subprocess
    import sys

    from matplotlib.image import imread

    png = tmp_path / "size.png"
    proc = subprocess.run(
        [sys.executable, "-m", "evalmc", "calibrate", "--scenario", "llm-items", "--param",
         "n_items=40", "--param", "n_clusters=2,4,20", "--param", "tau=0,1", "--criterion",
         "paired-items", "--criterion", "clustered-z", "--reps", "200", "--quiet", "--plot",
         str(png)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    height, width = imread(png).shape[:2]
    assert width > 1.5 * height  # two panels side by side


def test_rate_panels_layout_is_clean():
    from figure_checks import layout_problems

    from evalmc.plots import rate_panels

    res = run_study(make_design(n_items=40, n_clusters=[2, 4, 20], tau=[0.0, 1.0]),
                    "llm-items", CRITERIA_NAMES, n_reps=100, seed=1)
    fig = rate_panels(res.summary, x="n_clusters", panel="tau", title="llm-items")
    assert layout_problems(fig) == []
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) >= 5


def test_plot_needs_a_parameter_with_several_values(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "evalmc", "calibrate", "--scenario", "llm-items", "--criterion",
         "paired-items", "--plot", str(tmp_path / "x.png")], capture_output=True, text=True)
    assert proc.returncode == 2 and "several values" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_clustered_sizes_match_a_plain_simulation_with_statsmodels():
    """20 clusters of 10 items, tau = 1: CR0 z-tests by statsmodels' cluster-robust OLS and a
    percentile cluster bootstrap by index resampling, on 1500 plainly drawn sets, against our
    study of 1500; within 4 combined MCSEs."""
    import statsmodels.api as sm

    reps = 1500
    res = run_study(make_design(n_items=200, n_clusters=20, tau=1.0, icc=0.3), "llm-items",
                    ["clustered-z", "cluster-bootstrap"], n_reps=reps, seed=8)
    rng = np.random.default_rng(9)
    groups = np.repeat(np.arange(20), 10)
    z_hits = boot_hits = 0
    for a, b in naive.clustered_items(rng, reps, 200, 20, 0.3, 1.0, 0.5):
        d = a - b
        fit = sm.OLS(d, np.ones(200)).fit(cov_type="cluster", use_t=False,
                                           cov_kwds={"groups": groups, "use_correction": False})
        z_hits += fit.pvalues[0] <= 0.05
        sums = d.reshape(20, 10).sum(axis=1)
        means = sums[rng.integers(0, 20, (999, 20))].sum(axis=1) / 200
        low, high = np.quantile(means, [0.025, 0.975])
        boot_hits += low > 0 or high < 0
    for rate, hits in zip(res.summary["rate"], (z_hits, boot_hits), strict=True):
        ref = hits / reps
        assert abs(rate - ref) <= 4 * np.sqrt(rate * (1 - rate) / reps + ref * (1 - ref) / reps)


def test_unequal_clusters_and_samples():
    """Clusters of unequal size: CR0 as statsmodels' cluster-robust fit; an item scored several
    times counts by its mean; equal clusters resample as before, bit for bit."""
    import statsmodels.api as sm

    rng = np.random.default_rng(7)
    sizes = (3, 1, 5, 2, 4, 5)
    a = (rng.random((4, 40)) < 0.6).astype(float)
    b = (rng.random((4, 40)) < 0.5).astype(float)
    batch = ClusteredBatch(a, b, paired=True, cluster_sizes=sizes, n_samples=2)
    means_a, means_b = a.reshape(4, 20, 2).mean(axis=2), b.reshape(4, 20, 2).mean(axis=2)
    ours = get_criterion("clustered-z")(batch, None).pvalues()
    groups = np.repeat(np.arange(len(sizes)), sizes)
    for i in range(4):
        fit = sm.OLS(means_a[i] - means_b[i], np.ones(20)).fit(
            cov_type="cluster", use_t=False, cov_kwds={"groups": groups,
                                                        "use_correction": False})
        assert ours[i] == pytest.approx(fit.pvalues[0], rel=1e-10)
    boot = get_criterion("cluster-bootstrap")(batch, np.random.default_rng(0))
    assert boot.estimate == pytest.approx((means_a - means_b).mean(axis=1), rel=1e-12)
    equal = _batch(np.random.default_rng(8), reps=3, n=40, cluster_size=4)
    first = get_criterion("cluster-bootstrap")(equal, np.random.default_rng(1)).pvalue
    assert first.round(4).tolist() == [0.2024, 0.1964, 0.9359]  # before unequal clusters


def test_samples_are_kept_by_rows_and_joins():
    """A batch of items answered several times holds the items' means in ``a``, ``b`` and the
    samples beside them; a cut or a join keeps both in step."""
    from evalmc.sims.items import sample_scores

    rng = np.random.default_rng(9)
    a, b = (rng.random((3, 12)) < 0.5) * 1.0, (rng.random((3, 12)) < 0.5) * 1.0
    batch = ClusteredBatch(a, b, paired=True, cluster_sizes=(2, 2), n_samples=3)
    assert np.array_equal(batch.a, a.reshape(3, 4, 3).mean(axis=2))
    joined = Batch.concat([batch.rows(0, 1), batch.take(1), batch.rows(2, 3)])
    for cut, rows in ((batch.take(2), slice(2, 3)), (joined, slice(0, 3))):
        assert cut.n_samples == 3 and cut.cluster_sizes == (2, 2)
        assert np.array_equal(cut.a, batch.a[rows])
        assert np.array_equal(sample_scores(cut)[1], b[rows].reshape(-1, 4, 3))


def test_paired_samples_z_counts_every_sample_as_an_item():
    """statsmodels' one-sample z-test on the flattened per-sample differences; with one sample
    per item it is the paired z-test."""
    rng = np.random.default_rng(11)
    a, b = (rng.random((3, 60)) < 0.6) * 1.0, (rng.random((3, 60)) < 0.5) * 1.0
    sampled = ClusteredBatch(a, b, paired=True, cluster_size=4, n_samples=3)
    ours = get_criterion("paired-samples-z")(sampled, None).pvalues()
    for i in range(3):
        assert ours[i] == pytest.approx(ztest(a[i] - b[i])[1], rel=1e-10)
    single = ClusteredBatch(a, b, paired=True, cluster_size=4)
    np.testing.assert_allclose(get_criterion("paired-samples-z")(single, None).pvalues(),
                               get_criterion("paired-items")(single, None).pvalues(), rtol=1e-12)


def test_persistent_samples_repeat_the_one_sample_draw():
    """persistence = 1 draws nothing more: each of the 3 samples of an item is the score of
    the one-sample scenario from the same stream."""
    one = get_scenario("llm-items")(n_items=60, n_clusters=6, tau=0.5)
    three = get_scenario("llm-items")(n_items=60, n_clusters=6, tau=0.5, n_samples=3)
    a1 = one.draw(np.random.default_rng(3), 4).a
    batch = three.draw(np.random.default_rng(3), 4)
    assert batch.samples[0].shape == (4, 180) and batch.n_samples == 3
    assert three.sizes == (180, 180)
    assert (batch.samples[0].reshape(4, 60, 3) == a1[:, :, None]).all()
    assert (batch.a == a1).all()


def test_latent_scores_have_the_documented_covariances():
    """scores='latent': over 200 x 400 items, the correlations (products about the population
    means, over the variance T) of two samples of one item (same model), of A and B on one
    sample, and the mean difference are the module's:
    (sd^2 + tau^2/4 + persistence) / T, (sd^2 - tau^2/4 + rho persistence) / T and
    skill_a + shift - skill_b (the effect)."""
    scen = get_scenario("llm-items")(n_items=400, n_clusters=20, icc=0.4, sd=1.2, tau=0.8,
                                     rho=0.3, persistence=0.5, n_samples=2, scores="latent",
                                     shift=0.25)
    batch = scen.draw(np.random.default_rng(4), 200)
    a, b = (x.reshape(200, 400, 2) for x in batch.samples)
    total = 1.2**2 + 0.8**2 / 4 + 1
    a, b = a - 0.75, b - 0.5  # the population means, skill_a + shift and skill_b
    within = (a[:, :, 0] * a[:, :, 1]).mean(axis=1) / total  # one value per replication
    across = (a[:, :, 0] * b[:, :, 0]).mean(axis=1) / total
    for values, truth in ((within, (1.44 + 0.16 + 0.5) / total),
                          (across, (1.44 - 0.16 + 0.3 * 0.5) / total)):
        assert abs(values.mean() - truth) <= 4 * values.std(ddof=1) / np.sqrt(200)
    diff = batch.a.mean(axis=1) - batch.b.mean(axis=1)
    assert abs(diff.mean() - 0.25) <= 4 * diff.std(ddof=1) / np.sqrt(200)
    assert scen.effect == 0.25 and scen.truth == "alternative"
    assert sum(scen.variances().values()) == pytest.approx(1.0)


@pytest.mark.parametrize("bad", [{"n_samples": 0}, {"persistence": 1.5}, {"scores": "logit"}])
def test_bad_sample_parameters_are_named(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=f"`{name}`"):
        get_scenario("llm-items")(**bad)


def test_skills_parted_only_by_rounding_are_the_null():
    items = get_scenario("llm-items")(skill_a=0.7, skill_b=0.8, shift=0.1)  # 0.7 + 0.1 != 0.8
    assert items.truth == "null" and items.effect == 0.0
