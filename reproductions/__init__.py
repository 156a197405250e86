"""Reproductions of method papers' figures: one module per paper, one `Figure` per figure.

A paper module (or a package, with a module per experiment) defines ``FIGURES``, a list of
:class:`evalmc.reproductions.report.Figure`; its docstring names the paper, and each figure's
``caption`` gives the figure's caption, the paper's parameters and what we had to assume.
"""

#: Paper modules, in the order ``reproduce all`` runs them.
PAPERS = ("bajgar2018", "keller2005", "giles1997", "bouthillier2021", "cvtests")
#: Scales of every figure: a quick check, and the paper's own.
SCALES = ("quick", "paper")
