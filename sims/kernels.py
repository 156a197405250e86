"""Numba kernels of the simulators: each fills a caller-allocated array.

A ``*_slab`` kernel draws a slab of blocks in one call, each block from its own stream
(:class:`evalmc.compute.streams.BlockStreams`): it seeds one Generator block after block with
:func:`~evalmc.compute.seeding.enter_block`, which
:func:`~evalmc.compute.seeding.pcg64_states` makes cheap.

Kept apart from the scenario classes so that listing or validating a scenario never imports
Numba; a scenario imports this module when it first draws.
"""

import math

import numpy as np

from evalmc.compute.jit import njit
from evalmc.compute.seeding import enter_block


@njit(cache=True, nogil=True)
def row_mean_var_into(x, sign_y, y, mean, var):
    """Mean and unbiased variance of each row of ``x + sign_y * y`` (two passes, no temporaries).

    Parameters
    ----------
    x, y : ndarray of float, shape (n_reps, n)
        C-contiguous; `y` is ignored when `sign_y` is 0 (pass `x` again).
    sign_y : float
        0 for the rows of `x`, -1 for those of ``x - y``.
    mean, var : ndarray of float, shape (n_reps,)
        Filled in place.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import row_mean_var_into
    >>> x, mean, var = np.array([[1.0, 2.0, 3.0]]), np.empty(1), np.empty(1)
    >>> row_mean_var_into(x, -1.0, np.array([[0.0, 0.0, 1.0]]), mean, var)
    >>> mean.round(4).tolist(), var.round(4).tolist()
    ([1.6667], [0.3333])
    """
    n = x.shape[1]
    for i in range(x.shape[0]):
        s = 0.0
        for j in range(n):
            s += x[i, j] + sign_y * y[i, j]
        m = s / n
        ss = 0.0
        for j in range(n):
            d = x[i, j] + sign_y * y[i, j] - m
            ss += d * d
        mean[i] = m
        var[i] = ss / (n - 1)


@njit(cache=True, nogil=True)
def skew_delta(skew):
    """The skew-normal's ``delta = skew / sqrt(1 + skew^2)``, +-1 where ``skew^2`` overflows
    (beyond 1.3e154 it is +-1 in floats; ``skew / inf`` would make it 0, a normal).

    Parameters
    ----------
    skew : float

    Returns
    -------
    float

    Examples
    --------
    >>> from evalmc.sims.kernels import skew_delta
    >>> round(skew_delta(-4.0), 4), skew_delta(1e200)
    (-0.9701, 1.0)
    """
    square = skew * skew
    return skew / np.sqrt(1.0 + square) if np.isfinite(square) else np.sign(skew)


@njit(cache=True, nogil=True)
def skewnorm_into(rng, loc, scale, skew, shift, a, b):
    """Skew-normal draws (scipy.stats.skewnorm(skew, loc, scale)) into every cell of `a`, plus
    `shift`, and of `b`: row by row, A's cells first.

    Parameters
    ----------
    rng : numpy.random.Generator
    loc, scale, skew : float
        The skew-normal's parameters.
    shift : float
        Added to A's cells.
    a, b : ndarray of float, shape (n_reps, n_a) and (n_reps, n_b)
        Filled in place.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import skewnorm_into
    >>> a, b = np.empty((2, 3)), np.empty((2, 2))
    >>> skewnorm_into(np.random.default_rng(0), 0.0, 1.0, -4.0, 0.0, a, b)
    >>> a.round(4).tolist()
    [[-0.154, -0.5959, -0.6074], [-0.6147, -2.2025, -1.0311]]
    """
    delta = skew_delta(skew)
    tail = np.sqrt(1.0 - delta * delta)
    n_a = a.shape[1]
    for i in range(a.shape[0]):
        for j in range(n_a + b.shape[1]):
            u0 = rng.standard_normal()
            u1 = delta * u0 + tail * rng.standard_normal()
            x = loc + scale * (u1 if u0 >= 0.0 else -u1)
            if j < n_a:
                a[i, j] = x + shift
            else:
                b[i, j - n_a] = x


