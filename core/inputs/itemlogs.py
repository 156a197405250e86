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
#: The formats :func:`read_items` reads.
FORMATS = ("csv", "jsonl", "lm-eval", "inspect")

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


def read_items(path, *, fmt: str | None = None, metric: str | None = None,
               model: str | None = None, item: str = "item", sample: str | None = None,
               cluster: str | None = None, dropna: bool = False) -> pd.DataFrame:
    """Item-level results as one long table, one row per (model, item, sample).

    Parameters
    ----------
    path : path
        The file: ``.csv`` or ``.tsv``, ``.jsonl`` (a table, or lm-evaluation-harness samples),
        ``.json`` or ``.eval`` (inspect_ai).
    fmt : {'csv', 'jsonl', 'lm-eval', 'inspect'}, optional
        Default: found from the name and the content.
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
    if fmt == "csv":
        rows, used, task = _table_rows(path, _read_csv(path), metric=metric or "score",
                                 model=model or "model", item=item, sample=sample,
                                 cluster=cluster)
    elif fmt == "jsonl":
        rows, used, task = _table_rows(path, _read_jsonl_table(path), metric=metric or "score",
                                 model=model or "model", item=item, sample=sample,
                                 cluster=cluster)
    elif fmt == "lm-eval":
        rows, used, task = _lm_eval_rows(path, metric=metric, model=model, cluster=cluster)
    elif fmt == "inspect":
        rows, used, task = _inspect_rows(path, metric=metric, model=model, cluster=cluster)
    else:
        raise ValueError(f"`fmt` must be one of {', '.join(FORMATS)}; got {fmt!r}.")
    frame = _frame(list(rows), path=path, fmt=fmt, metric=used, cluster=cluster, dropna=dropna)
    frame.attrs["task"] = task
    return frame


def detect_format(path) -> str:
    """The format of a file of item-level results, from its name and its first line.

    Parameters
    ----------
    path : path

    Returns
    -------
    str
        ``'csv'`` (``.csv``, ``.tsv``, ``.txt``), ``'inspect'`` (``.eval``, ``.json``),
        ``'lm-eval'`` (``.jsonl`` whose first object has ``doc_id`` and ``resps``) or
        ``'jsonl'`` (another ``.jsonl``).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from evalmc.inputs.itemlogs import detect_format
    >>> path = Path(tempfile.mkdtemp()) / "samples_arc_easy_2024-05-01T10-00-00.jsonl"
    >>> _ = path.write_text('{"doc_id": 0, "resps": [], "acc": 1.0}\\n')
    >>> detect_format(path)
    'lm-eval'
    >>> detect_format("scores.csv")
    'csv'
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv", ".txt"):
        return "csv"
    if suffix in (".eval", ".json"):
        return "inspect"
    if suffix in (".jsonl", ".ndjson"):
        with open(path, encoding="utf-8-sig") as handle:
            first = next((line for line in handle if line.strip()), "")
        try:
            head = json.loads(first)
        except json.JSONDecodeError:
            head = None
        if isinstance(head, dict) and "doc_id" in head and "resps" in head:
            return "lm-eval"
        return "jsonl"
    raise ValueError(f"{path.name}: cannot tell the format from the name; give `fmt`, one of "
                     f"{', '.join(FORMATS)}.")


# --------------------------------------------------------------------------- tables


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


def _table_rows(path: Path, records: list[tuple[str, dict]], *, metric: str, model: str,
                item: str, sample: str | None, cluster: str | None):
    """The rows of a long table of the user's own."""
    if not records:
        raise ValueError(f"{path.name}: no rows of scores.")
    wanted = {"model": model, "item": item, "metric": metric}
    wanted.update({k: v for k, v in (("sample", sample), ("cluster", cluster)) if v})
    rows = []
    for origin, record in records:
        for what, field in wanted.items():
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
    return rows, metric, None


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


