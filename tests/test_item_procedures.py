"""The procedures people run on item-level evaluation results, each against its reference on
fixed inputs (sacrebleu's paired tests, Wilson's and Newcombe's intervals, Miller's z and
clustered intervals, the cluster bootstrap interval, pass@k), and each one's size or coverage
under the llm-items scenario."""

import naive
import numpy as np
import pytest
from scipy import stats
from scipy.optimize import brentq

from evalmc import run_study
from evalmc.criteria import get_criterion
from evalmc.criteria.item_procedures import passk_table
from evalmc.estimators.intervals import get_estimator
from evalmc.sims.base import Batch
from evalmc.sims.items import ClusteredBatch, sample_scores
from evalmc.study.estimation import run_estimation
from evalmc.study.rates import make_design

Z95 = stats.norm.ppf(0.975)


def item_means(batch):
    """Each item's mean over its samples, from the samples."""
    a, b = sample_scores(batch)
    return a.mean(axis=2), b.mean(axis=2)


def _mcse(p, n):
    return np.sqrt(p * (1 - p) / n)


def _items(seed, reps=6, n=60, p_a=0.6, p_b=0.5):
    rng = np.random.default_rng(seed)
    return ((rng.random((reps, n)) < p_a).astype(float),
            (rng.random((reps, n)) < p_b).astype(float))


def _sampled(seed, reps=4, n_items=30, n_samples=2):
    a, b = _items(seed, reps, n_items * n_samples)
    return ClusteredBatch(a, b, paired=True, cluster_sizes=(5, 1, 9, 3, 12),
                          n_samples=n_samples)


def _pvalue_count(p, n_resamples):
    """sacrebleu's count c above the real difference, from p = (c + 1) / (B + 1)."""
    return np.rint(p * (n_resamples + 1) - 1)


# --- sacrebleu's paired tests ---------------------------------------------------------------

@pytest.mark.parametrize(("name", "loop"), [("sacrebleu-paired-bs", naive.sacrebleu_paired_bs),
                                            ("sacrebleu-paired-ar", naive.sacrebleu_paired_ar)])
@pytest.mark.parametrize("sampled", [False, True])
def test_sacrebleu_tests_are_its_loop_within_monte_carlo_error(name, loop, sampled):
    """sacrebleu's loop transcribed with numpy (index matrices, sign masks) on the item
    means, against ours with another generator: within 4 combined binomial errors."""
    batch = _sampled(1) if sampled else Batch(*_items(1), paired=True)
    a, b = item_means(batch)
    n_resamples = 4000
    ours = get_criterion(name, n_resamples=n_resamples)(batch, np.random.default_rng(2)).pvalue
    for i in range(a.shape[0]):
        ref = loop(b[i], a[i], n_resamples, np.random.default_rng(3 + i))
        assert abs(ours[i] - ref) <= 4 * np.sqrt(2 * ref * (1 - ref) / n_resamples) + 1e-3


def test_sacrebleu_tests_are_sacrebleus_within_monte_carlo_error():
    """sacrebleu's own ``_paired_bs_test`` and ``_paired_ar_test`` with a metric whose corpus
    score is the mean of the item scores."""
    significance = pytest.importorskip("sacrebleu.significance")

    class Score:
        def __init__(self, score):
            self.score = score

    class MeanMetric:  # the three methods the tests call; an item's stats: (score, 1)
        def _extract_corpus_statistics(self, hypotheses, references):
            return [[h, 1.0] for h in hypotheses]

        def _aggregate_and_compute(self, stats_):
            total = np.sum(np.asarray(stats_, dtype=float), axis=0)
            return Score(total[0] / total[1])

        def _compute_score_from_stats(self, total):
            return Score(total[0] / total[1])

    a, b = _items(4, reps=3)
    n_resamples = 4000
    metric = MeanMetric()
    for name, test in (("sacrebleu-paired-bs", significance._paired_bs_test),
                       ("sacrebleu-paired-ar", significance._paired_ar_test)):
        ours = get_criterion(name, n_resamples=n_resamples)(Batch(a, b, paired=True),
                                                            np.random.default_rng(5)).pvalue
        for i in range(3):
            bl = metric._extract_corpus_statistics(list(b[i]), None)
            info = {"acc": (bl, significance.Result(metric._aggregate_and_compute(bl).score))}
            ref = test(info, "A", list(a[i]), None, {"acc": metric}, n_samples=n_resamples,
                       seed=6 + i)[1]["acc"].p_value
            assert abs(ours[i] - ref) <= 4 * np.sqrt(2 * ref * (1 - ref) / n_resamples) + 1e-3


