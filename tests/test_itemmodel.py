"""The latent Gaussian model fitted to a user's item-level scores (scenario ``item-model``)."""

import numpy as np
import pandas as pd
import pytest

from evalmc import get_scenario, run_study
from evalmc.sims.itemmodel import (
    PARTS,
    STATISTICS,
    ItemModel,
    bivariate_cells,
    faithfulness,
    fit_items,
    item_statistics,
    tetrachoric,
)
from evalmc.sims.items import CellsBatch, ClusteredBatch, cell_types, scores_from_cells

#: llm-items with clusters, an interaction, samples and noise partly redrawn per sample.
TRUTH = dict(n_items=600, n_clusters=30, icc=0.3, sd=1.0, tau=0.6, rho=0.5, persistence=0.6,
             n_samples=3, skill_a=0.3, skill_b=0.3)


def _table(a, b, cluster_size, n_samples, clusters=True):
    """The long item table of one replication's scores (flat rows of items x samples)."""
    n = a.size // n_samples
    items = np.repeat(np.arange(n), n_samples)
    frame = pd.DataFrame({
        "model": np.repeat(["A", "B"], a.size),
        "item": np.tile([f"q{i}" for i in items], 2),
        "sample": np.tile(np.tile(np.arange(n_samples), n), 2),
        "cluster": np.tile([f"c{i // cluster_size}" if clusters else f"q{i}" for i in items],
                           2),
        "score": np.concatenate([np.ravel(a), np.ravel(b)]).astype(float)})
    frame.attrs["cluster"] = "cluster" if clusters else None
    return frame


def _write(tmp_path, a, b, cluster_size, n_samples, name="items.csv"):
    path = tmp_path / name
    _table(a, b, cluster_size, n_samples).to_csv(path, index=False)
    return str(path)


def _samples(batch):
    """A's and B's scores sample by sample, (n_reps, n_items * n_samples)."""
    return batch.samples if batch.samples is not None else (batch.a, batch.b)


def _file(tmp_path, scores="correct", seed=0, name="items.csv", **params):
    scen = get_scenario("llm-items")(**{**TRUTH, "n_items": 300, "n_clusters": 15,
                                        "skill_a": 0.4, "skill_b": 0.2, "scores": scores,
                                        **params})
    batch = scen.draw(np.random.default_rng(seed), 1)
    a, b = _samples(batch)
    return _write(tmp_path, a[0], b[0], scen.cluster_size, scen.n_samples, name)


def _model(path, **kwargs):
    return ItemModel(file=path, a="A", b="B", cluster="cluster", sample="sample", **kwargs)


@pytest.mark.parametrize("scores", ["correct", "latent"])
def test_recovery_of_the_llm_items_variances(scores):
    """40 data sets of 600 items in 30 clusters, 3 samples each: the mean of each fitted
    variance is within 4 standard errors (sd / sqrt(40)) of the scenario's (Items.variances);
    so is the latent mean of A, Phi^-1(accuracy) on the standardised scale for 0/1 scores."""
    scen = get_scenario("llm-items")(**TRUTH, scores=scores)
    reps = 40
    batch = scen.draw(np.random.default_rng(1), reps)
    a, b = _samples(batch)
    fits = [fit_items(_table(a[r], b[r], 20, 3), "A", "B") for r in range(reps)]
    truth = scen.variances()
    assert sum(truth.values()) == pytest.approx(1.0)
    for name in PARTS:
        values = np.array([getattr(f, name) for f in fits])
        se = values.std(ddof=1) / np.sqrt(reps)
        assert abs(values.mean() - truth[name]) <= 4 * se, (name, values.mean(), truth[name])
    if scores == "correct":
        mu = np.array([f.mu_a for f in fits])
        total = np.sqrt(TRUTH["sd"] ** 2 + TRUTH["tau"] ** 2 / 4 + 1)
        assert abs(mu.mean() - 0.3 / total) <= 4 * mu.std(ddof=1) / np.sqrt(reps)


@pytest.mark.parametrize("scores", ["correct", "latent"])
def test_data_from_the_fit_look_like_the_file(tmp_path, scores):
    """Accuracy, discordance, ICC of the differences, within-item variance and the item
    correlation of the file lie within 4 sd of 300 data sets simulated from its fit."""
    table = faithfulness(_model(_file(tmp_path, scores)), np.random.default_rng(2),
                         n_reps=300)
    assert table["quantity"].tolist() == list(STATISTICS)
    assert table["faithful"].all(), table
    assert np.isfinite(table["observed"]).all() and (table["mcse"] < table["sd"]).all()


