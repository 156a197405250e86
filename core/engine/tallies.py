"""What a study keeps of its replications: small summaries that add up, block after block.

A rejection study keeps, per criterion and condition, a :class:`RejectionTally`: replications run,
failed, and decided without a p-value, and a histogram of the p-values on the grid of levels ``k /
1000`` plus exact counts at the study's levels off that grid. Its size does not grow with the
replications, the rate at any level of the grid is exact, and integer counts add up in any order.
An estimator study keeps an :class:`EstimateTally` (moments of the estimates, their errors, the
intervals' coverage and width), added in block order.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from evalmc.compute.jit import njit
from evalmc.stats.mcse import wilson_interval
from evalmc.stats.nulls import critical_values

#: The p-value histogram's resolution: bin ``k`` holds ``(k-1)/GRID < p <= k/GRID`` (bin 0:
#: ``p <= 0``), so the rejections at every level ``k/GRID`` are exact.
GRID = 1000
_LEVELS = tuple(np.arange(GRID + 1) / GRID)


def grid_index(alpha: float) -> int | None:
    """``k`` when `alpha` is the level ``k / GRID`` exactly, else None (a level counted apart)."""
    k = round(alpha * GRID)
    return k if k / GRID == alpha else None


def precision_mcse(k, n):
    """The Monte Carlo error a ``target_mcse`` is judged by: the largest ``sqrt(p (1 - p) / n)``
    over the rates ``p`` in the 95% Wilson interval of ``k / n``, above 0 even at ``k = 0``."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    low, high = wilson_interval(k, n)
    p = np.clip(0.5, low, high)  # p (1 - p) peaks at 1/2: the interval's point nearest it
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.sqrt(p * (1 - p) / n), np.nan)


@njit(cache=True, nogil=True)
def _tally_blocks(pvalue, reject, failed, starts, off_grid, counts, hist, exact):
    """Per block ``k`` (rows ``starts[k]:starts[k+1]``): counts, p-value histogram, exact counts.

    ``counts[k]`` is (failed, decided without p-value, of those rejected).
    """
    grid = hist.shape[1] - 1
    for k in range(starts.size - 1):
        for i in range(starts[k], starts[k + 1]):
            if failed[i]:
                counts[k, 0] += 1
                continue
            p = pvalue[i]
            if np.isnan(p):
                counts[k, 1] += 1
                if reject[i]:
                    counts[k, 2] += 1
                continue
            j = min(grid, max(0, int(np.ceil(p * grid))))
            while j > 0 and (j - 1) / grid >= p:  # the rounding of p * grid, corrected
                j -= 1
            while j < grid and j / grid < p:
                j += 1
            hist[k, j] += 1
            for a in range(off_grid.size):
                if p <= off_grid[a]:
                    exact[k, a] += 1


@njit(cache=True, nogil=True)
def _tally_statistic(statistic, failed, starts, critical, critical_off, counts, hist, exact):
    """As :func:`_tally_blocks` for a two-sided statistic: level ``k`` rejects when
    ``|statistic| >= critical[k]`` (decreasing in ``k``), level ``off[a]`` at ``critical_off[a]``.
    """
    grid = hist.shape[1] - 1
    for k in range(starts.size - 1):
        for i in range(starts[k], starts[k + 1]):
            if failed[i]:
                counts[k, 0] += 1
                continue
            x = abs(statistic[i])
            lo, hi = 0, grid  # the first level that rejects: critical[grid] = 0 always does
            while lo < hi:
                mid = (lo + hi) // 2
                if x >= critical[mid]:
                    hi = mid
                else:
                    lo = mid + 1
            hist[k, lo] += 1
            for a in range(critical_off.size):
                if x >= critical_off[a]:
                    exact[k, a] += 1


