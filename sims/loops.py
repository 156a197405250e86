"""Research loops: K candidates tried in turn against a baseline, each kept or discarded.

A loop measures its baseline by `base_runs` runs and then each of `candidates` candidates by
`runs` runs. A run's score is its thing's true mean plus noise of sd `sd`, Gaussian or of the
shape `noise` names (:mod:`evalmc.sims.noise`: skewed, multimodal, or the user's own runs),
standardized (to give the user's runs their own sd, pass ``sd=RunNoise(noise).runs_sd``);
runs on the same seed (run j of the baseline and run j of every candidate) are
correlated `rho` (0: runs independent; above 0: paired by seed, a run's noise
``sd (sqrt(1 - rho) e + sqrt(rho) s_j)``, its own part e and its seed's s_j, drawn per loop,
both of the noise's shape: a non-Gaussian run's noise is then their sum, milder in shape).
Exactly ``round(share * candidates)`` candidates, at random places in the loop, have a real
gain `gain` over what they modify (their effect; with ``gain_sd`` > 0 each drawn from
``N(gain, gain_sd^2)``, and one drawn <= 0 counts as without a real effect); the others none
(effect 0).

What a candidate modifies is the `baseline` mode's: with ``'fixed'`` every candidate is a change
of the original baseline (true mean: its effect); with ``'replace'`` each kept candidate
becomes the baseline (a ratchet), and the next candidate changes it (true mean: the kept
candidates' effects so far plus its own). The batch holds each candidate's runs as they would
score under ``'fixed'``; a keep rule (:mod:`evalmc.criteria.gate`) adds the level of what it
kept. With ``rerun`` > 0 the loop then measures its final reported model again, by `rerun`
fresh runs on new seeds (held as their noise, ``rerun``): their mean is an estimate of its true
mean that its selection does not bias. Every run counts as spent:
``base_runs + candidates * runs + rerun`` per loop.

With ``looks`` L above 1 a rule may look at a candidate again before deciding: the batch holds
``L * runs`` runs of each candidate, a rule reads the first ``l * runs`` at its l-th look, and
a loop spends only the runs its rule read (the baseline's and the rerun's included).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from evalmc.inputs.checks import check_choice, check_float, check_int, check_sd
from evalmc.sims.base import Batch, Scenario, read_only
from evalmc.sims.noise import RunNoise

#: What a kept candidate does to the baseline.
MODES = ("fixed", "replace")


class LoopBatch(Batch):
    """A block of loops: ``cand`` (n_reps, K, r), each candidate's runs as scored against the
    original baseline, ``effects`` (n_reps, K), their true effects, ``rerun`` (n_reps, m), the
    noise of m fresh runs of the final model (none by default), the `mode` (``'fixed'`` or
    ``'replace'``) and the `looks` (r is ``looks`` times the runs of one look). As scores,
    ``a`` is ``cand`` flattened and ``b`` the baseline's runs."""

    holds = frozenset({"loop"})
    per_rep = ("cand", "effects", "rerun")
    shared = ("mode", "looks")

    def __init__(self, a=None, b=None, *, cand, effects, mode: str, rerun=None,
                 paired: bool = False, looks: int = 1, **kwargs):
        cand, effects = np.asarray(cand, dtype=float), np.asarray(effects, dtype=float)
        if cand.ndim != 3 or effects.shape != cand.shape[:2]:
            raise ValueError("`cand` must have shape (n_reps, K, r) and `effects` (n_reps, K); "
                             f"got {cand.shape} and {effects.shape}.")
        if a is None and kwargs.get("fill") is None:
            a = cand.reshape(cand.shape[0], -1)
        super().__init__(a, b, paired=paired, **kwargs)
        self.cand, self.effects = read_only(cand), read_only(effects)
        self.rerun = read_only(np.zeros((cand.shape[0], 0)) if rerun is None
                               else np.asarray(rerun, dtype=float))
        self.mode = check_choice("mode", mode, MODES)
        self.looks = check_int("looks", looks, low=1)
        if cand.shape[2] % self.looks:
            raise ValueError(f"`cand` holds {cand.shape[2]} runs per candidate: not a multiple "
                             f"of `looks` {self.looks}.")

    @property
    def n_reps(self) -> int:
        """Loops: rows of :attr:`cand`."""
        return self.cand.shape[0]