@pytest.mark.parametrize("d_samples", [
    ([[1, 1], [1, 1], [0, 0], [0, 0], [1, 1]], [[0, 0], [0, 0], [0, 0], [1, 1], [0, 0]]),
    ([[1, 1], [1, 0], [0, 0], [0, 0], [1, 1]], [[0, 0], [0, 0], [0, 0], [1, 1], [0, 0]]),
])
def test_sacrebleu_counts_follow_the_exact_laws_of_five_items(d_samples):
    """Five items (two samples each): the chance that a resample's statistic exceeds the real
    difference, over all 5^5 index tuples (bootstrap) and all 2^5 sign patterns (AR), in
    fractions; our count over 200,000 resamples is binomial with it, within 4 errors. The AR
    ties at the observed |sum d| count as not above, as sacrebleu's ``>``."""
    a, b = (np.array(x, dtype=float).reshape(1, -1) for x in d_samples)
    batch = ClusteredBatch(a, b, paired=True, cluster_size=1, n_samples=2)
    d = (item_means(batch)[0] - item_means(batch)[1])[0]
    n_resamples = 200_000
    for name, exact in (("sacrebleu-paired-bs", naive.sacrebleu_bs_exceedance(d)),
                        ("sacrebleu-paired-ar", naive.sacrebleu_ar_exceedance(d))):
        p = get_criterion(name, n_resamples=n_resamples)(batch, np.random.default_rng(7)).pvalue
        rate = _pvalue_count(p[0], n_resamples) / n_resamples
        q = float(exact)
        assert abs(rate - q) <= 4 * _mcse(q, n_resamples), (name, rate, q)


def test_sacrebleu_identical_systems_give_its_smallest_pvalue():
    """Nothing is strictly above a real difference of 0: p = 1 / (B + 1), as sacrebleu."""
    batch = Batch(np.ones((1, 10)), np.ones((1, 10)), paired=True)
    for name in ("sacrebleu-paired-bs", "sacrebleu-paired-ar"):
        p = get_criterion(name, n_resamples=99)(batch, np.random.default_rng(0)).pvalue
        assert p.tolist() == [0.01]


def test_sacrebleu_fixed_seed_regression():
    batch = Batch(*_items(8, reps=3, n=200, p_b=0.57), paired=True)
    bs = get_criterion("sacrebleu-paired-bs")(batch, np.random.default_rng(9)).pvalue
    ar = get_criterion("sacrebleu-paired-ar")(batch, np.random.default_rng(9)).pvalue
    assert (bs * 1001).round().tolist() == REGRESSION_BS
    assert (ar * 10001).round().tolist() == REGRESSION_AR


REGRESSION_BS = [47, 157, 71]
REGRESSION_AR = [1031, 4022, 1299]


def _bs_asymptotic_size(alpha=0.05):
    """sacrebleu's bootstrap p for a mean difference at x standard errors from 0, in the
    normal limit: ``P(|Y| - E|Y| > x)``, Y ~ N(x, 1), ``= Phi(-E) + Phi(-2x - E)``; it is
    alpha at x*, and the size is ``2 Phi(-x*)``."""
    def pvalue(x):
        mean_abs = x * (1 - 2 * stats.norm.cdf(-x)) + 2 * stats.norm.pdf(x)
        return stats.norm.cdf(-mean_abs) + stats.norm.cdf(-2 * x - mean_abs) - alpha

    return 2 * stats.norm.cdf(-brentq(pvalue, 0.5, 5.0))