def _judge(tmp_path):
    """A judge's 1..10 marks: the latent value cut into ten levels."""
    scen = get_scenario("llm-items")(**{**TRUTH, "n_items": 200, "n_clusters": 20,
                                        "scores": "latent"})
    batch = scen.draw(np.random.default_rng(3), 1)
    marks = [np.clip(np.round(2 * x[0] + 6), 1, 10) for x in _samples(batch)]
    return _write(tmp_path, *marks, 10, 3, "judge.csv")


@pytest.mark.parametrize("kind", ["binary", "judge", "continuous"])
@pytest.mark.parametrize("delta", [0.0, 0.03])
def test_null_and_delta_hold_the_expected_difference(tmp_path, kind, delta):
    """The expected scores differ by delta exactly (to 1e-10), their average is the file's;
    the simulated mean difference is within 4 MCSE of delta."""
    path = {"binary": lambda: _file(tmp_path), "judge": lambda: _judge(tmp_path),
            "continuous": lambda: _file(tmp_path, "latent")}[kind]()
    scenario = _model(path, delta=delta)
    fit = scenario.fit
    assert fit.kind == ("binary" if kind == "binary" else "continuous")
    e_a, e_b = fit.expected(scenario.mu[0]), fit.expected(scenario.mu[1])
    assert abs((e_a - e_b) - delta) <= 1e-10 and abs((e_a + e_b) / 2 - fit.mean) <= 1e-10
    assert scenario.effect == delta and scenario.truth == ("null" if delta == 0 else
                                                           "alternative")
    reps = 3000
    batch = scenario.draw(np.random.default_rng(4), reps)
    diff = batch.a.mean(axis=1) - batch.b.mean(axis=1)
    assert abs(diff.mean() - delta) <= 4 * diff.std(ddof=1) / np.sqrt(reps)
    if kind == "judge":
        assert set(np.unique(_samples(batch)[0])) <= set(range(1, 11))


def test_the_fit_itself_is_delta_at_the_observed_difference(tmp_path):
    path = _file(tmp_path)
    fit = _model(path).fit
    scenario = _model(path, delta=fit.mean_a - fit.mean_b)
    assert scenario.mu[0] == pytest.approx(fit.mu_a, abs=1e-9)
    assert scenario.mu[1] == pytest.approx(fit.mu_b, abs=1e-9)


def test_fixed_seed_regression(tmp_path):
    """The fit of a small file (48 items in 8 clusters, 2 samples) and the first draws."""
    path = _file(tmp_path, seed=11, n_items=48, n_clusters=8, n_samples=2)
    scenario = _model(path, delta=0.05)
    fit = scenario.fit
    assert fit.kind == "binary" and fit.cluster_sizes == (6,) * 8 and fit.n_samples == 2
    assert [round(getattr(fit, p), 6) for p in PARTS] == [
        0.111722, 0.0, 0.436105, 0.376633, 0.07554]
    assert (round(fit.mu_a, 6), round(fit.mu_b, 6), fit.clipped) == (
        0.459558, 0.430727, ("interaction",))
    assert [round(x, 6) for x in scenario.mu] == [0.515434, 0.376897]
    general = _model(path, delta=0.05, draws="scores")  # every score drawn, as before counts
    assert _samples(general.draw(np.random.default_rng(5), 2))[0][:, :12].tolist() == [
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]]
    batch = scenario.draw(np.random.default_rng(5), 2)  # counts of item types per cluster
    assert isinstance(batch, CellsBatch) and batch.cells.shape == (2, 8, 10)
    assert batch.cells[:, :2].tolist() == [
        [[3, 0, 1, 0, 0, 0, 0, 0, 1, 1], [2, 1, 1, 0, 0, 1, 0, 0, 0, 1]],
        [[3, 0, 0, 1, 0, 1, 0, 0, 0, 1], [0, 1, 0, 0, 0, 1, 0, 1, 0, 3]]]
    assert _samples(batch)[0][:, :12].tolist() == [
        [0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]]
    continuous = _model(_file(tmp_path, "latent", seed=11, n_items=48, n_clusters=8,
                              n_samples=2, name="latent.csv"))
    assert [round(getattr(continuous.fit, p), 6) for p in PARTS] == [
        0.107722, 0.00484, 0.461192, 0.181229, 0.245017]
    assert _samples(continuous.draw(np.random.default_rng(5), 1))[0][0, :4].round(6).tolist() == [
        0.856099, 1.333346, -0.486031, -1.704575]


