"""Run tables from CSV files: the one reader behind every command and the `empirical` scenario.

- **Dialect**: UTF-8 with or without a byte-order mark; the delimiter (``,``, ``;``, tab or
  ``|``) is the one the header and the first lines agree on, or the one Excel's first line
  ``sep=;`` names, and the decimal mark is a comma when the delimiter is not and cells such as
  ``0,91`` appear. Lines starting with ``#`` are comments. A file read some other way is an
  error naming what was found, never a silently different table.
- **Columns**: the header names them, distinctly; a header of numbers is refused, a delimiter
  ending every line is ignored, and a first column without a name is the row index (as
  ``DataFrame.to_csv()`` writes it). A column holds scores when most of its filled cells are
  numbers (``−`` is read as a minus sign); a text cell in it is an error naming the row and,
  for a thousands separator or a misplaced decimal mark, the cause. A column of integers
  numbering the rows (``1..n``, ``0..n-1``) or named as a key (``seed``, ``run``, ``fold``,
  ``dataset_id``, ...) is an id, not scores. Infinite values are errors.
- **Missing values** (empty cells, ``NA``, ``NaN``) are skipped and counted (``dropna=True``,
  the commands' ``--dropna``), or refused with the row that holds one.
- **Long format** (``model,seed,acc``: one row per run) becomes one column per model with
  :func:`wide`, rows keyed by a pairing column or by each model's run order; a file whose
  text column repeats its values is recognised as long (:func:`check_wide`).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

DELIMITERS = (",", ";", "\t", "|")
_SAMPLE_BYTES = 1 << 16
_BOM = b"\xef\xbb\xbf"
_LINE_END = re.compile(r"\r\n|\r|\n")
_SEP_LINE = re.compile(r"^\s*sep=(.)\s*$")  # Excel's first line naming the delimiter
_COMMENT = re.compile(r"^[ \t]*#(?![,;\t|])")  # a first field of just '#' names a column
_COMMENT_BYTES = re.compile(rb"[\r\n][ \t]*#(?![,;\t|])")  # a line end, then a comment
_LINE_END_BYTES = re.compile(rb"\r\n|\r|\n")
_DECIMAL_COMMA = re.compile(r"^\s*[-+\u2212]?\d+,\d+\s*$")
_NUMBER = re.compile(r"^[-+\u2212]?(\d+([.,]\d*)?|[.,]\d+)([eE][-+]?\d+)?$")
_UNNAMED = re.compile(r"^(Unnamed: \d+)?$")  # no name, or pandas' stand-in for none
#: Words that, last in a column's name, mark it as a key of the runs rather than scores.
KEY_WORDS = frozenset({"id", "idx", "index", "seed", "run", "fold", "split", "rep", "repeat",
                       "replicate", "trial", "iter", "iteration", "epoch", "step", "round",
                       "dataset", "task", "item", "example", "question", "sample", "instance"})
_CAUSES = (  # (pattern, decimal mark of the file or None for either, cause and fix)
    (r"[-+]?\d{1,3}(,\d{3})+(\.\d+)?", ".",
     "a ',' grouping thousands; write 1234.5, not 1,234.5"),
    (r"[-+]?\d{1,3}(\.\d{3})+(,\d+)?", None,
     "a '.' grouping thousands; write 1234.5 (or 1234,5 with ';' between fields), not 1.234,5"),
    (r"[-+]?\d*,\d+", ".",
     "a decimal comma in a file whose fields are separated by ','; separate them by ';' or "
     "write 0.91"),
    (r"[-+]?\d*\.\d+([eE][-+]?\d+)?", ",",
     "a decimal point in a file whose other numbers have a decimal comma (0,91); use one mark"),
)


def read_table(file, *, option: str = "FILE") -> pd.DataFrame:
    """A CSV file as a DataFrame, its dialect and columns found as the module says.

    Parameters
    ----------
    file : path
    option : str
        How the caller names the file in messages.

    Returns
    -------
    DataFrame
        With ``attrs['delimiter']`` and ``attrs['decimal']``; a row index column is named
        ``''``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from evalmc.inputs.tables import read_table
    >>> path = Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = path.write_text("model;seed;acc\\nA;1;0,91\\nB;1;0,89\\nA;2;0,93\\nB;2;\\n")
    >>> frame = read_table(path)
    >>> frame
      model  seed   acc
    0     A     1  0.91
    1     B     1  0.89
    2     A     2  0.93
    3     B     2   NaN
    >>> frame.attrs["delimiter"], frame.attrs["decimal"]
    (';', ',')
    >>> _ = path.write_text("sep=,\\n# two runs\\nseed,A,B,\\n1,0.91,0.80,\\n2,0.93,0.82,\\n")
    >>> read_table(path)
       seed     A     B
    0     1  0.91  0.80
    1     2  0.93  0.82
    """
    import pandas as pd

    path = Path(file) if file else None
    if path is None or not path.is_file():
        raise ValueError(f"`{option}` must be an existing CSV file; got {str(file)!r}.")
    data = path.read_bytes()
    bom = len(_BOM) if data.startswith(_BOM) else 0
    head = data[bom:bom + _SAMPLE_BYTES]
    try:
        sample = head.decode("utf-8")
    except UnicodeDecodeError as err:
        if len(head) < _SAMPLE_BYTES or err.start < len(head) - 3:  # not a cut multibyte char
            raise ValueError(f"`{option}` {str(file)!r} must be UTF-8 text; byte "
                             f"{bom + err.start} is {head[err.start:err.start + 1]!r}.") from None
        sample = head[:err.start].decode("utf-8")
    lines = [(i, line) for i, line in enumerate(_LINE_END.split(sample)) if line.strip()]
    if len(head) == _SAMPLE_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last line of the sample may be cut
    sep = _SEP_LINE.match(lines[0][1]) if lines else None
    skip = [lines.pop(0)[0]] if sep else []
    comments = [line for _, line in lines if _COMMENT.match(line)]
    table = [(i, line) for i, line in lines if not _COMMENT.match(line)][:21]
    if not table:
        raise ValueError(f"`{option}` {str(file)!r} is empty; a CSV file of runs needs a header "
                         "row naming its columns.")
    (header_at, header), rows = table[0], [line for _, line in table[1:]]
    delimiter = sep.group(1) if sep else _delimiter(header, rows)
    names = [name.strip() for name in _split(header, delimiter)]
    if all(_NUMBER.match(name) for name in names if name) and any(names):
        hint = (f"; the comment line {comments[0].strip()!r} is skipped: remove its '#' if it "
                "names the columns" if comments else "")
        raise ValueError(f"`{option}` {str(file)!r} has no header row: its first row holds "
                         f"numbers ({', '.join(names[:3])}); add a first row naming the "
                         f"columns{hint}.")
    fields = [_split(line, delimiter) for line in rows]
    trailing = any(len(f) == len(names) + 1 and not f[-1].strip() for f in fields)
    given = names + [""] * trailing
    for k, row in enumerate(fields):
        if len(row) > len(given):
            raise ValueError(f"`{option}` {str(file)!r}: data row {k + 1} has {len(row)} "
                             f"fields, but the header names {len(names)} columns.")
    named = [name for name in given if not _UNNAMED.match(name)]
    twice = next((name for k, name in enumerate(named) if name in named[:k]), None)
    if twice is not None:
        raise ValueError(f"`{option}` {str(file)!r} has the column {twice!r} twice; columns "
                         "must have distinct names.")
    cells = [cell for row in fields for cell in row]
    decimal = "," if delimiter != "," and any(_DECIMAL_COMMA.match(c) for c in cells) else "."
    if b"#" in data:
        skip += _comment_lines(data[bom:])
    try:
        frame = pd.read_csv(io.BytesIO(data), sep=delimiter, decimal=decimal,
                            encoding="utf-8-sig", header=None,
                            names=[n if not _UNNAMED.match(n) else f"Unnamed: {k}"
                                   for k, n in enumerate(given)],
                            skiprows=sorted({*skip, header_at}), skipinitialspace=True,
                            keep_default_na=False,
                            na_values=["", "NA", "NaN", "nan", "N/A", "null"], engine="c")
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise ValueError(f"`{option}` {str(file)!r} is not a readable CSV file (delimiter "
                         f"{delimiter!r}, decimal {decimal!r}): {_first_line(err)}") from None
    frame = _name_columns(frame, given, f"`{option}` {str(file)!r}")
    frame.attrs.update(delimiter=delimiter, decimal=decimal, file=str(file))
    return frame


def _comment_lines(body: bytes) -> list[int]:
    """The numbers (from 0) of the comment lines of a file's bytes."""
    text = b"\n" + body
    found, line, at = [], -1, 0
    for match in _COMMENT_BYTES.finditer(text):
        line += len(_LINE_END_BYTES.findall(text, at, match.start() + 1))
        at = match.start() + 1
        found.append(line)
    return found


