"""Numba kernels of the built-in criteria: rank and sign counts, the classifier bootstraps.

Kept apart from the criteria so that naming, listing or validating a criterion never imports
Numba; a criterion imports this module when it first runs."""

import numpy as np

from evalmc.compute.jit import njit
from evalmc.sims.classifiers import (
    NEG_A,
    NEG_B,
    NEG_BOTH,
    NEG_NEITHER,
    POS_A,
    POS_B,
    POS_BOTH,
    POS_NEITHER,
)
from evalmc.sims.kernels import chain_link, multinomial_into


@njit(cache=True, nogil=True)
def rank_sums(a, b, u1, tie_term):
    """Fill `u1` with each row's U statistic of `a` and `tie_term` with its sum(t^3 - t)."""
    n_a, n_b = a.shape[1], b.shape[1]
    n = n_a + n_b
    pooled = np.empty(n)
    for i in range(a.shape[0]):
        pooled[:n_a] = a[i]
        pooled[n_a:] = b[i]
        order = np.argsort(pooled, kind="mergesort")
        r1 = 0.0
        ties = 0.0
        start = 0
        while start < n:
            stop = start + 1
            while stop < n and pooled[order[stop]] == pooled[order[start]]:
                stop += 1
            t = stop - start
            rank = 0.5 * (start + stop + 1)  # average of ranks start+1 .. stop
            for k in range(start, stop):
                if order[k] < n_a:
                    r1 += rank
            ties += t * t * t - t
            start = stop
        u1[i] = r1 - n_a * (n_a + 1) / 2.0
        tie_term[i] = ties


@njit(cache=True, nogil=True)
def sign_counts(a, b, positive, nonzero):
    """Fill `positive` and `nonzero` with each row's counts of positive and of nonzero ``a - b``."""
    for i in range(a.shape[0]):
        pos = 0
        nz = 0
        for j in range(a.shape[1]):
            d = a[i, j] - b[i, j]
            if d > 0:
                pos += 1
            if d != 0:
                nz += 1
        positive[i] = pos
        nonzero[i] = nz


#: Zero-difference conventions of the signed-rank kernels, as scipy.stats.wilcoxon's
#: `zero_method`: 0 'wilcox' (zeros dropped), 1 'pratt' (ranked, then dropped: the kernels'
#: remaining case, unnamed), 2 'zsplit' (ranked, half of each zero's rank to either side).
WILCOX, ZSPLIT = 0, 2


@njit(cache=True, nogil=True)
def _doubled_ranks(d, zero_method, ranks2):
    """Twice the average ranks of |d|, zeros per `zero_method` (-1 if dropped); the tie term."""
    n = d.size
    mag = np.abs(d)
    order = np.argsort(mag, kind="mergesort")
    n_zero = 0
    for j in range(n):
        if d[j] == 0:
            n_zero += 1
    shift = n_zero if zero_method == WILCOX else 0
    ties = 0.0
    start = 0
    while start < n:
        stop = start + 1
        while stop < n and mag[order[stop]] == mag[order[start]]:
            stop += 1
        zero = mag[order[start]] == 0
        t = stop - start
        for k in range(start, stop):
            ranks2[order[k]] = -1 if zero and zero_method == WILCOX else (
                start + stop + 1 - 2 * shift)
        if not (zero and zero_method != ZSPLIT):
            ties += t * t * t - t
        start = stop
    return ties


@njit(cache=True, nogil=True)
def signed_rank_sums(d, zero_method, r_plus, n_zero, tie_term):
    """Fill R+ (zsplit: plus half the zeros' ranks), the count of zero differences and the tie
    term of each row of `d`; `zero_method` is WILCOX, 1 ('pratt') or ZSPLIT."""
    ranks2 = np.empty(d.shape[1], np.int64)
    for i in range(d.shape[0]):
        tie_term[i] = _doubled_ranks(d[i], zero_method, ranks2)
        total = 0.0
        zeros = 0
        for j in range(d.shape[1]):
            if d[i, j] > 0:
                total += ranks2[j]
            elif d[i, j] == 0:
                zeros += 1
                if zero_method == ZSPLIT:
                    total += 0.5 * ranks2[j]
        r_plus[i] = 0.5 * total
        n_zero[i] = zeros


