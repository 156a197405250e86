"""``compare``: which of pipelines A and B is better on your own paired runs, if either?

The P(A>B) test of Bouthillier et al. (2021) read in both directions, beside the single-point,
average and t-test verdicts, Noether's number of runs (and below it the exact rate at which
equal pipelines pass for different), and the paired t, Wilcoxon and permutation tests."""

from __future__ import annotations

import html
from dataclasses import asdict, dataclass

import numpy as np
import scipy.stats

from evalmc.analysis.power import noether_sample_size
from evalmc.criteria import get_criterion
from evalmc.criteria.outperform import (
    DELTA_PAPER,
    GAMMA,
    N_RESAMPLES,
    TABLE_PAIRS,
    b_better_probabilities,
    bootstrap_pmf,
    conclusion_probabilities,
    outperform_test,
    t_oracle,
)
from evalmc.criteria.permutation import EXACT_MAX as FLIP_EXACT_MAX
from evalmc.criteria.permutation import N_RESAMPLES as PERMUTATIONS
from evalmc.estimators.registry import BEST
from evalmc.inputs.checks import check_choice, check_float, check_int
from evalmc.sims.base import Batch

#: Most bootstrap resamples :func:`compare` takes: the exact rates of its caveat cost time in B.
MAX_RESAMPLES = 10_000_000
#: Most scores (pairs, or runs of A and B) on which the permutation tests run: 9999 random
#: permutations of 10^4 pairs take about a second, and the t-test is their large-sample limit.
PERMUTATION_MAX = 10_000


