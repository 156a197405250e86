"""Numba kernels of the built-in interval estimators (imported when one first runs)."""

from evalmc.compute.jit import njit


@njit(cache=True, nogil=True)
def bootstrap_means_into(rng, x, out):
    """``out[i, r]``: the mean of a resample (with replacement) of row ``x[i]``."""
    n = x.shape[1]
    for i in range(x.shape[0]):
        for r in range(out.shape[1]):
            s = 0.0
            for _ in range(n):
                s += x[i, rng.integers(0, n)]
            out[i, r] = s / n
