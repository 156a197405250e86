"""``compare``: which of pipelines A and B is better on your own paired runs, if either?

The P(A>B) test of Bouthillier et al. (2021) with its percentile-bootstrap interval, read in
both directions: "A better" when the interval lies above 0.5 and reaches above gamma, "B
better" when it lies below 0.5 and reaches below 1 - gamma, "not significant" when it holds
0.5, "not meaningful" otherwise. Beside it, the single-point, average and Welch t-test verdicts,
each also two-sided (the t-test at alpha / 2 in each direction, as the interval's tails), and
Noether's number of runs for the chosen gamma. A tie counts one half in P(A>B).

A verdict from fewer pairs than Noether's number comes with a caveat: the exact probability that
the test says "A better" (and "B better") when the two pipelines are equal, at this k. (The test
can always reach a verdict: k wins of k put every resample at 1.)
"""

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
from evalmc.sims.base import Batch
from evalmc.sims.validation import check_float, check_int

#: Most bootstrap resamples :func:`compare` takes: the exact rates of its caveat cost time in B.
MAX_RESAMPLES = 10_000_000


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
        'A better', 'B better', 'not significant', 'not meaningful (A ahead)' or
        'not meaningful (B ahead)'.
    gamma, alpha : float
    resamples : int
    noether_n : int
        Pairs Noether's formula asks for to detect P(A>B) = gamma.
    sigma, delta : float
        Sd of one run's score and the single-point/average threshold, in score units.
    criteria : dict of str to str
        Each criterion's verdict on these runs: 'A better', 'B better' or 'no difference shown'.
    null_a_better, null_b_better : float or None
        Exact probability that the P(A>B) test says 'A better' ('B better') at this k when A and
        B are equal (continuous scores); computed when k is below `noether_n`, else None.
    caveats : list of str
        What qualifies the conclusion (few pairs, ties).

    Examples
    --------
    >>> import evalmc
    >>> res = evalmc.compare([0.91, 0.93, 0.90, 0.94, 0.92], [0.90, 0.91, 0.91, 0.92, 0.90])
    >>> res.to_frame()[["criterion", "verdict"]]
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
    resamples: int
    noether_n: int
    sigma: float
    delta: float
    criteria: dict
    null_a_better: float | None
    null_b_better: float | None
    caveats: list

    def to_dict(self) -> dict:
        """The fields as a dict (``evalmc compare --format json``).

        Returns
        -------
        dict
            Field name to value, as in the class's attributes.

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.compare([0.91, 0.93, 0.90, 0.94, 0.92], [0.90, 0.91, 0.91, 0.92, 0.90])
        >>> record = res.to_dict()
        >>> record["k"], record["wins"], record["conclusion"]
        (5, 4, 'not significant')
        """
        return asdict(self)

    def to_frame(self):
        """One row per criterion: its verdict, with the test's numbers on the P(A>B) row.

        Returns
        -------
        DataFrame
            ``criterion``, ``verdict``, ``p_a_beats_b``, ``ci_low``, ``ci_high`` (NaN but on
            the ``prob-outperform`` row).

        Examples
        --------
        >>> import evalmc
        >>> res = evalmc.compare([0.91, 0.93, 0.90, 0.94, 0.92], [0.90, 0.91, 0.91, 0.92, 0.90])
        >>> res.to_frame()[["criterion", "p_a_beats_b", "ci_low", "ci_high"]].head(2)
              criterion  p_a_beats_b  ci_low  ci_high
        0  prob-outperform          0.8     0.4      1.0
        1     single-point          NaN     NaN      NaN
        """
        import pandas as pd

        frame = pd.DataFrame({"criterion": list(self.criteria),
                              "verdict": list(self.criteria.values())})
        for name in ("p_a_beats_b", "ci_low", "ci_high"):
            frame[name] = np.where(frame["criterion"] == "prob-outperform",
                                   getattr(self, name), np.nan)
        return frame

    def _repr_html_(self) -> str:
        head = (f"<p>P(A&gt;B) = {self.p_a_beats_b:.4f} over k = {self.k} pairs, "
                f"{level_label(self.alpha)} interval [{self.ci_low:.4f}, {self.ci_high:.4f}]: "
                f"<b>{self.conclusion}</b> (gamma = {self.gamma})</p>")
        notes = "".join(f"<p>caveat: {html.escape(c)}</p>" for c in self.caveats)
        return head + notes + self.to_frame().to_html(index=False, na_rep="")

    def plot(self, ax=None):
        """The bootstrap distribution of P(A>B) (exact up to ``TABLE_PAIRS`` pairs, else a
        histogram of at most 10^4 resamples), its interval, 0.5 and gamma.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; default: a new Figure.

        Returns
        -------
        matplotlib.figure.Figure
            Not saved: call its ``savefig``.

        Examples
        --------
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
            cells = np.random.default_rng(0).multinomial(k, p, size=min(self.resamples, 10**4))
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
            delta=DELTA_PAPER, sigma=None, seed=0) -> CompareResult:
    """The P(A>B) test and the other verdicts on one set of paired runs.

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
        Threshold of the single-point and average verdicts, in units of `sigma`.
    sigma : float, optional
        Sd of one run's score; default: the pooled sd of A's and B's runs.
    seed : int
        Seed of the bootstrap.

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
    if sigma is None:
        sigma = float(np.sqrt((np.var(a, ddof=1) + np.var(b, ddof=1)) / 2))
        if not sigma > 0:
            raise ValueError("`sigma` must be given when every score of A and B is the same; "
                             "the pooled sd of the runs is 0.")
    sigma = check_float("sigma", sigma, low=0, open_low=True)
    seed = check_int("seed", seed, low=0)
    n_resamples = check_int("n_resamples", n_resamples, low=1, high=MAX_RESAMPLES)
    beta = check_float("beta", beta, low=0, high=1, open_low=True, open_high=True)
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
        caveats.append(f"{ties} tied pair(s), each counted one half in P(A>B).")
    return CompareResult(
        k=k, wins=wins, ties=ties, p_a_beats_b=float(res.p_a_beats_b[0]), ci_low=low,
        ci_high=high, conclusion=verdicts["prob-outperform"], gamma=gamma, alpha=alpha,
        resamples=n_resamples, noether_n=noether_n, sigma=sigma, delta=delta * sigma,
        criteria=verdicts, null_a_better=null_a, null_b_better=null_b, caveats=caveats,
    )


