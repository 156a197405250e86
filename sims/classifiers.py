"""Two classifiers' paired predictions on one population, as the 8-cell table.

An example falls in one cell of the table (label x A correct x B correct), numbered
``4 * label + 2 * a_correct + b_correct``:

====  =====  =========  =========  =====================
cell  label  A correct  B correct  counts towards
====  =====  =========  =========  =====================
0     0      no         no         FP of A and of B
1     0      no         yes        FP of A
2     0      yes        no         FP of B
3     0      yes        yes        (true negatives)
4     1      no         no         FN of A and of B
5     1      no         yes        FN of A, TP of B
6     1      yes        no         TP of A, FN of B
7     1      yes        yes        TP of A and of B
====  =====  =========  =========  =====================

The table is sufficient for every statistic comparing A and B on an evaluation set (error
rates, McNemar's discordant counts, F1), so an evaluation set of `n` examples is a multinomial
draw of `n` over the eight cells' population probabilities.

Within a class, A and B are correct when their latent Gaussian scores fall below thresholds
set by their accuracy on that class, the two scores having correlation `rho` (a Gaussian
copula): ``P(both correct) = Phi2(Phi^-1(p_A), Phi^-1(p_B); rho)``.

The population can be given instead by the paired 2x2 table of correctness on an example,
``p_both``, ``p_a_only`` and ``p_b_only`` (both wrong the rest), in place of the rates and
`rho`: each class then holds that same table (:func:`table_cells`), correctness being
independent of the label, so an evaluation set's counts summed over the labels, all that the
McNemar, proportion and dCerr bootstrap tests read, are a multinomial draw over the given table.
Each model's TPR is then its accuracy and its FPR one minus it; the difference in error rate is
``p_b_only - p_a_only``, and F1, rising with accuracy at a given prevalence, has a difference of
the same sign, so both measures have the same null, ``p_a_only == p_b_only``.

The population truth has two definitions (Keller, Bengio and Wong 2005 leave theirs open):
the exact null, A and B having equal population error rate (``measure='dcerr'``) or equal
population F1 (``measure='df1'``), given by :attr:`PairedClassifiers.truth`; and the
N-dependent rule, :func:`central_range_truth`, applied to the statistic over evaluation sets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np
import scipy

from evalmc.inputs.checks import NULL_TOLERANCE, check_choice, check_float, check_int
from evalmc.sims.base import Batch, Scenario, read_only

N_CELLS = 8
#: The cells by label (NEG 0, POS 1) and by which of A and B are correct, numbered
#: ``4 * label + 2 * a_correct + b_correct``: NEG_B is a negative example that only B gets
#: right (a false positive of A), POS_A a positive one that only A gets right (a true positive
#: of A, a false negative of B).
NEG_NEITHER, NEG_B, NEG_A, NEG_BOTH, POS_NEITHER, POS_B, POS_A, POS_BOTH = range(N_CELLS)
MEASURES = ("dcerr", "df1")
#: Cells where A (resp. B) is wrong, in either class.
A_WRONG = (NEG_NEITHER, NEG_B, POS_NEITHER, POS_B)
B_WRONG = (NEG_NEITHER, NEG_A, POS_NEITHER, POS_A)
#: The paired table's parameters: P(both right), P(only A right), P(only B right).
TABLE = ("p_both", "p_a_only", "p_b_only")
#: The parameters the paired table replaces.
RATES = ("tpr_a", "fpr_a", "tpr_b", "fpr_b", "rho")


def multinomial_rows(rng, n_reps, n, p) -> np.ndarray:
    """`n_reps` independent multinomial draws of `n` over `p`, shape (n_reps, len(p)) (a Numba
    kernel, row by row)."""
    p = np.ascontiguousarray(p, dtype=float)
    out = np.empty((n_reps, p.size), np.int64)
    from evalmc.sims.kernels import multinomial_rows_into

    multinomial_rows_into(rng, n, p, out)
    return out


def _both_correct(p_a, p_b, rho):
    """P(A and B correct) for per-class accuracies `p_a`, `p_b` under the Gaussian copula."""
    if min(p_a, p_b) == 0.0:
        return 0.0
    if max(p_a, p_b) == 1.0:
        return min(p_a, p_b)
    cov = [[1.0, rho], [rho, 1.0]]
    both = float(scipy.stats.multivariate_normal(cov=cov).cdf(
        [scipy.special.ndtri(p_a), scipy.special.ndtri(p_b)]))
    return min(max(both, p_a + p_b - 1.0, 0.0), p_a, p_b)  # Frechet bounds against rounding


def cell_probabilities(prevalence, tpr_a, fpr_a, tpr_b, fpr_b, rho) -> np.ndarray:
    """Population probability of each of the 8 cells (module docstring) from the prevalence,
    both models' TPR and FPR, and the copula's `rho`."""
    p = np.empty(N_CELLS)
    for label, weight, acc_a, acc_b in ((0, 1 - prevalence, 1 - fpr_a, 1 - fpr_b),
                                        (1, prevalence, tpr_a, tpr_b)):
        both = _both_correct(acc_a, acc_b, rho)
        p[4 * label + 3] = weight * both
        p[4 * label + 2] = weight * (acc_a - both)
        p[4 * label + 1] = weight * (acc_b - both)
        p[4 * label + 0] = weight * max(1.0 - acc_a - acc_b + both, 0.0)
    return p / p.sum()


def table_cells(prevalence, p_both, p_a_only, p_b_only) -> np.ndarray:
    """Population probability of each of the 8 cells, the paired table (`p_both`, `p_a_only`,
    `p_b_only`, both wrong the rest) in each class."""
    table = np.array([max(1.0 - math.fsum((p_both, p_a_only, p_b_only)), 0.0), p_b_only,
                      p_a_only, p_both])
    return np.concatenate([(1 - prevalence) * table, prevalence * table]) / table.sum()


def error_rate(prevalence, tpr, fpr) -> float:
    """Population classification error, ``prevalence (1 - tpr) + (1 - prevalence) fpr``."""
    return prevalence * (1 - tpr) + (1 - prevalence) * fpr


def f1_score(prevalence, tpr, fpr) -> float:
    """Population F1 = 2 TP / (2 TP + FN + FP) with rates in place of counts (0 if undefined)."""
    denom = prevalence * (1 + tpr) + (1 - prevalence) * fpr
    return 2 * prevalence * tpr / denom if denom > 0 else 0.0


def _check_rate(name, value):
    """Validate a rate in [0, 1]."""
    return check_float(name, value, low=0, high=1)


class CountsBatch(Batch):
    """Each replication's 8-cell table in ``counts`` (the sufficient statistic of the tests on
    counts); the per-example correctness ``a``, ``b`` is drawn from it only if asked for."""

    holds = frozenset({"counts"})
    per_rep = ("counts",)

    def __init__(self, a=None, b=None, *, counts, **kwargs):
        super().__init__(a, b, **kwargs)
        self.counts = read_only(counts)

    @property
    def n_reps(self) -> int:
        """Replications: rows of :attr:`counts`."""
        return self.counts.shape[0]


@dataclass(frozen=True)
class PairedClassifiers(Scenario, registered="paired-classifiers"):
    """Classifiers A and B evaluated on the same `n` examples of one population.

    ``Batch.counts`` holds each evaluation set's 8-cell table. ``Batch.a`` and ``Batch.b``
    hold the examples' correctness (1 correct, 0 wrong) of A and of B, in cell order; score
    criteria do not apply to this scenario (run_study refuses them). With ``p_both``,
    ``p_a_only`` and ``p_b_only`` given, the paired table in place of the rates and `rho` (which
    must then keep their defaults), each class holds that table (module docstring); ``cells``
    holds the cells' population probabilities. Parameters: the ``'paired-classifiers'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.classifiers import PairedClassifiers
    >>> scenario = PairedClassifiers(n=100)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.counts.shape, batch.a.shape, scenario.truth
    ((2, 8), (2, 100), 'null')
    >>> batch.counts[0].tolist()
    [2, 2, 1, 36, 8, 7, 8, 36]
    >>> table = PairedClassifiers(n=100, p_both=0.7, p_a_only=0.12, p_b_only=0.08)
    >>> table.draw(np.random.default_rng(0), 1).counts.tolist(), table.truth
    ([[6, 3, 2, 31, 9, 5, 8, 36]], 'alternative')
    """

    batch: ClassVar[type] = CountsBatch

    cells: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "n", check_int("n", self.n, low=1))
        check_float("prevalence", self.prevalence, low=0, high=1, open_low=True, open_high=True)
        for name in ("tpr_a", "fpr_a", "tpr_b", "fpr_b"):
            _check_rate(name, getattr(self, name))
        check_float("rho", self.rho, low=-1, high=1, open_low=True, open_high=True)
        check_choice("measure", self.measure, MEASURES)
        if self._check_table():
            cells = table_cells(self.prevalence, self.p_both, self.p_a_only, self.p_b_only)
        else:
            cells = cell_probabilities(self.prevalence, self.tpr_a, self.fpr_a, self.tpr_b,
                                       self.fpr_b, self.rho)
        object.__setattr__(self, "cells", cells)

    def _check_table(self) -> bool:
        """Validate the paired table: given whole or not at all (False), each value in [0, 1]
        summing to at most 1, and not with rates or `rho` of their own."""
        given = [name for name in TABLE if getattr(self, name) is not None]
        if not given:
            return False
        missing = [name for name in TABLE if name not in given]
        if missing:
            raise ValueError(f"`{missing[0]}` must be given with `{given[0]}`: the paired table "
                             "takes p_both, p_a_only and p_b_only.")
        defaults = {p.name: p.default for p in self.parameters()}
        rates = [name for name in RATES if getattr(self, name) != defaults[name]]
        if rates:
            raise ValueError(f"`{rates[0]}` and `{given[0]}` exclude each other: give the paired "
                             "table (p_both, p_a_only, p_b_only) or the rates and rho, not both.")
        for name in TABLE:
            object.__setattr__(self, name, _check_rate(name, getattr(self, name)))
        total = math.fsum(getattr(self, name) for name in TABLE)
        if total > 1:
            raise ValueError(f"`p_both` + `p_a_only` + `p_b_only` must be <= 1; got {total:g}.")
        return True

    def _rates(self) -> tuple[float, float, float, float]:
        """TPR and FPR of A, then of B: each model's accuracy and one minus it with the paired
        table given."""
        if self.p_both is None:
            return self.tpr_a, self.fpr_a, self.tpr_b, self.fpr_b
        acc_a, acc_b = self.p_both + self.p_a_only, self.p_both + self.p_b_only
        return acc_a, 1 - acc_a, acc_b, 1 - acc_b

    def difference(self, measure: str | None = None) -> float:
        """Population difference A - B in error rate (``'dcerr'``) or in F1 (``'df1'``); default the
        scenario's `measure`."""
        measure = check_choice("measure", measure or self.measure, MEASURES)
        rate = error_rate if measure == "dcerr" else f1_score
        tpr_a, fpr_a, tpr_b, fpr_b = self._rates()
        return rate(self.prevalence, tpr_a, fpr_a) - rate(self.prevalence, tpr_b, fpr_b)

    @property
    def effect(self) -> float:
        """Population difference in `measure`, positive when A is better: B's error rate minus A's
        for 'dcerr', A's F1 minus B's for 'df1'."""
        return -self.difference() if self.measure == "dcerr" else self.difference()

    @property
    def estimand(self) -> str:
        """``'mean difference'`` for 'dcerr' (of per-example correctness), ``'F1 difference'`` for
        'df1'."""
        return "mean difference" if self.measure == "dcerr" else "F1 difference"

    def truth_of(self, measure: str) -> str:
        """Exact-null truth for `measure`: ``'null'`` when the population difference is 0."""
        return "null" if abs(self.difference(measure)) <= NULL_TOLERANCE else "alternative"

    @property
    def truth(self) -> str:
        """Exact-null truth for this scenario's `measure`."""
        return self.truth_of(self.measure)

    def with_difference(self, measure: str, value: float) -> PairedClassifiers:
        """The same population with A's TPR set, in closed form, so that the difference `measure` is
        `value`; ValueError if no TPR in [0, 1] reaches it, or if the paired table is given."""
        check_choice("measure", measure, MEASURES)
        if self.p_both is not None:
            raise ValueError("`with_difference` sets A's TPR, which the paired table (p_both, "
                             "p_a_only, p_b_only) replaces; set `p_a_only` instead.")
        pi, f = self.prevalence, self.fpr_a
        if measure == "dcerr":
            target = error_rate(pi, self.tpr_b, self.fpr_b) + value
            tpr = 1 - (target - (1 - pi) * f) / pi
        else:
            target = f1_score(pi, self.tpr_b, self.fpr_b) + value
            tpr = target * (pi + (1 - pi) * f) / (pi * (2 - target))
        if not 0.0 <= tpr <= 1.0:
            raise ValueError(
                f"`value` {value:g} of {measure} cannot be reached by A's TPR (would be "
                f"{tpr:.4g}) with A's FPR {f:g}; choose a smaller difference."
            )
        return replace(self, tpr_a=float(tpr), measure=measure)

    def draw(self, rng, n_reps):
        """Draw `n_reps` evaluation sets of `n` examples as 8-cell tables (:class:`CountsBatch`)."""
        counts = multinomial_rows(rng, n_reps, self.n, self.cells)
        # the per-example correctness is drawn only if asked for (replaying a failure)
        return CountsBatch(paired=True, fill=lambda: correctness(counts),
                           sizes=(self.n, self.n), counts=counts)


def correctness(counts) -> tuple[np.ndarray, np.ndarray]:
    """Per-example correctness ``(a, b)`` (1.0 correct, 0.0 wrong) of A and B from rows of
    `counts`, examples in cell order."""
    counts = np.asarray(counts)
    n_reps = counts.shape[0]
    cell = np.repeat(np.tile(np.arange(N_CELLS), n_reps), counts.ravel()).reshape(n_reps, -1)
    return ((cell >> 1) & 1).astype(float), (cell & 1).astype(float)