def test_sizes_on_independent_items():
    """llm-items without clusters, 1000 items: sacrebleu's AR and the pass@1 z-test within 4
    MCSEs of 0.05; sacrebleu's bootstrap, whose centred statistic makes its p-value about
    one-sided, within 4 MCSEs of its normal-limit size (about 0.11)."""
    reps = 2000
    res = run_study(make_design(n_items=1000), "llm-items",
                    ["sacrebleu-paired-ar", "passk-paired", "sacrebleu-paired-bs"],
                    n_reps=reps, seed=11, progress=False)
    rate = dict(zip(res.summary["criterion"], res.summary["rate"], strict=True))
    for name in ("sacrebleu-paired-ar", "passk-paired"):
        assert abs(rate[name] - 0.05) <= 4 * _mcse(0.05, reps), (name, rate[name])
    size = _bs_asymptotic_size()
    assert 0.10 < size < 0.12
    assert abs(rate["sacrebleu-paired-bs"] - size) <= 4 * _mcse(size, reps)


def test_sacrebleu_resamples_are_a_parameter():
    assert get_criterion("sacrebleu-paired-bs", n_resamples=50).name == \
        "sacrebleu-paired-bs(n_resamples=50)"
    with pytest.raises(ValueError, match="`n_resamples`"):
        get_criterion("sacrebleu-paired-ar(n_resamples=0)")


# --- intervals -----------------------------------------------------------------------------

def test_wilson_is_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    a, b = _items(12, reps=5, n=37)
    a[0] = 1.0  # all right: the upper end is 1 exactly
    for batch, n in ((Batch(a, b, paired=True), 37), (_sampled(13), 30)):
        res = get_estimator("wilson(level=0.9)")(batch, None)
        count = item_means(batch)[0].sum(axis=1)
        for i in range(len(count)):
            low, high = proportion_confint(count[i], n, alpha=0.1, method="wilson")
            assert res.low[i] == pytest.approx(low, rel=1e-10, abs=1e-12)
            assert res.high[i] == pytest.approx(high, rel=1e-10, abs=1e-12)
            assert res.estimate[i] == pytest.approx(count[i] / n, rel=1e-12)


def test_newcombe_diff_is_statsmodels():
    from statsmodels.stats.proportion import confint_proportions_2indep

    rng = np.random.default_rng(14)
    a = (rng.random((5, 40)) < 0.7).astype(float)
    b = (rng.random((5, 25)) < 0.4).astype(float)
    res = get_estimator("newcombe-diff")(Batch(a, b, paired=False), None)
    for i in range(5):
        low, high = confint_proportions_2indep(a[i].sum(), 40, b[i].sum(), 25,
                                               method="newcomb", compare="diff")
        assert res.low[i] == pytest.approx(low, rel=1e-10)
        assert res.high[i] == pytest.approx(high, rel=1e-10)


def _table_batch(n11, n10, n01, n00):
    a = np.repeat([1.0, 1.0, 0.0, 0.0], [n11, n10, n01, n00])[None]
    b = np.repeat([1.0, 0.0, 1.0, 0.0], [n11, n10, n01, n00])[None]
    return Batch(a, b, paired=True)


@pytest.mark.parametrize("table", [(59, 6, 16, 80), (1, 1, 7, 12), (12, 9, 2, 21), (0, 3, 1, 5),
                                   (5, 0, 0, 5), (10, 2, 1, 0)])
def test_newcombe_paired_is_the_transcription(table):
    res = get_estimator("newcombe-paired(level=0.9)")(_table_batch(*table), None)
    low, high = naive.newcombe_paired(*table, stats.norm.ppf(0.95))
    assert res.low[0] == pytest.approx(low, rel=1e-10, abs=1e-12)
    assert res.high[0] == pytest.approx(high, rel=1e-10, abs=1e-12)


