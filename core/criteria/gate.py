"""Keep rules of a research loop: each decides, candidate by candidate, to keep or discard,
vectorized over loops (the ``loop`` scenario, :mod:`evalmc.sims.loops`).

A candidate's score is the mean of its runs. The rules:

- ``noise-floor``: keep c when ``c - ref >= k |b1 - b2|``, the spread of the baseline's first
  two runs fixed for the loop, ``ref`` the baseline's first run b1 (with ``baseline='replace'``,
  the last kept candidate's score);
- ``ratchet``: keep c when it exceeds the best so far, starting from b1;
- ``t``: a one-sided t-test of the candidate's runs against the baseline's (the last kept
  candidate's with ``'replace'``) at `alpha`: Welch's, or paired by seed (``test='paired'``,
  the runs of both paired in order: ``runs == base_runs``);
- ``bonferroni``: the same at ``alpha / K``;
- ``holm``: Holm's step-down over the K one-sided p-values against the fixed baseline (all are
  known only at the end of the loop, so not with ``'replace'``).

Each loop reports a final score: with ``'replace'`` the last kept candidate's, with ``'fixed'``
the best kept one's; the baseline's (b1 for the first two rules, the mean of its runs for the
t rules) when nothing is kept. As a criterion, a rule rejects "no candidate is better" on a
loop where it keeps any: on a loop of null candidates its rate is P(any false keep).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.ranks import holm
from evalmc.inputs.checks import check_choice, check_float

METHODS = ("noise-floor", "ratchet", "t", "bonferroni", "holm")
TESTS = ("welch", "paired")


@dataclass(frozen=True)
class Kept:
    """A rule's decisions on a block of loops: ``kept[r, j]`` when loop r kept candidate j;
    the final reported ``score`` of each loop and its true mean ``truth``."""

    kept: np.ndarray
    score: np.ndarray
    truth: np.ndarray


@dataclass(frozen=True)
class KeepRule:
    """A keep rule (the module docstring): :meth:`keeps` gives its :class:`Kept`, and calling it
    gives a :class:`~evalmc.criteria.base.CriterionResult` whose decision is "kept any"."""

    method: str
    k: float = 2.0
    alpha: float = 0.05
    test: str = "welch"

    def __call__(self, batch, rng=None) -> CriterionResult:
        kept = self.keeps(batch).kept
        n = kept.shape[0]
        return CriterionResult(np.zeros(n, dtype=bool), pvalue=np.full(n, np.nan),
                               reject=kept.any(axis=1))

    def check(self, runs: int, base_runs: int, mode: str) -> None:
        """Raise ValueError unless the rule can run on loops of this design."""
        if self.method == "noise-floor" and base_runs < 2:
            raise ValueError("the noise-floor rule needs `base_runs` >= 2 (the spread of two "
                             f"baseline runs); got {base_runs}.")
        if self.method in ("t", "bonferroni", "holm"):
            if self.test == "paired" and runs != base_runs:
                raise ValueError("a paired t rule pairs the candidate's runs with the "
                                 f"baseline's: `runs` must equal `base_runs`; got {runs} and "
                                 f"{base_runs}.")
            if min(runs, base_runs) < 2:
                raise ValueError("a t rule needs `runs` >= 2 and `base_runs` >= 2; got "
                                 f"{runs} and {base_runs}.")
        if self.method == "holm" and mode == "replace":
            raise ValueError("the holm rule adjusts the K p-values against one baseline at the "
                             "end of the loop: it needs `baseline='fixed'`; got 'replace'.")

    def keeps(self, batch) -> Kept:
        """The decisions and the final report of every loop of `batch` (a ``LoopBatch``)."""
        cand, effects, base = batch.cand, batch.effects, np.asarray(batch.b, dtype=float)
        n, k, r = cand.shape
        self.check(r, base.shape[1], batch.mode)
        if self.method == "holm":
            p = _pvalues(cand, base[:, None, :], self.test)
            kept = holm(p) <= self.alpha
            score, truth = _best_kept(kept, cand.mean(axis=2), effects, base.mean(axis=1))
            return Kept(kept, score, truth)
        replace = batch.mode == "replace"
        kept = np.zeros((n, k), dtype=bool)
        level = np.zeros(n)  # the true mean of what the candidates change
        threshold = self.alpha / k if self.method == "bonferroni" else self.alpha
        floor = self.method in ("noise-floor", "ratchet")
        ref_runs = base
        ref = base[:, 0] if floor else base.mean(axis=1)
        spread = np.abs(base[:, 0] - base[:, 1]) if self.method == "noise-floor" else None
        best, best_truth, any_kept = ref.copy(), np.zeros(n), np.zeros(n, dtype=bool)
        for j in range(k):
            runs = level[:, None] + cand[:, j]
            score = runs.mean(axis=1)
            if self.method == "noise-floor":
                keep = score - ref >= self.k * spread
            elif self.method == "ratchet":
                keep = score > best
            else:
                keep = _pvalues(runs[:, None], ref_runs[:, None], self.test)[:, 0] < threshold
            kept[:, j] = keep
            truth = level + effects[:, j]
            report = keep if replace else keep & (~any_kept | (score > best))
            best, best_truth = np.where(report, score, best), np.where(report, truth, best_truth)
            any_kept |= keep
            if replace:
                ref, level = np.where(keep, score, ref), np.where(keep, truth, level)
                if not floor:
                    ref_runs = np.where(keep[:, None], runs, ref_runs)
        return Kept(kept, best, best_truth)


def _pvalues(cand, base, test: str) -> np.ndarray:
    """One-sided p-values of "the candidate scores higher" along the last axis: Welch's t, or
    the paired t of ``cand - base``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if test == "paired":
            d = cand - base
            m = d.shape[-1]
            t = d.mean(axis=-1) / np.sqrt(d.var(axis=-1, ddof=1) / m)
            return special.stdtr(m - 1, -t)
        na, nb = cand.shape[-1], base.shape[-1]
        va, vb = cand.var(axis=-1, ddof=1) / na, base.var(axis=-1, ddof=1) / nb
        t = (cand.mean(axis=-1) - base.mean(axis=-1)) / np.sqrt(va + vb)
        df = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
        return special.stdtr(df, -t)


