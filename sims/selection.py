"""Scores a researcher chose after looking at them: the best of several variants, or the
experiment re-run until a t-test was significant.

Both draw Gaussian run scores of a model A and a baseline B, as :class:`~evalmc.sims.scores.Normal`
does, and then select what gets reported the way a researcher might. Any criterion run on their
batches measures its size and power *after* that selection: the inflation a teacher shows as
"data snooping", "re-running until significant" or the winner's curse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy import special

from evalmc.inputs.checks import check_choice, check_float, check_int, check_sd
from evalmc.sims.base import Batch, Scenario
from evalmc.sims.scores import _ShiftTruth

#: How :class:`BestOfN` measures the chosen variant: on the runs it was chosen by, or on fresh ones.
SELECT = ("same", "fresh")


class _EffectTruth:
    """Mixin: the population difference of A over B is the parameter `effect`."""

    estimand: ClassVar[str] = "mean difference"

    @property
    def truth(self) -> str:
        """``'null'`` when `effect` is 0, else ``'alternative'``."""
        return "null" if self.effect == 0 else "alternative"


@dataclass(frozen=True)
class BestOfN(_EffectTruth, Scenario, registered="best-of-n"):
    """The best of `variants` versions of A (by their mean over `n` runs) against a baseline.

    Every variant's runs are ``N(effect, sd^2)``, the baseline's ``N(0, sd^2)``: the variants
    are equally good, so picking the best one picks noise. With ``select='same'`` A's scores
    are the chosen variant's own runs (selected and tested on the same data: snooping); with
    ``select='fresh'`` they are `n` new runs of the chosen variant (a fresh test set). The
    population difference is `effect` either way. Parameters: the ``'best-of-n'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.selection import BestOfN
    >>> scenario = BestOfN(variants=20, n=5)
    >>> batch = scenario.draw(np.random.default_rng(0), 4000)
    >>> batch.a.shape, scenario.truth, round(float(batch.a.mean()), 2)
    ((4000, 5), 'null', 0.83)
    """

    def __post_init__(self):
        for name in ("n", "variants"):
            low = 2 if name == "n" else 1
            object.__setattr__(self, name, check_int(name, getattr(self, name), low=low))
        check_float("effect", self.effect)
        check_sd("sd", self.sd)
        check_choice("select", self.select, SELECT)

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications: A's reported runs (n_reps, n) and the baseline's."""
        runs = self.effect + self.sd * rng.standard_normal((n_reps, self.variants, self.n))
        best = runs.mean(axis=2).argmax(axis=1)
        if self.select == "same":
            a = runs[np.arange(n_reps), best]
        else:
            a = self.effect + self.sd * rng.standard_normal((n_reps, self.n))
        b = self.sd * rng.standard_normal((n_reps, self.n))
        return Batch(a, b, paired=False)


@dataclass(frozen=True)
class Rerun(_ShiftTruth, Scenario, registered="rerun"):
    """The experiment run again, up to `tries` times, until Welch's t-test is significant.

    Each try draws `n` runs of A, ``N(shift, sd^2)``, and `n` of B, ``N(0, sd^2)``; the first
    try whose two-sided Welch p-value is below `alpha` is the one reported, or the last try
    when none is. Parameters: the ``'rerun'`` row of :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.selection import Rerun
    >>> scenario = Rerun(tries=3)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.a.shape, batch.b.shape, scenario.truth, scenario.effect
    ((2, 10), (2, 10), 'null', 0.0)
    """

    def __post_init__(self):
        object.__setattr__(self, "n", check_int("n", self.n, low=2))
        object.__setattr__(self, "tries", check_int("tries", self.tries, low=1))
        check_float("shift", self.shift)
        check_sd("sd", self.sd)
        check_float("alpha", self.alpha, low=0, high=1, open_low=True, open_high=True)

    def draw(self, rng, n_reps):
        """Draw `n_reps` replications: the reported try's runs of A and of B."""
        shape = (n_reps, self.tries, self.n)
        a = self.shift + self.sd * rng.standard_normal(shape)
        b = self.sd * rng.standard_normal(shape)
        p = welch_pvalues(a, b)
        significant = p < self.alpha
        chosen = np.where(significant.any(axis=1), significant.argmax(axis=1), self.tries - 1)
        rows = np.arange(n_reps)
        return Batch(a[rows, chosen], b[rows, chosen], paired=False)


def welch_pvalues(a, b):
    """Two-sided Welch t-test p-values of `a` against `b` along their last axis."""
    va = a.var(axis=-1, ddof=1) / a.shape[-1]
    vb = b.var(axis=-1, ddof=1) / b.shape[-1]
    t = (a.mean(axis=-1) - b.mean(axis=-1)) / np.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (a.shape[-1] - 1) + vb**2 / (b.shape[-1] - 1))
    return 2 * special.stdtr(df, -np.abs(t))
