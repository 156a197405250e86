"""Slow, obvious references for the vectorized kernels: loops, enumeration, textbook formulas."""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numpy as np
from scipy import integrate, stats


def mean_var(x):
    """Mean and unbiased variance of a 1-D sequence, by explicit sums."""
    n = len(x)
    m = sum(x) / n
    return m, sum((v - m) ** 2 for v in x) / (n - 1)


def t_paired(a, b):
    m, v = mean_var([x - y for x, y in zip(a, b, strict=True)])
    return m / math.sqrt(v / len(a))


def t_student(a, b):
    (ma, va), (mb, vb) = mean_var(a), mean_var(b)
    na, nb = len(a), len(b)
    pooled = ((na - 1) * va + (nb - 1) * vb) / (na + nb - 2)
    return (ma - mb) / math.sqrt(pooled * (1 / na + 1 / nb))


def u_statistic(a, b):
    """Mann-Whitney U of `a`: pairs with a > b, ties counting one half."""
    return sum((x > y) + 0.5 * (x == y) for x in a for y in b)


def u_null_pmf(n1, n2):
    """Exact null distribution of U by enumerating every placement of the first sample's ranks."""
    counts = np.zeros(n1 * n2 + 1)
    for ranks in itertools.combinations(range(1, n1 + n2 + 1), n1):
        counts[sum(ranks) - n1 * (n1 + 1) // 2] += 1
    return counts / counts.sum()


def mann_whitney_exact_size(n1, n2, alpha, pvalue_of_u):
    """P(reject) under a continuous null: sum of P(U = u) over the u whose p-value <= alpha."""
    pmf = u_null_pmf(n1, n2)
    return sum(p for u, p in enumerate(pmf) if pvalue_of_u(u) <= alpha)


def sign_test_exact_size(n, alpha):
    """P(reject) of the two-sided sign test with n non-zero differences, by enumeration of k."""
    return sum(
        stats.binom.pmf(k, n, 0.5)
        for k in range(n + 1)
        if stats.binomtest(k, n, 0.5).pvalue <= alpha
    )


def wilson(k, n, confidence=0.95):
    """Wilson score interval, from Wilson (1927) as usually written."""
    z = stats.norm.ppf(0.5 + confidence / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def train_mlp_numpy(rng, x, y, n_hidden, n_updates, lr0, output="linear"):
    """One MLP by per-example backpropagation, one numpy step per update; `output` "tanh" puts
    a tanh on the output units (the error then back through its derivative).

    Draws from `rng` in the same order as evalmc.sims.networks: weights unit by unit (each unit's
    bias after its weights), then the passes over the examples, each a row of
    ``rng.permuted(..., axis=1)``.
    """
    n, n_in = x.shape
    n_out = y.shape[1]
    w1, b1 = np.empty((n_hidden, n_in)), np.empty(n_hidden)
    w2, b2 = np.empty((n_out, n_hidden)), np.empty(n_out)
    for h in range(n_hidden):
        w1[h] = [rng.uniform(-2.4 / n_in, 2.4 / n_in) for _ in range(n_in)]
        b1[h] = rng.uniform(-2.4 / n_in, 2.4 / n_in)
    for o in range(n_out):
        w2[o] = [rng.uniform(-2.4 / n_hidden, 2.4 / n_hidden) for _ in range(n_hidden)]
        b2[o] = rng.uniform(-2.4 / n_hidden, 2.4 / n_hidden)
    passes = int(np.ceil(n_updates / n))
    order = rng.permuted(np.tile(np.arange(n), (passes, 1)), axis=1).ravel()
    for t in range(n_updates):
        lr = lr0 * (1 - t / n_updates)
        k = order[t]
        hidden = np.tanh(w1 @ x[k] + b1)
        out = w2 @ hidden + b2
        if output == "tanh":
            out = np.tanh(out)
            err = (out - y[k]) * (1 - out**2)
        else:
            err = out - y[k]
        delta = (1 - hidden**2) * (w2.T @ err)
        w2 -= lr * np.outer(err, hidden)
        b2 -= lr * err
        w1 -= lr * np.outer(delta, x[k])
        b1 -= lr * delta
    return w1, b1, w2, b2


def prob_outperform_resampled(a, b, n_resamples, alpha, gamma, rng):
    """P(A>B) test by resampling the k pairs `n_resamples` times (ties count one half).

    Returns the conclusion: 0 not significant, 1 not meaningful, 2 A better; the interval is
    read with numpy.percentile(method='inverted_cdf'), i.e. picked from the sorted replicates.
    """
    k = len(a)
    idx = rng.integers(0, k, (n_resamples, k))
    replicates = ((a[idx] > b[idx]) + 0.5 * (a[idx] == b[idx])).mean(axis=1)
    low, high = np.percentile(replicates, [100 * alpha / 2, 100 * (1 - alpha / 2)],
                              method="inverted_cdf")
    return 0 if low <= 0.5 else (1 if high <= gamma else 2)


def bootstrap_distribution_enumerated(scores):
    """Exact distribution of the mean of a resample of `scores`: all k^k index tuples."""
    k = len(scores)
    dist = {}
    for idx in itertools.product(range(k), repeat=k):
        mean = sum(scores[i] for i in idx) / k
        dist[mean] = dist.get(mean, 0) + 1
    return {m: c / k**k for m, c in dist.items()}


def noether(gamma, alpha, beta):
    """Noether's (1987) sample size, from the paper's formula with scipy's normal quantiles."""
    z = stats.norm.ppf(1 - alpha) - stats.norm.ppf(beta)
    return math.ceil(round(z * z / (6 * (gamma - 0.5) ** 2), 9))


def boon_brute_force(val, test, n, best="max"):
    """Expected test score of the best-validation run among n drawn with replacement from the
    pool, by enumerating all m^n draws (ties broken uniformly over the tied draws)."""
    m = len(val)
    total = 0.0
    for draw in itertools.product(range(m), repeat=n):
        scores = [val[i] for i in draw]
        top = max(scores) if best == "max" else min(scores)
        total += np.mean([test[i] for i in draw if val[i] == top])
    return total / m**n


def boon_eq7(val, test, n):
    """Eq 7 for distinct validation scores, with weights as plain differences of (j/m)^n."""
    m = len(val)
    weights = np.diff((np.arange(m + 1) / m) ** n)
    return float(np.dot(weights, np.asarray(test)[np.argsort(val)]))


def expected_max_normal(n):
    """E[max of n standard normals] by the trapezoid rule on n z phi(z) Phi(z)^(n-1)."""
    grid = np.linspace(-12, 12, 200_001)
    density = n * stats.norm.pdf(grid) * np.exp((n - 1) * stats.norm.logcdf(grid))
    return np.trapezoid(grid * density, grid)


def examples_of_table(counts):
    """The examples of an 8-cell table: arrays label, A correct, B correct (0/1), cell order."""
    cells = [cell for cell, count in enumerate(counts) for _ in range(int(count))]
    cells = np.array(cells, dtype=int)
    return cells // 4, (cells // 2) % 2, cells % 2


def classifier_differences(label, a_ok, b_ok):
    """dCerr and dF1 (F1 = 2TP / (2TP + FN + FP), 0 if undefined) of A minus B, by counting."""
    out = []
    for ok in (a_ok, b_ok):
        pred = np.where(ok == 1, label, 1 - label)
        tp = int(np.sum((pred == 1) & (label == 1)))
        fn = int(np.sum((pred == 0) & (label == 1)))
        fp = int(np.sum((pred == 1) & (label == 0)))
        den = 2 * tp + fn + fp
        out.append(((fn + fp) / len(label), 2 * tp / den if den else 0.0))
    return out[0][0] - out[1][0], out[0][1] - out[1][1]


def bootstrap_sides(counts, n_boot, rng):
    """Replicates with dCerr* <= 0, >= 0 and dF1* <= 0, >= 0, resampling the n examples."""
    label, a_ok, b_ok = examples_of_table(counts)
    n = len(label)
    values = []
    for _ in range(n_boot):
        idx = rng.integers(0, n, n)
        values.append(classifier_differences(label[idx], a_ok[idx], b_ok[idx]))
    d = np.array(values)
    return [(int(np.sum(d[:, j] <= 0)), int(np.sum(d[:, j] >= 0))) for j in (0, 1)]


def multinomial_outcomes(counts):
    """Every bootstrap replicate of an 8-cell table and its probability, by enumeration.

    Cells with a zero count stay at zero; returns tables (k, 8) and probabilities (k,).
    """
    counts = np.asarray(counts)
    n, cells = int(counts.sum()), np.flatnonzero(counts)
    tables, probs = [], []
    for cut in itertools.combinations(range(n + len(cells) - 1), len(cells) - 1):
        bounds = (-1, *cut, n + len(cells) - 1)
        table = np.zeros(8, dtype=int)
        table[cells] = np.diff(bounds) - 1  # stars and bars
        tables.append(table)
        probs.append(stats.multinomial.pmf(table[cells], n, counts[cells] / n))
    return np.array(tables), np.array(probs)


def replicate_sides(counts):
    """Exact P(d* < 0) and P(d* = 0) of dCerr* and of dF1* of one bootstrap replicate."""
    tables, probs = multinomial_outcomes(counts)
    out = []
    for j in (0, 1):
        d = np.array([classifier_differences(*examples_of_table(t))[j] for t in tables])
        out.append((probs[d < 0].sum(), probs[d == 0].sum()))
    return out


def mcnemar_pvalues(n01, n10):
    """McNemar p-values from textbook formulas: chi2 (Eq 4), exact binomial, mid-p."""
    m = n01 + n10
    if m == 0:
        return {"mcnemar": 1.0, "mcnemar-exact": 1.0, "mcnemar-midp": 1.0}
    k = min(n01, n10)
    chi2 = (abs(n01 - n10) - 1) ** 2 / m
    return {
        "mcnemar": stats.chi2.sf(chi2, 1),
        "mcnemar-exact": stats.binomtest(n01, m, 0.5).pvalue,
        "mcnemar-midp": min(1.0, sum(math.comb(m, j) for j in range(k)) * 2 / 2**m
                            + math.comb(m, k) / 2**m),
    }


def mcnemar_exact_size(n, discordant, alpha, name):
    """P(reject) of a McNemar test under an exact null, enumerating the discordant counts.

    The discordant total is Binomial(n, discordant) and, given it, n01 is Binomial(m, 1/2).
    """
    return _mcnemar_exact_sizes(n, float(discordant), alpha)[name]


@functools.cache
def _mcnemar_exact_sizes(n, discordant, alpha):
    """`mcnemar_exact_size` of the three tests, from one enumeration (`mcnemar_pvalues` gives
    the three p-values of a table at once)."""
    total = dict.fromkeys(("mcnemar", "mcnemar-exact", "mcnemar-midp"), 0.0)
    for m in range(n + 1):
        p_m = stats.binom.pmf(m, n, discordant)
        if p_m < 1e-15:
            continue
        for k in range(m + 1):
            rejected = [name for name, p in mcnemar_pvalues(k, m - k).items() if p <= alpha]
            if rejected:
                p_mk = p_m * stats.binom.pmf(k, m, 0.5)
                for name in rejected:
                    total[name] += p_mk
    return total


MCNEMAR_VARIANTS = ("mcnemar-uncorrected", "mcnemar", "mcnemar-exact", "mcnemar-midp")


@functools.cache
def mcnemar_pvalues_textbook(n01, n10):
    """The four McNemar p-values by the textbook formulas, without numpy or scipy: the chi2(1)
    tail as ``erfc(sqrt(x / 2))``, the binomial tails as sums of ``math.comb`` over ``2^m`` in
    exact integer arithmetic (rounded once)."""
    m = n01 + n10
    if m == 0:
        return dict.fromkeys(MCNEMAR_VARIANTS, 1.0)
    k = min(n01, n10)
    below = sum(math.comb(m, j) for j in range(k))  # 2^m P(X < k), X ~ Binomial(m, 1/2)
    at = math.comb(m, k)
    return {
        "mcnemar-uncorrected": math.erfc(math.sqrt((n01 - n10) ** 2 / m / 2)),
        "mcnemar": math.erfc(math.sqrt((abs(n01 - n10) - 1) ** 2 / m / 2)),
        "mcnemar-exact": min(1.0, float(Fraction(2 * (below + at), 2**m))),
        "mcnemar-midp": min(1.0, float(Fraction(2 * below + at, 2**m))),
    }


def mcnemar_rejection_enumerated(n, p01, p10, alphas):
    """Rejection rates of the four McNemar tests on n items at each of `alphas`: a loop over
    every outcome (n01, n10, concordant) with its multinomial probability from math.comb."""
    rest = 1.0 - p01 - p10
    total = {name: [0.0] * len(alphas) for name in MCNEMAR_VARIANTS}
    for n01 in range(n + 1):
        for n10 in range(n - n01 + 1):
            prob = (math.comb(n, n01) * math.comb(n - n01, n10)
                    * p01**n01 * p10**n10 * rest ** (n - n01 - n10))
            for name, p in mcnemar_pvalues_textbook(n01, n10).items():
                for i, alpha in enumerate(alphas):
                    if p <= alpha:
                        total[name][i] += prob
    return total


def sign_rejection_enumerated(n, p_greater, p_tie, alphas):
    """Rejection rates of the two-sided sign test on n pairs at each of `alphas`: a loop over
    every outcome (positive, negative, zero differences), scipy's binomtest on the non-zero
    ones (p = 1 when there is none)."""
    p_less = 1.0 - p_greater - p_tie
    total = [0.0] * len(alphas)
    for pos in range(n + 1):
        for neg in range(n - pos + 1):
            p = stats.binomtest(pos, pos + neg, 0.5).pvalue if pos + neg else 1.0
            prob = (math.comb(n, pos) * math.comb(n - pos, neg)
                    * p_greater**pos * p_less**neg * p_tie ** (n - pos - neg))
            for i, alpha in enumerate(alphas):
                if p <= alpha:
                    total[i] += prob
    return total


def sequences_rejection(pvalue, sizes, values, probabilities, alpha):
    """Rejection rate of a test on independent samples of sizes `sizes` whose scores take
    `values` with `probabilities` (one vector per sample): a loop over every sequence of
    scores, in order, its probability the product of its scores'; ``pvalue(*samples)`` on
    each (a NaN p-value never rejects)."""
    total = 0.0
    for seq in itertools.product(range(len(values)), repeat=sum(sizes)):
        samples, prob, start = [], 1.0, 0
        for size, probs in zip(sizes, probabilities, strict=True):
            part = seq[start:start + size]
            samples.append(np.array([values[j] for j in part], dtype=float))
            prob *= math.prod(probs[j] for j in part)
            start += size
        if prob > 0 and pvalue(*samples) <= alpha:
            total += prob
    return total


def fir_numpy(x, y, order_idx, lr0, learn_gains, w, g, b, v, c):
    """FIR MLP, one numpy step per example ``x[order_idx[t]]``, its gains learnt when
    `learn_gains`; returns the trained (w, g, b, v, c) as new arrays."""
    w, g, b, v, c = (np.array(a, dtype=float) for a in (w, g, b, v, c))
    n = len(order_idx)
    for t, k in enumerate(order_idx):
        lr = lr0 * (1 - t / n)
        filt = w @ x[k]
        hidden = np.tanh(b + g * filt)
        err = c[0] + v @ hidden - y[k]
        delta = (1 - hidden**2) * err * v
        v = v - lr * err * hidden
        w = w - lr * (delta * g)[:, None] * x[k][None, :]
        g = g - lr * delta * filt if learn_gains else g
        b = b - lr * delta
        c = c - lr * err
    return w, g, b, v, c


def elman_numpy(x, y, n_updates, lr0, w, rec, b, v, c):
    """Elman network trained step by step along the windows `x` (context restarts at 0 each
    pass, no gradient through time); returns the trained (w, rec, b, v, c)."""
    w, rec, b, v, c = (np.array(a, dtype=float) for a in (w, rec, b, v, c))
    ctx = np.zeros(len(b))
    for t in range(n_updates):
        lr = lr0 * (1 - t / n_updates)
        k = t % len(x)
        if k == 0:
            ctx = np.zeros(len(b))
        hidden = np.tanh(b + w @ x[k] + rec @ ctx)
        err = c[0] + v @ hidden - y[k]
        delta = (1 - hidden**2) * err * v
        v = v - lr * err * hidden
        w = w - lr * np.outer(delta, x[k])
        rec = rec - lr * np.outer(delta, ctx)
        b = b - lr * delta
        c = c - lr * err
        ctx = hidden
    return w, rec, b, v, c


def percentile_bootstrap_coverage(n, reps, n_boot, rng, level=0.95):
    """Coverage of the percentile bootstrap interval of the mean of `n` N(0, 1) runs, plainly:
    one replication at a time, resampled by index, with ``np.percentile``."""
    covered = 0
    for _ in range(reps):
        x = rng.standard_normal(n)
        means = x[rng.integers(0, n, (n_boot, n))].mean(axis=1)
        low, high = np.percentile(means, [50 * (1 - level), 50 * (1 + level)])
        covered += low <= 0.0 <= high
    return covered / reps


def signed_rank_exact_size(n, alpha):
    """P(reject) of the two-sided Wilcoxon signed-rank test with n untied non-zero differences,
    by enumeration of all 2^n sign patterns of the ranks 1..n."""
    ranks = np.arange(1, n + 1)
    r_plus = np.array([ranks[np.array(signs, bool)].sum()
                       for signs in itertools.product((0, 1), repeat=n)])
    low = np.array([(r_plus <= r).mean() for r in r_plus])
    high = np.array([(r_plus >= r).mean() for r in r_plus])
    return float(np.mean(np.minimum(1.0, 2 * np.minimum(low, high)) <= alpha))


def bayes_signed_rank_left(z, rope, prior, n_samples, rng):
    """baycomp's Bayesian signed-rank sampler, plainly (its O(n^2) matrix of Walsh sums), on
    the differences z = B - A, the Dirichlet weights drawn as normalised gammas from `rng`:
    the share of draws whose largest mass is left of the rope (ties to the left)."""
    diff = np.concatenate([[0.0], z])
    alpha = np.ones(diff.size)
    alpha[0] = prior
    sums = diff[:, None] + diff[None, :]

    def heaviside(a, thresh):
        return (a > thresh) + 0.5 * (a == thresh)

    above, below = heaviside(sums, 2 * rope), heaviside(-sums, 2 * rope)
    w = rng.standard_gamma(alpha, size=(n_samples, diff.size))  # draw after draw, as a loop
    w /= w.sum(axis=1, keepdims=True)
    outer = w[:, :, None] * w[:, None, :]
    right = np.sum(outer * above, axis=(1, 2))
    low = np.sum(outer * below, axis=(1, 2)) if rope > 0 else 1 - right
    middle = 1 - low - right if rope > 0 else np.zeros(n_samples)
    left = np.argmax(np.stack([low, middle, right]), axis=0) == 0
    return left.sum() / n_samples


def item_cells(skill, sd, rho):
    """P(A right and B right), P(A only), P(B only), P(neither) for two models of equal `skill`
    on a random item (difficulty N(0, sd^2), noise correlation `rho`), by scipy's bivariate
    normal cdf: right when skill - d + eps > 0."""
    from scipy import stats

    var, cov = sd**2 + 1, sd**2 + rho
    both = stats.multivariate_normal([0, 0], [[var, cov], [cov, var]]).cdf([skill, skill])
    one = stats.norm.cdf(skill / np.sqrt(var))
    return both, one - both, one - both, 1 - 2 * one + both


def exact_item_size(n, cells, pvalue, alpha):
    """Size of a test on n independent items: the multinomial law of the counts
    ``(n11, n10, n01, n00)`` of `cells`, summed over the counts whose ``pvalue(n11, n10, n01,
    n00)`` is at most alpha (every count enumerated)."""
    from scipy import stats

    law = stats.multinomial(n, cells)
    size = 0.0
    for n11 in range(n + 1):
        for n10 in range(n - n11 + 1):
            for n01 in range(n - n11 - n10 + 1):
                counts = (n11, n10, n01, n - n11 - n10 - n01)
                if pvalue(*counts) <= alpha:
                    size += law.pmf(counts)
    return size


def rank_null_rejections(k, d, reps, rng, alpha):
    """Under the null of k exchangeable models with untied scores, each data set's ranking is
    a uniform permutation: the rejection rates of Friedman's chi-square test and of Nemenyi's
    "some pair differs", from `reps` tables of d random permutations (plain numpy)."""
    from scipy import stats

    ranks = rng.permuted(np.tile(np.arange(1, k + 1, dtype=float), (reps, d, 1)), axis=2)
    sums = ranks.sum(axis=1)
    chi = 12.0 / (k * d * (k + 1)) * (sums**2).sum(axis=1) - 3 * d * (k + 1)
    friedman = np.mean(stats.chi2.sf(chi, k - 1) <= alpha)
    means = sums / d
    cd = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2) * np.sqrt(
        k * (k + 1) / (6 * d))
    nemenyi = np.mean(means.max(axis=1) - means.min(axis=1) >= cd)
    return friedman, nemenyi


def clustered_items(rng, reps, n_items, n_clusters, icc, tau, rho, skill=0.5, sd=1.0):
    """The llm-items model drawn plainly, one replication at a time: 0/1 scores of A and B on
    items in `n_clusters` equal clusters (difficulty shared with share `icc`, the cluster's
    advantage of A over B N(0, tau^2) split half and half, noise correlated `rho`)."""
    k = n_items // n_clusters
    out = []
    for _ in range(reps):
        c = np.repeat(rng.normal(0, np.sqrt(icc) * sd, n_clusters), k)
        u = np.repeat(rng.normal(0, tau, n_clusters), k) / 2
        d = c + rng.normal(0, np.sqrt(1 - icc) * sd, n_items)
        eps = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], n_items)
        out.append(((skill + u - d + eps[:, 0] > 0).astype(float),
                    (skill - u - d + eps[:, 1] > 0).astype(float)))
    return out


