"""How often a leaderboard's rank claims are wrong: rank procedures run on boards whose truth
is known (the ``arena`` and ``item-board`` scenarios), on the engine.

Per board, against the true strengths (:mod:`evalmc.sims.leaderboard`):

- ``false_claim``: the procedure claims some model i better than some model j although i is
  not truly better (tied, or worse): the familywise false-claim indicator;
- ``coverage``: every model's true rank set lies within its rank set (simultaneous coverage of
  the true ranks; a tied group's rank set spans all the ranks it shares, so a tie must be
  left open). Claims without a false one always cover; the converse need not hold;
- ``coverage_low``: every model's rank set holds its rank ``1 + #{j truly better}`` (the
  convention of Mogstad, Romano, Shaikh and Wilhelm 2024 for tied models): weaker;
- ``marginal``: the share of the models whose true rank set lies within their rank set (the
  marginal coverage, averaged over the models; at least ``coverage``);
- ``length``: the mean length (number of ranks) of the models' rank sets, M at worst;
- ``power``: the share of the pairs of truly different models that the board claims, in the
  right order.

Rates and means are taken over the boards that did not fail, with their Monte Carlo standard
errors (``sqrt(p (1 - p) / n)`` for a rate, ``sd / sqrt(n)`` for a mean).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalmc.criteria import get_criterion
from evalmc.engine import scheduler as engine
from evalmc.engine.analysis import Analysis
from evalmc.engine.tallies import RecordsTally
from evalmc.inputs.checks import check_choice, check_int
from evalmc.sims import get_scenario
from evalmc.sims.leaderboard import true_better, true_rank_sets
from evalmc.stats.mcse import rate_mcse

#: The registered rank procedures, at their defaults.
PROCEDURES = ("board-bootstrap", "board-prompt-bootstrap", "board-wald", "board-holm",
              "board-max-t", "board-anchor", "board-adjacent-bootstrap")
#: The rank procedures the side-by-side table compares: those, the confidence sets for ranks
#: of Mogstad et al. (as csranks), and the battle bootstrap with 500 and 1,000 rounds.
TABLE_PROCEDURES = (*PROCEDURES, "board-csranks-simultaneous", "board-csranks-marginal",
                    "board-bootstrap(n_boot=500)", "board-bootstrap(n_boot=1000)")
#: The designs of the side-by-side table: scenario, parameters, and a short label.
DESIGNS = {
    "a": ("arena", {}, "(a) 10 models, 3 tied at top, 5,000 battles"),
    "b": ("arena", {"prompts": 100, "prompt_sd": 1.0}, "(b) as (a), 100 prompts reused"),
    "c": ("arena", {"pairing": "adaptive"}, "(c) as (a), adaptive pairing"),
    "d": ("item-board", {}, "(d) 20 models x 500 items, 20 clusters"),
}
#: Boards per design of the quick scale and of the paper's (MCSE at most 0.0079 at a rate of 0.5 and
#: 0.0047 at 0.1: the 0.01 and 0.005 asked of the table).
SCALES = {"quick": 400, "paper": 4_000}
#: Boards per block: a block of arena boards with reused prompts holds P x M x M counts each.
BLOCK_SIZE = 100
#: What each board records, rates first.
RATES = ("false_claim", "coverage", "coverage_low")
MEANS = ("marginal", "length", "power")


def board_metrics(better, failed, values, sets=None) -> dict[str, np.ndarray]:
    """Each board's measures (the module docstring) from its claims ``better`` (n_reps, M, M)
    and rank sets `sets` ``(low, high)`` (the claims' by default) against the true strengths
    `values`; NaN power where no two models differ."""
    truth = true_better(values)
    low, high = true_rank_sets(values)
    m = truth.shape[0]
    est_low, est_high = sets if sets is not None else (1 + better.sum(axis=1),
                                                       m - better.sum(axis=2))
    different = truth.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        power = (better & truth).sum(axis=(1, 2)) / different
    out = {
        "false_claim": (better & ~truth).any(axis=(1, 2)),
        "coverage": ((est_low <= low) & (high <= est_high)).all(axis=1),
        "marginal": ((est_low <= low) & (high <= est_high)).mean(axis=1),
        "coverage_low": ((est_low <= low) & (low <= est_high)).all(axis=1),
        "length": (est_high - est_low + 1).mean(axis=1).astype(float),
        "power": power if different else np.full(better.shape[0], np.nan),
    }
    return {name: values[~failed] for name, values in out.items()}


@dataclass(frozen=True)
class _BoardRun(Analysis):
    """A rank procedure as the engine runs it: each board's measures, as records."""

    criterion: object

    @property
    def key(self) -> str:
        return f"board:{self.criterion.key}"

    @property
    def name(self) -> str:
        return self.criterion.name

    @property
    def uses_rng(self) -> bool:
        return self.criterion.uses_rng

    tally_type = RecordsTally

    def run(self, batch, rng):
        self.criterion.check_batch(batch)
        return self.criterion.test.claims(batch, rng)

    def tallies(self, result, starts, scenario):
        out = []
        for s, e in zip(starts[:-1], starts[1:], strict=True):
            failed = result.failed[s:e]
            low, high = result.rank_sets()
            rows = board_metrics(result.better[s:e], failed, scenario.strengths,
                                 (low[s:e], high[s:e]))
            rows["rep"] = np.flatnonzero(~failed)
            errors = {int(r) - int(s): msg for r, msg in result.errors.items() if s <= r < e}
            out.append((RecordsTally(int(e - s), rows, failed=int(failed.sum())), errors))
        return out


def summarise(tally: RecordsTally) -> dict:
    """Rates and means of a procedure's board records, each with its Monte Carlo error."""
    valid = tally.n - tally.failed
    row = {"boards": tally.n, "failed": tally.failed}
    for name in RATES:
        rate, mcse = rate_mcse(int(tally.columns[name].sum()), valid)
        row[name], row[f"{name}_mcse"] = float(rate), float(mcse)
    for name in MEANS:
        values = tally.columns[name][~np.isnan(tally.columns[name])]
        row[name] = float(values.mean()) if values.size else np.nan
        row[f"{name}_mcse"] = (float(values.std(ddof=1) / np.sqrt(values.size))
                               if values.size > 1 else np.nan)
    return row


def run_leaderboard(scenario: str, params=None, procedures=PROCEDURES, *, n_reps: int,
                    seed: int = 0, n_jobs: int = 1, cache=None, progress=None,
                    block_size: int = BLOCK_SIZE) -> pd.DataFrame:
    """Measure rank procedures on boards of one scenario: familywise false claims, coverage of
    the true ranks, rank-set length and power, each with its Monte Carlo error.

    Parameters
    ----------
    scenario : str
        ``'arena'`` or ``'item-board'`` (a scenario whose batches hold a leaderboard).
    params : dict, optional
        The scenario's parameters; its defaults otherwise.
    procedures : sequence of str or callable
        Registered rank procedures (criteria that need a leaderboard), e.g.
        ``'board-bootstrap(n_boot=500)'``, or your own (:func:`get_procedure`).
    n_reps : int
        Boards.
    seed : int
        Root seed; block b of the boards is drawn from ``SeedSequence(seed, spawn_key=(0, b))``.
    n_jobs, cache, progress, block_size
        As :func:`evalmc.run_study`; results do not depend on `n_jobs`.

    Returns
    -------
    DataFrame
        A row per procedure: ``models``, ``boards``, ``failed``, then each measure of the
        module docstring and its ``_mcse``.

    Examples
    --------
    >>> from evalmc.study.leaderboard import run_leaderboard
    >>> arena = {"models": 4, "tied": 2, "spacing": 0.3, "battles": 1000}
    >>> frame = run_leaderboard("arena", arena, ["board-bootstrap", "board-holm"], n_reps=200,
    ...                         seed=1, progress=False)
    >>> frame[["procedure", "false_claim", "coverage", "length", "power"]].round(3)
             procedure  false_claim  coverage  length  power
    0  board-bootstrap        0.020     0.980   2.148  0.737
    1       board-holm        0.015     0.985   2.918  0.430
    """
    condition = get_scenario(scenario)(**(params or {}))
    return run_boards(condition, procedures, n_reps=n_reps, seed=seed, n_jobs=n_jobs,
                      cache=cache, progress=progress, block_size=block_size)


def get_procedure(spec):
    """A rank procedure: a registered one by name (``'board-bootstrap(n_boot=500)'``), or a
    user's own, ``'path/to/file.py:function'`` or a callable
    (:mod:`evalmc.criteria.board_user` gives the contract)."""
    if callable(spec) or (isinstance(spec, str) and ":" in spec
                          and spec.rsplit(":", 1)[0].endswith(".py")):
        from evalmc.criteria.board_user import load_rank_procedure

        return load_rank_procedure(spec)
    return get_criterion(spec)


def run_boards(condition, procedures=PROCEDURES, *, n_reps: int, seed: int = 0,
               n_jobs: int = 1, cache=None, progress=None,
               block_size: int = BLOCK_SIZE) -> pd.DataFrame:
    """:func:`run_leaderboard` on a scenario object: any board whose batches hold a
    leaderboard and whose ``strengths`` are its truth (one simulated like a real board too)."""
    n_reps = check_int("n_reps", n_reps, low=1)
    criteria = [get_procedure(p) for p in procedures]
    if not criteria:
        raise ValueError("`procedures` must name at least one rank procedure.")
    for crit in criteria:
        crit.check_scenario(condition)
    plan = engine.Plan({0: condition}, [_BoardRun(c) for c in criteria], n_reps, seed,
                       block_size)
    out = engine.run(plan, n_jobs=n_jobs, cache=cache, progress=progress,
                     desc=f"evalmc {condition.name}")
    return pd.DataFrame([{"procedure": c.name, "models": condition.models,
                          **summarise(out.tallies[(0, f"board:{c.key}")])} for c in criteria])


def leaderboard_table(designs: str = "abcd", *, scale: str = "quick", n_reps=None,
                      seed: int = 0, n_jobs: int = 1, procedures=TABLE_PROCEDURES, cache=None,
                      progress=None) -> pd.DataFrame:
    """The side-by-side table: every procedure on every design of :data:`DESIGNS`.

    Parameters
    ----------
    designs : str
        Letters of :data:`DESIGNS`, in the order wanted.
    scale : {'quick', 'paper'}
        Boards per design: :data:`SCALES`.
    n_reps : int, optional
        Boards per design in place of the scale's.
    seed, n_jobs, procedures, cache, progress
        As :func:`run_leaderboard`.

    Returns
    -------
    DataFrame
        A row per design and procedure, the design's letter and label first.

    Examples
    --------
    >>> from evalmc.study.leaderboard import leaderboard_table
    >>> table = leaderboard_table("a", procedures=["board-holm"], progress=False)
    >>> table[["design", "procedure", "boards", "false_claim"]]
      design   procedure  boards  false_claim
    0      a  board-holm     400          0.0
    """
    check_choice("scale", scale, tuple(SCALES))
    n_reps = SCALES[scale] if n_reps is None else n_reps
    frames = []
    for letter in designs:
        check_choice("design", letter, tuple(DESIGNS))
        name, params, label = DESIGNS[letter]
        frame = run_leaderboard(name, params, procedures, n_reps=n_reps, seed=seed,
                                n_jobs=n_jobs, cache=cache, progress=progress)
        frame.insert(0, "label", label)
        frame.insert(0, "design", letter)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def write_leaderboard(out, *, scale: str = "quick", seed: int = 0, n_jobs: int = 1,
                      progress=None) -> pd.DataFrame:
    """Write the side-by-side table (``table.csv``, ``table.md``) and its figure
    (``figure.png``) into the folder `out`; returns the table.

    Parameters
    ----------
    out : path
        The folder, made if missing.
    scale, seed, n_jobs, progress
        As :func:`leaderboard_table`.

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from evalmc.study import leaderboard
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = leaderboard.write_leaderboard(folder.name)  # doctest: +SKIP
    >>> sorted(p.name for p in Path(folder.name).iterdir())  # doctest: +SKIP
    ['figure.png', 'table.csv', 'table.md']
    >>> folder.cleanup()
    """
    from pathlib import Path

    from evalmc.plots import leaderboard_figure

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    table = leaderboard_table(scale=scale, seed=seed, n_jobs=n_jobs, progress=progress)
    table.to_csv(folder / "table.csv", index=False, float_format="%.4f")
    (folder / "table.md").write_text(markdown(table, scale, seed))
    leaderboard_figure(table).savefig(folder / "figure.png", dpi=120)
    return table


def markdown(table: pd.DataFrame, scale: str, seed: int) -> str:
    """The table as Markdown: each measure with its Monte Carlo error in parentheses."""
    lines = [f"Rank procedures at 95%, {scale} scale ({table['boards'].iloc[0]:,} boards per "
             f"design, seed {seed}); Monte Carlo standard errors in parentheses.", "",
             "| design | procedure | false claim | coverage | coverage (low rank) | coverage "
             "(marginal) | length | power |", "|---|---|---|---|---|---|---|---|"]
    for _, row in table.iterrows():
        cells = [f"{row[name]:.3f} ({row[name + '_mcse']:.3f})" for name in (*RATES, *MEANS)]
        lines.append(f"| {row['label']} | {row['procedure']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
