"""Run figures by name: ``all``, a paper, or ``paper.figure``."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import evalmc.reproductions
from evalmc.inputs.checks import check_choice
from evalmc.reproductions import SCALES
from evalmc.reproductions.registry import FIGURES

if TYPE_CHECKING:
    from evalmc.reproductions.report import Check, Figure


def default_out(scale: str) -> Path:
    """``figures/`` for the paper scale (committed); ``figures/quick/`` for the quick one."""
    return Path("figures") if scale == "paper" else Path("figures") / "quick"


def figures(paper: str) -> list[Figure]:
    """The figures of `paper`, each named by its registry row, in order."""
    return [replace(entry.load(), name=entry.facts["figure"])
            for entry in FIGURES.values() if entry.facts["paper"] == paper]


def resolve(spec: str) -> list[tuple[str, Figure]]:
    """The (paper, figure) pairs `spec` names (``all``, a paper or ``paper.figure``), in the
    registry's order; an unknown paper or figure is a ValueError naming the valid ones."""
    paper, _, name = spec.partition(".")
    known = evalmc.reproductions.PAPERS
    papers = known if spec == "all" else (paper,)
    for p in papers:
        if p not in known:
            valid = ", ".join(("all", *known))
            raise ValueError(f"unknown paper {p!r}; valid: {valid} (or PAPER.FIGURE).")
    if name and spec not in FIGURES:
        names = [e.facts["figure"] for e in FIGURES.values() if e.facts["paper"] == paper]
        raise ValueError(f"unknown figure {name!r} of {paper}; valid: {', '.join(names)}.")
    return [(p, f) for p in papers for f in figures(p) if not name or f.name == name]


def reproduce(spec: str, *, scale: str = "quick", out=None, n_jobs: int = 1, cache=None,
              log=print) -> list[Check]:
    """Compute, plot and check the figures of `spec`; rebuild the report under `out`.

    Parameters
    ----------
    spec : str
        ``'all'``, a paper (``evalmc.reproductions.PAPERS``) or ``'paper.figure'``.
    scale : {'quick', 'paper'}
    out : path, optional
        Output directory; default ``figures/`` (paper scale) or ``figures/quick/``.
    n_jobs : int
    cache : path, optional
        Directory of finished blocks: a figure stopped part-way resumes from it.
    log : callable
        Called with one line per figure, and a last line naming the folder written and the
        report, in full.

    Returns
    -------
    list of Check
        Every target of the figures run.

    Examples
    --------
    >>> import tempfile
    >>> import evalmc
    >>> with tempfile.TemporaryDirectory() as out:
    ...     checks = evalmc.reproduce("bouthillier2021.figc1", out=out, log=lambda line: None)
    >>> [(c.id, c.passed) for c in checks]
    [('T1', True), ('T2', True)]
    """
    check_choice("scale", scale, SCALES)
    figures = resolve(spec)
    from evalmc.reproductions.report import Runs, failed, save_figure, tally_text, write_report

    out = Path(out) if out is not None else default_out(scale)
    checks = []
    for paper, figure in figures:
        start = time.perf_counter()
        data = figure.compute(scale, Runs(n_jobs, None if cache is None else Path(cache)))
        found = figure.check(data, scale)
        seconds = time.perf_counter() - start
        save_figure(out, paper, figure, data, found, seconds, scale)
        fails = failed(found)
        log(f"{paper}.{figure.name}: {tally_text(found)}"
            + (f" (FAIL: {', '.join(fails)})" if fails else "") + f", {seconds:.1f} s")
        checks += found
    report = write_report(out).resolve()
    log(f"wrote {len(figures)} figure{'s' if len(figures) > 1 else ''} (PNG, data CSV, "
        f"caption) under {report.parent}; report: {report}")
    return checks