def _fold(order, starts, f):
    test = order[starts[f]:starts[f + 1]]
    return test, np.setdiff1d(order, test, assume_unique=True)


def cv_regression(rng, n_reps, n, beta, p, sd, repeats, starts, per_example=False):
    """The cv-regression scenario's fits, plainly: per replication a data set, per repetition a
    permutation, per fold least squares of all features (A) and of the first p (B) on the
    other folds. Returns the test mean squared errors (or, `per_example`, each test example's)
    and the exact risks ``sd^2 + |b - beta|^2`` of A and B, from the same draws as the kernel."""
    d, folds = beta.size, len(starts) - 1
    loss = np.empty((2, n_reps, starts[1] if per_example else repeats * folds))
    risk = np.empty((2, n_reps, repeats * folds))
    for i in range(n_reps):
        x = rng.standard_normal((n, d))
        y = x @ beta + sd * rng.standard_normal(n)
        for rep in range(repeats):
            order = rng.permutation(n)
            for f in range(folds):
                test, train = _fold(order, starts, f)
                for m, q in enumerate((d, p)):
                    coef = np.linalg.lstsq(x[train][:, :q], y[train], rcond=None)[0]
                    sq = (y[test] - x[test][:, :q] @ coef) ** 2
                    if per_example:
                        loss[m, i] = sq
                    else:
                        loss[m, i, rep * folds + f] = sq.mean()
                    full = np.r_[coef, np.zeros(d - q)]
                    risk[m, i, rep * folds + f] = sd**2 + np.sum((full - beta) ** 2)
    return loss[0], loss[1], risk[0], risk[1]