@dataclass
class RejectionTally:
    """A criterion's results over some replications, summed: counts, the p-value histogram `hist`
    (bin ``k`` holds ``(k-1)/GRID < p <= k/GRID``), exact counts at levels off the grid, and per
    level the fixed-point sums of sign errors (`signs`: rejections counted, of the wrong sign,
    sums of the ratios ``|estimate / effect|`` and of their squares, and how many ratios were
    capped at :data:`RATIO_CAP`) and of reruns' agreement (`agree`)."""

    n: int
    failed: int
    decided: int
    decided_reject: int
    hist: np.ndarray
    exact: dict[float, int] = field(default_factory=dict)
    signs: dict[float, tuple[int, int, int, int, int]] = field(default_factory=dict)
    agree: dict[float, tuple[int, int, int, int]] = field(default_factory=dict)

    associative = True  # integer counts: blocks add up in any order

    @classmethod
    def of_blocks(cls, result, starts, off_grid, levels=(), effect=None
                  ) -> list[RejectionTally]:
        """One tally per block ``starts[k]:starts[k + 1]`` of a
        :class:`~evalmc.criteria.base.CriterionResult`; sign errors counted at `levels` against
        `effect` (none without it, or when it is 0)."""
        n_blocks = starts.size - 1
        counts = np.zeros((n_blocks, 3), np.int64)
        hist = np.zeros((n_blocks, GRID + 1), np.int64)
        exact = np.zeros((n_blocks, len(off_grid)), np.int64)
        if result.pvalue is None and result.null is not None:  # no p-value to compute
            _tally_statistic(result.statistic, result.failed, starts,
                             critical_values(result.null, _LEVELS),
                             critical_values(result.null, tuple(off_grid)), counts, hist, exact)
        else:
            reject = result.reject if result.reject is not None else np.zeros(starts[-1], bool)
            _tally_blocks(np.ascontiguousarray(result.pvalues(), dtype=float),
                          np.ascontiguousarray(reject, dtype=np.bool_), result.failed, starts,
                          np.asarray(off_grid, float), counts, hist, exact)
        signs = _sign_errors(result, starts, levels, effect)
        agree = _agreement(result, starts, levels)
        return [cls(int(starts[k + 1] - starts[k]), *(int(c) for c in counts[k]), hist[k],
                    dict(zip(off_grid, exact[k].tolist(), strict=True)), signs[k], agree[k])
                for k in range(n_blocks)]

    def __add__(self, other: RejectionTally) -> RejectionTally:
        return RejectionTally(
            self.n + other.n, self.failed + other.failed, self.decided + other.decided,
            self.decided_reject + other.decided_reject, self.hist + other.hist,
            {a: c + other.exact[a] for a, c in self.exact.items() if a in other.exact},
            {a: tuple(x + y for x, y in zip(c, other.signs[a], strict=True))
             for a, c in self.signs.items() if a in other.signs},
            {a: (c[0] + other.agree[a][0], c[1], c[2] + other.agree[a][2],
                 c[3] + other.agree[a][3])
             for a, c in self.agree.items() if a in other.agree})

    def sign_errors(self, alpha: float | None) -> dict:
        """Type-S rate and type-M ratio at the study level `alpha`, with their Monte Carlo errors
        (Gelman and Carlin 2014); NaN where not counted or nothing rejected.

        A ratio ``|estimate / effect|`` above :data:`RATIO_CAP` (an effect near 0) is counted
        as the cap: then ``type_m_capped`` counts those rejections, ``type_m`` is a lower bound
        without Monte Carlo error, and a warning says so."""
        nan = float("nan")
        n, wrong, abs_sum, sq_sum, capped = self.signs.get(alpha, (0, 0, 0, 0, 0))
        if n == 0:
            return {"type_s": nan, "type_s_mcse": nan, "type_m": nan, "type_m_mcse": nan}
        s = wrong / n
        m = abs_sum / _ABS_UNIT / n
        var = (sq_sum / _SQ_UNIT - n * m * m) / (n - 1) if n > 1 and not capped else nan
        out = {"type_s": s, "type_s_mcse": np.sqrt(s * (1 - s) / n), "type_m": m,
               "type_m_mcse": np.sqrt(max(var, 0.0) / n) if n > 1 and not capped else nan}
        if capped:
            warnings.warn(CAPPED_WARNING, RuntimeWarning, stacklevel=2)
            out["type_m_capped"] = capped
        return out

    def replicability(self, alpha: float | None) -> dict:
        """Replicability at the study level `alpha` (Bouckaert and Frank 2004), the chance that two
        runs on a replication decide alike, with its Monte Carlo error; NaN where not counted."""
        nan = float("nan")
        n, pairs, total, squares = self.agree.get(alpha, (0, 0, 0, 0))
        if n == 0:
            return {"replicability": nan, "replicability_mcse": nan}
        mean = total / pairs / n
        var = (squares / pairs**2 - n * mean * mean) / (n - 1) if n > 1 else nan
        return {"replicability": mean,
                "replicability_mcse": np.sqrt(max(var, 0.0) / n) if n > 1 else nan}

    @property
    def valid(self) -> int:
        """Replications that did not fail: ``n - failed``."""
        return self.n - self.failed

    @property
    def decision_only(self) -> bool:
        """Whether the valid replications (one at least) gave decisions and no p-value."""
        return self.valid > 0 and self.decided == self.valid

    def rejections(self, alpha: float) -> int:
        """Valid replications rejecting at level `alpha` (on the grid or counted off it; else
        ValueError): p <= alpha, or their own decision."""
        k = grid_index(alpha)
        if k is not None:
            below = int(self.hist[:k + 1].sum())
        elif alpha in self.exact:
            below = self.exact[alpha]
        else:
            raise ValueError(
                f"`alpha` {alpha} is neither a level the study counted ("
                f"{', '.join(f'{a:g}' for a in self.exact) or 'none off the grid'}) nor a "
                f"multiple of 1/{GRID}; run the study with it.")
        return below + self.decided_reject

    def pvalue_cdf(self) -> tuple[np.ndarray, np.ndarray]:
        """Levels ``k / GRID`` and the share of valid p-values at or below each (NaN if none)."""
        total = self.valid - self.decided
        cdf = np.cumsum(self.hist) / total if total else np.full(GRID + 1, np.nan)
        return np.arange(GRID + 1) / GRID, cdf

    def to_record(self) -> tuple[dict, dict]:
        """Arrays and JSON metadata for the block store."""
        levels = list(self.exact)
        arrays = {"counts": np.array([self.n, self.failed, self.decided, self.decided_reject]),
                  "hist": self.hist.astype(np.int32), "exact": np.array(
                      [self.exact[a] for a in levels], np.int64)}
        # JSON keeps the fixed-point sums as exact integers of any size
        return arrays, {"levels": levels, "signs": [[a, *c] for a, c in self.signs.items()],
                        "agree": [[a, *c] for a, c in self.agree.items()]}

    @classmethod
    def from_record(cls, arrays: dict, meta: dict) -> RejectionTally:
        """The tally :meth:`to_record` stored."""
        n, failed, decided, decided_reject = (int(c) for c in arrays["counts"])
        exact = dict(zip(meta["levels"], arrays["exact"].tolist(), strict=True))
        signs = {row[0]: tuple(row[1:]) for row in meta.get("signs", [])}
        agree = {row[0]: tuple(row[1:]) for row in meta.get("agree", [])}
        return cls(n, failed, decided, decided_reject, arrays["hist"].astype(np.int64), exact,
                   signs, agree)