@dataclass(frozen=True)
class CompareResult:
    """Outcome of :func:`compare`.

    Attributes
    ----------
    k, wins, ties : int
        Pairs, pairs A won, tied pairs.
    p_a_beats_b, ci_low, ci_high : float
        P(A>B) and its percentile-bootstrap interval.
    conclusion : str
        'A better', 'B better', 'not significant' or 'not meaningful (A ahead)' ('(B ahead)').
    gamma, alpha : float
    n_resamples, noether_n : int
        Bootstrap resamples, and the pairs Noether's formula asks for (P(A>B) = gamma).
    sigma, delta, threshold : float
        Sd of one run's score, the single-point/average threshold in sigmas (as given), and
        that threshold in score units, ``delta * sigma``.
    criteria : dict of str to str
        Each criterion's verdict: 'A better', 'B better' or 'no difference shown'.
    null_a_better, null_b_better : float or None
        Exact rate of 'A better' ('B better') at this k for equal A and B, below `noether_n`.
    caveats : list of str
        What qualifies the conclusion (few pairs, ties).
    best : str
        'max' (higher scores are better) or 'min'.
    mean_difference, diff_low, diff_high : float
        ``mean(a - b)`` of the scores as given, and its paired t interval at ``1 - alpha``.
    tests : list of dict
        The two-sided tests of A = B (``paired-t``, ``wilcoxon``, ``permutation-paired``): each
        ``test``, ``statistic_name``, ``statistic``, ``df``, ``p_value`` and what it ``assumes``.

    Examples
    --------
    >>> import evalmc
    >>> res = evalmc.compare([0.91, 0.93, 0.90, 0.94, 0.92], [0.90, 0.91, 0.91, 0.92, 0.90])
    >>> res.to_frame()[["criterion", "verdict"]].head(4)
             criterion          verdict
    0  prob-outperform      not significant
    1     single-point  no difference shown
    2    average-delta  no difference shown
    3         t-oracle  no difference shown
    >>> res.caveats[0][:43]  # 5 pairs: equal models pass for "A better" 3.1% of the time
    "k = 5 pairs is below Noether's 29 for gamma"
    >>> round(res.null_a_better, 4), round(res.null_b_better, 4)
    (0.0313, 0.0313)
    >>> fig = res.plot()  # the bootstrap distribution of P(A>B)
    """

    k: int
    wins: int
    ties: int
    p_a_beats_b: float
    ci_low: float
    ci_high: float
    conclusion: str
    gamma: float
    alpha: float
    n_resamples: int
    noether_n: int
    sigma: float
    delta: float
    threshold: float
    criteria: dict
    null_a_better: float | None
    null_b_better: float | None
    caveats: list
    best: str
    mean_difference: float
    diff_low: float
    diff_high: float
    tests: list

    def to_dict(self) -> dict:
        """The fields as a dict (``evalmc compare --format json``).

        >>> import evalmc
        >>> res = evalmc.compare([0.91, 0.93, 0.90, 0.94, 0.92], [0.90, 0.91, 0.91, 0.92, 0.90])
        >>> record = res.to_dict()
        >>> record["k"], record["wins"], record["conclusion"]
        (5, 4, 'not significant')
        """
        return asdict(self)

    def to_frame(self):
        """DataFrame: each criterion's verdict (P(A>B) with its interval), then each test's
        statistic and p-value (``paired-t`` with the difference's interval).

        >>> import evalmc
        >>> res = evalmc.compare([0.91, 0.93, 0.90, 0.94, 0.92], [0.90, 0.91, 0.91, 0.92, 0.90])
        >>> res.to_frame()[["criterion", "p_a_beats_b", "ci_low", "ci_high"]].head(2)
                 criterion  p_a_beats_b  ci_low  ci_high
        0  prob-outperform          0.8     0.4      1.0
        1     single-point          NaN     NaN      NaN
        >>> res.to_frame()[["criterion", "statistic", "p_value"]].tail(3).round(4)
                    criterion  statistic  p_value
        4            paired-t      2.058   0.1087
        5            wilcoxon     13.500   0.1875
        6  permutation-paired      0.012   0.1875
        """
        import pandas as pd

        frame = pd.DataFrame({"criterion": list(self.criteria),
                              "verdict": list(self.criteria.values())})
        for name in ("p_a_beats_b", "ci_low", "ci_high"):
            frame[name] = np.where(frame["criterion"] == "prob-outperform",
                                   getattr(self, name), np.nan)
        return pd.concat([frame, _tests_frame(self.tests, self.diff_low, self.diff_high)],
                         ignore_index=True)

    def _repr_html_(self) -> str:
        head = (f"<p>P(A&gt;B) = {self.p_a_beats_b:.4f} over k = {self.k} pairs, "
                f"{level_label(self.alpha)} interval [{self.ci_low:.4f}, {self.ci_high:.4f}]: "
                f"<b>{self.conclusion}</b> (gamma = {self.gamma})</p>")
        notes = "".join(f"<p>caveat: {html.escape(c)}</p>" for c in self.caveats)
        return head + notes + self.to_frame().to_html(index=False, na_rep="")

    def plot(self, ax=None):
        """The bootstrap distribution of P(A>B), its interval, 0.5 and gamma: a Figure (not saved).

        >>> import evalmc
        >>> res = evalmc.compare([0.91, 0.93, 0.90, 0.94, 0.92], [0.90, 0.91, 0.91, 0.92, 0.90])
        >>> res.plot().axes[0].get_title()
        'P(A>B) = 0.800 over 5 pairs: not significant'
        """
        from evalmc.plots import axes_or_new

        ax = axes_or_new(ax, figsize=(6, 3.5))
        k = self.k
        if k <= TABLE_PAIRS:
            pmf = bootstrap_pmf([self.wins], [self.ties], k)[0]
            ax.bar(np.arange(2 * k + 1) / (2 * k), pmf, width=0.8 / (2 * k), color="C0")
        else:  # too many values to tabulate: a histogram of resamples (at most 10^4, seed 0)
            p = np.array([self.wins, self.ties, k - self.wins - self.ties]) / k
            size = min(self.n_resamples, 10**4)
            cells = np.random.default_rng(0).multinomial(k, p, size=size)
            ax.hist((2 * cells[:, 0] + cells[:, 1]) / (2 * k), bins=50, density=True,
                    color="C0")
        ax.axvspan(self.ci_low, self.ci_high, color="C0", alpha=0.15,
                   label=f"{level_label(self.alpha)} interval")
        ax.axvline(0.5, color="k", ls="--", lw=0.8, label="0.5")
        ax.axvline(self.gamma, color="C3", ls="--", lw=0.8, label=f"gamma = {self.gamma}")
        ax.set(xlabel="P(A > B) of a bootstrap resample", ylabel="probability", xlim=(0, 1),
               title=f"P(A>B) = {self.p_a_beats_b:.3f} over {k} pairs: {self.conclusion}")
        ax.legend(fontsize=8)
        return ax.figure