def level_label(alpha: float) -> str:
    """The confidence level ``1 - alpha`` as a percentage, with the digits it needs.

    Parameters
    ----------
    alpha : float
        One minus the confidence level.

    Returns
    -------
    str

    Examples
    --------
    >>> from evalmc.analysis.comparison import level_label
    >>> level_label(0.05), level_label(0.025), level_label(0.001)
    ('95%', '97.5%', '99.9%')
    """
    return f"{100 * (1 - alpha):.6g}%"


def two_sided_conclusion(ci_low: float, ci_high: float, gamma: float) -> str:
    """The P(A>B) test's conclusion from its interval, in both directions.

    "A better" when the interval lies above 0.5 and reaches above `gamma`, "B better" when it
    lies below 0.5 and reaches below ``1 - gamma``, "not significant" when it holds 0.5,
    "not meaningful (A ahead)" or "(B ahead)" otherwise.

    Parameters
    ----------
    ci_low, ci_high : float
        The interval of P(A>B).
    gamma : float
        Smallest meaningful P(A>B), in (0.5, 1).

    Returns
    -------
    str

    Examples
    --------
    >>> from evalmc.analysis.comparison import two_sided_conclusion
    >>> two_sided_conclusion(0.62, 0.91, 0.75), two_sided_conclusion(0.55, 0.70, 0.75)
    ('A better', 'not meaningful (A ahead)')
    >>> two_sided_conclusion(0.40, 0.60, 0.75), two_sided_conclusion(0.05, 0.20, 0.75)
    ('not significant', 'B better')
    """
    if ci_low > 0.5:
        return "A better" if ci_high > gamma else "not meaningful (A ahead)"
    if ci_high < 0.5:
        return "B better" if ci_low < 1 - gamma else "not meaningful (B ahead)"
    return "not significant"


def _either(criterion, a, b, level) -> str:
    """'A better', 'B better' or 'no difference shown': the one-sided `criterion` applied to
    (A, B) and to (B, A), its p-values judged at `level` (its decisions when None)."""
    batch = Batch(np.stack([a, b]), np.stack([b, a]), paired=True)
    result = criterion(batch) if level is not None else criterion(batch, None)
    better = result.decisions(level if level is not None else 0.05)
    return "A better" if better[0] else "B better" if better[1] else "no difference shown"
