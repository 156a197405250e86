"""``compare``: is pipeline A better than B on your own paired runs?

The P(A>B) test of Bouthillier et al. (2021) with its percentile-bootstrap interval and
three-way conclusion, beside the single-point, average and one-sided t-test verdicts, and
Noether's number of runs for the chosen gamma. A tie counts one half in P(A>B).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from evalmc.criteria.outperform import (
    CONCLUSIONS,
    DELTA_PAPER,
    GAMMA,
    N_RESAMPLES,
    average_delta,
    bootstrap_pmf,
    outperform_test,
    single_point,
    t_oracle,
)
from evalmc.power import noether_sample_size
from evalmc.sims.base import Batch
from evalmc.sims.validation import check_float, check_int


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
        'A better', 'not significant' or 'not meaningful'.
    gamma, alpha : float
    resamples : int
    noether_n : int
        Pairs Noether's formula asks for to detect P(A>B) = gamma.
    sigma, delta : float
        Sd of one run's score and the single-point/average threshold, in score units.
    criteria : dict of str to str
        Each criterion's verdict on these runs.

    Examples
    --------
    >>> import evalmc
    >>> res = evalmc.compare([0.91, 0.93, 0.90, 0.94, 0.92], [0.90, 0.91, 0.91, 0.92, 0.90])
    >>> res.to_frame()[["criterion", "verdict"]]
             criterion          verdict
    0  prob-outperform  not significant
    1     single-point       not better
    2    average-delta       not better
    3         t-oracle       not better
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

    def to_dict(self) -> dict:
        """The fields as a dict (``evalmc compare --format json``)."""
        return asdict(self)

    def to_frame(self):
        """One row per criterion: its verdict, with the test's numbers on the P(A>B) row."""
        import pandas as pd

        frame = pd.DataFrame({"criterion": list(self.criteria),
                              "verdict": list(self.criteria.values())})
        for name in ("p_a_beats_b", "ci_low", "ci_high"):
            frame[name] = np.where(frame["criterion"] == "prob-outperform",
                                   getattr(self, name), np.nan)
        return frame

    def _repr_html_(self) -> str:
        head = (f"<p>P(A&gt;B) = {self.p_a_beats_b:.4f} over k = {self.k} pairs, "
                f"{1 - self.alpha:.0%} interval [{self.ci_low:.4f}, {self.ci_high:.4f}]: "
                f"<b>{self.conclusion}</b> (gamma = {self.gamma})</p>")
        return head + self.to_frame().to_html(index=False, na_rep="")

    def plot(self, ax=None):
        """The exact bootstrap distribution of P(A>B), its interval, 0.5 and gamma.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; default: a new Figure.

        Returns
        -------
        matplotlib.figure.Figure
            Not saved: call its ``savefig``.
        """
        from evalmc.plots import axes_or_new

        ax = axes_or_new(ax, figsize=(6, 3.5))
        k = self.k
        pmf = bootstrap_pmf([self.wins], [self.ties], k)[0]
        ax.bar(np.arange(2 * k + 1) / (2 * k), pmf, width=0.8 / (2 * k), color="C0")
        ax.axvspan(self.ci_low, self.ci_high, color="C0", alpha=0.15,
                   label=f"{1 - self.alpha:.0%} interval")
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
        1 - confidence of the interval, and the level of the one-sided t-test.
    beta : float
        False-negative rate for Noether's sample size.
    n_resamples : int
        Bootstrap resamples.
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
    'not better'
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
    sigma = check_float("sigma", sigma, low=0, open_low=True)
    seed = check_int("seed", seed, low=0)
    beta = check_float("beta", beta, low=0, high=1, open_low=True, open_high=True)
    wins, ties = int(np.sum(a > b)), int(np.sum(a == b))
    res = outperform_test([wins], [ties], k, gamma=gamma, alpha=alpha, n_resamples=n_resamples,
                          rng=np.random.default_rng(seed))
    batch = Batch(a[None, :], b[None, :], paired=True)
    verdicts = {
        "prob-outperform": CONCLUSIONS[int(res.conclusion[0])],
        "single-point": single_point(delta * sigma)(batch, None).reject[0],
        "average-delta": average_delta(delta * sigma)(batch, None).reject[0],
        "t-oracle": t_oracle(batch).decisions(alpha)[0],
    }
    return CompareResult(
        k=k, wins=wins, ties=ties, p_a_beats_b=float(res.p_a_beats_b[0]),
        ci_low=float(res.ci_low[0]), ci_high=float(res.ci_high[0]),
        conclusion=CONCLUSIONS[int(res.conclusion[0])], gamma=gamma, alpha=alpha,
        resamples=n_resamples, noether_n=noether_sample_size(gamma, alpha=alpha, beta=beta),
        sigma=sigma, delta=delta * sigma,
        criteria={name: v if isinstance(v, str) else ("A better" if v else "not better")
                  for name, v in verdicts.items()},
    )