def _split(line: str, delimiter: str) -> list[str]:
    """The fields of one line."""
    return next(csv.reader([line], delimiter=delimiter))


def _delimiter(header: str, rows: list[str]) -> str:
    """The delimiter that splits the header and the first rows into the same number (at least
    2, the largest) of fields, a delimiter ending a line aside; a comma when none does."""
    best, best_count = ",", 1
    for delimiter in DELIMITERS:
        names = _split(header, delimiter)
        count = len(names) - (len(names) > 1 and not names[-1].strip())
        if count > best_count and all(
                len(f) == count or len(f) == count + 1 and not f[-1].strip()
                for f in (_split(line, delimiter) for line in [header, *rows])):
            best, best_count = delimiter, count
    return best


def _name_columns(frame, given, what) -> pd.DataFrame:
    """`frame` with its header's names: a column without a name is dropped when empty (a
    delimiter ending the lines), kept as the row index ``''`` when first, an error otherwise."""
    keep = []
    for k, name in enumerate(given):
        column = frame.iloc[:, k]
        if not _UNNAMED.match(name) or (k == 0 and column.notna().any()):
            keep.append(k)
        elif column.notna().any():
            row = int(np.flatnonzero(column.notna())[0])
            raise ValueError(f"{what}: column {k + 1} has no name in the header, yet data row "
                             f"{row + 1} has {column.astype(str).iloc[row]!r} there; name the "
                             "column, or "
                             "remove the value.")
    frame = frame.iloc[:, keep]
    frame.columns = ["" if _UNNAMED.match(given[k]) else given[k] for k in keep]
    return frame