@dataclass(frozen=True)
class Loop(Scenario, registered="loop"):
    """K candidates tried in turn against a baseline (the module docstring). Parameters: the
    ``'loop'`` row of :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.loops import Loop
    >>> scenario = Loop(candidates=5, runs=3, share=0.4)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.cand.shape, batch.b.shape, scenario.truth, scenario.real, scenario.spent
    ((2, 5, 3), (2, 2), 'alternative', 2, 17)
    >>> batch.effects.tolist()
    [[0.0, 1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 1.0]]
    """

    batch: ClassVar[type] = LoopBatch
    run_noise: RunNoise = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "candidates", check_int("candidates", self.candidates, low=1))
        object.__setattr__(self, "runs", check_int("runs", self.runs, low=1))
        object.__setattr__(self, "base_runs", check_int("base_runs", self.base_runs, low=1))
        check_float("share", self.share, low=0, high=1)
        check_float("gain", self.gain)
        check_float("gain_sd", self.gain_sd, low=0)
        check_sd("sd", self.sd)
        check_float("rho", self.rho, low=0, high=1, open_high=True)
        check_choice("baseline", self.baseline, MODES)
        object.__setattr__(self, "rerun", check_int("rerun", self.rerun, low=0))
        object.__setattr__(self, "looks", check_int("looks", self.looks, low=1))
        object.__setattr__(self, "run_noise", RunNoise(self.noise))

    def fingerprint(self) -> str:
        """The parameters' fingerprint, plus the noise's (its file's scores)."""
        return f"{super().fingerprint()}|noise={self.run_noise.fingerprint()}"

    @property
    def real(self) -> int:
        """Candidates with a real effect per loop: ``round(share * candidates)``."""
        return int(round(self.share * self.candidates))

    @property
    def spent(self) -> int:
        """Runs a loop spends when its rule looks once: the baseline's, every candidate's and
        the rerun's."""
        return self.base_runs + self.candidates * self.runs + self.rerun

    @property
    def truth(self) -> str:
        """``'null'`` when no candidate has a real effect, else ``'alternative'``."""
        return ("null" if self.real == 0 or (self.gain == 0 and self.gain_sd == 0)
                else "alternative")

    def draw(self, rng, n_reps):
        """Draw `n_reps` loops (a :class:`LoopBatch`)."""
        k, r, z = self.candidates, self.runs * self.looks, self.run_noise.draw
        own = np.sqrt(1.0 - self.rho) * self.sd
        base = own * z(rng, (n_reps, self.base_runs))
        cand = own * z(rng, (n_reps, k, r))
        if self.rho > 0:
            seeds = np.sqrt(self.rho) * self.sd * z(rng, (n_reps, max(r, self.base_runs)))
            base = base + seeds[:, :self.base_runs]
            cand = cand + seeds[:, None, :r]
        effects = np.zeros((n_reps, k))
        if 0 < self.real:
            places = rng.random((n_reps, k)).argsort(axis=1).argsort(axis=1) < self.real
            gains = float(self.gain)
            if self.gain_sd > 0:
                gains = gains + self.gain_sd * rng.standard_normal((n_reps, k))
            effects = np.where(places, gains, 0.0)
        rerun = None  # drawn last: the loops are those drawn without it
        if self.rerun:
            rerun = own * z(rng, (n_reps, self.rerun))
            if self.rho > 0:  # on new seeds: their shared part is fresh too
                rerun = rerun + np.sqrt(self.rho) * self.sd * z(rng, (n_reps, self.rerun))
        return LoopBatch(b=base, cand=cand + effects[:, :, None], effects=effects,
                         rerun=rerun, mode=self.baseline, looks=self.looks)
