"""Almost stochastic order (Dror et al. 2019), exactly as deepsig 1.2.8's ``aso`` computes it:
given a replication's seed, eps_min is deepsig's to rounding; A is better when
``eps_min < 0.2`` (a decision, one-sided)."""

from __future__ import annotations

import numpy as np

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.registry import ASO_THRESHOLD
from evalmc.sims.base import Batch

N_BOOT = 1000
DT = 0.005
CONFIDENCE = 0.95


def eps_min(a, b, seed: int, n_boot: int = N_BOOT, dt: float = DT,
            confidence: float = CONFIDENCE) -> float:
    """deepsig's ``aso(a, b, seed=seed)``: the upper bound of the violation ratio, in [0, 1]."""
    from scipy.special import ndtri

    from evalmc.criteria import kernels

    sa, sb = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    n_a, n_b = sa.size, sb.size
    legacy = np.random.RandomState()  # deepsig seeds NumPy's global legacy generator
    uniforms = np.empty((n_boot, n_a + n_b))
    for k in range(n_boot):
        legacy.seed(seed + k + 1)
        uniforms[k] = legacy.uniform(0, 1, n_a + n_b)
    ratios = np.empty(n_boot + 1)
    kernels.aso_violation_ratios(sa, sb, uniforms, np.arange(dt, 1, dt), dt, ratios)
    const = np.sqrt(n_a * n_b / (n_a + n_b))
    sigma = np.std(const * (ratios[1:] - ratios[0]))
    return float(np.clip(ratios[0] - sigma / const * ndtri(1 - confidence), 0, 1))


def aso(batch: Batch, rng: np.random.Generator,
        threshold: float = ASO_THRESHOLD) -> CriterionResult:
    """deepsig's ASO decision per replication: A better when ``eps_min(a, b) < threshold``, each
    replication's bootstrap seeded from `rng`.

    Parameters
    ----------
    batch : Batch
        Scores of A and B, one row per replication.
    rng : numpy.random.Generator
        Draws each replication's seed.
    threshold : float
        A is better when eps_min is below it.

    Returns
    -------
    CriterionResult
        ``statistic`` is eps_min; decisions only (``reject``), p-values NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 10)), rng.normal(0.0, 1.0, (2, 10)), paired=False)
    >>> result = aso(batch, np.random.default_rng(0))
    >>> result.statistic.round(4), result.reject
    (array([0.027 , 0.4689]), array([ True, False]))
    """
    a, b = np.asarray(batch.a, float), np.asarray(batch.b, float)
    values = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        values[i] = eps_min(a[i], b[i], int(rng.integers(2**31)))
    return CriterionResult(np.zeros(a.shape[0], bool), statistic=values,
                           pvalue=np.full(a.shape[0], np.nan), reject=values < threshold)
