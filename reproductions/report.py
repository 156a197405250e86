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
#: - ``'target'``: a claim of the paper, one row per distinct claim (its variants, e.g. the
#:   levels a claim is made at, are sub-checks of the row and its rule says how they combine);
#:   judged pass, FAIL or inconclusive, and counted in the headline (:data:`OUTCOMES`).
#: - ``'calibration'``: a summary the simulation was fitted to; its pass checks the fit, not
#:   the paper's claim.
#: - ``'extension'``: our own check beyond the paper (e.g. under another definition of H0),
#:   judged, but not counted against the paper.
#: - ``'finding'``: a measured value the paper does not state, or states without a number;
#:   reported, never judged.
ROLES = ("target", "calibration", "extension", "finding")

#: What a target comes to in the headline: ``'reproduced'`` (pass), ``'contradicted'`` (FAIL
#: with its cause stated and evidenced in the note: the check's `evidence`), ``'inconclusive'``
#: (the data cannot separate pass from fail, by the rule its note states) and ``'missed'``
#: (FAIL without an established cause).
OUTCOMES = ("reproduced", "contradicted", "inconclusive", "missed")
#: The headline's words for :data:`OUTCOMES`.
OUTCOME_WORDS = {"reproduced": "reproduced", "contradicted": "contradicted with evidence",
                 "inconclusive": "inconclusive", "missed": "missed"}


@dataclass(frozen=True)
class Target:
    """One target of a paper: its claim, the paper's value and the quoted `source`; a numeric target
    also has `value` and `tol`, and passes when ``|ours - value| <= tol``."""

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
    """One target judged, a row of the report: `passed` is True, False, or None for a row that
    is inconclusive (its note states the rule) and for a finding (never judged); `evidence`
    marks a FAIL whose note states its cause with the evidence for it."""

    id: str
    claim: str
    paper: str
    ours: str
    tolerance: str
    passed: bool | None
    note: str = ""
    source: str = ""
    role: str = "target"
    evidence: bool = False

    @property
    def result(self) -> str:
        """``'pass'``, ``'FAIL'``, ``'inconclusive'`` or ``'finding'``."""
        if self.role == "finding":
            return "finding"
        return "inconclusive" if self.passed is None else "pass" if self.passed else "FAIL"

    @property
    def outcome(self) -> str:
        """One of :data:`OUTCOMES` (a FAIL is ``'contradicted'`` with `evidence`, else
        ``'missed'``); ``'finding'`` for a finding."""
        if self.role == "finding":
            return "finding"
        return {True: "reproduced", None: "inconclusive"}.get(
            self.passed, "contradicted" if self.evidence else "missed")


class Targets:
    """A paper's targets by id, in the order the report lists them."""

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
        """The ids, in table order."""
        return list(self._by_id)

    def _check(self, target, ours, passed, note, evidence=False):
        if target.role == "finding":
            raise ValueError(f"target {target.id} is a finding: it is reported, not judged.")
        if passed is None and not note.strip():
            raise ValueError(f"target {target.id} is inconclusive: its `note` must state the "
                             "rule that makes it so.")
        if evidence and (passed is not False or not note.strip()):
            raise ValueError(f"target {target.id}: `evidence` marks a FAIL whose `note` states "
                             "its cause and evidence.")
        return Check(target.id, target.claim, target.paper, ours, target.tolerance, passed,
                     note, target.source, target.role, bool(evidence))

    def within(self, id: str, ours: float, *, note: str = "", digits: int = 3,
               evidence: bool = False) -> Check:
        """Judge a numeric target: passes when ``|ours - value| <= tol`` (NaN fails); `ours` printed
        to `digits` significant digits; `evidence` as in :meth:`holds`."""
        target = self[id]
        if target.value is None:
            raise ValueError(f"target {id} has no numeric `value` and `tol`.")
        passed = bool(math.isfinite(ours) and abs(ours - target.value) <= target.tol)
        return self._check(target, f"{ours:.{digits}g}", passed, note, evidence and not passed)

    def holds(self, id: str, *, ours: str, passed: bool | None, note: str = "",
              evidence: bool = False) -> Check:
        """Judge a qualitative target: what we measured (`ours`), and whether the claim holds
        (None: inconclusive, by the rule `note` states); `evidence` when a FAIL's `note` states
        its cause with the evidence for it (ignored on a pass)."""
        passed = None if passed is None else bool(passed)
        return self._check(self[id], ours, passed, note, evidence and passed is False)

    def finding(self, id: str, *, ours: str, note: str = "") -> Check:
        """Report a finding: what we measured, not judged (`passed` None)."""
        target = self[id]
        if target.role != "finding":
            raise ValueError(f"target {id} must be judged (its role is {target.role}).")
        return Check(target.id, target.claim, target.paper, ours, target.tolerance, None,
                     note, target.source, target.role)


