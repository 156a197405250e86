"""Item-level evaluation results: one long table, one row per (model, item, sample).

:func:`read_items` reads a file into a DataFrame with the columns ``model, item, sample,
cluster, score``, whatever wrote it:

- **a table of your own**, CSV (or TSV; read by :func:`evalmc.inputs.tables.read_table`) or JSON
  Lines (one object per line), one row per scored item;
- **lm-evaluation-harness** per-sample logs, ``samples_<task>_<date>.jsonl`` as written by
  ``lm_eval --log_samples`` (``EvaluationTracker.save_results_samples`` in
  ``lm_eval/loggers/evaluation_tracker.py``, each line the ``example`` dict built in
  ``evaluate`` of ``lm_eval/evaluator.py``);
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
  indices (default none: 0). A log has its own: ``doc_id`` (lm-evaluation-harness), the
  sample's ``id`` and ``epoch`` (inspect_ai).
- ``cluster``: a table's column, a field of an lm-evaluation-harness ``doc`` (``subject``) or
  of an inspect_ai sample's ``metadata``; dots reach into nested fields.

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

import json
import math
import re
import struct
import zipfile
from collections.abc import Iterable, Iterator, Sequence
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
#: ``:`` replaced by ``-`` (``save_results_aggregated``), shared by the samples and results files.
_LM_EVAL_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d.-]+)\.jsonl$")
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
    """What :func:`read_items` is asked to read: its keywords, as given."""

    metric: str | None
    model: str | None
    item: str
    sample: str | None
    cluster: str | None


class _Read(NamedTuple):
    """What a format's reader returns: the rows, the metric read (as ``attrs['metric']`` shows
    it) and the task (None when the file names none)."""

    rows: list[_Row]
    metric: str
    task: str | None


def read_items(path, *, fmt: str | None = None, metric: str | None = None,
               model: str | None = None, item: str = "item", sample: str | None = None,
               cluster: str | None = None, dropna: bool = False) -> pd.DataFrame:
    """Item-level results as one long table, one row per (model, item, sample).

    Parameters
    ----------
    path : path-like
        The file: ``.csv`` or ``.tsv``, ``.jsonl`` (a table, or lm-evaluation-harness samples),
        ``.json`` or ``.eval`` (inspect_ai).
    fmt : {'csv', 'jsonl', 'lm-eval', 'inspect'}, optional
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
        A table's column, a field of an lm-evaluation-harness ``doc``, or a field of an
        inspect_ai sample's ``metadata`` (dots reach into nested fields); default: each item
        is its own cluster.
    dropna : bool
        Drop the rows missing a score (listed in ``attrs['dropped']``) instead of refusing them.

    Returns
    -------
    DataFrame
        Columns ``model, item, sample, cluster, score`` (str, str, int, str, float), sorted;
        ``attrs`` holds ``file``, ``format``, ``metric``, ``cluster`` (the field, or None),
        ``task`` (a log's task: from the file name of lm-evaluation-harness, inspect_ai's
        ``eval.task_display_name`` or ``eval.task``; None for a table) and ``dropped`` (where
        each dropped row was).

    Raises
    ------
    ValueError
        For a file that is missing or unreadable, a field that is missing or holds no valid
        value, a metric the file does not have or a choice it leaves open, a missing score
        (unless `dropna`), a repeated (model, item, sample) or an item in two clusters; the
        message names the file, the row and the field.

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
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{str(path)!r} is not a file of item-level results.")
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise ValueError(f"`fmt` must be one of {', '.join(FORMATS)}; got {fmt!r}.")
    rows, used, task = _READERS[fmt](path, _Wanted(metric, model, item, sample, cluster))
    frame = _frame(list(rows), path=path, fmt=fmt, metric=used, cluster=cluster, dropna=dropna)
    frame.attrs["task"] = task
    return frame


def detect_format(path) -> str:
    """The format of a file of item-level results, from its name and its first line.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    str
        ``'csv'`` (``.csv``, ``.tsv``, ``.txt``), ``'inspect'`` (``.eval``, ``.json``),
        ``'lm-eval'`` (``.jsonl`` or ``.ndjson`` whose first object has ``doc_id`` and
        ``resps``) or ``'jsonl'`` (another ``.jsonl`` or ``.ndjson``).

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
    >>> detect_format(path)
    'lm-eval'
    """
    path = Path(path)
    found = _SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise ValueError(f"{path.name}: cannot tell the format from the name; give `fmt`, one "
                         f"of {', '.join(FORMATS)}.")
    return found(path) if callable(found) else found


