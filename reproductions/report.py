"""Figures, the papers' targets as data, and figures/REPORT.md.

A paper module declares its targets in one :class:`Targets` table: for each, the claim, the
paper's value, the tolerance, the sentence of the paper it comes from, and its role. Its
figures' ``check`` functions measure and judge; the table supplies everything else, so a
target is stated once, next to its source.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from evalmc.estimators.intervals import get_estimator

#: What a row of the report is.
#:
#: - ``'target'``: a claim of the paper, judged pass or fail; the count of targets met.
#: - ``'calibration'``: a summary the simulation was fitted to; its pass checks the fit, not
#:   the paper's claim.
#: - ``'extension'``: our own check beyond the paper (e.g. under another definition of H0),
#:   judged, but not counted against the paper.
#: - ``'finding'``: a measured value the paper does not state, or states without a number;
#:   reported, never judged.
ROLES = ("target", "calibration", "extension", "finding")


@dataclass(frozen=True)
class Target:
    """One target of a paper.

    Attributes
    ----------
    id : str
        Short id, unique within the paper (``'K1'``).
    claim : str
        What is checked, in words.
    paper : str
        The paper's value or statement, as the report prints it.
    source : str
        The paper's sentence the target rests on, quoted, with where it stands.
    tolerance : str
        How far ours may be from the paper's value, as printed (``'±0.3'``, ``'2 MCSE'``).
    role : str
        One of :data:`ROLES`.
    value, tol : float, optional
        For a numeric target: the paper's number and the tolerance; ours passes when
        ``|ours - value| <= tol``.

    Examples
    --------
    >>> from evalmc.reproductions.report import Target
    >>> target = Target("X1", "y at 1", paper="2", source='"y(1) = 2" (Sec 1)',
    ...                 tolerance="±0.1", value=2.0, tol=0.1)
    >>> target.role, target.value, target.tol
    ('target', 2.0, 0.1)
    >>> Target("X2", "z at 1", paper="3", source='"z(1) = 3" (Sec 2)', value=3.0)
    Traceback (most recent call last):
    ...
    ValueError: target X2: give both `value` and `tol`, or neither.
    """

    id: str
    claim: str
    paper: str
    source: str
    tolerance: str = "-"
    role: str = "target"
    value: float | None = None
    tol: float | None = None

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"`role` must be one of {', '.join(ROLES)}; got {self.role!r}.")
        if (self.value is None) != (self.tol is None):
            raise ValueError(f"target {self.id}: give both `value` and `tol`, or neither.")
        if not self.source.strip():
            raise ValueError(f"target {self.id}: `source` must quote the paper.")


@dataclass(frozen=True)
class Check:
    """One target judged: its row of the report.

    `passed` is None for a finding (reported, not judged). Made by :meth:`Targets.within`,
    :meth:`Targets.holds` and :meth:`Targets.finding`, which copy the target's fields.

    Attributes
    ----------
    id, claim, paper, tolerance, source, role : str
        As the :class:`Target`.
    ours : str
        Our value or what we measured, as the report prints it.
    passed : bool or None
        Whether ours meets the target; None for a finding.
    note : str
        How ours was measured, or why it misses.

    Examples
    --------
    >>> from evalmc.reproductions.report import Check
    >>> check = Check("X1", "y at 1", paper="2", ours="2.3", tolerance="±0.1", passed=False)
    >>> check.result
    'FAIL'
    >>> Check("X2", "z", paper="not stated", ours="0.42", tolerance="-", passed=None,
    ...       role="finding").result
    'finding'
    """

    id: str
    claim: str
    paper: str
    ours: str
    tolerance: str
    passed: bool | None
    note: str = ""
    source: str = ""
    role: str = "target"

    @property
    def result(self) -> str:
        """``'pass'``, ``'FAIL'`` or ``'finding'``.

        Examples
        --------
        >>> Check("X1", "y at 1", "2", "2.04", "±0.1", True).result
        'pass'
        """
        return "finding" if self.passed is None else "pass" if self.passed else "FAIL"


class Targets:
    """A paper's targets, in the order the report lists them.

    Parameters
    ----------
    targets : iterable of Target
        Ids must be unique.

    Examples
    --------
    >>> table = Targets([Target("X1", "y at 1", paper="2", source='"y(1) = 2" (Sec 1)',
    ...                         tolerance="±0.1", value=2.0, tol=0.1)])
    >>> table.within("X1", 2.04).result
    'pass'
    >>> table.ids, len(table), table["X1"].paper
    (['X1'], 1, '2')
    """

    def __init__(self, targets: Iterable[Target]):
        self._by_id: dict[str, Target] = {}
        for target in targets:
            if target.id in self._by_id:
                raise ValueError(f"duplicate target id {target.id!r}.")
            self._by_id[target.id] = target

    def __iter__(self):
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)

    def __getitem__(self, id: str) -> Target:
        try:
            return self._by_id[id]
        except KeyError:
            raise KeyError(f"no target {id!r} in the table") from None

    @property
    def ids(self) -> list[str]:
        """The ids, in table order.

        Examples
        --------
        >>> Targets([Target("X2", "z", paper="yes", source='"z" (Sec 2)'),
        ...          Target("X1", "y", paper="yes", source='"y" (Sec 1)')]).ids
        ['X2', 'X1']
        """
        return list(self._by_id)

    def _check(self, target, ours, passed, note):
        if target.role == "finding" and passed is not None:
            raise ValueError(f"target {target.id} is a finding: it is reported, not judged.")
        if target.role != "finding" and passed is None:
            raise ValueError(f"target {target.id} must be judged (its role is {target.role}).")
        return Check(target.id, target.claim, target.paper, ours, target.tolerance, passed,
                     note, target.source, target.role)

    def within(self, id: str, ours: float, *, note: str = "", digits: int = 3) -> Check:
        """Judge a numeric target: passes when ``|ours - value| <= tol`` (NaN fails).

        Parameters
        ----------
        id : str
            A target of the table with a numeric `value` and `tol`.
        ours : float
            Our value.
        note : str
            Written beside the row.
        digits : int
            Significant digits of `ours` in the report.

        Returns
        -------
        Check

        Examples
        --------
        >>> table = Targets([Target("X1", "y at 1", paper="2", source='"y(1) = 2" (Sec 1)',
        ...                         tolerance="±0.1", value=2.0, tol=0.1)])
        >>> check = table.within("X1", 2.3456)
        >>> check.ours, check.passed
        ('2.35', False)
        """
        target = self[id]
        if target.value is None:
            raise ValueError(f"target {id} has no numeric `value` and `tol`.")
        passed = bool(math.isfinite(ours) and abs(ours - target.value) <= target.tol)
        return self._check(target, f"{ours:.{digits}g}", passed, note)

    def holds(self, id: str, *, ours: str, passed: bool, note: str = "") -> Check:
        """Judge a qualitative target: what we measured, and whether the claim holds.

        Parameters
        ----------
        id : str
            A target of the table that is not a finding.
        ours : str
            What we measured, as the report prints it.
        passed : bool
            Whether the claim holds.
        note : str
            Written beside the row.

        Returns
        -------
        Check

        Examples
        --------
        >>> table = Targets([Target("X2", "z grows", paper="yes", source='"z grows" (Sec 2)')])
        >>> check = table.holds("X2", ours="from 1 to 3", passed=True)
        >>> check.ours, check.result
        ('from 1 to 3', 'pass')
        """
        return self._check(self[id], ours, bool(passed), note)

    def finding(self, id: str, *, ours: str, note: str = "") -> Check:
        """Report a finding: what we measured, not judged.

        Parameters
        ----------
        id : str
            A target of the table whose role is ``'finding'``.
        ours : str
            What we measured, as the report prints it.
        note : str
            Written beside the row.

        Returns
        -------
        Check
            With `passed` None.

        Examples
        --------
        >>> table = Targets([Target("F1", "w at 1", paper="not stated", source='"w" (Sec 3)',
        ...                         role="finding")])
        >>> check = table.finding("F1", ours="0.42")
        >>> check.passed, check.result
        (None, 'finding')
        """
        return self._check(self[id], ours, None, note)


def missed(checks: Iterable[Check]) -> list[str]:
    """Ids of the judged checks that failed.

    Parameters
    ----------
    checks : iterable of Check

    Returns
    -------
    list of str
        In the checks' order; findings are never missed.

    Examples
    --------
    >>> from evalmc.reproductions.report import Check
    >>> checks = [Check("X1", "y", "2", "2.3", "±0.1", False),
    ...           Check("X2", "z", "yes", "yes", "-", True),
    ...           Check("F1", "w", "not stated", "0.42", "-", None, role="finding")]
    >>> missed(checks)
    ['X1']
    """
    return [c.id for c in checks if c.passed is False]


def tally(checks: Iterable[Check]) -> dict[str, tuple[int, int]]:
    """``{role: (met, judged)}``; for findings, ``(0, count)``.

    Parameters
    ----------
    checks : iterable of Check

    Returns
    -------
    dict
        Roles present, in the order of :data:`ROLES`.

    Examples
    --------
    >>> from evalmc.reproductions.report import Check
    >>> checks = [Check("X1", "y", "2", "2.3", "±0.1", False),
    ...           Check("X2", "z", "yes", "yes", "-", True),
    ...           Check("F1", "w", "not stated", "0.42", "-", None, role="finding")]
    >>> tally(checks)
    {'target': (1, 2), 'finding': (0, 1)}
    """
    out: dict[str, tuple[int, int]] = {}
    for c in checks:
        met, judged = out.get(c.role, (0, 0))
        out[c.role] = (met + bool(c.passed), judged + 1)
    return {role: out[role] for role in ROLES if role in out}


def tally_text(checks: Iterable[Check]) -> str:
    """One line: targets met, then calibration checks, extensions and findings.

    Parameters
    ----------
    checks : iterable of Check

    Returns
    -------
    str
        ``'no targets'`` when `checks` is empty.

    Examples
    --------
    >>> from evalmc.reproductions.report import Check
    >>> checks = [Check("X1", "y", "2", "2.3", "±0.1", False),
    ...           Check("X2", "z", "yes", "yes", "-", True),
    ...           Check("F1", "w", "not stated", "0.42", "-", None, role="finding")]
    >>> tally_text(checks)
    '1/2 targets met, 1 finding'
    """
    words = {"target": "targets met", "calibration": "calibration checks met",
             "extension": "extensions met"}
    parts = [f"{n} finding{'s' * (n != 1)}" if role == "finding" else f"{met}/{n} {words[role]}"
             for role, (met, n) in tally(checks).items()]
    return ", ".join(parts) or "no targets"


@dataclass(frozen=True)
class Runs:
    """How a figure's Monte Carlo work runs; its results do not depend on it.

    Attributes
    ----------
    n_jobs : int
        Workers.
    cache : path or None
        Directory of finished blocks: an interrupted figure resumes from it.

    Examples
    --------
    >>> from evalmc.reproductions.report import Runs
    >>> Runs(n_jobs=2).engine
    {'n_jobs': 2, 'cache': None}
    """

    n_jobs: int = 1
    cache: Path | None = None

    @property
    def engine(self) -> dict:
        """The keyword arguments of :func:`~evalmc.study.rates.run_study` it sets.

        Examples
        --------
        >>> Runs().engine
        {'n_jobs': 1, 'cache': None}
        """
        return {"n_jobs": self.n_jobs, "cache": self.cache}


@dataclass(frozen=True)
class Figure:
    """One figure of a paper, as a row of :data:`evalmc.reproductions.registry.FIGURES` names it.

    Attributes
    ----------
    caption : str
        The paper's caption and parameters, and our assumptions; written beside the PNG and
        into the report.
    compute : callable
        ``compute(scale, runs) -> DataFrame``: the tidy data of the figure; `runs`, a
        :class:`Runs`, says how its Monte Carlo work runs.
    plot : callable
        ``plot(data) -> matplotlib.figure.Figure``; reads only `data`.
    check : callable
        ``check(data, scale) -> list[Check]``: the figure's targets.
    title : str
        Names the paper and its figure (``'Keller et al. 2005, Fig 1: size against N'``); set
        as the plot's title.
    name : str
        Short name, e.g. ``'fig2'``, given by the figure's registry row; files are
        ``<paper>/<name>.png``, ``.csv`` and ``.md``.

    Examples
    --------
    A toy figure: one curve, one target.

    >>> import pandas as pd
    >>> from matplotlib.figure import Figure as MplFigure
    >>> from evalmc.reproductions.report import Figure, Runs, Target, Targets
    >>> table = Targets([Target("X1", "y at 1", paper="2", source='"y(1) = 2" (Sec 1)',
    ...                         tolerance="±0.1", value=2.0, tol=0.1)])
    >>> def compute(scale, runs):
    ...     return pd.DataFrame({"x": [0, 1, 2], "y": [0.0, 2.04, 4.1]})
    >>> def plot(data):
    ...     fig = MplFigure()
    ...     fig.add_subplot().plot(data["x"], data["y"])
    ...     return fig
    >>> def check(data, scale):
    ...     return [table.within("X1", float(data["y"][1]))]
    >>> figure = Figure("y against x.", compute, plot, check, title="Toy 2024, Fig 1: y",
    ...                 name="fig1")
    >>> data = figure.compute("quick", Runs())
    >>> [(c.id, c.passed) for c in figure.check(data, "quick")]
    [('X1', True)]
    >>> len(figure.plot(data).axes)
    1
    """

    caption: str
    compute: Callable[[str, Runs], pd.DataFrame]
    plot: Callable[[pd.DataFrame], MplFigure]
    check: Callable[[pd.DataFrame, str], list[Check]]
    title: str
    name: str = ""


def pooled_mcse(mcse: pd.Series) -> float:
    """The MCSE of the mean of independent estimates, from theirs: ``sqrt(sum mcse^2) / k``
    (an aggregation for ``groupby().agg``).

    Parameters
    ----------
    mcse : Series
        The estimates' Monte Carlo standard errors.

    Returns
    -------
    float

    Examples
    --------
    >>> import pandas as pd
    >>> print(round(pooled_mcse(pd.Series([0.03, 0.04])), 4))
    0.025
    """
    return float(np.sqrt((mcse**2).sum()) / mcse.size)


def estimator_labels(summary: pd.DataFrame, specs: dict) -> pd.Series:
    """Each row's label, from the estimator it reports: a study names an estimator as
    :func:`~evalmc.estimators.intervals.get_estimator` does (a family's default arguments
    dropped), not as its spec was written.

    Parameters
    ----------
    summary : DataFrame
        A study's summary, with its ``estimator`` column.
    specs : dict
        Each estimator's spec, as given to the study, to its label.

    Returns
    -------
    Series
        The labels, aligned with `summary`.

    Examples
    --------
    >>> import pandas as pd
    >>> specs = {"clt-diff(level=0.95)": "clt-diff", "clt-diff(level=0.9)": "clt-diff",
    ...          "wald": "CLT"}
    >>> summary = pd.DataFrame({"estimator": ["clt-diff", "clt-diff(level=0.9)", "wald"]})
    >>> estimator_labels(summary, specs).tolist()
    ['clt-diff', 'clt-diff', 'CLT']
    """
    names = {}
    for spec, label in specs.items():
        name = get_estimator(spec).name
        if names.get(name, label) != label:
            raise ValueError(f"specs {spec!r} and another name the same estimator {name!r} "
                             f"with two labels, {names[name]!r} and {label!r}.")
        names[name] = label
    labels = summary["estimator"].map(names)
    if labels.isna().any():
        missing = sorted(set(summary.loc[labels.isna(), "estimator"]))
        raise ValueError(f"no label for the estimators {missing}; labels are given for "
                         f"{sorted(names)}.")
    return labels


def save_figure(out: Path, paper: str, figure: Figure, data: pd.DataFrame, checks, seconds,
                scale) -> None:
    """Write the figure's PNG, CSV, caption (``.md``) and checks under ``out/paper``.

    The PNG is ``figure.plot(data)`` with the figure's title; the checks go to
    ``<name>.checks.json``, which :func:`write_report` reads.

    Parameters
    ----------
    out : Path
        Output directory.
    paper : str
        The paper's name: the subfolder.
    figure : Figure
        Its `name` names the files.
    data : DataFrame
        ``figure.compute(scale, runs)``.
    checks : list of Check
        ``figure.check(data, scale)``.
    seconds : float
        Time taken, as the report prints it.
    scale : {'quick', 'paper'}

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from matplotlib.figure import Figure as MplFigure
    >>> from evalmc.reproductions.report import Figure, save_figure
    >>> figure = Figure("A line.", None, lambda data: MplFigure(), None, title="Toy: a line",
    ...                 name="fig1")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_figure(Path(tmp), "toy", figure, pd.DataFrame({"x": [0, 1]}), [], 0.1, "quick")
    ...     sorted(p.name for p in (Path(tmp) / "toy").iterdir())
    ['fig1.checks.json', 'fig1.csv', 'fig1.md', 'fig1.png']
    """
    folder = out / paper
    folder.mkdir(parents=True, exist_ok=True)
    data.to_csv(folder / f"{figure.name}.csv", index=False)
    drawn = figure.plot(data)
    drawn.suptitle(figure.title, fontsize=11)
    drawn.savefig(folder / f"{figure.name}.png", dpi=120)
    (folder / f"{figure.name}.md").write_text(_caption_md(figure, scale))
    record = {"paper": paper, "figure": figure.name, "title": figure.title,
              "caption": figure.caption.strip(), "scale": scale, "seconds": round(seconds, 1),
              "checks": [asdict(c) for c in checks]}
    (folder / f"{figure.name}.checks.json").write_text(json.dumps(record, indent=1) + "\n")


def _caption_md(figure: Figure, scale: str) -> str:
    heading = figure.title
    return (f"# {heading}\n\n![{heading}]({figure.name}.png)\n\n{figure.caption.strip()}\n\n"
            f"Scale: {scale}. Data: [{figure.name}.csv]({figure.name}.csv).\n")


def _cell(x) -> str:
    return str(x).replace("|", "/").replace("\n", " ")


def write_report(out: Path) -> Path:
    """Rebuild ``out/REPORT.md`` from every figure's checks found under `out`.

    Parameters
    ----------
    out : Path
        Output directory, holding ``<paper>/<figure>.checks.json`` files (:func:`save_figure`).

    Returns
    -------
    Path
        ``out/REPORT.md``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from matplotlib.figure import Figure as MplFigure
    >>> from evalmc.reproductions.report import Check, Figure, save_figure, write_report
    >>> figure = Figure("A line.", None, lambda data: MplFigure(), None, title="Toy: a line",
    ...                 name="fig1")
    >>> checks = [Check("X1", "y at 1", "2", "2.04", "±0.1", True)]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_figure(Path(tmp), "toy", figure, pd.DataFrame({"x": [0, 1]}), checks, 0.1,
    ...                 "quick")
    ...     report = write_report(Path(tmp))
    ...     print(report.name, "|", report.read_text().splitlines()[6])
    REPORT.md | All papers: 1/1 targets met.
    """
    records = [json.loads(p.read_text()) for p in sorted(out.glob("*/*.checks.json"))]
    every = [Check(**c) for r in records for c in r["checks"]]
    lines = ["# Reproduction report", "",
             "Each target: the paper's value, ours, the tolerance, and whether ours meets it.",
             "Roles: *target*, a claim of the paper; *calibration*, a summary the simulation "
             "was fitted to; *extension*, our check beyond the paper; *finding*, a value the "
             "paper does not state, reported and not judged.",
             "Generated by `evalmc reproduce`; do not edit.", "",
             f"All papers: {tally_text(every)}.", ""]
    for paper in dict.fromkeys(r["paper"] for r in records):
        mine = [r for r in records if r["paper"] == paper]
        checks = [Check(**c) for r in mine for c in r["checks"]]
        lines += [f"## {paper}", "", f"{tally_text(checks)}.", ""]
        for rec in mine:
            title = rec.get("title") or rec["figure"]
            lines += [f"### {rec['figure']}: {title}", "",
                      f"![{title}]({paper}/{rec['figure']}.png)", "",
                      rec.get("caption", ""), "",
                      f"Scale: {rec['scale']}, {rec['seconds']} s.", ""]
            if not rec["checks"]:
                continue
            lines += ["| id | claim | paper | ours | tolerance | role | result | note |",
                      "|---|---|---|---|---|---|---|---|"]
            for c in (Check(**c) for c in rec["checks"]):
                cells = [c.id, c.claim, c.paper, c.ours, c.tolerance, c.role, c.result, c.note]
                lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
            lines += ["", "Sources:", ""]
            lines += [f"- **{c['id']}**: {_cell(c['source'])}" for c in rec["checks"]]
            lines.append("")
    path = out / "REPORT.md"
    out.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))
    return path


def legend_below(fig: MplFigure, axes, ncols: int | None = None, **style):
    """One legend under the panels of `fig`: each label of `axes` once, in the order first
    met (with the last panel's handle).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure of constrained layout, which makes room below its panels.
    axes : iterable of Axes
        The panels whose labelled artists the legend lists.
    ncols : int, optional
        The most columns; default one row.
    **style
        Further arguments of ``fig.legend`` (``fontsize``).

    Returns
    -------
    matplotlib.legend.Legend

    Examples
    --------
    >>> from matplotlib.figure import Figure as MplFigure
    >>> from evalmc.reproductions.report import legend_below
    >>> fig = MplFigure(layout="constrained")
    >>> left, right = fig.subplots(1, 2)
    >>> _ = left.plot([0, 1], label="a"), right.plot([1, 0], label="a"), right.plot([0], label="b")
    >>> [t.get_text() for t in legend_below(fig, [left, right], fontsize=8).get_texts()]
    ['a', 'b']
    """
    entries = {}
    for ax in axes:
        handles, labels = ax.get_legend_handles_labels()
        entries.update(zip(labels, handles, strict=True))
    return fig.legend(entries.values(), entries.keys(), loc="outside lower center",
                      ncols=len(entries) if ncols is None else min(len(entries), ncols), **style)


#: The most curves a panel may show.
MAX_CURVES = 6


def layout_problems(fig: MplFigure) -> list[str]:
    """What makes a drawn figure hard to read: crowded panels and overlapping text.

    Flags a panel with more than :data:`MAX_CURVES` curves (drawn lines through more than two
    points; markers alone, reference lines and closed outlines such as boxes are not curves),
    two panels whose extents (labels, ticks, titles, legends) overlap, the figure's title or
    legend over a panel, and overlapping titles, axis labels, legends and annotations within a
    panel.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Drawn here on an Agg canvas.

    Returns
    -------
    list of str
        One line per problem; empty when the figure reads cleanly.

    Examples
    --------
    >>> from matplotlib.figure import Figure as MplFigure
    >>> fig = MplFigure()
    >>> ax = fig.add_subplot()
    >>> for i in range(7):
    ...     _ = ax.plot([0, 1, 2], [i, i + 1, i])
    >>> layout_problems(fig)
    ['panel 1: 7 curves (at most 6)']
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    problems = []
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.has_data()]
    names = {ax: ax.get_title() or ax.get_title("left") or f"panel {i + 1}"
             for i, ax in enumerate(axes)}
    for ax in axes:
        curves = sum(_is_curve(line) for line in ax.get_lines())
        if curves > MAX_CURVES:
            problems.append(f"{names[ax]}: {curves} curves (at most {MAX_CURVES})")
        parts = [t for t in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label,
                             ax.yaxis.label, *ax.texts) if t.get_visible() and t.get_text()]
        if ax.get_legend() is not None:
            parts.append(ax.get_legend())
        boxes = [(_label(p), p.get_window_extent(renderer)) for p in parts]
        problems += [f"{names[ax]}: {a} overlaps {b}" for a, b in _overlaps(boxes)]
    extents = [(names[ax], ax.get_tightbbox(renderer)) for ax in axes]
    extra = [t for t in (fig._suptitle, *fig.legends) if t is not None and t.get_visible()]
    extents += [(_label(t), t.get_window_extent(renderer)) for t in extra]
    problems += [f"{a} overlaps {b}" for a, b in _overlaps(extents)]
    return problems


def _is_curve(line) -> bool:
    """A drawn line through more than two points that is not a closed outline (a box)."""
    x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
    closed = x.size > 2 and x[0] == x[-1] and y[0] == y[-1]
    return x.size > 2 and line.get_linestyle() != "None" and not closed


def _label(artist) -> str:
    text = artist.get_text() if hasattr(artist, "get_text") else ""
    return f"{type(artist).__name__.lower()} {text[:30]!r}" if text else type(
        artist).__name__.lower()


def _overlaps(boxes, pixels: float = 1.0):
    """Pairs of named boxes that overlap by more than `pixels` in both directions."""
    out = []
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            dx = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            dy = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if dx > pixels and dy > pixels:
                out.append((a, b))
    return out