def _lm_eval_rows(path: Path, *, metric: str | None, model: str | None, cluster: str | None):
    """The rows of an lm-evaluation-harness ``samples_<task>_<date>.jsonl``."""
    lines = list(_json_lines(path))
    if not lines:
        raise ValueError(f"{path.name}: no samples.")
    name, want_filter = (metric.split(",", 1) + [None])[:2] if metric else (None, None)
    filters = list(dict.fromkeys(record.get("filter", "none") for _, record in lines))
    if want_filter is None:
        if len(filters) > 1:
            guess = name or (_lm_eval_metrics(lines[0][1]) or ["METRIC"])[0]
            example = f"{guess},{filters[0]}"
            raise ValueError(f"{path.name}: the samples hold {len(filters)} filters "
                             f"({', '.join(filters)}); choose one with `metric`, as in "
                             f"{example!r}.")
        want_filter = filters[0]
    elif want_filter not in filters:
        raise ValueError(f"{path.name}: no sample of filter {want_filter!r}; filters present: "
                         f"{', '.join(filters)}.")
    lines = [(n, r) for n, r in lines if r.get("filter", "none") == want_filter]
    if name is None:
        first_line, first = lines[0]
        found = _lm_eval_metrics(first)
        if len(found) != 1:
            raise ValueError(f"{path.name} line {first_line}: {len(found)} metrics "
                             f"({', '.join(found) or 'none'}); choose one with `metric`.")
        name = found[0]
    model = model or lm_eval_model(path)
    rows = []
    for number, record in lines:
        origin = f"{path.name} line {number}"
        if "doc_id" not in record:
            raise ValueError(f"{origin}: field `doc_id` missing.")
        if name not in record:
            found = ", ".join(_lm_eval_metrics(record)) or "none"
            raise ValueError(f"{origin}: field `{name}` missing; metrics present: {found} "
                             "(choose one with `metric`).")
        group = None
        if cluster:
            group = _key(_field(record.get("doc"), cluster, f"{origin}: `doc`"), origin,
                         f"doc.{cluster}")
        rows.append(_Row(model, _key(record["doc_id"], origin, "doc_id"), 0, group,
                         _lm_eval_score(record[name], origin, name), origin))
    match = _LM_EVAL_NAME.match(path.name)
    return rows, f"{name},{want_filter}", match["task"] if match else None


def _lm_eval_metrics(record: dict) -> list[str]:
    """The metrics of a sample line: its ``metrics`` list (lm-eval >= 0.4.3) or, in older logs,
    the fields that are not the harness's own."""
    if isinstance(record.get("metrics"), list):
        return [str(m) for m in record["metrics"]]
    return [k for k in record if k not in _LM_EVAL_FIELDS]


def _lm_eval_score(value, origin: str, name: str) -> float:
    """One metric value of a sample line. The harness writes numbers, and its
    ``handle_non_serializable`` writes numpy values it cannot serialise as their text
    (``'True'``, ``'0.5'``); a pair or list is a value its aggregation reduces over the task
    (``f1``, ``bleu``, ``brier_score``), not a score of the item."""
    if isinstance(value, (list, dict)):
        raise ValueError(f"{origin}: metric `{name}` holds {_short(value)}, not a score of its "
                         "own (lm-evaluation-harness aggregates it over the task); choose "
                         "another with `metric`.")
    if isinstance(value, str) and value in ("True", "False"):
        return 1.0 if value == "True" else 0.0
    return _number(value, origin, name)


def lm_eval_model(path) -> str:
    """The model of an lm-evaluation-harness samples file.

    From its companion results file (``results_<date>.json``, or ``<name>_<date>.json``, of the
    same run in the same folder): its ``model_name``, else the ``pretrained=`` (or ``peft``,
    ``delta``, ``model``, ``path``, ``engine``) of ``config.model_args``, as
    ``GeneralConfigTracker._get_model_name`` reads it. Without one: the folder's name, which
    lm-evaluation-harness names after the model (``EleutherAI__pythia-160m``).

    Parameters
    ----------
    path : path
        A ``samples_<task>_<date>.jsonl``.

    Returns
    -------
    str

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> from evalmc.inputs.itemlogs import lm_eval_model
    >>> folder = Path(tempfile.mkdtemp()) / "EleutherAI__pythia-160m"
    >>> folder.mkdir()
    >>> samples = folder / "samples_arc_easy_2024-05-01T10-00-00.123456.jsonl"
    >>> lm_eval_model(samples)
    'EleutherAI__pythia-160m'
    >>> results = folder / "results_2024-05-01T10-00-00.123456.json"
    >>> _ = results.write_text(json.dumps({"config": {"model": "hf",
    ...     "model_args": "pretrained=EleutherAI/pythia-160m,dtype=float32"}}))
    >>> lm_eval_model(samples)
    'EleutherAI/pythia-160m'
    """
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
    """The model named by an lm-evaluation-harness results dict."""
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