@njit(cache=True, nogil=True)
def mixture_into(rng, weight, loc1, loc2, scale1, scale2, shift, a, b):
    """Two-component Gaussian mixture draws (second component with `weight`) into `a`, plus
    `shift`, and `b`: row by row, A's cells first.

    Parameters
    ----------
    rng : numpy.random.Generator
    weight : float
        Probability of the second component.
    loc1, loc2, scale1, scale2 : float
        Means and sds of the two components.
    shift : float
        Added to A's cells.
    a, b : ndarray of float, shape (n_reps, n_a) and (n_reps, n_b)
        Filled in place.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import mixture_into
    >>> a, b = np.empty((2, 3)), np.empty((2, 2))
    >>> mixture_into(np.random.default_rng(0), 0.3, 0.0, 3.0, 1.0, 1.0, 10.0, a, b)
    >>> a.round(2).tolist(), b.round(2).tolist()
    ([[9.87, 13.1, 10.36], [10.04, 9.78, 9.27]], [[0.95, -1.27], [-0.32, 4.04]])
    """
    n_a = a.shape[1]
    for i in range(a.shape[0]):
        for j in range(n_a + b.shape[1]):
            if rng.random() < weight:
                x = loc2 + scale2 * rng.standard_normal()
            else:
                x = loc1 + scale1 * rng.standard_normal()
            if j < n_a:
                a[i, j] = x + shift
            else:
                b[i, j - n_a] = x


@njit(cache=True, nogil=True)
def smoothed_bootstrap_into(rng, data, bandwidth, shift, a, b):
    """A resampled `data` point plus N(0, bandwidth^2) noise into every cell of `a`, plus
    `shift`, and of `b`: row by row, A's cells first.

    Parameters
    ----------
    rng : numpy.random.Generator
    data : ndarray of float, shape (m,)
        The scores resampled.
    bandwidth : float
        Sd of the Gaussian kernel.
    shift : float
        Added to A's cells.
    a, b : ndarray of float, shape (n_reps, n_a) and (n_reps, n_b)
        Filled in place.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import smoothed_bootstrap_into
    >>> a, b = np.empty((2, 3)), np.empty((2, 2))
    >>> smoothed_bootstrap_into(np.random.default_rng(0), np.array([0.9, 0.8]), 0.01, 0.0, a, b)
    >>> a.round(3).tolist()
    [[0.799, 0.806, 0.895], [0.793, 0.794, 0.8]]
    """
    m = data.shape[0]
    n_a = a.shape[1]
    for i in range(a.shape[0]):
        for j in range(n_a + b.shape[1]):
            x = data[rng.integers(0, m)] + bandwidth * rng.standard_normal()
            if j < n_a:
                a[i, j] = x + shift
            else:
                b[i, j - n_a] = x


@njit(cache=True, nogil=True)
def skewnorm_slab(rng, states, bounds, loc, scale, skew, shift, a, b):
    """:func:`skewnorm_into` for a slab of blocks: rows ``bounds[k]:bounds[k + 1]`` from
    block k's stream (:class:`~evalmc.compute.streams.BlockStreams`).

    Parameters
    ----------
    rng : numpy.random.Generator
        PCG64, set to each block's state in turn (:func:`enter_block`).
    states : ndarray of uint64, shape (blocks, 4)
        The blocks' initial states (:attr:`~evalmc.compute.streams.BlockStreams.states`).
    bounds : ndarray of int64, shape (blocks + 1,)
        The blocks' first rows, and the end.
    loc, scale, skew, shift : float
        As :func:`skewnorm_into`.
    a, b : ndarray of float, shape (bounds[-1], n_a) and (bounds[-1], n_b)
        Filled in place.

    Examples
    --------
    Block 1's rows are what block 1's own generator draws into them:

    >>> import numpy as np
    >>> from evalmc.sims.kernels import skewnorm_into, skewnorm_slab
    >>> from evalmc.compute.streams import BlockStreams
    >>> from evalmc.compute.pcg64 import block_rng
    >>> a, b = np.empty((3, 2)), np.empty((3, 2))
    >>> BlockStreams(seed=1, cid=7, first=0, count=2).run(
    ...     skewnorm_slab, np.array([0, 1, 3]), 0.0, 1.0, -4.0, 0.0, a, b)
    >>> a.round(4).tolist()
    [[-1.3294, -0.1089], [-1.7237, -1.0764], [-1.2542, -0.6265]]
    >>> a1, b1 = np.empty((2, 2)), np.empty((2, 2))
    >>> skewnorm_into(block_rng(1, 7, 1), 0.0, 1.0, -4.0, 0.0, a1, b1)
    >>> bool((a[1:] == a1).all() and (b[1:] == b1).all())
    True
    """
    for k in range(bounds.size - 1):
        enter_block(rng, states, k)
        rows = slice(bounds[k], bounds[k + 1])
        skewnorm_into(rng, loc, scale, skew, shift, a[rows], b[rows])