def _first_line(err: Exception) -> str:
    """The first line of an error's message (its type's name if it has none)."""
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


def _numbers(raw: pd.Series, decimal: str = ".") -> np.ndarray:
    """A column as floats, NaN where a cell is not a number (``−`` read as ``-``; with a
    decimal comma, a cell holding a '.' is not a number)."""
    import pandas as pd

    if pd.api.types.is_numeric_dtype(raw):
        return raw.to_numpy(dtype=float)
    text = raw.astype(str).str.replace("\u2212", "-", regex=False)
    if decimal == ",":
        text = text.where(~text.str.contains(".", regex=False)).str.replace(",", ".",
                                                                           regex=False)
    return pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)


def _cause(cell, decimal: str) -> str:
    """Why `cell`, not read as a number, looks like one written another way ('' if not)."""
    text = str(cell).strip()
    return next((cause for pattern, mark, cause in _CAUSES
                 if mark in (None, decimal) and re.fullmatch(pattern, text)), "")


def is_score_column(raw: pd.Series, decimal: str = ".") -> bool:
    """Whether most of the column's filled cells are numbers.

    Parameters
    ----------
    raw : Series
        A column as read.
    decimal : str
        The file's decimal mark (``attrs['decimal']`` of :func:`read_table`).

    Returns
    -------
    bool
        False for a column with no filled cell.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.inputs.tables import is_score_column
    >>> bool(is_score_column(pd.Series(["0.9", "0.8", "n/a"])))
    True
    >>> bool(is_score_column(pd.Series(["A", "B"])))
    False
    """
    filled = raw.dropna()
    if filled.empty:
        return False
    return np.mean(~np.isnan(_numbers(filled, decimal))) > 0.5


