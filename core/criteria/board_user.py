"""A user's own rank procedure of a leaderboard, ``path/to/file.py:function``, run wherever a
registered one runs (:mod:`evalmc.criteria.leaderboard`): on boards of known truth and on
boards simulated like a real one.

**The contract.** The function is called once per board, with the board's sufficient data as
the keywords its parameters name:

- a board of battles: ``wins`` and ``ties``, int arrays of shape (P, M, M): ``wins[p, i, j]``
  the battles on prompt p that model i won against model j, ``ties[p, i, j] = ties[p, j, i]``
  their ties (one prompt slot, P = 1, when the battles' prompts are not reused);
- a board of items: ``scores``, a float array (items, M) of 0/1 or continuous scores, and
  ``clusters``, an int array (items,): each item's cluster, numbered from 0 (each item its own
  without clusters);
- ``rng``: a :class:`numpy.random.Generator`, the stream of the block of boards (the boards of
  a block called in turn), for a procedure that draws random numbers.

It takes ``wins`` (and ``ties``) to read battles, ``scores`` (and ``clusters``) to read items,
both (with defaults) to read either; the models are in the board's order. It returns
``better``, an M x M array of bools (or of 0 and 1): ``better[i, j]`` when it claims model i
better than model j, never both ``better[i, j]`` and ``better[j, i]`` nor ``better[i, i]``;
or None where it cannot read the board, which then counts as failed. A call that raises, or a
return of another form, stops the study with a ValueError that names the board and this
contract: a rank procedure's failure is a bug to fix, not a rate.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from evalmc.criteria.base import CriterionResult, UserFunction, _accepts
from evalmc.criteria.leaderboard import Claims
from evalmc.sims.base import read_only
from evalmc.sims.leaderboard import ArenaBatch

#: What the function is called with, and what it returns (the module docstring), for messages.
CALLED = ("a rank procedure is called once per board as f(wins=..., ties=..., rng=...) on "
          "battles, f(scores=..., clusters=..., rng=...) on items, with the keywords it takes")
RETURNS = ("it returns an M x M array of bools, better[i, j] where it claims model i better "
           "than model j (never both i > j and j > i, nor i > i), or None where it cannot read "
           "the board")
#: The keywords of each form of board, the first the one that says the function reads it.
FORMS = {"battles": ("wins", "ties"), "items": ("scores", "clusters")}


@dataclass(frozen=True)
class UserRankProcedure(UserFunction):
    """A user's rank procedure (the module docstring): ``claims(batch, rng)`` gives its
    :class:`~evalmc.criteria.leaderboard.Claims` on every board of a block.

    Parameters
    ----------
    func : callable
        The procedure, as the contract says.
    name : str
        Its name in results; default: `func`'s qualified name.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.criteria.board_user import UserRankProcedure
    >>> from evalmc.sims.leaderboard import ItemBoard
    >>> def first_beats_last(scores, clusters):
    ...     "The best mean beats the worst."
    ...     means = scores.mean(axis=0)
    ...     better = np.zeros((means.size, means.size), dtype=bool)
    ...     better[means.argmax(), means.argmin()] = True
    ...     return better
    >>> procedure = UserRankProcedure(first_beats_last)
    >>> batch = ItemBoard(models=3, items=40, clusters=4, scores="gaussian").draw(
    ...     np.random.default_rng(0), 2)
    >>> procedure.claims(batch, np.random.default_rng(1)).better.sum(axis=(1, 2)).tolist()
    [1, 1]
    """

    func: Callable
    name: str = ""
    kind: ClassVar[str] = "rank procedure"
    kinds: ClassVar[str] = "rank procedures"
    needs: ClassVar[str] = "leaderboard"

    def __post_init__(self):
        self._check_func()
        if not self.forms:
            raise ValueError(f"`procedure` {self.name!r} takes neither `wins` (battles) nor "
                             f"`scores` (items); {CALLED}.")

    @property
    def forms(self) -> tuple[str, ...]:
        """The forms of board it reads: ``'battles'``, ``'items'``."""
        return tuple(form for form, (first, _) in FORMS.items() if _accepts(self.func, first))

    @property
    def test(self):
        """Itself, as a registered procedure's ``test`` is its :class:`RankProcedure`."""
        return self

    @property
    def description(self) -> str:
        """The first line of `func`'s docstring, or ``'user rank procedure'``."""
        return self._doc_line()

    @functools.cached_property
    def key(self) -> str:
        """Name and a digest of the function by value (its cache key)."""
        return self._digest_key()

    def check_scenario(self, condition) -> None:
        """Raise ValueError unless `condition` draws boards of a form it reads."""
        self._check_holds(condition.batch.holds, f"scenario {condition.name!r}")

    def check_batch(self, batch) -> None:
        """Raise ValueError unless `batch` holds boards of a form it reads."""
        self._check_holds(batch.holds, "this board")

    def _check_holds(self, holds, what: str) -> None:
        if "leaderboard" not in holds or not any(form in holds for form in self.forms):
            form = next((f for f in FORMS if f in holds), "no leaderboard")
            raise ValueError(f"`procedure` {self.name!r} reads {' or '.join(self.forms)}; "
                             f"{what} holds {form}; {CALLED}.")

    def __call__(self, batch, rng=None) -> CriterionResult:
        claims = self.claims(batch, rng)
        return CriterionResult(claims.failed, pvalue=np.full(claims.failed.size, np.nan),
                               reject=claims.better.any(axis=(1, 2)), errors=claims.errors)

    def claims(self, batch, rng=None) -> Claims:
        """The claims of every board of `batch`, the function called on each in turn."""
        self.check_batch(batch)
        arena = isinstance(batch, ArenaBatch)
        n, m = (batch.wins.shape[0], batch.wins.shape[2]) if arena else (
            batch.scores.shape[0], batch.scores.shape[2])
        better, failed, errors = np.zeros((n, m, m), dtype=bool), np.zeros(n, dtype=bool), {}
        clusters = None if arena else read_only(np.asarray(batch.labels, dtype=np.int64))
        for r in range(n):
            data = ({"wins": batch.wins[r], "ties": batch.ties[r]} if arena else
                    {"scores": read_only(batch.scores[r].astype(float)), "clusters": clusters})
            if rng is not None:
                data["rng"] = rng
            kwargs = {k: v for k, v in data.items() if _accepts(self.func, k)}
            try:
                out = self.func(**kwargs)
            except Exception as err:  # noqa: BLE001 - reported with the contract
                text = " ".join(str(err).split())
                raise ValueError(f"`procedure` {self.name!r} raised on board {r}: "
                                 f"{type(err).__name__}: {text}; {CALLED}.") from None
            if out is None:
                failed[r], errors[r] = True, "the procedure could not read this board"
                continue
            better[r] = self._read(out, m, r)
        return Claims(better, failed, errors)

    def _read(self, out, m: int, board: int) -> np.ndarray:
        """`out` as ``better`` (M, M), or a ValueError naming `board` and the contract."""
        arr = np.asarray(out)
        if arr.shape != (m, m):
            problem = f"an array of shape {arr.shape}, not ({m}, {m})"
        elif arr.dtype != bool and not (np.issubdtype(arr.dtype, np.number)
                                        and np.isin(arr, (0, 1)).all()):
            problem = f"values of type {arr.dtype} that are not bools (or 0 and 1)"
        else:
            arr = arr.astype(bool)
            problem = ("a model better than itself" if np.diagonal(arr).any() else
                       "both i > j and j > i for some pair" if (arr & arr.T).any() else "")
        if problem:
            raise ValueError(f"`procedure` {self.name!r} returned {problem} on board "
                             f"{board}; {RETURNS}.")
        return arr


def load_rank_procedure(spec) -> UserRankProcedure:
    """A user's rank procedure: ``'path/to/file.py:function'`` or a callable.

    Parameters
    ----------
    spec : str or callable

    Returns
    -------
    UserRankProcedure
        Named `spec`; a ValueError when the file is missing, fails to import, lacks the
        function, or the function takes neither ``wins`` nor ``scores``.

    Examples
    --------
    >>> from evalmc.criteria.board_user import load_rank_procedure
    >>> spec = "tests/examples/my_rank_procedure.py:holm_sign"
    >>> load_rank_procedure(spec).forms
    ('battles', 'items')
    """
    if callable(spec):
        return UserRankProcedure(spec)
    from evalmc.criteria import load_function

    return UserRankProcedure(load_function(spec, "procedure"), name=spec)
