"""The item model's moment fit on clusters of very unequal sizes: its pairs weigh items as the
models' means do, so files drawn from a known model give back its variances on average."""

import numpy as np
import pytest

from evalmc.sims.itemmodel import PARTS, ItemFit, fit_grid
from evalmc.sims.itemmodel_nested import NESTED_PARTS, NestedFit, fit_nested_grid
from evalmc.sims.items import scores_from_cells

#: 14 clusters from 30 to 3,000 items (9,986 items): the largest holds 30% of them.
SIZES = tuple(int(k) for k in np.round(np.geomspace(30, 3000, 14)))
#: 14 clusters of 2 to 10 subclusters (80) of unequal sizes, as categories of subjects.
PER = (2, 2, 3, 3, 4, 4, 5, 6, 6, 7, 8, 9, 10, 11)
SUB = tuple(int(k) for p in PER for k in np.round(np.geomspace(20, 75 * p, p)))


def _binary(kind, **parts):
    """A fit of 0/1 scores at the given variances and latent means 0.3 and 0.1."""
    sizes = parts.pop("sizes")
    common = dict(kind="binary", mu_a=0.3, mu_b=0.1, clipped=(), n_items=sum(sizes),
                  n_samples=parts.pop("n_samples", 1), levels=np.array([0.0, 1.0]),
                  cuts=np.array([0.0]))
    return kind(cluster_sizes=sizes, **common, **parts)


def _bias(truth, files, fit_one, parts):
    """Each part's mean fitted value over `files` files drawn from `truth` minus its true value,
    and the MCSE of that mean. A file is drawn as its counts of item types per (sub)cluster
    (``draw_cells``, the law of ``draw_scores`` counted), then as scores."""
    rng = np.random.default_rng(2026)
    n, s = truth.n_items, truth.n_samples
    nested = isinstance(truth, NestedFit)
    cells = truth.draw_cells(rng, files, truth.mu_a, truth.mu_b,
                             **({"level": "inner"} if nested else {}))
    layout = truth.subcluster_sizes if nested else truth.cluster_sizes
    a, b = scores_from_cells(cells, rng.integers(0, 2**63, files), layout, s)
    fits = [fit_one(a[k].reshape(n, s), b[k].reshape(n, s)) for k in range(files)]
    values = np.array([[getattr(f, p) for p in parts] for f in fits])
    true = np.array([getattr(truth, p) for p in parts])
    return values.mean(axis=0) - true, values.std(axis=0, ddof=1) / np.sqrt(files)


@pytest.mark.parametrize(("n_samples", "files"), [(1, 600), (3, 300)])
def test_one_level_fit_is_unbiased_on_unequal_clusters(n_samples, files):
    """Over 600 files (300 with 3 samples) drawn from a known model in 14 clusters of 30 to
    3,000 items, each fitted variance is its true value within 4 MCSE (with every pair weighted
    alike the interaction came out 0.016 low, 5.9 MCSE, and with 3 samples the sample
    variance 0.005 low, 5.4 MCSE)."""
    variances = dict(cluster=0.2, interaction=0.08, item=0.3, model_item=0.32, sample=0.1)
    if n_samples == 1:
        variances["model_item"] += variances.pop("sample")
        variances["sample"] = 0.0
    truth = _binary(ItemFit, sizes=SIZES, n_samples=n_samples, **variances)
    bias, mcse = _bias(truth, files, lambda a, b: fit_grid(a, b, SIZES), PARTS)
    assert (np.abs(bias) <= 4 * mcse).all(), dict(zip(PARTS, zip(bias, mcse, strict=True),
                                                      strict=True))


def test_nested_fit_is_unbiased_on_unequal_clusters():
    """As the one-level fit: 600 files of 14 clusters of unequal sizes (170 to 2,611 items) and
    80 subclusters (20 to 825 items), each of the seven fitted variances within 4 MCSE of its
    truth (with every pair weighted alike the model x item variance came out 0.013 low, 6.1
    MCSE)."""
    starts = np.concatenate([[0], np.cumsum(PER)[:-1]])
    sizes = tuple(int(k) for k in np.add.reduceat(SUB, starts))
    truth = _binary(NestedFit, sizes=sizes, cluster=0.15, interaction=0.06, subcluster=0.1,
                    sub_interaction=0.04, item=0.3, model_item=0.35, sample=0.0,
                    subcluster_sizes=SUB, per_cluster=PER)
    bias, mcse = _bias(truth, 600, lambda a, b: fit_nested_grid(a, b, sizes, SUB, PER),
                       NESTED_PARTS)
    assert (np.abs(bias) <= 4 * mcse).all(), dict(zip(NESTED_PARTS, zip(bias, mcse, strict=True),
                                                      strict=True))


@pytest.mark.parametrize("same", [True, False])
def test_nested_pair_sums_from_totals_are_the_weighted_sums_over_pairs(same):
    """The nested fit's pair sums from totals are those of loops over every pair
    (naive.nested_pair_sums): subclusters of one item, a cluster of one subcluster, 2
    samples."""
    import naive

    from evalmc.sims.itemmodel_nested import _level_sums

    rng = np.random.default_rng(3)
    sub = np.array([3, 1, 2, 4, 2, 1])  # clusters of 2, 1 and 3 subclusters
    sizes = np.add.reduceat(sub, [0, 2, 3])
    x, y = rng.standard_normal((13, 2)), rng.standard_normal((13, 2))
    y = x if same else y
    ours = _level_sums(x, y, sub, sizes, same)
    ref = naive.nested_pair_sums(x.tolist(), y.tolist(), np.repeat(np.arange(3), sizes),
                                 np.repeat(np.arange(6), sub), same)
    for key in ("item", "sub", "clu"):
        assert ours[key] == pytest.approx(ref[key], rel=1e-12)


def test_equal_clusters_weigh_every_pair_alike():
    """With clusters of one size every pair of a cluster weighs alike: the one-level and nested
    pair moments are the plain means over pairs, as before the weights (equal sizes keep their
    fits)."""
    from evalmc.sims.itemmodel import _pair_sums
    from evalmc.sims.itemmodel_nested import _level_sums

    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((24, 2)), rng.standard_normal((24, 2))
    group, sub = np.repeat(np.arange(4), 6), np.repeat(np.arange(8), 3)
    pairs = x.reshape(24, 1, 2, 1) * y.reshape(1, 24, 1, 2)
    other = ~np.eye(24, dtype=bool)
    same_group = (group[:, None] == group[None, :]) & other
    same_sub = (sub[:, None] == sub[None, :]) & other
    ours = _pair_sums(x, y, np.full(4, 6), False)["cluster"]
    assert ours[0] / ours[1] == pytest.approx(pairs[same_group].mean(), rel=1e-12)
    nested = _level_sums(x, y, np.full(8, 3), np.full(4, 6), False)
    assert nested["sub"][0] / nested["sub"][1] == pytest.approx(pairs[same_sub].mean(),
                                                                rel=1e-12)
    assert nested["clu"][0] / nested["clu"][1] == pytest.approx(
        pairs[same_group & ~same_sub].mean(), rel=1e-12)
