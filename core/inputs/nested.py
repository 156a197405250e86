"""Nested clusters of items: ``cluster='category/subject'``, subjects within categories.

A benchmark often groups its items at two levels (MMLU-Pro's 14 categories and the subjects
within them), and a standard error clustered at one level or at the other can give a test of
another size. :func:`read_levels` reads both: ``cluster='outer/inner'`` names the outer
level's column (or field) and the inner one's, as lme4 writes ``(1 | outer/inner)``; the
table's ``cluster`` column holds the outer level, which is what cluster-robust procedures
cluster on, and its ``subcluster`` column the inner one.

Decisions of this module:

- **An inner cluster is a pair (outer, inner)**: the same inner label under two outer
  clusters names two clusters, as lme4's ``outer/inner`` means ``outer + outer:inner``, so the
  inner clusters nest in the outer ones by construction and nothing is refused for it.
- **Each level is read as a cluster of its own** (:func:`~evalmc.inputs.itemlogs.read_items`
  twice): an item in two clusters of one level is refused as it is with one level, and a
  missing label is the item itself, at either level.
- Two levels at most; a ``/`` in a name always separates levels.
"""

from __future__ import annotations

from evalmc.inputs import itemlogs

#: What separates the outer level's name from the inner one's in ``cluster``.
SEPARATOR = "/"


def split_levels(cluster: str | None) -> tuple[str | None, str | None]:
    """The outer and inner levels named by `cluster` (the inner None for one level).

    Parameters
    ----------
    cluster : str or None
        ``'outer/inner'``, one name, or None.

    Returns
    -------
    tuple

    Examples
    --------
    >>> split_levels("category/subject"), split_levels("subject"), split_levels(None)
    (('category', 'subject'), ('subject', None), (None, None))
    """
    if not cluster or SEPARATOR not in cluster:
        return cluster or None, None
    parts = [p.strip() for p in cluster.split(SEPARATOR)]
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"`cluster` must be one column or two nested ones, 'outer{SEPARATOR}"
                         f"inner' (e.g. 'category{SEPARATOR}subject'); got {cluster!r}.")
    return parts[0], parts[1]


def read_levels(path, *, cluster: str | None = None, **kwargs):
    """:func:`~evalmc.inputs.itemlogs.read_items`, with nested clusters when `cluster` is
    ``'outer/inner'``.

    Parameters
    ----------
    path : path or sequence of paths
        As :func:`~evalmc.inputs.itemlogs.read_items` takes it.
    cluster : str, optional
        One level, or two nested ones ``'outer/inner'``.
    **kwargs
        The other arguments of :func:`~evalmc.inputs.itemlogs.read_items`.

    Returns
    -------
    DataFrame
        :func:`~evalmc.inputs.itemlogs.read_items`' table; with two levels its ``cluster``
        column is the outer level's, a ``subcluster`` column holds the inner level's labels
        (an inner cluster is the pair of both), ``attrs['cluster']`` names the outer level
        and ``attrs['subcluster']`` the inner one.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "items.csv"
    >>> _ = path.write_text("model,item,category,subject,score\\n" + "".join(
    ...     f"{m},{i},{'stem' if i < 4 else 'arts'},{'s' + str(i // 2)},{(i + len(m)) % 2}\\n"
    ...     for m in ("x", "yy") for i in range(6)))
    >>> table = read_levels(path, cluster="category/subject")
    >>> print(table[table["model"] == "x"][["item", "cluster", "subcluster"]].to_string(
    ...     index=False))
    item cluster subcluster
       0    stem         s0
       1    stem         s0
       2    stem         s1
       3    stem         s1
       4    arts         s2
       5    arts         s2
    >>> table.attrs["cluster"], table.attrs["subcluster"]
    ('category', 'subject')
    """
    outer, inner = split_levels(cluster)
    table = itemlogs.read_items(path, cluster=outer, **kwargs)
    if inner is None:
        return table
    below = itemlogs.read_items(path, cluster=inner, **kwargs)
    keys = ["model", "item", "sample"]
    if not table[keys].reset_index(drop=True).equals(below[keys].reset_index(drop=True)):
        raise ValueError(f"`cluster` {cluster!r}: reading the clusters {outer!r} and "
                         f"{inner!r} gave different rows.")  # pragma: no cover - one reader
    table = table.copy()
    table["subcluster"] = below["cluster"].to_numpy()
    table.attrs.update(below.attrs)
    table.attrs.update(cluster=outer, subcluster=inner)
    return table
