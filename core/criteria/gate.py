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
  known only at the end of the loop, so not with ``'replace'``);
- ``spending``: a group-sequential one-sided z-test over the looks, its boundaries spending
  the level by a Lan-DeMets function (:mod:`evalmc.criteria.sequential`);
- ``anytime``: the normal-mixture e-process of the candidate's gain (Robbins 1970; Howard et
  al. 2021), kept once it reaches ``1 / alpha``: valid at any stopping time (Ville).

With ``looks`` above 1 (:mod:`evalmc.sims.loops`) a rule may look at a candidate again, `runs`
more runs each time: the t rules, ``spending`` and ``anytime`` keep at a look where their test
holds, look again while the candidate's mean beats the reference's, and otherwise discard (at
the last look, too); ``noise-floor`` and ``ratchet`` decide at the first look, and ``holm``
needs one look. A plain t that looks again is the classic peeking: each look is a new chance
of a false keep. ``spending`` and ``anytime`` compare the z statistic ``(c - ref) / (sd
sqrt(1/n + 1/m))`` of the candidate's n runs and the reference's m: with a known `sd`, or
(``sd=None``) the pooled sd of both, its t statistic read on the z scale by its p-value (then
their levels hold only approximately). Their `adjust` divides alpha by K (``'bonferroni'``:
the loop's P(any false keep) at most alpha) or not (``'none'``: per candidate).

A user's rule (:func:`user_rule`) answers, per loop, keep, discard or look again.

Each loop reports a final score: with ``'replace'`` the last kept candidate's, with ``'fixed'``
the best kept one's; the baseline's (b1 for the first two rules, the mean of its runs for the
others) when nothing is kept; and the runs it spent, the baseline's included. As a criterion,
a rule rejects "no candidate is better" on a loop where it keeps any: on a loop of null
candidates its rate is P(any false keep).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

from evalmc.criteria.base import CriterionResult
from evalmc.criteria.ranks import holm
from evalmc.criteria.sequential import SPENDING, log_mixture_evalue, spending_bounds
from evalmc.inputs.checks import check_choice, check_float

METHODS = ("noise-floor", "ratchet", "t", "bonferroni", "holm", "spending", "anytime")
TESTS = ("welch", "paired")
ADJUST = ("bonferroni", "none")
#: A rule's answer at a look: keep the candidate, discard it, or look again (`runs` more runs).
KEEP, DISCARD, LOOK = 1, 0, -1
#: What a user's rule may receive, by the names of its parameters (:func:`user_rule`).
ARGUMENTS = ("candidate", "baseline", "reference", "replaced", "kept", "look", "looks")
#: What a loop with a user's rule reports when it keeps nothing: the baseline's mean or b1.
REPORTS = ("mean", "first")
CONTRACT = ("a keep rule takes some of (candidate, baseline, reference, replaced, kept, look, "
            "looks), arrays with a row per loop still deciding, and returns one answer per row: "
            "True/1 keep, False/0 discard, -1 look again")


@dataclass(frozen=True)
class Kept:
    """A rule's decisions on a block of loops: ``kept[r, j]`` when loop r kept candidate j;
    the final reported ``score`` of each loop, its true mean ``truth``, and the ``runs`` each
    loop spent (the baseline's included)."""

    kept: np.ndarray
    score: np.ndarray
    truth: np.ndarray
    runs: np.ndarray


@dataclass(frozen=True)
class _Look:
    """What a rule sees at one look, a row per loop still deciding: the public
    :data:`ARGUMENTS`, and the loop's state the built-in rules read (``best``, ``ref_score``,
    ``ref_n``, the reference's runs in ``reference[:, :ref_n]``)."""

    candidate: np.ndarray
    baseline: np.ndarray
    reference: np.ndarray
    replaced: np.ndarray
    kept: np.ndarray
    look: int
    looks: int
    best: np.ndarray
    ref_score: np.ndarray
    ref_n: np.ndarray


class _Decider:
    """The loop every rule shares (:func:`_drive`): ``start`` gives the score reported when
    nothing is kept, ``decide`` the answers at a look, ``check`` refuses a design."""

    def check(self, runs: int, base_runs: int, mode: str, looks: int = 1) -> None:
        """Raise ValueError unless the rule can run on loops of this design."""

    def start(self, base: np.ndarray) -> np.ndarray:
        """The score a loop reports when it keeps nothing: the mean of the baseline's runs."""
        return base.mean(axis=1)

    def __call__(self, batch, rng=None) -> CriterionResult:
        kept = self.keeps(batch).kept
        n = kept.shape[0]
        return CriterionResult(np.zeros(n, dtype=bool), pvalue=np.full(n, np.nan),
                               reject=kept.any(axis=1))

    def keeps(self, batch) -> Kept:
        """The decisions, the final report and the runs spent of every loop of `batch` (a
        ``LoopBatch``)."""
        cand = batch.cand
        self.check(cand.shape[2] // batch.looks, batch.b.shape[1], batch.mode, batch.looks)
        return _drive(batch, self)


@dataclass(frozen=True)
class KeepRule(_Decider):
    """A keep rule (the module docstring): :meth:`keeps` gives its :class:`Kept`, and calling it
    gives a :class:`~evalmc.criteria.base.CriterionResult` whose decision is "kept any"."""

    method: str
    k: float = 2.0
    alpha: float = 0.05
    test: str = "welch"
    spending: str = "obf"
    adjust: str = "bonferroni"
    sd: float | None = None
    tau: float = 1.0

    def check(self, runs: int, base_runs: int, mode: str, looks: int = 1) -> None:
        """Raise ValueError unless the rule can run on loops of this design."""
        if self.method == "noise-floor" and base_runs < 2:
            raise ValueError("the noise-floor rule needs `base_runs` >= 2 (the spread of two "
                             f"baseline runs); got {base_runs}.")
        if self.method in ("t", "bonferroni", "holm") or (
                self.method in ("spending", "anytime") and self.sd is None):
            if self.test == "paired" and runs != base_runs:
                raise ValueError("a paired t rule pairs the candidate's runs with the "
                                 f"baseline's: `runs` must equal `base_runs`; got {runs} and "
                                 f"{base_runs}.")
            if min(runs, base_runs) < 2:
                what = "a rule with a plug-in sd" if self.sd is None and self.method in (
                    "spending", "anytime") else "a t rule"
                raise ValueError(f"{what} needs `runs` >= 2 and `base_runs` >= 2; got {runs} "
                                 f"and {base_runs}.")
        if self.method == "holm" and mode == "replace":
            raise ValueError("the holm rule adjusts the K p-values against one baseline at the "
                             "end of the loop: it needs `baseline='fixed'`; got 'replace'.")
        if looks > 1 and self.method == "holm":
            raise ValueError("the holm rule decides once, at the end of the loop: it needs "
                             f"`looks` = 1; got {looks}.")
        if looks > 1 and self.test == "paired":
            raise ValueError("a paired rule pairs each candidate run with a baseline run: it "
                             f"needs `looks` = 1; got {looks}.")

    def start(self, base: np.ndarray) -> np.ndarray:
        """The score a loop reports when it keeps nothing: b1 for the noise-floor and ratchet
        rules, the mean of the baseline's runs for the others."""
        return base[:, 0] if self.method in ("noise-floor", "ratchet") else base.mean(axis=1)

    def keeps(self, batch) -> Kept:
        """The decisions, the final report and the runs spent of every loop of `batch` (a
        ``LoopBatch``)."""
        if self.method != "holm":
            return super().keeps(batch)
        cand, effects, base = batch.cand, batch.effects, np.asarray(batch.b, dtype=float)
        n, k, r = cand.shape
        self.check(r, base.shape[1], batch.mode, batch.looks)
        p = _pvalues(cand, base[:, None, :], self.test)
        kept = holm(p) <= self.alpha
        score, truth = _best_kept(kept, cand.mean(axis=2), effects, base.mean(axis=1))
        return Kept(kept, score, truth, np.full(n, float(base.shape[1] + k * r)))

    def decide(self, look: _Look, candidates: int) -> np.ndarray:
        """The answers (:data:`KEEP`, :data:`DISCARD`, :data:`LOOK`) at one look."""
        score = look.candidate.mean(axis=1)
        if self.method == "noise-floor":
            spread = np.abs(look.baseline[:, 0] - look.baseline[:, 1])
            return np.where(score - look.ref_score >= self.k * spread, KEEP, DISCARD)
        if self.method == "ratchet":
            return np.where(score > look.best, KEEP, DISCARD)
        alpha = self.alpha / candidates if self.method == "bonferroni" or (
            self.method in ("spending", "anytime") and self.adjust == "bonferroni") else self.alpha
        if self.method in ("t", "bonferroni"):
            keep = _by_count(look, lambda c, ref: _pvalues(c[:, None], ref[:, None],
                                                             self.test)[:, 0]) < alpha
        else:
            z, info = _by_count(look, lambda c, ref: self._z(c, ref)), _info(look)
            if self.method == "anytime":
                keep = (z > 0) & (log_mixture_evalue(z, info, self.tau) >= -np.log(alpha))
            else:
                keep = z >= _spending_bound(look, alpha, self.spending)
        ahead = score > _by_count(look, lambda c, ref: ref.mean(axis=1))
        return np.where(keep, KEEP, np.where(ahead, LOOK, DISCARD))

    def _z(self, c: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """The z statistic of ``mean(c) - mean(ref)``: known `sd`, or the pooled t read on the
        z scale by its one-sided p-value."""
        n, m = c.shape[1], ref.shape[1]
        diff = c.mean(axis=1) - ref.mean(axis=1)
        if self.sd is not None:
            return diff / (self.sd * np.sqrt(1.0 / n + 1.0 / m))
        pooled = ((n - 1) * c.var(axis=1, ddof=1) + (m - 1) * ref.var(axis=1, ddof=1)) / (n + m - 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            t = diff / np.sqrt(pooled * (1.0 / n + 1.0 / m))
        return stats.norm.isf(special.stdtr(n + m - 2, -t))


def _by_count(look: _Look, f) -> np.ndarray:
    """``f(candidate, reference)`` row by row, each group of loops whose reference holds the
    same number of runs given exactly those runs."""
    out = np.empty(look.candidate.shape[0])
    for m in np.unique(look.ref_n):
        rows = look.ref_n == m
        out[rows] = f(look.candidate[rows], look.reference[rows, :m])
    return out


def _info(look: _Look) -> np.ndarray:
    """The information of each loop's z statistic, per sd^2: ``1 / (1/n + 1/m)``."""
    return 1.0 / (1.0 / look.candidate.shape[1] + 1.0 / look.ref_n)


def _spending_bound(look: _Look, alpha: float, spending: str) -> np.ndarray:
    """Each loop's boundary at this look: information fractions from its runs per look and
    its reference's runs (the last look's information is the whole)."""
    step = look.candidate.shape[1] // look.look
    out = np.empty(look.candidate.shape[0])
    for m in np.unique(look.ref_n):
        ls = np.arange(1, look.looks + 1)
        info = 1.0 / (1.0 / (step * ls) + 1.0 / m)
        out[look.ref_n == m] = spending_bounds(alpha, info / info[-1], spending)[look.look - 1]
    return out


def _drive(batch, rule) -> Kept:
    """Run `rule` over every loop of `batch`, candidate by candidate and look by look: each
    look reads the candidate's first ``look * runs`` runs (plus the level of what the loop kept,
    with ``'replace'``); a kept candidate becomes the reference with ``'replace'``."""
    cand, effects, base = batch.cand, batch.effects, np.asarray(batch.b, dtype=float)
    n, k, width = cand.shape
    looks, m = batch.looks, base.shape[1]
    step = width // looks
    replace = batch.mode == "replace"
    kept = np.zeros((n, k), dtype=bool)
    level = np.zeros(n)  # the true mean of what the candidates change
    reference = np.full((n, max(m, width)), np.nan)
    reference[:, :m] = base
    ref_n, replaced = np.full(n, m), np.zeros(n, dtype=bool)
    best = np.array(rule.start(base), dtype=float)  # a copy: `base` is read-only
    ref_score, best_truth = best.copy(), np.zeros(n)
    any_kept, spent = np.zeros(n, dtype=bool), np.full(n, float(m))
    for j in range(k):
        rows = np.arange(n)
        for look in range(1, looks + 1):
            at = slice(None) if look == 1 else rows  # every loop looks once: views, no copies
            runs = level[at, None] + cand[at, j, :look * step]
            view = _Look(runs, base[at], reference[at], replaced[at], kept[at, :j], look, looks,
                         best[at], ref_score[at], ref_n[at])
            answer = rule.decide(view, k)
            spent[at] += step
            done = (answer != LOOK) | (look == looks)
            fin, keep, runs = rows[done], answer[done] == KEEP, runs[done]
            score, truth = runs.mean(axis=1), level[fin] + effects[fin, j]
            kept[fin, j] = keep
            report = keep if replace else keep & (~any_kept[fin] | (score > best[fin]))
            best[fin] = np.where(report, score, best[fin])
            best_truth[fin] = np.where(report, truth, best_truth[fin])
            any_kept[fin] |= keep
            if replace:
                new = fin[keep]
                ref_score[new], level[new] = score[keep], truth[keep]
                reference[new] = np.nan
                reference[new, :runs.shape[1]] = runs[keep]
                ref_n[new], replaced[new] = runs.shape[1], True
            rows = rows[~done]
            if rows.size == 0:
                break
    return Kept(kept, best, best_truth, spent)


@dataclass(frozen=True)
class UserKeepRule(_Decider):
    """A user's keep rule (:func:`user_rule`): `func` called at each look on the loops still
    deciding, with the :data:`ARGUMENTS` its parameters name."""

    func: object
    name: str
    wants: tuple = field(init=False)
    report: str = field(init=False)

    def __post_init__(self):
        try:
            params = inspect.signature(self.func).parameters
        except (TypeError, ValueError):
            raise ValueError(f"keep rule {self.name!r} has no signature to read: "
                             f"{CONTRACT}.") from None
        unknown = [p.name for p in params.values() if p.name not in ARGUMENTS
                   and p.default is p.empty and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
        if unknown:
            raise ValueError(f"keep rule {self.name!r} has parameters {unknown} it cannot be "
                             f"given: {CONTRACT}.")
        object.__setattr__(self, "wants", tuple(a for a in ARGUMENTS if a in params))
        report = params["report"].default if "report" in params else "mean"
        if report not in REPORTS:
            raise ValueError(f"keep rule {self.name!r}: the default of `report` must be one of "
                             f"{', '.join(map(repr, REPORTS))}; got {report!r}.")
        object.__setattr__(self, "report", report)

    def start(self, base: np.ndarray) -> np.ndarray:
        """The score a loop reports when it keeps nothing: the mean of the baseline's runs, or
        its first run when the rule's ``report`` parameter defaults to ``'first'``."""
        return base[:, 0] if self.report == "first" else base.mean(axis=1)

    @property
    def key(self) -> str:
        """Its cache key: its name and a digest of the pickled function."""
        import hashlib

        import cloudpickle

        digest = hashlib.blake2b(cloudpickle.dumps(self.func), digest_size=8).hexdigest()
        return f"keep-user:{self.name}:{digest}"

    @property
    def test(self):
        """Itself, as a registered criterion's ``test`` is its rule."""
        return self

    def check_batch(self, batch) -> None:
        """Raise ValueError unless `batch` is a block of loops."""
        if "loop" not in batch.holds:
            raise ValueError(f"keep rule {self.name!r} needs loop; this batch holds "
                             f"{', '.join(sorted(batch.holds))}.")

    def check_scenario(self, condition) -> None:
        """Raise ValueError unless `condition` draws loops."""
        if "loop" not in condition.batch.holds:
            raise ValueError(f"keep rule {self.name!r} needs loop; scenario "
                             f"{condition.name!r} yields {', '.join(condition.batch.holds)}.")

    def decide(self, look: _Look, candidates: int) -> np.ndarray:
        """The user's answers at one look, checked against the contract."""
        args = {}
        for a in self.wants:
            value = np.array(getattr(look, a)) if a not in ("look", "looks") else getattr(look, a)
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
            args[a] = value
        try:
            answer = self.func(**args)
        except Exception as err:  # noqa: BLE001 - named with the contract below
            raise ValueError(f"keep rule {self.name!r} raised {type(err).__name__}: {err}; "
                             f"{CONTRACT}.") from None
        answer = np.asarray(answer)
        rows = look.candidate.shape[0]
        if answer.shape != (rows,):
            raise ValueError(f"keep rule {self.name!r} returned an array of shape "
                             f"{answer.shape} for {rows} loops: {CONTRACT}.")
        if not (answer.dtype == bool or (np.issubdtype(answer.dtype, np.number)
                                         and np.isin(answer, (-1, 0, 1)).all())):
            raise ValueError(f"keep rule {self.name!r} returned values "
                             f"{np.unique(answer.astype(str))[:4].tolist()} ({answer.dtype}): "
                             f"{CONTRACT}.")
        return answer.astype(int)


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


def _check_sequential(alpha, adjust, sd):
    check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    check_choice("adjust", adjust, ADJUST)
    if sd is not None:
        check_float("sd", sd, low=0, open_low=True)


def spending_rule(alpha=0.05, spending="obf", adjust="bonferroni", sd=None) -> KeepRule:
    """A group-sequential one-sided z-test of each candidate over its looks, the level spent by
    a Lan-DeMets function (module docstring; :func:`~evalmc.criteria.sequential.spending_bounds`).

    Parameters
    ----------
    alpha : float
        Level, in (0, 1): of the loop (``adjust='bonferroni'``: alpha / K per candidate) or of
        each candidate (``'none'``).
    spending : {'obf', 'pocock'}
        O'Brien-Fleming-type or Pocock-type spending function.
    adjust : {'bonferroni', 'none'}
        Bonferroni over the K candidates, or none.
    sd : float, optional
        The runs' known sd; by default the pooled sd of the candidate's and the reference's
        runs (the level then holds approximately).

    Returns
    -------
    KeepRule

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.gate import spending_rule
    >>> from evalmc.sims.loops import Loop
    >>> loop = Loop(candidates=10, runs=2, base_runs=8, looks=4, share=0.2, gain=2.0)
    >>> out = spending_rule(sd=1.0).keeps(loop.draw(np.random.default_rng(0), 4))
    >>> out.kept.sum(axis=1).tolist(), out.runs.tolist()
    ([2, 4, 2, 2], [46.0, 78.0, 52.0, 58.0])
    """
    _check_sequential(alpha, adjust, sd)
    check_choice("spending", spending, SPENDING)
    return KeepRule("spending", alpha=float(alpha), spending=spending, adjust=adjust,
                    sd=None if sd is None else float(sd))


def anytime_rule(alpha=0.05, adjust="bonferroni", sd=None, tau=1.0) -> KeepRule:
    """Keep a candidate once its normal-mixture e-value reaches ``1 / alpha`` (Robbins 1970;
    the normal-mixture boundary of Howard, Ramdas, McAuliffe and Sekhon 2021): by Ville's
    inequality a null candidate is kept with probability at most alpha however the rule stops
    looking (module docstring; :mod:`evalmc.criteria.sequential`).

    Parameters
    ----------
    alpha : float
        Level, in (0, 1): of the loop (``adjust='bonferroni'``: alpha / K per candidate) or of
        each candidate (``'none'``).
    adjust : {'bonferroni', 'none'}
        Bonferroni over the K candidates, or none.
    sd : float, optional
        The runs' known sd (the guarantee is exact); by default the pooled sd of the
        candidate's and the reference's runs (approximate).
    tau : float
        sd of the N(0, tau^2) mixture over the gain, in units of the runs' sd (> 0): the gain
        the e-value is most sensitive to.

    Returns
    -------
    KeepRule

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.gate import anytime_rule
    >>> from evalmc.sims.loops import Loop
    >>> loop = Loop(candidates=10, runs=2, base_runs=8, looks=4, share=0.2, gain=2.0)
    >>> out = anytime_rule(sd=1.0).keeps(loop.draw(np.random.default_rng(0), 4))
    >>> out.kept.sum(axis=1).tolist(), out.runs.tolist()
    ([1, 2, 0, 2], [52.0, 82.0, 60.0, 60.0])
    """
    _check_sequential(alpha, adjust, sd)
    check_float("tau", tau, low=0, open_low=True)
    return KeepRule("anytime", alpha=float(alpha), adjust=adjust,
                    sd=None if sd is None else float(sd), tau=float(tau))


def user_rule(rule, name=None) -> UserKeepRule:
    """A user's keep rule, from a callable or ``'path/to/file.py:function'``.

    At each look, the rule is called once on the loops still deciding on the current
    candidate, with the arguments its parameters name (any of :data:`ARGUMENTS`; read-only):

    - ``candidate``: (rows, r) the candidate's runs so far (r = look x runs), plus the level of
      what the loop kept when ``baseline='replace'``;
    - ``baseline``: (rows, base_runs) the baseline's runs;
    - ``reference``: (rows, w) the runs of what the candidate is measured against, the baseline
      or (``'replace'``) the last kept candidate, padded with NaN on the right;
    - ``replaced``: (rows,) True where the reference is a kept candidate;
    - ``kept``: (rows, j) what the loop kept among the candidates before this one;
    - ``look``, ``looks``: this look (1, 2, ...) and the most there are.

    It returns one answer per row: True or 1 keep, False or 0 discard, -1 look again (`runs`
    more runs; at the last look it means discard). A loop that keeps nothing reports the mean
    of the baseline's runs, or its first run if the rule has a parameter ``report='first'``
    (its default is read, never passed).

    Parameters
    ----------
    rule : callable or str
        The function, or ``'path/to/file.py:function'``.
    name : str, optional
        Its name in the results; by default the spec, or the function's name.

    Returns
    -------
    UserKeepRule
        A ValueError naming the rule and the contract if its parameters cannot be given, or,
        when it runs, if it raises or returns anything else.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.gate import user_rule
    >>> from evalmc.sims.loops import Loop
    >>> def beats_by_one(candidate, reference):
    ...     return candidate.mean(axis=1) - np.nanmean(reference, axis=1) > 1.0
    >>> batch = Loop(candidates=20, base_runs=3).draw(np.random.default_rng(0), 4)
    >>> user_rule(beats_by_one).keeps(batch).kept.sum(axis=1).tolist()
    [1, 7, 2, 9]
    """
    if isinstance(rule, str):
        from evalmc.criteria import load_function

        return UserKeepRule(load_function(rule, "keep rule"), name or rule)
    if not callable(rule):
        raise ValueError(f"a keep rule must be a callable or 'file.py:function'; got {rule!r}.")
    return UserKeepRule(rule, name or getattr(rule, "__name__", repr(rule)))