@njit(cache=True, nogil=True)
def mixture_slab(rng, states, bounds, weight, loc1, loc2, scale1, scale2, shift, a, b):
    """:func:`mixture_into` for a slab of blocks, each from its own stream: rows
    ``bounds[k]:bounds[k + 1]`` from block k's.

    Parameters
    ----------
    rng : numpy.random.Generator
        PCG64, set to each block's state in turn (:func:`enter_block`).
    states : ndarray of uint64, shape (blocks, 4)
        The blocks' initial states (:attr:`~evalmc.compute.streams.BlockStreams.states`).
    bounds : ndarray of int64, shape (blocks + 1,)
        The blocks' first rows, and the end.
    weight, loc1, loc2, scale1, scale2, shift : float
        As :func:`mixture_into`.
    a, b : ndarray of float, shape (bounds[-1], n_a) and (bounds[-1], n_b)
        Filled in place.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import mixture_into, mixture_slab
    >>> from evalmc.compute.streams import BlockStreams
    >>> from evalmc.compute.pcg64 import block_rng
    >>> a, b = np.empty((3, 2)), np.empty((3, 2))
    >>> BlockStreams(seed=1, cid=7, first=0, count=2).run(
    ...     mixture_slab, np.array([0, 1, 3]), 0.3, 0.0, 3.0, 1.0, 1.0, 10.0, a, b)
    >>> b.round(2).tolist()
    [[3.58, 1.18], [0.92, 1.47], [1.15, -0.8]]
    >>> a1, b1 = np.empty((2, 2)), np.empty((2, 2))
    >>> mixture_into(block_rng(1, 7, 1), 0.3, 0.0, 3.0, 1.0, 1.0, 10.0, a1, b1)
    >>> bool((a[1:] == a1).all() and (b[1:] == b1).all())
    True
    """
    for k in range(bounds.size - 1):
        enter_block(rng, states, k)
        rows = slice(bounds[k], bounds[k + 1])
        mixture_into(rng, weight, loc1, loc2, scale1, scale2, shift, a[rows], b[rows])


@njit(cache=True, nogil=True)
def smoothed_bootstrap_slab(rng, states, bounds, data, bandwidth, shift, a, b):
    """:func:`smoothed_bootstrap_into` for a slab of blocks, each from its own stream: rows
    ``bounds[k]:bounds[k + 1]`` from block k's.

    Parameters
    ----------
    rng : numpy.random.Generator
        PCG64, set to each block's state in turn (:func:`enter_block`).
    states : ndarray of uint64, shape (blocks, 4)
        The blocks' initial states (:attr:`~evalmc.compute.streams.BlockStreams.states`).
    bounds : ndarray of int64, shape (blocks + 1,)
        The blocks' first rows, and the end.
    data : ndarray of float, shape (m,)
        The scores resampled.
    bandwidth, shift : float
        As :func:`smoothed_bootstrap_into`.
    a, b : ndarray of float, shape (bounds[-1], n_a) and (bounds[-1], n_b)
        Filled in place.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import smoothed_bootstrap_into, smoothed_bootstrap_slab
    >>> from evalmc.compute.streams import BlockStreams
    >>> from evalmc.compute.pcg64 import block_rng
    >>> data, a, b = np.array([0.9, 0.8]), np.empty((3, 2)), np.empty((3, 2))
    >>> BlockStreams(seed=1, cid=7, first=0, count=2).run(
    ...     smoothed_bootstrap_slab, np.array([0, 1, 3]), data, 0.01, 0.0, a, b)
    >>> a.round(3).tolist()
    [[0.798, 0.804], [0.811, 0.788], [0.915, 0.912]]
    >>> a1, b1 = np.empty((2, 2)), np.empty((2, 2))
    >>> smoothed_bootstrap_into(block_rng(1, 7, 1), data, 0.01, 0.0, a1, b1)
    >>> bool((a[1:] == a1).all() and (b[1:] == b1).all())
    True
    """
    for k in range(bounds.size - 1):
        enter_block(rng, states, k)
        rows = slice(bounds[k], bounds[k + 1])
        smoothed_bootstrap_into(rng, data, bandwidth, shift, a[rows], b[rows])


