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
from typing import TYPE_CHECKING, NamedTuple

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
_MISSING = ["", "NA", "NaN", "nan", "N/A", "null"]  # cells read as missing values
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


class _Dialect(NamedTuple):
    """How pandas reads a file: what its first lines show."""

    delimiter: str
    decimal: str
    #: The header's names, and ``''`` for a delimiter ending the lines.
    given: list[str]
    #: The lines to skip (from 0): Excel's ``sep=`` line, the comments and the header.
    skip: list[int]


def read_table(file, *, option: str = "FILE") -> pd.DataFrame:
    """A CSV file of runs as a DataFrame, its dialect and columns found as the module says.

    Parameters
    ----------
    file : path-like
        The CSV file: UTF-8, its delimiter one of ``, ; tab |``, its first row (after Excel's
        ``sep=`` line and comments) naming the columns.
    option : str
        How the caller names the file in messages.

    Returns
    -------
    DataFrame
        One column per named column, missing values NaN; ``attrs`` holds ``delimiter``,
        ``decimal`` and ``file``. A row index column (first, without a name) is named ``''``.

    Raises
    ------
    ValueError
        For a file that is missing, empty, not UTF-8 or not readable as CSV, whose first row
        holds numbers, whose columns repeat a name, or whose data row has more fields than the
        header or a value under a column without a name; the message names the cause.

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
    """
    path = _existing_file(file, option)
    what = f"`{option}` {str(file)!r}"
    data = path.read_bytes()
    dialect = _dialect(data, what)
    frame = _name_columns(_parse(data, dialect, what), dialect.given, what)
    frame.attrs.update(delimiter=dialect.delimiter, decimal=dialect.decimal, file=str(file))
    return frame


def _existing_file(file, option: str) -> Path:
    """`file` as a Path, or a ValueError naming `option` when it is no file."""
    path = Path(file) if file else None
    if path is None or not path.is_file():
        raise ValueError(f"`{option}` must be an existing CSV file; got {str(file)!r}.")
    return path


def _dialect(data: bytes, what: str) -> _Dialect:
    """The dialect of a file's bytes, found in its first (at most 21) lines of the table."""
    bom = len(_BOM) if data.startswith(_BOM) else 0
    lines = _sample_lines(data, bom, what)
    sep = _SEP_LINE.match(lines[0][1]) if lines else None
    skip = [lines.pop(0)[0]] if sep else []
    comments = [line for _, line in lines if _COMMENT.match(line)]
    table = [(i, line) for i, line in lines if not _COMMENT.match(line)][:21]
    if not table:
        raise ValueError(f"{what} is empty; a CSV file of runs needs a header row naming its "
                         "columns.")
    (header_at, header), rows = table[0], [line for _, line in table[1:]]
    delimiter = sep.group(1) if sep else _delimiter(header, rows)
    given, fields = _columns(header, rows, delimiter, comments, what)
    decimal = _decimal_mark(delimiter, fields)
    if b"#" in data:
        skip += _comment_lines(data[bom:])
    return _Dialect(delimiter, decimal, given, sorted({*skip, header_at}))


def _sample_lines(data: bytes, bom: int, what: str) -> list[tuple[int, str]]:
    """The non-blank lines of the file's first 64 KiB, numbered from 0; a last line that may be
    cut is left out."""
    head = data[bom:bom + _SAMPLE_BYTES]
    sample = _decoded(head, bom, what)
    lines = [(i, line) for i, line in enumerate(_LINE_END.split(sample)) if line.strip()]
    if len(head) == _SAMPLE_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last line of the sample may be cut
    return lines


def _decoded(head: bytes, bom: int, what: str) -> str:
    """The file's first bytes as UTF-8 text (a character cut at their end aside), or a
    ValueError naming the first byte that is not."""
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as err:
        if len(head) < _SAMPLE_BYTES or err.start < len(head) - 3:  # not a cut multibyte char
            raise ValueError(f"{what} must be UTF-8 text; byte {bom + err.start} is "
                             f"{head[err.start:err.start + 1]!r}.") from None
        return head[:err.start].decode("utf-8")