def score_columns(frame: pd.DataFrame, exclude=()) -> tuple[list, list[str], dict]:
    """The columns of scores of `frame` (but `exclude`), its columns of text, and its ids.

    An id is the row index (a first column without a name), a first column of integers
    numbering the rows (``1, 2, ..., n`` or ``0, 1, ..., n-1``, n >= 3), or a column of
    integers whose name is a key's (:func:`key_word`: ``seed``, ``dataset_id``, ...). The
    columns of a table made by :func:`wide` are all scores but its pairing column.

    Parameters
    ----------
    frame : DataFrame
        From :func:`read_table` (or :func:`wide`).
    exclude : iterable
        Columns to leave out of the three.

    Returns
    -------
    scores : list
        The score columns, in order.
    text : list of str
        The columns of text, by name.
    ids : dict
        Each id column's name, to why it is one.

    Raises
    ------
    ValueError
        For a column of numbers written with a thousands separator or another decimal mark.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.inputs.tables import score_columns
    >>> frame = pd.DataFrame({"n": [1, 2, 3], "model": ["A", "B", "C"], "seed": [7, 3, 5],
    ...                       "acc": [0.91, 0.89, 0.90]})
    >>> score_columns(frame)
    (['acc'], ['model'], {'n': 'integers 1..3 numbering the rows', 'seed': 'integers, named \
as a key (seed)'})
    """
    decimal = frame.attrs.get("decimal", ".")
    scores, text, ids = [], [], {}
    for k, name in enumerate(frame.columns):
        if name in exclude:
            continue
        if name == "" and k == 0:
            ids[name] = "the row index: a first column without a name"
        elif is_score_column(frame[name], decimal):
            why = None if frame.attrs.get("long") else _id(str(name), frame[name], decimal,
                                                          first=k == 0)
            if why:
                ids[name] = why
            else:
                scores.append(name)
        else:
            _check_written(frame, name)
            text.append(str(name))
    return scores, text, ids


def _id(name: str, raw: pd.Series, decimal: str, first: bool) -> str | None:
    """Why a column of numbers is an id, or None."""
    values = _numbers(raw, decimal)
    if np.isnan(values).any() or not np.array_equal(values, np.round(values)):
        return None
    if first and values.size >= 3 and values[0] in (0, 1) and (np.diff(values) == 1).all():
        return f"integers {values[0]:.0f}..{values[-1]:.0f} numbering the rows"
    word = key_word(name)
    return f"integers, named as a key ({word})" if word else None


def key_word(name) -> str | None:
    """The word of :data:`KEY_WORDS` that marks a column called `name` as a key of the runs:
    its last word, or its words run together; None for a name of anything else.

    Parameters
    ----------
    name : str
        A column's name (words split at case changes, digits and other characters).

    Returns
    -------
    str or None

    Examples
    --------
    >>> from evalmc.inputs.tables import key_word
    >>> [key_word(n) for n in ("seed", "Random Seed", "cv_fold", "data_set", "datasetId", "acc")]
    ['seed', 'seed', 'fold', 'dataset', 'id', None]
    """
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", str(name))]
    for word in (words[-1:] + ["".join(words)]) if words else ():
        if word in KEY_WORDS:
            return word
    return None


def _check_written(frame: pd.DataFrame, name) -> None:
    """Raise ValueError when most filled cells of a text column are numbers written with a
    thousands separator or another decimal mark."""
    filled = frame[name].dropna()
    causes = [_cause(cell, frame.attrs.get("decimal", ".")) for cell in filled.head(100)]
    if causes and sum(map(bool, causes)) > len(causes) / 2:
        row = next(k for k, cause in enumerate(causes) if cause)
        file = frame.attrs.get("file", "the file")
        raise ValueError(f"`FILE` {file!r} column {name!r} holds {filled.iloc[row]!r} on data "
                         f"row {filled.index[row] + 1}: {causes[row]}.")