@njit(cache=True, nogil=True)
def gaussian_slab(rng, states, bounds, dfs, out):
    """Standard normal (``dfs[j] == 0``) or chi-square (``dfs[j]`` degrees of freedom) draws
    into each row ``out[j]``, block after block: block k, from its own stream, fills columns
    ``bounds[k]:bounds[k + 1]`` of row 0, then of row 1, and so on, in the order of numpy's
    ``rng.standard_normal(size)`` and ``rng.chisquare(df, size)`` called one after the other.

    Parameters
    ----------
    rng : numpy.random.Generator
        PCG64, set to each block's state in turn (:func:`enter_block`).
    states : ndarray of uint64, shape (blocks, 4)
        The blocks' initial states (:attr:`~evalmc.compute.streams.BlockStreams.states`).
    bounds : ndarray of int64, shape (blocks + 1,)
        The blocks' first columns, and the end.
    dfs : ndarray of float, shape (rows,)
        Each row's degrees of freedom; 0 for standard normal draws.
    out : ndarray of float, shape (rows, bounds[-1])
        Filled in place.

    Examples
    --------
    Block 1 (columns 3 and 4) draws its normals, then its chi-squares with 4 degrees of
    freedom, as its own generator would:

    >>> import numpy as np
    >>> from evalmc.sims.kernels import gaussian_slab
    >>> from evalmc.compute.streams import BlockStreams
    >>> from evalmc.compute.pcg64 import block_rng
    >>> out = np.empty((2, 5))
    >>> BlockStreams(seed=1, cid=7, first=0, count=2).run(
    ...     gaussian_slab, np.array([0, 3, 5]), np.array([0.0, 4.0]), out)
    >>> out.round(3).tolist()
    [[-1.409, -0.155, 0.448, -1.5, 1.107], [8.148, 5.07, 7.41, 1.088, 1.568]]
    >>> rng = block_rng(1, 7, 1)
    >>> bool((out[0, 3:] == rng.standard_normal(2)).all()
    ...      and (out[1, 3:] == rng.chisquare(4.0, 2)).all())
    True
    """
    for k in range(bounds.size - 1):
        enter_block(rng, states, k)
        for j in range(dfs.size):
            if dfs[j] == 0:
                for i in range(bounds[k], bounds[k + 1]):
                    out[j, i] = rng.standard_normal()
            else:
                for i in range(bounds[k], bounds[k + 1]):
                    out[j, i] = rng.chisquare(dfs[j])


@njit(cache=True, nogil=True)
def chain_link(rng, left, mass, p):
    """One cell of a multinomial drawn as a chain: ``Binomial(left, p / mass)``.

    `left` is the count not yet drawn and `mass` the probability of the cells not yet drawn.

    Parameters
    ----------
    rng : numpy.random.Generator
    left : int
    mass : float
    p : float
        The cell's probability.

    Returns
    -------
    int
        0 when nothing is left.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import chain_link
    >>> rng = np.random.default_rng(0)
    >>> chain_link(rng, 10, 1.0, 0.5), chain_link(rng, 0, 1.0, 0.5)
    (6, 0)
    """
    if left == 0 or mass <= 0.0:
        return 0
    return rng.binomial(left, min(1.0, max(0.0, p / mass)))


@njit(cache=True, nogil=True)
def multinomial_into(rng, n, p, out):
    """One multinomial draw of `n` over the probabilities `p`, written into `out`.

    Numba's Generator has no multinomial; this is the chain of conditional binomials that
    numpy's own ``Generator.multinomial`` uses: cell ``k`` gets
    ``Binomial(n - drawn so far, p[k] / (1 - sum(p[:k])))``, the last cell the remainder.

    Parameters
    ----------
    rng : numpy.random.Generator
    n : int
        Trials.
    p : ndarray of float
        Cell probabilities, summing to 1.
    out : ndarray of int64, shape (len(p),)
        Filled in place.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import multinomial_into
    >>> out = np.empty(3, np.int64)
    >>> multinomial_into(np.random.default_rng(0), 10, np.array([0.2, 0.3, 0.5]), out)
    >>> out.tolist()
    [2, 2, 6]
    """
    left = n
    mass = 1.0
    last = p.shape[0] - 1
    for k in range(last):
        out[k] = chain_link(rng, left, mass, p[k])
        left -= out[k]
        mass -= p[k]
    out[last] = left


