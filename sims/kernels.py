"""Numba kernels of the simulators: each fills a caller-allocated array.

A ``*_slab`` kernel draws a slab of blocks in one call, each block from its own stream
(:class:`evalmc.compute.streams.BlockStreams`), seeding one Generator block after block with
:func:`~evalmc.compute.seeding.enter_block`. Kept apart from the scenario classes so that
listing or validating a scenario never imports Numba.
"""

import math

import numpy as np

from evalmc.compute.jit import njit
from evalmc.compute.seeding import enter_block


@njit(cache=True, nogil=True)
def row_mean_var_into(x, sign_y, y, mean, var):
    """Mean and unbiased variance of each row of ``x + sign_y * y`` into `mean`, `var` (sign_y 0
    or -1; two passes, no temporaries)."""
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
        if ss == np.inf and np.isfinite(m):  # squares over 1e308; the variance may not be
            var[i] = _scaled_var(x[i], sign_y, y[i], m)


@njit(cache=True, nogil=True)
def _scaled_var(x, sign_y, y, m):
    """Unbiased variance of ``x + sign_y * y`` about `m`, its deviations divided by the
    largest before squaring (inf only when the variance itself is)."""
    n = x.shape[0]
    big = 0.0
    for j in range(n):
        big = max(big, abs(x[j] + sign_y * y[j] - m))
    ss = 0.0
    for j in range(n):
        d = (x[j] + sign_y * y[j] - m) / big
        ss += d * d
    return big * (ss / (n - 1)) * big


@njit(cache=True, nogil=True)
def skew_delta(skew):
    """The skew-normal's ``delta = skew / sqrt(1 + skew^2)``, +-1 where ``skew^2`` overflows."""
    square = skew * skew
    return skew / np.sqrt(1.0 + square) if np.isfinite(square) else np.sign(skew)


@njit(cache=True, nogil=True)
def skewnorm_into(rng, loc, scale, skew, shift, a, b):
    """Skew-normal draws (scipy.stats.skewnorm(skew, loc, scale)) into `a`, plus `shift`, and
    `b`: row by row, A's cells first."""
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
    `shift`, and `b`: row by row, A's cells first."""
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
    `shift`, and of `b`: row by row, A's cells first."""
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
    """:func:`skewnorm_into` for a slab of blocks: rows ``bounds[k]:bounds[k + 1]`` from block
    k's stream (initial `states`, entered in turn)."""
    for k in range(bounds.size - 1):
        enter_block(rng, states, k)
        rows = slice(bounds[k], bounds[k + 1])
        skewnorm_into(rng, loc, scale, skew, shift, a[rows], b[rows])


@njit(cache=True, nogil=True)
def mixture_slab(rng, states, bounds, weight, loc1, loc2, scale1, scale2, shift, a, b):
    """:func:`mixture_into` for a slab of blocks: rows ``bounds[k]:bounds[k + 1]`` from block
    k's stream."""
    for k in range(bounds.size - 1):
        enter_block(rng, states, k)
        rows = slice(bounds[k], bounds[k + 1])
        mixture_into(rng, weight, loc1, loc2, scale1, scale2, shift, a[rows], b[rows])


@njit(cache=True, nogil=True)
def smoothed_bootstrap_slab(rng, states, bounds, data, bandwidth, shift, a, b):
    """:func:`smoothed_bootstrap_into` for a slab of blocks: rows ``bounds[k]:bounds[k + 1]``
    from block k's stream."""
    for k in range(bounds.size - 1):
        enter_block(rng, states, k)
        rows = slice(bounds[k], bounds[k + 1])
        smoothed_bootstrap_into(rng, data, bandwidth, shift, a[rows], b[rows])


@njit(cache=True, nogil=True)
def gaussian_slab(rng, states, bounds, dfs, out):
    """Standard normal (``dfs[j] == 0``) or chi-square draws into each row ``out[j]``, block k
    filling columns ``bounds[k]:bounds[k + 1]`` row after row, as numpy's calls in turn would."""
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
    """One cell of a multinomial drawn as a chain: ``Binomial(left, p / mass)``, 0 when nothing
    is left."""
    if left == 0 or mass <= 0.0:
        return 0
    return rng.binomial(left, min(1.0, max(0.0, p / mass)))


@njit(cache=True, nogil=True)
def multinomial_into(rng, n, p, out):
    """One multinomial draw of `n` over `p` into `out`, by numpy's chain of conditional
    binomials (Numba's Generator has no multinomial)."""
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
    """One multinomial draw of `n` over `p` into each row of `out`."""
    for i in range(out.shape[0]):
        multinomial_into(rng, n, p, out[i])


