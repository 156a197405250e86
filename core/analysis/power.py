"""Sample sizes and power of the "A beats B" criteria of Bouthillier et al. (2021).

- :func:`noether_sample_size`: runs needed by the P(A>B) test (Noether, 1987).
- :func:`outperform_power`: probability that the P(A>B) bootstrap test concludes "A better",
  exactly, from its operating characteristic (no resampling).
- :func:`average_power`: the same for "mean(A) - mean(B) > delta", in closed form.
- :func:`wins_power`: the same for any decision made from the count of wins.

Both power functions take the benchmark process of ``evalmc.sims.benchmarks``: k paired runs,
runs of sd sigma, and under the biased estimator a bias of sd ``bias_ratio * sigma`` shared by each
pipeline's runs. Given the two biases, the wins follow a binomial law with
``p = Phi(Phi^-1(p_ab) + bias_ratio Z)``, Z standard normal; the power integrates over Z by
Gauss-Hermite quadrature.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy import stats
from scipy.special import ndtr, ndtri

from evalmc.criteria.outperform import GAMMA, N_RESAMPLES, conclusion_probabilities
from evalmc.inputs.checks import check_float, check_int

#: Gauss-Hermite nodes for the integral over the bias (exact for polynomials of degree < 2n).
N_NODES = 80


def noether_sample_size(gamma=GAMMA, *, alpha=0.05, beta=0.05) -> int:
    """Noether's (1987) number of pairs for the P(A>B) test to detect ``P(A>B) >= gamma``.

    ``N = (Phi^-1(1 - alpha) - Phi^-1(beta))^2 / (6 (gamma - 1/2)^2)``, rounded up.

    Parameters
    ----------
    gamma : float
        Smallest meaningful P(A>B), in (0.5, 1).
    alpha, beta : float
        Targeted rates of false positives and of false negatives, each in (0, 1).

    Returns
    -------
    int

    Examples
    --------
    >>> from evalmc.analysis.power import noether_sample_size
    >>> noether_sample_size(0.75), noether_sample_size(0.75, beta=0.2)
    (29, 17)
    """
    gamma = check_float("gamma", gamma, low=0.5, high=1, open_low=True, open_high=True)
    alpha = check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    beta = check_float("beta", beta, low=0, high=1, open_low=True, open_high=True)
    n = (ndtri(1 - alpha) - ndtri(beta)) ** 2 / (6 * (gamma - 0.5) ** 2)
    return math.ceil(n - 1e-9)  # guard against 29.000000000000004


def _check_p_ab(p_ab) -> np.ndarray:
    p_ab = np.atleast_1d(np.asarray(p_ab, dtype=float))
    if not np.all((p_ab > 0) & (p_ab < 1)):
        raise ValueError(f"`p_ab` must be in (0, 1); got {p_ab[~((p_ab > 0) & (p_ab < 1))][0]}.")
    return p_ab


def _check_bias(bias_ratio) -> float:
    return check_float("bias_ratio", bias_ratio, low=0)


def outperform_power(p_ab, *, k: int, gamma=GAMMA, alpha=0.05, n_resamples=N_RESAMPLES,
                     bias_ratio=0.0) -> np.ndarray:
    """Probability that the P(A>B) test concludes "A better", at each true P(A>B).

    Parameters
    ----------
    p_ab : array_like of float
        True P(A>B) of one run against one, each in (0, 1).
    k : int
        Pairs of runs.
    gamma, alpha, n_resamples
        The test's parameters (see ``evalmc.criteria.outperform.outperform_test``).
    bias_ratio : float
        Sd of each pipeline's shared bias over sigma; 0 for the ideal estimator.

    Returns
    -------
    ndarray, shape like ``np.atleast_1d(p_ab)``

    Examples
    --------
    >>> from evalmc.analysis.power import outperform_power
    >>> outperform_power([0.5, 0.75, 0.9], k=20).round(4).tolist()
    [0.0206, 0.6163, 0.9886]
    >>> outperform_power(0.75, k=20, bias_ratio=0.5).round(4).tolist()  # biased estimator
    [0.5579]
    """
    k = check_int("k", k, low=1)
    better = conclusion_probabilities(k, gamma=gamma, alpha=alpha, n_resamples=n_resamples)[:, 2]
    return wins_power(better, p_ab, k=k, bias_ratio=bias_ratio)


def wins_power(better, p_ab, *, k: int, bias_ratio=0.0) -> np.ndarray:
    """Probability of a decision that depends on the wins only, at each true P(A>B).

    Parameters
    ----------
    better : array_like, shape (k + 1,)
        Probability of the decision given w wins of `k`, for w = 0..k.
    p_ab : array_like of float
        True P(A>B) of one run against one, each in (0, 1).
    k : int
        Pairs of runs.
    bias_ratio : float
        Sd of each pipeline's shared bias over sigma; 0 for the ideal estimator.

    Returns
    -------
    ndarray, shape like ``np.atleast_1d(p_ab)``

    Examples
    --------
    A decision "A better" when A wins at least 8 of 10 pairs:

    >>> import numpy as np
    >>> from evalmc.analysis.power import wins_power
    >>> better = (np.arange(11) >= 8).astype(float)
    >>> wins_power(better, [0.5, 0.8], k=10).round(4).tolist()
    [0.0547, 0.6778]
    """
    p_ab = _check_p_ab(p_ab)
    bias_ratio = _check_bias(bias_ratio)
    k = check_int("k", k, low=1)
    better = np.asarray(better, dtype=float)
    if better.shape != (k + 1,):
        raise ValueError(f"`better` must have k + 1 = {k + 1} values; got shape {better.shape}.")
    nodes, weights = _bias_nodes(bias_ratio)
    p = ndtr(ndtri(p_ab)[:, None] + bias_ratio * nodes)  # (n_p, n_nodes)
    pmf = stats.binom.pmf(np.arange(k + 1), k, p[..., None])  # (n_p, n_nodes, k + 1)
    return (pmf @ better) @ weights


def average_power(p_ab, *, k: int, delta, bias_ratio=0.0) -> np.ndarray:
    """Probability that ``mean(A) - mean(B) > delta sigma`` over `k` runs, at each P(A>B).

    ``mean(A) - mean(B) ~ N(Phi^-1(p_ab) sqrt(2) sigma, 2 sigma^2 (1 / k + bias_ratio^2))``;
    ``k = 1`` is the single-point comparison.

    Parameters
    ----------
    p_ab : array_like of float
        True P(A>B) of one run against one, each in (0, 1).
    k : int
        Runs of each pipeline.
    delta : float
        Threshold, in units of sigma.
    bias_ratio : float
        Sd of each pipeline's shared bias over sigma; 0 for the ideal estimator.

    Returns
    -------
    ndarray, shape like ``np.atleast_1d(p_ab)``

    Examples
    --------
    >>> from evalmc.analysis.power import average_power
    >>> average_power([0.5, 0.75], k=10, delta=0.0).round(4).tolist()
    [0.5, 0.9835]
    >>> average_power([0.5, 0.75], k=1, delta=1.0).round(4).tolist()  # single point
    [0.2398, 0.487]
    """
    p_ab = _check_p_ab(p_ab)
    bias_ratio = _check_bias(bias_ratio)
    k = check_int("k", k, low=1)
    delta = check_float("delta", delta)
    sd = np.sqrt(2 * (1 / k + bias_ratio**2))
    return ndtr((ndtri(p_ab) * np.sqrt(2) - delta) / sd)


def _bias_nodes(bias_ratio):
    if bias_ratio == 0:
        return np.zeros(1), np.ones(1)
    nodes, weights = hermegauss(N_NODES)
    return nodes, weights / weights.sum()
