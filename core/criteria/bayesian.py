"""Bayesian comparisons of two models on paired run scores, vectorized: baycomp's correlated
t-test (Corani and Benavoli 2015) and Bayesian signed-rank test (Benavoli et al. 2014), whose
draws come from the replication's Generator. A better when ``P(A - B > rope) > threshold``."""

from __future__ import annotations

from functools import partial

import numpy as np

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.registry import BAYES_PRIOR as PRIOR
from evalmc.criteria.registry import BAYES_SAMPLES as N_SAMPLES
from evalmc.criteria.registry import BAYES_THRESHOLD as THRESHOLD
from evalmc.engine.options import check_interrupted
from evalmc.inputs.checks import check_float, check_int
from evalmc.sims.base import Batch


def correlated_t_probability(d: np.ndarray, rope: float = 0.0,
                             correction: float | None = None) -> np.ndarray:
    """Posterior ``P(mean difference > rope)`` of each row of `d` (baycomp's ``p_left``)."""
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
                       correction: float | None = None):
    """The ``bayes-correlated-t`` family: A better when baycomp's ``P(A - B > rope) > threshold``.

    Parameters
    ----------
    rope : float
        Region of practical equivalence around 0 (>= 0).
    threshold : float
        Posterior probability to decide, in [0, 1).
    correction : float, optional
        Variance correction c; default ``1 / (n - 1)``, as baycomp's ``runs=1``.

    Returns
    -------
    callable
        ``test(batch) -> CriterionResult``.

    Examples
    --------
    >>> from evalmc.criteria import get_criterion
    >>> get_criterion("bayes-correlated-t(rope=0.01)").name
    'bayes-correlated-t(rope=0.01)'
    """
    rope = check_float("rope", rope, low=0)
    threshold = check_float("threshold", threshold, low=0, high=1, open_high=True)
    if correction is not None:
        correction = check_float("correction", correction, low=0)
    return partial(_correlated_t, rope=rope, threshold=threshold, correction=correction)


#: Posterior draws per replication at most: their Monte Carlo error on P(A better) is then
#: below 0.0005, and a replication of 10 pairs takes about 0.2 s.
MAX_SAMPLES = 1_000_000
#: Posterior draws per call of the kernel at most: Ctrl-C stops between calls.
_CHUNK = 2**20


def _signed_rank(batch: Batch, rng, rope, threshold, prior, n_samples) -> CriterionResult:
    from evalmc.criteria import kernels

    z = np.ascontiguousarray(batch.b - batch.a, dtype=float)  # baycomp's y - x
    prob = np.empty(z.shape[0])
    rows = max(1, _CHUNK // n_samples)  # the rows draw from `rng` in turn, whatever the chunks
    for start in range(0, z.shape[0], rows):
        check_interrupted()
        kernels.signed_rank_posterior(rng, z[start:start + rows], prior, rope, n_samples,
                                      prob[start:start + rows])
    return CriterionResult(np.zeros(prob.shape, bool), statistic=prob,
                           pvalue=np.full(prob.shape, np.nan), reject=prob > threshold)


def bayes_signed_rank(rope: float = 0.0, threshold: float = THRESHOLD, prior: float = PRIOR,
                      n_samples: int = N_SAMPLES):
    """The ``bayes-signed-rank`` family: A better when baycomp's signed-rank ``p_left > threshold``.

    Parameters
    ----------
    rope : float
        Region of practical equivalence around 0 (>= 0).
    threshold : float
        Posterior probability to decide, in [0, 1).
    prior : float
        Weight of the Dirichlet prior's pseudo-observation at 0 (> 0).
    n_samples : int
        Posterior draws per replication, at most :data:`MAX_SAMPLES`.

    Returns
    -------
    callable
        ``test(batch, rng) -> CriterionResult``.

    Examples
    --------
    >>> from evalmc.criteria import get_criterion
    >>> get_criterion("bayes-signed-rank", n_samples=1000).name
    'bayes-signed-rank(n_samples=1000)'
    """
    rope = check_float("rope", rope, low=0)
    threshold = check_float("threshold", threshold, low=0, high=1, open_high=True)
    prior = check_float("prior", prior, low=0, open_low=True)
    n_samples = check_int("n_samples", n_samples, low=1, high=MAX_SAMPLES)
    return partial(_signed_rank, rope=rope, threshold=threshold, prior=prior,
                   n_samples=n_samples)