def test_newcombe_paired_published_example():
    """Fagerland, Lydersen and Laake's contingencytables (Cavo et al. 2012: 59, 6, 16, 80):
    Newcombe square-and-add, estimate -0.0621, 95% CI -0.1186 to -0.0046."""
    res = get_estimator("newcombe-paired")(_table_batch(59, 6, 16, 80), None)
    assert (round(res.estimate[0], 4), round(res.low[0], 4), round(res.high[0], 4)) == \
        (-0.0621, -0.1186, -0.0046)


def test_paired_z_interval_is_statsmodels():
    from statsmodels.stats.weightstats import DescrStatsW

    for batch in (Batch(*_items(15), paired=True), _sampled(16)):
        res = get_estimator("paired-z-interval(level=0.9)")(batch, None)
        a, b = item_means(batch)
        for i in range(a.shape[0]):
            low, high = DescrStatsW(a[i] - b[i]).zconfint_mean(alpha=0.1)
            assert res.low[i] == pytest.approx(low, rel=1e-10)
            assert res.high[i] == pytest.approx(high, rel=1e-10)


def test_clustered_interval_is_statsmodels_cluster_robust_cr0():
    import statsmodels.api as sm

    batch = _sampled(17)
    res = get_estimator("clustered-interval")(batch, None)
    a, b = item_means(batch)
    groups = np.repeat(np.arange(5), batch.cluster_sizes)
    for i in range(a.shape[0]):
        fit = sm.OLS(a[i] - b[i], np.ones(30)).fit(
            cov_type="cluster", use_t=False, cov_kwds={"groups": groups,
                                                        "use_correction": False})
        low, high = fit.conf_int(alpha=0.05)[0]
        assert res.low[i] == pytest.approx(low, rel=1e-10)
        assert res.high[i] == pytest.approx(high, rel=1e-10)


def test_cluster_bootstrap_interval_is_index_resampling_of_clusters():
    """Against 40,000 plain resamples of cluster indices: each bound's rank among the plain
    replicates is within 4 binomial errors (plus the bound's atom) of its quantile."""
    a, b = _items(18, reps=1, n=120)
    sizes = np.array((5, 1, 9, 3, 12, 4, 8, 2, 10, 6))
    batch = ClusteredBatch(a, b, paired=True, cluster_sizes=sizes, n_samples=2)
    a, b = item_means(batch)
    res = get_estimator("cluster-bootstrap-interval(n_boot=40000)")(batch,
                                                                  np.random.default_rng(19))
    d = a[0] - b[0]
    offsets = np.cumsum(sizes) - sizes
    sums = np.add.reduceat(d, offsets)
    rng = np.random.default_rng(20)
    idx = rng.integers(0, len(sizes), (40_000, len(sizes)))
    plain = sums[idx].sum(axis=1) / sizes[idx].sum(axis=1)
    for bound, q in ((res.low[0], 0.025), (res.high[0], 0.975)):
        below, at = np.mean(plain < bound - 1e-12), np.mean(np.abs(plain - bound) <= 1e-12)
        tol = 4 * _mcse(q, 40_000) + 4 * np.sqrt(2) * _mcse(q, 40_000)
        assert below - tol <= q <= below + at + tol
    assert res.estimate[0] == pytest.approx(d.mean(), rel=1e-12)


def test_cluster_bootstrap_interval_regression():
    batch = ClusteredBatch(*_items(21, reps=2, n=40), paired=True, cluster_size=4)
    res = get_estimator("cluster-bootstrap-interval")(batch, np.random.default_rng(22))
    assert res.low.round(6).tolist() == REGRESSION_CBI_LOW
    assert res.high.round(6).tolist() == REGRESSION_CBI_HIGH


REGRESSION_CBI_LOW = [-0.05, -0.025]
REGRESSION_CBI_HIGH = [0.3, 0.275]


# --- pass@k --------------------------------------------------------------------------------

