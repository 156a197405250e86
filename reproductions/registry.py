"""The reproduced figures, one row each, in the order ``evalmc reproduce all`` runs them: the
figure's name, ``paper.figure``, and its :class:`~evalmc.reproductions.report.Figure` in the
paper's module, imported on first use. Like every registry (:mod:`evalmc.registry`), it
imports no numerical library: ``evalmc reproduce --help`` reads it.
"""

from __future__ import annotations

from evalmc.registry import Entry, Registry

#: Each paper's citation, in the order its figures run.
_PAPERS = {
    "bajgar2018": "Bajgar, Kadlec, Kleindienst 2018",
    "keller2005": "Keller, Bengio, Wong 2005",
    "giles1997": "Giles, Lawrence 1997",
    "bouthillier2021": "Bouthillier et al. 2021",
    "cvtests": "Dietterich 1998; Alpaydin 1999; Nadeau, Bengio 2003; Bouckaert, Frank 2004",
    "bowyer2025": "Bowyer, Aitchison, Ivanova 2025",
}
_FIGURES = {
    "bajgar2018": ("boon-normal", "fig1", "fig2", "fig3"),
    "keller2005": ("fig1", "fig2", "fig1-range", "fig2-range", "fig1-exact", "fig2-exact"),
    "giles1997": ("fig1", "fig2", "fig3", "fig4", "fig5", "fig6", "testsize", "fig7", "fig8",
                  "teachersweep"),
    "bouthillier2021": ("fig6", "sensitivity", "figc1", "figi6", "eq7", "fpbias"),
    "cvtests": ("size-j", "size-k", "tests", "replicability"),
    "bowyer2025": ("iid", "iid-sim", "mismatch", "clustered", "independent", "paired",
                   "paired-mismatch"),
}


def _attribute(figure: str) -> str:
    """The module attribute holding a figure: its name in capitals, ``fig1-exact`` ->
    ``FIG1_EXACT``."""
    return figure.upper().replace("-", "_")


FIGURES = Registry("figure", [
    Entry(f"{paper}.{figure}", f"evalmc.reproductions.{paper}:{_attribute(figure)}", citation,
          facts={"paper": paper, "figure": figure})
    for paper, citation in _PAPERS.items() for figure in _FIGURES[paper]
])
#: The papers, in the order their figures run.
PAPERS = tuple(_PAPERS)
