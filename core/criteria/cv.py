"""Tests of two learning algorithms from their errors on cross-validation splits (``a[i, j]``:
A's error on split j of data set i; ``Batch.splits`` says how). Equal differences on every
split give p = 0 when nonzero, as scipy's ``ttest_rel`` (and Weka), and p = 1 when zero."""

from __future__ import annotations

import numpy as np
import scipy

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.classifiers import mcnemar_test, proportion_test
from evalmc.sims.base import Batch


def _ratio(num, den):
    """``num / den``, with 0 / 0 taken as 0 (no difference on any split) and x / 0 as inf."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((num == 0) & (den == 0), 0.0, num / den)


def t_over_splits(batch: Batch, *, corrected: bool) -> CriterionResult:
    """The paired t-test over m splits, ``t = mean(d) / sqrt(c var(d))`` on m - 1 df: ``c = 1/m``
    (splits as if independent) or Nadeau and Bengio's ``1/m + n_test/n_train`` (`corrected`).

    Parameters
    ----------
    batch : Batch
        Errors of A and B, one column per split, with its ``splits``.
    corrected : bool
        Apply Nadeau and Bengio's correction.

    Returns
    -------
    CriterionResult
        Two-sided p-values and t; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.learning import Splits, SplitsBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.normal(0.20, 0.02, (2, 10)), rng.normal(0.22, 0.02, (2, 10))
    >>> batch = SplitsBatch(a, b, paired=True, splits=Splits("random", 10, 1, 200, 100))
    >>> t_over_splits(batch, corrected=False).pvalue.round(4)
    array([0.0583, 0.0002])
    >>> t_over_splits(batch, corrected=True).pvalue.round(4)  # 10 random 200/100 splits
    array([0.399 , 0.0333])
    """
    d = batch.a - batch.b
    s = batch.splits
    m = d.shape[1]
    c = 1.0 / m + (s.n_test / s.n_train if corrected else 0.0)
    t = _ratio(d.mean(axis=1), np.sqrt(c * d.var(axis=1, ddof=1)))
    return CriterionResult.from_pvalues(2 * scipy.special.stdtr(m - 1, -np.abs(t)), t)


def _variances_5x2(d):
    """``s_i^2`` per repetition i of the 5 x 2 folds (a repetition's two folds adjacent)."""
    pairs = d.reshape(d.shape[0], 5, 2)
    return ((pairs - pairs.mean(axis=2, keepdims=True)) ** 2).sum(axis=2)


def five_by_two_t(batch: Batch) -> CriterionResult:
    """Dietterich's 5x2cv paired t-test: ``t = d_11 / sqrt(mean_i s_i^2)`` on 5 df, with
    ``s_i^2 = sum_j (d_ij - mean_j d_ij)^2`` over the two folds of repetition i.

    Parameters
    ----------
    batch : Batch
        Errors of A and B on 5 x 2 folds, the two folds of a repetition adjacent.

    Returns
    -------
    CriterionResult
        Two-sided p-values and t; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.learning import Splits, SplitsBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.normal(0.20, 0.02, (2, 10)), rng.normal(0.22, 0.02, (2, 10))
    >>> batch = SplitsBatch(a, b, paired=True, splits=Splits("random", 10, 1, 200, 100))
    >>> five_by_two_t(batch).pvalue.round(4)  # 10 columns read as 5 x 2 folds
    array([0.4886, 0.2503])
    """
    d = batch.a - batch.b
    t = _ratio(d[:, 0], np.sqrt(_variances_5x2(d).mean(axis=1)))
    return CriterionResult.from_pvalues(2 * scipy.special.stdtr(5, -np.abs(t)), t)


def five_by_two_f(batch: Batch) -> CriterionResult:
    """Alpaydin's combined 5x2cv F-test: ``F = sum_ij d_ij^2 / (2 sum_i s_i^2)`` on (10, 5) df.

    Parameters
    ----------
    batch : Batch
        Errors of A and B on 5 x 2 folds, the two folds of a repetition adjacent.

    Returns
    -------
    CriterionResult
        Two-sided p-values and F; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.learning import Splits, SplitsBatch
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.normal(0.20, 0.02, (2, 10)), rng.normal(0.22, 0.02, (2, 10))
    >>> batch = SplitsBatch(a, b, paired=True, splits=Splits("random", 10, 1, 200, 100))
    >>> five_by_two_f(batch).pvalue.round(4)
    array([0.1661, 0.0049])
    """
    d = batch.a - batch.b
    f = _ratio((d**2).sum(axis=1), 2 * _variances_5x2(d).sum(axis=1))
    return CriterionResult.from_pvalues(scipy.special.fdtrc(10, 5, f), f)


def holdout_mcnemar(batch: Batch) -> CriterionResult:
    """McNemar's continuity-corrected chi2 on one hold-out split's 0/1 errors (the examples one
    algorithm got wrong and the other right).

    Parameters
    ----------
    batch : Batch
        0/1 errors of A and B, one column per test example.

    Returns
    -------
    CriterionResult
        Two-sided p-values and chi2; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 300)) < 0.20) * 1.0, (rng.random((2, 300)) < 0.27) * 1.0
    >>> batch = Batch(a, b, paired=True)  # 0/1 errors on 300 test examples
    >>> holdout_mcnemar(batch).pvalue.round(4)
    array([0.0532, 0.0252])
    """
    return mcnemar_test((batch.a > batch.b).sum(axis=1), (batch.a < batch.b).sum(axis=1))


def holdout_proportion(batch: Batch) -> CriterionResult:
    """The test of two proportions on one hold-out split's error rates, A's and B's errors taken
    as independent.

    Parameters
    ----------
    batch : Batch
        0/1 errors of A and B, one column per test example.

    Returns
    -------
    CriterionResult
        Two-sided p-values and z; shape (n_reps,).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((2, 300)) < 0.20) * 1.0, (rng.random((2, 300)) < 0.27) * 1.0
    >>> batch = Batch(a, b, paired=True)  # 0/1 errors on 300 test examples
    >>> holdout_proportion(batch).pvalue.round(4)
    array([0.0411, 0.0156])
    """
    return proportion_test(batch.a.sum(axis=1), batch.b.sum(axis=1), batch.a.shape[1])