def ids_note(ids: dict) -> str:
    """The columns :func:`score_columns` found to be ids, and why, for a line of stderr.

    Parameters
    ----------
    ids : dict
        Column name to why it is an id.

    Returns
    -------
    str

    Examples
    --------
    >>> from evalmc.inputs.tables import ids_note
    >>> ids_note({"seed": "integers 0..9, each once"})
    "'seed' (integers 0..9, each once)"
    """
    return ", ".join(f"{name!r} ({why})" for name, why in ids.items())


def check_wide(frame: pd.DataFrame, text, *, option: str, fix: str) -> None:
    """Raise ValueError when `frame` looks like one row per run: a column of `text` repeats its
    values (names of models). A table made by :func:`wide` passes.

    Parameters
    ----------
    frame : DataFrame
    text : list of str
        Its columns of text (:func:`score_columns`).
    option : str
        The option the message names.
    fix : str
        How to read the file instead, for the message.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.inputs.tables import check_wide
    >>> long = pd.DataFrame({"model": ["A", "B", "A", "B"], "acc": [0.9, 0.8, 0.91, 0.79]})
    >>> check_wide(long, ["model"], option="FILE", fix="give --model model --score acc")
    Traceback (most recent call last):
    ...
    ValueError: `FILE`: 'the file' looks like one row per run: column 'model' repeats its \
values (A 2 times, B 2 times); give --model model --score acc.
    """
    if frame.attrs.get("long"):
        return
    for name in text:
        counts = frame[name].value_counts()
        if len(counts) >= 2 and counts.iloc[0] >= 2:
            shown = ", ".join(f"{key} {count} times" for key, count in counts.head(3).items())
            raise ValueError(f"`{option}`: {frame.attrs.get('file', 'the file')!r} looks like "
                             f"one row per run: column {name!r} repeats its values ({shown}"
                             f"{', ...' if len(counts) > 3 else ''}); {fix}.")


def only_score_column(frame: pd.DataFrame, *, option: str, fix: str = "") -> str:
    """The name of the one column of scores of `frame` (ids aside), or a ValueError asking for
    `option`; a file of one row per run (:func:`check_wide`) is refused too.

    Parameters
    ----------
    frame : DataFrame
    option : str
        How the caller names the column's option in messages.
    fix : str
        How to read a file of one row per run, for the message; default: name the column.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.inputs.tables import only_score_column
    >>> only_score_column(pd.DataFrame({"seed": [0, 1, 2], "acc": [0.91, 0.89, 0.93]}),
    ...                   option="--column")
    'acc'
    """
    numeric, text, _ = score_columns(frame)
    file = frame.attrs.get("file", "the file")
    if len(numeric) != 1:
        found = f"columns of numbers: {', '.join(map(str, numeric))}" if numeric else "none"
        raise ValueError(f"`{option}` must name the column of scores in {file!r} ({found}).")
    check_wide(frame, text, option=option,
               fix=fix or f"name the column with `{option}` to use every row")
    return numeric[0]


def numeric_column(frame: pd.DataFrame, column, *, option: str) -> np.ndarray:
    """A column as floats, NaN where a value is missing.

    Raises ValueError naming `option`, the column and the data row when a filled cell is not a
    number or is infinite.

    Parameters
    ----------
    frame : DataFrame
        From :func:`read_table` (a decimal comma is read as its ``attrs`` say).
    column : str
    option : str
        How the caller names the column's option in messages.

    Returns
    -------
    ndarray of float, shape (len(frame),)

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.inputs.tables import numeric_column
    >>> numeric_column(pd.DataFrame({"acc": [0.91, None]}), "acc", option="--score").tolist()
    [0.91, nan]
    >>> numeric_column(pd.DataFrame({"acc": ["0.91", "high"]}), "acc", option="--score")
    Traceback (most recent call last):
    ...
    ValueError: `--score` column 'acc' must hold finite numbers (an empty cell is a missing \
value); data row 2 has 'high'.
    """
    if column not in frame.columns:
        file = frame.attrs.get("file", "the file")
        raise ValueError(f"`{option}` {column!r} is not a column of {file!r}; its columns: "
                         f"{', '.join(map(str, frame.columns))}.")
    decimal = frame.attrs.get("decimal", ".")
    values = _numbers(frame[column], decimal)
    bad = np.flatnonzero((np.isnan(values) & frame[column].notna().to_numpy())
                         | np.isinf(values))
    if bad.size:
        row = int(bad[0])
        held = frame[column].iloc[row]
        cause = _cause(held, decimal)
        raise ValueError(f"`{option}` column {column!r} must hold finite numbers (an empty cell "
                         f"is a missing value); data row {row + 1} has {held!r}"
                         f"{': ' + cause if cause else ''}.")
    return values