def cv_classification(rng, n_reps, n, delta, sigma, repeats, starts, per_example=False,
                      exchange=0.0):
    """The cv-classification scenario's fits, plainly: labels, then features with covariance
    `sigma` and class means -+ delta/2 on feature 1 (then, if `exchange`, a uniform per
    example); per fold, Fisher's discriminant (pooled covariance, A) and the nearest mean (B),
    both cut at the midpoint of the class means, and A's errors where B is right given to B
    on the examples whose uniform is below `exchange`. Returns the test error rates (or each
    test example's 0/1 error) and the exact risks (scipy's normal cdf) of A and B, from the
    same draws as the kernel."""
    d, folds = sigma.shape[0], len(starts) - 1
    chol = np.linalg.cholesky(sigma)
    mu = np.zeros(d)
    mu[0] = delta / 2
    loss = np.empty((2, n_reps, starts[1] if per_example else repeats * folds))
    risk = np.empty((2, n_reps, repeats * folds))
    for i in range(n_reps):
        y = (rng.random(n) < 0.5).astype(int)
        x = rng.standard_normal((n, d)) @ chol.T + np.outer(y - 0.5, 2 * mu)
        coin = rng.random(n) if exchange > 0 else np.ones(n)
        for rep in range(repeats):
            order = rng.permutation(n)
            for f in range(folds):
                test, train = _fold(order, starts, f)
                xs, ys = x[train], y[train]
                m0, m1 = xs[ys == 0].mean(axis=0), xs[ys == 1].mean(axis=0)
                pooled = (np.cov(xs[ys == 0].T, bias=True) * (ys == 0).sum()
                          + np.cov(xs[ys == 1].T, bias=True) * (ys == 1).sum())
                wrong = []
                for m, w in enumerate((np.linalg.inv(pooled) @ (m1 - m0), m1 - m0)):
                    b = -w @ (m0 + m1) / 2
                    wrong.append(((x[test] @ w + b > 0).astype(int) != y[test]).astype(float))
                    s = np.sqrt(w @ sigma @ w)
                    risk[m, i, rep * folds + f] = (stats.norm.cdf((w @ -mu + b) / s)
                                                   + stats.norm.sf((w @ mu + b) / s)) / 2
                moved = (wrong[0] == 1) & (wrong[1] == 0) & (coin[test] < exchange)
                wrong = [np.where(moved, 0.0, wrong[0]), np.where(moved, 1.0, wrong[1])]
                for m in range(2):
                    if per_example:
                        loss[m, i] = wrong[m]
                    else:
                        loss[m, i, rep * folds + f] = wrong[m].mean()
    return loss[0], loss[1], risk[0], risk[1]


def stump_brute_force(x, y):
    """The stump of fewest training errors by trying every cut of the sorted feature and every
    pair of labels, counting errors one by one: the first best cut, label 0 on a tie."""
    xs = np.sort(x)
    cuts = np.r_[0.0, (xs[:-1] + xs[1:]) / 2, 1.0]
    best = None
    for t in cuts:
        for left, right in ((0, 0), (0, 1), (1, 0), (1, 1)):
            errors = int(np.sum(np.where(x < t, left, right) != y))
            if best is None or errors < best[0]:
                best = (errors, t, left, right)
    return best[1:]


def stump_risk_integrated(threshold, left, right, slope):
    """A stump's error rate on u ~ U(0, 1), P(y = 1 | u) = 1/2 + slope (u - 1/2), by
    numerical integration (scipy's quad)."""
    def wrong(u):
        eta = 0.5 + slope * (u - 0.5)
        return 1 - eta if (left if u < threshold else right) == 1 else eta
    return sum(integrate.quad(wrong, lo, hi)[0]
               for lo, hi in ((0.0, threshold), (threshold, 1.0)) if hi > lo)