def test_passk_table_is_chens_function():
    for n in range(1, 12):
        for k in range(1, n + 1):
            np.testing.assert_allclose(passk_table(n, k),
                                       [naive.pass_at_k(n, c, k) for c in range(n + 1)],
                                       rtol=1e-12, atol=1e-15)


def _chen_scores(x, n_samples, k):
    c = x.reshape(x.shape[0], -1, n_samples).sum(axis=2).astype(int)
    return np.vectorize(lambda ci: naive.pass_at_k(n_samples, ci, k))(c)


def test_passk_paired_and_interval_are_z_on_chens_estimates():
    from statsmodels.stats.weightstats import DescrStatsW, ztest

    a, b = _items(23, reps=4, n=150, p_a=0.4, p_b=0.3)
    batch = ClusteredBatch(a, b, paired=True, cluster_size=1, n_samples=5)
    pa, pb = _chen_scores(a, 5, 3), _chen_scores(b, 5, 3)
    test = get_criterion("passk-paired(k=3)")(batch, None)
    interval = get_estimator("passk-interval(k=3,level=0.9)")(batch, None)
    for i in range(4):
        assert test.pvalue[i] == pytest.approx(ztest(pa[i] - pb[i])[1], rel=1e-10)
        low, high = DescrStatsW(pa[i]).zconfint_mean(alpha=0.1)
        assert interval.low[i] == pytest.approx(low, rel=1e-10)
        assert interval.high[i] == pytest.approx(high, rel=1e-10)
        assert test.estimate[i] == pytest.approx(pa[i].mean() - pb[i].mean(), rel=1e-12)


def test_passk_needs_k_samples_per_item():
    a, b = _items(24, reps=2, n=20)
    batch = ClusteredBatch(a, b, paired=True, cluster_size=1, n_samples=2)
    with pytest.raises(ValueError, match="`k` = 3 needs a ClusteredBatch with n_samples >= k"):
        get_criterion("passk-paired(k=3)")(batch, None)
    with pytest.raises(ValueError, match="`k` = 1 needs a ClusteredBatch"):
        get_estimator("passk-interval")(Batch(a, b, paired=True), None)
    with pytest.raises(ValueError, match="`k`"):
        get_criterion("passk-paired(k=0)")
    with pytest.raises(ValueError, match=r"pass@k \(`k` = 1\) needs 0/1 scores"):
        get_criterion("passk-paired")(ClusteredBatch(a * 0.5, b, paired=True, cluster_size=1),
                                      None)


def test_rows_declare_what_they_need():
    for name in ("sacrebleu-paired-bs", "sacrebleu-paired-ar"):
        criterion = get_criterion(name)
        assert (criterion.needs, criterion.uses_rng, criterion.paired) == ("scores", True, True)
    passk = get_criterion("passk-paired")
    assert (passk.needs, passk.uses_rng) == ("samples", False)
    assert get_estimator("passk-interval").needs == "samples"
    assert get_estimator("wilson").estimand == "mean-a"
    for name in ("newcombe-diff", "newcombe-paired", "paired-z-interval", "clustered-interval",
                 "cluster-bootstrap-interval"):
        assert get_estimator(name).estimand == "effect"
    assert get_estimator("cluster-bootstrap-interval").uses_rng


# --- coverage ------------------------------------------------------------------------------

def _accuracy_a(scenario):
    return scenario.accuracy(scenario.skill_a + scenario.shift)


def test_wilson_and_passk_cover_a_accuracy():
    reps = 2000
    res = run_estimation({"n_items": 200, "skill_a": 0.8}, "llm-items",
                         ["wilson", "passk-interval"], target=_accuracy_a, n_reps=reps,
                         seed=25, progress=False)
    for coverage in res.summary["coverage"]:
        assert abs(coverage - 0.95) <= 4 * _mcse(0.95, reps), coverage


