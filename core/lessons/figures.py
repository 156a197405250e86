"""Figures for a projector: large type, few curves, every rate with its Monte Carlo band.

Each lesson draws its figure with these helpers, so that every figure of the gallery reads
the same way: a title stating the answer, at most four curves a panel, rates with a band of
two Monte Carlo standard errors, and the nominal level as a dashed line.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # figures are written to files, never shown

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

#: Type sizes readable from the back of a classroom.
STYLE = {"font.size": 15, "axes.titlesize": 16, "axes.labelsize": 16, "xtick.labelsize": 14,
         "ytick.labelsize": 14, "legend.fontsize": 13, "figure.titlesize": 17,
         "lines.linewidth": 2.5, "lines.markersize": 8}
#: Curves a panel shows at most.
MAX_CURVES = 4
COLORS = ("#1b6ca8", "#d1495b", "#2e933c", "#8f5aa8")


def new_figure(title: str, ncols: int = 1, width: float = 10.0, height: float = 6.0):
    """A figure of `ncols` panels in the projector style, titled `title`.

    Parameters
    ----------
    title : str
        The lesson's answer, stated (wrapped by the caller where long).
    ncols : int
        Panels side by side.
    width, height : float
        Size in inches.

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : list of Axes

    Examples
    --------
    >>> from evalmc.lessons.figures import new_figure
    >>> fig, axes = new_figure("Student's t rejects too often", ncols=2)
    >>> len(axes), fig.get_suptitle()
    (2, "Student's t rejects too often")
    """
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, ncols, figsize=(width, height), squeeze=False)
        fig.suptitle(title, fontsize=STYLE["figure.titlesize"])
    return fig, list(axes[0])


def curves(ax, frame, x: str, y: str, by: str | None = None, *, err: str | None = None,
           labels: dict | None = None, xlabel: str = "", ylabel: str = "",
           logx: bool = False):
    """Plot `y` against `x`, one curve per value of `by`, with a band of 2 `err` around each.

    Parameters
    ----------
    ax : Axes
    frame : DataFrame
    x, y : str
        Columns.
    by : str, optional
        Column whose values make the curves (at most :data:`MAX_CURVES`).
    err : str, optional
        Column of the Monte Carlo standard errors of `y`.
    labels : dict, optional
        Legend label of each value of `by`.
    xlabel, ylabel : str
        Axis labels.
    logx : bool
        A logarithmic x axis.

    Returns
    -------
    Axes

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.lessons.figures import curves, new_figure
    >>> frame = pd.DataFrame({"n": [5, 10, 5, 10], "rate": [0.1, 0.08, 0.05, 0.05],
    ...                       "mcse": [0.01] * 4, "test": ["a", "a", "b", "b"]})
    >>> fig, (ax,) = new_figure("demo")
    >>> len(curves(ax, frame, "n", "rate", "test", err="mcse").get_lines())
    2
    """
    groups = [(None, frame)] if by is None else list(frame.groupby(by, sort=False))
    if len(groups) > MAX_CURVES:
        raise ValueError(f"a projector panel shows at most {MAX_CURVES} curves; got "
                         f"{len(groups)}.")
    with plt.rc_context(STYLE):
        for color, (key, part) in zip(COLORS, groups, strict=False):
            part = part.sort_values(x)
            label = (labels or {}).get(key, key)
            ax.plot(part[x], part[y], "o-", color=color, label=label)
            if err is not None:
                ax.fill_between(part[x], part[y] - 2 * part[err], part[y] + 2 * part[err],
                                color=color, alpha=0.2, linewidth=0)
        if logx:
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(xlabel, fontsize=STYLE["axes.labelsize"])
        ax.set_ylabel(ylabel, fontsize=STYLE["axes.labelsize"])
        ax.tick_params(labelsize=STYLE["xtick.labelsize"])
        ax.grid(alpha=0.3)
        if by is not None:
            legend(ax)
    return ax


def level(ax, value: float, label: str = "nominal 5%"):
    """A dashed horizontal line at `value` (the nominal level), named in the legend.

    Parameters
    ----------
    ax : Axes
    value : float
    label : str

    Returns
    -------
    Axes

    Examples
    --------
    >>> from evalmc.lessons.figures import level, new_figure
    >>> fig, (ax,) = new_figure("demo")
    >>> level(ax, 0.05).get_lines()[0].get_linestyle()
    '--'
    """
    ax.axhline(value, color="0.3", linestyle="--", linewidth=1.5, label=label)
    return legend(ax)


def legend(ax, loc: str = "best"):
    """The panel's legend, in the projector's type size, without a frame.

    Parameters
    ----------
    ax : Axes
    loc : str
        Matplotlib's legend location.

    Returns
    -------
    Axes

    Examples
    --------
    >>> from evalmc.lessons.figures import legend, new_figure
    >>> fig, (ax,) = new_figure("demo")
    >>> _ = ax.plot([0, 1], [0, 1], label="a line")
    >>> legend(ax).get_legend().get_texts()[0].get_fontsize()
    13.0
    """
    ax.legend(fontsize=STYLE["legend.fontsize"], frameon=False, loc=loc)
    return ax


def finish(fig):
    """Lay `fig` out so that nothing overlaps and the title fits.

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from evalmc.lessons.figures import finish, new_figure
    >>> fig, _ = new_figure("demo")
    >>> finish(fig) is fig
    True
    """
    fig.tight_layout()
    return fig