def _best_kept(kept, scores, effects, fallback):
    """The best kept candidate's score and true mean per loop; `fallback` and 0 when none."""
    masked = np.where(kept, scores, -np.inf)
    best = masked.argmax(axis=1)
    rows = np.arange(kept.shape[0])
    some = kept.any(axis=1)
    return (np.where(some, scores[rows, best], fallback),
            np.where(some, effects[rows, best], 0.0))


def _check_test(alpha, test):
    check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    check_choice("test", test, TESTS)


def noise_floor(k=2.0) -> KeepRule:
    """The noise-floor rule: keep c when ``c - b1 >= k |b1 - b2|`` (module docstring).

    Parameters
    ----------
    k : float
        Multiple of the baseline's spread a gain must reach (>= 0).

    Returns
    -------
    KeepRule

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.gate import noise_floor
    >>> from evalmc.sims.loops import Loop
    >>> batch = Loop(candidates=50).draw(np.random.default_rng(0), 4)
    >>> noise_floor().keeps(batch).kept.sum(axis=1).tolist()
    [14, 3, 3, 0]
    """
    check_float("k", k, low=0)
    return KeepRule("noise-floor", k=float(k))


#: The ratchet: keep c when it beats the best so far, starting from b1 (module docstring).
RATCHET = KeepRule("ratchet")


def t_rule(alpha=0.05, test="welch") -> KeepRule:
    """A one-sided t-test of each candidate against the baseline at `alpha` (module docstring).

    Parameters
    ----------
    alpha : float
        Level of each candidate's test, in (0, 1).
    test : {'welch', 'paired'}
        Welch's t, or the paired t (runs paired by seed).

    Returns
    -------
    KeepRule

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.gate import t_rule
    >>> from evalmc.sims.loops import Loop
    >>> batch = Loop(candidates=20, runs=5, base_runs=5).draw(np.random.default_rng(0), 4)
    >>> t_rule().keeps(batch).kept.sum(axis=1).tolist()
    [1, 0, 2, 0]
    """
    _check_test(alpha, test)
    return KeepRule("t", alpha=float(alpha), test=test)


def bonferroni(alpha=0.05, test="welch") -> KeepRule:
    """A one-sided t-test of each candidate at ``alpha / K`` (module docstring).

    Parameters
    ----------
    alpha : float
        Familywise level over the loop's K candidates, in (0, 1).
    test : {'welch', 'paired'}
        Welch's t, or the paired t (runs paired by seed).

    Returns
    -------
    KeepRule

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.gate import bonferroni
    >>> from evalmc.sims.loops import Loop
    >>> loop = Loop(candidates=20, runs=5, base_runs=5, share=0.1, gain=3.0)
    >>> batch = loop.draw(np.random.default_rng(0), 4)
    >>> bonferroni().keeps(batch).kept.sum(axis=1).tolist(), batch.effects.sum(axis=1).tolist()
    ([2, 1, 2, 1], [6.0, 6.0, 6.0, 6.0])
    """
    _check_test(alpha, test)
    return KeepRule("bonferroni", alpha=float(alpha), test=test)


def holm_rule(alpha=0.05, test="welch") -> KeepRule:
    """Holm's step-down over the K candidates' one-sided p-values (module docstring).

    Parameters
    ----------
    alpha : float
        Familywise level over the loop's K candidates, in (0, 1).
    test : {'welch', 'paired'}
        Welch's t, or the paired t (runs paired by seed).

    Returns
    -------
    KeepRule

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.gate import holm_rule
    >>> from evalmc.sims.loops import Loop
    >>> loop = Loop(candidates=20, runs=5, base_runs=5, share=0.1, gain=3.0)
    >>> batch = loop.draw(np.random.default_rng(0), 4)
    >>> holm_rule().keeps(batch).kept.sum(axis=1).tolist(), batch.effects.sum(axis=1).tolist()
    ([2, 1, 2, 1], [6.0, 6.0, 6.0, 6.0])
    """
    _check_test(alpha, test)
    return KeepRule("holm", alpha=float(alpha), test=test)
