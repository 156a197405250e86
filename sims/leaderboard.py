"""Leaderboards of many models whose truth is known: pairwise battles (``arena``) and models
scored on items in clusters (``item-board``).

Both space the models' strengths evenly, best first, with the top `tied` models tied:
models ``0 .. tied - 1`` have strength ``spacing (M - tied)``, model ``m >= tied`` has
``spacing (M - 1 - m)``. The truth of a board is its strengths: model i is truly better than
model j when its strength is higher, and model i's true rank set is
``[1 + #{j: s_j > s_i}, #{j: s_j >= s_i}]`` (a tied group shares the ranks it spans).

**Arena.** Each of `battles` battles pits two models on a prompt: model i beats model j with
Davidson's (1970) probabilities ``pi_i / (pi_i + pi_j + nu sqrt(pi_i pi_j))``, a tie with
``nu sqrt(pi_i pi_j) / (...)``, where ``log pi_i`` is i's strength, plus the prompt x model
effect ``u[p, i] ~ N(0, prompt_sd^2)`` of the battle's prompt (drawn per board), plus
`position` for the model shown first (each battle's order a fair coin). With ``prompts = P``,
battle k is on prompt ``k mod P`` (each prompt reused about ``battles / P`` times); with 0,
every battle has a prompt of its own and no prompt effect. Pairing is uniform over the
``M (M - 1) / 2`` pairs, or adaptive: the battles come in `chunks` equal chunks, the first
paired uniformly, each next one with pair (i, j) drawn with probability proportional to
``exp(-|t_i - t_j| / width)``, ``t`` the Bradley-Terry fit of the battles so far (uniform
while the board has no finite fit). The batch holds the sufficient statistics, never the
battles: ``wins[r, p, i, j]`` (battles of board r on prompt p that i won against j) and
``ties[r, p, i, j]`` (symmetric), with one prompt slot when prompts are not reused.

**Item board.** Model m answers item k of cluster c right with probability
``expit(s_m - d_k - e_c + u_cm)``: item difficulty ``d_k ~ N(0, sd^2)``, cluster effect
``e_c ~ N(0, sd_cluster^2)``, model x cluster effect ``u_cm ~ N(0, tau^2)``, all drawn per
board; items fill the clusters in turn (item k in cluster ``k * clusters // items``). Model
m's population accuracy increases with its strength, so the truth is the strengths'. With
``scores='gaussian'`` the score is continuous (a BLEU, an F1, a grade): the logit itself plus
noise, ``s_m - d_k - e_c + u_cm + eps_km``, ``eps_km ~ N(0, noise^2)``; model m's expected
score is ``s_m`` less the mean difficulty, so again the truth is the strengths'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from evalmc.inputs.checks import check_choice, check_float, check_int
from evalmc.sims.base import Batch, Scenario, read_only
from evalmc.sims.bradley_terry import fit

PAIRINGS = ("uniform", "adaptive")
#: An item board's kinds of score.
SCORES = ("binary", "gaussian")


def strengths(models: int, spacing: float, tied: int) -> np.ndarray:
    """Evenly spaced strengths, best first, the top `tied` equal (the module docstring)."""
    levels = spacing * (models - 1 - np.arange(models, dtype=float))
    levels[:tied] = spacing * (models - tied)
    return levels


def true_better(values) -> np.ndarray:
    """``better[i, j]``: model i is truly better than model j (strength strictly higher)."""
    values = np.asarray(values, dtype=float)
    return values[:, None] > values[None, :]


def true_rank_sets(values) -> tuple[np.ndarray, np.ndarray]:
    """Each model's true rank set ``[low, high]``: 1 + the models truly better, and the models
    at least as strong (itself included)."""
    values = np.asarray(values, dtype=float)
    return (1 + (values[None, :] > values[:, None]).sum(axis=1),
            (values[None, :] >= values[:, None]).sum(axis=1))


class _BoardScenario:
    """What the two boards share: validated spacing, the strengths and their truth."""

    def _check_board(self):
        object.__setattr__(self, "models", check_int("models", self.models, low=2))
        object.__setattr__(self, "tied", check_int("tied", self.tied, low=1, high=self.models))
        check_float("spacing", self.spacing, low=0)

    @property
    def strengths(self) -> np.ndarray:
        """The models' true strengths, best first."""
        return strengths(self.models, self.spacing, self.tied)

    @property
    def truth(self) -> str:
        """``'null'`` when every model is as strong as every other, else ``'alternative'``."""
        return "null" if np.ptp(self.strengths) == 0 else "alternative"

    @property
    def sizes(self) -> tuple[int, int]:
        """Columns of ``Batch.a`` and ``Batch.b`` (see the batch types)."""
        return self._sizes()


