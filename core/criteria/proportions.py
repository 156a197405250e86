"""Criteria on two accuracies from independent samples: each model's 0/1 answers to its own
questions (the ``two-models`` scenario), vectorized over replications."""

from __future__ import annotations

import numpy as np

from evalmc.criteria.base import CriterionResult
from evalmc.sims.base import Batch


def _right_answers(batch: Batch):
    """A's and B's counts of right answers, and their numbers of questions; a ValueError unless
    every score is 0 or 1."""
    a, b = np.asarray(batch.a, dtype=float), np.asarray(batch.b, dtype=float)
    if not (np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all()):
        raise ValueError("Fisher's exact test needs 0/1 scores (right or wrong answers); "
                         "got other values.")
    return a.sum(axis=1), a.shape[1], b.sum(axis=1), b.shape[1]


def fisher_exact(batch: Batch) -> CriterionResult:
    """Fisher's exact test of A's accuracy against B's, A and B answering different questions:
    the two-sided p-value of the table ``[[k_A, n_A - k_A], [k_B, n_B - k_B]]`` of right and
    wrong answers, as ``scipy.stats.fisher_exact`` (1 when every answer is right, or every one
    wrong). Each distinct table is computed once.

    Parameters
    ----------
    batch : Batch
        0/1 scores of A and B, one row per replication.

    Returns
    -------
    CriterionResult
        Two-sided p-values, the sample odds ratio ``k_A (n_B - k_B) / ((n_A - k_A) k_B)`` (as
        scipy's statistic; NaN where a margin is 0) and the estimate ``mean(a) - mean(b)``;
        shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria import get_criterion
    >>> from evalmc.sims.base import Batch
    >>> a = np.array([[1.0] * 8 + [0.0] * 2, [1.0] * 5 + [0.0] * 5])
    >>> b = np.array([[1.0] * 1 + [0.0] * 9, [1.0] * 5 + [0.0] * 5])
    >>> result = get_criterion("fisher-exact")(Batch(a, b, paired=False), None)
    >>> result.pvalue.round(6)  # scipy.stats.fisher_exact([[8, 2], [1, 9]]).pvalue: 0.005477
    array([0.005477, 1.      ])
    """
    from evalmc.stats.oddsratio import fisher_exact_pvalues

    k_a, n_a, k_b, n_b = _right_answers(batch)
    tables, inverse = np.unique(np.column_stack([k_a, k_b]), axis=0, return_inverse=True)
    p = fisher_exact_pvalues(tables[:, 0], n_a, tables[:, 1], n_b)[inverse.ravel()]
    wrong_a, wrong_b = n_a - k_a, n_b - k_b
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = k_a * wrong_b / (wrong_a * k_b)
    margin = ((k_a + k_b) == 0) | ((wrong_a + wrong_b) == 0)
    odds = np.where(margin, np.nan, np.where((wrong_a * k_b) == 0, np.inf, odds))
    return CriterionResult.from_pvalues(p, odds, estimate=k_a / n_a - k_b / n_b)