def test_tetrachoric_inverts_the_bivariate_normal():
    from scipy.special import ndtri
    from scipy.stats import multivariate_normal

    for p_x, p_y, r in ((0.3, 0.8, 0.4), (0.6, 0.5, -0.3), (0.5, 0.5, 0.9)):
        h, k = ndtri(p_x), ndtri(p_y)
        p11 = multivariate_normal([0, 0], [[1, r], [r, 1]]).cdf([h, k])
        assert tetrachoric(p_x, p_y, p11) == pytest.approx(r, abs=1e-5)


def test_item_statistics_by_hand():
    a = np.array([[1, 1, 0, 1, 0, 0, 1, 1]], dtype=float)
    b = np.array([[1, 0, 0, 0, 0, 0, 1, 0]], dtype=float)
    stats = item_statistics(np.vstack([a, a]), np.vstack([b, b]), (2, 2), 2)
    ma, mb = a.reshape(4, 2).mean(axis=1), b.reshape(4, 2).mean(axis=1)
    assert stats["item_corr"].tolist() == pytest.approx([np.corrcoef(ma, mb)[0, 1]] * 2)
    assert stats["discordance"].tolist() == [0.375, 0.375]
    assert np.isnan(item_statistics(a, b, (1, 1, 1, 1), 2)["icc_diff"]).all()
    assert np.isnan(item_statistics(a, b, (1,) * 8, 1)["within_var"]).all()


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"a": "A", "b": "B"}, "`file` is required"),
    ({"file": "no-such-file.csv", "a": "A", "b": "B"}, "`file` 'no-such-file.csv'"),
    ({"b": "B"}, "`a` is required"),
    ({"a": "A"}, "`b` is required"),
    ({"a": "A", "b": "C"}, "`b` 'C' is not a model"),
    ({"a": "A", "b": "B", "delta": 2.0}, "`delta` asks for an expected score"),
    ({"a": "A", "b": "B", "delta": float("nan")}, "`delta` must be finite"),
    ({"a": "A", "b": "B", "n_items": 1}, "`n_items` must be 0"),
    ({"a": "A", "b": "B", "n_items": -3}, "`n_items` must be an integer >= 0"),
    ({"a": "A", "b": "K"}, "`b`: model 'K' has the same score"),
])
def test_bad_input_is_named(tmp_path, kwargs, match):
    path = tmp_path / "items.csv"
    path.write_text("model,item,score\n" + "".join(
        f"{m},{i},{v}\n" for m, vals in (("A", "1010"), ("B", "1100"), ("K", "1111"))
        for i, v in enumerate(vals)))
    if "file" not in kwargs and "`file`" not in match:
        kwargs = {"file": str(path), **kwargs}
    with pytest.raises(ValueError, match=match):
        ItemModel(**kwargs)


def test_n_items_sets_clusters_of_the_files_mean_size(tmp_path):
    scenario = _model(_file(tmp_path), n_items=45)
    assert scenario.cluster_sizes == (20, 20, 5) and scenario.sizes == (135, 135)
    batch = scenario.draw(np.random.default_rng(6), 4)
    assert batch.a.shape == (4, 45) and _samples(batch)[0].shape == (4, 135)
    assert batch.cluster_sizes == (20, 20, 5)


def test_fingerprint_holds_the_scores(tmp_path):
    first = _model(_file(tmp_path, seed=0, name="one.csv"))
    second = _model(_file(tmp_path, seed=1, name="two.csv"))
    assert first.fingerprint().endswith(f"scores={first.fit.digest}")
    assert first.fit.digest != second.fit.digest


