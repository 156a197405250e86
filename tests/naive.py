"""Slow, obvious references for the vectorized kernels: loops, enumeration, textbook formulas."""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats


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
