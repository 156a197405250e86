"""No legend covers data, in every figure redrawn from its committed CSV.

Each reproduction figure is drawn as ``reproductions/report.py:save_figure`` draws it (its
``plot`` on ``figures/<paper>/<name>.csv``, the title as suptitle), each lesson's as
``lessons/runner.py`` does; then each panel's legend must cover none of the panel's data points:
the vertices of its lines (markers, errorbar caps, curve points), the ends of its errorbars, its
scatter points, the rectangles of its bars and the vertices of its opaque fills. A faint band
(alpha at most 0.35: the Monte Carlo bands of ``fill_between``) and a span shaded across the
whole panel (``axvspan``, not in data coordinates) are background, which a legend may sit on. A
figure-level legend must lie outside every panel.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from evalmc.lessons import get_lesson
from evalmc.lessons.registry import LESSONS
from evalmc.reproductions.registry import FIGURES
from evalmc.reproductions.runner import figures

FOLDER = Path(__file__).resolve().parents[1] / "figures"
#: Faint fills, drawn as background bands: a legend may cover them.
FAINT = 0.35
#: Figures whose plot recomputes from the CSV for long (giles1997.fig8: Tukey's HSD on 150 data
#: sets, about 15 s; it has no legend): run with ``-m slow``.
SLOW = {"giles1997.fig8"}


def _drawn_reproduction(spec: str) -> Figure:
    paper, name = spec.split(".")
    (figure,) = [f for f in figures(paper) if f.name == name]
    drawn = figure.plot(pd.read_csv(FOLDER / paper / f"{name}.csv"))
    drawn.suptitle(figure.title, fontsize=11)
    return drawn


def _points(ax) -> np.ndarray:
    """Display coordinates of `ax`'s data points (lines, errorbars, scatters, opaque fills)."""
    found = [line.get_transform().transform(np.column_stack(
        [line.get_xdata(), line.get_ydata()]).astype(float))
             for line in ax.get_lines() if line.get_visible()]
    for c in (c for c in ax.collections if c.get_visible()):
        if isinstance(c, PathCollection):
            found.append(c.get_offset_transform().transform(np.asarray(c.get_offsets(), float)))
        elif isinstance(c, LineCollection):
            found += [c.get_transform().transform(np.asarray(s, float))
                      for s in c.get_segments()]
        elif isinstance(c, PolyCollection) and c.get_facecolor()[:, 3].max(
                initial=0) * (1 if c.get_alpha() is None else c.get_alpha()) > FAINT:
            found += [c.get_transform().transform(p.vertices) for p in c.get_paths()]
    xy = np.concatenate([np.empty((0, 2)), *[f.reshape(-1, 2) for f in found]])
    xy = xy[np.isfinite(xy).all(axis=1)]
    box = ax.bbox
    return xy[(xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1) & (xy[:, 1] >= box.y0)
              & (xy[:, 1] <= box.y1)]


def _bars(ax) -> list:
    """Display boxes of `ax`'s bars: rectangles in data coordinates (not spans across it)."""
    return [p.get_window_extent() for p in ax.patches if isinstance(p, Rectangle)
            and p.get_visible() and p.get_transform().contains_branch(ax.transData)]


def _overlap(a, b, pixels: float = 1.0) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > pixels
            and min(a.y1, b.y1) - max(a.y0, b.y0) > pixels)


def legend_problems(fig: Figure) -> list[str]:
    """One line per legend that covers data of its panel, or a figure legend over a panel."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    out = []
    for i, ax in enumerate(fig.axes):
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box, name = legend.get_window_extent(renderer), ax.get_title() or f"panel {i + 1}"
        xy = _points(ax)
        inside = ((xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) & (xy[:, 1] > box.y0)
                  & (xy[:, 1] < box.y1))
        if inside.any():
            out.append(f"{name}: the legend covers {int(inside.sum())} data points")
        bars = sum(_overlap(bar, box) for bar in _bars(ax))
        if bars:
            out.append(f"{name}: the legend covers {bars} bars")
    for legend in fig.legends:
        box = legend.get_window_extent(renderer)
        out += [f"the figure legend overlaps panel {i + 1}" for i, ax in enumerate(fig.axes)
                if _overlap(ax.bbox, box)]
    return out


@pytest.mark.parametrize("spec", [pytest.param(s, marks=pytest.mark.slow) if s in SLOW else s
                                  for s in FIGURES])
def test_no_legend_covers_data_in_a_reproduction_figure(spec):
    assert legend_problems(_drawn_reproduction(spec)) == []


@pytest.mark.parametrize("name", list(LESSONS))
def test_no_legend_covers_data_in_a_lesson_figure(name):
    fig = get_lesson(name).plot(pd.read_csv(FOLDER / "lessons" / f"{name}.csv"))
    assert legend_problems(fig) == []


def test_the_check_fails_a_legend_over_a_point_or_a_bar_and_passes_one_beside_them():
    fig = Figure(figsize=(6, 3))
    left, right = fig.subplots(1, 2)
    left.plot([0, 1, 2], [0, 0, 1], "o-", label="a curve")
    left.fill_between([0, 2], [0.9, 0.9], [1, 1], alpha=0.2)  # a faint band: background
    left.legend(loc="upper right")
    right.bar([0, 1], [1, 1], label="bars")
    right.errorbar([0, 1], [0.5, 0.5], yerr=0.1, fmt="none", capsize=2)
    right.legend(loc="center")
    assert legend_problems(fig) == ["panel 1: the legend covers 1 data points",
                                    "panel 2: the legend covers 2 bars"]
    left.legend(loc="upper left")
    right.get_legend().remove()
    fig.legend(loc="center")
    assert legend_problems(fig) == ["the figure legend overlaps panel 1",
                                    "the figure legend overlaps panel 2"]
    fig.legends.clear()
    fig.legend(loc="outside lower center")
    fig.set_layout_engine("constrained")
    assert legend_problems(fig) == []