@pytest.mark.slow
def test_difference_intervals_cover_the_effect():
    """200 items, A better: the paired intervals within 4 MCSEs of 0.95; Newcombe's
    independent-samples interval ignores the positive pairing and over-covers."""
    reps = 2000
    res = run_estimation({"n_items": 200, "shift": 0.3}, "llm-items",
                         ["newcombe-paired", "paired-z-interval", "newcombe-diff"],
                         target="effect", n_reps=reps, seed=26, progress=False)
    cov = dict(zip(res.summary["estimator"], res.summary["coverage"], strict=True))
    for name in ("newcombe-paired", "paired-z-interval"):
        assert abs(cov[name] - 0.95) <= 4 * _mcse(0.95, reps), (name, cov[name])
    assert cov["newcombe-diff"] >= 0.95 - 4 * _mcse(0.95, reps)


@pytest.mark.slow
def test_cluster_intervals_cover_the_effect_of_clustered_items():
    reps = 2000
    res = run_estimation({"n_items": 400, "n_clusters": 100, "tau": 1.0, "shift": 0.3},
                         "llm-items", ["clustered-interval", "cluster-bootstrap-interval"],
                         target="effect", n_reps=reps, seed=27, progress=False)
    for coverage in res.summary["coverage"]:
        assert abs(coverage - 0.95) <= 4 * _mcse(0.95, reps), coverage


@pytest.mark.parametrize("d", [[1, 1, -1, 0, 1, -1, 1], [0.5, -1, 0.5, 0, 1, 1, -0.5, 0.5],
                               [0, 0, 0], [2, -3, 1, 1]])
def test_ar_exceedance_is_the_enumeration_of_sign_patterns(d):
    """The exact chance that a trial of swaps is strictly above the real difference, over all
    2^n sign patterns (tests/naive.py), to 1e-12; on a lattice of halves with scale 2."""
    from evalmc.criteria.item_procedures import ar_exceedance

    d = np.array([d], dtype=float)
    assert ar_exceedance(d, scale=2)[0] == pytest.approx(
        float(naive.sacrebleu_ar_exceedance(d[0])), abs=1e-12)


@pytest.mark.parametrize(("d", "scale"), [([1, 0, -1, 1], 1), ([0.5, -1, 0, 0.5, 1], 2)])
def test_sum_law_is_the_enumeration_of_resamples(d, scale):
    """The law of a bootstrap resample's sum over all n^n index tuples, to 1e-12."""
    import itertools
    from collections import Counter

    from evalmc.criteria.item_procedures import sum_law

    lowest, cdf = sum_law(np.array([d], dtype=float), scale)
    counts = Counter(round(sum(d[i] for i in idx) * scale)
                     for idx in itertools.product(range(len(d)), repeat=len(d)))
    support = np.arange(lowest, lowest + cdf.shape[1])
    exact = np.cumsum([counts.get(int(s), 0) for s in support]) / len(d) ** len(d)
    np.testing.assert_allclose(cdf[0], exact, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("name", "exact_law", "enumeration", "d", "n", "seed"), [
    ("sacrebleu-paired-ar", "ar_exceedance", naive.sacrebleu_ar_exceedance,
     [0.31, -0.12, 0.57, 0.05, -0.2, 0.44, 0.18, -0.09], 100_000, 3),
    ("sacrebleu-paired-bs", "sum_law", naive.sacrebleu_bs_exceedance,
     [0.31, -0.12, 0.57, 0.05, -0.2], 200_000, 4)])
def test_off_a_lattice_draws_follow_the_enumeration(name, exact_law, enumeration, d, n, seed):
    """Continuous differences have no lattice, so no exact law: the trials (sign flips) or
    resamples (indices) are drawn, as sacrebleu draws them, and their count above the real
    difference is within binomial error of the enumeration (2^8 sign patterns, 5^5 index
    tuples)."""
    from evalmc.criteria import item_procedures

    d = np.array([d])
    assert getattr(item_procedures, exact_law)(d) is None
    p = get_criterion(name, n_resamples=n)(
        Batch(d, np.zeros_like(d), paired=True), np.random.default_rng(seed)).pvalue[0]
    q = float(enumeration(d[0]))
    assert abs(p * (n + 1) - 1 - n * q) <= 4 * np.sqrt(n * q * (1 - q))