def combine(verdicts) -> bool | None:
    """Sub-checks that must all hold: False if any fails, True if all pass, else None
    (inconclusive)."""
    verdicts = list(verdicts)
    if any(v is False for v in verdicts):
        return False
    return True if all(v is True for v in verdicts) else None


def agree(verdicts) -> bool | None:
    """Readings of a protocol the paper leaves open: their common verdict, None (inconclusive)
    when they disagree or one is inconclusive."""
    verdicts = set(verdicts)
    return verdicts.pop() if len(verdicts) == 1 else None


def failed(checks: Iterable[Check]) -> list[str]:
    """Ids of the judged checks that failed, in order."""
    return [c.id for c in checks if c.result == "FAIL"]


def tally(checks: Iterable[Check]) -> dict[str, dict[str, int]]:
    """``{role: {state: count}}`` in the order of :data:`ROLES`, a role only when present:
    targets by :data:`OUTCOMES`, calibration checks and extensions by result (``'pass'``,
    ``'FAIL'``, ``'inconclusive'``), findings as ``{'finding': count}``."""
    states = {"target": OUTCOMES, "finding": ("finding",)}
    out: dict[str, dict[str, int]] = {}
    for c in checks:
        counts = out.setdefault(c.role, dict.fromkeys(
            states.get(c.role, ("pass", "FAIL", "inconclusive")), 0))
        counts[c.outcome if c.role == "target" else c.result] += 1
    return {role: out[role] for role in ROLES if role in out}


def tally_text(checks: Iterable[Check]) -> str:
    """One line: the claims (targets) by outcome, calibration checks and extensions met (and
    inconclusive), findings (``'no targets'`` when empty)."""
    parts = []
    for role, counts in tally(checks).items():
        n = sum(counts.values())
        if role == "target":
            parts.append(f"{n} claim{'s' * (n != 1)}: " + ", ".join(
                f"{counts[o]} {OUTCOME_WORDS[o]}" for o in OUTCOMES))
        elif role == "finding":
            parts.append(f"{n} finding{'s' * (n != 1)}")
        else:
            word = "calibration checks" if role == "calibration" else "extensions"
            parts.append(f"{counts['pass']}/{n} {word} met" + (
                f" ({counts['inconclusive']} inconclusive)" if counts["inconclusive"] else ""))
    return "; ".join(parts) or "no targets"


def headline(groups: dict[str, list[Check]]) -> list[str]:
    """The report's headline, a Markdown table: per paper (`groups`: name -> its checks) and over
    all, the distinct claims by :data:`OUTCOMES`, then calibration checks and extensions met,
    and findings (never judged)."""
    head = ["paper", "claims", *(OUTCOME_WORDS[o] for o in OUTCOMES), "calibration met",
            "extensions met", "findings"]
    rows = [*groups.items(), ("all papers", [c for cs in groups.values() for c in cs])]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for name, checks in rows:
        counts = tally(checks)
        claims = counts.get("target", dict.fromkeys(OUTCOMES, 0))
        cells = [name, sum(claims.values()), *(claims[o] for o in OUTCOMES),
                 _met(counts.get("calibration")), _met(counts.get("extension")),
                 counts.get("finding", {}).get("finding", 0)]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return lines


def _met(counts) -> str:
    if not counts:
        return "-"
    text = f"{counts['pass']}/{sum(counts.values())}"
    return text + (f" ({counts['inconclusive']} inconclusive)" if counts["inconclusive"] else "")


