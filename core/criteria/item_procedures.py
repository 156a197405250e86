"""The tests people run on item-level evaluation results, vectorized: sacrebleu's paired
bootstrap and approximate randomization tests of a mean item score, and a z-test on per-item
pass@k (Chen et al. 2021). sacrebleu's bootstrap compares a centred statistic with the real
difference, so it rejects about 11% of null comparisons at 0.05. On a lattice (0/1 scores) each
test's law is computed exactly by one FFT (:func:`sum_law`, :func:`ar_exceedance`).

On counts of item types (:class:`~evalmc.sims.items.CellsBatch`) the differences take the
values ``-1, -1 + 1/s, ..., 1`` (s samples per item), so a replication is their histogram: a
bootstrap resample's sum is drawn from its law, computed by one FFT over the few thousand sums
that hold all but :data:`WINDOW_TAIL` of it (:func:`histogram_sum_law`), and the randomization's
exceedance is a binomial tail for one sample per item (:func:`ar_exceedance_counts`)."""

from __future__ import annotations

from functools import partial

import numpy as np

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.registry import SACREBLEU_AR_TRIALS, SACREBLEU_BS_RESAMPLES
from evalmc.inputs.checks import check_int
from evalmc.sims.base import Batch
from evalmc.sims.items import cell_types, sample_scores, type_counts

#: Elements (replications x resamples x categories) drawn at once.
CHUNK = 4_000_000
#: Relative tolerance of the strict comparisons, on the scale of sum(|d|).
TIES = 1e-10
#: Widest lattice span of the randomisation statistic whose law is computed exactly.
EXACT_SPAN = 2**16
#: Off a lattice, rows with more than one distinct value in this many items draw each item
#: (a random bit per swap, an index per resample) instead of counts per distinct value.
MOSTLY_DISTINCT = 8
#: The law of a sum is computed over a window of the sums that holds all but at most this mass
#: (Bernstein's inequality); the rest, folded onto the window by the FFT, changes no draw at
#: double precision.
WINDOW_TAIL = 1e-20


def _differences(batch: Batch) -> np.ndarray:
    return np.asarray(batch.a, dtype=float) - np.asarray(batch.b, dtype=float)


def categories(x: np.ndarray):
    """``(values, counts)``: each row's distinct values and their occurrences, padded with 0."""
    rows = [np.unique(row, return_counts=True) for row in x]
    m = max(len(c) for _, c in rows)
    values = np.zeros((len(rows), m))
    counts = np.zeros((len(rows), m), dtype=np.int64)
    for i, (v, c) in enumerate(rows):
        values[i, :len(c)], counts[i, :len(c)] = v, c
    return values, counts


