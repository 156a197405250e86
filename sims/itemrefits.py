"""A parametric bootstrap of the item model's fit (:mod:`evalmc.sims.itemmodel`).

The audit simulates from the model fitted to a user's file; that fit is itself an estimate.
:func:`refit` draws the ``index``-th data set of the file's shape (its clusters, items and
samples) from a fit at its own estimates and fits the model to it afresh: the refits scatter
around the fit as fits of data sets like the file's scatter around the truth, so a study run
over them carries the fit's uncertainty (the ``refit`` parameter of the ``item-model``
scenario). A refit's null sits at its own data set's pooled mean.
"""

from __future__ import annotations

import threading

import numpy as np

from evalmc.inputs.checks import check_int

#: Draws of one data set before a refit gives up on getting both models' scores to vary.
TRIES = 100
#: Refits remembered (every condition of a study is a scenario of its own).
_KEEP = 64
_REFITS: dict = {}
_LOCK = threading.Lock()


def refit(fit, index: int, seed: int = 0):
    """The fit to the `index`-th data set drawn from `fit` (an ``ItemFit``).

    Parameters
    ----------
    fit : ItemFit
        The fit drawn from, at its fitted latent means and variances.
    index : int
        Which data set (at least 1); each has its own stream,
        ``SeedSequence([seed, index, digest])``, the digest that of the scores `fit` was fitted
        to.
    seed : int
        The seed of the data sets.

    Returns
    -------
    ItemFit
        A data set in which a model scores the same on every item and sample carries no
        structure: it is drawn again (from the same stream), up to :data:`TRIES` times.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.itemmodel import fit_grid
    >>> rng = np.random.default_rng(0)
    >>> skill = rng.normal(size=(300, 1))
    >>> fit = fit_grid((skill + rng.normal(size=(300, 1)) > 0).astype(float),
    ...                (skill + rng.normal(size=(300, 1)) > 0).astype(float), [1] * 300)
    >>> again = refit(fit, 1)
    >>> again.cluster_sizes == fit.cluster_sizes, round(again.item, 3), round(fit.item, 3)
    (True, 0.588, 0.579)
    """
    index = check_int("refit", index, low=1)
    seed = check_int("refit_seed", seed, low=0)
    key = (fit.digest, fit.mu_a, fit.mu_b, index, seed)
    with _LOCK:
        if key in _REFITS:
            return _REFITS[key]
    out = _draw_and_fit(fit, index, seed)
    with _LOCK:
        while len(_REFITS) >= _KEEP:
            _REFITS.pop(next(iter(_REFITS)))
        _REFITS[key] = out
    return out


def _draw_and_fit(fit, index: int, seed: int):
    """One data set of `fit`'s shape from its own stream, drawn until both models' scores vary,
    and its fit."""
    from evalmc.sims.itemmodel import fit_grid
    from evalmc.sims.itemmodel_nested import NestedFit, fit_nested_grid

    rng = np.random.default_rng(np.random.SeedSequence([seed, index, int(fit.digest or "0",
                                                                         16)]))
    n, s = sum(fit.cluster_sizes), fit.n_samples
    for _ in range(TRIES):
        a, b = fit.draw_scores(rng, 1, fit.mu_a, fit.mu_b)
        if np.ptp(a) > 0 and np.ptp(b) > 0:
            if isinstance(fit, NestedFit):  # both levels refitted, in the file's layout
                return fit_nested_grid(a.reshape(n, s), b.reshape(n, s), fit.cluster_sizes,
                                       fit.subcluster_sizes, fit.per_cluster)
            return fit_grid(a.reshape(n, s), b.reshape(n, s), fit.cluster_sizes)
    raise ValueError(f"`refit`: {TRIES} data sets drawn from the fit each gave a model the same "
                     f"score on every item; the fit is too near an edge of the scores' range to "
                     f"be refitted (use refits=0).")