@njit(cache=True, nogil=True)
def multinomial_rows_into(rng, n, p, out):
    """One multinomial draw of `n` over `p` into each row of `out`.

    Parameters
    ----------
    rng : numpy.random.Generator
    n : int
        Trials of each draw.
    p : ndarray of float
        Cell probabilities, summing to 1.
    out : ndarray of int64, shape (n_reps, len(p))
        Filled in place.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import multinomial_rows_into
    >>> out = np.empty((2, 3), np.int64)
    >>> multinomial_rows_into(np.random.default_rng(0), 10, np.array([0.2, 0.3, 0.5]), out)
    >>> out.tolist()
    [[2, 2, 6], [0, 1, 9]]
    """
    for i in range(out.shape[0]):
        multinomial_into(rng, n, p, out[i])


@njit(cache=True, nogil=True)
def fold_split(order, starts, f):
    """The test and training examples of fold f of a permutation `order`.

    Parameters
    ----------
    order : ndarray of int
        A permutation of the examples.
    starts : ndarray of int
        Where each fold starts, and the end of the last (:meth:`Splits.fold_starts`).
    f : int
        The fold.

    Returns
    -------
    test, train : ndarray of int

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import fold_split
    >>> test, train = fold_split(np.array([4, 2, 0, 1, 3]), np.array([0, 2, 5]), 0)
    >>> test.tolist(), train.tolist()
    ([4, 2], [0, 1, 3])
    """
    test = order[starts[f]:starts[f + 1]]
    return test, np.concatenate((order[:starts[f]], order[starts[f + 1]:]))


@njit(cache=True, nogil=True)
def split_outputs(n_reps, splits, n_test, per_example):
    """Arrays of the learning kernels: losses of A and B, shape (2, n_reps, splits), or
    (2, n_reps, splits x n_test) `per_example`; exact risks, shape (2, n_reps, splits).

    Parameters
    ----------
    n_reps, splits, n_test : int
    per_example : bool

    Returns
    -------
    loss, risk : ndarray of float (uninitialized)

    Examples
    --------
    >>> from evalmc.sims.kernels import split_outputs
    >>> [x.shape for x in split_outputs(2, 3, 4, True)]
    [(2, 2, 12), (2, 2, 3)]
    """
    return (np.empty((2, n_reps, splits * (n_test if per_example else 1))),
            np.empty((2, n_reps, splits)))


@njit(cache=True, nogil=True)
def store_loss(loss, m, i, col, values, per_example):
    """Model m's test losses on split `col` of replication i: each, or their mean.

    Parameters
    ----------
    loss : ndarray of float
        From :func:`split_outputs`; written in place.
    m, i, col : int
        Model (0 for A, 1 for B), replication and split.
    values : ndarray of float
        The losses of the split's test examples.
    per_example : bool
        Store each loss (columns ``col * len(values)`` on) rather than their mean.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import store_loss
    >>> loss = np.zeros((2, 1, 2))
    >>> store_loss(loss, 0, 0, 1, np.array([1.0, 3.0]), False)
    >>> loss[0].tolist()
    [[0.0, 2.0]]
    """
    if per_example:
        loss[m, i, col * values.size:(col + 1) * values.size] = values
    else:
        loss[m, i, col] = np.mean(values)