class ArenaBatch(Batch):
    """A block of arena boards: ``wins`` and ``ties``, shape (n_reps, prompt slots, M, M). As
    scores, ``a`` and ``b`` hold the first model's wins and losses in each pair, pairs in the
    order of ``itertools.combinations(range(M), 2)``, pooled over prompts."""

    holds = frozenset({"leaderboard", "battles"})
    per_rep = ("wins", "ties")

    def __init__(self, a=None, b=None, *, wins, ties, paired: bool = True, **kwargs):
        wins, ties = np.asarray(wins), np.asarray(ties)
        if wins.ndim != 4 or wins.shape != ties.shape or wins.shape[2] != wins.shape[3]:
            raise ValueError("`wins` and `ties` must have one shape (n_reps, prompts, M, M); got "
                             f"{wins.shape} and {ties.shape}.")
        if a is None and kwargs.get("fill") is None:
            first, second = np.triu_indices(wins.shape[2], 1)
            pooled = wins.sum(axis=1)
            a, b = pooled[:, first, second], pooled[:, second, first]
        super().__init__(a, b, paired=paired, **kwargs)
        self.wins, self.ties = read_only(wins), read_only(ties)

    @property
    def n_reps(self) -> int:
        """Boards: rows of :attr:`wins`."""
        return self.wins.shape[0]


@dataclass(frozen=True)
class Arena(_BoardScenario, Scenario, registered="arena"):
    """M models in pairwise battles under Bradley-Terry with Davidson's ties, prompt reuse,
    uniform or adaptive pairing and position bias (the module docstring). Parameters: the
    ``'arena'`` row of :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.leaderboard import Arena
    >>> scenario = Arena(models=4, tied=2, battles=600)
    >>> scenario.strengths.tolist(), scenario.truth
    ([0.2, 0.2, 0.1, 0.0], 'alternative')
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.wins.shape, int(batch.wins[0].sum() + batch.ties[0].sum() / 2)
    ((2, 1, 4, 4), 600)
    >>> batch.wins[0, 0].tolist()
    [[0, 29, 51, 41], [42, 0, 51, 48], [26, 36, 0, 46], [29, 33, 24, 0]]
    """

    batch: ClassVar[type] = ArenaBatch

    def __post_init__(self):
        self._check_board()
        object.__setattr__(self, "battles", check_int("battles", self.battles, low=1))
        check_float("tie", self.tie, low=0)
        object.__setattr__(self, "prompts", check_int("prompts", self.prompts, low=0))
        check_float("prompt_sd", self.prompt_sd, low=0)
        if self.prompts == 0 and self.prompt_sd > 0:
            raise ValueError("`prompt_sd` must be 0 when `prompts` is 0: a prompt x model "
                             "effect needs prompts that battles share.")
        check_choice("pairing", self.pairing, PAIRINGS)
        object.__setattr__(self, "chunks", check_int("chunks", self.chunks, low=1,
                                                     high=self.battles))
        check_float("width", self.width, low=0, open_low=True)
        check_float("position", self.position)

    def _sizes(self):
        pairs = self.models * (self.models - 1) // 2
        return (pairs, pairs)

    def draw(self, rng, n_reps):
        """Draw `n_reps` boards' win and tie counts (an :class:`ArenaBatch`)."""
        m, slots = self.models, max(self.prompts, 1)
        first, second = np.triu_indices(m, 1)
        wins = np.zeros((n_reps, slots, m, m), dtype=np.int64)
        ties = np.zeros_like(wins)
        gap = np.broadcast_to(self.strengths[first] - self.strengths[second],
                              (n_reps, slots, first.size))
        if self.prompt_sd > 0:
            effect = rng.standard_normal((n_reps, slots, m)) * self.prompt_sd
            gap = gap + effect[:, :, first] - effect[:, :, second]
        ahead, behind = (_davidson(gap + s * self.position, self.tie) for s in (1, -1))
        chunks = self.chunks if self.pairing == "adaptive" else 1
        edges = np.linspace(0, self.battles, chunks + 1).round().astype(int)
        for start, stop in zip(edges[:-1], edges[1:], strict=True):
            per_prompt = np.bincount(np.arange(start, stop) % slots, minlength=slots)
            pairing = self._pairing(wins, ties, first, second, start == 0)
            count = rng.multinomial(np.broadcast_to(per_prompt, (n_reps, slots)),
                                    np.broadcast_to(pairing[:, None, :],
                                                    (n_reps, slots, first.size)))
            shown_first = rng.binomial(count, 0.5)
            out = rng.multinomial(shown_first, ahead) + rng.multinomial(count - shown_first,
                                                                        behind)
            wins[:, :, first, second] += out[..., 0]
            wins[:, :, second, first] += out[..., 1]
            ties[:, :, first, second] += out[..., 2]
            ties[:, :, second, first] += out[..., 2]
        return ArenaBatch(wins=wins, ties=ties)

    def _pairing(self, wins, ties, first, second, opening: bool) -> np.ndarray:
        """Each board's probabilities of the pairs for the next chunk, shape (n_reps, pairs)."""
        uniform = np.full((wins.shape[0], first.size), 1.0 / first.size)
        if self.pairing == "uniform" or opening:
            return uniform
        theta = fit(wins.sum(axis=1), ties.sum(axis=1))
        weight = np.exp(-np.abs(theta[:, first] - theta[:, second]) / self.width)
        weight = np.where(np.isnan(weight), uniform, weight)
        return weight / weight.sum(axis=1, keepdims=True)


