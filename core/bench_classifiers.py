"""Benchmark workload: the bootstrap percentile test on dF1, evalmc against scipy.stats.bootstrap.

Both sides test the same evaluation sets (two classifiers with equal population F1, so the
rejection rate is a size) with B = 5000 replicates: evalmc draws each replicate as a
multinomial over the set's 8 cells; the peer resamples the set's examples with
``scipy.stats.bootstrap(paired=True, vectorized=True, method='percentile')``.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from sims.classifiers import PairedClassifiers, correctness

#: Evaluation set sizes of Keller et al. (2005).
SIZES = (100, 200, 500, 1000, 2000, 3000, 4000, 5000, 6000)
#: Sets per size: the peer needs about 0.5 s per set on average over these sizes.
SETS_PER_SIZE = 3
N_BOOT = 5000
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


def _describe(rejected):
    marks = "".join("x" if r else "." for r in rejected)
    return f"{sum(rejected)}/{len(rejected)} rejected: {marks}"


def _sets(sets_per_size):
    rng = np.random.default_rng(2005)
    return [PairedClassifiers(**{**NULL.to_dict(), "n": n}).draw(rng, sets_per_size)
            for n in SIZES]


def bootstrap_df1_size():
    """Bootstrap-dF1 test on 27 evaluation sets (N = 100 to 6000), B = 5000, both sides."""
    from core.criteria.classifiers import bootstrap_criterion

    def ours(small=False):
        crit = bootstrap_criterion("df1", 100 if small else N_BOOT)
        rng = np.random.default_rng(1)
        batches = _sets(1 if small else SETS_PER_SIZE)
        rejected = np.concatenate([crit(batch, rng).decisions(ALPHA) for batch in batches])
        return _describe(rejected)

    def peer(small=False):
        rng = np.random.default_rng(1)
        rejected = []
        for batch in _sets(1 if small else SETS_PER_SIZE):
            a_ok, b_ok = correctness(batch.counts)
            labels = (np.repeat(np.tile(np.arange(8), batch.n_reps), batch.counts.ravel())
                      .reshape(batch.n_reps, -1) >> 2)
            for label, a, b in zip(labels, a_ok, b_ok, strict=True):
                res = stats.bootstrap((label, a, b), _f1_difference, paired=True,
                                      vectorized=True, method="percentile",
                                      n_resamples=100 if small else N_BOOT,
                                      confidence_level=1 - ALPHA, rng=rng)
                low, high = res.confidence_interval
                rejected.append(not low <= 0 <= high)
        return _describe(rejected)

    return ours, peer
