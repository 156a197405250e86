"""A user's criterion or estimator receives the items' clusters and samples: a cluster-robust
test written by hand against statsmodels' OLS with cluster-robust covariance."""

import textwrap
from pathlib import Path

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from evalmc.criteria import get_criterion
from evalmc.criteria.base import UserCriterion, cluster_ids
from evalmc.estimators.intervals import get_estimator
from evalmc.sims import get_scenario
from evalmc.sims.items import ClusteredBatch, sample_scores

#: A user's file: a CR1 cluster-robust t-test and interval of mean(A - B), t with G - 1 df.
USER = textwrap.dedent('''
    import numpy as np
    from scipy import stats


    def _cr1(a, b, clusters):
        d = np.asarray(a) - np.asarray(b)
        g = int(clusters.max()) + 1
        resid = np.bincount(clusters, d - d.mean(), minlength=g)
        se = np.sqrt(g / (g - 1) * (resid**2).sum()) / d.size
        return d.mean(), se, g - 1


    def clustered_t(a, b, clusters):
        """Cluster-robust (CR1) t-test of mean(A - B) = 0."""
        mean, se, df = _cr1(a, b, clusters)
        return float(2 * stats.t.sf(abs(mean / se), df))


    def clustered_interval(a, b, clusters):
        """CR1 95% interval of mean(A - B)."""
        mean, se, df = _cr1(a, b, clusters)
        q = stats.t.ppf(0.975, df)
        return mean, mean - q * se, mean + q * se


    def sample_spread(a, b, samples):
        """p = 1 when A's samples vary within some item, else 0 (reads `samples`)."""
        return float(np.ptp(samples[0], axis=1).max() > 0)
''')


