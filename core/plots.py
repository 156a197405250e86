"""Generic plots of run results: histograms, and box-whiskers beside mean +- sd.

Figure-level functions build and return a ``matplotlib.figure.Figure`` (never saved or
shown); the ``draw_*`` functions draw into a given axes, for composing figures.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure


def axes_or_new(ax=None, *, figsize=(6, 4)):
    """`ax`, or the axes of a new Figure of `figsize` (for result objects' ``plot(ax=None)``)."""
    if ax is None:
        ax = Figure(figsize=figsize, layout="constrained").add_subplot()
    return ax


def draw_histogram(ax, values, *, title: str = "", xlabel: str = "", bins: int = 20) -> None:
    """Histogram of `values` into `ax`, its ordinate the percentage of results in each bin (as in
    the paper)."""
    values = np.asarray(values, dtype=float)
    ax.hist(values, bins=bins, weights=np.full(values.size, 100.0 / values.size),
            color="tab:blue", edgecolor="white")
    ax.set_title(title, fontsize=9)
    ax.set_ylabel("% of runs", fontsize=8)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.tick_params(labelsize=7)
    ax.locator_params(axis="x", nbins=5)  # long tick labels (0.00355) must not run together


def draw_box_vs_mean_sd(ax, samples: dict, *, ylabel: str = "", legend: bool = True) -> None:
    """Into `ax`, for each sample (label to values) a box-whiskers, IQR, median and whiskers to the
    extremes (Tukey 1977, the paper's Figs 3 and 5), beside its mean +- 1 sd; `legend=False`
    leaves the legend to the figure (:func:`legend_below`)."""
    values = [np.asarray(v, dtype=float) for v in samples.values()]
    centres = np.arange(len(values)) * 2.0
    ax.boxplot(values, positions=centres - 0.35, widths=0.5, whis=(0, 100),
               medianprops={"color": "black"})
    ax.errorbar(centres + 0.35, [v.mean() for v in values],
                yerr=[v.std(ddof=1) for v in values], fmt="o", color="tab:red", capsize=4,
                label="mean ± sd")
    ax.set_xticks(centres, list(samples), fontsize=8)
    ax.set_ylabel(ylabel)
    if legend:
        ax.legend(fontsize=8, loc="best")


def legend_below(fig, ax) -> None:
    """`ax`'s legend entries as one legend below the panels of `fig`, where it covers no data."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels), fontsize=8)


def histograms(samples: dict, *, ncols: int = 1, xlabel: str = "") -> Figure:
    """One histogram per sample (panel title to values), `ncols` panels per row, the empty ones
    hidden."""
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
    """The descriptive report's figure: a histogram per sample (left), box-whiskers vs mean +- sd
    (right)."""
    fig = Figure(figsize=(8, max(3.0, 1.8 * len(samples))), layout="constrained")
    left, right = fig.subfigures(1, 2)
    for ax, (title, values) in zip(left.subplots(len(samples), 1, squeeze=False).ravel(),
                                   samples.items(), strict=True):
        draw_histogram(ax, values, title=title)
    draw_box_vs_mean_sd(right.add_subplot(), samples)
    return fig


def rate_panels(summary, *, x: str, panel: str | None = None, series=(),
                title: str = "") -> Figure:
    """Rejection rate against the design column `x` with its 95% Wilson interval, a line per
    criterion and value of the `series` columns, a panel per value of `panel`.

    The rows at the study's first level (and decision-only rows); the level dashed with Bradley's
    band shaded on null rows; a line's null and alternative rows drawn apart (size and power are
    never joined); `x` on a log scale when positive and spanning a factor of 10.
    """
    levels = summary["alpha"].dropna()
    alpha = float(levels.iloc[0]) if len(levels) else None
    rows = summary[summary["alpha"].isna() | (summary["alpha"] == alpha)]
    keys = list(dict.fromkeys(rows[panel])) if panel else [None]
    fig = Figure(figsize=(3.6 * len(keys) + 0.6, 3.4), layout="constrained")
    axes = fig.subplots(1, len(keys), squeeze=False, sharey=True).ravel()
    values = rows[x].to_numpy(float)
    log = bool(values.min() > 0 and values.max() >= 10 * values.min())
    by = ["criterion", *series]
    for ax, key in zip(axes, keys, strict=True):
        part = rows if key is None else rows[rows[panel] == key]
        for names, line in part.groupby(by, sort=False):
            label, color = _series_label(by, names, 1), None
            for _, points in line.sort_values(x).groupby("truth", sort=False):
                bars = ax.errorbar(points[x], points["rate"],
                                   yerr=[points["rate"] - points["ci_low"],
                                         points["ci_high"] - points["rate"]],
                                   marker="o", ms=3, capsize=2, label=label, color=color)
                label, color = None, bars[0].get_color()  # one legend entry, one colour
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


def rate_plot(summary, design, *, alpha=(), title: str = "", ax=None, x: str | None = None):
    """Rejection rate with its 95% Wilson interval, a marker per criterion and condition, against
    `x` (default: the one design column that varies, else the conditions): ``StudyResult.plot``."""
    x, varying, design_cols = _rate_plot_x(design, x)
    numeric = x is not None and pd.api.types.is_numeric_dtype(design[x])
    positions, labels = _rate_positions(summary, design, x, numeric, varying or design_cols)
    ax = axes_or_new(ax, figsize=(6, 4))
    series = ["criterion", "alpha", *(c for c in varying if x is not None and c != x)]
    _draw_rate_series(ax, summary, positions, series, numeric, len(alpha))
    _finish_rate_axes(ax, x, labels, alpha, title)
    return ax.figure


def _value_text(value) -> str:
    """A design value or level as a label shows it: floats by ``:g``, the rest by ``str``."""
    return f"{value:g}" if isinstance(value, (float, np.floating)) else str(value)


def _rate_plot_x(design, x):
    """The horizontal axis of :func:`rate_plot` (`x`, the one varying design column, or None), the
    varying design columns and every design column; ValueError when `x` is not one."""
    design_cols = [c for c in design.columns if c != "condition_id"]
    varying = [c for c in design_cols if design[c].nunique() > 1]
    if x is not None and x not in design_cols:
        raise ValueError(f"`x` must be a design column ({', '.join(design_cols)}); "
                         f"got {x!r}.")
    if x is None and len(varying) == 1:
        x = varying[0]
    return x, varying, design_cols


def _rate_positions(summary, design, x, numeric, shown):
    """Each summary row's position on the horizontal axis (a numeric `x`'s values, else categories
    from 0), and the categories' labels (None on a numeric axis)."""
    if numeric:
        return summary[x].to_numpy(float), None
    if x is None:
        keys = design["condition_id"].tolist()
        labels = [", ".join(f"{c}={_value_text(row[c])}" for c in shown)
                  for row in design.to_dict("records")]
    else:
        keys = list(pd.unique(design[x]))
        labels = [_value_text(k) for k in keys]
    order = {key: i for i, key in enumerate(keys)}
    return summary["condition_id" if x is None else x].map(order).to_numpy(float), labels