def _jsonl_format(path: Path) -> str:
    """``'lm-eval'`` when the first object of a JSON Lines file has ``doc_id`` and ``resps``,
    else ``'jsonl'``."""
    with open(path, encoding="utf-8-sig") as handle:
        first = next((line for line in handle if line.strip()), "")
    try:
        head = json.loads(first)
    except json.JSONDecodeError:
        head = None
    if isinstance(head, dict) and "doc_id" in head and "resps" in head:
        return "lm-eval"
    return "jsonl"


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
    return _Read(rows, metric, None)


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


def _lm_eval_rows(path: Path, wanted: _Wanted) -> _Read:
    """The rows of an lm-evaluation-harness ``samples_<task>_<date>.jsonl``."""
    lines = list(_json_lines(path))
    if not lines:
        raise ValueError(f"{path.name}: no samples.")
    metric = wanted.metric
    name, want_filter = (metric.split(",", 1) + [None])[:2] if metric else (None, None)
    want_filter = _lm_eval_filter(path, lines, name, want_filter)
    lines = [(n, r) for n, r in lines if r.get("filter", "none") == want_filter]
    if name is None:
        name = _lm_eval_only_metric(path, *lines[0])
    model = wanted.model or lm_eval_model(path)
    rows = [_lm_eval_row(record, f"{path.name} line {number}", name, model, wanted.cluster)
            for number, record in lines]
    match = _LM_EVAL_NAME.match(path.name)
    return _Read(rows, f"{name},{want_filter}", match["task"] if match else None)


def _lm_eval_filter(path: Path, lines: list[tuple[int, dict]], name: str | None,
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


def _lm_eval_only_metric(path: Path, number: int, record: dict) -> str:
    """The one metric of the first sample line read, or a ValueError listing its metrics."""
    found = _lm_eval_metrics(record)
    if len(found) != 1:
        raise ValueError(f"{path.name} line {number}: {len(found)} metrics "
                         f"({', '.join(found) or 'none'}); choose one with `metric`.")
    return found[0]


def _lm_eval_row(record: dict, origin: str, name: str, model: str, cluster: str | None) -> _Row:
    """The row of one sample line, its score the metric `name`."""
    if "doc_id" not in record:
        raise ValueError(f"{origin}: field `doc_id` missing.")
    if name not in record:
        found = ", ".join(_lm_eval_metrics(record)) or "none"
        raise ValueError(f"{origin}: field `{name}` missing; metrics present: {found} "
                         "(choose one with `metric`).")
    group = _cluster_of(record, "doc", cluster, origin)
    return _Row(model, _key(record["doc_id"], origin, "doc_id"), 0, group,
                _lm_eval_score(record[name], origin, name), origin)


def _lm_eval_metrics(record: dict) -> list[str]:
    """The metrics of a sample line: its ``metrics`` list (lm-eval >= 0.4.3) or, in older logs,
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
    path = Path(path)
    match = _LM_EVAL_NAME.match(path.name)
    if match:
        for results in sorted(path.parent.glob(f"*_{match['date']}.json")):
            try:
                data = json.loads(results.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError, UnicodeDecodeError):
                continue
            name = _model_of_results(data) if isinstance(data, dict) else None
            if name:
                return name
    return path.resolve().parent.name


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


# --------------------------------------------------------------------------- inspect_ai


def _inspect_rows(path: Path, wanted: _Wanted) -> _Read:
    """The rows of an inspect_ai log, JSON or ``.eval``."""
    if zipfile.is_zipfile(path):
        spec, samples = _read_eval_archive(path)
    else:
        spec, samples = _read_inspect_json(path)
    model = _inspect_model(path, spec) if wanted.model is None else wanted.model
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
        if len(names) != 1:
            raise ValueError(f"{path.name}: {len(names)} scorers ({', '.join(names) or 'none'}"
                             "); choose one with `metric`.")
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
    """Why a sample has no score, when it failed ('' when it did not)."""
    error = sample.get("error")
    if not error:
        return ""
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
            "inspect": _inspect_rows}
#: The formats :func:`read_items` reads.
FORMATS = tuple(_READERS)
#: Each file name ending's format, or the function telling it from the file's content.
_SUFFIXES = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".eval": "inspect",
             ".json": "inspect", ".jsonl": _jsonl_format, ".ndjson": _jsonl_format}


# --------------------------------------------------------------------------- shared


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
    only = {name: [i for i in items[name] if i not in set(items[other])]
            for name, other in ((a, b), (b, a))}
    shared = [i for i in items[a] if i in set(items[b])]
    if (only[a] or only[b]) and not common:
        raise ValueError(f"models {a!r} and {b!r} must be scored on the same items to be "
                         f"paired: {a!r} has {len(items[a])}, {b!r} {len(items[b])}, "
                         f"{len(shared)} in common ({len(only[a])} only in {a!r}, "
                         f"{len(only[b])} only in {b!r}, e.g. "
                         f"{(only[a] or only[b])[0]!r}); common=True keeps the common ones.")
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
