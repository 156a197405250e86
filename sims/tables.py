"""Run tables from CSV files: the one reader behind every command and the `empirical` scenario.

- **Dialect**: UTF-8 with or without a byte-order mark; the delimiter (``,``, ``;``, tab or
  ``|``) is the one the header and the first lines agree on, and the decimal mark is a comma
  when the delimiter is not and cells such as ``0,91`` appear. A file read some other way is an
  error naming what was found, never a silently different table.
- **Columns**: names must be distinct. A column holds scores when most of its filled cells are
  numbers; a text cell in it is an error naming the row (a column of text, such as model
  names, is simply not a score column). Infinite values are errors.
- **Missing values** (empty cells, ``NA``, ``NaN``) are skipped and counted (``dropna=True``,
  the commands' ``--dropna``), or refused with the row that holds one.
- **Long format** (``model,seed,acc``: one row per run) becomes one column per model with
  :func:`wide`, rows keyed by a pairing column or by each model's run order.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

DELIMITERS = (",", ";", "\t", "|")
_SAMPLE_BYTES = 1 << 16
_DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d+,\d+\s*$")


def read_table(file, *, option: str = "FILE") -> pd.DataFrame:
    """A CSV file as a DataFrame, its dialect found as the module says.

    Parameters
    ----------
    file : path
    option : str
        How the caller names the file in messages.

    Returns
    -------
    DataFrame
        With ``attrs['delimiter']`` and ``attrs['decimal']``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from evalmc.sims.tables import read_table
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
    import pandas as pd

    path = Path(file) if file else None
    if path is None or not path.is_file():
        raise ValueError(f"`{option}` must be an existing CSV file; got {str(file)!r}.")
    with open(path, "rb") as handle:
        head = handle.read(_SAMPLE_BYTES)
    try:
        sample = head.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        if len(head) < _SAMPLE_BYTES or err.start < len(head) - 3:  # not a cut multibyte char
            raise ValueError(f"`{option}` {str(file)!r} must be UTF-8 text; byte {err.start} is "
                             f"{head[err.start:err.start + 1]!r}.") from None
        sample = head[:err.start].decode("utf-8-sig")
    lines = [line for line in sample.splitlines() if line.strip()][:20]
    if not lines:
        raise ValueError(f"`{option}` {str(file)!r} is empty; a CSV file of runs needs a header "
                         "row naming its columns.")
    if len(head) == _SAMPLE_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last line of the sample may be cut
    delimiter = _delimiter(lines)
    header = next(csv.reader([lines[0]], delimiter=delimiter))
    names = [name.strip() for name in header]
    seen = set()
    for name in names:
        if name in seen:
            raise ValueError(f"`{option}` {str(file)!r} has the column {name!r} twice; columns "
                             "must have distinct names.")
        seen.add(name)
    cells = [cell for line in lines[1:] for cell in next(csv.reader([line],
                                                                      delimiter=delimiter))]
    decimal = "," if delimiter != "," and any(_DECIMAL_COMMA.match(c) for c in cells) else "."
    try:
        frame = pd.read_csv(path, sep=delimiter, decimal=decimal, encoding="utf-8-sig",
                            skipinitialspace=True, keep_default_na=False,
                            na_values=["", "NA", "NaN", "nan", "N/A", "null"], engine="c")
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise ValueError(f"`{option}` {str(file)!r} is not a readable CSV file (delimiter "
                         f"{delimiter!r}, decimal {decimal!r}): {_first_line(err)}") from None
    frame.columns = names
    frame.attrs.update(delimiter=delimiter, decimal=decimal, file=str(file))
    return frame


def _delimiter(lines: list[str]) -> str:
    """The delimiter that splits the header and the first lines into the same number (at least
    2, the largest) of fields; a comma when none does."""
    best, best_count = ",", 1
    for delimiter in DELIMITERS:
        counts = {len(next(csv.reader([line], delimiter=delimiter))) for line in lines}
        count = min(counts)
        if len(counts) == 1 and count > best_count:
            best, best_count = delimiter, count
    return best