def _counts_and_scores(tmp_path, n_samples, clusters, reps=120, delta=0.05, seed=0):
    """A CellsBatch drawn by the item model fitted to an llm-items file, and the ClusteredBatch
    of the scores drawn from its counts."""
    from evalmc.sims import get_scenario
    from evalmc.sims.items import CellsBatch

    scen = get_scenario("llm-items")(n_items=120, n_clusters=8, icc=0.3, tau=0.5, rho=0.5,
                                     persistence=0.6, n_samples=n_samples, skill_a=0.3,
                                     skill_b=0.2)
    batch = scen.draw(np.random.default_rng(seed), 1)
    a, b = (x[0] for x in (batch.samples or (batch.a, batch.b)))
    items = np.repeat(np.arange(120), n_samples)
    rows = ["model,item,sample,cluster,score"] + [
        f"{m},q{i},{k % n_samples},c{i // 15},{int(x[k])}" for m, x in (("A", a), ("B", b))
        for k, i in enumerate(items)]
    path = tmp_path / f"items{n_samples}{clusters}.csv"
    path.write_text("\n".join(rows) + "\n")
    model = get_scenario("item-model")(file=str(path), a="A", b="B", sample="sample",
                                       cluster="cluster" if clusters else "", delta=delta)
    cells = model.draw(np.random.default_rng(seed + 1), reps)
    assert isinstance(cells, CellsBatch)
    a, b = cells.samples if cells.samples is not None else (cells.a, cells.b)
    fresh = CellsBatch(cells=cells.cells, seeds=cells.seeds, cluster_sizes=cells.cluster_sizes,
                       n_samples=cells.n_samples)
    return fresh, ClusteredBatch(a, b, paired=True, cluster_sizes=cells.cluster_sizes,
                                 n_samples=n_samples), model


LAYOUTS = [(1, True), (3, True), (1, False), (2, False)]


@pytest.mark.parametrize(("n_samples", "clusters"), LAYOUTS)
def test_counts_give_the_procedures_values_of_the_scores(tmp_path, n_samples, clusters):
    """On counts of item types each default procedure and interval reads the counts alone
    (the scores are never drawn) and gives what it gives on the scores drawn from them: the
    same p-values, statistics and bounds to rounding, the same for the sign and signed-rank
    tests, and for sacrebleu's bootstrap (the same uniforms, mapped through the same law of
    a resample's sum); its randomisation test's exceedance to rounding."""
    from evalmc.study.audit import default_intervals, default_procedures

    counts, scores, _ = _counts_and_scores(tmp_path, n_samples, clusters)
    random = {"cluster-bootstrap", "sacrebleu-paired-ar", "cluster-bootstrap-interval"}
    names = default_procedures(scores, "binary") + ["wilcoxon-pratt", "wilcoxon-zsplit",
                                                    "paired-t", "welch-t"]
    for name in names:
        crit = get_criterion(name)
        ours, theirs = (crit(x, np.random.default_rng(3)) for x in (counts, scores))
        if name in random:
            continue
        exact = name.startswith(("sign", "wilcoxon", "mcnemar", "sacrebleu"))
        tol = {"rtol": 0, "atol": 0} if exact else {"rtol": 1e-9, "atol": 1e-12}
        np.testing.assert_allclose(ours.pvalues(), theirs.pvalues(), **tol, err_msg=name)
        if theirs.estimate is not None:
            np.testing.assert_allclose(ours.estimate, theirs.estimate, atol=1e-12)
    for name in default_intervals(scores, "binary"):
        if name in random:
            continue
        est = get_estimator(name)
        ours, theirs = (est(x, np.random.default_rng(3)) for x in (counts, scores))
        for bound in ("estimate", "low", "high"):
            np.testing.assert_allclose(getattr(ours, bound), getattr(theirs, bound),
                                       rtol=1e-9, atol=1e-12, err_msg=name)
    assert counts._a is None  # read from the counts alone


