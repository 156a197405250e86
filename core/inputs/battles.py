"""Pairwise battles of a leaderboard: one row per battle, ``model_a, model_b, winner`` and an
optional ``prompt``, as CSV (read by :func:`evalmc.inputs.tables.read_table`), JSON Lines (one
object per line) or one JSON array of objects (as FastChat's ``clean_battle_data.py`` writes
them). The winner is written as FastChat writes it: ``model_a``, ``model_b``, ``tie`` or
``tie (bothbad)`` (both count as a tie). Every error is one ValueError naming the file, the row
and the field.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

#: FastChat's winner values and what each means: 0 model_a won, 1 model_b won, 2 a tie.
WINNERS = {"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 2}
#: The fields a battle must have.
FIELDS = ("model_a", "model_b", "winner")


def is_battles(path) -> bool:
    """Whether the file at `path` holds battles: its header (CSV) or first object (JSON) has a
    ``winner`` field."""
    path = Path(path)
    if not path.is_file():
        return False
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        head = handle.read(4096).lstrip()
    if head[:1] in "[{":
        return '"winner"' in head.split("}", 1)[0]
    first = head.splitlines()[0] if head else ""
    return "winner" in {field.strip().strip('"') for field in first.replace(";", ",").split(",")}


def read_battles(path, *, prompt: str | None = "prompt"):
    """The battles of a file as a DataFrame ``model_a, model_b, outcome, prompt``.

    Parameters
    ----------
    path : path-like
        ``.csv``, ``.jsonl`` or ``.json`` (an array of objects).
    prompt : str, optional
        The field naming each battle's prompt; a file without it gives every battle a prompt
        of its own (None: ignore it).

    Returns
    -------
    DataFrame
        ``outcome`` is 0 (model_a won), 1 (model_b won) or 2 (a tie); ``prompt`` is a string,
        or None for every row when the file has no prompts.

    Raises
    ------
    ValueError
        For a missing or unreadable file, a row without a field, an unknown winner, a model
        battling itself or a file with no battle.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from evalmc.inputs.battles import read_battles
    >>> path = Path(tempfile.mkdtemp()) / "battles.jsonl"
    >>> _ = path.write_text('{"model_a": "x", "model_b": "y", "winner": "model_b"}\\n'
    ...                     '{"model_a": "y", "model_b": "x", "winner": "tie (bothbad)"}\\n')
    >>> read_battles(path)
      model_a model_b  outcome prompt
    0       x       y        1   None
    1       y       x        2   None
    """
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"`FILE` must be an existing file of battles; got {str(path)!r}.")
    rows = []
    for origin, record in _records(path):
        values = []
        for name in FIELDS:
            value = record.get(name)
            if value is None or (isinstance(value, float) and np.isnan(value)):
                raise ValueError(f"{origin}: field {name!r} is missing; a battle needs "
                                 "model_a, model_b and winner.")
            values.append(str(value))
        a, b, winner = values
        if winner not in WINNERS:
            raise ValueError(f"{origin}: winner {winner!r} is not one of "
                             f"{', '.join(map(repr, WINNERS))}.")
        if a == b:
            raise ValueError(f"{origin}: model {a!r} battles itself.")
        where = record.get(prompt) if prompt else None
        rows.append((a, b, WINNERS[winner], None if where is None else str(where)))
    if not rows:
        raise ValueError(f"`FILE` {str(path)!r} holds no battle.")
    frame = pd.DataFrame(rows, columns=["model_a", "model_b", "outcome", "prompt"])
    if frame["prompt"].isna().any() and frame["prompt"].notna().any():
        first = int(np.flatnonzero(frame["prompt"].isna())[0])
        raise ValueError(f"{path.name} battle {first + 1}: field {prompt!r} is missing while "
                         "other battles have it.")
    frame.attrs["file"] = str(path)
    return frame


def _records(path: Path) -> list[tuple[str, dict]]:
    """The file's battles as (origin, record) pairs."""
    with open(path, encoding="utf-8-sig") as handle:
        text = handle.read()
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path.name}: not valid JSON ({err.msg}, line {err.lineno}).") \
                from None
        return [(f"{path.name} battle {i + 1}", _object(r, f"{path.name} battle {i + 1}"))
                for i, r in enumerate(data)]
    if stripped.startswith("{"):
        out = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            origin = f"{path.name} line {number}"
            try:
                out.append((origin, _object(json.loads(line), origin)))
            except json.JSONDecodeError as err:
                raise ValueError(f"{origin}: not valid JSON ({err.msg}).") from None
        return out
    from evalmc.inputs.tables import read_table

    frame = read_table(path, option="FILE")
    return [(f"{path.name} data row {i + 1}", {str(k): v for k, v in r.items()})
            for i, r in enumerate(frame.to_dict(orient="records"))]


def _object(value, origin: str) -> dict:
    """`value` if it is a JSON object, else a ValueError naming `origin`."""
    if not isinstance(value, dict):
        raise ValueError(f"{origin}: a battle must be a JSON object; got {type(value).__name__}.")
    return value


def counts(battles, models=None) -> tuple[list[str], list, np.ndarray, np.ndarray]:
    """The board's sufficient statistics: models (sorted), prompts, and ``wins[p, i, j]``,
    ``ties[p, i, j]`` per prompt (one slot when battles have no prompts)."""
    models = sorted(set(battles["model_a"]) | set(battles["model_b"])) if models is None \
        else list(models)
    index = {m: k for k, m in enumerate(models)}
    a = battles["model_a"].map(index).to_numpy()
    b = battles["model_b"].map(index).to_numpy()
    if battles["prompt"].isna().all():
        prompts, slot = [None], np.zeros(len(battles), dtype=int)
    else:
        prompts, slot = _codes(battles["prompt"])
    m, outcome = len(models), battles["outcome"].to_numpy()
    wins = np.zeros((len(prompts), m, m), dtype=np.int64)
    ties = np.zeros_like(wins)
    np.add.at(wins, (slot[outcome == 0], a[outcome == 0], b[outcome == 0]), 1)
    np.add.at(wins, (slot[outcome == 1], b[outcome == 1], a[outcome == 1]), 1)
    tied = outcome == 2
    np.add.at(ties, (slot[tied], a[tied], b[tied]), 1)
    np.add.at(ties, (slot[tied], b[tied], a[tied]), 1)
    return models, prompts, wins, ties


def _codes(values) -> tuple[list, np.ndarray]:
    """The distinct values in order of first appearance, and each row's code."""
    import pandas as pd

    codes, uniques = pd.factorize(values)
    return list(uniques), codes