def compare(a, b, *, gamma=GAMMA, alpha=0.05, beta=0.05, n_resamples=N_RESAMPLES,
            delta=DELTA_PAPER, sigma=None, seed=0, best="max") -> CompareResult:
    """The P(A>B) test, the other verdicts and the paired tests on one set of paired runs.

    Parameters
    ----------
    a, b : array_like, shape (k,)
        Scores of A and B; ``a[i]`` and ``b[i]`` share a seed or split (k >= 2).
    gamma : float
        Smallest meaningful P(A>B), in (0.5, 1).
    alpha : float
        1 - confidence of the interval; the t-test runs at alpha / 2 in each direction.
    beta : float
        False-negative rate for Noether's sample size.
    n_resamples : int
        Bootstrap resamples, at most :data:`MAX_RESAMPLES`.
    delta : float
        Threshold of the single-point and average verdicts, in units of `sigma`, >= 0: A
        better when A - B exceeds ``delta * sigma``, B better when B - A does.
    sigma : float, optional
        Sd of one run's score; default: the pooled sd of A's and B's runs.
    seed : int
        Seed of the bootstrap (and of the permutation test's sign flips above 16 pairs).
    best : {'max', 'min'}
        Whether higher scores are better (accuracies) or lower (losses, errors).

    Returns
    -------
    CompareResult

    Examples
    --------
    >>> import numpy as np
    >>> import evalmc
    >>> rng = np.random.default_rng(0)
    >>> b = rng.normal(70.0, 1.0, 30)
    >>> res = evalmc.compare(b + 1.0 + rng.normal(0, 1.0, 30), b, seed=1)
    >>> res.conclusion, res.wins, round(res.p_a_beats_b, 3)
    ('A better', 25, 0.833)
    >>> res.criteria["average-delta"]
    'no difference shown'
    >>> round(res.mean_difference, 3), [f"{t['p_value']:.2g}" for t in res.tests]
    (1.276, ['4.4e-08', '2.6e-07', '0.0002'])

    Losses: lower is better, and A's are lower.

    >>> loss = evalmc.compare(b - 1.0 + rng.normal(0, 1.0, 30), b, best="min", seed=1)
    >>> loss.conclusion, loss.wins
    ('A better', 22)
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape or a.size < 2:
        raise ValueError("`a` and `b` must be 1-D arrays of the same length >= 2; got shapes "
                         f"{a.shape} and {b.shape}.")
    for name, x in (("a", a), ("b", b)):
        bad = np.flatnonzero(~np.isfinite(x))
        if bad.size:
            raise ValueError(f"`{name}` must hold finite scores; {name}[{bad[0]}] is "
                             f"{x[bad[0]]}.")
    k = a.size
    delta = check_float("delta", delta)
    if delta < 0:  # the verdicts read it both ways: below 0, A and B would both be better
        raise ValueError("`delta` must be >= 0: the single-point and average verdicts say A "
                         "better when A - B > delta sigma and B better when B - A > delta "
                         f"sigma; got {delta}.")
    if sigma is None:
        with np.errstate(over="ignore", invalid="ignore"):
            sigma = float(np.sqrt((np.var(a, ddof=1) + np.var(b, ddof=1)) / 2))
        if not np.isfinite(sigma):  # scores near the floats' limit: scaled before squaring
            from evalmc.criteria.outperform import pooled_sd

            sigma = float(pooled_sd(np.asarray(a)[None], np.asarray(b)[None])[0])
        if not sigma > 0:
            raise ValueError("`sigma` must be given when every score of A and B is the same; "
                             "the pooled sd of the runs is 0.")
    sigma = check_float("sigma", sigma, low=0, open_low=True)
    seed = check_int("seed", seed, low=0)
    n_resamples = check_int("n_resamples", n_resamples, low=1, high=MAX_RESAMPLES)
    beta = check_float("beta", beta, low=0, high=1, open_low=True, open_high=True)
    best = check_choice("best", best, BEST)
    alpha = check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    rng = np.random.default_rng(seed)
    t_test = scipy.stats.ttest_rel(a, b)
    diff_low, diff_high = t_test.confidence_interval(1 - alpha)
    batch = Batch(a[None], b[None], paired=True)
    tests = [
        _test("paired-t", "t", t_test.statistic, t_test.pvalue, "normal differences (or many "
              "pairs)", df=t_test.df),
        _test("wilcoxon", "R+", *_run_criterion("wilcoxon", batch, rng), "symmetric "
              "differences; zero differences dropped"),
        _permutation("permutation-paired", "mean(A - B)", batch, rng, k,
                     "exchangeable signs of the differences",
                     "" if k <= FLIP_EXACT_MAX else f"; {PERMUTATIONS} random sign flips"),
    ]
    mean_difference = float(np.mean(a - b))
    if best == "min":  # A beats B where its score is lower: the verdicts read -a against -b
        a, b = -a, -b
    wins, ties = int(np.sum(a > b)), int(np.sum(a == b))
    res = outperform_test([wins], [ties], k, gamma=gamma, alpha=alpha, n_resamples=n_resamples,
                          rng=np.random.default_rng(seed))
    low, high = float(res.ci_low[0]), float(res.ci_high[0])
    noether_n = noether_sample_size(gamma, alpha=alpha, beta=beta)
    verdicts = {
        "prob-outperform": two_sided_conclusion(low, high, gamma),
        "single-point": _either(get_criterion("single-point", delta=delta, sigma=sigma), a, b,
                                None),
        "average-delta": _either(get_criterion("average-delta", delta=delta, sigma=sigma), a,
                                 b, None),
        "t-oracle": _either(t_oracle, a, b, alpha / 2),
    }
    null_a = null_b = None
    caveats = []
    if k < noether_n and k > TABLE_PAIRS:
        caveats.append(
            f"k = {k} pairs is below Noether's {noether_n} for gamma = {gamma:g} (alpha = "
            f"{alpha:g}, beta = {beta:g}): the test has less than {1 - beta:.0%} power at "
            f"P(A>B) = gamma (its rates under equal models are computed up to {TABLE_PAIRS} "
            "pairs).")
    elif k < noether_n:
        weights = scipy.stats.binom.pmf(np.arange(k + 1), k, 0.5)
        a_better = conclusion_probabilities(k, gamma=gamma, alpha=alpha,
                                            n_resamples=n_resamples)[:, 2]
        null_a = float(weights @ a_better)
        null_b = float(weights @ b_better_probabilities(k, gamma=gamma, alpha=alpha,
                                                        n_resamples=n_resamples))
        caveats.append(
            f"k = {k} pairs is below Noether's {noether_n} for gamma = {gamma:g} (alpha = "
            f"{alpha:g}, beta = {beta:g}): with equal models this test says 'A better' with "
            f"probability {null_a:.3g} and 'B better' with probability {null_b:.3g} at k = {k}.")
    if ties:
        caveats.append(f"{ties} tied pair(s), each counted one half in "
                       f"{'P(A>B)' if best == 'max' else 'P(A<B)'}.")
    return CompareResult(
        k=k, wins=wins, ties=ties, p_a_beats_b=float(res.p_a_beats_b[0]), ci_low=low,
        ci_high=high, conclusion=verdicts["prob-outperform"], gamma=gamma, alpha=alpha,
        n_resamples=n_resamples, noether_n=noether_n, sigma=sigma, delta=delta,
        threshold=delta * sigma, criteria=verdicts, null_a_better=null_a, null_b_better=null_b,
        caveats=caveats, best=best, mean_difference=mean_difference, diff_low=float(diff_low),
        diff_high=float(diff_high), tests=tests,
    )


def level_label(alpha: float) -> str:
    """The confidence level ``1 - alpha`` as a percentage, with the digits it needs ('97.5%')."""
    return f"{100 * (1 - alpha):.6g}%"


def two_sided_conclusion(ci_low: float, ci_high: float, gamma: float) -> str:
    """The P(A>B) test's conclusion from its interval, in both directions."""
    if ci_low > 0.5:
        return "A better" if ci_high > gamma else "not meaningful (A ahead)"
    if ci_high < 0.5:
        return "B better" if ci_low < 1 - gamma else "not meaningful (B ahead)"
    return "not significant"


