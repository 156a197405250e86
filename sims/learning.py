"""Two learning algorithms trained on resampled data from a known population.

Cross-validation tests compare algorithms by their errors on several train/test splits of one
data set. The splits' training sets overlap, so their errors are correlated; how much depends
on n, the split scheme and the algorithms, which only training the algorithms shows.

**Splits** (`scheme`, every scenario): ``kfold`` (k folds), ``repeated-kfold`` (r times k
folds), ``random`` (J random train/test splits, test share `test_share`), ``5x2`` (5 times 2
folds), ``holdout`` (one split). Each repetition permutes the n examples afresh; a fold is a
contiguous block of the permutation, of size n // k or n // k + 1. `shift` sets the truth at
the scheme's training size n1 (the smallest of its splits): 0 is the null of the
cross-validation tests, equal expected error of A and B trained on n1 examples; positive makes
A better.

``Batch.a[i, j]``, ``Batch.b[i, j]``: A's and B's mean loss on the test examples of split j of
replication i (paired by split); for ``holdout``, A's and B's loss on test example j of the one
split (for McNemar's test). With ``runs > 1`` the scheme runs that many times on each data set,
with fresh permutations: ``Batch.reruns`` holds the other runs' losses, on which a study
measures each test's replicability (Bouckaert and Frank 2004). The other runs' permutations
come from the same stream as the data, so `runs` changes the data sets after the first.

**cv-regression**: ``x ~ N(0, I_d)``, ``y = x . beta + sd e``, squared loss. A fits least
squares on all d features; B on the first p. The last d - p coefficients are all ``c``; B
treats them as noise, of variance ``sd^2 + (d - p) c^2``. A fit ``b`` has risk
``sd^2 + |b - beta|^2``; over training sets of size n1 its expectation is
``s^2 (1 + q / (n1 - q - 1))`` for q features and residual variance s^2, so c follows from
`shift` (B's expected risk minus A's, in sd^2) in closed form.

**cv-classification**: two equally likely classes, ``x | y ~ N((y - 1/2) delta e_1, Sigma)``,
Sigma the equicorrelation matrix ``(1 - rho) I + rho 1 1'``, 0/1 loss. A is Fisher's linear
discriminant (pooled covariance), B the nearest-mean classifier; both cut at the midpoint of
the class means. A linear rule's risk is two normal cdfs (:func:`discriminant_risks`). The
expected risks over training sets have no closed form: they are averaged over
:data:`CALIBRATION_DRAWS` training sets drawn through their sufficient statistics with common
random numbers, and rho is the root of "B's expected error minus A's = `shift`". At rho = 0
the nearest mean is the better; rho moves A ahead. The null holds to within the
calibration's Monte Carlo error (:attr:`CvClassification.calibration_se`, about 4e-5).

**cv-classification, exchange alternative** (``alternative='exchange'``): the correlation
above changes the noise as well as the effect (with 5x2 splits at shift 0.05, a fold's
difference has about 4.4 times the null's variance). The exchange alternative keeps the
null's population and fits: each example draws a uniform u with the data set, and on every
split that tests it, where A errs and B does not, the two losses are exchanged if ``u < r``.
The share of examples where the learners disagree, which sets a split's variance given the
fits, stays the null's; B's expected error minus A's becomes ``2 r E[P10]``, P10 the chance
that only A errs (:func:`only_a_wrong`), so r follows from `shift` (:func:`exchange_rate`).
The shift is at most ``2 E[P10]`` (about 0.05 to 0.07 with the defaults). Correcting each of
A's errors with probability q instead would turn the examples both get wrong into
disagreements (a fold's variance about 30% higher at shift 0.05). Not held fixed: how
a fit's own expected difference varies between training sets, nor how two splits' differences
co-vary (:mod:`evalmc.reproductions.cvtests` measures them). ``risk_a``, ``risk_b`` stay the
two rules' risks, before the exchange.

**cv-stumps**: unstable learners (a small change of the training set can move the fitted rule
far), as the trees and networks of the cross-validation papers. ``x ~ U(0, 1)^2``,
``P(y = 1 | x) = 1/2 + slope (x_1 - 1/2) + slope (x_2 - 1/2)``, 0/1 loss. A is the decision
stump of fewest training errors on feature 1, B on feature 2, whose risks are exact integrals
(:func:`evalmc.sims.kernels.stump_risk`). The population is symmetric in the two features:
the null holds exactly, and this problem has no alternative.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from evalmc.inputs.checks import check_choice, check_float, check_int, check_sd
from evalmc.sims.base import Batch, Scenario, read_only
from evalmc.sims.registry import MAX_FEATURES, MAX_RUNS
from evalmc.sims.twomodels import orthant

SCHEMES = ("kfold", "repeated-kfold", "random", "5x2", "holdout")


@dataclass(frozen=True)
class Splits:
    """How one data set of `n` examples is split: `repeats` permutations of `folds` splits each
    (random and holdout: one fold), of `n_train` and `n_test` examples (the largest test fold)."""

    scheme: str
    repeats: int
    folds: int
    n_train: int
    n_test: int

    @property
    def count(self) -> int:
        """Splits per data set: ``repeats * folds``."""
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


class SplitsBatch(Batch):
    """Paired test losses on the splits of one data set per replication, with its `splits`, and
    in `reruns` the pairs ``(a, b)`` of the same data sets under each other run of the scheme."""

    holds = Batch.holds | {"splits"}
    per_rep = ("reruns",)
    shared = ("splits",)

    def __init__(self, a=None, b=None, *, splits, reruns=(), **kwargs):
        super().__init__(a, b, **kwargs)
        self.splits = splits
        self.reruns = tuple(read_only(tuple(pair)) for pair in reruns)

    def rerun_batches(self) -> list[SplitsBatch]:
        """The replications under each other run (:attr:`reruns`), as batches like this one."""
        return [SplitsBatch(a, b, paired=self.paired, splits=self.splits)
                for a, b in self.reruns]


@dataclass(frozen=True)
class CvScenario(Scenario):
    """Base of the learning scenarios: one data set of n examples, split by `scheme`; subclasses
    add the population and the algorithms, and implement :meth:`fit`."""

    #: The loss of an example: ``'squared'`` or ``'0/1'``.
    loss: ClassVar[str] = ""
    batch: ClassVar[type] = SplitsBatch

    def _check_training_size(self, low: int, why: str) -> None:
        """Validate `n` and `runs`, and that every training set holds at least `low` examples."""
        check_int("n", self.n, low=4)
        check_int("runs", self.runs, low=1, high=MAX_RUNS)
        n_train = self.splits.n_train
        if n_train < low:
            raise ValueError(f"the training sets must hold at least {low} examples ({why}); "
                             f"scheme {self.scheme!r} trains on {n_train} of n = {self.n}.")

    @property
    def splits(self) -> Splits:
        """How the scheme splits the data set (:func:`splits_of`)."""
        return splits_of(self.scheme, self.n, self.k, self.r, self.j, self.test_share)

    @property
    def n_train(self) -> int:
        """The training size the truth refers to (the smallest of the scheme's splits)."""
        return self.splits.n_train

    @property
    def per_example(self) -> bool:
        """Whether a replication holds each test example's loss (one hold-out split)."""
        return self.scheme == "holdout"

    @property
    def sizes(self) -> tuple[int, int]:
        """Columns of ``Batch.a`` and ``Batch.b``: splits, or test examples for holdout."""
        s = self.splits
        m = s.n_test if self.per_example else s.count
        return (m, m)

    @property
    def truth(self) -> str:
        """``'null'`` when `shift` is 0, else ``'alternative'``."""
        return "null" if self.shift == 0 else "alternative"

    def draw(self, rng, n_reps):
        """The test losses of each data set's first run of the scheme; with ``runs > 1``, those
        of the other runs, on the same data sets, in ``Batch.reruns``."""
        test_a, test_b, _, _ = self.fit(rng, n_reps, runs=self.runs)
        width = test_a.shape[1] // self.runs
        a, b = ([x[:, r * width:(r + 1) * width] for r in range(self.runs)]
                for x in (test_a, test_b))
        return SplitsBatch(a[0], b[0], paired=True, splits=self.splits,
                           reruns=tuple(zip(a[1:], b[1:], strict=True)))

    def fit(self, rng, n_reps, runs=1):  # pragma: no cover
        """Every split's test losses ``test_a, test_b`` (runs' splits one after the other) and the
        exact risks ``risk_a, risk_b`` of its fitted models."""
        raise NotImplementedError


@dataclass(frozen=True)
class CvRegression(CvScenario, registered="cv-regression"):
    """Least squares on all features (A) against a subset (B), errors on CV splits.

    Each replication draws one data set of `n` examples of the linear population of the
    module docstring and splits it by `scheme`; A fits all `d` features, B the first `p`.
    The coefficients B omits (:attr:`omitted`) are set so that B's expected risk minus A's
    at n_train is `shift` (in sd^2). Parameters: the ``'cv-regression'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.learning import CvRegression
    >>> scenario = CvRegression(n=60)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, batch.splits.n_train, scenario.truth, round(scenario.omitted, 4)
    ((2, 15), 54, 'null', 0.1525)
    """

    loss: ClassVar[str] = "squared"

    def __post_init__(self):
        d = check_int("d", self.d, low=2)
        check_int("p", self.p, low=1, high=d - 1)
        check_sd("sd", self.sd)
        check_float("shift", self.shift)
        self._check_training_size(d + 3, f"d + 3 = {d + 3}, for least squares to have a "
                                         f"finite expected risk")
        lowest = self._risk_b(0.0) - self._risk_a()
        if self.shift * self.sd**2 < lowest - 1e-12 * self.sd**2:
            raise ValueError(f"`shift` must be at least {lowest / self.sd**2:.6g} here: B, the "
                             f"smaller model, cannot be better than when its omitted "
                             f"coefficients are 0; got {self.shift}.")

    def _risk_a(self) -> float:
        """A's expected risk at n_train."""
        return expected_risk(self.d, self.n_train, self.sd**2)

    def _risk_b(self, omitted_var: float) -> float:
        """B's expected risk at n_train when its omitted features explain `omitted_var`."""
        return expected_risk(self.p, self.n_train, self.sd**2 + omitted_var)

    @property
    def omitted(self) -> float:
        """c, each of the d - p coefficients B omits (set by `shift`)."""
        target = (self._risk_a() + self.shift * self.sd**2) / expected_risk(
            self.p, self.n_train, 1.0) - self.sd**2
        return float(np.sqrt(max(target, 0.0) / (self.d - self.p)))

    @property
    def beta(self) -> np.ndarray:
        """The population coefficients: 1 for B's p features, c for the others."""
        return np.r_[np.ones(self.p), np.full(self.d - self.p, self.omitted)]

    @property
    def effect(self) -> float:
        """B's expected risk minus A's at n_train (positive: A better): ``shift * sd^2``."""
        return float(self.shift * self.sd**2)

    def fit(self, rng, n_reps, runs=1):
        """Every split's test losses and exact risks of both fits (:meth:`CvScenario.fit`)."""
        from evalmc.sims.kernels import least_squares_splits

        s = self.splits
        return least_squares_splits(rng, n_reps, self.n, self.beta, self.p, self.sd,
                                    s.repeats * runs, s.fold_starts(self.n), self.per_example)


#: Training sets drawn to calibrate cv-classification's expected errors.
CALIBRATION_DRAWS = 20_000
#: The largest equicorrelation cv-classification's calibration searches.
RHO_MAX = 0.9
#: How cv-classification makes a positive shift (module docstring).
ALTERNATIVES = ("correlation", "exchange")


def equicorrelation(d: int, rho: float) -> np.ndarray:
    """``(1 - rho) I + rho 1 1'``, d x d."""
    return (1.0 - rho) * np.eye(d) + rho


def discriminant_risks(w, b, delta, sigma):
    """Exact error rates of the rules ``w . x + b > 0`` (class 1) on the two-class population,
    ``(Phi((b - h) / s) + Phi(-(b + h) / s)) / 2``: ``h = w_1 delta / 2``, ``s^2 = w' Sigma w``."""
    import scipy.special

    s = np.sqrt(np.einsum("...i,ij,...j->...", w, sigma, w))
    h = 0.5 * w[..., 0] * delta
    return 0.5 * (scipy.special.ndtr((b - h) / s) + scipy.special.ndtr(-(b + h) / s))


@functools.lru_cache(maxsize=8)
def _training_statistics(n_train: int, d: int):
    """Standardized sufficient statistics of :data:`CALIBRATION_DRAWS` training sets of
    n_train examples: each class mean's error ``z_c / sqrt(n_c)`` (Sigma = I) and the pooled
    within-class scatter, Wishart(n_train - 2, I). A class count is kept in [1, n_train - 1]
    (a training set missing a class has probability 2^(1 - n_train))."""
    import scipy.stats

    rng = np.random.default_rng(np.random.SeedSequence(1999, spawn_key=(n_train, d)))
    ones = rng.binomial(n_train, 0.5, CALIBRATION_DRAWS).clip(1, n_train - 1)
    counts = np.stack([n_train - ones, ones], axis=1)
    mean_errors = rng.standard_normal((CALIBRATION_DRAWS, 2, d)) / np.sqrt(counts)[..., None]
    scatter = scipy.stats.wishart(df=n_train - 2, scale=np.eye(d)).rvs(
        size=CALIBRATION_DRAWS, random_state=rng)
    return mean_errors, scatter


def expected_errors(n_train: int, d: int, delta: float, rho: float):
    """Expected error rates of A (linear discriminant) and B (nearest mean) trained on n_train
    examples, and the standard error of B's minus A's (common random numbers)."""
    rules, sigma = _fitted_rules(n_train, d, delta, rho)
    risks = [discriminant_risks(w, b, delta, sigma) for w, b in rules]
    diff = risks[1] - risks[0]
    return (float(risks[0].mean()), float(risks[1].mean()),
            float(diff.std(ddof=1) / np.sqrt(diff.size)))


def _fitted_rules(n_train: int, d: int, delta: float, rho: float):
    """A's and B's rules ``(w, b)`` on the calibration's training sets at equicorrelation
    rho, each w of shape (:data:`CALIBRATION_DRAWS`, d), and the classes' covariance."""
    mean_errors, scatter = _training_statistics(n_train, d)
    sigma = equicorrelation(d, rho)
    chol = np.linalg.cholesky(sigma)
    means = mean_errors @ chol.T
    means[:, 1, 0] += delta / 2
    means[:, 0, 0] -= delta / 2
    gap, mid = means[:, 1] - means[:, 0], means.mean(axis=1)
    lda = np.linalg.solve(chol @ scatter @ chol.T, gap[..., None])[..., 0]
    return [(w, -np.einsum("ij,ij->i", w, mid)) for w in (lda, gap)], sigma


@functools.lru_cache(maxsize=256)
def null_correlation(n_train: int, d: int, delta: float, shift: float) -> float:
    """The rho in [0, :data:`RHO_MAX`] at which B's expected error minus A's, at n_train, is
    `shift` (Brent's method); ValueError when `shift` is out of reach."""
    import scipy.optimize

    def gap(rho):
        err_a, err_b, _ = expected_errors(n_train, d, delta, rho)
        return err_b - err_a - shift

    low, high = gap(0.0), gap(RHO_MAX)
    if not low <= 0.0 <= high:
        raise ValueError(f"`shift` must be in [{low + shift:.4g}, {high + shift:.4g}] for "
                         f"n_train = {n_train}, d = {d}, delta = {delta} (rho in [0, "
                         f"{RHO_MAX}]); got {shift}.")
    return float(scipy.optimize.brentq(gap, 0.0, RHO_MAX, xtol=1e-12))


def only_a_wrong(rule_a, rule_b, delta, sigma):
    """Exact chance that rule A errs and rule B does not on an example of the two-class
    population (rules ``(w, b)`` as :func:`discriminant_risks`; a bivariate normal per class)."""
    (w_a, b_a), (w_b, b_b) = rule_a, rule_b
    s_a = np.sqrt(np.einsum("...i,ij,...j->...", w_a, sigma, w_a))
    s_b = np.sqrt(np.einsum("...i,ij,...j->...", w_b, sigma, w_b))
    rho = np.einsum("...i,ij,...j->...", w_a, sigma, w_b) / (s_a * s_b)
    total = 0.0
    for sign in (-1.0, 1.0):  # class 0 (A wrong: score above 0), then class 1
        m_a = (b_a + sign * 0.5 * delta * w_a[..., 0]) / s_a
        m_b = (b_b + sign * 0.5 * delta * w_b[..., 0]) / s_b
        total = total + orthant(-sign * m_a, sign * m_b, -rho)
    return 0.5 * total


@functools.lru_cache(maxsize=64)
def _null_differences(n_train: int, d: int, delta: float):
    """At the null's correlation, each calibration training set's B-minus-A risk and its
    chance that only A errs (:func:`only_a_wrong`)."""
    rules, sigma = _fitted_rules(n_train, d, delta, null_correlation(n_train, d, delta, 0.0))
    gap = discriminant_risks(*rules[1], delta, sigma) - discriminant_risks(*rules[0], delta,
                                                                           sigma)
    return gap, only_a_wrong(*rules, delta, sigma)


def exchange_rate(n_train: int, d: int, delta: float, shift: float):
    """The exchange alternative's ``r = shift / (2 E[P10])``, the calibration's standard error,
    and the reach ``2 E[P10]`` (r = 1); ValueError unless r is in [0, 1]."""
    gap, only_a = _null_differences(n_train, d, delta)
    reach = 2.0 * float(only_a.mean())
    if not 0.0 <= shift <= reach:
        raise ValueError(f"`shift` must be in [0, {reach:.4g}] for the exchange alternative at "
                         f"n_train = {n_train}, d = {d}, delta = {delta} (every A-only error "
                         f"exchanged); got {shift}.")
    diff = gap + shift / reach * 2.0 * only_a
    return shift / reach, float(diff.std(ddof=1) / np.sqrt(diff.size)), reach


@dataclass(frozen=True)
class CvClassification(CvScenario, registered="cv-classification"):
    """Linear discriminant (A) against nearest mean (B), 0/1 errors on CV splits.

    Each replication draws one data set of `n` examples of two Gaussian classes (module
    docstring) and splits it by `scheme`; the features' equicorrelation (:attr:`rho`) is
    calibrated so that B's expected error minus A's at n_train is `shift`, or with
    ``alternative='exchange'`` is the null's and a share :attr:`exchange` of the examples'
    A-only errors become B's. Parameters: the ``'cv-classification'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.learning import CvClassification
    >>> scenario = CvClassification(d=2)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, scenario.truth, round(scenario.rho, 4)
    ((2, 15), 'null', 0.0614)
    """

    loss: ClassVar[str] = "0/1"

    def __post_init__(self):
        d = check_int("d", self.d, low=2, high=MAX_FEATURES)
        check_float("delta", self.delta, low=0, open_low=True)
        check_float("shift", self.shift)
        check_choice("alternative", self.alternative, ALTERNATIVES)
        self._check_training_size(max(d + 3, 40), f"max(d + 3, 40) = {max(d + 3, 40)}, for "
                                                   f"an invertible pooled covariance and both "
                                                   f"classes")
        self.rho, self.exchange  # noqa: B018 -- validate `shift`

    @property
    def rho(self) -> float:
        """The population's equicorrelation, set by `shift` (:func:`null_correlation`)."""
        shift = self.shift if self.alternative == "correlation" else 0.0
        return null_correlation(self.n_train, self.d, float(self.delta), float(shift))

    @property
    def exchange(self) -> float:
        """The chance r that an example's A-only errors become B's (:func:`exchange_rate`);
        0 for the correlation alternative."""
        if self.alternative == "correlation":
            return 0.0
        return exchange_rate(self.n_train, self.d, float(self.delta), float(self.shift))[0]

    @property
    def expected_errors(self) -> tuple[float, float]:
        """A's and B's expected error rates at n_train (calibrated: :func:`expected_errors`)."""
        err_a, err_b, _ = expected_errors(self.n_train, self.d, self.delta, self.rho)
        moved = 0.0 if self.alternative == "correlation" else self.shift / 2
        return err_a - moved, err_b + moved

    @property
    def calibration_se(self) -> float:
        """Monte Carlo standard error of the calibrated B minus A expected error."""
        if self.alternative == "exchange":
            return exchange_rate(self.n_train, self.d, float(self.delta), float(self.shift))[1]
        return expected_errors(self.n_train, self.d, self.delta, self.rho)[2]

    @property
    def effect(self) -> float:
        """B's expected error rate minus A's at n_train (positive: A better): the shift."""
        return float(self.shift)

    def fit(self, rng, n_reps, runs=1):
        """Every split's test errors (after any exchange) and exact risks of both rules."""
        from evalmc.sims.kernels import discriminant_splits

        s = self.splits
        chol = np.linalg.cholesky(equicorrelation(self.d, self.rho))
        return discriminant_splits(rng, n_reps, self.n, float(self.delta), chol,
                                   s.repeats * runs, s.fold_starts(self.n), self.per_example,
                                   self.exchange)


@dataclass(frozen=True)
class CvStumps(CvScenario, registered="cv-stumps"):
    """A decision stump on feature 1 (A) against one on feature 2 (B), 0/1 errors on CV splits.

    The unstable learners of the module docstring's **cv-stumps**: each replication draws one
    data set of `n` examples and splits it by `scheme`. The population is symmetric in the two
    features, so the truth is the null, exactly. Parameters: the ``'cv-stumps'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.learning import CvStumps
    >>> scenario = CvStumps(n=60, scheme="kfold", k=5)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, scenario.truth, scenario.effect
    ((2, 5), 'null', 0.0)
    """

    loss: ClassVar[str] = "0/1"

    def __post_init__(self):
        check_float("slope", self.slope, low=0, high=0.5, open_low=True)
        self._check_training_size(2, "2, for a stump to have a cut")

    @property
    def truth(self) -> str:
        """``'null'``: the two stumps' expected errors are equal by symmetry."""
        return "null"

    @property
    def effect(self) -> float:
        """B's expected error rate minus A's: 0 at every training size."""
        return 0.0

    def fit(self, rng, n_reps, runs=1):
        """Every split's test errors and exact risks of both stumps (:meth:`CvScenario.fit`)."""
        from evalmc.sims.kernels import stump_splits

        s = self.splits
        return stump_splits(rng, n_reps, self.n, float(self.slope), s.repeats * runs,
                            s.fold_starts(self.n), self.per_example)