def cv_stumps(rng, n_reps, n, slope, repeats, starts, per_example=False):
    """The cv-stumps scenario's fits, plainly: per replication a data set, per repetition a
    permutation, per fold the brute-force stump on feature 1 (A) and on feature 2 (B); their
    test errors and integrated risks, from the same draws as the kernel."""
    folds = len(starts) - 1
    loss = np.empty((2, n_reps, starts[1] if per_example else repeats * folds))
    risk = np.empty((2, n_reps, repeats * folds))
    for i in range(n_reps):
        x = rng.random((n, 2))
        y = (rng.random(n) < 0.5 + slope * (x[:, 0] - 0.5) + slope * (x[:, 1] - 0.5)).astype(int)
        for rep in range(repeats):
            order = rng.permutation(n)
            for f in range(folds):
                test, train = _fold(order, starts, f)
                for m in range(2):
                    t, left, right = stump_brute_force(x[train, m], y[train])
                    wrong = (np.where(x[test, m] < t, left, right) != y[test]).astype(float)
                    if per_example:
                        loss[m, i] = wrong
                    else:
                        loss[m, i, rep * folds + f] = wrong.mean()
                    risk[m, i, rep * folds + f] = stump_risk_integrated(t, left, right, slope)
    return loss[0], loss[1], risk[0], risk[1]


def cv_tests(d, n_test, n_train):
    """Two-sided p-values of the cross-validation tests on one data set's differences `d`
    (one per split; for 5x2, repetition-major), written out plainly from the papers."""
    from scipy import stats

    m = len(d)
    mean, var = sum(d) / m, sum((x - sum(d) / m) ** 2 for x in d) / (m - 1)
    out = {}
    for name, c in (("plain", 1 / m), ("corrected", 1 / m + n_test / n_train)):
        t = mean / (c * var) ** 0.5
        out[name] = 2 * stats.t.sf(abs(t), m - 1)
    if m == 10:
        s2 = [(d[2 * i] - (d[2 * i] + d[2 * i + 1]) / 2) ** 2
              + (d[2 * i + 1] - (d[2 * i] + d[2 * i + 1]) / 2) ** 2 for i in range(5)]
        t = d[0] / (sum(s2) / 5) ** 0.5
        out["5x2t"] = 2 * stats.t.sf(abs(t), 5)
        f = sum(x * x for x in d) / (2 * sum(s2))
        out["5x2f"] = stats.f.sf(f, 10, 5)
    return out


def sacrebleu_paired_bs(bl, sys, n_samples, rng):
    """sacrebleu's ``_paired_bs_test`` (sacrebleu/significance.py) for the mean score, as its
    loop runs: one (n_samples, n) matrix of indices with replacement, the same for both
    systems; ``stats = |sys* - bl*| - mean``; ``_compute_p_value``."""
    n = len(bl)
    idxs = rng.choice(n, size=(n_samples, n), replace=True)
    bl, sys = np.asarray(bl, dtype=float), np.asarray(sys, dtype=float)
    diff = abs(bl.mean() - sys.mean())
    scores_bl = np.array([bl[i].sum() / n for i in idxs])
    scores_sys = np.array([sys[i].sum() / n for i in idxs])
    sample_diffs = np.abs(scores_sys - scores_bl)
    stats_ = sample_diffs - sample_diffs.mean()
    return (np.sum(stats_ > diff) + 1) / (len(stats_) + 1)


def sacrebleu_paired_ar(bl, sys, n_samples, rng):
    """sacrebleu's ``_paired_ar_test`` for the mean score: ``pos_sel`` picks, per trial and
    item, which system's score goes to pseudo-system a; ``|mean(a) - mean(b)|`` against the
    real ``|mean(bl) - mean(sys)|``; ``_compute_p_value``."""
    n = len(bl)
    bl, sys = np.asarray(bl, dtype=float), np.asarray(sys, dtype=float)
    pos_sel = rng.integers(2, size=(n_samples, n), dtype=bool)
    neg_sel = ~pos_sel
    shuf_a = pos_sel @ bl + neg_sel @ sys
    shuf_b = neg_sel @ bl + pos_sel @ sys
    diff = abs(bl.mean() - sys.mean())
    stats_ = np.abs(shuf_a / n - shuf_b / n)
    return (np.sum(stats_ > diff) + 1) / (len(stats_) + 1)


def sacrebleu_bs_exceedance(d):
    """The bootstrap law of ``|mean(d*)|`` over all n^n index tuples, and the chance that a
    resample's ``|m*| - E|m*|`` exceeds ``|mean(d)|`` (sacrebleu's count over B resamples,
    its mean replaced by the exact one), in exact fractions."""
    d = [Fraction(v) for v in d]
    n = len(d)
    law = {}
    for idx in itertools.product(range(n), repeat=n):
        m = abs(sum(d[i] for i in idx) / n)
        law[m] = law.get(m, 0) + 1
    total = n**n
    mean_abs = sum(m * c for m, c in law.items()) / total
    real = abs(sum(d) / n)
    return Fraction(sum(c for m, c in law.items() if m - mean_abs > real), total)


def sacrebleu_ar_exceedance(d):
    """The chance over all 2^n sign patterns that ``|sum s_i d_i| > |sum d_i|``."""
    d = [Fraction(v) for v in d]
    real = abs(sum(d))
    hits = sum(abs(sum(s * v for s, v in zip(signs, d, strict=True))) > real
               for signs in itertools.product((-1, 1), repeat=len(d)))
    return Fraction(hits, 2 ** len(d))


def pass_at_k(n, c, k):
    """Chen et al. (2021)'s numerically stable unbiased pass@k of one item."""
    if n - c < k:
        return 1.0
    return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))