def _davidson(gap, nu: float) -> np.ndarray:
    """Probabilities of (first wins, second wins, tie) at log-strength gap `gap` (first minus
    second) under Davidson's model with tie parameter `nu`, shape ``gap.shape + (3,)``."""
    half = np.exp(np.stack([0.5 * gap, -0.5 * gap], axis=-1))
    out = np.concatenate([half, np.full(gap.shape + (1,), float(nu))], axis=-1)
    return out / out.sum(axis=-1, keepdims=True)


class ItemBoardBatch(Batch):
    """A block of item boards: ``scores`` (n_reps, items, M) of 0/1 answers (int8) or of
    continuous scores (floats), and the
    ``clusters`` count (items fill them in turn; 0: every item its own). As scores, ``a`` and
    ``b`` are models 0 and 1, paired by item."""

    holds = frozenset({"leaderboard", "items"})
    per_rep = ("scores",)
    shared = ("clusters",)

    def __init__(self, a=None, b=None, *, scores, clusters: int, paired: bool = True,
                 **kwargs):
        scores = np.asarray(scores)
        if scores.ndim != 3 or scores.shape[2] < 2:
            raise ValueError("`scores` must have shape (n_reps, items, M) with M >= 2; got "
                             f"{scores.shape}.")
        if a is None and kwargs.get("fill") is None:
            a, b = scores[:, :, 0].astype(float), scores[:, :, 1].astype(float)
        super().__init__(a, b, paired=paired, **kwargs)
        self.scores, self.clusters = read_only(scores), int(clusters)

    @property
    def labels(self) -> np.ndarray:
        """Each item's cluster (each item its own when there are no clusters)."""
        items = self.scores.shape[1]
        return (np.arange(items) * self.clusters // items if self.clusters
                else np.arange(items))


@dataclass(frozen=True)
class ItemBoard(_BoardScenario, Scenario, registered="item-board"):
    """M models' 0/1 answers (or Gaussian scores) on items in clusters from a logistic item
    model (the module docstring). Parameters: the ``'item-board'`` row of
    :data:`evalmc.sims.SCENARIOS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.leaderboard import ItemBoard
    >>> scenario = ItemBoard(models=4, items=50, clusters=5)
    >>> batch = scenario.draw(np.random.default_rng(0), 2)
    >>> batch.scores.shape, batch.labels[:12].tolist()
    ((2, 50, 4), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1])
    >>> batch.scores.sum(axis=1).tolist()
    [[24, 24, 19, 19], [26, 32, 30, 23]]
    >>> gaussian = ItemBoard(models=4, items=50, clusters=5, scores="gaussian")
    >>> gaussian.draw(np.random.default_rng(0), 2).scores.mean(axis=1).round(2).tolist()
    [[-0.43, -0.21, -0.11, -0.39], [0.2, 0.51, 0.44, 0.45]]
    """

    batch: ClassVar[type] = ItemBoardBatch

    def __post_init__(self):
        self._check_board()
        object.__setattr__(self, "items", check_int("items", self.items, low=2))
        object.__setattr__(self, "clusters", check_int("clusters", self.clusters, low=0,
                                                       high=self.items))
        if self.clusters == 1:
            raise ValueError("`clusters` must be 0 (every item its own) or at least 2; got 1.")
        for name in ("sd", "sd_cluster", "tau"):
            check_float(name, getattr(self, name), low=0)
        check_choice("scores", self.scores, SCORES)
        check_float("noise", self.noise, low=0, open_low=True)

    def _sizes(self):
        return (self.items, self.items)

    def draw(self, rng, n_reps):
        """Draw `n_reps` boards' 0/1 answers or Gaussian scores (an :class:`ItemBoardBatch`)."""
        groups = max(self.clusters, 1)
        label = np.arange(self.items) * groups // self.items
        difficulty = (rng.standard_normal((n_reps, self.items)) * self.sd
                      + (rng.standard_normal((n_reps, groups)) * self.sd_cluster)[:, label])
        logit = (self.strengths[None, None, :] - difficulty[:, :, None]
                 + (rng.standard_normal((n_reps, groups, self.models)) * self.tau)[:, label])
        if self.scores == "gaussian":
            logit += rng.standard_normal(logit.shape) * self.noise
            return ItemBoardBatch(scores=logit, clusters=self.clusters)
        right = rng.random((n_reps, self.items, self.models)) < 1.0 / (1.0 + np.exp(-logit))
        return ItemBoardBatch(scores=right.astype(np.int8), clusters=self.clusters)