@dataclass(frozen=True)
class Runs:
    """How a figure's Monte Carlo work runs (workers, block cache); its results do not depend on
    it."""

    n_jobs: int = 1
    cache: Path | None = None

    @property
    def engine(self) -> dict:
        """The keyword arguments of :func:`~evalmc.study.rates.run_study` it sets."""
        return {"n_jobs": self.n_jobs, "cache": self.cache}


@dataclass(frozen=True)
class Figure:
    """One figure of a paper: its `caption`, ``compute(scale, runs) -> DataFrame``, ``plot(data) ->
    matplotlib Figure``, ``check(data, scale) -> list[Check]``, the plot's `title`, and the `name`
    its registry row gives (files ``<paper>/<name>.png``, ``.csv``, ``.md``)."""

    caption: str
    compute: Callable[[str, Runs], pd.DataFrame]
    plot: Callable[[pd.DataFrame], MplFigure]
    check: Callable[[pd.DataFrame, str], list[Check]]
    title: str
    name: str = ""


def pooled_mcse(mcse: pd.Series) -> float:
    """The MCSE of the mean of independent estimates, from theirs: ``sqrt(sum mcse^2) / k``."""
    return float(np.sqrt((mcse**2).sum()) / mcse.size)


def estimator_labels(summary: pd.DataFrame, specs: dict) -> pd.Series:
    """Each summary row's label, from `specs` (spec -> label) matched by the estimator's name as
    :func:`~evalmc.estimators.intervals.get_estimator` gives it."""
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
    """Write the figure's PNG (with its title), CSV, caption (``.md``) and ``.checks.json`` (read by
    :func:`write_report`) under ``out/paper``."""
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
    """Rebuild ``out/REPORT.md`` from every ``<paper>/<figure>.checks.json`` under `out`; returns
    its path."""
    records = [json.loads(p.read_text()) for p in sorted(out.glob("*/*.checks.json"))]
    every = [Check(**c) for r in records for c in r["checks"]]
    lines = ["# Reproduction report", "",
             "Each target: the paper's value, ours, the tolerance, and whether ours meets it.",
             "Roles: *target*, a claim of the paper, one row per distinct claim (its variants "
             "are sub-checks of the row); *calibration*, a summary the simulation "
             "was fitted to; *extension*, our check beyond the paper; *finding*, a value the "
             "paper does not state, reported and not judged.",
             "Results: *pass*; *FAIL*; *inconclusive*, when the data cannot separate pass from "
             "fail, by the rule the note states (a share within 2 SE of one half, a verdict "
             "resting on one run, a protocol the paper leaves undetermined). A failed claim is "
             "*contradicted with evidence* when its note states the cause and the evidence for "
             "it (result `FAIL, evidence`), else *missed*.",
             "Generated by `evalmc reproduce`; do not edit.", ""]
    papers = dict.fromkeys(r["paper"] for r in records)
    groups = {p: [Check(**c) for r in records if r["paper"] == p for c in r["checks"]]
              for p in papers}
    lines += [f"All papers: {tally_text(every)}.", "", *headline(groups), ""]
    for paper in papers:
        mine = [r for r in records if r["paper"] == paper]
        lines += [f"## {paper}", "", f"{tally_text(groups[paper])}.", ""]
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
                result = c.result + (", evidence" if c.evidence else "")
                cells = [c.id, c.claim, c.paper, c.ours, c.tolerance, c.role, result, c.note]
                lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
            lines += ["", "Sources:", ""]
            lines += [f"- **{c['id']}**: {_cell(c['source'])}" for c in rec["checks"]]
            lines.append("")
    path = out / "REPORT.md"
    out.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))
    return path


def legend_below(fig: MplFigure, axes, ncols: int | None = None, **style):
    """One legend under the panels of `fig` (constrained layout): each label of `axes` once, in the
    order first met."""
    entries = {}
    for ax in axes:
        handles, labels = ax.get_legend_handles_labels()
        entries.update(zip(labels, handles, strict=True))
    return fig.legend(entries.values(), entries.keys(), loc="outside lower center",
                      ncols=len(entries) if ncols is None else min(len(entries), ncols), **style)


#: The most curves a panel may show.
MAX_CURVES = 6


def layout_problems(fig: MplFigure) -> list[str]:
    """What makes a drawn figure hard to read, one line each: a panel with more than
    :data:`MAX_CURVES` curves, and overlapping panels, titles, labels, legends or annotations."""
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
