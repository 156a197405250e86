"""Two learning algorithms trained on resampled data from a known population.

Cross-validation tests compare algorithms by their errors on several train/test splits of one
data set. The splits' training sets overlap, so their errors are correlated; how much depends
on n, the split scheme and the algorithms, which only training the algorithms shows.

**Population** (`cv-regression`): ``x ~ N(0, I_d)``, ``y = x . beta + sd e``, e standard
normal. Algorithm A fits least squares on all d features; B on the first p. The last d - p
coefficients are all ``c``; B treats them as noise, of variance ``sd^2 + (d - p) c^2``.

**Exact generalization errors.** A model with coefficients ``b`` (zero beyond B's p) has
squared-error risk ``sd^2 + |b - beta|^2`` on the population, computed for every fit. Over
training sets of size n1 (Gaussian design, no intercept) its expectation is
``s^2 (1 + q / (n1 - q - 1))`` for a model of q features and residual variance s^2. `shift`
sets c so that B's expected risk minus A's, at the scheme's training size n1, is
``shift sd^2``: 0 is the null of the cross-validation tests (equal expected error at n1),
positive makes A better.

**Splits** (`scheme`): ``kfold`` (k folds), ``repeated-kfold`` (r times k folds), ``random``
(J random train/test splits, test share `test_share`), ``5x2`` (5 times 2 folds), ``holdout``
(one split). Each repetition permutes the n examples afresh; a fold is a contiguous block of
the permutation, of size n // k or n // k + 1.

``Batch.a[i, j]``, ``Batch.b[i, j]``: A's and B's mean squared error on the test examples of
split j of replication i (paired by split); ``Batch.splits``: the scheme's :class:`Splits`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from evalmc.sims.base import Batch, Scenario, param
from evalmc.sims.validation import check_choice, check_float, check_int

SCHEMES = ("kfold", "repeated-kfold", "random", "5x2", "holdout")


@dataclass(frozen=True)
class Splits:
    """How one data set of `n` examples is split, as the criteria need to know it.

    Attributes
    ----------
    scheme : str
    repeats, folds : int
        Repetitions (a fresh permutation each) and splits per repetition; a split of a random
        or holdout scheme is a repetition of one fold.
    n_train, n_test : int
        Training and test examples of a split (for k folds, of the largest test fold's
        complement: the folds differ by at most one example).
    """

    scheme: str
    repeats: int
    folds: int
    n_train: int
    n_test: int

    @property
    def count(self) -> int:
        """Splits per data set."""
        return self.repeats * self.folds

    def fold_starts(self, n: int) -> np.ndarray:
        """Where each test fold starts in a permutation of the n examples, and the end of the
        last: ``[0, n_test]`` for one split, else k nearly equal blocks."""
        if self.folds == 1:
            return np.array([0, self.n_test], dtype=np.int64)
        return np.linspace(0, n, self.folds + 1).round().astype(np.int64)


def splits_of(scheme: str, n: int, k: int, r: int, j: int, test_share: float) -> Splits:
    """The :class:`Splits` of `scheme` on n examples (validated)."""
    check_choice("scheme", scheme, SCHEMES)
    if scheme in ("kfold", "repeated-kfold"):
        k = check_int("k", k, low=2, high=n)
        repeats = check_int("r", r, low=1) if scheme == "repeated-kfold" else 1
        return Splits(scheme, repeats, k, n - -(-n // k), -(-n // k))
    if scheme == "5x2":
        return Splits(scheme, 5, 2, n - -(-n // 2), -(-n // 2))
    check_float("test_share", test_share, low=0, high=1, open_low=True, open_high=True)
    n_test = int(round(test_share * n))
    if not 1 <= n_test <= n - 1:
        raise ValueError(f"`test_share` must leave at least one test and one training example "
                         f"of n = {n}; got {test_share}.")
    repeats = check_int("j", j, low=1) if scheme == "random" else 1
    return Splits(scheme, repeats, 1, n - n_test, n_test)


def expected_risk(q: int, n_train: int, residual_var: float) -> float:
    """Expected squared-error risk of least squares on q standard Gaussian features, trained
    on n_train examples with residual variance `residual_var`: ``s^2 (1 + q / (n - q - 1))``."""
    return residual_var * (1.0 + q / (n_train - q - 1))


@dataclass(frozen=True)
class CvRegression(Scenario):
    """Least squares on all features (A) against a subset (B), errors on CV splits."""

    name: ClassVar[str] = "cv-regression"
    description: ClassVar[str] = ("least squares on d features (A) vs the first p (B), test "
                                  "errors on each cross-validation split of one data set")

    n: int = param(300, int, "examples in the data set")
    d: int = param(10, int, "features of the population and of A's model")
    p: int = param(5, int, "features of B's model (the first p), 1 <= p < d")
    sd: float = param(1.0, float, "noise sd (> 0)")
    shift: float = param(0.0, float, "B's expected risk minus A's at n_train, in sd^2")
    scheme: str = param("random", str, "kfold, repeated-kfold, random, 5x2 or holdout")
    k: int = param(10, int, "folds (kfold, repeated-kfold)")
    r: int = param(10, int, "repetitions (repeated-kfold)")
    j: int = param(15, int, "random splits (random)")
    test_share: float = param(0.1, float, "share of the data set tested (random, holdout)")

    def __post_init__(self):
        n = check_int("n", self.n, low=4)
        d = check_int("d", self.d, low=2)
        check_int("p", self.p, low=1, high=d - 1)
        check_float("sd", self.sd, low=0, open_low=True)
        check_float("shift", self.shift)
        split = splits_of(self.scheme, n, self.k, self.r, self.j, self.test_share)
        if split.n_train < d + 3:
            raise ValueError(f"the training sets must hold at least d + 3 = {d + 3} examples "
                             f"for least squares to have a finite expected risk; scheme "
                             f"{self.scheme!r} trains on {split.n_train} of n = {n}.")
        lowest = self._risk_b(0.0) - self._risk_a()
        if self.shift * self.sd**2 < lowest - 1e-12 * self.sd**2:
            raise ValueError(f"`shift` must be at least {lowest / self.sd**2:.6g} here: B, the "
                             f"smaller model, cannot be better than when its omitted "
                             f"coefficients are 0; got {self.shift}.")

    @property
    def splits(self) -> Splits:
        return splits_of(self.scheme, self.n, self.k, self.r, self.j, self.test_share)

    @property
    def n_train(self) -> int:
        """The training size the truth refers to (the smallest of the scheme's splits)."""
        return self.splits.n_train

    def _risk_a(self) -> float:
        return expected_risk(self.d, self.n_train, self.sd**2)

    def _risk_b(self, omitted_var: float) -> float:
        return expected_risk(self.p, self.n_train, self.sd**2 + omitted_var)

    @property
    def omitted(self) -> float:
        """c, each of the d - p coefficients B omits."""
        target = (self._risk_a() + self.shift * self.sd**2) / expected_risk(
            self.p, self.n_train, 1.0) - self.sd**2
        return float(np.sqrt(max(target, 0.0) / (self.d - self.p)))

    @property
    def beta(self) -> np.ndarray:
        """The population coefficients: 1 for B's p features, c for the others."""
        return np.r_[np.ones(self.p), np.full(self.d - self.p, self.omitted)]

    @property
    def sizes(self) -> tuple[int, int]:
        return (self.splits.count, self.splits.count)

    @property
    def truth(self) -> str:
        return "null" if self.shift == 0 else "alternative"

    @property
    def effect(self) -> float:
        """B's expected risk minus A's at n_train (positive: A better)."""
        return float(self.shift * self.sd**2)

    def draw(self, rng, n_reps):
        test_a, test_b, _, _ = self.fit(rng, n_reps)
        return Batch(test_a, test_b, paired=True, splits=self.splits)

    def fit(self, rng, n_reps):
        """Every split's test errors and the exact risks of its fitted models.

        Returns
        -------
        test_a, test_b, risk_a, risk_b : ndarray, shape (n_reps, splits)
        """
        from evalmc.sims.kernels import least_squares_splits

        s = self.splits
        return least_squares_splits(rng, n_reps, self.n, self.beta, self.p, self.sd,
                                    s.repeats, s.fold_starts(self.n))


LEARNING_SCENARIOS = (CvRegression,)