def _columns(header: str, rows: list[str], delimiter: str, comments: list[str],
             what: str) -> tuple[list[str], list[list[str]]]:
    """The header's names (``''`` added for a delimiter ending the lines) and the rows' fields,
    checked."""
    names = [name.strip() for name in _split(header, delimiter)]
    _check_header(names, comments, what)
    fields = [_split(line, delimiter) for line in rows]
    trailing = any(len(f) == len(names) + 1 and not f[-1].strip() for f in fields)
    given = names + [""] * trailing
    _check_widths(fields, given, names, what)
    _check_distinct(given, what)
    return given, fields


def _check_header(names: list[str], comments: list[str], what: str) -> None:
    """Raise ValueError when the first row holds numbers, not names (a comment skipped before
    it may be the header)."""
    if all(_NUMBER.match(name) for name in names if name) and any(names):
        hint = (f"; the comment line {comments[0].strip()!r} is skipped: remove its '#' if it "
                "names the columns" if comments else "")
        raise ValueError(f"{what} has no header row: its first row holds numbers "
                         f"({', '.join(names[:3])}); add a first row naming the "
                         f"columns{hint}.")


def _check_widths(fields: list[list[str]], given: list[str], names: list[str],
                  what: str) -> None:
    """Raise ValueError when a row has more fields than the header names."""
    for k, row in enumerate(fields):
        if len(row) > len(given):
            raise ValueError(f"{what}: data row {k + 1} has {len(row)} fields, but the header "
                             f"names {len(names)} columns.")


def _check_distinct(given: list[str], what: str) -> None:
    """Raise ValueError when two columns have one name."""
    named = [name for name in given if not _UNNAMED.match(name)]
    twice = next((name for k, name in enumerate(named) if name in named[:k]), None)
    if twice is not None:
        raise ValueError(f"{what} has the column {twice!r} twice; columns must have distinct "
                         "names.")


def _decimal_mark(delimiter: str, fields: list[list[str]]) -> str:
    """A comma when the delimiter is not one and a cell such as ``0,91`` appears; else ``'.'``."""
    cells = [cell for row in fields for cell in row]
    return "," if delimiter != "," and any(_DECIMAL_COMMA.match(c) for c in cells) else "."


def _parse(data: bytes, dialect: _Dialect, what: str) -> pd.DataFrame:
    """The file read by pandas in `dialect`, every column as named in its header (or
    ``Unnamed: k``)."""
    import pandas as pd

    names = [n if not _UNNAMED.match(n) else f"Unnamed: {k}"
             for k, n in enumerate(dialect.given)]
    try:
        return pd.read_csv(io.BytesIO(data), sep=dialect.delimiter, decimal=dialect.decimal,
                           encoding="utf-8-sig", header=None, names=names, skiprows=dialect.skip,
                           skipinitialspace=True, keep_default_na=False, na_values=_MISSING,
                           engine="c")
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise ValueError(f"{what} is not a readable CSV file (delimiter {dialect.delimiter!r}, "
                         f"decimal {dialect.decimal!r}): {_first_line(err)}") from None


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
    """Whether most of the column's filled cells are numbers, read with the file's `decimal`
    mark; False for a column with no filled cell."""
    filled = raw.dropna()
    if filled.empty:
        return False
    return np.mean(~np.isnan(_numbers(filled, decimal))) > 0.5


def score_columns(frame: pd.DataFrame, exclude=()) -> tuple[list, list[str], dict]:
    """The score columns of `frame` (but `exclude`), its text columns by name, and its ids (name
    to why), as the module says; a text column of numbers written otherwise raises ValueError."""
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
    """The word of :data:`KEY_WORDS` that marks a column called `name` as a key of the runs: its
    last word (split at case changes, digits and other characters) or its words run together."""
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
    """The id columns of :func:`score_columns`, and why, for a line of stderr."""
    return ", ".join(f"{name!r} ({why})" for name, why in ids.items())


def check_wide(frame: pd.DataFrame, text, *, option: str, fix: str) -> None:
    """Raise ValueError naming `option` and `fix` when a column of `text` repeats its values (one
    row per run); a table made by :func:`wide` passes."""
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
    """The one score column of `frame` (ids aside), or a ValueError asking for `option`; a file of
    one row per run is refused as by :func:`check_wide`, with `fix`."""
    numeric, text, _ = score_columns(frame)
    file = frame.attrs.get("file", "the file")
    if len(numeric) != 1:
        found = f"columns of numbers: {', '.join(map(str, numeric))}" if numeric else "none"
        raise ValueError(f"`{option}` must name the column of scores in {file!r} ({found}).")
    check_wide(frame, text, option=option,
               fix=fix or f"name the column with `{option}` to use every row")
    return numeric[0]


