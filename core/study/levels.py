"""The audit's second cluster level: with nested clusters (``cluster='category/subject'``), is a
procedure's verdict the same when it clusters at the inner level?

A standard error clustered by 14 categories and one clustered by the 91 subjects within them
can give a test of two sizes: too few clusters make the first liberal, a correlation across
the subjects of a category the second. The audit judges the procedures at the outer level
(what cluster-robust procedures cluster on by default); :func:`second_level` runs the
procedures that read the clusters again under the null, on data drawn from the same nested
model (:mod:`evalmc.sims.itemmodel_nested`), each batch clustered by the inner level, and
:func:`level_lines` says where the two verdicts differ, with both sizes.

Decisions of this module:

- **Which procedures**: those whose result on the observed data changes when only the
  clusters do (the same scores in the same order, the same random stream); the others read
  the same law at both levels, and a second estimate of their size would only add noise.
- **Replications**: a quarter of the audit's under the null (:data:`LEVEL_SHARE`; at the
  default 5,300, 1,325, split over the audit's refits of the fit as its null is and rounded
  up: 1,340 over 20; the MCSE of a 5% size at most 0.006), and no alternatives: the second
  level costs about a quarter of the null study of those procedures.
- **A difference** is two different Bradley labels, neither undetermined (``differs``); where
  one level's label is undetermined (the fewer replications tell less) the report says so
  with both sizes, without calling it a difference.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

#: The share of the audit's null replications run at the second level (1 / LEVEL_SHARE).
LEVEL_SHARE = 4


def level_batches(table, a: str, b: str):
    """The observed scores as a batch of one replication clustered at each level, ``(outer,
    inner)``: the same items in the same order (clusters, then subclusters within)."""
    from evalmc.sims.itemmodel_nested import nested_grid
    from evalmc.sims.items import ClusteredBatch

    xa, xb, sizes, sub_sizes, _ = nested_grid(table, a, b)
    s = xa.shape[1]
    return tuple(ClusteredBatch(xa.reshape(1, -1), xb.reshape(1, -1), paired=True,
                                cluster_sizes=k, n_samples=s) for k in (sizes, sub_sizes))


def reads_clusters(crit, outer, inner, seed: int = 0) -> bool:
    """Whether `crit`'s result on batch `outer` changes when only its clusters do (`inner`),
    from one random stream; a procedure that fails on either is taken to read them."""
    out = []
    for batch in (outer, inner):
        rng = np.random.default_rng(np.random.SeedSequence([seed, 5, zlib.crc32(
            crit.key.encode())]))
        try:
            result = crit(batch, rng)
            out.append((result.pvalues()[0], bool(result.decisions(0.05)[0])))
        except Exception:  # noqa: BLE001 - a procedure that fails is audited at both levels
            return True
    (p, r), (q, s) = out
    return not ((p == q or (np.isnan(p) and np.isnan(q))) and r == s)


def second_level(table, base: dict, crits, sizes: pd.DataFrame, *, alpha: float, n_reps: int,
                 run: dict, refits: int = 0) -> pd.DataFrame:
    """The sizes of the procedures that read the clusters, clustered at the inner level, beside
    theirs at the outer level.

    Parameters
    ----------
    table : DataFrame
        Item-level results with nested clusters (:func:`~evalmc.inputs.nested.read_levels`).
    base : dict
        The ``item-model`` scenario's parameters, ``cluster`` naming both levels.
    crits : sequence
        The audit's procedures.
    sizes : DataFrame
        Their sizes at the outer level (the audit's ``sizes``).
    alpha : float
        The level.
    n_reps : int
        Replications under the null at the inner level.
    run : dict
        Seed, workers, backend, cache and progress, as the audit's studies take them.
    refits : int
        As the audit's null: `n_reps` split over this many refits of the fit (rounded up) and
        pooled (:func:`~evalmc.study.refits.pool_summary`); 0, the fit alone.

    Returns
    -------
    DataFrame
        Per procedure that reads the clusters: ``procedure``, ``outer`` and ``inner`` (the
        levels' names), ``clusters_outer``, ``clusters_inner``, ``size_outer``,
        ``mcse_outer``, ``bradley_outer``, ``size_inner``, ``mcse_inner``, ``bradley_inner``,
        ``n_reps_inner`` and ``differs`` (the labels differ).

    Examples
    --------
    See ``tests/test_audit_levels.py``, which audits a file with categories and subjects.
    """
    from evalmc.study.rates import run_study

    outer, inner = level_batches(table, base["a"], base["b"])
    chosen = [c for c in crits if reads_clusters(c, outer, inner, run.get("seed", 0))]
    columns = ["procedure", "outer", "inner", "clusters_outer", "clusters_inner",
               "size_outer", "mcse_outer", "bradley_outer", "size_inner", "mcse_inner",
               "bradley_inner", "n_reps_inner", "differs"]
    if not chosen:
        return pd.DataFrame(columns=columns)
    grid, options = {**base, "delta": [0.0], "level": ["inner"]}, dict(run)
    if refits:  # as the audit's null: each refit may fail alone, the pooled failures checked
        grid.update(refit=list(range(1, refits + 1)), refit_seed=[run["seed"]])
        n_reps, options["max_failure_rate"] = -(-n_reps // refits), 1.0
    summary = run_study(grid, "item-model", chosen, n_reps=n_reps, alpha=alpha,
                        **options).summary
    if refits:
        from evalmc.engine.options import MAX_FAILURE_RATE
        from evalmc.study.refits import check_failures, pool_summary

        check_failures(summary, "criterion", MAX_FAILURE_RATE)
        summary = pool_summary(summary, ["criterion", "alpha"], {"rate": "mcse"})
    rows = summary[np.isclose(summary["alpha"], alpha)].set_index("criterion")
    at_outer = sizes.set_index("procedure")
    names = table.attrs.get("cluster"), table.attrs.get("subcluster")
    out = []
    for crit in chosen:
        o, i = at_outer.loc[crit.name], rows.loc[crit.name]
        out.append({"procedure": crit.name, "outer": names[0], "inner": names[1],
                    "clusters_outer": len(outer.cluster_sizes),
                    "clusters_inner": len(inner.cluster_sizes),
                    "size_outer": float(o["rate"]), "mcse_outer": float(o["mcse"]),
                    "bradley_outer": o["bradley"], "size_inner": float(i["rate"]),
                    "mcse_inner": float(i["mcse"]), "bradley_inner": i["bradley"],
                    "n_reps_inner": int(i["n_reps"]),
                    "differs": o["bradley"] != i["bradley"]
                    and "undetermined" not in (o["bradley"], i["bradley"])})
    return pd.DataFrame(out, columns=columns)


def level_lines(levels: pd.DataFrame) -> list[str]:
    """The report's lines on the second level: one per procedure whose Bradley label differs
    between the levels, with both sizes (a label undetermined at either level said as such),
    or one line saying that none does (none at all without procedures).

    Parameters
    ----------
    levels : DataFrame
        From :func:`second_level`.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import pandas as pd
    >>> row = {"procedure": "clustered-z", "outer": "category", "inner": "subject",
    ...        "clusters_outer": 14, "clusters_inner": 91, "size_outer": 0.083,
    ...        "mcse_outer": 0.0038, "bradley_outer": "liberal", "size_inner": 0.063,
    ...        "mcse_inner": 0.0067, "bradley_inner": "robust", "n_reps_inner": 1325,
    ...        "differs": True}
    >>> print(level_lines(pd.DataFrame([row]))[0])  # doctest: +NORMALIZE_WHITESPACE
    clustered-z: liberal clustered by category (14 clusters; size 0.0830, MCSE 0.0038), robust
    by subject (91 clusters; size 0.0630, MCSE 0.0067, 1325 replications): its verdict depends
    on the level it clusters at.
    """
    if levels.empty:
        return []
    lines = []
    for _, r in levels[levels["bradley_outer"] != levels["bradley_inner"]].iterrows():
        what = ("its verdict depends on the level it clusters at" if r["differs"] else
                "more replications would tell whether its verdict depends on the level")
        lines.append(f"{r['procedure']}: {r['bradley_outer']} clustered by {r['outer']} "
                     f"({r['clusters_outer']} clusters; size {r['size_outer']:.4f}, MCSE "
                     f"{r['mcse_outer']:.4f}), {r['bradley_inner']} by {r['inner']} "
                     f"({r['clusters_inner']} clusters; size {r['size_inner']:.4f}, MCSE "
                     f"{r['mcse_inner']:.4f}, {r['n_reps_inner']} replications): {what}.")
    if not lines:
        first = levels.iloc[0]
        lines.append(f"Clustered by {first['inner']} ({first['clusters_inner']} clusters, "
                     f"{first['n_reps_inner']} replications) instead of {first['outer']}, no "
                     f"procedure's verdict changes ({', '.join(levels['procedure'])}).")
    return lines


def level_note(levels: pd.DataFrame, procedure: str | None) -> str:
    """What the recommendation adds when the recommended `procedure`'s Bradley label differs at
    the inner level: the level to cluster it at ('' when nothing is to add).

    Parameters
    ----------
    levels : DataFrame
        From :func:`second_level`.
    procedure : str or None
        The recommended procedure.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> levels = pd.DataFrame([{"procedure": "cr2-bm", "outer": "category", "inner": "subject",
    ...                         "size_inner": 0.2936, "mcse_inner": 0.0125,
    ...                         "bradley_inner": "liberal", "bradley_outer": "robust"}])
    >>> print(level_note(levels, "cr2-bm").strip())  # doctest: +NORMALIZE_WHITESPACE
    Clustered by subject instead, it is liberal (size 0.2936, MCSE 0.0125): cluster it by
    category.
    """
    if levels.empty or procedure is None or procedure not in set(levels["procedure"]):
        return ""
    row = levels.set_index("procedure").loc[procedure]
    if row["bradley_inner"] == row["bradley_outer"]:
        return ""
    return (f" Clustered by {row['inner']} instead, it is {row['bradley_inner']} (size "
            f"{row['size_inner']:.4f}, MCSE {row['mcse_inner']:.4f}): cluster it by "
            f"{row['outer']}.")
