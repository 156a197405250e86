"""A rank procedure of your own for ``evalmc leaderboard --procedure FILE.py:function``:
``holm_sign`` re-implements the registered ``board-holm`` in plain numpy and scipy, and gives
its numbers exactly (``tests/test_board_user.py`` checks it, on boards of known truth and on a
real board's audit).

The contract (``evalmc.criteria.board_user``): the function is called once per board with the
keywords it takes, ``wins`` and ``ties`` (arrays (P, M, M), per prompt) on battles, ``scores``
(items x models) and ``clusters`` (each item's cluster) on items, and ``rng``; it returns an
M x M array of bools, ``better[i, j]`` where it claims model i better than model j, or None
where it cannot read the board.
"""

import numpy as np
from scipy.stats import binom


def holm_sign(wins=None, ties=None, scores=None, clusters=None, alpha=0.05):
    """Exact sign tests of every pair's decisive outcomes, Holm-adjusted at `alpha`."""
    if wins is not None:
        won = wins.sum(axis=0).astype(float)  # battles i won against j; ties dropped
    else:  # items on which i scored above j (0/1 scores: McNemar's discordant items)
        won = (scores[:, :, None] > scores[:, None, :]).sum(axis=0).astype(float)
    m = won.shape[0]
    first, second = np.triu_indices(m, 1)
    k, n = won[first, second], won[first, second] + won[second, first]
    with np.errstate(invalid="ignore"):
        p = np.where(n > 0, np.minimum(1.0, 2.0 * binom.cdf(np.minimum(k, n - k), n, 0.5)), 1.0)
    order = np.argsort(p, kind="stable")  # Holm's step-down
    adjusted = np.empty_like(p)
    ranked = p[order] * (p.size - np.arange(p.size))
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(ranked))
    reject = adjusted <= alpha
    better = np.zeros((m, m), dtype=bool)
    better[first, second] = reject & (2 * k > n)
    better[second, first] = reject & (2 * k < n)
    return better