def _statsmodels(d, groups):
    """OLS of d on a constant, cluster-robust (CR1) with t on G - 1 df: p-value and interval."""
    fit = sm.OLS(d, np.ones((d.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": groups},
                                               use_t=True)
    return float(fit.pvalues[0]), tuple(fit.conf_int(0.05)[0])


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(USER)
    return str(path)


def _batch(seed=0, reps=5, sizes=(3, 5, 2, 6, 4, 4)):
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    shift = np.repeat(rng.normal(0, 0.5, (reps, len(sizes))), sizes, axis=1)
    return ClusteredBatch(rng.normal(0, 1, (reps, n)) + shift, rng.normal(0, 1, (reps, n)),
                          paired=True, cluster_sizes=sizes)


def test_cluster_ids_number_the_clusters_in_order():
    batch = _batch(sizes=(2, 1, 3))
    assert cluster_ids(batch).tolist() == [0, 0, 1, 2, 2, 2]
    assert not cluster_ids(batch).flags.writeable


def test_a_users_cluster_robust_test_matches_statsmodels(user_file):
    batch = _batch()
    crit = get_criterion(f"{user_file}:clustered_t")
    assert crit.needs == "clusters"
    result = crit(batch, np.random.default_rng(0))
    groups = cluster_ids(batch)
    expected = [_statsmodels(batch.a[r] - batch.b[r], groups)[0] for r in range(batch.n_reps)]
    np.testing.assert_allclose(result.pvalues(), expected, rtol=1e-10)
    assert not result.failed.any()


def test_a_users_cluster_robust_interval_matches_statsmodels(user_file):
    batch = _batch(seed=1, reps=3)
    est = get_estimator(f"{user_file}:clustered_interval")
    out = est(batch, None)
    groups = cluster_ids(batch)
    for r in range(batch.n_reps):
        _, (low, high) = _statsmodels(batch.a[r] - batch.b[r], groups)
        np.testing.assert_allclose([out.low[r], out.high[r]], [low, high], rtol=1e-10)


def test_a_vectorized_criterion_gets_the_clusters_and_the_blocks_samples():
    seen = {}

    def whole(a, b, axis, clusters, samples):
        seen.update(clusters=clusters, samples=samples)
        return np.full(a.shape[0], 0.5)

    rng = np.random.default_rng(2)
    batch = ClusteredBatch(rng.integers(0, 2, (4, 12)).astype(float),
                           rng.integers(0, 2, (4, 12)).astype(float), paired=True,
                           cluster_sizes=(2, 4), n_samples=2)
    UserCriterion(whole)(batch, None)
    assert seen["clusters"].tolist() == [0, 0, 1, 1, 1, 1]
    for got, want in zip(seen["samples"], sample_scores(batch), strict=True):
        np.testing.assert_array_equal(got, want)
        assert got.shape == (4, 6, 2)


def test_samples_reach_a_users_criterion_on_the_item_model(user_file, tmp_path):
    """On the item model with 2 samples per item of noise, A's samples of some item differ in
    nearly every replication; the criterion reads them through `samples`."""
    rows = ["model,item,sample,score"] + [
        f"{m},{i},{s},{int((i * 7 + s * 3 + len(m)) % 5 < 3)}"
        for m in ("x", "yy") for i in range(40) for s in range(2)]
    path = tmp_path / "items.csv"
    path.write_text("\n".join(rows) + "\n")
    scenario = get_scenario("item-model")(file=str(path), a="x", b="yy", sample="sample")
    crit = get_criterion(f"{user_file}:sample_spread")
    crit.check_scenario(scenario)
    p = crit(scenario.draw(np.random.default_rng(3), 20), None).pvalues()
    assert set(p) <= {0.0, 1.0} and p.mean() > 0.5


def test_a_scenario_without_clusters_is_refused_naming_the_criterion(user_file):
    crit = get_criterion(f"{user_file}:clustered_t")
    with pytest.raises(ValueError, match="criterion .*clustered_t.* needs clusters; scenario "
                                         "'normal' yields"):
        crit.check_scenario(get_scenario("normal")())


def test_the_users_cluster_robust_test_holds_its_level_on_clustered_data(user_file):
    """Statistical check: on 600 replications of the null with 30 clusters, the CR1 t-test's
    size is within 4 MCSE of 5% (CR1 with t on G - 1 df is near exact here)."""
    batch = _batch(seed=4, reps=600, sizes=(5,) * 30)
    p = get_criterion(f"{user_file}:clustered_t")(batch, None).pvalues()
    size = (p < 0.05).mean()
    assert abs(size - 0.05) < 4 * np.sqrt(0.05 * 0.95 / 600)
    assert stats.binomtest(int((p < 0.05).sum()), 600, 0.05).pvalue > 1e-4


def test_the_readmes_clustered_t_in_an_audit_gets_the_subjects(tmp_path):
    """The README's `clustered_t` (tests/examples/my_test.py) audited on the worked example:
    on the data as observed its p-value is statsmodels' on the items' mean differences,
    clustered by subject; its size under the null is a fixed-seed value."""
    import pandas as pd

    import evalmc
    from evalmc.inputs.itemlogs import paired_items, read_items

    examples = Path(__file__).parent / "examples"
    user = f"{examples / 'my_test.py'}:clustered_t"
    path = examples / "items.csv"
    read = {"metric": "correct", "item": "question", "sample": "generation",
            "cluster": "subject"}
    result = evalmc.audit(path, "candidate", "baseline", **read, criteria=["clustered-z", user],
                          estimators=[], n_reps=200, n_reps_alt=2, progress=False, refits=0)
    pair = paired_items(read_items(path, **read), "candidate", "baseline")
    d = pair.a.mean(axis=1) - pair.b.mean(axis=1)
    groups = pd.factorize(pd.Series(pair.clusters))[0]
    observed = result.observed.set_index("name").loc[user, "pvalue"]
    assert observed == pytest.approx(_statsmodels(d, groups)[0], rel=1e-10)
    sizes = result.sizes.set_index("procedure")["rate"]
    assert sizes[user] == pytest.approx(0.03)  # fixed seed, 200 replications
