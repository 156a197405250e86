"""Nested clusters (category/subject): reading both levels, the item model with an outer and an
inner random effect, its fit and its draws at either level."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalmc.inputs.nested import read_levels, split_levels
from evalmc.sims import get_scenario
from evalmc.sims.itemmodel import forget_fits
from evalmc.sims.itemmodel_nested import NestedFit, fit_nested


def write_nested(path, seed=0, clusters=8, subs=5, items=12, sd=(0.5, 0.3, 0.4, 0.2, 0.6)):
    """Two models' 0/1 answers in `clusters` categories of `subs` subjects of `items` items: a
    category's and a subject's difficulty and advantage of x (sds `sd[:4]`), an item's `sd[4]`;
    subject labels repeat across categories (s0, s1, ...)."""
    rng = np.random.default_rng(seed)
    rows = ["model,item,category,subject,score"]
    for g in range(clusters):
        c, u = rng.normal(0, sd[0]), rng.normal(0, sd[1])
        for h in range(subs):
            d, w = c + rng.normal(0, sd[2]), u + rng.normal(0, sd[3])
            for i in range(items):
                e = d + rng.normal(0, sd[4])
                for m, sign in (("x", 1), ("y", -1)):
                    rows.append(f"{m},{g}.{h}.{i},c{g},s{h},"
                                f"{int(e + sign * w / 2 + rng.normal() > 0.1)}")
    Path(path).write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.fixture
def nested_file(tmp_path):
    forget_fits()
    return write_nested(tmp_path / "nested.csv")


def test_split_levels_refuses_three_levels_naming_cluster():
    with pytest.raises(ValueError, match="`cluster` must be one column or two nested ones"):
        split_levels("a/b/c")
    with pytest.raises(ValueError, match="`cluster`"):
        split_levels("a/")


def test_read_levels_keeps_the_outer_level_as_the_cluster(nested_file):
    table = read_levels(nested_file, cluster="category/subject")
    assert table.attrs["cluster"] == "category" and table.attrs["subcluster"] == "subject"
    assert table["cluster"].nunique() == 8 and table["subcluster"].nunique() == 5
    # s0 of c0 and s0 of c1 are two subclusters: (category, subject) pairs
    assert table.groupby(["cluster", "subcluster"]).ngroups == 40


def test_the_nested_scenario_clusters_at_either_level(nested_file):
    scenario = get_scenario("item-model")
    outer = scenario(file=nested_file, a="x", b="y", cluster="category/subject")
    inner = scenario(file=nested_file, a="x", b="y", cluster="category/subject", level="inner")
    assert isinstance(outer.fit, NestedFit)
    assert outer.cluster_sizes == (60,) * 8 and inner.cluster_sizes == (12,) * 40
    assert outer.draw(np.random.default_rng(0), 2).cells.shape == (2, 8, 4)
    assert inner.draw(np.random.default_rng(0), 2).cells.shape == (2, 40, 4)
    # fixed seed: the first replication's counts of A-only items in its first cluster
    assert outer.draw(np.random.default_rng(0), 2).cells[0, 0, 2] == 11


def test_bad_levels_are_refused_naming_the_parameter(nested_file):
    scenario = get_scenario("item-model")
    with pytest.raises(ValueError, match="`level`"):
        scenario(file=nested_file, a="x", b="y", cluster="category", level="inner")
    with pytest.raises(ValueError, match="`level`"):
        scenario(file=nested_file, a="x", b="y", cluster="category/subject", level="middle")
    with pytest.raises(ValueError, match="`n_items` must be 0 with nested clusters"):
        scenario(file=nested_file, a="x", b="y", cluster="category/subject", n_items=100)


def _both_right(a, groups_a, groups_b):
    """Per replication, the share of pairs of different items (i, j) with group_a equal and
    group_b different (or equal, when groups_b is None) that A got both right."""
    n = a.shape[1]
    i, j = np.triu_indices(n, 1)
    keep = groups_a[i] == groups_a[j]
    if groups_b is not None:
        keep &= groups_b[i] != groups_b[j]
    i, j = i[keep], j[keep]
    return (a[:, i] * a[:, j]).mean(axis=1)


def test_simulated_pairs_at_each_level_match_the_fitted_correlations(nested_file):
    """Statistical check: under the fit, two items of one model in one subject are both right
    with probability Phi2(mu, mu; r_sub), in one category but different subjects with
    Phi2(mu, mu; r_clu) (scipy's bivariate normal), the fitted correlations; the simulated
    shares (600 data sets) are within 4 MCSE of them."""
    fit = get_scenario("item-model")(file=nested_file, a="x", b="y",
                                     cluster="category/subject").fit
    a, _ = fit.draw_scores(np.random.default_rng(5), 600, fit.mu_a, fit.mu_b)
    outer = np.repeat(np.arange(len(fit.cluster_sizes)), fit.cluster_sizes)
    inner = np.repeat(np.arange(len(fit.subcluster_sizes)), fit.subcluster_sizes)
    v = fit.variances
    theory = {"sub": v["cluster"] + v["interaction"] + v["subcluster"] + v["sub_interaction"],
              "clu": v["cluster"] + v["interaction"]}
    for name, share in (("sub", _both_right(a, inner, None)),
                        ("clu", _both_right(a, outer, inner))):
        r = theory[name]
        expected = stats.multivariate_normal([0, 0], [[1, r], [r, 1]]).cdf([fit.mu_a, fit.mu_a])
        mcse = share.std(ddof=1) / np.sqrt(share.size)
        assert abs(share.mean() - expected) < 4 * mcse, (name, share.mean(), expected, mcse)
    assert theory["sub"] > theory["clu"] > 0.05  # the two levels are apart in this file


def test_counts_and_scores_draw_one_law(nested_file):
    """Statistical check: per data set, the mean over categories of (sum of A - B)^2, from the
    counts (outer level) and from the scores, 400 data sets each: the two means agree within 4
    standard errors, and so do the mean differences."""
    fit = get_scenario("item-model")(file=nested_file, a="x", b="y",
                                     cluster="category/subject").fit
    cells = fit.draw_cells(np.random.default_rng(1), 400, fit.mu_a, fit.mu_b)
    from_cells = cells[:, :, 2] - cells[:, :, 1]  # A only minus B only, per category
    a, b = fit.draw_scores(np.random.default_rng(2), 400, fit.mu_a, fit.mu_b)
    starts = np.concatenate([[0], np.cumsum(fit.cluster_sizes)[:-1]])
    from_scores = np.add.reduceat(a - b, starts, axis=1)
    for stat in (lambda d: (d**2).mean(axis=1), lambda d: d.mean(axis=1)):
        x, y = stat(from_cells), stat(from_scores)
        se = np.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
        assert abs(x.mean() - y.mean()) < 4 * se


def test_the_fit_recovers_its_own_correlations(nested_file):
    """Statistical check: refitted to 60 data sets drawn from a fit, the mean of each of the
    six latent correlations is within 4 MCSE of the fit's (the moment fit is unbiased to first
    order)."""
    fit = get_scenario("item-model")(file=nested_file, a="x", b="y",
                                     cluster="category/subject").fit
    table = read_levels(nested_file, cluster="category/subject")
    a, b = fit.draw_scores(np.random.default_rng(9), 60, fit.mu_a, fit.mu_b)
    order = _nested_order(table)
    refits = []
    for r in range(a.shape[0]):
        frame = order.copy()
        frame = pd.concat([frame.assign(model="x", score=a[r]), frame.assign(model="y",
                                                                             score=b[r])])
        refits.append(fit_nested(frame, "x", "y").correlations)
    for key in ("r_ab", "r_sub", "r_sub_ab", "r_clu", "r_clu_ab"):
        values = np.array([f[key] for f in refits])
        mcse = values.std(ddof=1) / np.sqrt(values.size)
        assert abs(values.mean() - fit.correlations[key]) < 4 * mcse, key


def _nested_order(table):
    """One row per item of model x in the nested draw's order (category, then subject, then
    item, each in order of first appearance), with its columns but model and score."""
    one = table[table["model"] == "x"].drop(columns=["model", "score"])
    outer = pd.factorize(one["cluster"])[0]
    inner = pd.factorize(pd.Series(list(zip(one["cluster"], one["subcluster"], strict=True))))[0]
    return one.iloc[np.lexsort((inner, outer))].reset_index(drop=True)


def test_continuous_scores_and_several_samples_draw_every_score(tmp_path):
    """Scores other than 0/1, and 0/1 scores with two samples per item, are drawn score by
    score in the nested layout, at either level; continuous draws keep the observed values."""
    rng = np.random.default_rng(4)
    rows = ["model,item,sample,category,subject,score"]
    for g in range(4):
        c = rng.normal(0, 0.5)
        for h in range(3):
            d = c + rng.normal(0, 0.5)
            for i in range(6):
                for m in ("x", "y"):
                    for s in range(2):
                        rows.append(f"{m},{g}.{h}.{i},{s},c{g},s{h},"
                                    f"{round(d + rng.normal(), 1)}")
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(rows) + "\n")
    forget_fits()
    scenario = get_scenario("item-model")
    for level, groups in (("outer", 4), ("inner", 12)):
        model = scenario(file=str(path), a="x", b="y", cluster="category/subject",
                         sample="sample", level=level)
        assert not model.uses_cells and model.fit.kind == "continuous"
        batch = model.draw(np.random.default_rng(0), 3)
        assert len(batch.cluster_sizes) == groups and batch.samples[0].shape == (3, 144)
        assert set(np.unique(batch.samples[0])) <= set(model.fit.levels)
    assert model.fit.n_samples == 2 and model.fit.sample > 0


def test_the_fit_recovers_the_process_that_wrote_the_files(tmp_path):
    """Statistical check against the truth: 10 files of 12 categories of 4 subjects of 40 items
    written by `write_nested` (its latent variances known: the five sds and the unit noise,
    advantages halved); each fitted variance's mean is within 4 MCSE of the process's, plus
    0.005 for the small variances' clipping at 0, which lifts their mean."""
    sd = np.array([0.5, 0.3, 0.4, 0.2, 0.6])
    raw = {"cluster": sd[0]**2, "interaction": sd[1]**2 / 4, "subcluster": sd[2]**2,
           "sub_interaction": sd[3]**2 / 4, "item": sd[4]**2, "model_item": 1.0}
    total = sum(raw.values())
    fits = []
    for seed in range(10):
        forget_fits()
        path = write_nested(tmp_path / f"f{seed}.csv", seed=100 + seed, clusters=12, subs=4,
                            items=40)
        fits.append(get_scenario("item-model")(file=path, a="x", b="y",
                                               cluster="category/subject").fit.variances)
    frame = pd.DataFrame(fits)
    for name, value in raw.items():
        mcse = frame[name].std(ddof=1) / np.sqrt(len(frame))
        assert abs(frame[name].mean() - value / total) < 4 * mcse + 0.005, name


def test_a_refit_of_a_nested_fit_keeps_both_levels(nested_file):
    """The parametric bootstrap of the fit (`refit`) refits both levels in the file's layout."""
    scenario = get_scenario("item-model")
    fit = scenario(file=nested_file, a="x", b="y", cluster="category/subject").fit
    again = scenario(file=nested_file, a="x", b="y", cluster="category/subject", refit=1,
                     level="inner")
    assert isinstance(again.fit, NestedFit)
    assert again.fit.subcluster_sizes == fit.subcluster_sizes
    assert again.cluster_sizes == (12,) * 40
    assert again.fit.variances != fit.variances
    assert round(again.fit.subcluster, 4) == 0.0708  # fixed seed
