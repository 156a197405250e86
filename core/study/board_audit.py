"""A real leaderboard audited: its board fitted, its rank procedures calibrated on boards
simulated like it, and the claims of the best-calibrated one.

A board is read in either form:

- **battles** (:mod:`evalmc.inputs.battles`): a model's strength is its Bradley-Terry strength
  from the win and tie counts (:mod:`evalmc.sims.bradley_terry`);
- **items** (a models x items file read by :func:`evalmc.inputs.itemlogs.read_items`, every
  model on the same items, one sample each): with 0/1 scores a model's strength is its logistic
  skill (:func:`evalmc.sims.fitted_board.fit_skills`); with any other scores (continuous: a
  BLEU, an F1, a grade) its latent mean in the audit's Gaussian model fitted to the board
  (:mod:`evalmc.sims.fitted_scores`). Its procedures rank mean scores, which order the models
  as their strengths do.

Each procedure runs on two designs simulated like the board (:mod:`evalmc.sims.fitted_board`:
the board's own pairs, prompts, ties or items and clusters):

- **fitted**: the fitted strengths;
- **top tied**: the models that an unadjusted two-sided 95% z-test (sandwich standard error of
  the difference, clustered as the procedures cluster) does not separate from the top model
  get their mean strength, at least the top two: the board's top group tied as far as the data
  cannot separate it, a false claim among them being the error a user fears most.

A procedure that cannot read the real board itself (a bootstrap board without a finite fit,
say) is shown with its reason and left out of the choice. A procedure *holds* alpha when its
familywise false-claim rate is at most alpha within 2 Monte Carlo standard errors on both
designs; the best-calibrated procedure is the one that holds with the shortest mean rank sets
on the fitted design (with none holding, the one of lowest rate, flagged). On the real board it
gives each model's rank set, the tiers (the finest split of the models, in order of strength,
into consecutive groups such that every model of a group is claimed better than every model of
each later group) and the number of models the data cannot separate from rank 1 (no model
claimed better than them); every other procedure, the claims it makes that the best-calibrated
one does not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from evalmc.criteria.leaderboard import estimate_and_covariance
from evalmc.inputs.checks import check_float, check_int
from evalmc.sims.bradley_terry import fit
from evalmc.sims.fitted_board import (
    FittedArena,
    FittedItemBoard,
    LabelledItemBatch,
    davidson_tie,
    fit_skills,
    prompt_sd_like,
)
from evalmc.sims.fitted_scores import PARTS, FittedScoreBoard, fit_scores
from evalmc.sims.leaderboard import ArenaBatch
from evalmc.study.leaderboard import PROCEDURES, get_procedure, run_boards

#: Counts a block of simulated arena boards holds at most (P x M x M per board).
BLOCK_CELLS = 2_000_000
#: The unadjusted z of the top group's test.
TOP_Z = 1.959963984540054


@dataclass(frozen=True)
class Board:
    """A real board: its form, models, fitted strengths, itself as a batch of one, and the
    fitted scenario that simulates boards like it."""

    form: str
    models: list
    strengths: np.ndarray
    batch: object
    scenario: object
    summary: str

    def tied_top(self) -> tuple[np.ndarray, object]:
        """The models of the top group (the module docstring) and the scenario with them tied."""
        estimate, cov = (a[0] for a in estimate_and_covariance(self.batch))
        top = int(np.argmax(estimate))
        var = np.diagonal(cov)
        se = np.sqrt(np.maximum(var[top] + var - 2 * cov[top], 0.0))
        with np.errstate(invalid="ignore", divide="ignore"):
            group = ~((estimate[top] - estimate) > TOP_Z * se)
        group[top] = True
        if group.sum() < 2:
            group[np.argsort(-estimate)[1]] = True
        values = self.strengths.copy()
        values[group] = values[group].mean()
        return group, _replace(self.scenario, values=tuple(values.tolist()))


def _replace(scenario, **changes):
    from dataclasses import replace

    return replace(scenario, **changes)


def read_board(path, *, cluster: str | None = None, prompt_sd: float | None = None,
               seed: int = 0) -> Board:
    """The board in the file at `path`, battles or items, fitted (the module docstring).

    Parameters
    ----------
    path : path-like
        Battles (CSV, JSON Lines or a JSON array with ``model_a, model_b, winner``) or a long
        table of items (``model, item[, cluster], score``).
    cluster : str, optional
        The items' cluster column (default: each item its own).
    prompt_sd : float, optional
        Sd of the prompt x model effect of the simulated arenas; default: the one whose boards
        spread their scores over prompts as this one does
        (:func:`evalmc.sims.fitted_board.prompt_sd_like`), 0 without prompts.
    seed : int
        Seed of the boards that estimate `prompt_sd`.

    Returns
    -------
    Board

    Examples
    --------
    >>> from evalmc.study.board_audit import read_board
    >>> board = read_board("tests/examples/battles.jsonl")
    >>> board.summary
    '6 models, 1,500 battles on 100 prompts, 11% ties, prompt x model sd 0.44'
    >>> board.models[int(board.strengths.argmax())]
    'birch'
    """
    from evalmc.inputs.battles import counts, is_battles, read_battles

    if not Path(path).is_file():
        raise ValueError(f"`FILE` must be an existing file of battles or items; got "
                         f"{str(path)!r}.")
    if prompt_sd is not None:
        check_float("prompt_sd", prompt_sd, low=0)
    if is_battles(path):
        battles = read_battles(path)
        models, prompts, wins, ties = counts(battles)
        theta = fit(wins.sum(axis=0), ties.sum(axis=0))
        if np.isnan(theta).any():
            raise ValueError(f"`FILE` {str(path)!r}: the battles have no finite Bradley-Terry "
                             "fit: some model has never beaten, through a chain of wins, "
                             "some other.")
        share = float(ties.sum() / 2 / len(battles))
        scenario = FittedArena(values=tuple(theta.tolist()),
                               battles=tuple((wins + np.triu(ties)).ravel().tolist()),
                               tie=davidson_tie(share))
        if prompt_sd is None:
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2,)))
            prompt_sd = prompt_sd_like(scenario, wins, ties, rng)
        scenario = _replace(scenario, prompt_sd=float(prompt_sd))
        where = "" if prompts == [None] else f" on {len(prompts):,} prompts"
        summary = f"{len(models)} models, {len(battles):,} battles{where}, {share:.0%} ties"
        if prompts != [None]:
            summary += f", prompt x model sd {prompt_sd:.2f}"
        return Board("battles", models, theta, ArenaBatch(wins=wins[None], ties=ties[None]),
                     scenario, summary)
    return _item_board(path, cluster)


def _item_board(path, cluster: str | None) -> Board:
    """The board of a long table of item scores, 0/1 or continuous (the module docstring)."""
    from evalmc.inputs.itemlogs import read_items

    frame = read_items(path, cluster=cluster)
    if frame["sample"].nunique() > 1:
        raise ValueError("`FILE`: a board needs one score per model and item; this file has "
                         "several samples.")
    grid = frame.pivot(index="item", columns="model", values="score")
    if grid.isna().any().any():
        missing = grid.columns[grid.isna().any()].tolist()
        raise ValueError(f"`FILE`: every model must be scored on the same items; "
                         f"{', '.join(map(str, missing[:3]))} miss some.")
    if grid.shape[1] < 2:
        raise ValueError("`FILE`: a board needs at least 2 models.")
    labels = frame.drop_duplicates("item").set_index("item")["cluster"].reindex(grid.index)
    groups, _ = pd.factorize(labels)
    models = [str(m) for m in grid.columns]
    clusters = int(groups.max()) + 1
    where = "" if clusters == len(groups) else f" in {clusters:,} clusters"
    summary = f"{len(models)} models, {len(groups):,} items{where}"
    if np.isin(grid.to_numpy(), (0.0, 1.0)).all():
        scores = grid.to_numpy().astype(np.int8)
        skill, difficulty = fit_skills(scores)
        scenario = FittedItemBoard(values=tuple(skill.tolist()),
                                   difficulty=tuple(difficulty.tolist()),
                                   groups=tuple(groups.tolist()))
    else:
        scores = grid.to_numpy().astype(float)
        fitted = fit_scores(scores, groups)
        skill = fitted.pop("values")
        scenario = FittedScoreBoard(values=tuple(skill.tolist()), groups=tuple(groups.tolist()),
                                    **{k: tuple(v.tolist()) if isinstance(v, np.ndarray)
                                       else float(v) for k, v in fitted.items()})
        summary += (f", continuous scores in [{scores.min():g}, {scores.max():g}] (latent "
                    "model: " + ", ".join(f"{name} {getattr(scenario, name):.2f}"
                                          for name in PARTS) + ")")
    batch = LabelledItemBatch(scores=scores[None], clusters=clusters, groups=tuple(groups))
    return Board("items", models, skill, batch, scenario, summary)


@dataclass(frozen=True)
class BoardAudit:
    """What :func:`audit_board` finds (the module docstring): the board, the calibration of
    each procedure, the best-calibrated one, its rank sets and tiers, and the other procedures'
    extra claims."""

    board: Board
    alpha: float
    calibration: pd.DataFrame
    best: str
    holds: bool
    table: pd.DataFrame
    unseparated: int
    top_group: int
    extra: dict = field(default_factory=dict)

    def report(self) -> str:
        """The audit as text: the board, the verdict, the calibration and the extra claims."""
        row = self.calibration.set_index("procedure").loc[self.best]
        worst = "false_claim_tied" if row["false_claim_tied"] >= row["false_claim"] \
            else "false_claim"
        shown = self.table.assign(strength=self.table["strength"].round(3))
        verdict = ("holds" if self.holds else "does not hold (no procedure does; this one has "
                   "the lowest rate)")
        lines = [f"Board: {self.board.summary}.", "", shown.to_string(index=False), "",
                 f"Best-calibrated procedure: {self.best}. On boards simulated like this one "
                 f"it makes a false claim on {row[worst]:.3f} (MCSE {row[worst + '_mcse']:.3f})"
                 f" of them; it {verdict} alpha = {self.alpha:g} within 2 MCSE.",
                 f"Models the data cannot separate from rank 1: {self.unseparated}.", "",
                 f"Calibration ({int(row['boards'])} boards per design; 'tied': the top "
                 f"{self.top_group} tied):",
                 self.calibration.round(3).to_string(index=False), "",
                 f"Claims {self.best} does not make:"]
        if not self.extra:
            lines.append("  (no other procedure)")
        for name, pairs in self.extra.items():
            lines.append(f"  {name}: " + (", ".join(f"{a} > {b}" for a, b in pairs)
                                          if pairs else "none"))
        return "\n".join(lines)


def audit_board(path, procedures=PROCEDURES, *, alpha: float = 0.05, n_reps: int = 200,
                seed: int = 0, cluster: str | None = None, prompt_sd: float | None = None,
                n_jobs: int = 1, progress=None) -> BoardAudit:
    """Audit a real board: fit it, calibrate the procedures on boards like it, and read it
    with the best-calibrated one (the module docstring).

    Parameters
    ----------
    path : path-like
        The board: battles or items (:func:`read_board`).
    procedures : sequence of str
        Registered rank procedures (default the seven registered ones), or your own
        (:func:`evalmc.study.leaderboard.get_procedure`).
    alpha : float
        The familywise false-claim rate a procedure must hold, in (0, 1).
    n_reps : int
        Simulated boards per design.
    seed : int
        Root seed of the simulated boards and of the procedures' draws on the real board.
    cluster, prompt_sd
        As :func:`read_board`.
    n_jobs, progress
        As :func:`evalmc.study.leaderboard.run_leaderboard`.

    Returns
    -------
    BoardAudit

    Examples
    --------
    >>> from evalmc.study.board_audit import audit_board
    >>> audit = audit_board("tests/examples/battles.jsonl", ["board-holm", "board-wald"],
    ...                     n_reps=100, progress=False)
    >>> audit.best, audit.holds, audit.unseparated
    ('board-wald', True, 3)
    """
    alpha = check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    n_reps = check_int("n_reps", n_reps, low=1)
    procedures = list(procedures)
    board = read_board(path, cluster=cluster, prompt_sd=prompt_sd, seed=seed)
    group, tied = board.tied_top()
    run = {"seed": seed, "n_jobs": n_jobs, "progress": progress, "n_reps": n_reps,
           "block_size": _block_size(board)}
    fitted = run_boards(board.scenario, procedures, **run)
    on_tied = run_boards(tied, procedures, **run)
    calibration = _calibration(fitted, on_tied, alpha)
    claims, failed = {}, {}
    for name in calibration["procedure"]:
        claims[name], failed[name] = _claims(name, board, seed)
    calibration["on_board"] = [failed[name] or "read" for name in calibration["procedure"]]
    usable = calibration[calibration["on_board"] == "read"]
    if usable.empty:
        raise ValueError(f"`FILE`: no procedure can read this board ({failed[procedures[0]]}).")
    holding = usable[usable["holds"]]
    holds = not holding.empty
    if holds:
        best = str(holding.sort_values("length", kind="stable")["procedure"].iloc[0])
    else:
        worst = usable[["false_claim", "false_claim_tied"]].max(axis=1)
        best = str(usable["procedure"].iloc[int(worst.to_numpy().argmin())])
    table, unseparated = _table(board, claims[best])
    extra = {name: [(board.models[i], board.models[j])
                    for i, j in zip(*np.nonzero(better & ~claims[best]), strict=True)]
             for name, better in claims.items() if name != best and not failed[name]}
    return BoardAudit(board, alpha, calibration, best, holds, table, unseparated,
                      int(group.sum()), extra)


def _block_size(board: Board) -> int:
    """Simulated boards per block: at most :data:`BLOCK_CELLS` counts (arenas), 100 at most."""
    cells = int(np.prod(board.batch.wins.shape[1:])) if board.form == "battles" else 1
    return int(max(1, min(100, BLOCK_CELLS // cells)))


def _calibration(fitted: pd.DataFrame, tied: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """Each procedure's false-claim rates on the two designs, its length and whether it holds."""
    out = fitted[["procedure", "boards", "false_claim", "false_claim_mcse"]].copy()
    out["false_claim_tied"] = tied["false_claim"].to_numpy()
    out["false_claim_tied_mcse"] = tied["false_claim_mcse"].to_numpy()
    out["length"] = fitted["length"].to_numpy()
    out["holds"] = ((out["false_claim"] <= alpha + 2 * out["false_claim_mcse"])
                    & (out["false_claim_tied"] <= alpha + 2 * out["false_claim_tied_mcse"]))
    return out


def _claims(name: str, board: Board, seed: int) -> tuple[np.ndarray, str]:
    """The claims of procedure `name` on the real board, ``better[i, j]``, and why it could not
    read the board ('' when it could)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    claims = get_procedure(name).test.claims(board.batch, rng)
    return claims.better[0], claims.errors.get(0, "")


def _table(board: Board, better: np.ndarray) -> tuple[pd.DataFrame, int]:
    """The models by fitted strength with their rank sets and tiers, and how many the claims
    do not separate from rank 1."""
    m = len(board.models)
    order = np.argsort(-board.strengths, kind="stable")
    low, high = 1 + better.sum(axis=0), m - better.sum(axis=1)
    tier, tiers = 1, []
    for k in range(m):
        if k and better[np.ix_(order[:k], order[k:])].all():
            tier += 1
        tiers.append(tier)
    table = pd.DataFrame({"model": [board.models[i] for i in order],
                          "strength": board.strengths[order],
                          "rank_set": [f"{low[i]}-{high[i]}" if low[i] < high[i] else str(low[i])
                                       for i in order],
                          "tier": tiers})
    return table, int((low == 1).sum())
