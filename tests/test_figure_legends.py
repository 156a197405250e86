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
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from evalmc.lessons import get_lesson
from evalmc.lessons.registry import LESSONS
from evalmc.plots import leaderboard_figure, rate_panels
from evalmc.reproductions.registry import FIGURES
from evalmc.reproductions.runner import figures
from evalmc.study.estimation import EstimationResult
from evalmc.study.rates import reps_title

FOLDER = Path(__file__).resolve().parents[1] / "figures"
#: Faint fills, drawn as background bands: a legend may cover them.
FAINT = 0.35
#: The reproduction figures with a legend inside a panel, where it can cover data: drawn by
#: default. The others, whose legend sits below the panels (placed by the layout) or which have
#: none, take about 15 s to draw (giles1997.fig8 another 15 s to recompute its tests) and run
#: with ``-m slow``, which also checks that this list is complete.
PANEL_LEGENDS = {"bajgar2018.fig1", "bajgar2018.fig3", "giles1997.testsize", "giles1997.fig7",
                 "bouthillier2021.sensitivity", "bouthillier2021.figc1", "bouthillier2021.eq7"}


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


@pytest.mark.parametrize("spec", [s if s in PANEL_LEGENDS else pytest.param(
    s, marks=pytest.mark.slow) for s in FIGURES])
def test_no_legend_covers_data_in_a_reproduction_figure(spec):
    assert legend_problems(_drawn_reproduction(spec)) == []


@pytest.mark.slow
def test_the_figures_drawn_by_default_are_those_with_a_legend_in_a_panel():
    found = {spec for spec in FIGURES
             if any(ax.get_legend() is not None for ax in _drawn_reproduction(spec).axes)}
    assert found == PANEL_LEGENDS


@pytest.mark.parametrize("name", list(LESSONS))
def test_no_legend_covers_data_in_a_lesson_figure(name):
    fig = get_lesson(name).plot(pd.read_csv(FOLDER / "lessons" / f"{name}.csv"))
    assert legend_problems(fig) == []


def _coverage() -> Figure:
    """``figures/coverage/bootstrap_mean.png`` as ``evalmc coverage --plot`` draws it: the
    result's plot, on a stand-in holding what it reads (the summary, the design, the reps)."""
    frame = pd.read_csv(FOLDER / "coverage" / "bootstrap_mean.csv")
    result = SimpleNamespace(summary=frame, n_reps=20000, target_mcse=None,
                             design=frame[["condition_id", "n_a"]].drop_duplicates(),
                             scenario=SimpleNamespace(name="normal"))
    return EstimationResult.plot(result, measure="coverage")


def _llm_size() -> Figure:
    """``figures/llm-evals/size.png`` as ``evalmc calibrate --plot`` draws it (its title too)."""
    frame = pd.read_csv(FOLDER / "llm-evals" / "size.csv", keep_default_na=False,
                        na_values=["", "nan"])  # truth 'null' is a word, not a missing value
    reps = reps_title(SimpleNamespace(n_reps=4000, target_mcse=None))
    return rate_panels(frame, x="n_clusters", panel="tau", title="Size of each criterion by "
                       f"n_clusters, a panel per tau (llm-items; {reps}; icc=0.3)")


#: The figures of other commands that redraw from their committed CSV in well under a second.
COMMANDS = {"coverage/bootstrap_mean": _coverage, "llm-evals/size": _llm_size,
            "leaderboard/figure": lambda: leaderboard_figure(
                pd.read_csv(FOLDER / "leaderboard" / "table.csv"))}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_no_legend_covers_data_in_a_command_figure(name):
    assert legend_problems(COMMANDS[name]()) == []


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