def key_column(frame: pd.DataFrame, column, *, option: str) -> pd.Series:
    """A column of names or keys (models, seeds), or a ValueError naming the first empty row.

    Parameters
    ----------
    frame : DataFrame
    column : str
    option : str
        How the caller names the column's option in messages.

    Returns
    -------
    Series

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.inputs.tables import key_column
    >>> key_column(pd.DataFrame({"model": ["A", "B"]}), "model", option="--model").tolist()
    ['A', 'B']
    """
    keys = frame[column]
    if keys.isna().any():
        row = int(np.flatnonzero(keys.isna())[0])
        raise ValueError(f"`{option}` column {column!r} must have a value on every row; data "
                         f"row {row + 1} has none.")
    return keys


def drop_missing(values: np.ndarray, *, dropna: bool, option: str, column) -> np.ndarray:
    """`values` without its NaN (missing values), or a ValueError naming the first one's row
    when not `dropna`.

    Parameters
    ----------
    values : ndarray of float
    dropna : bool
        Skip the missing values; False makes one an error.
    option, column : str
        The option and column named in the message.

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.inputs.tables import drop_missing
    >>> values = np.array([0.9, np.nan, 0.8])
    >>> drop_missing(values, dropna=True, option="--score", column="acc").tolist()
    [0.9, 0.8]
    """
    missing = np.isnan(values)
    if missing.any() and not dropna:
        raise ValueError(f"`{option}` column {column!r} has a missing value on data row "
                         f"{int(np.flatnonzero(missing)[0]) + 1}; without --no-dropna missing "
                         "values are skipped and counted.")
    return values[~missing]


def wide(frame: pd.DataFrame, model, score, pair_by=None) -> pd.DataFrame:
    """A long table (one row per run) as one column of scores per model.

    Parameters
    ----------
    frame : DataFrame
        From :func:`read_table`.
    model, score : str
        Columns naming each run's model and holding its score.
    pair_by : str, optional
        Column keying the runs that belong together (seed, split, data set): one row per key,
        in order of first appearance. Default: row i holds each model's i-th run.

    Returns
    -------
    DataFrame
        One column per model, in order of first appearance (and `pair_by` first, when given);
        missing runs are NaN. ``attrs['missing']`` counts, per model, the runs whose score
        cell is empty (as opposed to runs a model does not have).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.inputs.tables import wide
    >>> long = pd.DataFrame({"model": ["A", "B", "A", "B"], "seed": [1, 1, 2, 2],
    ...                      "acc": [0.91, 0.89, 0.93, None]})
    >>> table = wide(long, "model", "acc", pair_by="seed")
    >>> table
      seed     A     B
    0    1  0.91  0.89
    1    2  0.93   NaN
    >>> table.attrs["missing"]
    {'B': 1}
    """
    import pandas as pd

    for option, col in (("--model", model), ("--score", score), ("--pair-by", pair_by)):
        if col is not None and col not in frame.columns:
            file = frame.attrs.get("file", "the file")
            raise ValueError(f"`{option}` {col!r} is not a column of {file!r}; its columns: "
                             f"{', '.join(map(str, frame.columns))}.")
    names = key_column(frame, model, option="--model")
    values = numeric_column(frame, score, option="--score")
    if pair_by is None:
        keys = names.groupby(names, sort=False).cumcount().to_numpy()
    else:
        keys = key_column(frame, pair_by, option="--pair-by").to_numpy()
    long = pd.DataFrame({"key": keys, "model": names.to_numpy(), "score": values})
    twice = long.duplicated(["key", "model"])
    if twice.any():
        row = int(np.flatnonzero(twice)[0])
        raise ValueError(f"`--pair-by` key {pair_by}={keys[row]} has two runs of model "
                         f"{names.iloc[row]!r} (data row {row + 1}); each key may hold one run "
                         "per model.")
    missing = long.loc[np.isnan(values), "model"].astype(str).value_counts().to_dict()
    table = long.pivot(index="key", columns="model", values="score")
    table = table.reindex(index=pd.unique(keys), columns=pd.unique(names.to_numpy()))
    table.columns = [str(c) for c in table.columns]
    table.columns.name = None
    if pair_by is not None:
        table.insert(0, pair_by, table.index.astype(str))
    out = table.reset_index(drop=True)
    out.attrs.update(frame.attrs, decimal=".", missing=missing, long=True)
    return out


