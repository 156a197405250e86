"""Boards simulated like a real one: the models' strengths and the design are the board's own.

**Fitted arena.** Each pair meets on each prompt exactly as often as on the real board
(``battles[p, i, j]``, i < j); model i beats model j with Davidson's probabilities at gap
``values[i] - values[j]`` plus a prompt x model effect ``N(0, prompt_sd^2)`` per prompt (drawn per
board), tie parameter `tie`. :func:`davidson_tie` gives the tie parameter whose tie rate at equal
strengths is the board's share of ties.

:func:`prompt_sd_like` picks the sd of the prompt x model effect whose simulated boards spread
their scores over prompts as the board does: the ratio of the prompt-clustered to the
battle-level sum of squared scores at the fitted strengths (:func:`dispersion`), matched over a
grid of sds by interpolation (each sd's ratio the mean of :data:`PROBE_BOARDS` boards).

**Fitted item board.** Model m answers item k right with probability
``expit(values[m] - difficulty[k])``, the items and their clusters the board's own.
:func:`fit_skills` fits the skills and difficulties of a 0/1 models x items table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from evalmc.sims.base import Scenario, param
from evalmc.sims.bradley_terry import fit, half_wins, probabilities
from evalmc.sims.leaderboard import ArenaBatch, ItemBoardBatch, _BoardScenario, _davidson

#: Ridge on the item difficulties (a N(0, 1 / RIDGE) prior), so that an item every model got
#: right (or wrong) has a finite difficulty; and the alternating Newton steps of the fit.
RIDGE = 0.1
STEPS = 200
#: The sds of the prompt x model effect tried by :func:`prompt_sd_like`, and boards per sd.
PROBE_SDS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
PROBE_BOARDS = 20


def davidson_tie(share: float) -> float:
    """Davidson's tie parameter ``nu`` whose tie probability at equal strengths,
    ``nu / (2 + nu)``, is `share`."""
    return 2.0 * share / (1.0 - share) if share < 1 else np.inf


def dispersion(wins, ties) -> np.ndarray:
    """Ratio of the prompt-clustered to the battle-level sum of squared Bradley-Terry scores at
    each board's fitted strengths (1 without prompt effects; more with them); `wins` and `ties`
    of shape (..., P, M, M)."""
    wins, ties = np.asarray(wins, dtype=float), np.asarray(ties, dtype=float)
    p = probabilities(fit(wins.sum(axis=-3), ties.sum(axis=-3)))[..., None, :, :]
    table = half_wins(wins, ties)
    n = table + np.swapaxes(table, -1, -2)
    clustered = ((table - n * p).sum(axis=-1) ** 2).sum(axis=(-2, -1))
    loss = np.swapaxes(wins, -1, -2)
    battle = (wins * (1 - p) ** 2 + loss * p**2 + ties * (0.5 - p) ** 2).sum(axis=(-3, -2, -1))
    return clustered / battle


def prompt_sd_like(scenario, wins, ties, rng) -> float:
    """The prompt x model sd of :class:`FittedArena` `scenario` whose boards' mean
    :func:`dispersion` is the board's (`wins`, `ties`: (P, M, M)); 0 for one prompt slot."""
    if np.asarray(wins).shape[0] < 2:
        return 0.0
    from dataclasses import replace

    target = float(dispersion(wins, ties))
    probe = [np.nanmean(dispersion(*_counts(replace(scenario, prompt_sd=sd).draw(
        rng, PROBE_BOARDS)))) for sd in PROBE_SDS]
    return float(np.interp(target, np.maximum.accumulate(probe), PROBE_SDS))


def _counts(batch):
    return batch.wins, batch.ties


def fit_skills(scores) -> tuple[np.ndarray, np.ndarray]:
    """Skills (summing to zero) and difficulties of a 0/1 table ``scores[item, model]`` under
    ``P(right) = expit(skill - difficulty)``, by alternating Newton steps with :data:`RIDGE` on
    the difficulties (and a small one on the skills, so a perfect model stays finite).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.fitted_board import fit_skills
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.random((400, 3)) < 1 / (1 + np.exp(-np.array([1.0, 0.0, -1.0])))
    >>> fit_skills(scores)[0].round(2)
    array([ 1.19, -0.02, -1.17])
    """
    y = np.asarray(scores, dtype=float)
    skill, difficulty = np.zeros(y.shape[1]), np.zeros(y.shape[0])
    for _ in range(STEPS):
        p = 1.0 / (1.0 + np.exp(difficulty[:, None] - skill[None, :]))
        skill = skill + ((y - p).sum(axis=0) - 1e-3 * skill) / ((p * (1 - p)).sum(axis=0) + 1e-3)
        p = 1.0 / (1.0 + np.exp(difficulty[:, None] - skill[None, :]))
        difficulty = difficulty + (-(y - p).sum(axis=1) - RIDGE * difficulty) / (
            (p * (1 - p)).sum(axis=1) + RIDGE)
    shift = skill.mean()
    return skill - shift, difficulty - shift