@pytest.mark.parametrize(("n_samples", "clusters"), LAYOUTS)
def test_counts_give_the_exact_laws_of_the_scores(tmp_path, n_samples, clusters):
    """The randomisation test's exceedance from the counts (a binomial tail for one sample,
    an FFT over a window of the sums for several) is the FFT's over every sum; the law of a
    bootstrap resample's sum over its window is the whole law's there."""
    from evalmc.criteria.item_procedures import (
        _difference_histogram,
        ar_exceedance,
        ar_exceedance_counts,
        histogram_sum_law,
        sum_law,
    )

    counts, scores, _ = _counts_and_scores(tmp_path, n_samples, clusters, reps=40)
    d = scores.a - scores.b
    hist = _difference_histogram(counts)
    np.testing.assert_allclose(ar_exceedance_counts(hist), ar_exceedance(d, n_samples),
                               rtol=0, atol=1e-13)
    lowest, cdf = histogram_sum_law(hist)
    whole_lowest, whole = sum_law(d, n_samples)
    for r in range(len(d)):
        at = lowest[r] - whole_lowest + np.arange(cdf.shape[1])
        inside = at < whole.shape[1]
        np.testing.assert_allclose(cdf[r, inside], whole[r, at[inside]], rtol=0, atol=1e-13)


@pytest.mark.parametrize(("n_samples", "clusters"), [(1, True), (2, True), (1, False)])
def test_counts_and_scores_give_one_law_of_decisions(tmp_path, n_samples, clusters):
    """The audit's studies on counts (draws 'auto') and on the scores drawn one by one (draws
    'scores'): every default procedure's rejection rate under the null and at a difference,
    and every interval's coverage, agree within 4 MCSE of their difference, 2000 replications
    each."""
    from evalmc.study.audit import default_intervals, default_procedures

    _, scores, model = _counts_and_scores(tmp_path, n_samples, clusters, reps=2)
    base = {"file": model.file, "a": "A", "b": "B", "sample": "sample",
            "cluster": model.cluster}
    crits = default_procedures(scores, "binary")
    ests = default_intervals(scores, "binary")
    found = {}
    for draws in ("auto", "scores"):
        design = {**base, "draws": [draws], "delta": [0.0, 0.08]}
        found[draws] = (
            run_study(design, "item-model", crits, n_reps=2000, seed=3,
                      progress=False).summary.set_index(["delta", "criterion"])["rate"],
            run_estimation({**base, "draws": [draws]}, "item-model", ests, n_reps=2000,
                           seed=3, target="effect", progress=False).summary.set_index(
                               "estimator")["coverage"])
    for one, two in zip(found["auto"], found["scores"], strict=True):
        bound = 4 * np.sqrt((one * (1 - one) + two * (1 - two)) / 2000) + 1e-12
        assert ((one - two.loc[one.index]).abs() <= bound).all(), (one, two)


def test_counts_fixed_seed_regression_and_workers(tmp_path):
    """The procedures that draw random numbers, on counts: fixed rates for a seed, the same
    for one worker and two."""
    _, _, model = _counts_and_scores(tmp_path, 1, True, reps=2)
    design = {"file": model.file, "a": "A", "b": "B", "sample": "sample", "cluster": "cluster",
              "delta": [0.0, 0.08]}
    crits = ["cluster-bootstrap", "sacrebleu-paired-bs", "sacrebleu-paired-ar"]
    runs = [run_study(design, "item-model", crits, n_reps=600, seed=11, block_size=100,
                      n_jobs=jobs, progress=False).summary for jobs in (1, 2)]
    assert runs[0].equals(runs[1])
    assert runs[0]["rate"].round(4).tolist() == [0.1033, 0.1333, 0.0917, 0.395, 0.525, 0.4383]
