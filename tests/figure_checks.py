"""A check shared by the reproductions' tests: every figure of a paper reads cleanly."""

import importlib

import pandas as pd

from evalmc.reproductions.report import layout_problems


def layout_of(paper: str, out) -> dict:
    """``{figure: problems}`` of every figure of `paper`, drawn from its CSV under `out`."""
    module = importlib.import_module(f"evalmc.reproductions.{paper}")
    found = {}
    for figure in module.FIGURES:
        drawn = figure.plot(pd.read_csv(out / paper / f"{figure.name}.csv"))
        drawn.suptitle(figure.title)
        found[figure.name] = layout_problems(drawn)
    return found