def _inspect_rows(path: Path, *, metric: str | None, model: str | None, cluster: str | None):
    """The rows of an inspect_ai log, JSON or ``.eval``."""
    if zipfile.is_zipfile(path):
        spec, samples = _read_eval_archive(path)
    else:
        spec, samples = _read_inspect_json(path)
    if model is None:
        model = spec.get("model") if isinstance(spec, dict) else None
        if not isinstance(model, str) or not model:
            raise ValueError(f"{path.name}: field `eval.model` missing; name the model with "
                             "`model`.")
    if not samples:
        raise ValueError(f"{path.name}: the log holds no samples (was it written with "
                         "--no-log-samples?).")
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
    rows = []
    for where, sample in samples:
        for field in ("id", "epoch"):
            if field not in sample:
                raise ValueError(f"{path.name} {where}: field `{field}` missing.")
        origin = f"{path.name} sample {sample['id']} epoch {sample['epoch']}"
        group = None
        if cluster:
            group = _key(_field(sample.get("metadata"), cluster, f"{origin}: `metadata`"),
                         origin, f"metadata.{cluster}")
        score = _inspect_score(sample, scorer, key, origin)
        error = sample.get("error")
        note = ""
        if math.isnan(score) and error:
            message = error.get("message") if isinstance(error, dict) else error
            note = f"the sample failed: {str(message).splitlines()[0][:80]}"
        rows.append(_Row(model, _key(sample["id"], origin, "id"),
                         _sample_index(sample["epoch"], origin, "epoch"), group, score, origin,
                         where, note))
    task = spec.get("task_display_name") or spec.get("task") if isinstance(spec, dict) else None
    return rows, scorer if key is None else f"{scorer}:{key}", task


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


# --------------------------------------------------------------------------- shared


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
        As :func:`read_items`; a repeated (model, item, sample) is an error naming the tables.
        ``attrs['metric']`` and ``attrs['cluster']`` are the tables' own when they agree.

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
    >>> stack_items([run, run.assign(cluster="algebra")], tasks=["physics", "algebra"])
      model       item  sample    cluster  score
    0     A  algebra/1       0    algebra    1.0
    1     A  algebra/2       0    algebra    0.0
    2     A  physics/1       0  physics/1    1.0
    3     A  physics/2       0  physics/2    0.0
    """
    tables = list(tables)
    if tasks is not None and len(tasks) != len(tables):
        raise ValueError(f"`tasks` must name each of the {len(tables)} tables; got "
                         f"{len(tasks)} names.")
    rows = []
    for number, table in enumerate(tables, start=1):
        missing = [c for c in COLUMNS if c not in table.columns]
        if missing:
            raise ValueError(f"table {number} has no column {', '.join(missing)}; an item "
                             f"table has {', '.join(COLUMNS)}.")
        name = Path(table.attrs.get("file", f"table {number}")).name
        prefix = f"{tasks[number - 1]}/" if tasks is not None else ""
        for index, record in enumerate(table[list(COLUMNS)].itertuples(index=False)):
            item, cluster = str(record.item), str(record.cluster)
            rows.append(_Row(str(record.model), prefix + item, int(record.sample),
                             prefix + cluster if cluster == item else cluster,
                             float(record.score), f"{name} (table {number}) row {index + 1}"))
    if not rows:
        raise ValueError("no rows to stack.")

    def shared(key):
        values = {t.attrs.get(key) for t in tables}
        return values.pop() if len(values) == 1 else None

    return _table(rows, fmt="stacked", metric=shared("metric"), cluster=shared("cluster"))


class PairedItems(NamedTuple):
    """Two models' scores on their common items (see :func:`paired_items`).

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.inputs.itemlogs import PairedItems
    >>> pair = PairedItems(["1", "2"], ["1", "2"], np.array([[1.0], [0.0]]),
    ...                    np.array([[0.0], [0.0]]), {})
    >>> float((pair.a - pair.b).mean())
    0.5
    """

    #: The item ids, sorted as in the table.
    items: list
    #: The cluster of each item.
    clusters: list
    #: A's scores, one row per item and one column per sample index.
    a: np.ndarray
    #: B's scores, likewise (its samples may differ in number from A's).
    b: np.ndarray
    #: Items dropped for lack of the other model, per model (empty unless ``common=True``).
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
    models = list(dict.fromkeys(table["model"]))
    for option, name in (("a", a), ("b", b)):
        if name not in models:
            raise ValueError(f"`{option}` {name!r} is not a model of the table; its models: "
                             f"{', '.join(map(str, models))}.")
    if a == b:
        raise ValueError(f"`a` and `b` must be two models; got {a!r} twice.")
    sides = {name: table[table["model"] == name] for name in (a, b)}
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
    shared = sorted(shared, key=_natural)
    arrays = [_grid(sides[name], shared, name) for name in (a, b)]
    clusters = (sides[a].drop_duplicates("item").set_index("item")["cluster"]
                .reindex(shared).tolist())
    dropped = {name: len(only[name]) for name in (a, b) if only[name]}
    return PairedItems(shared, clusters, arrays[0], arrays[1], dropped)


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