@njit(cache=True, nogil=True)
def least_squares_splits(rng, n_reps, n, beta, p, sd, repeats, starts, per_example):
    """The cv-regression scenario's data sets and fits (:mod:`evalmc.sims.learning`).

    Per replication: ``x ~ N(0, I_d)`` (n x d), ``y = x beta + sd e``; per repetition a
    permutation of the n examples, whose blocks ``starts[f]:starts[f + 1]`` are the test folds.
    Returns the test losses of least squares on all d features (A) and on the first p (B), of
    shape (n_reps, splits): each split's mean squared error, or with `per_example` (one fold a
    repetition) each test example's squared error, split after split, shape
    (n_reps, splits x n_test); and the models' exact risks ``sd^2 + |b - beta|^2``, shape
    (n_reps, splits).

    Parameters
    ----------
    rng : numpy.random.Generator
    n_reps, n : int
        Data sets, and examples in each.
    beta : ndarray of float, shape (d,)
        The population coefficients.
    p : int
        B's features (the first p).
    sd : float
        Noise sd.
    repeats : int
        Permutations of each data set.
    starts : ndarray of int
        Test folds of a permutation (:meth:`Splits.fold_starts`).
    per_example : bool

    Returns
    -------
    test_a, test_b, risk_a, risk_b : ndarray of float

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import least_squares_splits
    >>> test_a, test_b, risk_a, risk_b = least_squares_splits(
    ...     np.random.default_rng(0), 2, 20, np.array([1.0, 1.0, 0.5]), 2, 1.0, 1,
    ...     np.array([0, 10, 20]), False)
    >>> test_a.shape, risk_a.round(4).tolist()
    ((2, 2), [[3.5398, 2.2576], [1.0762, 1.3341]])
    """
    d = beta.size
    folds = starts.size - 1
    loss, risk = split_outputs(n_reps, repeats * folds, starts[1], per_example)
    for i in range(n_reps):
        x = rng.standard_normal((n, d))
        y = x @ beta + sd * rng.standard_normal(n)
        for rep in range(repeats):
            order = rng.permutation(n)
            for f in range(folds):
                test, train = fold_split(order, starts, f)
                col = rep * folds + f
                for m, q in enumerate((d, p)):
                    xt = np.ascontiguousarray(x[train][:, :q])
                    coef = np.linalg.solve(xt.T @ xt, xt.T @ y[train])
                    resid = y[test] - np.ascontiguousarray(x[test][:, :q]) @ coef
                    store_loss(loss, m, i, col, resid * resid, per_example)
                    gap = beta.copy()
                    gap[:q] -= coef
                    risk[m, i, col] = sd * sd + np.sum(gap * gap)
    return loss[0], loss[1], risk[0], risk[1]


@njit(cache=True, nogil=True)
def normal_cdf(x):
    """The standard normal cdf, ``erfc(-x / sqrt 2) / 2`` (scipy.special.ndtr, in Numba).

    Parameters
    ----------
    x : float

    Returns
    -------
    float

    Examples
    --------
    >>> from evalmc.sims.kernels import normal_cdf
    >>> round(normal_cdf(1.0), 4)
    0.8413
    """
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


