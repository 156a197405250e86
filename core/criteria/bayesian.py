"""Bayesian comparisons of two models on paired run scores, vectorized over replications.

``bayes-correlated-t`` is baycomp's correlated t-test (Corani and Benavoli 2015) on the
differences ``d = a - b`` of n pairs: the posterior of the mean difference is Student's t with
n - 1 degrees of freedom, location ``mean(d)`` and scale ``sqrt(var(d) (1/n + c))``, with
Nadeau and Bengio's correction ``c = 1/(n - 1)`` as baycomp applies it with ``runs=1`` (a test
share of 1/k in k-fold cross-validation; ``c = 0`` for runs on independent seeds). A better when
``P(A - B > rope)`` exceeds `threshold`: a decision, one-sided (``alternative='greater'``).

``bayes-signed-rank`` is baycomp's Bayesian signed-rank test (Benavoli et al. 2014): a Dirichlet
process posterior over the differences with a pseudo-observation at 0 of weight `prior`,
sampled `n_samples` times; P(A better) is the share of draws in which "A - B > rope" has the
largest mass (:func:`evalmc.criteria.kernels.signed_rank_posterior`). baycomp draws with a
legacy RandomState; here the draws come from the replication's Generator, so the two agree
within Monte Carlo error, not digit for digit.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from evalmc.criteria.base import BuiltinCriterion, CriterionResult
from evalmc.criteria.outperform import ResamplingCriterion
from evalmc.sims.base import Batch
from evalmc.sims.validation import check_float, check_int

THRESHOLD = 0.95
N_SAMPLES = 50_000
PRIOR = 0.5


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


def _signed_rank(batch: Batch, rng, rope, threshold, prior, n_samples) -> CriterionResult:
    from evalmc.criteria import kernels

    z = np.ascontiguousarray(batch.b - batch.a, dtype=float)  # baycomp's y - x
    prob = np.empty(z.shape[0])
    kernels.signed_rank_posterior(rng, z, prior, rope, n_samples, prob)
    return CriterionResult(np.zeros(prob.shape, bool), statistic=prob,
                           pvalue=np.full(prob.shape, np.nan), reject=prob > threshold)


def bayes_signed_rank(rope: float = 0.0, threshold: float = THRESHOLD, prior: float = PRIOR,
                      n_samples: int = N_SAMPLES) -> ResamplingCriterion:
    """``bayes-signed-rank``: A better when baycomp's signed-rank ``p_left > threshold``."""
    rope = check_float("rope", rope, low=0)
    threshold = check_float("threshold", threshold, low=0, high=1, open_high=True)
    prior = check_float("prior", prior, low=0, open_low=True)
    n_samples = check_int("n_samples", n_samples, low=1)
    args = [f"{k}={v:g}" for k, v, default in (("rope", rope, 0.0),
                                              ("threshold", threshold, THRESHOLD),
                                              ("prior", prior, PRIOR),
                                              ("n_samples", n_samples, N_SAMPLES))
            if v != default]
    name = "bayes-signed-rank" + (f"({','.join(args)})" if args else "")
    return ResamplingCriterion(
        name, f"baycomp's Bayesian signed-rank test: A better if P(A - B > {rope:g}) > "
              f"{threshold:g} ({n_samples} draws)",
        partial(_signed_rank, rope=rope, threshold=threshold, prior=prior, n_samples=n_samples),
        paired=True, decision_only=True, alternative="greater")