def _chunks(n_reps: int, per_row: int):
    step = max(1, CHUNK // max(per_row, 1))
    for start in range(0, n_reps, step):
        yield slice(start, min(start + step, n_reps))


def bootstrap_sums(d: np.ndarray, rng: np.random.Generator, n_resamples: int,
                   scale: int = 1) -> np.ndarray:
    """``(n_reps, n_resamples)`` sums of bootstrap resamples of each row of `d`."""
    law = sum_law(d, scale)
    if law is None:
        from evalmc.criteria import kernels

        values, counts = categories(d)
        if values.shape[1] * MOSTLY_DISTINCT > d.shape[1]:
            return _resample_indices(d, rng, n_resamples)
        out = np.empty((d.shape[0], n_resamples))
        kernels.multinomial_ratios(rng, values, np.ones_like(values), counts, out)
        return out * d.shape[1]
    lowest, cdf = law
    u = rng.random((d.shape[0], n_resamples))
    picks = np.stack([np.searchsorted(cdf[i], u[i], side="right") for i in range(len(u))])
    return (np.minimum(picks, cdf.shape[1] - 1) + lowest) / scale


def sum_law(d: np.ndarray, scale: int = 1):
    """``(lowest, cdf)``: the law of the sum of n resampled values of each row of `d` (or None)."""
    from scipy import fft

    k = d * scale
    lattice = np.rint(k)
    if d.size == 0 or np.max(np.abs(k - lattice)) > TIES * max(1.0, np.max(np.abs(k))):
        return None
    k = lattice.astype(np.int64)
    top = int(np.abs(k).max())
    n = d.shape[1]
    if 2 * n * top > EXACT_SPAN:
        return None
    size = fft.next_fast_len(2 * n * top + 1)
    cdf = np.empty((d.shape[0], 2 * n * top + 1))
    for rows in _chunks(d.shape[0], 8 * size):
        one = np.zeros((len(k[rows]), size))
        np.add.at(one, (np.arange(len(k[rows]))[:, None], k[rows] + top), 1.0 / n)
        law = fft.irfft(fft.rfft(one, axis=1) ** n, size, axis=1)[:, :cdf.shape[1]]
        law = np.cumsum(np.maximum(law, 0.0), axis=1)
        cdf[rows] = law / law[:, -1:]
    return -n * top, cdf


def flip_sums(d: np.ndarray, rng: np.random.Generator, n_trials: int) -> np.ndarray:
    """``(n_reps, n_trials)`` sums ``sum_i s_i d_i`` under fair signs, drawn per distinct |d|."""
    values, counts = categories(np.abs(d))
    if values.shape[1] * MOSTLY_DISTINCT > d.shape[1]:
        return _flip_bits(d, rng, n_trials)
    counts = np.where(values > 0, counts, 0)
    out = np.empty((d.shape[0], n_trials))
    for rows in _chunks(d.shape[0], n_trials * values.shape[1]):
        c = counts[rows]
        k = rng.binomial(c[:, :, None], 0.5, size=(c.shape[0], c.shape[1], n_trials))
        out[rows] = np.einsum("rmb,rm->rb", 2 * k - c[:, :, None], values[rows])
    return out


def _flip_bits(d, rng, n_trials):
    """:func:`flip_sums` for rows of mostly distinct values, each item's swap one random bit."""
    n = d.shape[1]
    out = np.empty((d.shape[0], n_trials))
    step = max(1, CHUNK // (8 * n))
    for i, row in enumerate(d):
        for start in range(0, n_trials, step):
            stop = min(start + step, n_trials)
            bits = rng.integers(0, 256, (stop - start, -(-n // 8)), dtype=np.uint8)
            swapped = np.unpackbits(bits, axis=1, count=n).astype(float)
            out[i, start:stop] = 2 * (swapped @ row) - row.sum()
    return out


def _resample_indices(d, rng, n_resamples):
    """Bootstrap sums of rows of mostly distinct values: n indices drawn per resample."""
    n = d.shape[1]
    out = np.empty((d.shape[0], n_resamples))
    step = max(1, CHUNK // (2 * n))
    for i, row in enumerate(d):
        for start in range(0, n_resamples, step):
            stop = min(start + step, n_resamples)
            out[i, start:stop] = row[rng.integers(0, n, (stop - start, n))].sum(axis=1)
    return out


def ar_exceedance(d: np.ndarray, scale: int = 1):
    """Exact ``P(|sum_i s_i d_i| > |sum_i d_i|)`` per row under fair signs s (or None)."""

    k = np.abs(d) * scale
    lattice = np.rint(k)
    if d.size == 0 or np.max(np.abs(k - lattice)) > TIES * max(1.0, np.max(k)):
        return None
    k = lattice.astype(np.int64)
    span = int(k.sum(axis=1).max())
    if span > EXACT_SPAN:
        return None
    observed = np.abs(np.rint(d.sum(axis=1) * scale)).astype(np.int64)
    steps = np.arange(1, max(int(k.max()), 1) + 1)
    counts = np.stack([(k == j).sum(axis=1) for j in steps], axis=1).astype(float)
    return _flip_exceedance(counts, observed, span)


def _flip_exceedance(counts: np.ndarray, observed: np.ndarray, span: int) -> np.ndarray:
    """``P(|S| > observed)`` per row, S the sum of fair signs times ``j`` over ``counts[:, j -
    1]`` items of each magnitude j, its law computed modulo a length past ``2 span``."""
    from scipy import fft

    steps = np.arange(1, counts.shape[1] + 1)
    size = fft.next_fast_len(2 * span + 1)
    cosines = np.cos(np.outer(steps, 2 * np.pi * np.arange(size) / size))
    log_abs = np.log(np.maximum(np.abs(cosines), 1e-300))
    negative = (cosines < 0).astype(float)
    out = np.empty(counts.shape[0])
    for rows in _chunks(counts.shape[0], 8 * size):
        c = counts[rows]
        phi = np.exp(c @ log_abs) * (1 - 2 * ((c @ negative) % 2))
        law = fft.fft(phi, axis=1).real / size  # P(S = j) at j mod size
        up = np.cumsum(law[:, :span + 1], axis=1)  # P(0 <= S <= j)
        down = np.cumsum(np.pad(law[:, ::-1][:, :span], ((0, 0), (1, 0))), axis=1)  # P(-j<=S<0)
        at = (np.arange(len(c)), np.minimum(observed[rows], span))
        out[rows] = np.where(observed[rows] > span, 0.0,  # beyond a window: its tail, nothing
                             np.clip(1 - up[at] - down[at], 0.0, 1.0))
    return out


def sacrebleu_pvalues(stats: np.ndarray, real: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """sacrebleu's ``(sum(stats > real) + 1) / (len(stats) + 1)`` per row, ``>`` up to rounding."""
    c = (stats > (real + TIES * scale)[:, None]).sum(axis=1)
    return (c + 1) / (stats.shape[1] + 1)


def histogram_sum_law(hist: np.ndarray):
    """``(lowest, cdf)``: per row of `hist` (items whose ``n_samples (a - b)`` is ``j - s``,
    ``j = 0..2s``), the law of the sum of n values resampled from them, in those units, over a
    window from ``lowest`` (per row) holding all but :data:`WINDOW_TAIL` of it."""
    from scipy import fft

    hist = np.asarray(hist, dtype=np.int64)
    s = (hist.shape[1] - 1) // 2
    values = np.arange(-s, s + 1)
    n = int(hist[0].sum())
    total = hist @ values
    spread = (hist * (values[None, :] * n - total[:, None]) ** 2).sum(axis=1) / n**2
    reach = 2 * s  # how far one value lies from the mean, at most
    log_tail = np.log(2 / WINDOW_TAIL)
    half = log_tail * reach / 3 + np.sqrt((log_tail * reach / 3) ** 2 + 2 * log_tail * spread)
    present = hist > 0
    low = n * (np.argmax(present, axis=1) - s)
    high = n * (hist.shape[1] - 1 - np.argmax(present[:, ::-1], axis=1) - s)
    lowest = np.maximum(low, np.floor(total - half).astype(np.int64))
    width = np.minimum(high, np.ceil(total + half).astype(np.int64)) - lowest + 1
    size = fft.next_fast_len(int(width.max()))
    one = np.zeros((len(hist), size))
    np.add.at(one, (np.arange(len(hist))[:, None], values % size), hist / n)
    phi = fft.rfft(one, axis=1)
    # the n-th power only where it can weigh (elsewhere below WINDOW_TAIL / size, it is 0),
    # turned so that entry j of the law is the sum lowest + j
    row, k = np.nonzero(np.abs(phi) > (WINDOW_TAIL / size) ** (1 / n))
    power = np.zeros_like(phi)
    power[row, k] = phi[row, k] ** n * np.exp(2j * np.pi * k * (lowest[row] % size) / size)
    law = fft.irfft(power, size, axis=1)
    cdf = np.cumsum(np.maximum(law, 0.0), axis=1)
    return lowest, cdf / cdf[:, -1:]


def _difference_histogram(batch) -> np.ndarray:
    """Items per value of ``n_samples (a - b)``, ``-s..s``, of a CellsBatch."""
    s = batch.n_samples
    types = cell_types(s)
    hist = np.zeros((batch.n_reps, 2 * s + 1), dtype=np.int64)
    np.add.at(hist.T, types[:, 1] - types[:, 2] + s, type_counts(batch).T)
    return hist


def ar_exceedance_counts(hist: np.ndarray) -> np.ndarray:
    """:func:`ar_exceedance` from the histogram of ``n_samples (a - b)`` (as
    :func:`histogram_sum_law` takes it): with one sample per item the signed sum is ``2 K - N``,
    K ~ Bin(N, 1/2) over the N discordant items, so the exceedance is ``2 P(K > max(n10,
    n01))``; otherwise the FFT of :func:`ar_exceedance` over a window of the sums."""
    from scipy import stats

    hist = np.asarray(hist, dtype=np.int64)
    s = (hist.shape[1] - 1) // 2
    if s == 1:
        return np.minimum(2 * stats.binom.sf(np.maximum(hist[:, 0], hist[:, 2]),
                                             hist[:, 0] + hist[:, 2], 0.5), 1.0)
    from scipy import fft

    from evalmc.criteria import kernels

    magnitudes = np.arange(1, s + 1)
    counts = hist[:, s + 1:] + hist[:, s - 1::-1]
    observed = np.abs(hist @ np.arange(-s, s + 1))
    log_tail = np.log(2 / WINDOW_TAIL)
    half = log_tail * s / 3 + np.sqrt((log_tail * s / 3) ** 2
                                      + 2 * log_tail * (counts @ magnitudes**2))
    span = max(1, int(min((counts @ magnitudes).max(), np.ceil(half.max()))))
    size = fft.next_fast_len(2 * span + 1)
    cosines = np.cos(np.outer(magnitudes, 2 * np.pi * np.arange(size // 2 + 1) / size))
    log_abs = np.log(np.maximum(np.abs(cosines), 1e-300))
    out = np.empty(len(hist))
    for rows in _chunks(len(hist), 8 * size):
        phi = np.empty((len(counts[rows]), size // 2 + 1))  # prod_j cos(j w)^c_j, real, even
        kernels.flip_characteristic(np.ascontiguousarray(counts[rows]), log_abs, cosines < 0,
                                    np.log(WINDOW_TAIL / size), phi)
        law = fft.irfft(phi, size, axis=1)  # P(S = j) = P(S = -j), j = 0..size / 2
        inside = law[:, 0][:, None] + 2 * np.cumsum(law[:, 1:span + 1], axis=1)
        at = np.minimum(observed[rows], span)
        below = np.where(at > 0, inside[np.arange(len(phi)), np.maximum(at - 1, 0)], law[:, 0])
        out[rows] = np.where(observed[rows] > span, 0.0, np.clip(1 - below, 0.0, 1.0))
    return out


def _cells_bs(batch, rng, n_resamples):
    """:func:`_paired_bs` on a CellsBatch: the resamples' sums drawn from their law."""
    hist = _difference_histogram(batch)
    s, n = batch.n_samples, batch.sizes[0]
    values = np.arange(-s, s + 1)
    from evalmc.criteria.kernels import inverse_cdf_rows

    lowest, cdf = histogram_sum_law(hist)
    u = rng.random((len(hist), n_resamples))
    picks = np.empty(u.shape, dtype=np.int64)
    inverse_cdf_rows(cdf, u, picks)
    sums = np.abs((np.minimum(picks, cdf.shape[1] - 1) + lowest[:, None]) / s)
    total = hist @ values / s
    stats = n_resamples * sums - sums.sum(axis=1, keepdims=True)
    scale = n_resamples * (hist @ np.abs(values)) / s
    p = sacrebleu_pvalues(stats, n_resamples * np.abs(total), scale)
    return CriterionResult.from_pvalues(p, total / n, estimate=total / n)


def _paired_bs(batch: Batch, rng: np.random.Generator, n_resamples: int) -> CriterionResult:
    if type_counts(batch) is not None:
        return _cells_bs(batch, rng, n_resamples)
    d = _differences(batch)
    n = d.shape[1]
    total = d.sum(axis=1)
    sums = np.abs(bootstrap_sums(d, rng, n_resamples, getattr(batch, "n_samples", 1)))
    # |m*| - mean(|m*|) > |m|, times n B: exact in integers for 0/1 scores
    stats = n_resamples * sums - sums.sum(axis=1, keepdims=True)
    scale = n_resamples * np.abs(d).sum(axis=1)
    p = sacrebleu_pvalues(stats, n_resamples * np.abs(total), scale)
    return CriterionResult.from_pvalues(p, total / n, estimate=total / n)


def _paired_ar(batch: Batch, rng: np.random.Generator, n_resamples: int) -> CriterionResult:
    if type_counts(batch) is not None:
        hist = _difference_histogram(batch)
        s, n = batch.n_samples, batch.sizes[0]
        total = hist @ np.arange(-s, s + 1) / s
        q = ar_exceedance_counts(hist)
        p = (rng.binomial(n_resamples, q) + 1) / (n_resamples + 1)
        return CriterionResult.from_pvalues(p, total / n, estimate=total / n)
    d = _differences(batch)
    n = d.shape[1]
    total = d.sum(axis=1)
    q = ar_exceedance(d, getattr(batch, "n_samples", 1))
    if q is not None:  # the trials are independent: the count above is Bin(trials, q)
        p = (rng.binomial(n_resamples, q) + 1) / (n_resamples + 1)
    else:
        stats = np.abs(flip_sums(d, rng, n_resamples))
        p = sacrebleu_pvalues(stats, np.abs(total), np.abs(d).sum(axis=1))
    return CriterionResult.from_pvalues(p, total / n, estimate=total / n)


def sacrebleu_paired_bs(n_resamples: int = SACREBLEU_BS_RESAMPLES):
    """The ``sacrebleu-paired-bs`` family: sacrebleu's paired bootstrap test of the mean
    score (``_paired_bs_test``), ``p = (#{|m*| - mean(|m*|) > |m|} + 1) / (B + 1)``.

    Parameters
    ----------
    n_resamples : int
        Bootstrap resamples B (sacrebleu's default 1000).

    Returns
    -------
    callable
        ``test(batch, rng) -> CriterionResult``: p-values, and ``mean(a - b)`` as statistic
        and estimate.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria import get_criterion
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 40)) < 0.7) * 1.0, (rng.random((2, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=1)
    >>> test = get_criterion("sacrebleu-paired-bs")
    >>> test.name, test(batch, np.random.default_rng(1)).pvalue.round(4)
    ('sacrebleu-paired-bs', array([0.007 , 0.1069]))
    """
    n_resamples = check_int("n_resamples", n_resamples, low=1)
    return partial(_paired_bs, n_resamples=n_resamples)


def sacrebleu_paired_ar(n_resamples: int = SACREBLEU_AR_TRIALS):
    """The ``sacrebleu-paired-ar`` family: sacrebleu's approximate randomization test of the
    mean score (``_paired_ar_test``), ``p = (#{|sum s_i d_i| > |sum d_i|} + 1) / (R + 1)``.

    Parameters
    ----------
    n_resamples : int
        Trials R of random swaps (sacrebleu's default 10000).

    Returns
    -------
    callable
        ``test(batch, rng) -> CriterionResult``: p-values, and ``mean(a - b)`` as statistic
        and estimate.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria import get_criterion
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 40)) < 0.7) * 1.0, (rng.random((2, 40)) < 0.6) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=1)
    >>> test = get_criterion("sacrebleu-paired-ar", n_resamples=999)
    >>> test.name, test(batch, np.random.default_rng(1)).pvalue.round(4)
    ('sacrebleu-paired-ar(n_resamples=999)', array([0.018, 0.177]))
    """
    n_resamples = check_int("n_resamples", n_resamples, low=1)
    return partial(_paired_ar, n_resamples=n_resamples)


def passk_table(n: int, k: int) -> np.ndarray:
    """Chen et al.'s unbiased pass@k of an item with `n` samples, for c = 0..n correct ones."""
    table = np.ones(n + 1)
    for c in range(n - k + 1):
        table[c] = 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))
    return table


def passk_scores(batch: Batch, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(a, b)``: each item's pass@k for A and B, from its ``batch.n_samples >= k`` 0/1 scores."""
    k = check_int("k", k, low=1)
    n = getattr(batch, "n_samples", None)
    if n is None or n < k:
        raise ValueError(f"pass@k with `k` = {k} needs a ClusteredBatch with n_samples >= k "
                         f"scores per item; got n_samples={n}.")
    table = passk_table(n, k)
    out = []
    for x in sample_scores(batch):
        if not np.all((x == 0) | (x == 1)):
            raise ValueError(f"pass@k (`k` = {k}) needs 0/1 scores.")
        out.append(table[x.sum(axis=2).astype(np.int64)])
    return out[0], out[1]


def _passk_paired(batch: Batch, k: int) -> CriterionResult:
    from evalmc.criteria.items import _z_pvalues

    counts = type_counts(batch)
    if counts is not None and batch.n_samples >= k:  # each type's pass@k difference
        from evalmc.sims.items import _type_mean_var

        types, table = cell_types(batch.n_samples), passk_table(batch.n_samples, k)
        mean, var = _type_mean_var(counts, table[types[:, 0] + types[:, 1]]
                                   - table[types[:, 0] + types[:, 2]])
        with np.errstate(divide="ignore", invalid="ignore"):
            z = mean / (np.sqrt(var) / np.sqrt(batch.sizes[0]))
        return CriterionResult.from_pvalues(_z_pvalues(z), z, estimate=mean)
    a, b = passk_scores(batch, k)
    d = a - b
    mean = d.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = mean / (d.std(axis=1, ddof=1) / np.sqrt(d.shape[1]))
    return CriterionResult.from_pvalues(_z_pvalues(z), z, estimate=mean)


def passk_paired(k: int = 1):
    """The ``passk-paired`` family: z on the per-item differences of pass@k,
    ``mean(d) / (sd(d) / sqrt(n_items))``, two-sided.

    Parameters
    ----------
    k : int
        Samples drawn per item; each item needs at least `k` scores (``n_samples``).

    Returns
    -------
    callable
        ``test(batch) -> CriterionResult``: p-values, z, and the estimate ``pass@k(A) -
        pass@k(B)``.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria import get_criterion
    >>> from evalmc.sims.items import ClusteredBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 120)) < 0.5) * 1.0, (rng.random((2, 120)) < 0.4) * 1.0
    >>> batch = ClusteredBatch(a, b, paired=True, cluster_size=1, n_samples=3)
    >>> get_criterion("passk-paired(k=2)")(batch, None).pvalue.round(4)
    array([0.0987, 0.0299])
    """
    k = check_int("k", k, low=1)
    return partial(_passk_paired, k=k)