def _either(criterion, a, b, level) -> str:
    """'A better', 'B better' or 'no difference shown' by the one-sided `criterion`, both ways."""
    batch = Batch(np.stack([a, b]), np.stack([b, a]), paired=True)
    result = criterion(batch) if level is not None else criterion(batch, None)
    better = result.decisions(level if level is not None else 0.05)
    return "A better" if better[0] else "B better" if better[1] else "no difference shown"


@dataclass(frozen=True)
class UnpairedResult:
    """Outcome of :func:`compare_unpaired`: runs, ``p_a_beats_b``, mean difference, ``tests``."""

    n_a: int
    n_b: int
    best: str
    alpha: float
    p_a_beats_b: float
    mean_difference: float
    diff_low: float
    diff_high: float
    tests: list

    def to_dict(self) -> dict:
        """The fields as a dict (``evalmc compare --unpaired --format json``)."""
        return asdict(self)

    def to_frame(self):
        """One row per test, as :meth:`CompareResult.to_frame`."""
        return _tests_frame(self.tests, self.diff_low, self.diff_high)


def compare_unpaired(a, b, *, alpha=0.05, best="max", seed=0) -> UnpairedResult:
    """Welch's t, Mann-Whitney's U and the permutation test on independent runs of A and B."""
    a, b = (np.asarray(x, dtype=float) for x in (a, b))
    for name, x in (("a", a), ("b", b)):
        if x.ndim != 1 or x.size < 2:
            raise ValueError(f"`{name}` must be a 1-D array of at least 2 scores; got shape "
                             f"{x.shape}.")
        bad = np.flatnonzero(~np.isfinite(x))
        if bad.size:
            raise ValueError(f"`{name}` must hold finite scores; {name}[{bad[0]}] is "
                             f"{x[bad[0]]}.")
    alpha = check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    best = check_choice("best", best, BEST)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    welch = scipy.stats.ttest_ind(a, b, equal_var=False)
    diff_low, diff_high = welch.confidence_interval(1 - alpha)
    batch = Batch(a[None], b[None], paired=False)
    u, u_p = _run_criterion("mann-whitney", batch, rng)
    tests = [
        _test("welch-t", "t", welch.statistic, welch.pvalue, "normal scores (or many runs); "
              "the variances may differ", df=welch.df),
        _test("mann-whitney", "U of A", u, u_p, "independent runs; tests P(A>B) = 1/2"),
        _permutation("permutation-two-sample", "mean(A) - mean(B)", batch, rng,
                     a.size + b.size, "exchangeable runs of A and B"),
    ]
    share = u / (a.size * b.size)
    return UnpairedResult(
        n_a=a.size, n_b=b.size, best=best, alpha=alpha,
        p_a_beats_b=share if best == "max" else 1.0 - share,
        mean_difference=float(a.mean() - b.mean()), diff_low=float(diff_low),
        diff_high=float(diff_high), tests=tests,
    )