def _draw_rate_series(ax, summary, positions, series, numeric, n_levels) -> None:
    """One errorbar series per value of the `series` columns, dodged side by side: joined by lines
    on a numeric axis, markers only on a categorical one."""
    groups = list(summary.assign(_x=positions).groupby(series, sort=False, dropna=False))
    step = 0.01 * (np.ptp(positions) or 1.0) if numeric else min(0.6 / len(groups), 0.15)
    for i, (key, rows) in enumerate(groups):
        ax.errorbar(rows["_x"] + (i - (len(groups) - 1) / 2) * step, rows["rate"],
                    yerr=[rows["rate"] - rows["ci_low"], rows["ci_high"] - rows["rate"]],
                    marker="o", ls="-" if numeric else "none", capsize=2,
                    label=_series_label(series, key, n_levels))


def _finish_rate_axes(ax, x, labels, alpha, title) -> None:
    """The levels' dashed lines, the ticks of a categorical axis, the labels and the legend."""
    for a in alpha:
        ax.axhline(a, color="k", ls="--", lw=0.8)
    if labels is not None:
        ax.set_xticks(range(len(labels)), labels, rotation=30 if x is None else 0,
                      ha="right" if x is None else "center", fontsize=8)
    ax.set(xlabel=x or "condition", ylabel="rejection rate (95% Wilson interval)", title=title)
    ax.legend(fontsize=8)


def _series_label(series, key, n_levels) -> str:
    """Legend label of one series: its criterion, then ``column=value`` of the rest (the level left
    out when the study has one, and for a decision-only criterion)."""
    return ", ".join(
        _value_text(v) if k == "criterion" else f"{k}={_value_text(v)}"
        for k, v in zip(series, key, strict=True)
        if not (k == "alpha" and (np.isnan(v) or n_levels == 1)))


def critical_difference(mean_ranks: dict, cd: float, *, title: str = "") -> Figure:
    """Demsar's (2006) critical-difference diagram: models on an axis of mean rank (1, the best, on
    the left), the bar `cd` above, a thick line joining each maximal group closer than `cd`."""
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


