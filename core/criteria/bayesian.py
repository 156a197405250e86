"""Bayesian comparisons of two models on paired run scores, vectorized over replications.

``bayes-correlated-t`` is baycomp's correlated t-test (Corani and Benavoli 2015) on the
differences ``d = a - b`` of n pairs: the posterior of the mean difference is Student's t with
n - 1 degrees of freedom, location ``mean(d)`` and scale ``sqrt(var(d) (1/n + c))``, with
Nadeau and Bengio's correction ``c = 1/(n - 1)`` as baycomp applies it with ``runs=1`` (a test
share of 1/k in k-fold cross-validation; ``c = 0`` for runs on independent seeds). A better when
``P(A - B > rope)`` exceeds `threshold`: a decision, one-sided (``alternative='greater'``).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from evalmc.criteria.base import BuiltinCriterion, CriterionResult
from evalmc.sims.base import Batch
from evalmc.sims.validation import check_float

THRESHOLD = 0.95


def correlated_t_probability(d: np.ndarray, rope: float = 0.0,
                             correction: float | None = None) -> np.ndarray:
    """Posterior ``P(mean difference > rope)`` of each row of `d` (baycomp's ``p_left`` with
    x = A, y = B); `correction` None is baycomp's ``1/(n - 1)``. A row of equal differences
    has a point posterior: 1, 0.5 or 0 as its mean is above, at or below `rope`."""
    from scipy import stats

    n = d.shape[1]
    c = 1.0 / (n - 1) if correction is None else correction
    mean = d.mean(axis=1)
    scale = np.sqrt(d.var(axis=1, ddof=1) * (1.0 / n + c))
    point = np.where(mean > rope, 1.0, np.where(mean == rope, 0.5, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        prob = stats.t.sf((rope - mean) / scale, n - 1)
    return np.where(scale > 0, prob, point)


def _correlated_t(batch: Batch, rope, threshold, correction) -> CriterionResult:
    d = np.asarray(batch.a - batch.b, dtype=float)
    prob = correlated_t_probability(d, rope, correction)
    failed = np.isnan(prob)
    return CriterionResult(failed, statistic=prob, pvalue=np.full(prob.shape, np.nan),
                           reject=prob > threshold)


def bayes_correlated_t(rope: float = 0.0, threshold: float = THRESHOLD,
                       correction: float | None = None) -> BuiltinCriterion:
    """``bayes-correlated-t``: A better when baycomp's ``P(A - B > rope) > threshold``."""
    rope = check_float("rope", rope, low=0)
    threshold = check_float("threshold", threshold, low=0, high=1, open_high=True)
    if correction is not None:
        correction = check_float("correction", correction, low=0)
    args = [f"{k}={v:g}" for k, v, default in (("rope", rope, 0.0),
                                              ("threshold", threshold, THRESHOLD),
                                              ("correction", correction, None))
            if v != default and v is not None]
    name = "bayes-correlated-t" + (f"({','.join(args)})" if args else "")
    return BuiltinCriterion(
        name, f"baycomp's correlated t-test: A better if P(A - B > {rope:g}) > {threshold:g}",
        partial(_correlated_t, rope=rope, threshold=threshold, correction=correction),
        paired=True, decision_only=True, alternative="greater")
