"""Generic plots of run results: histograms, and box-whiskers beside mean +- sd.

Figure-level functions build and return a ``matplotlib.figure.Figure`` (never saved or
shown); the ``draw_*`` functions draw into a given axes, for composing figures.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure


def axes_or_new(ax=None, *, figsize=(6, 4)):
    """`ax`, or the axes of a new Figure of `figsize` (for result objects' ``plot(ax=None)``)."""
    if ax is None:
        ax = Figure(figsize=figsize, layout="constrained").add_subplot()
    return ax


def draw_histogram(ax, values, *, title: str = "", xlabel: str = "", bins: int = 20) -> None:
    """Histogram whose ordinate is the percentage of results in each bin (as in the paper)."""
    values = np.asarray(values, dtype=float)
    ax.hist(values, bins=bins, weights=np.full(values.size, 100.0 / values.size),
            color="tab:blue", edgecolor="white")
    ax.set_title(title, fontsize=9)
    ax.set_ylabel("% of runs", fontsize=8)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.tick_params(labelsize=7)


def draw_box_vs_mean_sd(ax, samples: dict, *, ylabel: str = "") -> None:
    """For each sample a box-whiskers (left) and its mean +- 1 sd (right).

    The box is the IQR, the bar the median, the whiskers reach the minimum and maximum
    (Tukey 1977, as in the paper's Figs 3 and 5).
    """
    values = [np.asarray(v, dtype=float) for v in samples.values()]
    centres = np.arange(len(values)) * 2.0
    ax.boxplot(values, positions=centres - 0.35, widths=0.5, whis=(0, 100),
               medianprops={"color": "black"})
    ax.errorbar(centres + 0.35, [v.mean() for v in values],
                yerr=[v.std(ddof=1) for v in values], fmt="o", color="tab:red", capsize=4,
                label="mean ± sd")
    ax.set_xticks(centres, list(samples), fontsize=8)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8, loc="best")


def histograms(samples: dict, *, ncols: int = 1, xlabel: str = "") -> Figure:
    """One histogram per sample (panel title to values), `ncols` panels per row."""
    nrows = -(-len(samples) // ncols)
    fig = Figure(figsize=(4 * ncols, 2.2 * nrows + 0.4), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax, (title, values) in zip(axes, samples.items(), strict=False):
        draw_histogram(ax, values, title=title, xlabel=xlabel)
    for ax in axes[len(samples):]:
        ax.set_visible(False)
    return fig


def box_vs_mean_sd(samples: dict, *, ylabel: str = "", title: str = "") -> Figure:
    """Box-whiskers beside mean +- sd for each sample (label to values)."""
    fig = Figure(figsize=(1.4 * len(samples) + 1.5, 3.6), layout="constrained")
    ax = fig.add_subplot()
    draw_box_vs_mean_sd(ax, samples, ylabel=ylabel)
    ax.set_title(title, fontsize=9)
    return fig


def report_figure(samples: dict) -> Figure:
    """The descriptive report's figure: histograms (left), box-whiskers vs mean +- sd (right)."""
    fig = Figure(figsize=(8, max(3.0, 1.8 * len(samples))), layout="constrained")
    left, right = fig.subfigures(1, 2)
    for ax, (title, values) in zip(left.subplots(len(samples), 1, squeeze=False).ravel(),
                                   samples.items(), strict=True):
        draw_histogram(ax, values, title=title)
    draw_box_vs_mean_sd(right.add_subplot(), samples)
    return fig