def audit_figure(result) -> Figure:
    """The figure of an :class:`~evalmc.study.audit.AuditResult` (its ``plot()``): each procedure's
    size against Bradley's band, its power against the difference A - B, each interval's coverage.
    """
    from evalmc.stats.mcse import BRADLEY_BAND

    d, s = result.data, result.settings
    alpha = s["alpha"]
    fig = Figure(figsize=(15, 4.8), layout="constrained")
    ax_size, ax_power, ax_cover = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1.3, 1]})
    sizes = result.sizes.iloc[::-1].reset_index(drop=True)
    y = np.arange(len(sizes))
    ax_size.axvspan(BRADLEY_BAND[0] * alpha, BRADLEY_BAND[1] * alpha, color="0.9",
                    label="Bradley's band")
    ax_size.axvline(alpha, color="0.4", lw=1, ls="--", label=f"alpha = {alpha:g}")
    verdict = dict(zip(result.verdicts["procedure"], result.verdicts["verdict"], strict=True))
    colours = {"calibrated": "tab:green", "liberal": "tab:red", "conservative": "tab:orange",
               "undetermined": "0.45"}
    for k, row in sizes.iterrows():
        kind = verdict[row["procedure"]]
        ax_size.errorbar(row["rate"], k, xerr=[[row["rate"] - row["ci_low"]],
                                               [row["ci_high"] - row["rate"]]],
                         fmt="o", color=colours[kind], capsize=3)
    for kind in dict.fromkeys(verdict.values()):
        ax_size.plot([], [], "o", color=colours[kind], label=kind)
    ax_size.set_yticks(y, sizes["procedure"])
    ax_size.set_xlabel("size: rejection rate under the null")
    ax_size.set_title("Does it hold its level?", fontsize=10)
    ax_size.legend(fontsize=8, loc="lower right")
    for k, name in enumerate(result.sizes["procedure"]):
        curve = result.power[result.power["procedure"] == name]
        ax_power.plot(curve["delta"], curve["power"], marker="osD^"[k // 10 % 4], ms=3,
                      color=f"C{k % 10}",  # past 10 procedures the colours repeat: the marker not
                      ls="--" if verdict[name] == "liberal" else "-", label=name)
    ax_power.axhline(0.8, color="0.4", lw=1, ls="--")
    for delta in s["deltas"]:
        ax_power.axvline(abs(delta), color="0.6", lw=0.8, ls=":")
    ax_power.set_ylim(0, 1.02)
    ax_power.set_xlabel("true difference A - B (score points)")
    ax_power.set_ylabel("power (either sign)")
    ax_power.set_title("How much can it detect? (dashed: 80%)", fontsize=10)
    ax_power.legend(fontsize=7, loc="lower right")
    cover = result.coverage.iloc[::-1].reset_index(drop=True)
    y = np.arange(len(cover))
    if len(cover):
        ax_cover.axvline(cover["level"].iloc[0], color="0.4", lw=1, ls="--",
                         label=f"nominal {cover['level'].iloc[0]:g}")
        ax_cover.errorbar(cover["coverage"], y, xerr=1.96 * cover["coverage_mcse"], fmt="s",
                          color="C2", capsize=3)
        ax_cover.set_yticks(y, cover["estimator"])
        ax_cover.legend(fontsize=8, loc="lower left")
    ax_cover.set_xlabel("coverage of A - B under the null")
    ax_cover.set_title("Does its interval cover?", fontsize=10)
    name = ", ".join(f.replace("\\", "/").rsplit("/", 1)[-1] for f in str(d["file"]).split(", "))
    clusters = f"{d['n_clusters']} clusters" if d["cluster"] else "no clusters"
    fig.suptitle(f"Audit of {name}: {d['a']} vs {d['b']}, {d['n_items']} items x "
                 f"{d['n_samples']} samples, {clusters}, on data simulated from its fit",
                 fontsize=11)
    return fig


def leaderboard_figure(table: pd.DataFrame, *, alpha: float = 0.05) -> Figure:
    """The side-by-side table of rank procedures (:func:`evalmc.study.leaderboard.
    leaderboard_table`) in four panels: familywise false-claim rate, simultaneous coverage of
    the true ranks, mean rank-set length (a share of the models) and power, per design, one
    marker per procedure with +- 2 Monte Carlo errors."""
    fig = Figure(figsize=(11, 7), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True).ravel()
    designs = list(dict.fromkeys(table["design"]))
    procedures = list(dict.fromkeys(table["procedure"]))
    width = 0.7 / max(len(procedures), 1)
    panels = (("false_claim", "familywise false-claim rate"),
              ("coverage", "simultaneous coverage of true ranks"),
              ("length", "mean rank-set length / models (1: no resolution)"),
              ("power", "power (pairs truly apart)"))
    for ax, (column, title) in zip(axes, panels, strict=True):
        for k, name in enumerate(procedures):
            rows = table[table["procedure"] == name].set_index("design").reindex(designs)
            x = np.arange(len(designs)) + (k - (len(procedures) - 1) / 2) * width
            scale = rows["models"] if column == "length" else 1.0
            ax.errorbar(x, rows[column] / scale, yerr=2 * rows[f"{column}_mcse"] / scale,
                        fmt="os^"[k // 10 % 3], ms=4, capsize=2, label=name)
        if column == "false_claim":
            ax.axhline(alpha, color="grey", lw=0.8, ls="--")
        if column == "coverage":
            ax.axhline(1 - alpha, color="grey", lw=0.8, ls="--")
        ax.set_title(title, fontsize=9)
        ax.tick_params(labelsize=7)
    labels = dict(zip(table["design"], table["label"], strict=True))
    for ax in axes[2:]:
        ax.set_xticks(np.arange(len(designs)), [labels[d] for d in designs], rotation=12,
                      ha="right", fontsize=7)
    handles, names = axes[0].get_legend_handles_labels()  # below the panels: covers no marker
    fig.legend(handles, names, loc="outside lower center", ncols=min(len(names), 5), fontsize=7)
    fig.suptitle("Rank procedures on leaderboards of known truth: false claims, coverage, "
                 "resolution and power per design (+- 2 MCSE)", fontsize=10)
    return fig
