"""Lesson ``rank-one-tie``: a leaderboard's rank 1 is often a tie.

Study: the ``arena`` scenario: 5 models, strengths 0.3 apart (logit), the top k of them tied
(k = 1 to 4), 2,000 battles on 20 prompts each reused 100 times, with a prompt x model effect
of sd 1; on each board, whether a rank procedure names one model rank 1 alone (claims it better
than every other): the Arena's percentile bootstrap over battles (``board-bootstrap``), the
bootstrap over prompts (``board-prompt-bootstrap``) and the sandwich intervals clustered by
prompt (``board-wald``), each with the Arena's rule at 95%. With k >= 2 there is no true rank 1,
and every board that names one makes a false claim.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalmc.engine.analysis import Analysis
from evalmc.engine.tallies import RecordsTally
from evalmc.lessons.base import Lesson, Regression
from evalmc.lessons.figures import curves, finish, level, new_figure
from evalmc.lessons.studies import pick

TIED = (1, 2, 3, 4)
#: The arena's parameters besides `tied`.
ARENA = {"models": 5, "spacing": 0.3, "battles": 2000, "prompts": 20, "prompt_sd": 1.0}
PROCEDURES = {"board-bootstrap": "bootstrap over battles (the Arena's)",
              "board-prompt-bootstrap": "bootstrap over prompts",
              "board-wald": "sandwich intervals, clustered by prompt"}
TITLE = "Top two tied: the Arena's bootstrap still names one rank 1 on 28% of boards"


@dataclass(frozen=True)
class _Crowns(Analysis):
    """A rank procedure's boards, recording whether each names one model rank 1 alone."""

    criterion: object
    tally_type = RecordsTally

    @property
    def key(self) -> str:
        return f"rank-one:{self.criterion.key}"

    @property
    def uses_rng(self) -> bool:
        return self.criterion.uses_rng

    def run(self, batch, rng):
        self.criterion.check_batch(batch)
        return self.criterion.test.claims(batch, rng)

    def tallies(self, result, starts, scenario):
        m = result.better.shape[-1]
        crowned = (result.better.sum(axis=2) == m - 1).any(axis=1)
        out = []
        for s, e in zip(starts[:-1], starts[1:], strict=True):
            failed = result.failed[s:e]
            rows = {"rep": np.flatnonzero(~failed), "crowned": crowned[s:e][~failed]}
            errors = {int(r) - int(s): msg for r, msg in result.errors.items() if s <= r < e}
            out.append((RecordsTally(int(e - s), rows, failed=int(failed.sum())), errors))
        return out


def _compute(n_reps, seed, n_jobs=1):
    from evalmc.criteria import get_criterion
    from evalmc.engine import scheduler
    from evalmc.sims.leaderboard import Arena
    from evalmc.stats.mcse import rate_mcse

    criteria = [get_criterion(name) for name in PROCEDURES]
    plan = scheduler.Plan({k: Arena(tied=k, **ARENA) for k in TIED},
                          [_Crowns(c) for c in criteria], n_reps, seed, 100)
    out = scheduler.run(plan, n_jobs=n_jobs, progress=False)
    rows = []
    for k in TIED:
        for crit in criteria:
            tally = out.tallies[(k, f"rank-one:{crit.key}")]
            rate, mcse = rate_mcse(int(tally.columns["crowned"].sum()), tally.n - tally.failed)
            rows.append({"tied": k, "procedure": crit.name, "rate": float(rate),
                         "mcse": float(mcse), "n_reps": tally.n})
    return pd.DataFrame(rows)


def _headline(frame):
    return pick(frame, "share of boards with the top two tied on which the Arena's bootstrap "
                "names one model rank 1", tied=2, procedure="board-bootstrap")


def _plot(frame):
    fig, (ax,) = new_figure(TITLE, width=11)
    curves(ax, frame, "tied", "rate", "procedure", err="mcse", labels=PROCEDURES,
           xlabel="models tied at the top (of 5; 2,000 battles on 20 prompts)",
           ylabel="boards naming one model rank 1")
    ax.set_xticks(list(TIED), ["1\n(a true #1)", "2\n(no true #1)",
                               *(str(k) for k in TIED[2:])])
    ax.set_ylim(-0.02, 0.62)
    level(ax, 0.05, "5%: the most a 95% board may err")
    return finish(fig)


LESSON = Lesson(
    id="rank-one-tie",
    name="A leaderboard's rank 1 is often a tie",
    title=TITLE,
    question="An arena leaderboard puts one model at rank 1, and its bootstrap intervals say "
             "it is ahead of the runner-up. Is it the best model?",
    predict=("The top two models are exactly as strong. How often does the Arena's "
             "bootstrap over battles name one of them rank 1 alone, when prompts are reused?",
             "And a bootstrap over prompts?",
             "With a true #1, 0.3 logit ahead, how often does the prompt bootstrap name it?"),
    answers=("On more than a quarter of the boards (28%): the table always shows a #1, "
             "and the battle bootstrap backs it five times as often as the 5% its 95% "
             "intervals promise.",
             "On about 2% of them: it leaves rank 1 shared, as it should.",
             "On about 5 boards in 100: at this gap 2,000 battles on 20 prompts cannot "
             "separate the top two, so an honest rank 1 is a tie on most boards either way."),
    explanation="A leaderboard sorted by point estimates always has a rank 1, even when the "
                "top models are tied. Confidence intervals decide whether the data back it, "
                "but only if they see the board's real noise: battles on one prompt move "
                "together (a prompt suits one model more than another), so resampling "
                "battles as if independent makes intervals too narrow and separates tied "
                "models. Resampling prompts, or a sandwich standard error clustered by "
                "prompt, keeps the false #1 near or under 5%, at the price of naming a true "
                "#1 less often: a board this size cannot tell the top models apart.",
    instead="Read rank 1 as a set: the models whose intervals overlap the leader's (or whose "
            "rank set includes 1). Resample the unit that was sampled (prompts, not battles), "
            "and check a board's procedure on boards like it with a known tie (evalmc "
            "leaderboard FILE does both).",
    reps={"class": 400, "full": 4000},
    compute=_compute,
    headline=_headline,
    plot=_plot,
    regression=Regression(200, 0.285),
)