class _Fitted(_BoardScenario):
    """Strengths given as `values`, best or not first; the truth is theirs. Its parameters are
    arrays: :meth:`to_dict` shows their sizes (for messages), :meth:`fingerprint` all of them."""

    def to_dict(self) -> dict:
        """The parameters, each array by its length (messages name the board, not its cells)."""
        return {f.name: (f"<{len(v)} values>" if isinstance(v := getattr(self, f.name), tuple)
                         else v) for f in self.parameters()}

    def fingerprint(self) -> str:
        """Every parameter in full (the block cache's key)."""
        return repr((self.name, [(f.name, getattr(self, f.name)) for f in self.parameters()]))

    @property
    def strengths(self) -> np.ndarray:
        """The models' true strengths, in the board's order of models."""
        return np.asarray(self.values, dtype=float)

    @property
    def models(self) -> int:
        """Models on the board."""
        return len(self.values)


@dataclass(frozen=True)
class FittedArena(_Fitted, Scenario):
    """Battles of a real board's pairs and prompts under given strengths (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.fitted_board import FittedArena
    >>> battles = np.zeros((1, 3, 3), dtype=int)
    >>> battles[0, 0, 1], battles[0, 1, 2] = 40, 30
    >>> scenario = FittedArena(values=(0.5, 0.0, -0.5), battles=tuple(battles.ravel()), tie=0.2)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> (batch.wins + batch.ties / 2).sum(axis=(1, 2, 3)).tolist()
    [70.0, 70.0]
    """

    name: ClassVar[str] = "fitted-arena"
    batch: ClassVar[type] = ArenaBatch
    values: tuple = param((), tuple, "each model's Bradley-Terry strength")
    battles: tuple = param((), tuple, "battles of each pair on each prompt, (P, M, M) flattened")
    tie: float = param(0.0, float, "Davidson's tie parameter")
    prompt_sd: float = param(0.0, float, "sd of the prompt x model effect")

    def _sizes(self):
        pairs = self.models * (self.models - 1) // 2
        return (pairs, pairs)

    def draw(self, rng, n_reps):
        """Draw `n_reps` boards' win and tie counts (an :class:`ArenaBatch`)."""
        m = self.models
        counts = np.asarray(self.battles, dtype=np.int64).reshape(-1, m, m)
        first, second = np.triu_indices(m, 1)
        n = counts[:, first, second] + counts[:, second, first]
        gap = np.broadcast_to(self.strengths[first] - self.strengths[second],
                              (n_reps, *n.shape))
        if self.prompt_sd > 0:
            effect = rng.standard_normal((n_reps, n.shape[0], m)) * self.prompt_sd
            gap = gap + effect[:, :, first] - effect[:, :, second]
        out = rng.multinomial(np.broadcast_to(n, gap.shape), _davidson(gap, self.tie))
        wins = np.zeros((n_reps, *counts.shape), dtype=np.int64)
        ties = np.zeros_like(wins)
        wins[:, :, first, second], wins[:, :, second, first] = out[..., 0], out[..., 1]
        ties[:, :, first, second] = ties[:, :, second, first] = out[..., 2]
        return ArenaBatch(wins=wins, ties=ties)


class LabelledItemBatch(ItemBoardBatch):
    """An item board whose items carry their own cluster labels (``groups``, one per item)."""

    shared = ("clusters", "groups")

    def __init__(self, a=None, b=None, *, scores, clusters: int, groups: tuple,
                 paired: bool = True, **kwargs):
        super().__init__(a, b, scores=scores, clusters=clusters, paired=paired, **kwargs)
        self.groups = tuple(int(g) for g in groups)

    @property
    def labels(self) -> np.ndarray:
        """Each item's cluster, numbered from 0."""
        return np.asarray(self.groups)


@dataclass(frozen=True)
class FittedItemBoard(_Fitted, Scenario):
    """0/1 answers to a real board's items under given skills (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.fitted_board import FittedItemBoard
    >>> scenario = FittedItemBoard(values=(1.0, 0.0), difficulty=(0.0, 0.5, -0.5),
    ...                            groups=(0, 0, 1))
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.scores.shape, batch.labels.tolist()
    ((2, 3, 2), [0, 0, 1])
    """

    name: ClassVar[str] = "fitted-item-board"
    batch: ClassVar[type] = LabelledItemBatch
    values: tuple = param((), tuple, "each model's skill")
    difficulty: tuple = param((), tuple, "each item's difficulty")
    groups: tuple = param((), tuple, "each item's cluster, numbered from 0")

    def _sizes(self):
        return (len(self.difficulty), len(self.difficulty))

    def draw(self, rng, n_reps):
        """Draw `n_reps` boards' 0/1 answers (a :class:`LabelledItemBatch`)."""
        logit = self.strengths[None, :] - np.asarray(self.difficulty)[:, None]
        right = rng.random((n_reps, *logit.shape)) < 1.0 / (1.0 + np.exp(-logit))
        return LabelledItemBatch(scores=right.astype(np.int8), clusters=max(self.groups) + 1,
                                 groups=self.groups)