def numeric_column(frame: pd.DataFrame, column, *, option: str) -> np.ndarray:
    """Column `column` as floats, NaN where missing; a ValueError naming `option` and the data
    row when a filled cell is not a finite number."""
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
    """Column `column` of names or keys, or a ValueError naming `option` and its first empty row."""
    keys = frame[column]
    if keys.isna().any():
        row = int(np.flatnonzero(keys.isna())[0])
        raise ValueError(f"`{option}` column {column!r} must have a value on every row; data "
                         f"row {row + 1} has none.")
    return keys


def drop_missing(values: np.ndarray, *, dropna: bool, option: str, column) -> np.ndarray:
    """`values` without its NaN, or, when not `dropna`, a ValueError naming the first one's row."""
    missing = np.isnan(values)
    if missing.any() and not dropna:
        raise ValueError(f"`{option}` column {column!r} has a missing value on data row "
                         f"{int(np.flatnonzero(missing)[0]) + 1}; without --no-dropna missing "
                         "values are skipped and counted.")
    return values[~missing]


def wide(frame: pd.DataFrame, model, score, pair_by=None) -> pd.DataFrame:
    """A long table as a column per model, a row per key of `pair_by` (its column first) or per
    run in each model's order; ``attrs['missing']`` counts each model's empty score cells."""
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
        The column pairing the runs (a seed, a split), one pair per key in order of first
        appearance; default: the rows' order.
    dropna : bool
        Drop, and list, the pairs missing a score; False makes one an error.

    Returns
    -------
    a, b : ndarray, shape (k,)
        The complete pairs' scores.
    dropped : list of str
        The pairs dropped for a missing score, as ``'row N'`` or ``'COL=KEY'``.

    Raises
    ------
    ValueError
        For a column (or model) the table does not have, a cell that is not a finite number,
        a key holding two scores of one side, a missing score when not `dropna`, or fewer than
        2 complete pairs.

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
    _read_pairs_iv(frame, col_a, col_b, pair_by)
    a, b, labels = _aligned(frame, col_a, col_b, pair_by)
    return _complete_pairs(a, b, labels, dropna=dropna)


def _read_pairs_iv(frame, col_a, col_b, pair_by) -> None:
    """Raise ValueError when `frame` lacks a column (a model, when long) :func:`read_pairs` is
    asked for."""
    for option, col in (("--a", col_a), ("--b", col_b), ("--pair-by", pair_by)):
        if col is not None and col not in frame.columns:
            valid = ", ".join(map(str, frame.columns))
            what = "a model" if frame.attrs.get("long") and option != "--pair-by" else "a column"
            raise ValueError(f"`{option}` {col!r} is not {what} of {frame.attrs['file']!r}; "
                             f"its {'models' if what == 'a model' else 'columns'}: {valid}.")


def _aligned(frame, col_a, col_b, pair_by) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A's and B's scores, row by row (or, in a wide table, key by key of `pair_by`), and each
    pair's label."""
    a = numeric_column(frame, col_a, option="--a")
    b = numeric_column(frame, col_b, option="--b")
    if pair_by is None or frame.attrs.get("long"):
        labels = ([f"{pair_by}={key}" for key in frame[pair_by]] if pair_by
                  else [f"row {i + 1}" for i in range(len(frame))])
        return a, b, labels
    keys = key_column(frame, pair_by, option="--pair-by")
    a, b = _by_key(keys, a, "A", pair_by), _by_key(keys, b, "B", pair_by)
    a, b = a.align(b)
    labels = [f"{pair_by}={key}" for key in a.index]
    return a.to_numpy(), b.to_numpy(), labels


def _complete_pairs(a, b, labels, *, dropna: bool):
    """The pairs holding both scores, and the labels of the others (an error when not
    `dropna`); fewer than 2 complete pairs are an error."""
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
