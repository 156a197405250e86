"""A check shared by the reproductions' tests: every figure of a paper reads cleanly."""

import pandas as pd

from evalmc.reproductions.report import layout_problems
from evalmc.reproductions.runner import figures


def layout_of(paper: str, out) -> dict:
    """``{figure: problems}`` of every figure of `paper`, drawn from its CSV under `out`."""
    found = {}
    for figure in figures(paper):
        drawn = figure.plot(pd.read_csv(out / paper / f"{figure.name}.csv"))
        drawn.suptitle(figure.title)
        found[figure.name] = layout_problems(drawn)
    return found
