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


def rate_panels(summary, *, x: str, panel: str | None = None, title: str = "") -> Figure:
    """Rejection rate against the design column `x`, a line per criterion with its 95% Wilson
    interval, a panel per value of `panel`: the rows at the study's first level (and
    decision-only rows), the level dashed with Bradley's band [0.5, 1.5] alpha shaded on null
    rows. `x` is on a log scale when its values are positive and span a factor of 10.
    """
    levels = summary["alpha"].dropna()
    alpha = float(levels.iloc[0]) if len(levels) else None
    rows = summary[summary["alpha"].isna() | (summary["alpha"] == alpha)]
    keys = list(dict.fromkeys(rows[panel])) if panel else [None]
    fig = Figure(figsize=(3.6 * len(keys) + 0.6, 3.4), layout="constrained")
    axes = fig.subplots(1, len(keys), squeeze=False, sharey=True).ravel()
    values = rows[x].to_numpy(float)
    log = bool(values.min() > 0 and values.max() >= 10 * values.min())
    for ax, key in zip(axes, keys, strict=True):
        part = rows if key is None else rows[rows[panel] == key]
        for name, line in part.groupby("criterion", sort=False):
            line = line.sort_values(x)
            ax.errorbar(line[x], line["rate"], yerr=[line["rate"] - line["ci_low"],
                                                     line["ci_high"] - line["rate"]],
                        marker="o", ms=3, capsize=2, label=name)
        if alpha is not None and (part["truth"] == "null").all():
            ax.axhline(alpha, color="k", ls="--", lw=0.8)
            ax.axhspan(0.5 * alpha, 1.5 * alpha, color="0.85", zorder=0)
        if log:
            ax.set_xscale("log")
        ax.set_xlabel(x, fontsize=8)
        ax.tick_params(labelsize=7)
        if key is not None:
            ax.set_title(f"{panel} = {key:g}" if isinstance(key, float) else f"{panel} = {key}",
                         fontsize=9)
    axes[0].set_ylabel("rejection rate (95% Wilson interval)", fontsize=8)
    axes[-1].legend(fontsize=7, loc="best")
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def critical_difference(mean_ranks: dict, cd: float, *, title: str = "") -> Figure:
    """Demsar's (2006) critical-difference diagram.

    Models sit on an axis of mean rank (1, the best, on the left), labelled below, half on
    each side; the bar above the axis is `cd`; a thick line joins each maximal group of models
    whose mean ranks differ by less than `cd` (not significantly different).
    """
    names = sorted(mean_ranks, key=mean_ranks.get)
    ranks = np.array([mean_ranks[n] for n in names])
    k = len(names)
    groups = [(i, j) for i in range(k) for j in range(k - 1, i, -1)
              if ranks[j] - ranks[i] < cd]
    groups = [g for g in groups
              if not any(h != g and h[0] <= g[0] and g[1] <= h[1] for h in groups)]
    half = (k + 1) // 2
    rows = max(half, k - half)
    fig = Figure(figsize=(6.4, 1.6 + 0.28 * (rows + len(groups))), layout="constrained")
    ax = fig.add_subplot()
    top = 0.0
    ax.hlines(top, 1, k, color="k", lw=1)
    for r in range(1, k + 1):
        ax.vlines(r, top, top + 0.08, color="k", lw=1)
        ax.text(r, top + 0.12, str(r), ha="center", va="bottom", fontsize=8)
    ax.hlines(top + 0.55, 1, 1 + cd, color="k", lw=1.5)
    ax.vlines([1, 1 + cd], top + 0.5, top + 0.6, color="k", lw=1)
    ax.text(1 + cd / 2, top + 0.62, f"CD = {cd:.3f}", ha="center", va="bottom", fontsize=8)
    for g, (i, j) in enumerate(groups):
        y = top - 0.15 - 0.12 * g
        ax.hlines(y, ranks[i] - 0.03, ranks[j] + 0.03, color="k", lw=3)
    base = top - 0.25 - 0.12 * len(groups)
    for idx, (name, r) in enumerate(zip(names, ranks, strict=True)):
        left = idx < half
        row = idx if left else k - 1 - idx
        y = base - 0.25 * row
        x_end = 0.6 if left else k + 0.4
        ax.plot([r, r, x_end], [top, y, y], color="0.3", lw=0.8)
        ax.text(x_end + (-0.05 if left else 0.05), y, f"{name} ({r:.2f})",
                ha="right" if left else "left", va="center", fontsize=8)
    ax.set_xlim(-0.9, k + 1.9)
    ax.set_ylim(base - 0.25 * rows, top + 0.9)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=9)
    return fig