@njit(cache=True, nogil=True)
def fold_split(order, starts, f):
    """The test and training examples of fold f of a permutation `order`."""
    test = order[starts[f]:starts[f + 1]]
    return test, np.concatenate((order[:starts[f]], order[starts[f + 1]:]))


@njit(cache=True, nogil=True)
def split_outputs(n_reps, splits, n_test, per_example):
    """Uninitialized loss arrays (2, n_reps, splits, or splits x n_test `per_example`) and risk
    arrays (2, n_reps, splits) of the learning kernels."""
    return (np.empty((2, n_reps, splits * (n_test if per_example else 1))),
            np.empty((2, n_reps, splits)))


@njit(cache=True, nogil=True)
def store_loss(loss, m, i, col, values, per_example):
    """Model m's test losses on split `col` of replication i: each, or their mean."""
    if per_example:
        loss[m, i, col * values.size:(col + 1) * values.size] = values
    else:
        loss[m, i, col] = np.mean(values)


@njit(cache=True, nogil=True)
def least_squares_splits(rng, n_reps, n, beta, p, sd, repeats, starts, per_example):
    """The cv-regression scenario's data sets, fits, test losses and exact risks
    (:mod:`evalmc.sims.learning`): least squares on all d features (A) and on the first p (B)."""
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
    """The standard normal cdf, ``erfc(-x / sqrt 2) / 2`` (scipy.special.ndtr, in Numba)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


@njit(cache=True, nogil=True)
def discriminant_splits(rng, n_reps, n, delta, chol, repeats, starts, per_example, exchange):
    """The cv-classification scenario's data, fits, test losses and exact risks: linear
    discriminant (A), nearest mean (B), A-only errors made B's with probability `exchange`."""
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
    """The decision stump of fewest training errors on one feature: ``(threshold, left, right)``,
    each side's majority label (0 on a tie), the first of the best cuts in x's order."""
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
    """Exact error rate of a stump on u ~ U(0, 1) with ``P(y = 1 | u) = 1/2 + slope (u - 1/2)``."""
    risk = 0.0
    for low, high, label in ((0.0, threshold, left), (threshold, 1.0, right)):
        tilt = 0.5 * slope * ((high - 0.5) ** 2 - (low - 0.5) ** 2)
        risk += 0.5 * (high - low) + (-tilt if label == 1 else tilt)
    return risk


@njit(cache=True, nogil=True)
def stump_splits(rng, n_reps, n, slope, repeats, starts, per_example):
    """The cv-stumps scenario's data sets, fits, test losses and exact risks
    (:mod:`evalmc.sims.learning`): stumps on feature 1 (A) and feature 2 (B)."""
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


@njit(cache=True, nogil=True)
def item_cells_into(rng, sizes, mu_a, mu_b, sd, index, out):
    """Add to ``out[r, g, t]`` the items of type t (``index[n11, n10, n01]``) of cluster g
    (group 0 when `out` has one) in replication r, each item drawn as
    :meth:`~evalmc.sims.itemmodel.ItemFit.draw_scores` draws it: `sd` holds the standard
    deviations of the cluster, interaction, item, model x item and sample parts."""
    s = index.shape[0] - 1
    for r in range(out.shape[0]):
        for g in range(sizes.shape[0]):
            row = 0 if out.shape[1] == 1 else g
            shared = sd[0] * rng.standard_normal()
            favour = sd[1] * rng.standard_normal()
            for _ in range(sizes[g]):
                item = shared + sd[2] * rng.standard_normal()
                za = mu_a + item + favour + sd[3] * rng.standard_normal()
                zb = mu_b + item - favour + sd[3] * rng.standard_normal()
                if sd[4] == 0.0:  # the samples repeat the item's score
                    ya, yb = np.int64(za > 0), np.int64(zb > 0)
                    both, right_a, right_b = s * ya * yb, s * ya, s * yb
                else:  # a sample is right when its noise passes the item's threshold
                    ta, tb = -za / sd[4], -zb / sd[4]
                    both = right_a = right_b = 0
                    for _ in range(s):
                        ya = np.int64(rng.standard_normal() > ta)
                        yb = np.int64(rng.standard_normal() > tb)
                        both += ya * yb
                        right_a += ya
                        right_b += yb
                out[r, row, index[both, right_a - both, right_b - both]] += 1