@njit(cache=True, nogil=True)
def discriminant_splits(rng, n_reps, n, delta, chol, repeats, starts, per_example, exchange):
    """The cv-classification scenario's data sets and fits (:mod:`evalmc.sims.learning`).

    Per replication: labels ``y ~ Bernoulli(1/2)``, then ``x = L z + (y - 1/2) delta e_1``
    (n x d, ``L = chol``, z standard normal); per repetition a permutation, split as in
    :func:`least_squares_splits`. On each training set: the class means ``m0, m1`` and the
    pooled within-class scatter ``W``; A (linear discriminant) takes ``w = W^-1 (m1 - m0)``,
    B (nearest mean) ``w = m1 - m0``; both predict class 1 where
    ``w . (x - (m0 + m1) / 2) > 0``. Returns the test losses (error rates of each split, or
    with `per_example` each test example's 0/1 error) and the exact risks
    ``(Phi((b - h) / s) + Phi(-(b + h) / s)) / 2``, ``h = w_1 delta / 2``,
    ``s = sqrt(w' L L' w)``, b the rule's offset. With `exchange` > 0 each example draws a
    uniform u after the data set; on every split that tests it, where A errs and B does not,
    A's and B's losses are exchanged if ``u < exchange`` (the risks stay the two rules').

    Parameters
    ----------
    rng : numpy.random.Generator
    n_reps, n : int
        Data sets, and examples in each.
    delta : float
        Distance of the class means along feature 1.
    chol : ndarray of float, shape (d, d)
        Cholesky factor of the classes' covariance.
    repeats : int
        Permutations of each data set.
    starts : ndarray of int
        Test folds of a permutation (:meth:`Splits.fold_starts`).
    per_example : bool
    exchange : float
        Probability, in [0, 1], that an example's A-only errors become B's; 0 draws nothing.

    Returns
    -------
    test_a, test_b, risk_a, risk_b : ndarray of float

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import discriminant_splits
    >>> test_a, test_b, risk_a, risk_b = discriminant_splits(
    ...     np.random.default_rng(0), 2, 20, 2.0, np.eye(2), 1, np.array([0, 10, 20]), False,
    ...     0.0)
    >>> test_a.round(4).tolist(), risk_a.round(4).tolist()
    ([[0.1, 0.1], [0.1, 0.2]], [[0.2081, 0.193], [0.1634, 0.1736]])
    """
    d = chol.shape[0]
    sigma = chol @ chol.T
    folds = starts.size - 1
    loss, risk = split_outputs(n_reps, repeats * folds, starts[1], per_example)
    for i in range(n_reps):
        y = np.empty(n, dtype=np.int64)
        for t in range(n):
            y[t] = 1 if rng.random() < 0.5 else 0
        x = rng.standard_normal((n, d)) @ chol.T
        for t in range(n):
            x[t, 0] += (y[t] - 0.5) * delta
        coin = rng.random(n) if exchange > 0.0 else np.ones(n)
        for rep in range(repeats):
            order = rng.permutation(n)
            for f in range(folds):
                test, train = fold_split(order, starts, f)
                col = rep * folds + f
                xt, yt = x[train], y[train]
                means = np.zeros((2, d))
                counts = np.zeros(2)
                for t in range(yt.size):
                    means[yt[t]] += xt[t]
                    counts[yt[t]] += 1.0
                for c in range(2):
                    means[c] /= max(counts[c], 1.0)
                for t in range(yt.size):
                    xt[t] -= means[yt[t]]
                scatter = xt.T @ xt
                gap = means[1] - means[0]
                mid = 0.5 * (means[0] + means[1])
                wrong = np.empty((2, test.size))
                for m, w in enumerate((np.linalg.solve(scatter, gap), gap)):
                    b = -(w @ mid)
                    wrong[m] = ((x[test] @ w + b > 0.0) != (y[test] == 1)).astype(np.float64)
                    s = math.sqrt(w @ sigma @ w)
                    h = 0.5 * w[0] * delta
                    risk[m, i, col] = 0.5 * (normal_cdf((b - h) / s) + normal_cdf(-(b + h) / s))
                for t in range(test.size if exchange > 0.0 else 0):
                    if wrong[0, t] > wrong[1, t] and coin[test[t]] < exchange:
                        wrong[0, t], wrong[1, t] = 0.0, 1.0
                for m in range(2):
                    store_loss(loss, m, i, col, wrong[m], per_example)
    return loss[0], loss[1], risk[0], risk[1]


@njit(cache=True, nogil=True)
def fit_stump(x, y):
    """The decision stump of fewest training errors on one feature: a threshold and a label
    on each side, each side's majority (0 on a tie), the first of the best cuts in x's order.

    Parameters
    ----------
    x : ndarray of float
        The feature, in [0, 1], without ties.
    y : ndarray of int
        Labels, 0 or 1.

    Returns
    -------
    threshold : float
        Midway between the two examples of the cut; 0 or 1 when a side is empty.
    left, right : int
        The label below the threshold and at or above it.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import fit_stump
    >>> fit_stump(np.array([0.1, 0.7, 0.4, 0.9]), np.array([0, 1, 0, 1]))
    (0.55, 0, 1)
    """
    return _stump_in_order(x, y, np.argsort(x))


@njit(cache=True, nogil=True)
def _stump_in_order(x, y, order):
    """:func:`fit_stump` on the examples `order` lists, in increasing order of x."""
    n = order.size
    ones, best, cut, below, total = 0, n + 1, 0, 0, 0
    for t in range(n):
        total += y[order[t]]
    for i in range(n + 1):
        if i > 0:
            below += y[order[i - 1]]
        above = total - below
        errors = min(i - below, below) + min(n - i - above, above)
        if errors < best:
            best, cut, ones = errors, i, below
    left = 1 if ones > cut - ones else 0
    right = 1 if total - ones > n - cut - (total - ones) else 0
    if cut == 0:
        return 0.0, left, right
    if cut == n:
        return 1.0, left, right
    return 0.5 * (x[order[cut - 1]] + x[order[cut]]), left, right


