"""What the reproductions' tests share: a paper's quick-scale figures, and a check that every
figure of a paper reads cleanly."""

import main_job
import pandas as pd

from evalmc.reproductions.report import layout_problems
from evalmc.reproductions.runner import figures, reproduce


def quick_reproduction(paper: str, tmp_path_factory, n_jobs=2):
    """``(out, {id: check})`` of `paper` at the quick scale: the figures CI's main job has
    just written under ``out`` when .ci/run vouches for them (tests/main_job.py), else
    computed here into a temporary ``out``."""
    found = main_job.figures(paper)
    if found is None:
        out = tmp_path_factory.mktemp("figures")
        found = out, reproduce(paper, scale="quick", out=out, n_jobs=n_jobs,
                               log=lambda _: None)
    out, checks = found
    return out, {c.id: c for c in checks}


def layout_of(paper: str, out) -> dict:
    """``{figure: problems}`` of every figure of `paper`, drawn from its CSV under `out`."""
    found = {}
    for figure in figures(paper):
        drawn = figure.plot(pd.read_csv(out / paper / f"{figure.name}.csv"))
        drawn.suptitle(figure.title)
        found[figure.name] = layout_problems(drawn)
    return found
