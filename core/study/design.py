"""The design of a study: its conditions, each built and validated once, with a stable id.

A condition is a population: a scenario with values for its parameters. Its id seeds every
random stream of its replications (:mod:`evalmc.engine.scheduler`), so the same population must
always get the same id: the id digests the parameters that differ from the scenario's
defaults, and spelling a default out does not change it.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalmc.sims import Scenario, get_scenario

if TYPE_CHECKING:
    import pandas as pd

#: The summaries' own columns: a design column may not take these names.
RESERVED = (
    "scenario", "condition_id", "criterion", "alpha", "rate", "mcse", "ci_low", "ci_high",
    "bradley", "n_reps", "n_failed", "truth", "type_s", "type_s_mcse", "type_m", "type_m_mcse",
    "type_m_capped",
    "replicability", "replicability_mcse", "power_sign", "power_sign_mcse",
)


def make_design(scenario=None, /, **grid) -> pd.DataFrame:
    """Full factorial grid of conditions, one row each, with a stable ``condition_id``.

    Parameters
    ----------
    scenario : str or Scenario subclass, optional
        The scenario whose parameters the columns are: its conditions are then validated, and
        a value equal to its default counts as left out (:func:`condition_id`). A study
        given a design without it re-keys the design on its own scenario.
    **grid
        Parameter name to a value or a list of values.

    Returns
    -------
    DataFrame
        ``condition_id`` first, then one column per parameter, in the order given.
        ``condition_id`` is a 64-bit digest of the row's values: the same condition keeps its
        id (and so its random streams) whatever else the grid holds and in whatever order.

    Examples
    --------
    >>> import evalmc
    >>> evalmc.make_design(n=[5, 10], rho=0.5)[["n", "rho"]]
        n  rho
    0   5  0.5
    1  10  0.5
    >>> spelled = evalmc.make_design("llm-items", n_items=[50, 100], tau=0.0)
    >>> bare = evalmc.make_design("llm-items", n_items=[50, 100])
    >>> spelled["condition_id"].equals(bare["condition_id"])
    True
    """
    import pandas as pd

    rows = grid_rows(grid)
    if scenario is not None:
        return Design.build(grid, scenario).frame
    frame = pd.DataFrame(rows, columns=list(grid))
    frame.insert(0, "condition_id", _unique_ids(rows, None))
    return frame


def default_grid(scenario) -> dict:
    """The design of the one condition at every default: the scenario's first parameter."""
    first = scenario.parameters()[0]
    return {first.name: [first.default]}


def grid_rows(grid: dict) -> list[dict]:
    """The full factorial grid of `grid` (name to a value or a list of values), one dict per
    condition, the last parameter varying fastest."""
    check_names(grid)
    values = [list(v) if _is_list(v) else [v] for v in grid.values()]
    for name, vals in zip(grid, values, strict=True):
        if len(vals) == 0:
            raise ValueError(f"design parameter `{name}` needs at least one value.")
    return [dict(zip(grid, combo, strict=True)) for combo in itertools.product(*values)]


def _is_list(value) -> bool:
    return isinstance(value, (list, tuple)) or type(value).__name__ in ("ndarray", "Series")


def condition_id(params: dict, scenario: type[Scenario] | None = None) -> int:
    """64-bit digest of a condition's parameter values (integral floats count as integers, a
    ``file`` by its content); with `scenario`, values equal to its defaults are left out, but a
    condition at every default keeps its first parameter."""
    if scenario is not None:
        defaults = {f.name: f.default for f in scenario.parameters()}
        kept = {k: v for k, v in params.items() if not _equal(v, defaults[k])}
        if not kept:
            first = scenario.parameters()[0].name
            kept = {first: params.get(first, defaults[first])}
        params = kept
    canon = {}
    for key, value in params.items():
        value = _py(value)
        if key == "file" and scenario is not None and value:
            value = _content(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        canon[key] = value
    text = json.dumps(canon, sort_keys=True, default=str)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def _content(path) -> str:
    """A file's content digest (its path as it is when it is not a readable file: the
    scenario then refuses it)."""
    from pathlib import Path

    try:
        data = Path(path).read_bytes()
    except OSError:
        return str(path)
    return "content:" + hashlib.blake2b(data, digest_size=16).hexdigest()


def check_names(names) -> None:
    """Raise ValueError if a design column takes a reserved name (:data:`RESERVED`)."""
    for name in names:
        if name in RESERVED:
            raise ValueError(f"design column `{name}` is a reserved name; reserved: "
                             f"{', '.join(RESERVED)}.")


@dataclass(frozen=True)
class Design:
    """A study's conditions: the `scenario`, the design columns `params`, each condition id's
    scenario instance (`conditions`) and design values (`rows`), in order."""

    scenario: type[Scenario]
    params: list[str]
    conditions: dict[int, Scenario]
    rows: list[dict]

    @property
    def frame(self) -> pd.DataFrame:
        """``condition_id`` and the design columns, one row per condition."""
        import pandas as pd

        frame = pd.DataFrame(self.rows, columns=self.params)
        frame.insert(0, "condition_id", list(self.conditions))
        return frame

    @classmethod
    def build(cls, design, scenario) -> Design:
        """The conditions of `design` (a Design, returned as it is if of `scenario`; a
        :func:`make_design` frame; or a dict of values) under `scenario`, validated, with their ids;
        duplicate populations are a ValueError."""
        scenario = get_scenario(scenario) if isinstance(scenario, str) else scenario
        if not (isinstance(scenario, type) and issubclass(scenario, Scenario)):
            raise ValueError(f"`scenario` must be a scenario name or class; got {scenario!r}.")
        if isinstance(design, Design):
            if design.scenario is not scenario:
                raise ValueError(f"the design is of scenario {design.scenario.name!r}; got "
                                 f"scenario {scenario.name!r}.")
            return design
        if isinstance(design, dict):
            params, rows = list(design), grid_rows(design)
        elif type(design).__name__ == "DataFrame":
            params = [c for c in design.columns if c != "condition_id"]
            rows = [{p: _py(row[p]) for p in params} for row in design.to_dict("records")]
        else:
            raise ValueError("`design` must be a DataFrame from make_design, or a dict of "
                             "values.")
        check_names(params)
        scenario.check_names(params)
        rows = [{p: _py(v) for p, v in row.items()} for row in rows]
        ids = _unique_ids(rows, scenario)
        conditions = {cid: scenario(**row) for cid, row in zip(ids, rows, strict=True)}
        return cls(scenario, params, conditions, rows)


def _unique_ids(rows, scenario) -> list[int]:
    ids = [condition_id(row, scenario) for row in rows]
    if len(set(ids)) != len(ids):
        raise ValueError("the design has duplicate conditions; give each value once (a value "
                         "equal to the scenario's default is the same condition as none).")
    return ids


def _equal(value, default) -> bool:
    value = _py(value)
    if isinstance(value, bool) or isinstance(default, bool):
        return value is default
    if isinstance(value, str) or isinstance(default, str):
        return value == default
    try:
        return float(value) == float(default)
    except (TypeError, ValueError):
        return value == default


def _py(value):
    """A numpy scalar as the Python value it holds."""
    return value.item() if type(value).__module__ == "numpy" else value