@njit(cache=True, nogil=True)
def stump_risk(threshold, left, right, slope):
    """Exact error rate of a stump on a feature u ~ U(0, 1) with ``P(y = 1 | u) =
    1/2 + slope (u - 1/2)``: ``integral of P(y != label(u)) du``.

    Parameters
    ----------
    threshold : float
    left, right : int
        The labels below and at or above the threshold.
    slope : float

    Returns
    -------
    float

    Examples
    --------
    >>> from evalmc.sims.kernels import stump_risk
    >>> round(stump_risk(0.5, 0, 1, 0.5), 4), round(stump_risk(0.0, 0, 0, 0.5), 4)
    (0.375, 0.5)
    """
    risk = 0.0
    for low, high, label in ((0.0, threshold, left), (threshold, 1.0, right)):
        tilt = 0.5 * slope * ((high - 0.5) ** 2 - (low - 0.5) ** 2)
        risk += 0.5 * (high - low) + (-tilt if label == 1 else tilt)
    return risk


@njit(cache=True, nogil=True)
def stump_splits(rng, n_reps, n, slope, repeats, starts, per_example):
    """The cv-stumps scenario's data sets and fits (:mod:`evalmc.sims.learning`).

    Per replication: ``x ~ U(0, 1)^2`` (n x 2), ``y ~ Bernoulli(1/2 + slope (x_1 - 1/2) +
    slope (x_2 - 1/2))``; per repetition a permutation, split as in
    :func:`least_squares_splits`. On each training set A is the stump of fewest errors on
    feature 1 (:func:`fit_stump`; each feature sorted once per data set), B on feature 2.
    Returns the test losses (error rates of each split, or with `per_example` each test
    example's 0/1 error) and the exact risks (:func:`stump_risk`: on its own feature a stump
    sees ``P(y = 1 | u) = 1/2 + slope (u - 1/2)``).

    Parameters
    ----------
    rng : numpy.random.Generator
    n_reps, n : int
        Data sets, and examples in each.
    slope : float
        How much each feature moves P(y = 1), in (0, 1/2].
    repeats : int
        Permutations of each data set.
    starts : ndarray of int
        Test folds of a permutation (:meth:`Splits.fold_starts`).
    per_example : bool

    Returns
    -------
    test_a, test_b, risk_a, risk_b : ndarray of float

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.kernels import stump_splits
    >>> test_a, test_b, risk_a, risk_b = stump_splits(
    ...     np.random.default_rng(0), 2, 20, 0.5, 1, np.array([0, 10, 20]), False)
    >>> test_a.round(4).tolist(), risk_a.round(4).tolist()
    ([[0.3, 0.3], [0.6, 0.5]], [[0.3781, 0.403], [0.5652, 0.4428]])
    """
    folds = starts.size - 1
    loss, risk = split_outputs(n_reps, repeats * folds, starts[1], per_example)
    for i in range(n_reps):
        x = rng.random((n, 2))
        draw = rng.random(n)
        y = np.empty(n, dtype=np.int64)
        for t in range(n):
            y[t] = 1 if draw[t] < 0.5 + slope * (x[t, 0] - 0.5) + slope * (x[t, 1] - 0.5) else 0
        ranked = np.empty((2, n), dtype=np.int64)
        for m in range(2):
            ranked[m] = np.argsort(x[:, m])
        for rep in range(repeats):
            order = rng.permutation(n)
            for f in range(folds):
                test, train = fold_split(order, starts, f)
                col = rep * folds + f
                in_train = np.zeros(n, dtype=np.bool_)
                in_train[train] = True
                for m in range(2):
                    threshold, left, right = _stump_in_order(
                        x[:, m], y, ranked[m][in_train[ranked[m]]])
                    wrong = np.empty(test.size)
                    for t in range(test.size):
                        label = left if x[test[t], m] < threshold else right
                        wrong[t] = 1.0 if label != y[test[t]] else 0.0
                    store_loss(loss, m, i, col, wrong, per_example)
                    risk[m, i, col] = stump_risk(threshold, left, right, slope)
    return loss[0], loss[1], risk[0], risk[1]