#: Fixed-point units of the type-M sums.
_ABS_UNIT = 2**20
_SQ_UNIT = 2**16
#: The type-M ratio's cap: it keeps the fixed-point sums in int64 within a block of up to 10^5
#: replications. A capped ratio is counted (``type_m_capped``).
RATIO_CAP = 1e4
#: What a summary with capped type-M ratios warns.
CAPPED_WARNING = (f"type_m is a lower bound where type_m_capped is given: that many rejections "
                  f"had |estimate / effect| above {RATIO_CAP:g} (an effect near 0), each counted "
                  f"as {RATIO_CAP:g}")


def _sign_errors(result, starts, levels, effect) -> list[dict]:
    """Per block, per level: the counts and fixed-point sums of :attr:`RejectionTally.signs`."""
    n_blocks = starts.size - 1
    if result.estimate is None or effect is None or effect == 0 or not levels:
        return [{} for _ in range(n_blocks)]
    estimate = np.asarray(result.estimate, dtype=float)
    usable = ~np.isnan(estimate)
    wrong = np.sign(estimate) != np.sign(effect)
    ratio = np.abs(estimate / effect)
    capped = ratio > RATIO_CAP
    ratio = np.minimum(ratio, RATIO_CAP)
    abs_fixed = np.where(usable, np.round(ratio * _ABS_UNIT), 0).astype(np.int64)
    sq_fixed = np.where(usable, np.round(ratio * ratio * _SQ_UNIT), 0).astype(np.int64)
    out = [{} for _ in range(n_blocks)]
    for alpha in levels:
        rejected = result.decisions(alpha) & usable
        for k in range(n_blocks):
            rows = slice(starts[k], starts[k + 1])
            sig = rejected[rows]
            out[k][alpha] = (int(sig.sum()), int((sig & wrong[rows]).sum()),
                             int(abs_fixed[rows][sig].sum()), int(sq_fixed[rows][sig].sum()),
                             int((sig & capped[rows]).sum()))
    return out


