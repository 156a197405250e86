"""Reproductions of method papers' figures: one module per paper, one `Figure` per figure.

A paper module (or a package, with a module per experiment) defines each of its figures as a
:class:`evalmc.reproductions.report.Figure`, registered by name in
:data:`evalmc.reproductions.registry.FIGURES`; its docstring names the paper, and each figure's
``caption`` gives the figure's caption, the paper's parameters and what we had to assume.
"""

from evalmc.reproductions.registry import PAPERS

#: Scales of every figure: a quick check, and the paper's own.
SCALES = ("quick", "paper")

__all__ = ["PAPERS", "SCALES"]