def read_pairs(frame, col_a: str, col_b: str, pair_by: str | None = None, *,
               dropna: bool = True):
    """Paired scores of A and B from a table of :func:`read_table`.

    Parameters
    ----------
    frame : DataFrame
        From :func:`read_table` (or :func:`wide`, for a long file).
    col_a, col_b : str
        The columns (or, long, the models) of A's and B's scores.
    pair_by : str, optional
        The column pairing the runs (a seed, a split); default: the rows' order.
    dropna : bool
        Drop, and list, the pairs missing a score; False makes one an error.

    Returns
    -------
    a, b : ndarray, shape (k,)
    dropped : list of str
        The pairs dropped for a missing score, as ``'row N'`` or ``'COL=KEY'``.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.inputs.tables import read_pairs
    >>> frame = pd.DataFrame({"seed": [1, 2, 3], "a": [0.91, 0.93, 0.90],
    ...                       "b": [0.89, None, 0.88]})
    >>> a, b, dropped = read_pairs(frame, "a", "b", pair_by="seed")
    >>> a.tolist(), b.tolist(), dropped
    ([0.91, 0.9], [0.89, 0.88], ['seed=2'])
    """
    for option, col in (("--a", col_a), ("--b", col_b), ("--pair-by", pair_by)):
        if col is not None and col not in frame.columns:
            valid = ", ".join(map(str, frame.columns))
            what = "a model" if frame.attrs.get("long") and option != "--pair-by" else "a column"
            raise ValueError(f"`{option}` {col!r} is not {what} of {frame.attrs['file']!r}; "
                             f"its {'models' if what == 'a model' else 'columns'}: {valid}.")
    a = numeric_column(frame, col_a, option="--a")
    b = numeric_column(frame, col_b, option="--b")
    if pair_by is None or frame.attrs.get("long"):
        labels = ([f"{pair_by}={key}" for key in frame[pair_by]] if pair_by
                  else [f"row {i + 1}" for i in range(len(frame))])
    else:
        keys = key_column(frame, pair_by, option="--pair-by")
        a, b = _by_key(keys, a, "A", pair_by), _by_key(keys, b, "B", pair_by)
        a, b = a.align(b)
        labels = [f"{pair_by}={key}" for key in a.index]
        a, b = a.to_numpy(), b.to_numpy()
    has_a, has_b = ~np.isnan(a), ~np.isnan(b)
    dropped = [label for label, x, y in zip(labels, has_a, has_b, strict=True) if not (x and y)]
    if dropped and not dropna:
        raise ValueError(f"pair {dropped[0]} misses a score; without --no-dropna such pairs are "
                         "dropped and counted.")
    keep = has_a & has_b
    if keep.sum() < 2:
        raise ValueError(f"`--a` and `--b` need at least 2 complete pairs; got {keep.sum()}"
                         + (f" ({len(dropped)} pairs miss a score)" if dropped else "") + ".")
    return a[keep], b[keep], dropped


def _by_key(keys, values, side, pair_by):
    """`values` as a Series indexed by `keys` (one per key, in order of first appearance)."""
    import pandas as pd

    present = pd.Series(values, index=keys.to_numpy()).dropna()
    dup = present.index[present.index.duplicated()]
    if len(dup):
        raise ValueError(f"`--pair-by` key {pair_by}={dup[0]} has more than one score for "
                         f"{side}; each key may hold one score per pipeline.")
    return present.reindex(pd.unique(keys.to_numpy()))
