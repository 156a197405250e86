"""Numba kernels of the built-in interval estimators (imported when one first runs)."""

from evalmc.compute.jit import njit


@njit(cache=True, nogil=True)
def bootstrap_means_into(rng, x, out):
    """``out[i, r]``: the mean of a resample (with replacement) of row ``x[i]``.

    Parameters
    ----------
    rng : numpy.random.Generator
        Draws the resample indices, one at a time.
    x : ndarray of float, shape (n_reps, n)
        The samples.
    out : ndarray of float, shape (n_reps, n_resamples)
        Filled with the resampled means.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.empty((1, 4))
    >>> bootstrap_means_into(np.random.default_rng(0), np.array([[1.0, 2.0, 3.0, 4.0]]), out)
    >>> out.tolist()
    [[3.0, 1.25, 3.0, 3.25]]
    """
    n = x.shape[1]
    for i in range(x.shape[0]):
        for r in range(out.shape[1]):
            s = 0.0
            for _ in range(n):
                s += x[i, rng.integers(0, n)]
            out[i, r] = s / n