def wilson_bounds(p, n, z):
    """Wilson's score interval of a proportion p of n, textbook form."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def newcombe_paired(n11, n10, n01, n00, z):
    """Newcombe (1998, Statistics in Medicine 17:2635-2650), method 10, for the 2 x 2 table of
    pairs (a = n11 both right, b = n10, c = n01, d = n00): Wilson intervals of p1 = (a + b)/n
    and p2 = (a + c)/n; phi = 0 if a margin e, f, g, h is 0, else with A = ad - bc:
    (A - n/2) / sqrt(efgh) if A > n/2, 0 if 0 <= A <= n/2, A / sqrt(efgh) if A < 0;
    L = p1 - p2 - sqrt(dl2^2 - 2 phi dl2 du3 + du3^2), U = p1 - p2 + sqrt(du2^2 - 2 phi du2
    dl3 + dl3^2)."""
    n = n11 + n10 + n01 + n00
    p1, p2 = (n11 + n10) / n, (n11 + n01) / n
    l2, u2 = wilson_bounds(p1, n, z)
    l3, u3 = wilson_bounds(p2, n, z)
    e, f, g, h = n11 + n10, n01 + n00, n11 + n01, n10 + n00
    big_a = n11 * n00 - n10 * n01
    if e * f * g * h == 0 or 0 <= big_a <= n / 2:
        phi = 0.0
    else:
        phi = (big_a - n / 2 if big_a > n / 2 else big_a) / math.sqrt(e * f * g * h)
    dl2, du2, dl3, du3 = p1 - l2, u2 - p1, p2 - l3, u3 - p2
    delta = math.sqrt(dl2**2 - 2 * phi * dl2 * du3 + du3**2)
    eps = math.sqrt(du2**2 - 2 * phi * du2 * dl3 + dl3**2)
    return p1 - p2 - delta, p1 - p2 + eps


def item_pair_sums(x, y, cluster_of, same):
    """Weighted sums of ``x * y`` over every pair of scores, and the weights' totals, by
    explicit loops over pairs: the same item (two different samples when `same`, any two
    samples across models), weight 1, and the same cluster but different items, weight
    ``1 / (n_g - 1)`` (``n_g`` the cluster's items). `x`, `y` are items x samples,
    `cluster_of[i]` item i's cluster."""
    n, s = len(x), len(x[0])
    size = {g: sum(1 for c in cluster_of if c == g) for g in cluster_of}
    item = [0.0, 0]
    cluster = [0.0, 0.0]
    for i in range(n):
        for j in range(n):
            for u in range(s):
                for v in range(s):
                    if i == j and (u != v or not same):
                        item[0] += x[i][u] * y[j][v]
                        item[1] += 1
                    elif i != j and cluster_of[i] == cluster_of[j]:
                        w = 1 / (size[cluster_of[i]] - 1)
                        cluster[0] += w * x[i][u] * y[j][v]
                        cluster[1] += w
    return {"item": tuple(item), "cluster": tuple(cluster)}


def nested_pair_sums(x, y, cluster_of, sub_of, same):
    """As :func:`item_pair_sums` with subclusters within clusters: same item (weight 1), same
    subcluster different items (``1 / (m_h - 1)``, ``m_h`` the subcluster's items), same cluster
    different subclusters (the mean of ``1 / (n_g - m_h)`` over the pair's two items, ``n_g``
    the cluster's items), by explicit loops over pairs."""
    n, s = len(x), len(x[0])
    size = {g: sum(1 for c in cluster_of if c == g) for g in cluster_of}
    sub = {h: sum(1 for c in sub_of if c == h) for h in sub_of}
    out = {"item": [0.0, 0], "sub": [0.0, 0.0], "clu": [0.0, 0.0]}
    for i in range(n):
        for j in range(n):
            for u in range(s):
                for v in range(s):
                    if i == j:
                        key, w = ("item", 1) if (u != v or not same) else (None, 0)
                    elif sub_of[i] == sub_of[j]:
                        key, w = "sub", 1 / (sub[sub_of[i]] - 1)
                    elif cluster_of[i] == cluster_of[j]:
                        g = size[cluster_of[i]]
                        key, w = "clu", (1 / (g - sub[sub_of[i]]) + 1 / (g - sub[sub_of[j]])) / 2
                    else:
                        key = None
                    if key:
                        out[key][0] += w * x[i][u] * y[j][v]
                        out[key][1] += w
    return {k: tuple(v) for k, v in out.items()}


def clt_subtask_interval(tasks, alpha):
    """Bowyer et al.'s ``clt_subtask_confidence_interval`` for one replication, transcribed:
    the CLT variance plus every within-task cross product of residuals over N^2. `tasks` is a
    list of each task's 0/1 answers."""
    flat = [y for task in tasks for y in task]
    n = len(flat)
    mean = sum(flat) / n
    var = mean * (1 - mean) / n
    for task in tasks:
        for i, yi in enumerate(task):
            for j, yj in enumerate(task):
                if i != j:
                    var += (yi - mean) * (yj - mean) / n**2
    half = stats.norm.ppf(1 - alpha / 2) * math.sqrt(abs(var))
    return mean - half, mean + half


def bayes_subtask_is_interval(counts, sizes, thetas, ds, uniforms, alpha):
    """Bowyer et al.'s ``bayes_subtask_credible_interval_IS`` for one replication, transcribed
    with its prior draws and resampling uniforms given: weights from scipy's Beta-binomial
    log-pmf summed over the tasks, resampling as ``numpy.random.choice(p=weights)`` does it
    (the first index whose cumulative weight exceeds the uniform), and ``np.percentile``."""
    loglik = np.zeros(len(thetas))
    for k, m in zip(counts, sizes, strict=True):
        loglik += stats.betabinom(m, ds * thetas, ds * (1 - thetas)).logpmf(k)
    weights = np.exp(loglik - loglik.max())
    weights /= weights.sum()
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    picked = [thetas[int(np.searchsorted(cdf, u, side="right"))] for u in uniforms]
    return tuple(np.percentile(picked, [100 * alpha / 2, 100 * (1 - alpha / 2)]))


def student_t_size(n_a, n_b, sd_a, sd_b, alpha):
    """Size of Student's pooled t-test on two normal samples of unequal sds, by integrating
    the normal tail over the two chi-square laws of the variances (midpoint rule on their
    quantiles): T = Z sqrt(V) / (s_p sqrt(1/n_a + 1/n_b)), V = sd_a^2/n_a + sd_b^2/n_b."""
    grid = (np.arange(1500) + 0.5) / 1500
    x = stats.chi2.ppf(grid, n_a - 1)[:, None]
    y = stats.chi2.ppf(grid, n_b - 1)[None, :]
    pooled = (sd_a**2 * x + sd_b**2 * y) / (n_a + n_b - 2)
    crit = stats.t.ppf(1 - alpha / 2, n_a + n_b - 2)
    scale = np.sqrt(pooled * (1 / n_a + 1 / n_b) / (sd_a**2 / n_a + sd_b**2 / n_b))
    return float(np.mean(2 * stats.norm.sf(crit * scale)))


def rerun_rate(rng, reps, n, tries, alpha):
    """Share of experiments of two equal normal samples reported "significant" by Welch's
    t-test (scipy.stats) when re-run up to `tries` times until p < alpha."""
    a, b = rng.standard_normal((2, reps, tries, n))
    p = stats.ttest_ind(a, b, axis=2, equal_var=False).pvalue
    return float(np.mean((p < alpha).any(axis=1)))


def snooping_rate(rng, reps, n, variants, alpha):
    """Share of studies in which the best of `variants` equal settings (by its mean over n
    runs) is "significantly better" than n baseline runs, one-sided Welch t (scipy.stats), on
    the runs that chose it."""
    runs = rng.standard_normal((reps, variants, n))
    best = runs[np.arange(reps), runs.mean(axis=2).argmax(axis=1)]
    p = stats.ttest_ind(best, rng.standard_normal((reps, n)), axis=1, equal_var=False,
                        alternative="greater").pvalue
    return float(np.mean(p < alpha))


def mean_sd_below_best(rng, reps, n, weight, loc1, scale1, loc2, scale2):
    """Share of samples of n draws of a two-Gaussian mixture whose mean - sd lies below their
    smallest value, one sample at a time."""
    hits = 0
    for _ in range(reps):
        second = rng.random(n) < weight
        x = np.where(second, rng.normal(loc2, scale2, n), rng.normal(loc1, scale1, n))
        hits += x.mean() - x.std(ddof=1) < x.min()
    return hits / reps


def any_pair_wilcoxon(rng, reps, d, k, alpha):
    """Share of tables of k exchangeable models on d data sets where some pair's Wilcoxon
    signed-rank test (scipy.stats, unadjusted) rejects; model-free noise, since the test of a
    pair sees only its differences."""
    table = rng.standard_normal((reps, d, k))
    p = np.stack([stats.wilcoxon(table[:, :, i], table[:, :, j], axis=1).pvalue
                  for i, j in itertools.combinations(range(k), 2)], axis=1)
    return float(np.mean((p < alpha).any(axis=1)))


def proportion_test_power(n, p_both, p_a_only, p_b_only, alpha):
    """Exact rejection probability of the two-proportion z-test of A's and B's error rates
    (both sets of errors taken as independent) on n examples drawn from a paired table, by
    enumerating the multinomial counts (both wrong, only A right, only B right)."""
    p_wrong = 1 - p_both - p_a_only - p_b_only
    c = np.arange(n + 1)
    w, a, b = np.meshgrid(c, c, c, indexing="ij")
    ok = w + a + b <= n
    w, a, b = w[ok], a[ok], b[ok]
    both = n - w - a - b
    with np.errstate(divide="ignore"):
        logp = (math.lgamma(n + 1) - sum(_lgamma(v + 1) for v in (w, a, b, both))
                + w * np.log(p_wrong) + a * np.log(p_a_only) + b * np.log(p_b_only)
                + both * np.log(p_both))
    err_a, err_b = (w + b) / n, (w + a) / n
    mean = (err_a + err_b) / 2
    se = np.sqrt(2 * mean * (1 - mean) / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, (err_a - err_b) / se, 0.0)
    return float(np.exp(logp)[2 * stats.norm.sf(np.abs(z)) <= alpha].sum())


def _lgamma(values):
    from scipy import special

    return special.gammaln(values)


def per_item_z_size(rng, reps, n_items, n_clusters, icc, tau, rho, alpha):
    """Size of the per-item paired z-test (sample sd, normal tail) on the llm-items model
    drawn plainly (:func:`clustered_items`)."""
    hits = 0
    for a, b in clustered_items(rng, reps, n_items, n_clusters, icc, tau, rho):
        d = a - b
        z = d.mean() / (d.std(ddof=1) / np.sqrt(d.size))
        hits += 2 * stats.norm.sf(abs(z)) <= alpha
    return hits / reps


def resampled_t_size(rng, reps, n, n_test, splits, d, p, sd, alpha):
    """Size of the paired t over `splits` random train/test splits of one data set (least
    squares on d features against the first p, as the cv-regression scenario; plain numpy),
    at beta making the two models' risks equal at the training size (its shift 0)."""
    from evalmc.sims.learning import CvRegression

    beta = CvRegression(n=n, d=d, p=p, sd=sd, scheme="random", j=splits,
                        test_share=n_test / n).beta
    hits = 0
    for _ in range(reps):
        x = rng.standard_normal((n, d))
        y = x @ beta + sd * rng.standard_normal(n)
        diffs = []
        for _ in range(splits):
            order = rng.permutation(n)
            test, train = order[:n_test], order[n_test:]
            losses = [np.mean((y[test] - x[test][:, :q] @ np.linalg.lstsq(
                x[train][:, :q], y[train], rcond=None)[0]) ** 2) for q in (d, p)]
            diffs.append(losses[0] - losses[1])
        hits += cv_tests(diffs, n_test, n - n_test)["plain"] <= alpha
    return hits / reps


def _exact(value):
    return lambda: (value(), 0.0)


def _simulated(reps, rate):
    def reference():
        p = rate(np.random.default_rng(2024), reps)
        return p, math.sqrt(max(p * (1 - p), 1e-4) / reps)
    return reference


def _wald_small_coverage():
    """Exact: the sum of Binomial(k; 30, 0.9) over the k that the 95% Wald interval covers."""
    from evalmc.stats.binomial import coverage_at

    p = np.arange(31) / 30
    half = stats.norm.ppf(0.975) * np.sqrt(p * (1 - p) / 30)
    return float(coverage_at(p - half, p + half, 0.9))


def _seeds_for_power():
    from statsmodels.stats.power import TTestPower

    return math.ceil(TTestPower().solve_power(0.5, power=0.8, alpha=0.05))


#: Each lesson's headline by an independent route: ``() -> (value, its Monte Carlo standard
#: error)``, keyed by the lesson's id (a lesson without one fails its test).
LESSON_REFERENCES = {
    # one run each, known sigma: P(N(0, 2) > 1.9952)
    "single-run": _exact(lambda: stats.norm.sf(1.9952 / math.sqrt(2))),
    # E[max of 10 N(0, 1)], Bajgar et al.'s Boo_10 = 1.53875
    "boo-n": _exact(lambda: expected_max_normal(10)),
    "student-t": _exact(lambda: student_t_size(5, 20, 3.0, 1.0, 0.05)),
    # E[gain of the best] = 0.5 + E[max of 10] / sqrt(10), over the true gain 0.5
    "winners-curse": _exact(lambda: 1 + expected_max_normal(10) / (math.sqrt(10) * 0.5)),
    "mcnemar": _exact(lambda: proportion_test_power(200, 0.765, 0.065, 0.035, 0.05)),
    "seeds-power": _exact(_seeds_for_power),
    "wald-small": _exact(_wald_small_coverage),
    "mean-sd-skewed": _simulated(4000, lambda r, n: mean_sd_below_best(r, n, 10, 0.2, 0.0, 0.25,
                                                                       2.0, 0.5)),
    "snooping": _simulated(20_000, lambda r, n: snooping_rate(r, n, 10, 10, 0.05)),
    "rerun": _simulated(20_000, lambda r, n: rerun_rate(r, n, 10, 5, 0.05)),
    "multiplicity": _simulated(2000, lambda r, n: any_pair_wilcoxon(r, n, 20, 5, 0.05)),
    "clustered-items": _simulated(1500, lambda r, n: per_item_z_size(r, n, 500, 25, 0.3, 0.4,
                                                                     0.5, 0.05)),
    # the noise floor (k = 2) on 50 null candidates of 3 runs, by quadrature
    "fifty-tries": _exact(lambda: noise_floor_solved_exact(2.0, 51, 3, 1.0)[0]),
    "resampled-t": _simulated(300, lambda r, n: resampled_t_size(r, n, 100, 10, 15, 10, 5, 1.0,
                                                                 0.05)),
    "rank-one-tie": _simulated(200, lambda r, n: arena_lone_first(r, n, 5, 0.3, 2, 2000, 20,
                                                                  1.0, 0.5, 100)),
}


def clustered_items_sized(rng, reps, sizes, icc, tau, rho, skill=0.5, sd=1.0):
    """:func:`clustered_items` with clusters of the given `sizes` (unequal allowed), all
    replications at once: ``(a, b)``, each (reps, sum(sizes))."""
    sizes = np.asarray(sizes)
    g, n = len(sizes), int(sizes.sum())
    c = np.repeat(rng.normal(0, np.sqrt(icc) * sd, (reps, g)), sizes, axis=1)
    u = np.repeat(rng.normal(0, tau, (reps, g)), sizes, axis=1) / 2
    d = c + rng.normal(0, np.sqrt(1 - icc) * sd, (reps, n))
    e_a = rng.standard_normal((reps, n))
    e_b = rho * e_a + np.sqrt(1 - rho**2) * rng.standard_normal((reps, n))
    return (skill + u - d + e_a > 0).astype(float), (skill - u - d + e_b > 0).astype(float)


def cr2_matrix(y, x, groups, ell):
    """Bell and McCaffrey's CR2 variance of ``ell' beta`` and its degrees of freedom, by the
    general matrix formulas (Imbens and Kolesar 2016; Pustejovsky and Tipton 2018, working
    model I): ``A_g = (I - H_gg)^(-1/2)``, ``V = ell' (X'X)^-1 sum_g X_g' A_g e_g e_g' A_g X_g
    (X'X)^-1 ell``, ``df = (sum lambda)^2 / sum lambda^2`` over the eigenvalues of ``C'C``,
    column g of C being ``(I - H)[:, g] A_g X_g (X'X)^-1 ell``. Returns ``(estimate, V, df)``."""
    y, x, ell = np.asarray(y, float), np.asarray(x, float), np.asarray(ell, float)
    n = len(y)
    bread = np.linalg.inv(x.T @ x)
    beta = bread @ x.T @ y
    e = y - x @ beta
    hat = x @ bread @ x.T
    resid_maker = np.eye(n) - hat
    meat = np.zeros((x.shape[1], x.shape[1]))
    columns = []
    for g in np.unique(groups):
        idx = np.flatnonzero(groups == g)
        values, vectors = np.linalg.eigh(np.eye(len(idx)) - hat[np.ix_(idx, idx)])
        adjust = vectors @ np.diag(values ** -0.5) @ vectors.T
        score = x[idx].T @ adjust @ e[idx]
        meat += np.outer(score, score)
        columns.append(resid_maker[:, idx] @ adjust @ x[idx] @ bread @ ell)
    c = np.column_stack(columns)
    lam = np.linalg.eigvalsh(c.T @ c)
    return float(ell @ beta), float(ell @ bread @ meat @ bread @ ell), \
        float(lam.sum() ** 2 / (lam**2).sum())


def wild_enumerated(d, groups):
    """The restricted wild cluster bootstrap p-value of ``mean(d) = 0`` over all 2^G Rademacher
    sign vectors, item by item: ``d*_i = v_g d_i``, the CR1 t of each, ``#{|t*| >= |t|} / 2^G``
    (ties within 1e-10 relative)."""
    d = np.asarray(d, float)
    labels = np.unique(groups)
    g, n = len(labels), len(d)

    def cr1_t(y):
        m = y.mean()
        total = sum((y[groups == h] - m).sum() ** 2 for h in labels)
        return m / math.sqrt(g / (g - 1) * total / n**2)

    t = abs(cr1_t(d))
    hits = 0
    for signs in itertools.product([-1.0, 1.0], repeat=g):
        v = np.array(signs)[np.searchsorted(labels, groups)]
        hits += abs(cr1_t(v * d)) >= t * (1 - 1e-10)
    return hits / 2**g


def battles_of_counts(wins, ties):
    """The battles of a pooled win/tie table, one row (i, j, y) each: y = 1 when i won, 0.5 for
    a tie, each pair's battles listed with i < j."""
    rows = []
    m = len(wins)
    for i in range(m):
        for j in range(i + 1, m):
            rows += [(i, j, 1.0)] * int(wins[i][j]) + [(i, j, 0.0)] * int(wins[j][i])
            rows += [(i, j, 0.5)] * int(ties[i][j])
    return np.array(rows, dtype=float).reshape(-1, 3)


def bradley_terry_battles(battles, m):
    """Bradley-Terry strengths (summing to zero) by scipy's BFGS on the battles' likelihood,
    ``y log expit(t_i - t_j) + (1 - y) log expit(t_j - t_i)`` summed over the battles."""
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    i, j, y = battles[:, 0].astype(int), battles[:, 1].astype(int), battles[:, 2]

    def full(free):
        return np.append(free, -free.sum())

    def loss(free):
        d = full(free)[i] - full(free)[j]
        return -(y * log_expit(d) + (1 - y) * log_expit(-d)).sum()

    def grad(free):
        d = full(free)[i] - full(free)[j]
        r = y - expit(d)
        g = np.zeros(m)
        np.add.at(g, i, -r)
        np.add.at(g, j, r)
        return g[:-1] - g[-1]

    res = minimize(loss, np.zeros(m - 1), jac=grad, method="BFGS", options={"gtol": 1e-10})
    return full(res.x)


def bradley_terry_sandwich(battles, m, theta, cluster=None):
    """The sandwich covariance of Bradley-Terry strengths from each battle's score
    ``(y - p)(e_i - e_j)``: bread the summed ``p (1 - p) (e_i - e_j)(e_i - e_j)^T``, meat the
    summed outer products of the clusters' total scores (each battle its own without
    `cluster`); the bread's pseudo-inverse on both sides."""
    from scipy.special import expit

    i, j, y = battles[:, 0].astype(int), battles[:, 1].astype(int), battles[:, 2]
    p = expit(theta[i] - theta[j])
    x = np.zeros((len(battles), m))
    x[np.arange(len(battles)), i] = 1.0
    x[np.arange(len(battles)), j] = -1.0
    bread = (x * (p * (1 - p))[:, None]).T @ x
    scores = x * (y - p)[:, None]
    if cluster is not None:
        scores = np.array([scores[cluster == c].sum(axis=0) for c in np.unique(cluster)])
    inverse = np.linalg.pinv(bread)
    return inverse @ (scores.T @ scores) @ inverse


def battle_bootstrap_rounds(battles, m, n_boot, rng):
    """Strengths of `n_boot` bootstrap boards, each `len(battles)` battles drawn with
    replacement and fitted by :func:`bradley_terry_battles`, shape (n_boot, m)."""
    n = len(battles)
    return np.array([bradley_terry_battles(battles[rng.integers(0, n, n)], m)
                     for _ in range(n_boot)])


def _two_baseline_runs(weight, k):
    """``E[weight(P(c - b1 >= k |b1 - b2|))]`` over two standard normal baseline runs b1, b2,
    by nested adaptive quadrature in ``u = b1 - b2`` and ``v = b1 + b2`` (independent, each
    N(0, 2); ``b1 = (u + v) / 2``), the kink of ``|u|`` at an end of each piece."""
    from scipy.special import ndtr

    edge = 12 * math.sqrt(2.0)

    def density(x):  # N(0, 2)
        return math.exp(-x * x / 4) / math.sqrt(4 * math.pi)

    def inner(u):
        return integrate.quad(lambda v: density(v) * weight(ndtr(-(u + v) / 2 - k * abs(u))),
                              -edge, edge, epsabs=1e-11, epsrel=1e-10, limit=200)[0]
    return sum(integrate.quad(lambda u: density(u) * inner(u), lo, hi, epsabs=1e-11,
                              epsrel=1e-10, limit=200)[0] for lo, hi in ((-edge, 0.0), (0.0, edge)))


@functools.cache
def noise_floor_exact(k, candidates):
    """The noise-floor rule on null candidates, every run N(0, 1), one run per candidate:
    (P(keep) per candidate, P(some of `candidates` kept), mean keeps), by quadrature."""
    per = _two_baseline_runs(lambda q: q, k)
    return per, 1 - _two_baseline_runs(lambda q: (1 - q) ** candidates, k), candidates * per


def expected_max_normal_quad(n):
    """E[max of n standard normals] by adaptive quadrature of ``n z phi(z) Phi(z)^(n-1)``."""
    return integrate.quad(lambda z: n * z * stats.norm.pdf(z) * stats.norm.cdf(z) ** (n - 1),
                          -np.inf, np.inf, epsabs=1e-13, epsrel=1e-12)[0]


def keep_loop(method, base, cand, effects, mode, k=2.0, alpha=0.05, test="welch"):
    """A keep rule on one loop, candidate by candidate in plain Python, p-values from
    scipy.stats' t-tests: (kept list, final score, its truth)."""
    def pvalue(c, ref):
        if test == "paired":
            return stats.ttest_rel(c, ref, alternative="greater").pvalue
        return stats.ttest_ind(c, ref, equal_var=False, alternative="greater").pvalue

    n_cand = len(cand)
    if method == "holm":
        p = [pvalue(c, base) for c in cand]
        kept = [False] * n_cand
        for step, j in enumerate(sorted(range(n_cand), key=lambda i: p[i])):
            if p[j] > alpha / (n_cand - step):  # Holm: stop at the first that fails
                break
            kept[j] = True
        scores = [float(np.mean(c)) for c in cand]
        chosen = [j for j in range(n_cand) if kept[j]]
        if not chosen:
            return kept, float(np.mean(base)), 0.0
        j = max(chosen, key=lambda i: scores[i])
        return kept, scores[j], float(effects[j])
    floor = method in ("noise-floor", "ratchet")
    ref_runs = list(base)
    ref = base[0] if floor else float(np.mean(base))
    spread = abs(base[0] - base[1])
    level, best, best_truth, kept = 0.0, ref, 0.0, []
    for j in range(n_cand):
        runs = [level + x for x in cand[j]]
        score = float(np.mean(runs))
        if method == "noise-floor":
            keep = score - ref >= k * spread
        elif method == "ratchet":
            keep = score > best
        else:
            level_j = alpha / n_cand if method == "bonferroni" else alpha
            keep = bool(pvalue(runs, ref_runs) < level_j)
        truth = level + effects[j]
        if keep and (mode == "replace" or not any(kept) or score > best):
            best, best_truth = score, truth
        kept.append(bool(keep))
        if keep and mode == "replace":
            ref, level, ref_runs = score, truth, runs
    return kept, best, best_truth


def anchor_walk(won, estimate, alpha):
    """The McNemar anchor walk on one board with scipy's exact binomial test, model by model:
    ``better[i, j]`` when i's tier is above j's."""
    from scipy.stats import binomtest

    order = [int(i) for i in np.argsort(-np.asarray(estimate), kind="stable")]
    tier, anchor, current = {order[0]: 0}, order[0], 0
    for model in order[1:]:
        ahead, behind = int(won[anchor, model]), int(won[model, anchor])
        if ahead > behind and binomtest(ahead, ahead + behind, 0.5).pvalue <= alpha:
            current, anchor = current + 1, model
        tier[model] = current
    m = len(order)
    return np.array([[tier[i] < tier[j] for j in range(m)] for i in range(m)])


def adjacent_tiers(estimate, rounds, alpha):
    """Tiers of the adjacent paired bootstrap on one board from its bootstrap strengths
    ``rounds`` (n_boot, M), pair by pair: ``better[i, j]``."""
    order = np.argsort(-np.asarray(estimate), kind="stable")
    tier, current = np.zeros(len(order), dtype=int), 0
    for upper, lower in zip(order[:-1], order[1:], strict=True):
        if np.quantile(rounds[:, upper] - rounds[:, lower], alpha / 2) > 0:
            current += 1
        tier[lower] = current
    return tier[:, None] < tier[None, :]


def adjacent_bootstrap_items(scores, n_boot, rng, alpha):
    """The adjacent paired bootstrap on one item board (items x models), each round resampling
    items with ``rng.integers``: ``better[i, j]``."""
    n = scores.shape[0]
    rounds = np.array([scores[rng.integers(0, n, n)].mean(axis=0) for _ in range(n_boot)])
    return adjacent_tiers(scores.mean(axis=0), rounds, alpha)


def expected_max_quad(dist, n):
    """E[max of n iid draws of `dist` (a scipy-like object with pdf and cdf)] by adaptive
    quadrature of ``n x f(x) F(x)^(n-1)``."""
    return integrate.quad(lambda x: n * x * dist.pdf(x) * dist.cdf(x) ** (n - 1),
                          -np.inf, np.inf, epsabs=1e-12, epsrel=1e-10, limit=200)[0]


class StandardizedMixture:
    """The two-component Gaussian mixture (weight w on the second) minus its mean, over its
    sd, written from the textbook moments: pdf and cdf for quadrature and KS tests."""

    def __init__(self, w, loc1, loc2, scale1, scale2):
        self.parts = [(1 - w, loc1, scale1), (w, loc2, scale2)]
        self.mean = sum(p * m for p, m, _ in self.parts)
        self.sd = math.sqrt(sum(p * (s * s + m * m) for p, m, s in self.parts) - self.mean**2)

    def pdf(self, x):
        y = self.mean + self.sd * np.asarray(x)
        return self.sd * sum(p * stats.norm.pdf(y, m, s) for p, m, s in self.parts)

    def cdf(self, x):
        y = self.mean + self.sd * np.asarray(x)
        return sum(p * stats.norm.cdf(y, m, s) for p, m, s in self.parts)


def csranks_two_sided(x, sigma, coverage=0.95, stepdown=True, n_draws=1000, simul=True,
                      indices=None, draw=None, rng=None):
    """The R package csranks' ``csranks(x, Sigma, cstype="two-sided")`` transcribed line by line
    (csranks_simul, csranks_marg, csdiffmeans): rank sets ``(L, U)`` of the models `indices`
    (0-based; all by default). ``draw(needed)`` gives the bootstrap's ``n_draws`` x k draws of
    the variables `needed` (a boolean mask), fresh ``N(0, Sigma[needed, needed])`` from `rng`
    by default, as MASS::mvrnorm at every step."""
    x, sigma = np.asarray(x, float), np.asarray(sigma, float)
    p = x.size
    indices = list(range(p)) if indices is None else list(indices)
    if draw is None:
        def draw(needed):
            sub = sigma[np.ix_(needed, needed)]
            return rng.multivariate_normal(np.zeros(sub.shape[0]), sub, size=n_draws)
    if not simul:
        sets = [csranks_two_sided(x, sigma, coverage, stepdown, n_draws, True, [i], draw, rng)
                for i in indices]
        return [s[0][0] for s in sets], [s[1][0] for s in sets]
    low_d, up_d = _csdiffmeans(x, sigma, coverage, indices, stepdown, draw)
    if stepdown:
        n_plus = [sum(1 for j in range(p) if low_d[i][j] > 0) for i in indices]
        n_minus = [sum(1 for j in range(p) if low_d[j][i] > 0) for i in indices]
    else:
        n_plus = [sum(1 for j in range(p) if low_d[i][j] > 0) for i in indices]
        n_minus = [sum(1 for j in range(p) if up_d[i][j] < 0) for i in indices]
    return [n + 1 for n in n_minus], [p - n for n in n_plus]


def _csdiffmeans(x, sigma, coverage, indices, stepdown, draw):
    """csranks' csdiffmeans with ``cstype="symmetric"``: the bounds ``L[i][j]``, ``U[i][j]`` of
    the differences ``x_i - x_j`` (NaN outside the family)."""
    p = x.size
    thetadiff = [[x[i] - x[j] for j in range(p)] for i in range(p)]
    sigmadiff = [[math.sqrt(sigma[i, i] + sigma[j, j] - 2 * sigma[i, j]) for j in range(p)]
                 for i in range(p)]
    # initialize_I0: rows of the indices; the stepdown of a symmetric set is a lower one
    i0 = [[i in indices and i != j for j in range(p)] for i in range(p)]
    cstype = "symmetric"
    if stepdown:
        i0 = [[(i in indices or j in indices) and i != j for j in range(p)] for i in range(p)]
        cstype = "lower"
    i1 = [row[:] for row in i0]
    istar = [row[:] for row in i0]
    chat_l = [[0.0] * p for _ in range(p)]
    chat_u = [[0.0] * p for _ in range(p)]
    while True:
        pairs = [(i, j) for j in range(p) for i in range(p) if i1[i][j]]  # column-major, as R
        needed = np.array([any(i1[k]) or any(i1[i][k] for i in range(p)) for k in range(p)])
        z = draw(needed)
        column = {k: c for c, k in enumerate(np.flatnonzero(needed))}
        stats_ = [[(row[column[i]] - row[column[j]]) / sigmadiff[i][j] for i, j in pairs]
                  for row in z]
        if cstype == "lower":
            q = np.quantile([max(s) for s in stats_], coverage)
            for i, j in pairs:
                chat_l[i][j] = thetadiff[i][j] - sigmadiff[i][j] * q
            chat_u = [[math.inf] * p for _ in range(p)]
        else:
            q = np.quantile([max(abs(v) for v in s) for s in stats_], coverage)
            for i, j in pairs:
                chat_l[i][j] = thetadiff[i][j] - sigmadiff[i][j] * q
                chat_u[i][j] = thetadiff[i][j] + sigmadiff[i][j] * q
        for i in range(p):
            for j in range(p):
                if chat_u[i][j] < 0 or chat_l[i][j] > 0:
                    i1[i][j] = False
        before, after = sum(map(sum, i0)), sum(map(sum, i1))
        if not stepdown or after == before or after == 0:
            break
        i0 = [row[:] for row in i1]
    nan = math.nan
    return ([[chat_l[i][j] if istar[i][j] else nan for j in range(p)] for i in range(p)],
            [[chat_u[i][j] if istar[i][j] else nan for j in range(p)] for i in range(p)])


def _looks_cov(fractions):
    """Correlation of the z statistics of looks at information `fractions` (a Brownian
    motion's): sqrt(t_i / t_j) for t_i <= t_j."""
    t = np.asarray(fractions, dtype=float)
    return np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))


