"""Item-level evaluation results: one long table, one row per (model, item, sample).

:func:`read_items` reads a file into a DataFrame with the columns ``model, item, sample,
cluster, score``, whatever wrote it:

- **a table of your own**, CSV (or TSV; read by :func:`evalmc.inputs.tables.read_table`) or JSON
  Lines (one object per line), one row per scored item;
- **lm-evaluation-harness** per-sample logs, as ``lm_eval --log_samples`` writes them (each
  sample the ``example`` dict built in ``evaluate`` of ``lm_eval/evaluator.py``):
  ``samples_<task>_<date>.jsonl``, JSON Lines (``EvaluationTracker.save_results_samples`` of
  ``lm_eval/loggers/evaluation_tracker.py``, 0.4.3 on; ``.json`` in June 2024), or one JSON
  array per task (``<model_args>_<task>.jsonl`` beside ``results.json`` in 0.4.0 to 0.4.2,
  ``samples_<task>_<date>.json`` in May 2024); a results file, read with the samples of its run
  beside it; an output folder, read with every run in it (its model folders included);
- **inspect_ai** logs, the JSON log (``EvalLog`` of ``inspect_ai/log/_log.py``) or the ``.eval``
  archive (``inspect_ai/log/_recorders/eval.py``: ``header.json``, or
  ``_journal/start.json`` while a run is under way, and one ``samples/<id>_epoch_<n>.json`` per
  sample), read with :mod:`zipfile` and :mod:`json` only. inspect_ai compresses these
  members with Zstandard since its version 0.3.206: Python reads them from 3.14 on, and
  earlier Pythons with the ``zstandard`` package when it is installed.

The same keywords name what to read in each format:

- ``metric``, the scores: a table's column (default ``score``); an lm-evaluation-harness
  metric, ``acc``, or ``exact_match,strict-match`` naming its filter as its results do; an
  inspect_ai scorer, ``choice``, or ``scorer:key`` when the scorer's values are dicts. A log
  with one metric (one scorer) needs none.
- ``model``: a table's column of model names (default ``model``); a log's model name, by
  default the one the log names (inspect_ai's ``eval.model``; for lm-evaluation-harness the
  companion ``results_<date>.json``, else the folder the harness names after the model).
- ``item``, ``sample``: a table's columns of item ids (default ``item``) and of sample
  indices (default none: 0). A log has its own: ``doc_id`` (lm-evaluation-harness; read from
  a results file or a folder, ``<task>/<doc_id>``, as a task's ids start over), the sample's
  ``id`` and ``epoch`` (inspect_ai).
- ``cluster``: a table's column, a field of an lm-evaluation-harness ``doc`` (``subject``;
  ``task`` is the task) or of an inspect_ai sample's ``metadata``; dots reach into nested
  fields.
- ``tasks``: the lm-evaluation-harness tasks (or groups) to read; ``labels``: a model name per
  file or folder, for two runs of one model; ``common``: only the items every model has.

Conventions (decisions of this module):

- **Items are strings**: ``doc_id`` 7 and a CSV item 7 are both ``'7'``, so models read from
  different formats pair on the same items.
- **A missing cluster is the item itself**: each item is then its own cluster, which is what a
  standard error clustered over repeated samples of one item needs. ``attrs['cluster']`` says
  where the clusters came from (None when each item is its own). An item belongs to one
  cluster; a second one is an error naming both rows.
- **A missing sample index is 0**; inspect_ai's epochs keep their numbers (1, 2, ...).
  lm-evaluation-harness logs one score per document and filter: its ``repeats`` are reduced by
  the task's filters (``take_first``, ``majority_vote``) before the metric is computed, so
  its samples are all 0. Runs read apart (seeds, epochs of training) can be given their own
  sample index and stacked with :func:`stack_items`.
- **Scores are floats**: numbers, and booleans as 1 and 0; inspect_ai's letters read as its
  ``value_to_float`` does by default (``C`` 1, ``P`` 0.5, ``I`` and ``N`` 0, ``yes``/``true`` 1,
  ``no``/``false`` 0, numeric text its number), but a value it would warn about and count as
  0 is an error here. A score that is missing (an empty cell, ``null``, NaN, a sample that
  failed) is an error naming its row, or, with ``dropna=True``, is dropped and listed in
  ``attrs['dropped']``.
- **One row per (model, item, sample)**: a repeated one is an error naming both rows.
- **Sorted** by model, item (in natural order: ``q2`` before ``q10``) and sample.

Every error is one ValueError naming the file, the row (the line, the data row of a table or
the sample and epoch of an inspect_ai log) and the field.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

#: The columns of an item table, in order.
COLUMNS = ("model", "item", "sample", "cluster", "score")

#: Fields of an lm-evaluation-harness sample line that are not metrics (the ``example`` dict of
#: ``evaluate`` in ``lm_eval/evaluator.py``).
_LM_EVAL_FIELDS = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps",
                             "filter", "metrics", "doc_hash", "prompt_hash", "target_hash"})
#: lm-evaluation-harness names its runs ``<date_id>`` = ``datetime.now().isoformat()`` with
#: ``:`` replaced by ``-`` (``save_results_aggregated``), shared by the samples and results files;
#: the samples file ends ``.json`` before June 2024, ``.jsonl`` after.
_LM_EVAL_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d.-]+)\.jsonl?$")
_LM_EVAL_RESULTS = re.compile(r"^results_(?P<date>\d{4}-\d{2}-\d{2}T[\d.-]+)\.json$")
#: inspect_ai's ``value_to_float`` defaults (``inspect_ai/scorer/_metric.py``).
_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
#: The zip compression method of Zstandard, which inspect_ai writes .eval logs with since 0.3.206.
_ZIP_ZSTANDARD = 93


class _Row(NamedTuple):
    """One score as read, with where it was read from (for messages)."""

    model: str
    item: str
    sample: int
    cluster: str | None
    score: float
    origin: str
    #: Where in the file, when `origin` may not tell two rows apart (a JSON log's samples[i]).
    place: str = ""
    #: Why the score is missing, when the log says.
    note: str = ""


class _Wanted(NamedTuple):
    """What :func:`read_items` is asked to read: its keywords, as given (`labels` checked)."""

    metric: str | None
    model: str | None
    item: str
    sample: str | None
    cluster: str | None
    tasks: tuple | None = None
    labels: _Labels | None = None


class _Read(NamedTuple):
    """What a format's reader returns: the rows, the metric read (as ``attrs['metric']`` shows
    it), the task (None when the file names none, or names several) and every task read."""

    rows: list[_Row]
    metric: str
    task: str | None
    tasks: tuple = ()


class _Labels:
    """The `labels` of :func:`read_items`: a model name per file or folder, and the keys used."""

    def __init__(self, labels):
        if not isinstance(labels, Mapping):
            raise ValueError(f"`labels` must map files (or folders) to model names; got "
                             f"{type(labels).__name__}.")
        self.names = {}
        for key, name in labels.items():
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"`labels`: the name of {str(key)!r} must be a non-empty "
                                 f"string; got {name!r}.")
            self.names[str(key)] = name.strip()
        self.used: set[str] = set()

    def name(self, *paths: Path | None) -> str | None:
        """The label of the first of `paths` a key names (its path, or its file name when the
        key is a bare name), else of the nearest folder holding the first path."""
        given = [p.resolve() for p in paths if p is not None]
        for path in given + list(given[0].parents if given else ()):
            for key in self.names:
                if Path(key).resolve() == path or (Path(key).name == key == path.name
                                                  and path in given):
                    self.used.add(key)
                    return self.names[key]
        return None

    def check_used(self, where: str) -> None:
        """A ValueError for a key that labelled nothing read from `where`."""
        unused = [key for key in self.names if key not in self.used]
        if unused:
            raise ValueError(f"`labels`: {unused[0]!r} is no file or folder read from {where} "
                             "(a key is a path, or a file's name).")


def read_items(path, *, fmt: str | None = None, metric: str | None = None,
               model: str | None = None, item: str = "item", sample: str | None = None,
               cluster: str | None = None, dropna: bool = False,
               tasks: Sequence[str] | None = None, labels: Mapping | None = None,
               common: bool = False) -> pd.DataFrame:
    """Item-level results as one long table, one row per (model, item, sample).

    Parameters
    ----------
    path : path-like, or a sequence of them
        The file: ``.csv`` or ``.tsv``, ``.jsonl`` (a table, or lm-evaluation-harness samples),
        ``.json`` (inspect_ai, or lm-evaluation-harness samples or results) or ``.eval``
        (inspect_ai); or an lm-evaluation-harness output folder (every run in it, its model
        folders included). Several paths are each read and stacked (:func:`stack_items`).
    fmt : {'csv', 'jsonl', 'lm-eval', 'lm-eval-array', 'lm-eval-results', \
'lm-eval-folder', 'inspect'}, optional
        Default: found from the name and the content (:func:`detect_format`).
    metric : str, optional
        The scores: a table's column (default ``'score'``); an lm-evaluation-harness metric
        (``'acc'``, or ``'acc,none'`` naming its filter); an inspect_ai scorer (``'choice'``,
        or ``'scorer:key'`` when its values are dicts). Default for a log: its only metric.
    model : str, optional
        A table's column of model names (default ``'model'``); a log's model name (default:
        the one the log names).
    item : str
        A table's column of item ids.
    sample : str, optional
        A table's column of sample indices (integers); default: every row is sample 0.
    cluster : str, optional
        A table's column, a field of an lm-evaluation-harness ``doc`` (``'task'``: the task),
        or a field of an inspect_ai sample's ``metadata`` (dots reach into nested fields);
        default: each item is its own cluster.
    dropna : bool
        Drop the rows missing a score (listed in ``attrs['dropped']``) instead of refusing them.
    tasks : sequence of str, optional
        The lm-evaluation-harness tasks to read (a group, such as ``'mmlu'``, names its tasks);
        default: all. A results file or a folder gives items ``'<task>/<doc_id>'``.
    labels : mapping, optional
        A model name per file or folder (its path, or a file's name): the scores read from it,
        or from under it, are that model's, so that two runs of one model can be told apart. An
        lm-evaluation-harness run may be named by its results file.
    common : bool
        Keep only the items every model has (``attrs['dropped_items']`` counts, per model, the
        items dropped); by default each model keeps all its items.

    Returns
    -------
    DataFrame
        Columns ``model, item, sample, cluster, score`` (str, str, int, str, float), sorted;
        ``attrs`` holds ``file``, ``format``, ``metric``, ``cluster`` (the field, or None),
        ``task`` (a log's task: from the file name or results of lm-evaluation-harness,
        inspect_ai's ``eval.task_display_name`` or ``eval.task``; None for a table or for
        several tasks), ``tasks`` (every task read) and ``dropped`` (where each dropped row
        was).

    Raises
    ------
    ValueError
        For a file that is missing or unreadable, a field that is missing or holds no valid
        value, a metric the file does not have or a choice it leaves open, a missing score
        (unless `dropna`), a repeated (model, item, sample), an item in two clusters, or a
        label naming nothing read; the message names the file, the row and the field.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from evalmc.inputs.itemlogs import read_items
    >>> path = Path(tempfile.mkdtemp()) / "items.csv"
    >>> _ = path.write_text("model,item,score\\nA,q2,1\\nA,q1,0\\nB,q1,1\\nB,q2,0.5\\n")
    >>> read_items(path)
      model item  sample cluster  score
    0     A   q1       0      q1    0.0
    1     A   q2       0      q2    1.0
    2     B   q1       0      q1    1.0
    3     B   q2       0      q2    0.5

    Two runs of one model, told apart by their files:

    >>> for run in ("monday", "tuesday"):
    ...     _ = (path.parent / f"{run}.csv").write_text("model,item,score\\nA,q1,1\\nA,q2,0\\n")
    >>> table = read_items([path.parent / "monday.csv", path.parent / "tuesday.csv"],
    ...                    labels={"monday.csv": "A (Monday)", "tuesday.csv": "A (Tuesday)"})
    >>> sorted(set(table["model"]))
    ['A (Monday)', 'A (Tuesday)']
    """
    wanted = _Wanted(metric, model, item, sample, cluster, _tasks(tasks),
                     None if labels is None else _Labels(labels))
    if isinstance(path, (str, os.PathLike)):
        frame = _read_one(Path(path), fmt, wanted, dropna)
    else:
        frame = _read_many([Path(p) for p in path], fmt, wanted, dropna)
    if wanted.labels is not None:
        wanted.labels.check_used(frame.attrs["file"])
    return _common(frame) if common else frame


def _tasks(tasks) -> tuple | None:
    """`tasks` as a tuple of names (a single name taken as one task), or None."""
    if tasks is None:
        return None
    tasks = (tasks,) if isinstance(tasks, str) else tuple(map(str, tasks))
    if not tasks:
        raise ValueError("`tasks` must name at least one task; got none.")
    return tasks


def _read_one(path: Path, fmt: str | None, wanted: _Wanted, dropna: bool) -> pd.DataFrame:
    """The table of one file or folder."""
    if not path.exists():
        raise ValueError(f"{str(path)!r} is not a file of item-level results.")
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise ValueError(f"`fmt` must be one of {', '.join(FORMATS)}; got {fmt!r}.")
    if path.is_dir() != (fmt == "lm-eval-folder"):
        raise ValueError(f"{str(path)!r}: format {fmt!r} reads "
                         f"{'folders' if fmt == 'lm-eval-folder' else 'files'}, and this is "
                         f"{'a folder' if path.is_dir() else 'a file'}.")
    rows, used, task, tasks = _READERS[fmt](path, wanted)
    frame = _frame(list(rows), path=path, fmt=fmt, metric=used, cluster=wanted.cluster,
                   dropna=dropna)
    frame.attrs.update(task=task, tasks=list(tasks) or ([task] if task else []))
    return frame


def _read_many(paths: list[Path], fmt: str | None, wanted: _Wanted,
               dropna: bool) -> pd.DataFrame:
    """The tables of several files or folders, stacked; one model on the same items in two of
    them is an error that asks for labels."""
    if not paths:
        raise ValueError("`path` names no file to read.")
    tables = [_read_one(p, fmt, wanted, dropna) for p in paths]
    for (i, a), (j, b) in itertools.combinations(enumerate(tables), 2):
        _apart(paths[i], a, paths[j], b)
    frame = stack_items(tables)
    frame.attrs.update(file=", ".join(map(str, paths)),
                       dropped=[d for t in tables for d in t.attrs["dropped"]],
                       task=_shared(tables, "task"),
                       tasks=sorted({t for table in tables for t in table.attrs["tasks"]},
                                    key=_natural))
    return frame


def _apart(first: Path, a: pd.DataFrame, second: Path, b: pd.DataFrame) -> None:
    """A ValueError when a model of `a` has scores of `b`'s (item, sample): two runs of it."""
    keys = ["model", "item", "sample"]
    both = a[keys].merge(b[keys], on=keys)
    if len(both):
        name = both["model"].iloc[0]
        raise ValueError(f"{first.name} and {second.name} both hold model {name!r} on the same "
                         f"items (item {both['item'].iloc[0]!r}, ...): two runs of it? Label "
                         f"them apart with `labels`, as in labels={{'{first.name}': "
                         f"'{name} (1)', '{second.name}': '{name} (2)'}} (--label FILE=NAME on "
                         "the command line); two tasks' files are read together from their "
                         "folder or results file, which key each item by its task.")


def _common(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of the items every model has; ``attrs['dropped_items']`` counts, per model,
    its items dropped."""
    items = frame.groupby("model", sort=False)["item"].agg(set)
    shared = set.intersection(*items)
    if not shared:
        raise ValueError(f"models {', '.join(map(repr, items.index))} share no item.")
    kept = frame[frame["item"].isin(shared)].reset_index(drop=True)
    kept.attrs = {**frame.attrs, "dropped_items": {m: len(s - shared) for m, s in items.items()
                                                   if s - shared}}
    return kept


def detect_format(path) -> str:
    """The format of a file of item-level results, from its name and its first line.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    str
        ``'csv'`` (``.csv``, ``.tsv``, ``.txt``); ``'inspect'`` (``.eval``, and ``.json`` not
        otherwise told); for lm-evaluation-harness ``'lm-eval'`` (``.jsonl``, ``.ndjson`` or
        ``.json`` whose first line is an object with ``doc_id``), ``'lm-eval-array'``
        (``.jsonl`` or ``.json`` holding a JSON array, as 0.4.0 to 0.4.2 and May 2024 wrote
        samples), ``'lm-eval-results'`` (``.json`` whose first field is ``results``) and
        ``'lm-eval-folder'`` (a folder); ``'jsonl'`` (another ``.jsonl`` or ``.ndjson``).

    Raises
    ------
    ValueError
        For a name ending otherwise.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from evalmc.inputs.itemlogs import detect_format
    >>> path = Path(tempfile.mkdtemp()) / "samples_arc_easy_2024-05-01T10-00-00.jsonl"
    >>> _ = path.write_text('{"doc_id": 0, "resps": [], "acc": 1.0}\\n')
    >>> detect_format(path), detect_format(path.parent)
    ('lm-eval', 'lm-eval-folder')
    """
    path = Path(path)
    if path.is_dir():
        return "lm-eval-folder"
    found = _SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise ValueError(f"{path.name}: cannot tell the format from the name; give `fmt`, one "
                         f"of {', '.join(FORMATS)}.")
    return found(path) if callable(found) else found


def _first_char(path: Path) -> str:
    """The first character of a file that is not white space ('' for none)."""
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        while chunk := handle.read(4096):
            if chunk.strip():
                return chunk.lstrip()[0]
    return ""


def _first_object(path: Path):
    """The first non-blank line of a file parsed as JSON (None when it is not JSON)."""
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        first = next((line for line in handle if line.strip()), "")
    try:
        return json.loads(first)
    except json.JSONDecodeError:
        return None


def _is_lm_eval_sample(head) -> bool:
    """Whether a JSON object is a sample lm-evaluation-harness logged."""
    return isinstance(head, dict) and "doc_id" in head and (
        "resps" in head or "filtered_resps" in head)


def _jsonl_format(path: Path) -> str:
    """``'lm-eval-array'`` for a JSON array, ``'lm-eval'`` when the first object has
    ``doc_id`` and ``resps``, else ``'jsonl'``."""
    if _first_char(path) == "[":
        return "lm-eval-array"
    return "lm-eval" if _is_lm_eval_sample(_first_object(path)) else "jsonl"


def _json_format(path: Path) -> str:
    """lm-evaluation-harness samples (a JSON array, or JSON Lines) or results (first field
    ``results``), else ``'inspect'``."""
    if _first_char(path) == "[":
        return "lm-eval-array"
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        head = handle.read(4096)
    if re.match(r'\s*\{\s*"results"\s*:', head):
        return "lm-eval-results"
    if head.lstrip().startswith('{"doc_id"') and _is_lm_eval_sample(_first_object(path)):
        return "lm-eval"
    return "inspect"


# --------------------------------------------------------------------------- tables


def _csv_rows(path: Path, wanted: _Wanted) -> _Read:
    """The rows of a CSV (or TSV) table of the user's own."""
    return _table_rows(path, _read_csv(path), wanted)


def _jsonl_rows(path: Path, wanted: _Wanted) -> _Read:
    """The rows of a JSON Lines table of the user's own."""
    return _table_rows(path, _read_jsonl_table(path), wanted)


def _read_csv(path: Path) -> list[tuple[str, dict]]:
    """The rows of a CSV file as (origin, record) pairs."""
    from evalmc.inputs.tables import read_table

    frame = read_table(path, option="path")
    records = frame.to_dict(orient="records")
    return [(f"{path.name} data row {i + 1}", {str(k): v for k, v in record.items()})
            for i, record in enumerate(records)]


def _read_jsonl_table(path: Path) -> list[tuple[str, dict]]:
    """The objects of a JSON Lines file as (origin, record) pairs."""
    return [(f"{path.name} line {number}", record)
            for number, record in _json_lines(path)]


def _json_lines(path: Path) -> Iterator[tuple[int, dict]]:
    """Each non-blank line of a JSON Lines file, parsed, with its line number."""
    with open(path, encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line.rstrip("\r\n"))
            except json.JSONDecodeError as err:
                raise ValueError(f"{path.name} line {number}: not valid JSON ({err.msg} at "
                                 f"column {err.colno}).") from None
            if not isinstance(record, dict):
                raise ValueError(f"{path.name} line {number}: a JSON object is needed; got "
                                 f"{type(record).__name__}.")
            yield number, record


def _table_rows(path: Path, records: list[tuple[str, dict]], wanted: _Wanted) -> _Read:
    """The rows of a long table of the user's own, its columns named by `wanted`."""
    if not records:
        raise ValueError(f"{path.name}: no rows of scores.")
    metric, model, item = wanted.metric or "score", wanted.model or "model", wanted.item
    sample, cluster = wanted.sample, wanted.cluster
    fields = {"model": model, "item": item, "metric": metric}
    fields.update({k: v for k, v in (("sample", sample), ("cluster", cluster)) if v})
    rows = []
    for origin, record in records:
        for what, field in fields.items():
            if field not in record:
                present = ", ".join(map(str, record))
                raise ValueError(f"{origin}: field `{field}` ({what}) missing; fields present: "
                                 f"{present} (name the {what} with `{what}`).")
        name = _key(record[model], origin, model)
        key = _key(record[item], origin, item)
        index = _sample_index(record[sample], origin, sample) if sample else 0
        group = _key(record[cluster], origin, cluster) if cluster else None
        rows.append(_Row(name, key, index, group, _number(record[metric], origin, metric),
                         origin))
    label = _label(wanted, path)
    return _Read(_relabelled(rows, label, path) if label else rows, metric, None)


def _relabelled(rows: list[_Row], label: str, path: Path) -> list[_Row]:
    """The rows of a table of one model, given the name `label`."""
    models = list(dict.fromkeys(row.model for row in rows))
    if len(models) > 1:
        raise ValueError(f"`labels` names {path.name} {label!r}, but it holds {len(models)} "
                         f"models ({', '.join(models)}); a label names a file of one model.")
    return [row._replace(model=label) for row in rows]


def _key(value, origin: str, field: str) -> str:
    """A model, item or cluster label as a string (an integral float reads as an integer)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise ValueError(f"{origin}: field `{field}` is empty.")
    if isinstance(value, (bool, dict, list)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise ValueError(f"{origin}: field `{field}` must be a name or an id; got {value!r}.")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value).strip()
    if not text:
        raise ValueError(f"{origin}: field `{field}` is empty.")
    return text


def _sample_index(value, origin: str, field: str) -> int:
    """A sample index: an integer (or integral float, or integer text)."""
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if not (math.isfinite(number) and number.is_integer()):
        raise ValueError(f"{origin}: field `{field}` (sample) must be an integer; got "
                         f"{value!r}.")
    return int(number)


def _number(value, origin: str, field: str) -> float:
    """A score from a table cell: a number, a boolean, or NaN when missing."""
    if value is None:
        return math.nan
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if text.lower() in ("", "na", "nan", "null"):
            return math.nan
        if text.lower() in _WORDS:
            return _WORDS[text.lower()]
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{origin}: field `{field}` must be a number; got {value!r}."
                             ) from None
    else:
        raise ValueError(f"{origin}: field `{field}` must be a number; got {value!r}.")
    if math.isinf(number):
        raise ValueError(f"{origin}: field `{field}` must be finite; got {value!r}.")
    return number


# --------------------------------------------------------------------------- lm-eval


class _Source(NamedTuple):
    """One lm-evaluation-harness samples file, with its task and its run's results file (and
    that file's contents) when they are known."""

    path: Path
    task: str | None
    results: Path | None = None
    data: dict | None = None


def _lm_eval_rows(path: Path, wanted: _Wanted) -> _Read:
    """The rows of lm-evaluation-harness samples written as JSON Lines:
    ``samples_<task>_<date>.jsonl`` (0.4.3 on), or ``.json`` (June 2024)."""
    return _lm_eval_file(path, _json_line_records(path), wanted)


def _lm_eval_array_rows(path: Path, wanted: _Wanted) -> _Read:
    """The rows of lm-evaluation-harness samples written as one JSON array:
    ``<model_args>_<task>.jsonl`` (0.4.0 to 0.4.2) or ``samples_<task>_<date>.json`` (May 2024)."""
    return _lm_eval_file(path, _json_array_records(path), wanted)


def _lm_eval_results_rows(path: Path, wanted: _Wanted) -> _Read:
    """The rows of the samples of the run an lm-evaluation-harness results file sums up."""
    data = _results_data(path)
    sources = _run_sources(path, data) if data is not None else []
    if not sources:
        raise ValueError(f"{path.name}: an lm-evaluation-harness results file, without its "
                         f"samples beside it ({_expected_samples(path, data)}); lm_eval writes "
                         "them with --log_samples.")
    return _runs_rows(path, [sources], wanted)


def _lm_eval_folder_rows(path: Path, wanted: _Wanted) -> _Read:
    """The rows of every run in an lm-evaluation-harness output folder (its model folders
    included): each results file with its samples, and samples files without one."""
    return _runs_rows(path, _folder_runs(path), wanted)


def _lm_eval_file(path: Path, records: list[tuple[str, dict]], wanted: _Wanted) -> _Read:
    """The rows of one samples file read alone: items are its ``doc_id``."""
    source = _samples_source(path)
    if wanted.tasks and source.task is not None and source.task not in _expand(
            wanted.tasks, source.data):
        raise ValueError(f"{path.name}: holds task {source.task!r}, not one of `tasks` "
                         f"({', '.join(wanted.tasks)}).")
    rows, metric = _source_rows(source, records, wanted, prefix="")
    return _Read(rows, metric, source.task)


def _json_line_records(path: Path) -> list[tuple[str, dict]]:
    """The samples of a JSON Lines file as (origin, record) pairs."""
    return [(f"{path.name} line {number}", record) for number, record in _json_lines(path)]


def _json_array_records(path: Path) -> list[tuple[str, dict]]:
    """The samples of a file holding one JSON array as (origin, record) pairs."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            records = json.load(handle)
    except json.JSONDecodeError as err:
        raise ValueError(f"{path.name}: not valid JSON ({err.msg} at line {err.lineno} column "
                         f"{err.colno}).") from None
    if not isinstance(records, list):
        raise ValueError(f"{path.name}: a JSON array of samples is needed; got "
                         f"{type(records).__name__}.")
    pairs = [(f"{path.name} entry {i + 1}", record) for i, record in enumerate(records)]
    for origin, record in pairs:
        if not isinstance(record, dict):
            raise ValueError(f"{origin}: a JSON object is needed; got {type(record).__name__}.")
    return pairs


def _lm_eval_records(path: Path) -> list[tuple[str, dict]]:
    """The samples of a samples file, whichever way it was written."""
    return (_json_array_records(path) if _first_char(path) == "["
            else _json_line_records(path))


def _source_rows(source: _Source, records: list[tuple[str, dict]], wanted: _Wanted, *,
                 prefix: str) -> tuple[list[_Row], str]:
    """The rows of one samples file and the metric read (``name,filter``); each item is
    `prefix` and its ``doc_id``."""
    if not records:
        raise ValueError(f"{source.path.name}: no samples.")
    metric = wanted.metric
    name, want_filter = (metric.split(",", 1) + [None])[:2] if metric else (None, None)
    records = _named_filters(source, records)
    want_filter = _lm_eval_filter(source.path, records, name, want_filter)
    records = [(o, r) for o, r in records if r.get("filter", "none") == want_filter]
    if name is None:
        name = _lm_eval_only_metric(*records[0])
    model = (_label(wanted, source.path, source.results) or wanted.model
             or _model_of_source(source))
    rows = [_lm_eval_row(record, origin, name, model, wanted.cluster, source.task, prefix)
            for origin, record in records]
    return rows, f"{name},{want_filter}"


def _named_filters(source: _Source, records: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The records, each naming its filter. Before 0.4.7 lm-evaluation-harness named none: a
    task with several filters logs its documents once per filter, in the order of the task's
    ``filter_list``, which its results file holds."""
    ids = [repr(r.get("doc_id")) for _, r in records]
    if any("filter" in r for _, r in records) or len(set(ids)) == len(ids):
        return records
    names = _filter_names(source)
    seen: dict[str, int] = {}
    named = []
    for doc, (origin, record) in zip(ids, records, strict=True):
        k = seen[doc] = seen.get(doc, -1) + 1
        if k >= max(len(names), 1):
            why = (f"its results file names {len(names)} filter(s)" if source.data else
                   "no results file of its run was found beside it")
            raise ValueError(f"{origin}: document {record.get('doc_id')!r} logged again, "
                             "without a filter name (lm-evaluation-harness before 0.4.7 logs "
                             "a task's documents once per filter, in the order of the "
                             f"`filter_list` its results file holds); {why}.")
        named.append((origin, {**record, "filter": names[k] if names else "none"}))
    return named


def _filter_names(source: _Source) -> list[str]:
    """The names of the filters of the source's task, as its results file lists them."""
    config = ((source.data or {}).get("configs") or {}).get(source.task) or {}
    return [f["name"] for f in config.get("filter_list") or []
            if isinstance(f, dict) and isinstance(f.get("name"), str)]


def _lm_eval_filter(path: Path, lines: list[tuple[str, dict]], name: str | None,
                    want_filter: str | None) -> str:
    """The filter to read: `want_filter` when the samples have it, else their only one."""
    filters = list(dict.fromkeys(record.get("filter", "none") for _, record in lines))
    if want_filter is None:
        if len(filters) > 1:
            guess = name or (_lm_eval_metrics(lines[0][1]) or ["METRIC"])[0]
            example = f"{guess},{filters[0]}"
            raise ValueError(f"{path.name}: the samples hold {len(filters)} filters "
                             f"({', '.join(filters)}); choose one with `metric`, as in "
                             f"{example!r}.")
        return filters[0]
    if want_filter not in filters:
        raise ValueError(f"{path.name}: no sample of filter {want_filter!r}; filters present: "
                         f"{', '.join(filters)}.")
    return want_filter


def _lm_eval_only_metric(origin: str, record: dict) -> str:
    """The one metric of the first sample read, or a ValueError listing its metrics."""
    found = _lm_eval_metrics(record)
    if len(found) != 1:
        raise ValueError(f"{origin}: {len(found)} metrics ({', '.join(found) or 'none'}); "
                         "choose one with `metric`.")
    return found[0]


def _lm_eval_row(record: dict, origin: str, name: str, model: str, cluster: str | None,
                 task: str | None, prefix: str) -> _Row:
    """The row of one logged sample, its score the metric `name`; cluster ``'task'`` is the
    task."""
    if "doc_id" not in record:
        raise ValueError(f"{origin}: field `doc_id` missing.")
    if name not in record:
        found = ", ".join(_lm_eval_metrics(record)) or "none"
        raise ValueError(f"{origin}: field `{name}` missing; metrics present: {found} "
                         "(choose one with `metric`).")
    if cluster == "task":
        if task is None:
            raise ValueError(f"{origin}: cluster 'task' asked for, but no task is known (the "
                             "file's name names none, nor does a results file beside it).")
        group = task
    else:
        group = _cluster_of(record, "doc", cluster, origin)
    return _Row(model, prefix + _key(record["doc_id"], origin, "doc_id"), 0, group,
                _lm_eval_score(record[name], origin, name), origin)


def _lm_eval_metrics(record: dict) -> list[str]:
    """The metrics of a sample line: its ``metrics`` list (lm-eval >= 0.4.7) or, in older logs,
    the fields that are not the harness's own."""
    if isinstance(record.get("metrics"), list):
        return [str(m) for m in record["metrics"]]
    return [k for k in record if k not in _LM_EVAL_FIELDS]


def _lm_eval_score(value, origin: str, name: str) -> float:
    """One metric value of a sample line: a number, or numpy's text of one (``'True'``, as the
    harness's ``handle_non_serializable`` writes it); a list is no score of the item."""
    if isinstance(value, (list, dict)):  # f1, bleu, brier_score: aggregated over the task
        raise ValueError(f"{origin}: metric `{name}` holds {_short(value)}, not a score of its "
                         "own (lm-evaluation-harness aggregates it over the task); choose "
                         "another with `metric`.")
    if isinstance(value, str) and value in ("True", "False"):
        return 1.0 if value == "True" else 0.0
    return _number(value, origin, name)


def lm_eval_model(path) -> str:
    """The model of an lm-evaluation-harness samples file: the one its run's results file names,
    else its folder's name, which lm-evaluation-harness names after the model."""
    return _model_of_source(_samples_source(Path(path)))


def _model_of_source(source: _Source) -> str:
    """The model its run's results file names, else the samples' folder's name."""
    name = _model_of_results(source.data) if source.data else None
    return name or source.path.resolve().parent.name


def _model_of_results(data: dict) -> str | None:
    """The model named by an lm-evaluation-harness results dict: ``model_name``, else the
    ``pretrained=`` (or ``peft``, ...) of ``config.model_args``, as ``_get_model_name`` reads it."""
    if isinstance(data.get("model_name"), str) and data["model_name"]:
        return data["model_name"]
    args = (data.get("config") or {}).get("model_args")
    for prefix in ("peft", "delta", "pretrained", "model", "path", "engine"):
        if isinstance(args, dict) and prefix in args:
            return str(args[prefix])
        if isinstance(args, str) and f"{prefix}=" in args:
            return args.split(f"{prefix}=")[1].split(",")[0]
    return None


def _results_data(path: Path) -> dict | None:
    """The contents of a results file, or None when it is missing or not a JSON object."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            data = json.load(handle)
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _samples_source(path: Path) -> _Source:
    """A samples file with its task and run: ``results_<date>.json`` beside
    ``samples_<task>_<date>.json[l]``, or (0.4.0 to 0.4.2) a results file beside naming
    ``<model_args>_<task>.jsonl``."""
    match = _LM_EVAL_NAME.match(path.name)
    if match:
        results = path.parent / f"results_{match['date']}.json"
        data = _results_data(results)
        return _Source(path, match["task"], results if data is not None else None, data)
    for results in sorted(path.parent.glob("*.json")):
        data = None if results.name.startswith("samples_") else _results_data(results)
        for task, file in (_array_layout_files(results, data) if data else {}).items():
            if file.name == path.name:
                return _Source(path, task, results, data)
    return _Source(path, None)


def _array_layout_files(results: Path, data: dict) -> dict[str, Path]:
    """0.4.0 to 0.4.2: each task's samples beside its results, ``<model_args>_<task>.jsonl``,
    ``/`` and ``=`` of ``model_args`` made ``__`` (``cli_evaluate`` of ``lm_eval/__main__.py``)."""
    args = (data.get("config") or {}).get("model_args")
    configs = data.get("configs")
    if not isinstance(args, str) or not isinstance(configs, dict):
        return {}
    prefix = re.sub("/|=", "__", args)
    return {str(task): results.parent / f"{prefix}_{task}.jsonl" for task in configs}


def _run_sources(results: Path, data: dict) -> list[_Source]:
    """The samples files of the run a results file sums up, one per task."""
    match = _LM_EVAL_RESULTS.match(results.name)
    if match:
        files = {}
        for file in sorted(results.parent.glob(f"samples_*_{match['date']}.json*")):
            found = _LM_EVAL_NAME.match(file.name)
            if found and found["date"] == match["date"]:
                files[found["task"]] = file
    else:
        files = {t: f for t, f in _array_layout_files(results, data).items() if f.is_file()}
    return [_Source(file, task, results, data) for task, file in files.items()]


def _expected_samples(results: Path, data: dict | None) -> str:
    """The samples files a results file's run would have, for a message."""
    match = _LM_EVAL_RESULTS.match(results.name)
    if match:
        return f"samples_<task>_{match['date']}.jsonl"
    files = _array_layout_files(results, data or {})
    return ", ".join(f.name for f in files.values()) or "its samples files"


def _folder_runs(folder: Path) -> list[list[_Source]]:
    """The runs under an output folder, each its samples files: each ``results*.json`` with its
    samples, then the samples files no results file claims, by folder and date."""
    runs, claimed = [], set()
    for results in sorted(folder.rglob("results*.json")):
        data = _results_data(results)
        sources = _run_sources(results, data) if data and "results" in data else []
        if sources:
            runs.append(sources)
            claimed.update(s.path for s in sources)
    loose: dict[tuple, list[_Source]] = {}
    for file in sorted(folder.rglob("samples_*.json*")):
        match = _LM_EVAL_NAME.match(file.name)
        if match and file not in claimed:
            loose.setdefault((file.parent, match["date"]), []).append(
                _Source(file, match["task"]))
    runs += list(loose.values())
    if not runs:
        raise ValueError(f"{folder.name}: no lm-evaluation-harness samples in the folder "
                         "(samples_<task>_<date>.jsonl, as lm_eval --log_samples writes them, "
                         "or a results file with its samples beside it).")
    return runs


def _expand(tasks: Sequence[str], data: dict | None) -> set[str]:
    """`tasks`, each group (``group_subtasks`` of a results file) replaced by its tasks."""
    groups = (data or {}).get("group_subtasks") or {}
    found, todo = set(), list(tasks)
    while todo:
        name = todo.pop()
        if name in groups and name not in found and isinstance(groups[name], list):
            todo += [str(t) for t in groups[name]]
        found.add(name)
    return found


def _runs_rows(where: Path, runs: list[list[_Source]], wanted: _Wanted) -> _Read:
    """The rows of the runs read from `where` (a results file or a folder): each item is
    ``<task>/<doc_id>``, each run's model the label, `model`, or its results' model."""
    runs = [_chosen(where, run, runs, wanted.tasks) for run in runs]
    tasks = sorted({s.task for run in runs for s in run}, key=_natural)
    if not tasks:
        raise ValueError(f"{where.name}: no samples of the tasks {', '.join(wanted.tasks)}.")
    rows, metrics, seen = [], {}, {}
    for source in (s for run in runs for s in run):
        found, metrics[source.task] = _task_rows(source, wanted, several=len(tasks) > 1)
        _one_run_per_task(where, source, found[0].model, seen)
        rows += found
    if len(set(metrics.values())) > 1:
        raise ValueError(f"{where.name}: the tasks' samples hold different metrics ("
                         + ", ".join(f"{t} {m}" for t, m in metrics.items())
                         + "); choose one with `metric`, or the tasks with `tasks`.")
    return _Read(rows, metrics[tasks[0]], tasks[0] if len(tasks) == 1 else None, tuple(tasks))


def _task_rows(source: _Source, wanted: _Wanted, *, several: bool) -> tuple[list[_Row], str]:
    """The rows of one task's samples file, items ``<task>/<doc_id>``; when `several` tasks are
    read, an error says that the task can be left out."""
    try:
        return _source_rows(source, _lm_eval_records(source.path), wanted,
                            prefix=f"{source.task}/")
    except ValueError as err:
        if not several:
            raise
        raise ValueError(f"{err} (Or leave task {source.task!r} out: name the tasks to read "
                         "with `tasks`, --task on the command line.)") from None


def _chosen(where: Path, run: list[_Source], runs: list[list[_Source]],
            tasks: Sequence[str] | None) -> list[_Source]:
    """The samples files of `run` whose tasks `tasks` names (all when None)."""
    if not tasks:
        return run
    _known_tasks(where, runs, tasks)
    wanted = _expand(tasks, run[0].data)
    return [s for s in run if s.task in wanted]


def _known_tasks(where: Path, runs: list[list[_Source]], tasks: Sequence[str]) -> None:
    """A ValueError listing the tasks and groups of `runs` when `tasks` names another."""
    present = {s.task for run in runs for s in run}
    groups = {g for run in runs for g in ((run[0].data or {}).get("group_subtasks") or {})}
    unknown = [t for t in tasks if t not in present | groups]
    if unknown:
        raise ValueError(f"{where.name}: no task {unknown[0]!r}; tasks present: "
                         f"{', '.join(sorted(present, key=_natural))}"
                         + (f" (groups: {', '.join(sorted(groups))})" if groups else "") + ".")


def _one_run_per_task(where: Path, source: _Source, model: str, seen: dict) -> None:
    """Record that `source` gave `model`'s scores on its task; a second run of the same model
    and task is an error that asks for labels."""
    first = seen.setdefault((model, source.task), source)
    if first is not source and first.path != source.path:
        runs = [(s.results or s.path).name for s in (first, source)]
        raise ValueError(f"{where.name}: two runs of model {model!r} on task {source.task!r} "
                         f"({runs[0]}, {runs[1]}); label them apart with `labels`, as in "
                         f"labels={{'{runs[0]}': '{model} (1)', '{runs[1]}': '{model} (2)'}} "
                         "(--label FILE=NAME on the command line, FILE a run's results or "
                         "samples file), or read one run by its results file.")


# --------------------------------------------------------------------------- inspect_ai


def _inspect_rows(path: Path, wanted: _Wanted) -> _Read:
    """The rows of an inspect_ai log, JSON or ``.eval``."""
    if zipfile.is_zipfile(path):
        spec, samples = _read_eval_archive(path)
    elif _zip_start(path):
        raise ValueError(f"{path.name}: a zip archive (an inspect_ai .eval log) that cannot be "
                         "opened: it looks truncated or corrupt (no zip directory at its "
                         "end); copy or write it again.")
    else:
        spec, samples = _read_inspect_json(path)
    model = _label(wanted, path) or wanted.model or _inspect_model(path, spec)
    if not samples:
        raise ValueError(f"{path.name}: the log holds no samples (was it written with "
                         "--no-log-samples?).")
    scorer, key = _inspect_scorer(path, samples, wanted.metric)
    rows = [_inspect_row(path, where, sample, model, scorer, key, wanted.cluster)
            for where, sample in samples]
    task = spec.get("task_display_name") or spec.get("task") if isinstance(spec, dict) else None
    return _Read(rows, scorer if key is None else f"{scorer}:{key}", task)


def _inspect_model(path: Path, spec) -> str:
    """The model the log's eval spec names, or a ValueError asking for `model`."""
    model = spec.get("model") if isinstance(spec, dict) else None
    if not isinstance(model, str) or not model:
        raise ValueError(f"{path.name}: field `eval.model` missing; name the model with "
                         "`model`.")
    return model


def _inspect_scorer(path: Path, samples: list[tuple[str, dict]],
                    metric: str | None) -> tuple[str, str | None]:
    """The scorer `metric` names (and its key, after a ``:`` not in a scorer's name), or the
    samples' only scorer."""
    names = list(dict.fromkeys(name for _, sample in samples
                               for name in (sample.get("scores") or {})))
    scorer, key = metric, None
    if metric and metric not in names and ":" in metric:
        scorer, key = metric.rsplit(":", 1)
    if scorer is None:
        if not names:
            raise ValueError(f"{path.name}: no sample is scored (0 scorers): the log was "
                             "written without scoring (inspect eval --no-score) or its scoring "
                             f"failed; score it with `inspect score {path.name}`, which writes "
                             "a scored log, and read that one.")
        if len(names) > 1:
            raise ValueError(f"{path.name}: {len(names)} scorers ({', '.join(names)}); choose "
                             "one with `metric` (--metric on the command line), as in "
                             f"metric={names[0]!r}.")
        scorer = names[0]
    return scorer, key


def _inspect_row(path: Path, where: str, sample: dict, model: str, scorer: str,
                 key: str | None, cluster: str | None) -> _Row:
    """The row of one sample (at `where` in the log), its score by `scorer`."""
    for field in ("id", "epoch"):
        if field not in sample:
            raise ValueError(f"{path.name} {where}: field `{field}` missing.")
    origin = f"{path.name} sample {sample['id']} epoch {sample['epoch']}"
    group = _cluster_of(sample, "metadata", cluster, origin)
    score = _inspect_score(sample, scorer, key, origin)
    note = _failure(sample) if math.isnan(score) else ""
    return _Row(model, _key(sample["id"], origin, "id"),
                _sample_index(sample["epoch"], origin, "epoch"), group, score, origin, where,
                note)


def _failure(sample: dict) -> str:
    """Why a sample has no score: it failed, or it is unscored."""
    error = sample.get("error")
    if not error:
        return ("the sample is unscored: score the log with `inspect score`, or choose a "
                "scorer it has with `metric`" if not sample.get("scores") else "")
    message = error.get("message") if isinstance(error, dict) else error
    return f"the sample failed: {str(message).splitlines()[0][:80]}"


def _read_inspect_json(path: Path) -> tuple[dict, list[tuple[str, dict]]]:
    """The eval spec and the samples of an inspect_ai JSON log."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            log = json.load(handle)
    except json.JSONDecodeError as err:
        raise ValueError(f"{path.name}: not valid JSON ({err.msg} at line {err.lineno} column "
                         f"{err.colno}).") from None
    except UnicodeDecodeError as err:
        raise ValueError(f"{path.name}: neither an inspect_ai .eval archive nor a JSON log "
                         f"(byte {err.start} is not UTF-8 text).") from None
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        hint = ""
        if isinstance(log, dict) and "results" in log and "configs" in log:
            hint = (" It is an lm-evaluation-harness results file; its scores per item are in "
                    "the samples_<task>_<date>.jsonl beside it (written with --log_samples).")
        raise ValueError(f"{path.name}: not an inspect_ai log (no field `eval`).{hint}")
    samples = log.get("samples") or []
    if not isinstance(samples, list):
        raise ValueError(f"{path.name}: field `samples` must be a list.")
    return log["eval"], [(f"samples[{i}]", s if isinstance(s, dict) else {})
                         for i, s in enumerate(samples)]


def _zip_start(path: Path) -> bool:
    """Whether the file at `path` begins as a zip archive does (a local file header)."""
    with open(path, "rb") as handle:
        return handle.read(4) == b"PK\x03\x04"


def _read_eval_archive(path: Path) -> tuple[dict, list[tuple[str, dict]]]:
    """The eval spec and the samples of an inspect_ai ``.eval`` archive. A sample logged twice
    (a requeued sample) is read from its last entry, as inspect_ai reads it."""
    with zipfile.ZipFile(path) as archive:
        names = list(dict.fromkeys(archive.namelist()))
        for header in ("header.json", "_journal/start.json"):
            if header in names:
                spec = _archive_json(archive, header, path).get("eval")
                break
        else:
            raise ValueError(f"{path.name}: not an inspect_ai log (no header.json or "
                             "_journal/start.json).")
        samples = [(name, _archive_json(archive, name, path)) for name in names
                   if name.startswith("samples/") and name.endswith(".json")]
    return spec if isinstance(spec, dict) else {}, samples


def _archive_json(archive: zipfile.ZipFile, name: str, path: Path) -> dict:
    """One JSON member of an archive."""
    info = archive.getinfo(name)
    try:
        raw = archive.read(info)
    except NotImplementedError:
        if info.compress_type != _ZIP_ZSTANDARD:
            raise ValueError(f"{path.name} {name}: compressed with zip method "
                             f"{info.compress_type}, which Python cannot read.") from None
        raw = _zstd_member(archive, info, path)
    except (zipfile.BadZipFile, zlib.error, EOFError) as err:
        raise ValueError(f"{path.name} {name}: corrupt in the archive ({err}); copy or write "
                         "the log again.") from None
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{path.name} {name}: not valid JSON ({err}).") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path.name} {name}: a JSON object is needed.")
    return data


def _zstd_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    """A member compressed with Zstandard, read with the ``zstandard`` package when it is
    installed (Python before 3.14 has no Zstandard in its ``zipfile``)."""
    try:
        import zstandard
    except ImportError:
        raise ValueError(f"{path.name}: compressed with Zstandard (as inspect_ai writes .eval "
                         "logs since 0.3.206); read it with Python 3.14 or later, or install "
                         "the `zstandard` package, or convert it with `inspect log convert "
                         "--to json`.") from None
    with open(path, "rb") as handle:
        handle.seek(info.header_offset)
        local = handle.read(30)
        name_length, extra_length = struct.unpack("<HH", local[26:30])
        handle.seek(info.header_offset + 30 + name_length + extra_length)
        compressed = handle.read(info.compress_size)
    reader = zstandard.ZstdDecompressor().stream_reader(compressed, read_across_frames=True)
    return reader.read()


def _inspect_score(sample: dict, scorer: str, key: str | None, origin: str) -> float:
    """The score of one inspect_ai sample by one scorer (NaN when it has none)."""
    scores = sample.get("scores") or {}
    if scorer not in scores:
        if sample.get("error") or not scores:
            return math.nan  # a failed or unscored sample: missing
        raise ValueError(f"{origin}: no score `{scorer}`; scorers present: "
                         f"{', '.join(scores)} (choose one with `metric`).")
    value = scores[scorer].get("value") if isinstance(scores[scorer], dict) else None
    field = f"scores.{scorer}.value"
    if isinstance(value, dict):
        if key is None:
            raise ValueError(f"{origin}: field `{field}` is a dict of {', '.join(value)}; "
                             f"choose one with `metric`, as in '{scorer}:{next(iter(value))}'.")
        if key not in value:
            raise ValueError(f"{origin}: field `{field}` has no key `{key}`; keys present: "
                             f"{', '.join(value)}.")
        value, field = value[key], f"{field}.{key}"
    elif key is not None:
        raise ValueError(f"{origin}: field `{field}` is {value!r}, not a dict with key `{key}`.")
    return _inspect_value(value, origin, field)


def _inspect_value(value, origin: str, field: str) -> float:
    """A score value as inspect_ai's default ``value_to_float`` reads it; an error where it
    would warn and count 0."""
    if value is None:
        return math.nan
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, str):
        if value in _LETTERS:
            return _LETTERS[value]
        if value.lower() in _WORDS:
            return _WORDS[value.lower()]
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return number
    raise ValueError(f"{origin}: field `{field}` is {_short(value)}; a score is a number, a "
                     "boolean, or one of C, P, I, N (1, 0.5, 0, 0), yes/no or true/false.")


# --------------------------------------------------------------------------- formats

#: Each format's reader, ``(path, wanted) -> _Read``; a new layout is a new reader here.
_READERS = {"csv": _csv_rows, "jsonl": _jsonl_rows, "lm-eval": _lm_eval_rows,
            "lm-eval-array": _lm_eval_array_rows, "lm-eval-results": _lm_eval_results_rows,
            "lm-eval-folder": _lm_eval_folder_rows, "inspect": _inspect_rows}
#: The formats :func:`read_items` reads.
FORMATS = tuple(_READERS)
#: Each file name ending's format, or the function telling it from the file's content.
_SUFFIXES = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".eval": "inspect",
             ".json": _json_format, ".jsonl": _jsonl_format, ".ndjson": _jsonl_format}


# --------------------------------------------------------------------------- shared


def _label(wanted: _Wanted, *paths: Path | None) -> str | None:
    """The model name `labels` gives the first of `paths` (:meth:`_Labels.name`), or None."""
    return wanted.labels.name(*paths) if wanted.labels is not None else None


def _cluster_of(record: dict, field: str, cluster: str | None, origin: str) -> str | None:
    """The cluster label at `cluster` in ``record[field]`` (a sample's ``doc`` or
    ``metadata``); None when no `cluster` is asked for."""
    if not cluster:
        return None
    return _key(_field(record.get(field), cluster, f"{origin}: `{field}`"), origin,
                f"{field}.{cluster}")


def _field(record, dotted: str, where: str):
    """A field of a dict, dots reaching into nested dicts."""
    value = record
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            keys = ", ".join(record) if isinstance(record, dict) else "none"
            raise ValueError(f"{where} has no field `{dotted}` (cluster); its fields: {keys}.")
        value = value[part]
    return value


def _short(value) -> str:
    """A value shown in a message, at most 60 characters."""
    text = json.dumps(value) if isinstance(value, (list, dict)) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _natural(item: str) -> tuple:
    """Ids in natural order: runs of digits compare as numbers (``q2`` before ``q10``,
    ``mmlu/9`` before ``mmlu/10``), so integer ids come in numeric order."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                 for part in re.split(r"(\d+)", item))


def _frame(rows: list[_Row], *, path: Path, fmt: str, metric: str, cluster: str | None,
           dropna: bool) -> pd.DataFrame:
    """The checked, sorted table of `rows`."""
    missing = [row for row in rows if math.isnan(row.score)]
    dropped = [row.origin for row in missing]
    if missing and not dropna:
        why = f"; {missing[0].note}" if missing[0].note else ""
        raise ValueError(f"{dropped[0]}: no score `{metric}` (missing{why}); with dropna=True "
                         f"rows missing a score are dropped and listed ({len(dropped)} here).")
    rows = [row for row in rows if not math.isnan(row.score)]
    if not rows:
        raise ValueError(f"{path.name}: no scores left (all {len(dropped)} missing).")
    frame = _table(rows, fmt=fmt, metric=metric, cluster=cluster)
    frame.attrs.update(file=str(path), dropped=dropped)
    return frame


def _table(rows: Sequence[_Row], *, fmt: str, metric: str, cluster: str | None):
    """The table of `rows`, after checking that each (model, item, sample) appears once and
    each item sits in one cluster."""
    import pandas as pd

    seen: dict[tuple, tuple[str, str]] = {}
    clusters: dict[str, tuple[str, str]] = {}
    for row in rows:
        key = (row.model, row.item, row.sample)
        if key in seen:
            first, place = seen[key]
            where = (f"{row.origin}: logged twice ({place} and {row.place})" if first == row.origin
                     else f"{row.origin} repeats {first}")
            raise ValueError(f"{where}: model {row.model!r}, item {row.item!r}, sample "
                             f"{row.sample} twice; each (model, item, sample) may hold one "
                             "score.")
        seen[key] = (row.origin, row.place)
        group = row.item if row.cluster is None else row.cluster
        first = clusters.setdefault(row.item, (group, row.origin))
        if first[0] != group:
            raise ValueError(f"{row.origin}: item {row.item!r} is in cluster {group!r}, but in "
                             f"{first[0]!r} at {first[1]}; an item belongs to one cluster.")
    ordered = sorted(rows, key=lambda r: (r.model, _natural(r.item), r.sample))
    frame = pd.DataFrame({
        "model": pd.Series([r.model for r in ordered], dtype=object),
        "item": pd.Series([r.item for r in ordered], dtype=object),
        "sample": np.array([r.sample for r in ordered], dtype=np.int64),
        "cluster": pd.Series([r.item if r.cluster is None else r.cluster for r in ordered],
                             dtype=object),
        "score": np.array([r.score for r in ordered], dtype=float),
    })
    frame.attrs.update(format=fmt, metric=metric, cluster=cluster)
    return frame


def stack_items(tables: Iterable[pd.DataFrame], *,
                tasks: Sequence[str] | None = None) -> pd.DataFrame:
    """Item tables of several files (models, runs, tasks) as one, checked and sorted again.

    Parameters
    ----------
    tables : iterable of DataFrame
        From :func:`read_items`. One model read from several runs needs a sample index of its
        own per run (``table.assign(sample=run)``).
    tasks : sequence of str, optional
        One name per table, for tables of different tasks whose item ids start over (the
        subjects of MMLU in lm-evaluation-harness, one file each): each item becomes
        ``'<task>/<item>'`` (and so does its cluster when it was the item itself). The tables'
        ``attrs['task']`` give them.

    Returns
    -------
    DataFrame
        As :func:`read_items`. ``attrs['metric']`` and ``attrs['cluster']`` are the tables'
        own when they agree, else None.

    Raises
    ------
    ValueError
        For no rows, a table without the columns of :data:`COLUMNS`, `tasks` not naming each
        table, a repeated (model, item, sample) or an item in two clusters; the message names
        the tables and rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.inputs.itemlogs import stack_items
    >>> run = pd.DataFrame({"model": ["A", "A"], "item": ["1", "2"], "sample": [0, 0],
    ...                     "cluster": ["1", "2"], "score": [1.0, 0.0]})
    >>> stack_items([run, run.assign(sample=1)])
      model item  sample cluster  score
    0     A    1       0       1    1.0
    1     A    1       1       1    1.0
    2     A    2       0       2    0.0
    3     A    2       1       2    0.0
    """
    tables = list(tables)
    if tasks is not None and len(tasks) != len(tables):
        raise ValueError(f"`tasks` must name each of the {len(tables)} tables; got "
                         f"{len(tasks)} names.")
    rows = []
    for number, table in enumerate(tables, start=1):
        prefix = f"{tasks[number - 1]}/" if tasks is not None else ""
        rows += _stacked_rows(table, number, prefix)
    if not rows:
        raise ValueError("no rows to stack.")
    return _table(rows, fmt="stacked", metric=_shared(tables, "metric"),
                  cluster=_shared(tables, "cluster"))


def _stacked_rows(table: pd.DataFrame, number: int, prefix: str) -> list[_Row]:
    """The rows of table `number`, each item (and a cluster that is its item) after `prefix`."""
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"table {number} has no column {', '.join(missing)}; an item "
                         f"table has {', '.join(COLUMNS)}.")
    name = Path(table.attrs.get("file", f"table {number}")).name
    rows = []
    for index, record in enumerate(table[list(COLUMNS)].itertuples(index=False)):
        item, cluster = str(record.item), str(record.cluster)
        rows.append(_Row(str(record.model), prefix + item, int(record.sample),
                         prefix + cluster if cluster == item else cluster,
                         float(record.score), f"{name} (table {number}) row {index + 1}"))
    return rows


def _shared(tables: list[pd.DataFrame], key: str):
    """The tables' ``attrs[key]`` when they all agree, else None."""
    values = {t.attrs.get(key) for t in tables}
    return values.pop() if len(values) == 1 else None


class PairedItems(NamedTuple):
    """Two models' scores on their common items, as :func:`paired_items` aligns them.

    Attributes
    ----------
    items : list of str
        The item ids, in the table's (natural) order.
    clusters : list of str
        The cluster of each item.
    a : ndarray, shape (n_items, n_samples_a)
        A's scores, one row per item and one column per sample index.
    b : ndarray, shape (n_items, n_samples_b)
        B's scores, likewise (its samples may differ in number from A's).
    dropped : dict of str to int
        Per model, the items dropped for lack of the other model (empty unless
        ``common=True``).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.inputs.itemlogs import PairedItems
    >>> pair = PairedItems(["1", "2"], ["1", "2"], np.array([[1.0], [0.0]]),
    ...                    np.array([[0.0], [0.0]]), {})
    >>> float((pair.a - pair.b).mean())
    0.5
    """

    items: list
    clusters: list
    a: np.ndarray
    b: np.ndarray
    dropped: dict


def paired_items(table: pd.DataFrame, a: str, b: str, *, common: bool = False) -> PairedItems:
    """The scores of models `a` and `b`, aligned item by item.

    Parameters
    ----------
    table : DataFrame
        From :func:`read_items` or :func:`stack_items`.
    a, b : str
        The two models.
    common : bool
        Keep the items both models have and count the others in ``dropped``; by default
        items that differ are an error naming the counts.

    Returns
    -------
    PairedItems
        ``items``, ``clusters``, ``a`` and ``b`` (arrays items x samples: each model must have
        the same sample indices on every item) and ``dropped``.

    Raises
    ------
    ValueError
        For a model the table does not have, `a` equal to `b`, items that differ (unless
        `common`) or none shared, or an item missing a sample index the model has on others.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.inputs.itemlogs import paired_items
    >>> table = pd.DataFrame({"model": ["A", "A", "A", "A", "B", "B"],
    ...                       "item": ["1", "1", "2", "2", "1", "2"],
    ...                       "sample": [1, 2, 1, 2, 0, 0],
    ...                       "cluster": ["1", "1", "2", "2", "1", "2"],
    ...                       "score": [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]})
    >>> pair = paired_items(table, "A", "B")
    >>> pair.items, pair.a.tolist(), pair.b.tolist()
    (['1', '2'], [[1.0, 0.0], [1.0, 1.0]], [[0.0], [1.0]])
    """
    _paired_items_iv(table, a, b)
    sides = {name: table[table["model"] == name] for name in (a, b)}
    shared, only = _common_items(sides, a, b, common=common)
    arrays = [_grid(sides[name], shared, name) for name in (a, b)]
    clusters = (sides[a].drop_duplicates("item").set_index("item")["cluster"]
                .reindex(shared).tolist())
    dropped = {name: len(only[name]) for name in (a, b) if only[name]}
    return PairedItems(shared, clusters, arrays[0], arrays[1], dropped)


def _paired_items_iv(table: pd.DataFrame, a: str, b: str) -> None:
    """Raise ValueError unless `a` and `b` are two models of `table`."""
    models = list(dict.fromkeys(table["model"]))
    for option, name in (("a", a), ("b", b)):
        if name not in models:
            raise ValueError(f"`{option}` {name!r} is not a model of the table; its models: "
                             f"{', '.join(map(str, models))}.")
    if a == b:
        raise ValueError(f"`a` and `b` must be two models; got {a!r} twice.")


def _common_items(sides: dict, a: str, b: str, *, common: bool) -> tuple[list, dict]:
    """The items both models have, in natural order, and per model the items the other lacks;
    an error when they differ and not `common`, or when none is shared."""
    items = {name: list(dict.fromkeys(side["item"])) for name, side in sides.items()}
    held = {name: set(these) for name, these in items.items()}  # once: a set per lookup was
    only = {name: [i for i in items[name] if i not in held[other]]  # quadratic in the items
            for name, other in ((a, b), (b, a))}
    shared = [i for i in items[a] if i in held[b]]
    if (only[a] or only[b]) and not common:
        raise ValueError(f"models {a!r} and {b!r} must be scored on the same items to be "
                         f"paired: {a!r} has {len(items[a])}, {b!r} {len(items[b])}, "
                         f"{len(shared)} in common ({len(only[a])} only in {a!r}, "
                         f"{len(only[b])} only in {b!r}, e.g. "
                         f"{(only[a] or only[b])[0]!r}); common=True (--common on the command "
                         "line) keeps the common ones.")
    if not shared:
        raise ValueError(f"models {a!r} and {b!r} share no item.")
    return sorted(shared, key=_natural), only


def _grid(side: pd.DataFrame, items: list, name: str) -> np.ndarray:
    """One model's scores as items x samples, every item holding the same sample indices."""
    wide = side.pivot(index="item", columns="sample", values="score").reindex(items)
    holes = np.argwhere(np.isnan(wide.to_numpy()))
    if holes.size:
        item, column = holes[0]
        raise ValueError(f"model {name!r} has no sample {wide.columns[column]} of item "
                         f"{items[item]!r} (its samples: "
                         f"{', '.join(map(str, wide.columns))}); each item needs the same "
                         "samples.")
    return wide.to_numpy(dtype=float)
