"""Benchmark workload: the bootstrap-dF1 size study (5000 sets, B = 5000), evalmc on the 8-cell
tables against scipy.stats.bootstrap on the examples of every 112th set (its time scaled by
5000 / 45); :func:`agreement` tests that the two agree within Monte Carlo error."""

from __future__ import annotations

import numpy as np
from scipy import stats

from evalmc.sims.classifiers import PairedClassifiers, correctness

#: Evaluation set sizes of Keller et al. (2005).
SIZES = (100, 200, 500, 1000, 2000, 3000, 4000, 5000, 6000)
N_SETS = 5000
N_BOOT = 5000
#: The peer tests sets 0, 112, 224, ...: it needs about 0.5 s per set on average over SIZES.
PEER_STRIDE = 112
ALPHA = 0.05
NULL = PairedClassifiers(prevalence=0.3, tpr_a=0.75, fpr_a=0.1, tpr_b=0.8, fpr_b=0.12,
                         rho=0.6).with_difference("df1", 0.0)


def _f1_difference(label, a_ok, b_ok, axis=-1):
    """dF1 of examples given as label and correctness arrays (F1 = 0 where undefined)."""
    f1 = []
    for ok in (a_ok, b_ok):
        tp = np.sum((ok == 1) & (label == 1), axis=axis)
        den = 2 * tp + np.sum(ok == 0, axis=axis)  # 2 TP + FN + FP
        f1.append(np.divide(2 * tp, den, out=np.zeros(den.shape), where=den > 0))
    return f1[0] - f1[1]


def percentile_pvalue(distribution) -> float:
    """P-value of the percentile test from bootstrap replicates, as evalmc's criterion gives it."""
    distribution = np.asarray(distribution)
    below, above = np.sum(distribution <= 0), np.sum(distribution >= 0)
    return min(1.0, 2.0 * (1.0 + min(below, above)) / (distribution.size + 1))


def peer_pvalue(counts, n_boot, rng) -> float:
    """The peer's test of one set: its examples from `counts`, resampled by scipy's bootstrap."""
    counts = np.asarray(counts)[None, :]
    a_ok, b_ok = correctness(counts)
    label = np.repeat(np.arange(8), counts[0]) >> 2
    res = stats.bootstrap((label, a_ok[0], b_ok[0]), _f1_difference, paired=True,
                          vectorized=True, method="percentile", n_resamples=n_boot, rng=rng)
    return percentile_pvalue(res.bootstrap_distribution)


def agreement(p_ours, p_peer, n_boot) -> float:
    """Fisher's combined p-value that two bootstraps of each set agree (small if they do not)."""
    x, y = (np.ceil((n_boot + 1) * np.asarray(p) / 2 - 1 - 1e-6) for p in (p_ours, p_peer))
    dist = stats.hypergeom(2 * n_boot, x + y, n_boot)
    pvalues = np.minimum(1.0, 2 * np.minimum(dist.cdf(x), dist.sf(x - 1)))
    with np.errstate(divide="ignore"):  # a set's p-value of 0 makes the combination 0
        return float(stats.combine_pvalues(pvalues, method="fisher").pvalue)


def _plan(small):
    """Sets, replicates and indices of the peer's sets; ``small``: one set per size, B = 100."""
    n_sets = len(SIZES) if small else N_SETS
    return n_sets, 100 if small else N_BOOT, np.arange(0, n_sets, 1 if small else PEER_STRIDE)


def _sets(n_sets):
    """The evaluation sets, one batch per size: batch ``j`` holds sets j, j + 9, j + 18, ..."""
    rng = np.random.default_rng(2005)
    rows = np.bincount(np.arange(n_sets) % len(SIZES))
    return [PairedClassifiers(**{**NULL.to_dict(), "n": n}).draw(rng, r)
            for n, r in zip(SIZES, rows, strict=True)]


def _set_order(parts):
    """Per-set values given per size (as :func:`_sets` groups the sets), in set order."""
    out = np.empty((sum(len(part) for part in parts), *np.shape(parts[0])[1:]),
                   np.asarray(parts[0]).dtype)
    for j, part in enumerate(parts):
        out[j::len(SIZES)] = part
    return out


def bootstrap_df1_size():
    """The size study of the module docstring: ``(ours, peer, peer_scale)``.

    The peer's result reports its agreement with the last run of ``ours`` of the same size.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns a line of text: the size, and for the peer its
        agreement with ours.
    peer_scale : float
        ``N_SETS`` over the sets the peer tests (5000 / 45).

    Examples
    --------
    >>> from evalmc.bench.classifiers import N_SETS, PEER_STRIDE, bootstrap_df1_size
    >>> from evalmc.bench.registry import WORKLOADS
    >>> WORKLOADS.entry("bootstrap-df1-size").load() is bootstrap_df1_size
    True
    >>> len(range(0, N_SETS, PEER_STRIDE))  # the sets the peer tests
    45
    """
    from evalmc.criteria import get_criterion

    sets = {small: _sets(_plan(small)[0]) for small in (True, False)}
    tables = {small: _set_order([batch.counts for batch in batches])
              for small, batches in sets.items()}
    p_ours = {}

    def ours(small=False):
        n_sets, n_boot, _ = _plan(small)
        crit = get_criterion("bootstrap-df1", n_boot=n_boot)
        rng = np.random.default_rng(1)
        p_ours[small] = pvalues = _set_order([crit(batch, rng).pvalues() for batch in sets[small]])
        rate = np.mean(pvalues <= ALPHA)
        return f"size {rate:.4f} (MCSE {np.sqrt(rate * (1 - rate) / n_sets):.4f}), {n_sets} sets"

    def peer(small=False):
        _, n_boot, shared = _plan(small)
        rng = np.random.default_rng(2)
        pvalues = np.array([peer_pvalue(tables[small][i], n_boot, rng) for i in shared])
        mine = p_ours[small][shared]
        same = np.sum((pvalues <= ALPHA) == (mine <= ALPHA))
        return (f"size {np.mean(pvalues <= ALPHA):.4f} on {shared.size} sets, {same}/{shared.size} "
                f"same decision, agreement p {agreement(mine, pvalues, n_boot):.2g}")

    return ours, peer, N_SETS / _plan(False)[2].size