def sequential_reject(upper, lower, fractions):
    """P(some look's z reaches `upper` before any falls to `lower` or below), a sum over looks
    of scipy's multivariate normal rectangle probabilities (``lower = -inf``: no futility)."""
    cov, total = _looks_cov(fractions), 0.0
    for look in range(len(upper)):
        hi = np.r_[upper[:look], np.inf]
        lo = np.r_[lower[:look], upper[look]]
        total += stats.multivariate_normal.cdf(hi, np.zeros(look + 1), cov[:look + 1, :look + 1],
                                               lower_limit=lo, rng=np.random.default_rng(0))
    return total


def two_sided_crossing(bounds, fractions):
    """P(|Z_l| >= bounds[l] at some look), scipy's multivariate normal: 1 - P(every |Z_l| below
    its bound)."""
    b = np.asarray(bounds, dtype=float)
    return 1.0 - stats.multivariate_normal.cdf(b, np.zeros(b.size), _looks_cov(fractions),
                                               lower_limit=-b, rng=np.random.default_rng(0))


def mixture_evalue(diff, n, m, sd, tau):
    """The normal-mixture e-value of a difference `diff` of means of n and m runs, from its
    definition: the likelihood ratio of the score S = diff / sd * I (variance I) under drift
    theta against none, averaged over theta ~ N(0, tau^2) by quadrature (theta in sds)."""
    info = 1.0 / (1.0 / n + 1.0 / m)
    s = diff / sd * info
    return integrate.quad(lambda th: math.exp(th * s - th * th * info / 2)
                          * stats.norm.pdf(th, 0, tau), -40 * tau, 40 * tau, points=[0.0])[0]