def test_a_study_runs_on_it_and_jobs_do_not_change_it(tmp_path):
    grid = {"file": _file(tmp_path), "a": "A", "b": "B", "cluster": "cluster",
            "sample": "sample"}
    runs = [run_study(grid, "item-model", ["paired-items", "clustered-z"], n_reps=400,
                      seed=7, n_jobs=jobs, block_size=100, progress=False).summary
            for jobs in (1, 2)]
    rate = runs[0]["rate"].to_numpy()
    assert np.isfinite(rate).all() and ((rate >= 0) & (rate <= 1)).all()
    pd.testing.assert_frame_equal(runs[0], runs[1])


@pytest.mark.parametrize("same", [True, False])
def test_pair_sums_from_totals_are_the_sums_over_pairs(same):
    """Per-item and per-cluster totals give the weighted sums over pairs that loops over every
    pair give (naive.item_pair_sums), clusters of unequal size, 3 samples."""
    import naive

    from evalmc.sims.itemmodel import _pair_sums

    rng = np.random.default_rng(8)
    sizes = np.array([3, 1, 4, 2])
    x, y = rng.standard_normal((10, 3)), rng.standard_normal((10, 3))
    y = x if same else y
    ours = _pair_sums(x, y, sizes, same)
    ref = naive.item_pair_sums(x.tolist(), y.tolist(), np.repeat(np.arange(4), sizes), same)
    for key in ("item", "cluster"):
        assert ours[key][0] == pytest.approx(ref[key][0], rel=1e-12)
        assert ours[key][1] == pytest.approx(ref[key][1], rel=1e-12)


def test_clusters_are_grouped_and_missing_structure_is_zero(tmp_path):
    """Items of a cluster need not be adjacent in the file; without a cluster column, or with
    one score per item, the variances that cannot be identified are 0."""
    path = tmp_path / "mixed.csv"
    rng = np.random.default_rng(9)
    path.write_text("model,item,topic,score\n" + "".join(
        f"{m},q{i},t{i % 3 if i < 9 else 3},{int(rng.random() < 0.6)}\n"
        for m in ("A", "B") for i in range(11)))
    fit = ItemModel(file=str(path), a="A", b="B", cluster="topic").fit
    assert fit.cluster_sizes == (3, 3, 3, 2) and fit.n_samples == 1 and fit.sample == 0.0
    plain = ItemModel(file=str(path), a="A", b="B").fit
    assert plain.cluster_sizes == (1,) * 11
    assert plain.cluster == 0.0 and plain.interaction == 0.0 and plain.sample == 0.0
    assert sum(plain.variances.values()) == pytest.approx(1.0)


def test_models_with_different_samples_are_refused(tmp_path):
    path = tmp_path / "samples.csv"
    path.write_text("model,item,sample,score\n" + "".join(
        f"{m},{i},{s},{(i + s) % 2}\n" for m, n_s in (("A", 2), ("B", 1)) for i in range(4)
        for s in range(n_s)))
    with pytest.raises(ValueError, match="`sample`: models 'A' and 'B' must have as many"):
        ItemModel(file=str(path), a="A", b="B", sample="sample")


def test_bivariate_cells_are_the_bivariate_normal_law():
    """The four cells' probabilities are those of scipy's bivariate normal, zero means and
    negative correlations included, and the degenerate cases are their limits."""
    from scipy.stats import multivariate_normal

    for m_a, m_b, var, cov in ((0.3, -0.2, 1.0, 0.4), (0.0, 0.5, 0.7, 0.2), (0.5, 0.0, 0.7, -0.2),
                               (0.0, 0.0, 0.7, -0.2), (1.2, 0.9, 0.5, -0.3), (-0.4, 0.1, 0.9, 0)):
        p = bivariate_cells(np.array(m_a), np.array(m_b), var, cov)
        law = multivariate_normal([0, 0], [[var, cov], [cov, var]], abseps=1e-14, releps=1e-14)
        both, a_right = law.cdf([m_a, m_b]), law.marginal(0).cdf(m_a)
        assert p.sum() == pytest.approx(1.0, abs=1e-15)
        assert p[3] == pytest.approx(both, abs=1e-12)
        assert p[2] + p[3] == pytest.approx(a_right, abs=1e-14)
    phi = multivariate_normal(0, 1).cdf  # perfect correlation: B right only if A is
    assert bivariate_cells(np.array([0.3]), np.array([-0.1]), 1.0, 1.0)[0].tolist() == \
        pytest.approx([1 - phi(0.3), 0.0, phi(0.3) - phi(-0.1), phi(-0.1)], abs=1e-15)
    assert bivariate_cells(np.array(0.3), np.array(-0.1), 0.0, 0.0).tolist() == [0, 0, 1, 0]