def _agreement(result, starts, levels) -> list[dict]:
    """Per block, per level: the counts and sums of :attr:`RejectionTally.agree`.

    With R runs of which k reject, ``C(k, 2) + C(R - k, 2)`` of the ``C(R, 2)`` pairs of runs
    agree; a replication that failed in some run is left out.
    """
    n_blocks = starts.size - 1
    if not result.reruns or not levels:
        return [{} for _ in range(n_blocks)]
    runs = (result, *result.reruns)
    valid = ~np.any([r.failed for r in runs], axis=0)
    n_runs = len(runs)
    pairs = n_runs * (n_runs - 1) // 2
    out = [{} for _ in range(n_blocks)]
    for alpha in levels:
        k = np.sum([r.decisions(alpha) for r in runs], axis=0).astype(np.int64)
        same = np.where(valid, (k * (k - 1) + (n_runs - k) * (n_runs - k - 1)) // 2, 0)
        for b in range(n_blocks):
            rows = slice(starts[b], starts[b + 1])
            out[b][alpha] = (int(valid[rows].sum()), pairs, int(same[rows].sum()),
                             int((same[rows] ** 2).sum()))
    return out


def _chan(k1, mean1, m2_1, k2, mean2, m2_2):
    """Count, mean and sum of squared deviations of two parts joined (Chan et al. 1979); a
    part's infinite mean stays the whole's (NaN for two opposite ones), with NaN deviations."""
    k = k1 + k2
    if k1 == 0 or k2 == 0:
        return (k, mean1, m2_1) if k2 == 0 else (k, mean2, m2_2)
    if math.isinf(mean1) or math.isinf(mean2):
        return k, mean1 + mean2, math.nan  # the finite mean does not move an infinite one
    d = mean2 - mean1
    return k, mean1 + d * k2 / k, m2_1 + m2_2 + d * d * k1 * k2 / k


def _moments(x):
    """Count, mean and sum of squared deviations of `x`: with infinite values, the mean is
    their infinity (NaN when both signs occur) and the deviations NaN (they have none)."""
    if not x.size:
        return 0, 0.0, 0.0
    infinite = x[np.isinf(x)]
    if infinite.size:
        same = bool((infinite == infinite[0]).all())
        return x.size, float(infinite[0]) if same else math.nan, math.nan
    return x.size, float(x.mean()), float(((x - x.mean()) ** 2).sum())


@dataclass
class EstimateTally:
    """An estimator's results over some replications, summed: what bias, empirical SE, RMSE,
    interval coverage and width need (Morris et al. 2019); added in block order. An infinite
    estimate or width makes its mean infinite and its squared deviations NaN."""

    n: int
    failed: int
    k: int = 0
    mean: float = 0.0
    m2: float = 0.0
    e2: float = 0.0
    e4: float = 0.0
    k_int: int = 0
    covered: int = 0
    w_mean: float = 0.0
    w_m2: float = 0.0

    associative = False  # float sums: blocks add up in block order

    @classmethod
    def of(cls, estimate, low, high, failed, truth) -> EstimateTally:
        """The tally of one block: `estimate` (None for intervals only), `low`, `high` (None for a
        point estimator), `failed` over its replications, against `truth`."""
        est = estimate[~failed & ~np.isnan(estimate)] if estimate is not None else np.empty(0)
        err = est - truth
        k, mean, m2 = _moments(est)
        tally = cls(int(failed.size), int(failed.sum()), k, mean, m2, float((err**2).sum()),
                    float((err**4).sum()))
        if low is not None:
            ok = ~failed & ~np.isnan(low) & ~np.isnan(high)
            tally.k_int, tally.w_mean, tally.w_m2 = _moments(high[ok] - low[ok])
            tally.covered = int(((low[ok] <= truth) & (truth <= high[ok])).sum())
        return tally

    def __add__(self, other: EstimateTally) -> EstimateTally:
        k, mean, m2 = _chan(self.k, self.mean, self.m2, other.k, other.mean, other.m2)
        k_int, w_mean, w_m2 = _chan(self.k_int, self.w_mean, self.w_m2, other.k_int,
                                    other.w_mean, other.w_m2)
        return EstimateTally(self.n + other.n, self.failed + other.failed, k, mean, m2,
                             self.e2 + other.e2, self.e4 + other.e4, k_int,
                             self.covered + other.covered, w_mean, w_m2)

    def summary(self, truth: float) -> dict:
        """``mean``, ``bias``, ``emp_se``, ``rmse``, ``coverage`` and ``width`` against `truth`,
        each but the mean with its Monte Carlo error (Morris et al. 2019); NaN where undefined."""
        nan = float("nan")
        k, ki = self.k, self.k_int
        var = self.m2 / (k - 1) if k > 1 else nan
        mse = self.e2 / k if k else nan
        # MCSE of the MSE: sd of the squared errors over sqrt(k)
        mse_var = (self.e4 - 2 * mse * self.e2 + k * mse * mse) / (k * (k - 1)) if k > 1 \
            else nan
        rmse = np.sqrt(mse)
        cover = self.covered / ki if ki else nan
        w_var = self.w_m2 / (ki - 1) if ki > 1 else nan
        return {
            "mean": self.mean if k else nan, "bias": self.mean - truth if k else nan,
            "bias_mcse": np.sqrt(var / k) if k > 1 else nan,
            "emp_se": np.sqrt(var), "emp_se_mcse": np.sqrt(var / (2 * (k - 1))) if k > 1
            else nan,
            "rmse": rmse, "rmse_mcse": np.sqrt(max(mse_var, 0.0)) / (2 * rmse)
            if k > 1 and rmse > 0 else nan,
            "coverage": cover, "coverage_mcse": np.sqrt(cover * (1 - cover) / ki) if ki
            else nan,
            "width": self.w_mean if ki else nan,
            "width_mcse": np.sqrt(w_var / ki) if ki > 1 else nan,
        }

    def to_record(self) -> tuple[dict, dict]:
        """Arrays and JSON metadata for the block store."""
        return {"ints": np.array([self.n, self.failed, self.k, self.k_int, self.covered]),
                "floats": np.array([self.mean, self.m2, self.e2, self.e4, self.w_mean,
                                    self.w_m2])}, {}

    @classmethod
    def from_record(cls, arrays: dict, meta: dict) -> EstimateTally:
        """The tally :meth:`to_record` stored."""
        n, failed, k, k_int, covered = (int(v) for v in arrays["ints"])
        mean, m2, e2, e4, w_mean, w_m2 = (float(v) for v in arrays["floats"])
        return cls(n, failed, k, mean, m2, e2, e4, k_int, covered, w_mean, w_m2)


@dataclass
class RecordsTally:
    """Every replication's records: equal-length `columns`, ``rep`` numbering each row's
    replication; adding a block renumbers its replications after those kept."""

    n: int
    columns: dict[str, np.ndarray]
    failed: int = 0

    associative = False  # rows are numbered in block order

    def __add__(self, other: RecordsTally) -> RecordsTally:
        shifted = {**other.columns, "rep": other.columns["rep"] + self.n}
        return RecordsTally(self.n + other.n, {
            name: np.concatenate([col, shifted[name]]) for name, col in self.columns.items()},
            self.failed + other.failed)

    def to_record(self) -> tuple[dict, dict]:
        """Arrays and JSON metadata for the block store."""
        return dict(self.columns), ({"n": self.n, "failed": self.failed} if self.failed
                                    else {"n": self.n})

    @classmethod
    def from_record(cls, arrays: dict, meta: dict) -> RecordsTally:
        """The tally :meth:`to_record` stored."""
        return cls(meta["n"], dict(arrays), meta.get("failed", 0))