def noise_floor_solved_exact(k, candidates, runs, effect, nodes=600):
    """The noise-floor rule at `k` on a fixed baseline (b1, b2 standard normal), `candidates`
    of `runs` runs each, every run sd 1, one of effect `effect`, the others null: (P(some
    null kept), P(the real one kept)), by Gauss-Legendre quadrature in ``u = b1 - b2`` (a
    piece each side of the kink of ``|u|``) and ``v = b1 + b2``, each N(0, 2)."""
    from scipy.special import ndtr

    x, w = np.polynomial.legendre.leggauss(nodes)
    edge = 12 * math.sqrt(2.0)
    u = np.concatenate([(x - 1) * edge / 2, (x + 1) * edge / 2])  # [-edge, 0], [0, edge]
    wu = np.concatenate([w, w]) * edge / 2
    v, wv = x * edge, w * edge
    density = lambda z: np.exp(-z * z / 4) / math.sqrt(4 * math.pi)  # noqa: E731  N(0, 2)
    uu, vv = np.meshgrid(u, v, indexing="ij")
    weight = (wu * density(u))[:, None] * (wv * density(v))[None, :]
    floor = (uu + vv) / 2 + k * np.abs(uu)  # b1 + k |b1 - b2|
    root = math.sqrt(runs)
    null = ndtr(-floor * root)
    return (float(1 - np.sum(weight * (1 - null) ** (candidates - 1))),
            float(np.sum(weight * ndtr((effect - floor) * root))))