def _run_criterion(name: str, batch: Batch, rng) -> tuple[float, float]:
    """The statistic and two-sided p-value of the registered criterion `name` on `batch`."""
    result = get_criterion(name)(batch, rng)
    return float(result.statistic[0]), float(result.pvalues()[0])


def _permutation(name: str, statistic_name: str, batch: Batch, rng, size: int,
                 assumes: str, note: str = "") -> dict:
    """The record of the permutation test `name` (not run above :data:`PERMUTATION_MAX` scores)."""
    if size <= PERMUTATION_MAX:
        return _test(name, statistic_name, *_run_criterion(name, batch, rng), assumes + note)
    statistic = float(np.mean(batch.a) - np.mean(batch.b))
    return _test(name, statistic_name, statistic, np.nan, f"{assumes}; not run above "
                 f"{PERMUTATION_MAX} scores (the t-test is its large-sample limit)")


def _test(test, statistic_name, statistic, p_value, assumes, df=None) -> dict:
    """One test's record, as :attr:`CompareResult.tests` holds it."""
    return {"test": test, "statistic_name": statistic_name, "statistic": float(statistic),
            "df": None if df is None else float(df), "p_value": float(p_value),
            "assumes": assumes}


def _tests_frame(tests, diff_low: float, diff_high: float):
    """The rows of `tests` for ``to_frame``, the first (a t-test) with the difference's interval."""
    import pandas as pd

    frame = pd.DataFrame({"criterion": [t["test"] for t in tests], "verdict": None,
                          "p_a_beats_b": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                          "statistic": [t["statistic"] for t in tests],
                          "p_value": [t["p_value"] for t in tests]})
    frame.loc[0, ["ci_low", "ci_high"]] = diff_low, diff_high
    return frame


