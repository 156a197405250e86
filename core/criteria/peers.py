"""Peer tools as criteria, unchanged: ``module:function`` is imported and called as is, its
answer read as any user criterion's; a peer whose answer or defaults do not suit has an
:class:`Adapter`, keyed by its exact ``module:function`` name."""

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
    """How a peer is called on one replication and its answer read: `read` maps its return value
    to a p-value or a decision, `seed_kwarg` takes a seed drawn from the replication's stream."""

    read: Callable
    kwargs: dict = field(default_factory=dict)
    seed_kwarg: str | None = None
    alternative: str = "two-sided"
    note: str = ""

    def wrap(self, func: Callable) -> Callable:
        """``criterion(a, b, rng)``: `func` called with these arguments, its answer `read`."""
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
    """The criterion ``module:function``, through its :data:`ADAPTERS` entry if it has one."""
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