def bonferroni_any_false(alpha, candidates, runs, base_runs, n_loops, seed):
    """P(a Welch-t Bonferroni rule at `alpha` keeps some null) on `n_loops` loops of
    `candidates - 1` null candidates (and no real one), every run N(0, 1), against one
    fixed baseline per loop, p-values from scipy.stats.ttest_ind: (rate, its MCSE)."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((n_loops, 1, base_runs))
    cand = rng.standard_normal((n_loops, candidates - 1, runs))
    p = stats.ttest_ind(cand, base, axis=2, equal_var=False, alternative="greater").pvalue
    rate = float(np.mean(np.any(p < alpha / candidates, axis=1)))
    return rate, math.sqrt(rate * (1 - rate) / n_loops)


def bradley_terry_mm(wins):
    """Bradley-Terry strengths (summing to zero) of win tables (..., M, M), ties already split
    half to each, by Hunter's (2004) MM iteration ``pi_i = W_i / sum_j n_ij / (pi_i + pi_j)``."""
    n = wins + np.swapaxes(wins, -1, -2)
    total = wins.sum(axis=-1)
    pi = np.ones(wins.shape[:-1])
    for _ in range(10_000):
        new = total / (n / (pi[..., :, None] + pi[..., None, :])).sum(axis=-1)
        new /= np.exp(np.log(new).mean(axis=-1, keepdims=True))
        done = np.abs(np.log(new / pi)).max() < 1e-12
        pi = new
        if done:
            break
    return np.log(pi)


def arena_lone_first(rng, reps, models, spacing, tied, battles, prompts, prompt_sd, nu, n_boot,
                     level=0.95):
    """Share of arena boards on which the percentile bootstrap over battles names one model
    rank 1 alone (its lower bound above every other's upper bound), battle by battle: battle k on
    prompt ``k mod prompts``, its pair uniform, Davidson's outcome at the gap of strengths plus
    the prompt x model effects; each round resamples the battles with ``rng.integers`` and is
    fitted by :func:`bradley_terry_mm`."""
    strength = spacing * (models - 1 - np.arange(models, dtype=float))
    strength[:tied] = spacing * (models - tied)
    first, second = np.triu_indices(models, 1)
    lone = 0
    for _ in range(reps):
        effect = rng.normal(0.0, prompt_sd, (prompts, models))
        pair = rng.integers(0, first.size, battles)
        i, j, p = first[pair], second[pair], np.arange(battles) % prompts
        gap = strength[i] - strength[j] + effect[p, i] - effect[p, j]
        odds = np.stack([np.exp(gap / 2), np.exp(-gap / 2), np.full(battles, nu)], axis=1)
        cut = np.cumsum(odds / odds.sum(axis=1, keepdims=True), axis=1)
        outcome = (rng.random(battles)[:, None] > cut[:, :2]).sum(axis=1)  # 0 i, 1 j, 2 tie
        y = np.array([1.0, 0.0, 0.5])[outcome]
        pick = rng.integers(0, battles, (n_boot, battles))
        offset = np.arange(n_boot)[:, None] * models * models
        cells = n_boot * models * models
        wins = (np.bincount((offset + i[pick] * models + j[pick]).ravel(), y[pick].ravel(), cells)
                + np.bincount((offset + j[pick] * models + i[pick]).ravel(),
                              1.0 - y[pick].ravel(), cells))
        theta = bradley_terry_mm(wins.reshape(n_boot, models, models))
        low, high = np.quantile(theta, [(1 - level) / 2, (1 + level) / 2], axis=0)
        lone += any(all(low[a] > high[b] for b in range(models) if b != a)
                    for a in range(models))
    return lone / reps


def skewed_any_false(method, value, candidates, runs, base_runs, skew, n_loops, seed):
    """P(a rule keeps some null) on `n_loops` loops of `candidates - 1` null candidates, every
    run scipy's skewnorm(skew) standardized by its own mean and sd, against one fixed baseline
    per loop: the noise floor at k = `value` (``(mean c - b1) / |b1 - b2| >= k``) or the Welch
    t Bonferroni at alpha = `value` (scipy.stats.ttest_ind); (rate, its MCSE)."""
    rng = np.random.default_rng(seed)
    dist = stats.skewnorm(skew)
    mean, var = dist.stats("mv")

    def draw(shape):
        return (dist.rvs(size=shape, random_state=rng) - mean) / math.sqrt(var)

    base = draw((n_loops, 1, base_runs))
    cand = draw((n_loops, candidates - 1, runs))
    if method == "noise-floor":
        b1, b2 = base[:, :, 0], base[:, :, 1]
        keep = (cand.mean(axis=2) - b1) / np.abs(b1 - b2) >= value
    else:
        p = stats.ttest_ind(cand, base, axis=2, equal_var=False, alternative="greater").pvalue
        keep = p < value / candidates
    rate = float(np.mean(keep.any(axis=1)))
    return rate, math.sqrt(rate * (1 - rate) / n_loops)