@njit(cache=True, nogil=True)
def sign_flip_pvalues(d, zero_method, rows, out):
    """Exact two-sided p-values of R+ over all sign flips of rows `rows` of `d`, into `out`."""
    ranks2 = np.empty(d.shape[1], np.int64)
    for i in rows:
        _doubled_ranks(d[i], zero_method, ranks2)
        top = 0
        observed = 0
        for j in range(d.shape[1]):
            if d[i, j] != 0:
                top += ranks2[j]
                if d[i, j] > 0:
                    observed += ranks2[j]
        counts = np.zeros(top + 1)
        counts[0] = 1.0
        for j in range(d.shape[1]):
            if d[i, j] != 0:
                w = ranks2[j]
                for s in range(top, w - 1, -1):
                    counts[s] += counts[s - w]
        total = counts.sum()
        low = counts[: observed + 1].sum() / total
        high = counts[observed:].sum() / total
        out[i] = min(1.0, 2.0 * min(low, high))


@njit(cache=True, nogil=True)
def _sum_and_tolerance(row):
    """A row's sum, and the 1e-9 sum |row| within which flipped sums count as ties."""
    return row.sum(), 1e-9 * np.abs(row).sum()


@njit(cache=True, nogil=True)
def sign_flip_mean_pvalues(d, out):
    """Two-sided paired permutation p-values of each row's sum over all 2^n sign flips."""
    n = d.shape[1]
    for i in range(d.shape[0]):
        observed, tol = _sum_and_tolerance(d[i])
        signs = np.ones(n)
        current = observed
        low = 0
        high = 0
        for step in range(1 << n):
            if step > 0:
                j = 0
                while not (step >> j) & 1:
                    j += 1
                current -= 2.0 * signs[j] * d[i, j]
                signs[j] = -signs[j]
            if current <= observed + tol:
                low += 1
            if current >= observed - tol:
                high += 1
        out[i] = min(1.0, 2.0 * min(low, high) / (1 << n))


@njit(cache=True, nogil=True)
def sign_flip_mean_mc(rng, d, n_resamples, out):
    """As :func:`sign_flip_mean_pvalues` over random flips, ``(count + 1) / (n_resamples + 1)``."""
    n = d.shape[1]
    for i in range(d.shape[0]):
        observed, tol = _sum_and_tolerance(d[i])
        low = 1
        high = 1
        for _ in range(n_resamples):
            current = 0.0
            for j in range(n):
                current += d[i, j] if rng.random() < 0.5 else -d[i, j]
            if current <= observed + tol:
                low += 1
            if current >= observed - tol:
                high += 1
        out[i] = min(1.0, 2.0 * min(low, high) / (n_resamples + 1))


@njit(cache=True, nogil=True)
def _two_sample_setup(a, b, i, pooled):
    n_a, n_b = a.shape[1], b.shape[1]
    pooled[:n_a] = a[i]
    pooled[n_a:] = b[i]
    total = pooled.sum()
    sum_a = a[i].sum()
    observed = sum_a / n_a - (total - sum_a) / n_b
    tol = 1e-9 * np.abs(pooled).sum() * (1.0 / n_a + 1.0 / n_b)
    return total, observed, tol


@njit(cache=True, nogil=True)
def relabel_mean_pvalues(a, b, out):
    """Two-sided two-sample permutation p-values of mean(a) - mean(b) over every split."""
    n_a, n_b = a.shape[1], b.shape[1]
    n = n_a + n_b
    pooled = np.empty(n)
    idx = np.empty(n_a, np.int64)
    for i in range(a.shape[0]):
        total, observed, tol = _two_sample_setup(a, b, i, pooled)
        for k in range(n_a):
            idx[k] = k
        low = 0
        high = 0
        count = 0
        while True:
            sum_a = 0.0
            for k in range(n_a):
                sum_a += pooled[idx[k]]
            stat = sum_a / n_a - (total - sum_a) / n_b
            low += stat <= observed + tol
            high += stat >= observed - tol
            count += 1
            k = n_a - 1
            while k >= 0 and idx[k] == n - n_a + k:
                k -= 1
            if k < 0:
                break
            idx[k] += 1
            for m in range(k + 1, n_a):
                idx[m] = idx[m - 1] + 1
        out[i] = min(1.0, 2.0 * min(low, high) / count)