def compare_models(scores, *, paired=True, alpha=0.05, best="max", gamma=GAMMA,
                   n_resamples=N_RESAMPLES, seed=0):
    """:func:`compare` (or :func:`compare_unpaired`) on every pair of `scores`: each test's
    p-values Holm-adjusted over the pairs (``<test>_p_holm``); the intervals and the P(A>B)
    verdict (``conclusion_unadjusted``, paired only) are each pair's own, not adjusted."""
    import itertools

    import pandas as pd

    from evalmc.criteria.ranks import holm

    frame = pd.DataFrame(scores)
    if frame.shape[1] < 2:
        raise ValueError(f"`scores` must hold at least 2 models; got {frame.shape[1]}.")
    rows = []
    for name_a, name_b in itertools.combinations(frame.columns, 2):
        a, b = (frame[name].to_numpy(dtype=float) for name in (name_a, name_b))
        if paired:
            keep = ~np.isnan(a) & ~np.isnan(b)
            res = compare(a[keep], b[keep], gamma=gamma, alpha=alpha, n_resamples=n_resamples,
                          seed=seed, best=best)
            row = {"n_a": res.k, "n_b": res.k, "p_a_beats_b": res.p_a_beats_b,
                   "ci_low": res.ci_low, "ci_high": res.ci_high,
                   "conclusion_unadjusted": res.conclusion}
        else:
            res = compare_unpaired(a[~np.isnan(a)], b[~np.isnan(b)], alpha=alpha, best=best,
                                   seed=seed)
            row = {"n_a": res.n_a, "n_b": res.n_b, "p_a_beats_b": res.p_a_beats_b,
                   "ci_low": np.nan, "ci_high": np.nan, "conclusion_unadjusted": None}
        rows.append({"model_a": str(name_a), "model_b": str(name_b), **row,
                     "mean_difference": res.mean_difference, "diff_low": res.diff_low,
                     "diff_high": res.diff_high,
                     **{f"{t['test']}_p": t["p_value"] for t in res.tests}})
    table = pd.DataFrame(rows)
    for test in [t["test"] for t in res.tests]:
        table.insert(table.columns.get_loc(f"{test}_p") + 1, f"{test}_p_holm",
                     holm(table[f"{test}_p"].to_numpy()))
    return table
