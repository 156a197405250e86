"""Peer tools as criteria, unchanged: ``module:function`` is imported and called as is.

Its answer is read as any user criterion's (:class:`~evalmc.criteria.base.UserCriterion`: a
decision, a p-value, a result with a ``pvalue``, a ``(statistic, pvalue)`` pair). A peer whose
answer is none of these, or whose defaults do not suit a study, has an :class:`Adapter` here,
keyed by its exact ``module:function`` name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from evalmc.criteria.base import UserCriterion

#: deepsig's threshold: A is "almost stochastically dominant" over B when eps_min < 0.2.
ASO_THRESHOLD = 0.2
#: baycomp's decision used here: P(A - B > rope) above this.
BAYES_THRESHOLD = 0.95


@dataclass(frozen=True)
class Adapter:
    """How a peer is called on one replication and its answer read.

    Attributes
    ----------
    read : callable
        The peer's return value to a p-value (float) or a decision (bool, True = reject).
    kwargs : dict
        Keyword arguments passed on every call.
    seed_kwarg : str or None
        A keyword that takes an int seed: drawn from the replication's stream, so that the
        peer's own randomness is reproducible and independent of workers.
    alternative : str
        What a rejection concludes (``'greater'``: A better).
    note : str
        The criterion's one-line description (default: the peer's docstring).

    Examples
    --------
    >>> ADAPTERS["deepsig:aso"].seed_kwarg, ADAPTERS["deepsig:aso"].alternative
    ('seed', 'greater')
    >>> from functools import partial
    >>> import numpy as np
    >>> from scipy import stats
    >>> welch = Adapter(lambda result: result.pvalue, note="Welch's t-test via scipy")
    >>> criterion = welch.wrap(partial(stats.ttest_ind, equal_var=False))
    >>> rng = np.random.default_rng(1)
    >>> a, b = rng.normal(0.5, 1.0, 8), rng.normal(0.0, 1.0, 8)
    >>> round(float(criterion(a, b, rng)), 4), criterion.__doc__
    (0.0646, "Welch's t-test via scipy")
    """

    read: Callable
    kwargs: dict = field(default_factory=dict)
    seed_kwarg: str | None = None
    alternative: str = "two-sided"
    note: str = ""

    def wrap(self, func: Callable) -> Callable:
        """``criterion(a, b, rng)`` calling `func` with these arguments, read by `read`.

        Parameters
        ----------
        func : callable
            The peer's function, ``func(a, b, **kwargs)``.

        Returns
        -------
        callable
            ``criterion(a, b, rng)``, documented by `note` (or `func`'s docstring).

        Examples
        --------
        >>> import numpy as np
        >>> def peer(a, b, seed):
        ...     return float(np.mean(a) - np.mean(b))
        >>> criterion = Adapter(lambda gap: gap > 0.5, seed_kwarg="seed").wrap(peer)
        >>> criterion(np.array([2.0, 3.0]), np.array([1.0, 1.0]), np.random.default_rng(0))
        True
        """
        read, kwargs, seed_kwarg = self.read, dict(self.kwargs), self.seed_kwarg

        def criterion(a, b, rng):
            extra = {seed_kwarg: int(rng.integers(2**31))} if seed_kwarg else {}
            return read(func(a, b, **kwargs, **extra))

        criterion.__doc__ = self.note or func.__doc__
        return criterion


def _aso_better(eps_min) -> bool:
    return bool(eps_min < ASO_THRESHOLD)


def _left_above_threshold(probs) -> bool:
    # baycomp works on y - x: with x = A, "left" is P(A - B > rope)
    return bool(probs[0] > BAYES_THRESHOLD)


ADAPTERS: dict[str, Adapter] = {
    "deepsig:aso": Adapter(_aso_better, {"show_progress": False}, seed_kwarg="seed",
                           alternative="greater",
                           note="deepsig's ASO: A better when eps_min < 0.2"),
    "baycomp:two_on_single": Adapter(
        _left_above_threshold, alternative="greater",
        note="baycomp's correlated t-test: A better when P(A - B > rope) > 0.95"),
    "baycomp:two_on_multiple": Adapter(
        _left_above_threshold, seed_kwarg="random_state", alternative="greater",
        note="baycomp's signed-rank test: A better when P(A - B > rope) > 0.95"),
}


def import_criterion(spec: str) -> UserCriterion:
    """The criterion ``module:function`` (e.g. ``scipy.stats:wilcoxon``), through its
    :data:`ADAPTERS` entry if it has one.

    Parameters
    ----------
    spec : str
        ``'module:function'``; the function may be an attribute path (``module:obj.method``).

    Returns
    -------
    UserCriterion
        Named `spec`; vectorized when the function takes ``axis`` and has no adapter.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.base import Batch
    >>> rng = np.random.default_rng(0)
    >>> batch = Batch(rng.normal(1.0, 1.0, (2, 8)), rng.normal(0.0, 1.0, (2, 8)), paired=True)
    >>> criterion = import_criterion("scipy.stats:wilcoxon")
    >>> criterion.name, criterion.vectorized
    ('scipy.stats:wilcoxon', True)
    >>> criterion(batch, np.random.default_rng(0)).pvalues().round(4)
    array([0.0156, 0.3828])
    """
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"`criterion` {spec!r}: module {module_name!r} cannot be imported "
                         f"({err}); install it in this environment.") from None
    func = module
    for part in attribute.split("."):
        func = getattr(func, part, None)
    if not callable(func):
        raise ValueError(f"`criterion` {spec!r}: module {module_name!r} has no function "
                         f"{attribute!r}.")
    adapter = ADAPTERS.get(spec)
    if adapter is None:
        return UserCriterion(func, name=spec)
    return UserCriterion(adapter.wrap(func), name=spec, alternative=adapter.alternative,
                         vectorized=False)