def _first_line(err: Exception) -> str:
    """The first line of an error's message (its type's name if it has none)."""
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


def is_score_column(raw: pd.Series) -> bool:
    """Whether most of the column's filled cells are numbers.

    Parameters
    ----------
    raw : Series
        A column as read.

    Returns
    -------
    bool
        False for a column with no filled cell.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.sims.tables import is_score_column
    >>> bool(is_score_column(pd.Series(["0.9", "0.8", "n/a"])))
    True
    >>> bool(is_score_column(pd.Series(["A", "B"])))
    False
    """
    import pandas as pd

    filled = raw.dropna()
    if filled.empty:
        return False
    return pd.to_numeric(filled, errors="coerce").notna().mean() > 0.5


def score_columns(frame: pd.DataFrame, exclude=()) -> tuple[list, list[str]]:
    """The columns of scores of `frame` (but `exclude`), and the names of the others.

    Parameters
    ----------
    frame : DataFrame
    exclude : iterable
        Columns to leave out of both lists.

    Returns
    -------
    scores : list
        The score columns, in order.
    others : list of str
        The other columns' names.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.sims.tables import score_columns
    >>> frame = pd.DataFrame({"model": ["A", "B"], "seed": [1, 1], "acc": [0.91, 0.89]})
    >>> score_columns(frame, exclude=["seed"])
    (['acc'], ['model'])
    """
    kept = [c for c in frame.columns if c not in exclude]
    scores = [c for c in kept if is_score_column(frame[c])]
    return scores, [str(c) for c in kept if c not in scores]


def only_score_column(frame: pd.DataFrame, *, option: str) -> str:
    """The name of the one column of scores of `frame`, or a ValueError asking for `option`.

    Parameters
    ----------
    frame : DataFrame
    option : str
        How the caller names the column's option in messages.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from evalmc.sims.tables import only_score_column
    >>> only_score_column(pd.DataFrame({"model": ["A", "B"], "acc": [0.91, 0.89]}),
    ...                   option="--column")
    'acc'
    """
    numeric, _ = score_columns(frame)
    if len(numeric) != 1:
        found = f"columns of numbers: {', '.join(map(str, numeric))}" if numeric else "none"
        file = frame.attrs.get("file", "the file")
        raise ValueError(f"`{option}` must name the column of scores in {file!r} ({found}).")
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
    >>> from evalmc.sims.tables import numeric_column
    >>> numeric_column(pd.DataFrame({"acc": [0.91, None]}), "acc", option="--score").tolist()
    [0.91, nan]
    >>> numeric_column(pd.DataFrame({"acc": ["0.91", "high"]}), "acc", option="--score")
    Traceback (most recent call last):
    ...
    ValueError: `--score` column 'acc' must hold finite numbers (an empty cell is a missing \
value); data row 2 has 'high'.
    """
    import pandas as pd

    if column not in frame.columns:
        file = frame.attrs.get("file", "the file")
        raise ValueError(f"`{option}` {column!r} is not a column of {file!r}; its columns: "
                         f"{', '.join(map(str, frame.columns))}.")
    raw = frame[column]
    if frame.attrs.get("decimal") == "," and not pd.api.types.is_numeric_dtype(raw):
        raw = raw.str.replace(",", ".", regex=False)
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero((np.isnan(values) & raw.notna().to_numpy()) | np.isinf(values))
    if bad.size:
        row = int(bad[0])
        held = frame[column].iloc[row]
        raise ValueError(f"`{option}` column {column!r} must hold finite numbers (an empty cell "
                         f"is a missing value); data row {row + 1} has {held!r}.")
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
    >>> from evalmc.sims.tables import key_column
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
    >>> from evalmc.sims.tables import drop_missing
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
    >>> from evalmc.sims.tables import wide
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
    out.attrs.update(frame.attrs, decimal=".", missing=missing)
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
    >>> from evalmc.sims.tables import read_pairs
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
