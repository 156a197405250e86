"""Sample sizes and power of the "A beats B" criteria of Bouthillier et al. (2021), exactly:
given the pipelines' shared biases (sd ``bias_ratio * sigma``) the wins are binomial with
``p = Phi(Phi^-1(p_ab) + bias_ratio Z)``, integrated over Z by Gauss-Hermite quadrature."""

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
    """Noether's (1987) number of pairs for the P(A>B) test to detect ``P(A>B) >= gamma``."""
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
    """Exact probability that the P(A>B) test says "A better" over `k` pairs, at each `p_ab`."""
    k = check_int("k", k, low=1)
    better = conclusion_probabilities(k, gamma=gamma, alpha=alpha, n_resamples=n_resamples)[:, 2]
    return wins_power(better, p_ab, k=k, bias_ratio=bias_ratio)


def wins_power(better, p_ab, *, k: int, bias_ratio=0.0) -> np.ndarray:
    """Probability of a decision on the wins only (`better`: given w of `k`), at each `p_ab`."""
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
    """Probability that ``mean(A) - mean(B) > delta sigma`` over `k` runs, at each `p_ab`."""
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