def test_scores_drawn_from_counts_hold_the_counts():
    """Each cluster's items of the scores drawn from the counts are of the counted types, in a
    random order, each item's samples too; a replication's seed alone decides them."""
    rng = np.random.default_rng(3)
    types = cell_types(3)
    cells = rng.multinomial([4, 6, 5], np.full(len(types), 1 / len(types)), size=(50, 3))
    a, b = scores_from_cells(cells, np.arange(50), (4, 6, 5), 3)
    sa, sb = a.reshape(50, 15, 3), b.reshape(50, 15, 3)
    both, a_only = (sa * sb).sum(axis=2), (sa * (1 - sb)).sum(axis=2)
    b_only = ((1 - sa) * sb).sum(axis=2)
    index = {tuple(t[:3]): i for i, t in enumerate(types)}
    found = np.zeros_like(cells)
    for r in range(50):
        for item, cluster in enumerate(np.repeat([0, 1, 2], [4, 6, 5])):
            found[r, cluster, index[both[r, item], a_only[r, item], b_only[r, item]]] += 1
    np.testing.assert_array_equal(found, cells)
    first = scores_from_cells(cells[7:9], [7, 8], (4, 6, 5), 3)
    np.testing.assert_array_equal(first[0], a[7:9])
    assert len({tuple(row) for row in sa[:, :4, :].reshape(50, -1)}) > 1  # orders vary


@pytest.mark.parametrize(("n_samples", "clusters"), [(1, True), (2, True), (1, False),
                                                     (3, False)])
def test_counts_and_scores_are_drawn_from_one_law(tmp_path, n_samples, clusters):
    """The counts of item types (draws 'auto', the scores then drawn from them) and the scores
    drawn one by one (draws 'scores') are one law: every quantity of item_statistics, and the
    variance of the mean difference, agree within 4 MCSE of their difference over 3000
    replications of each, at the null and at a difference."""
    path = _file(tmp_path, n_items=60, n_clusters=6, n_samples=n_samples)
    read = {"file": path, "a": "A", "b": "B", "sample": "sample",
            **({"cluster": "cluster"} if clusters else {})}
    for delta in (0.0, 0.1):
        fast = ItemModel(**read, delta=delta)
        general = ItemModel(**read, delta=delta, draws="scores")
        assert fast.uses_cells and not general.uses_cells
        drawn = []
        for scenario, seed in ((fast, 1), (general, 2)):
            batch = scenario.draw(np.random.default_rng(seed), 3000)
            a, b = _samples(batch)
            stats = item_statistics(a, b, scenario.cluster_sizes, n_samples)
            stats["difference"] = stats["mean_a"] - stats["mean_b"]
            drawn.append(stats)
        for name, values in drawn[0].items():
            one, two = values[np.isfinite(values)], drawn[1][name][np.isfinite(drawn[1][name])]
            if not one.size:
                assert not two.size
                continue
            bound = 4 * np.sqrt(one.var() / one.size + two.var() / two.size)
            assert abs(one.mean() - two.mean()) <= bound, (name, delta)
        v1, v2 = drawn[0]["difference"].var(), drawn[1]["difference"].var()
        assert abs(v1 - v2) <= 4 * np.sqrt(2 * (v1**2 + v2**2) / 3000), delta


def test_counts_are_drawn_where_they_are_fewer_than_the_scores(tmp_path):
    """0/1 scores are drawn as counts unless there are more counts than scores (clusters of
    two items with 3 samples: 20 types a cluster); continuous scores never are."""
    assert _model(_file(tmp_path, name="wide.csv")).uses_cells
    pairs = _model(_file(tmp_path, n_items=40, n_clusters=20, n_samples=3, name="pairs.csv"))
    assert not pairs.uses_cells
    assert isinstance(pairs.draw(np.random.default_rng(0), 2), ClusteredBatch)
    assert not _model(_file(tmp_path, "latent", name="latent.csv")).uses_cells
    with pytest.raises(ValueError, match="`draws`"):
        _model(_file(tmp_path, name="bad.csv"), draws="cells")