@njit(cache=True, nogil=True)
def relabel_mean_mc(rng, a, b, n_resamples, out):
    """As :func:`relabel_mean_pvalues` over random splits, ``(count + 1) / (n_resamples + 1)``."""
    n_a, n_b = a.shape[1], b.shape[1]
    n = n_a + n_b
    pooled = np.empty(n)
    for i in range(a.shape[0]):
        total, observed, tol = _two_sample_setup(a, b, i, pooled)
        low = 1
        high = 1
        for _ in range(n_resamples):
            sum_a = 0.0
            for k in range(n_a):
                j = k + rng.integers(0, n - k)
                pooled[k], pooled[j] = pooled[j], pooled[k]
                sum_a += pooled[k]
            stat = sum_a / n_a - (total - sum_a) / n_b
            low += stat <= observed + tol
            high += stat >= observed - tol
        out[i] = min(1.0, 2.0 * min(low, high) / (n_resamples + 1))


#: Resample indices drawn at once by :func:`bootstrap_mean_diffs` (32 MB).
_INDEX_CHUNK = 1 << 22


@njit(cache=True, nogil=True)
def bootstrap_mean_diffs(rng, a, b, out):
    """``out[i, r]``: a resampled mean of ``a[i]`` minus one of ``b[i]``, as scipy draws them."""
    out[:] = 0.0
    for i in range(a.shape[0]):
        for x, sign in ((a, 1.0), (b, -1.0)):
            n = x.shape[1]
            if n == 0:
                continue
            chunk = max(1, _INDEX_CHUNK // n)
            for start in range(0, out.shape[1], chunk):
                idx = rng.integers(0, n, (min(chunk, out.shape[1] - start), n))
                for r in range(idx.shape[0]):
                    s = 0.0
                    for j in range(n):
                        s += x[i, idx[r, j]]
                    out[i, start + r] += sign * s / n


#: The merged cells of :func:`bootstrap_df1_sides`: the 8-cell table
#: (:mod:`evalmc.sims.classifiers`) with NEG_NEITHER and POS_NEITHER, where A and B are both
#: wrong, merged into M_NEITHER; the others keep their names, M_ added.
M_NEITHER, M_NEG_B, M_NEG_A, M_NEG_BOTH, M_POS_B, M_POS_A, M_POS_BOTH = range(7)
N_MERGED = 7
#: Swaps A and B in the merged cells of :func:`bootstrap_df1_sides`: dF1 changes sign.
_SWAP = np.array([M_NEITHER, M_NEG_A, M_NEG_B, M_NEG_BOTH, M_POS_A, M_POS_B, M_POS_BOTH])
#: A set's replicates come from the tilted sampler when its Chernoff bound is below this.
TILT_MAX = 0.5
#: Split points tried between the observed TP and error ratios, and Newton steps per bound.
_N_SPLITS = 7
_N_NEWTON = 40


@njit(cache=True, nogil=True)
def _top(p, v, lam):
    """Largest exponent ``-lam v`` over the non-empty cells: the shift against overflow."""
    top = -np.inf
    for j in range(p.shape[0]):
        if p[j] > 0.0:
            top = max(top, -lam * v[j])
    return top


@njit(cache=True, nogil=True)
def _log_mgf(p, v, lam):
    """``log sum p e^(-lam v)``, the tilted mean of v, and its variance."""
    top = _top(p, v, lam)
    s0 = s1 = s2 = 0.0
    for j in range(p.shape[0]):
        if p[j] > 0.0:
            w = p[j] * np.exp(-lam * v[j] - top)
            s0 += w
            s1 += w * v[j]
            s2 += w * v[j] * v[j]
    mean = s1 / s0
    return np.log(s0) + top, mean, max(s2 / s0 - mean * mean, 0.0)


@njit(cache=True, nogil=True)
def _chernoff(p, v, n):
    """``(log bound, lam)``: the Chernoff bound of ``P(sum of n draws of v <= 0)``, by Newton."""
    lam = 0.0
    f, mean, var = _log_mgf(p, v, lam)
    for _ in range(_N_NEWTON):
        if mean <= 0.0 or var <= 0.0:
            break
        step = mean / var
        for _ in range(30):
            g, g_mean, g_var = _log_mgf(p, v, lam + step)
            if g <= f:
                break
            step *= 0.5
        else:
            break
        lam += step
        f, mean, var = g, g_mean, g_var
        if step <= 1e-10 * (1.0 + lam):
            break
    return n * f, lam


@njit(cache=True, nogil=True)
def _split_values(c, v1, v2):
    """Values per merged cell of ``L1 = TP_A - c TP_B`` and ``L2 = c E_B - E_A``."""
    v1[:] = 0.0
    v1[M_POS_A], v1[M_POS_BOTH], v1[M_POS_B] = 1.0, 1.0 - c, -c
    v2[:] = 0.0
    v2[M_NEITHER], v2[M_POS_A], v2[M_NEG_A], v2[M_POS_B], v2[M_NEG_B] = c - 1.0, c, c, -1.0, -1.0


@njit(cache=True, nogil=True)
def _tp_errors(x):
    """True positives and errors (FN + FP) of A and of B, from merged counts."""
    tp_a, tp_b = x[M_POS_A] + x[M_POS_BOTH], x[M_POS_B] + x[M_POS_BOTH]
    e_a = x[M_NEITHER] + x[M_POS_B] + x[M_NEG_B]
    e_b = x[M_NEITHER] + x[M_POS_A] + x[M_NEG_A]
    return tp_a, tp_b, e_a, e_b


@njit(cache=True, nogil=True)
def _tilt(p, n, x, v1, v2):
    """``(log Q, c, lam1, lam2, log w1)``: the tightest Chernoff bound Q of ``P(dF1* <= 0)``."""
    tp_a, tp_b, e_a, e_b = _tp_errors(x)
    best = (0.0, 1.0, 0.0, 0.0, 0.0)
    if tp_b == 0 or e_a == 0:
        return best
    lo, hi = np.log(e_a / e_b), np.log(tp_a / tp_b)
    for k in range(1, _N_SPLITS + 1):
        c = np.exp(lo + (hi - lo) * k / (_N_SPLITS + 1))
        _split_values(c, v1, v2)
        b1, lam1 = _chernoff(p, v1, n)
        b2, lam2 = _chernoff(p, v2, n)
        log_q = max(b1, b2) + np.log1p(np.exp(-abs(b1 - b2)))
        if log_q < best[0]:
            best = (log_q, c, lam1, lam2, b1 - log_q)
    return best


@njit(cache=True, nogil=True)
def _tilted(p, v, lam, out):
    """Multinomial cell probabilities tilted by ``e^(-lam v)``, into `out`."""
    top = _top(p, v, lam)
    total = 0.0
    for j in range(p.shape[0]):
        out[j] = p[j] * np.exp(-lam * v[j] - top) if p[j] > 0.0 else 0.0
        total += out[j]
    out /= total


@njit(cache=True, nogil=True)
def _df1_sign(x):
    """Sign of dF1 = F1(A) - F1(B) of merged counts: that of ``TP_A E_B - TP_B E_A``."""
    tp_a, tp_b, e_a, e_b = _tp_errors(x)
    return np.sign(tp_a * e_b - tp_b * e_a)


@njit(cache=True, nogil=True)
def _discordant_links(rng, n, p):
    """A replicate's first links, its four discordant cells: ``(a, b, f2, f1, left, mass)``."""
    a = chain_link(rng, n, 1.0, p[M_POS_A])
    left, mass = n - a, 1.0 - p[M_POS_A]
    b = chain_link(rng, left, mass, p[M_POS_B])
    left, mass = left - b, mass - p[M_POS_B]
    f2 = chain_link(rng, left, mass, p[M_NEG_A])
    left, mass = left - f2, mass - p[M_NEG_A]
    f1 = chain_link(rng, left, mass, p[M_NEG_B])
    left, mass = left - f1, mass - p[M_NEG_B]
    return a, b, f2, f1, left, mass


@njit(cache=True, nogil=True)
def _replicate_sign(rng, n, p):
    """Sign of dF1* of one replicate, drawing the big cells only when they matter."""
    a, b, f2, f1, left, mass = _discordant_links(rng, n, p)
    c0 = a * (a + f2) - b * (b + f1)
    slope_w, slope_t = a - b, a + f2 - b - f1
    if c0 > 0 and slope_w >= 0 and slope_t >= 0:
        return 1
    if c0 < 0 and slope_w <= 0 and slope_t <= 0:
        return -1
    w = chain_link(rng, left, mass, p[M_NEITHER])
    t = chain_link(rng, left - w, mass - p[M_NEITHER], p[M_POS_BOTH])
    return np.sign(c0 + w * slope_w + t * slope_t)


@njit(cache=True, nogil=True)
def _kept(rng, x, v1, v2, lam1, lam2):
    """Whether a candidate with dF1* <= 0 counts (with the probability of :func:`_rare_side`)."""
    l1 = l2 = 0.0
    for j in range(x.shape[0]):
        l1 += v1[j] * x[j]
        l2 += v2[j] * x[j]
    return rng.random() * (np.exp(-lam1 * l1) + np.exp(-lam2 * l2)) < 1.0


@njit(cache=True, nogil=True)
def _rare_side(rng, n, p, n_boot, tilt, v1, v2, g1, g2, x):
    """Replicates with dF1* <= 0 and = 0 of a set with dF1 > 0, by exact rejection sampling."""
    log_q, c, lam1, lam2, log_w1 = tilt
    _split_values(c, v1, v2)
    _tilted(p, v1, lam1, g1)
    _tilted(p, v2, lam2, g2)
    w1 = np.exp(log_w1)
    rare = 0
    ties = 0
    for _ in range(rng.binomial(n_boot, np.exp(log_q))):
        multinomial_into(rng, n, g1 if rng.random() < w1 else g2, x)
        sign = _df1_sign(x)
        if sign > 0:
            continue
        if _kept(rng, x, v1, v2, lam1, lam2):
            rare += 1
            ties += sign == 0
    return rare, ties


@njit(cache=True, nogil=True)
def _merge_cells(c, x, p):
    """Fill a set's merged counts `x` and cell shares `p` from its 8 cells `c`; returns its size."""
    n = c.sum()
    x[M_NEITHER] = c[NEG_NEITHER] + c[POS_NEITHER]
    x[M_NEG_B], x[M_NEG_A], x[M_NEG_BOTH] = c[NEG_B], c[NEG_A], c[NEG_BOTH]
    x[M_POS_B], x[M_POS_A], x[M_POS_BOTH] = c[POS_B], c[POS_A], c[POS_BOTH]
    for j in range(N_MERGED):
        p[j] = x[j] / n
    return n


@njit(cache=True, nogil=True)
def _orient(sign, p, x, oriented):
    """Fill `oriented` (and reorder `x`) so that the rare side is dF1* <= 0."""
    if sign < 0:  # swap A and B: the rare side becomes dF1* >= 0
        for j in range(N_MERGED):
            oriented[j] = p[_SWAP[j]]
        x[:] = x[_SWAP]
    else:
        oriented[:] = p


@njit(cache=True, nogil=True)
def _plain_sides(rng, n, p, n_boot, stop):
    """Counts of replicates with dF1* <= 0 and >= 0, drawn one by one until both reach `stop`."""
    le = 0
    ge = 0
    for _ in range(n_boot):
        s = _replicate_sign(rng, n, p)
        le += s <= 0
        ge += s >= 0
        if le >= stop and ge >= stop:
            break
    return le, ge


@njit(cache=True, nogil=True)
def bootstrap_df1_sides(rng, counts, n_boot, stop, tilt_max, below, above):
    """Fill `below` and `above` with each set's bootstrap replicates of dF1* <= 0 and >= 0."""
    p = np.empty(N_MERGED)
    oriented = np.empty(N_MERGED)
    x = np.empty(N_MERGED, np.int64)
    v1, v2 = np.empty(N_MERGED), np.empty(N_MERGED)
    g1, g2 = np.empty(N_MERGED), np.empty(N_MERGED)
    for i in range(counts.shape[0]):
        n = _merge_cells(counts[i], x, p)
        sign = _df1_sign(x)
        if sign != 0:
            _orient(sign, p, x, oriented)
            tilt = _tilt(oriented, n, x, v1, v2)
            if tilt[0] < np.log(tilt_max):
                rare, ties = _rare_side(rng, n, oriented, n_boot, tilt, v1, v2, g1, g2, x)
                if sign > 0:
                    below[i], above[i] = rare, n_boot - rare + ties
                else:
                    below[i], above[i] = n_boot - rare + ties, rare
                continue
        below[i], above[i] = _plain_sides(rng, n, p, n_boot, stop)


#: The merged cells a dF1 replicate reads, drawn in this order (true negatives, the rest, last).
_F1_CELLS = np.array([M_NEG_B, M_NEG_A, M_POS_B, M_POS_A, M_POS_BOTH, M_NEITHER])


@njit(cache=True, nogil=True)
def _f1_replicate(rng, n, p, x):
    """dF1* of one replicate, its F1-relevant merged counts drawn into `x`."""
    left, mass = n, 1.0
    for j in _F1_CELLS:
        x[j] = chain_link(rng, left, mass, p[j])
        left -= x[j]
        mass -= p[j]
    tp_a, tp_b, e_a, e_b = _tp_errors(x)
    den_a, den_b = 2 * tp_a + e_a, 2 * tp_b + e_b
    f1_a = 2.0 * tp_a / den_a if den_a > 0 else 0.0
    f1_b = 2.0 * tp_b / den_b if den_b > 0 else 0.0
    return f1_a - f1_b


@njit(cache=True, nogil=True)
def bootstrap_df1_centred_counts(rng, counts, n_boot, outside):
    """Fill `outside` with each set's replicates at least ``|m|`` from their mean m."""
    p = np.empty(N_MERGED)
    x = np.zeros(N_MERGED, np.int64)
    values = np.empty(n_boot)
    for i in range(counts.shape[0]):
        n = _merge_cells(counts[i], x, p)
        for r in range(n_boot):
            values[r] = _f1_replicate(rng, n, p, x)
        m = values.mean()
        far = 0
        for r in range(n_boot):
            far += abs(values[r] - m) >= abs(m)
        outside[i] = far


@njit(cache=True, nogil=True)
def _walsh_bounds(v, c, strict, out):
    """``out[i]``: the first j (v sorted ascending) with ``v[i] + v[j] > c`` (`strict`) or
    ``>= c``, by the floating-point sums themselves."""
    m = v.shape[0]
    j = m
    for i in range(m):
        while j > 0 and (v[i] + v[j - 1] > c if strict else v[i] + v[j - 1] >= c):
            j -= 1
        out[i] = j


@njit(cache=True, nogil=True)
def _walsh_share(w, tail, gt, ge):
    """``sum_i w_i (sum_{j >= gt_i} w_j + 0.5 sum_{ge_i <= j < gt_i} w_j)``, `tail` the
    suffix sums of `w`."""
    total = 0.0
    for i in range(w.shape[0]):
        total += w[i] * (tail[gt[i]] + 0.5 * (tail[ge[i]] - tail[gt[i]]))
    return total


@njit(cache=True, nogil=True)
def signed_rank_posterior(rng, z, prior, rope, n_samples, out):
    """baycomp's Bayesian signed-rank test per row of `z` (B - A): P(A better) into `out`."""
    m = z.shape[1] + 1
    raw = np.empty(m)
    alpha = np.ones(m)
    alpha[0] = prior
    gammas = np.empty(m)
    v = np.empty(m)
    neg = np.empty(m)
    bounds = np.empty((4, m), np.int64)
    w = np.empty(m)
    tail = np.empty(m + 1)
    w_neg = np.empty(m)
    tail_neg = np.empty(m + 1)
    for i in range(z.shape[0]):
        raw[0] = 0.0
        raw[1:] = z[i]
        order = np.argsort(raw, kind="mergesort")
        for k in range(m):
            v[k] = raw[order[k]]
        for k in range(m):
            neg[k] = -v[m - 1 - k]
        _walsh_bounds(v, 2 * rope, True, bounds[0])
        _walsh_bounds(v, 2 * rope, False, bounds[1])
        _walsh_bounds(neg, 2 * rope, True, bounds[2])
        _walsh_bounds(neg, 2 * rope, False, bounds[3])
        left = 0
        tail[m] = 0.0
        tail_neg[m] = 0.0
        for _ in range(n_samples):
            for k in range(m):  # drawn in the data's order, as baycomp's Dirichlet
                gammas[k] = rng.standard_gamma(alpha[k])
            total = gammas.sum()
            for k in range(m - 1, -1, -1):
                w[k] = gammas[order[k]] / total
                tail[k] = tail[k + 1] + w[k]
            above = _walsh_share(w, tail, bounds[0], bounds[1])
            if rope > 0:
                for k in range(m - 1, -1, -1):  # -z sorted is v reversed
                    w_neg[k] = w[m - 1 - k]
                    tail_neg[k] = tail_neg[k + 1] + w_neg[k]
                below = _walsh_share(w_neg, tail_neg, bounds[2], bounds[3])
                middle = 1.0 - below - above
            else:
                below = 1.0 - above
                middle = 0.0
            if below >= middle and below >= above:
                left += 1
        out[i] = left / n_samples


@njit(cache=True, nogil=True)
def multinomial_ratios(rng, values, weights, counts, out):
    """``out[i, r]``: ``sum c* values[i] / sum c* weights[i]`` for multinomial resamples c*."""
    for i in range(counts.shape[0]):
        units = counts[i].sum()
        last = counts.shape[1] - 1
        while last > 0 and counts[i, last] == 0:
            last -= 1
        for r in range(out.shape[1]):
            left = units
            rest = units  # units of the categories not yet drawn
            s = 0.0
            w = 0.0
            for j in range(last):
                c = counts[i, j]
                if c == 0:
                    continue
                draw = rng.binomial(left, c / rest) if left > 0 else 0
                s += draw * values[i, j]
                w += draw * weights[i, j]
                left -= draw
                rest -= c
            out[i, r] = (s + left * values[i, last]) / (w + left * weights[i, last])


@njit(cache=True, nogil=True)
def _violation_ratio(sa, sb, t, dt):
    """deepsig's violation ratio of sorted `sa`, `sb` on the grid `t` (its Eq. 4-5)."""
    n_a, n_b = sa.shape[0], sb.shape[0]
    total = 0.0
    violated = 0.0
    for i in range(t.shape[0]):
        f = sa[min(max(int(np.ceil(n_a * t[i])) - 1, 0), n_a - 1)]
        g = sb[min(max(int(np.ceil(n_b * t[i])) - 1, 0), n_b - 1)]
        gap = (g - f) ** 2 * dt
        total += gap
        if i > 0 and f < g:
            violated += gap
    return 0.5 if total == 0 else violated / total


@njit(cache=True, nogil=True)
def aso_violation_ratios(sa, sb, uniforms, t, dt, out):
    """Violation ratios of sorted `sa`, `sb` (``out[0]``) and of their bootstrap samples."""
    n_a, n_b = sa.shape[0], sb.shape[0]
    out[0] = _violation_ratio(sa, sb, t, dt)
    xa = np.empty(n_a)
    xb = np.empty(n_b)
    for k in range(uniforms.shape[0]):
        for j in range(n_a):
            xa[j] = sa[min(max(int(np.ceil(n_a * uniforms[k, j])) - 1, 0), n_a - 1)]
        for j in range(n_b):
            xb[j] = sb[min(max(int(np.ceil(n_b * uniforms[k, n_a + j])) - 1, 0), n_b - 1)]
        out[1 + k] = _violation_ratio(np.sort(xa), np.sort(xb), t, dt)


#: Uniform draws of 53 bits, as ``Generator.random`` makes them: ``random() * 2**53`` is one.
_BITS = 53


@njit(cache=True, nogil=True)
def cluster_resample_ratios(rng, sums, sizes, scale, out):
    """``out[i, r]``: the sum of `sums[i]` over the clusters of a resample (as many clusters as
    there are, drawn uniformly with replacement) over `scale` times the sum of their `sizes`.

    Up to 45 clusters, two are drawn at once: a uniform index over the pairs. An index in
    ``[0, m)`` comes from ``w`` uniform bits by Lemire's multiply-and-shift, rejecting the
    ``2**w mod m`` lowest products (exact: no index is favoured); ``w`` is two bits more than
    m needs, so one 53-bit uniform gives several indices and rejects less than a quarter."""
    g = sizes.shape[0]
    pairs = g * g <= 2048
    m = g * g if pairs else g
    picks = g // 2 if pairs else g
    width = 2
    while (1 << width) < 4 * m:
        width += 1
    chunks = _BITS // width
    mask = (1 << width) - 1
    threshold, single = (1 << width) % m, (1 << width) % g
    equal = (sizes == sizes[0]).all()  # then every resample holds as many items
    table_sum = np.empty(m)
    table_size = np.empty(m)
    for i in range(sums.shape[0]):
        for j in range(m):
            first, second = (j // g, j % g) if pairs else (j, -1)
            table_sum[j] = sums[i, first] + (sums[i, second] if pairs else 0.0)
            table_size[j] = sizes[first] + (sizes[second] if pairs else 0.0)
        bits = 0
        left = 0  # chunks of `bits` not used yet
        for r in range(out.shape[1]):
            total = 0.0
            weight = 0.0
            k = 0
            while k < picks:
                if left == 0:
                    bits = np.int64(rng.random() * (1 << _BITS))
                    left = chunks
                product = (bits & mask) * m
                bits >>= width
                left -= 1
                if (product & mask) >= threshold:
                    total += table_sum[product >> width]
                    if not equal:
                        weight += table_size[product >> width]
                    k += 1
            while pairs and g % 2:  # an odd number of clusters: the last drawn alone
                if left == 0:
                    bits = np.int64(rng.random() * (1 << _BITS))
                    left = chunks
                product = (bits & mask) * g
                bits >>= width
                left -= 1
                if (product & mask) >= single:
                    total += sums[i, product >> width]
                    if not equal:
                        weight += sizes[product >> width]
                    break
            out[i, r] = total / (scale * (g * sizes[0] if equal else weight))


@njit(cache=True, nogil=True)
def flip_characteristic(counts, log_abs, negative, floor, out):
    """``out[i, k] = prod_j cos(j w_k)^counts[i, j - 1]`` from ``log|cos|`` (`log_abs`) and
    where the cosines are negative (`negative`); 0 where its log is below `floor`."""
    for i in range(counts.shape[0]):
        for k in range(out.shape[1]):
            exponent = 0.0
            odd = 0
            for j in range(counts.shape[1]):
                exponent += counts[i, j] * log_abs[j, k]
                if negative[j, k]:
                    odd += counts[i, j]
            if exponent < floor:
                out[i, k] = 0.0
            else:
                out[i, k] = -np.exp(exponent) if odd % 2 else np.exp(exponent)


@njit(cache=True, nogil=True)
def inverse_cdf_rows(cdf, values, out):
    """``out[i] = np.searchsorted(cdf[i], values[i], side="right")`` for every row, by a guide
    table (Chen and Asau 1974): each value's search starts from the entries below its 1/1024th
    of the unit interval, so it takes a few steps whatever the length of the row."""
    buckets = 1024
    guide = np.empty(buckets + 1, np.int64)
    size = cdf.shape[1]
    for i in range(values.shape[0]):
        j = 0
        for k in range(buckets + 1):
            while j < size and cdf[i, j] <= k / buckets:
                j += 1
            guide[k] = j
        for r in range(values.shape[1]):
            u = values[i, r]
            j = guide[int(u * buckets)]
            while j < size and cdf[i, j] <= u:
                j += 1
            out[i, r] = j
