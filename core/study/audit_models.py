"""Audit every pair of several models in one file, the p-values Holm-adjusted over the pairs.

Each pair is audited on its own (:func:`~evalmc.study.audit.audit`): its data differ from the
other pairs', so it gets its own fit, its own simulations and its own recommended procedure.
The family of hypotheses is "A and B score alike" over the pairs: the recommended procedure's
p-value of each pair is adjusted by Holm over all the pairs (a pair where no procedure holds its
level has no test, and counts in the family as a hypothesis not rejected, so it still costs the
others their share of alpha), and each pair's conclusion is read from its adjusted p.
Each procedure's own p-values are adjusted over the pairs too (:attr:`AuditModelsResult.adjusted`).
The intervals are each pair's own 95% intervals, not adjusted.

A resampling p-value below its resolution 1/B prints as ``< 1/B``
(:func:`~evalmc.study.pvalues.format_p`); its adjusted p prints as ``< `` the Holm-adjusted
value with 1/B in its place, a bound the adjusted p-value is below.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalmc.study.audit import AuditResult, audit
from evalmc.study.pvalues import format_p


@dataclass(frozen=True)
class AuditModelsResult:
    """What :func:`audit_models` found: a row per pair, and each pair's audit.

    Attributes
    ----------
    models : list of str
        The models, in the order given; pair (A, B) has A before B.
    pairs : dict of (str, str) to AuditResult
        Each pair's audit.
    table : DataFrame
        Per pair: ``a``, ``b``, the recommended ``procedure`` (None when none holds its
        level), its ``estimate`` of A - B (the observed difference of means without one), its
        ``interval`` with ``low`` and ``high``, its ``pvalue`` and ``resamples``, ``p_holm``
        (adjusted over all pairs, an untested one counted as p = 1) and the ``conclusion`` read from
        ``p_holm``.
    adjusted : DataFrame
        Per pair and procedure audited: ``pvalue`` on the data and ``p_holm``, adjusted over
        the pairs for that procedure.
    settings : dict
        ``alpha`` and the file.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import evalmc
    >>> path = Path(tempfile.mkdtemp()) / "items.csv"
    >>> _ = path.write_text("model,item,score\\n" + "".join(
    ...     f"{m},{i},{int((i * 7 + 'xyz'.index(m)) % 3 > 0)}\\n" for m in "xyz"
    ...     for i in range(60)))
    >>> result = evalmc.audit_models(path, ["x", "y", "z"], criteria=["paired-items"],
    ...                              estimators=[], n_reps=200, n_reps_alt=100, progress=False)
    >>> result.table[["a", "b"]].values.tolist()
    [['x', 'y'], ['x', 'z'], ['y', 'z']]
    """

    models: list
    pairs: dict
    table: pd.DataFrame
    adjusted: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def report(self) -> str:
        """The pairs' table in words, as ``evalmc audit --models`` prints it.

        Returns
        -------
        str

        Examples
        --------
        See :class:`AuditModelsResult`.
        """
        s = self.settings
        lines = [
            f"evalmc audit {s['file']}: {len(self.models)} models, {len(self.table)} pairs, "
            "each pair audited on data simulated like its own.",
            "Per pair, the procedure the audit recommends (the most powerful that holds its "
            "level), its estimate of A - B and interval (95%, unadjusted), its p on your data "
            f"and Holm's adjusted p over all {_pairs(len(self.table))} (a pair without a procedure "
            "that holds its level counts as not rejected); the "
            f"conclusion at alpha = {s['alpha']:g} is read from the adjusted p:",
            _table(self.shown()),
            "",
            "Each procedure's p on your data, Holm-adjusted over the pairs (a procedure that "
            "does not hold its level on a pair's data is no evidence there: see its verdicts):",
            _table(self._adjusted_wide()),
            "",
            "Each pair's recommendation:",
            *(f"- {a} - {b}: {r.recommendation.get('line', '-')}"
              for (a, b), r in self.pairs.items()),
        ]
        return "\n".join(lines)

    def shown(self) -> pd.DataFrame:
        """The pairs' table as printed: p-values below their resolution as ``< 1/B``.

        Returns
        -------
        DataFrame

        Examples
        --------
        See :class:`AuditModelsResult`.
        """
        t = self.table
        bounds = _holm_shown(t["pvalue"].to_numpy(float), t["resamples"], t["p_holm"])
        interval = [("-" if pd.isna(name) or np.isnan(low) else
                     f"{name} [{low:.4g}, {high:.4g}]")
                    for name, low, high in zip(t["interval"], t["low"], t["high"], strict=True)]
        return pd.DataFrame({
            "pair": t["a"] + " - " + t["b"],
            "procedure": t["procedure"].fillna("-"),
            "estimate A - B": [f"{e:+.4f}" for e in t["estimate"]],
            "interval": interval,
            "p": [format_p(p, r) for p, r in zip(t["pvalue"], t["resamples"], strict=True)],
            "Holm p": bounds,
            "conclusion": t["conclusion"]})

    def _adjusted_wide(self) -> pd.DataFrame:
        frame = self.adjusted.copy()
        frame["pair"] = frame["a"] + " - " + frame["b"]
        shown = {}
        for name, rows in frame.groupby("procedure", sort=False):
            shown[name] = dict(zip(rows["pair"], _holm_shown(
                rows["pvalue"].to_numpy(float), rows["resamples"], rows["p_holm"]), strict=True))
        pairs = list(dict.fromkeys(frame["pair"]))
        return pd.DataFrame([{"procedure": name, **{p: cells.get(p, "-") for p in pairs}}
                             for name, cells in shown.items()])

    def to_dict(self) -> dict:
        """The tables as lists of records, with each pair's audit (for ``--format json``).

        Returns
        -------
        dict

        Examples
        --------
        See :class:`AuditModelsResult`.
        """
        def records(frame):
            return frame.astype(object).where(frame.notna(), None).to_dict("records")
        return {"models": list(self.models), "settings": self.settings,
                "table": records(self.table), "adjusted": records(self.adjusted),
                "pairs": [{"a": a, "b": b, **r.to_dict()} for (a, b), r in self.pairs.items()]}

    def markdown(self, path) -> str:
        """Write the pairs' tables and each pair's audit, with its figure, as Markdown.

        Parameters
        ----------
        path : path
            The ``.md`` file; pair k's figure is written beside it as ``<name>-<k>.png``.

        Returns
        -------
        str
            The Markdown written.

        Examples
        --------
        See :func:`evalmc.study.audit_markdown.write_markdown`.
        """
        from evalmc.study.audit_markdown import write_markdown

        return write_markdown(self, path)


def audit_models(path, models, *, alpha: float = 0.05, **options) -> AuditModelsResult:
    """Audit every pair of `models`, each on its own fit, the p-values Holm-adjusted over the pairs.

    Parameters
    ----------
    path : path or sequence of paths
        Item-level results, as :func:`~evalmc.study.audit.audit` reads them.
    models : sequence of str
        At least two distinct models; each pair (A, B) keeps their order.
    alpha : float
        The level of every procedure, and of the conclusions from the adjusted p-values.
    **options
        The other arguments of :func:`~evalmc.study.audit.audit` (metric, cluster, criteria,
        n_reps, seed, ...), the same for every pair. Each pair's simulations have their own
        streams: its scenario's condition differs by the models.

    Returns
    -------
    AuditModelsResult

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> import evalmc
    >>> rng = np.random.default_rng(1)
    >>> skill = rng.normal(0, 1, 200)
    >>> rows = ["model,item,score"] + [
    ...     f"{m},{i},{int(skill[i] + rng.normal(0, 1) > {'x': -0.4, 'y': 0, 'z': 0.1}[m])}"
    ...     for m in "xyz" for i in range(200)]
    >>> path = Path(tempfile.mkdtemp()) / "items.csv"
    >>> _ = path.write_text("\\n".join(rows) + "\\n")
    >>> result = evalmc.audit_models(path, ["x", "y", "z"], criteria=["paired-items"],
    ...                              estimators=["paired-z-interval"], n_reps=1500,
    ...                              n_reps_alt=100, progress=False)
    >>> result.shown()[["pair", "p", "Holm p", "conclusion"]]
        pair          p     Holm p           conclusion
    0  x - y     0.3112     0.3112  no difference shown
    1  x - z  0.0001443  0.0004329             x better
    2  y - z    0.01159    0.02319             y better
    """
    from evalmc.criteria.ranks import holm
    from evalmc.inputs.checks import check_float

    models = list(models) if not isinstance(models, str) else [models]
    if len(models) < 2 or len(set(models)) < len(models):
        raise ValueError(f"`models` must name at least 2 distinct models; got {models}.")
    alpha = check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    pairs = {(a, b): audit(path, a, b, alpha=alpha, **options)
             for a, b in itertools.combinations(models, 2)}
    table = pd.DataFrame([_row(a, b, r) for (a, b), r in pairs.items()])
    table["p_holm"] = _holm_over(table["pvalue"].to_numpy(float), holm)
    table["conclusion"] = [_conclusion(row, alpha) for _, row in table.iterrows()]
    adjusted = pd.concat([r.observed.loc[r.observed["kind"] == "procedure",
                                         ["name", "pvalue", "resamples"]].assign(a=a, b=b)
                          for (a, b), r in pairs.items()], ignore_index=True)
    adjusted = adjusted.rename(columns={"name": "procedure"})[
        ["a", "b", "procedure", "pvalue", "resamples"]]
    adjusted["p_holm"] = np.nan
    for _, rows in adjusted.groupby("procedure", sort=False):
        adjusted.loc[rows.index, "p_holm"] = _holm_over(rows["pvalue"].to_numpy(float), holm)
    first = next(iter(pairs.values()))
    return AuditModelsResult(models, pairs, table, adjusted,
                             {"alpha": alpha, "file": first.data["file"]})


def _row(a, b, result: AuditResult) -> dict:
    """A pair's row: its recommended procedure's estimate, interval and p-value."""
    answer = result.recommendation
    name = answer.get("procedure")
    observed = result.observed.set_index("name")
    estimate = (float(observed.loc[name, "estimate"]) if name is not None
                else result.data["difference"])
    if np.isnan(estimate):  # a procedure without its own estimate: the difference of means
        estimate = result.data["difference"]
    return {"a": a, "b": b, "procedure": name, "estimate": estimate,
            "interval": answer.get("interval") if name is not None else None,
            "low": answer.get("low", np.nan), "high": answer.get("high", np.nan),
            "pvalue": answer.get("pvalue", np.nan) if name is not None else np.nan,
            "resamples": observed.loc[name, "resamples"] if name is not None else pd.NA}


def _holm_over(p, holm) -> np.ndarray:
    """Holm's adjusted `p` over every pair; a pair without a p-value (NaN) still counts in the
    family, as a hypothesis not rejected (p = 1), and its adjusted p stays NaN."""
    untested = np.isnan(p)
    out = np.asarray(holm(np.where(untested, 1.0, p)), float) if p.size else p.astype(float)
    out[untested] = np.nan
    return out


def _holm_shown(p, resamples, adjusted) -> list[str]:
    """The adjusted p-values as text: where a raw p below its resolution 1/B moves Holm's
    value when put at 1/B, ``< `` that bound, else the value."""
    from evalmc.criteria.ranks import holm

    floors = np.array([1 / r if not pd.isna(r) else 0.0 for r in resamples])
    bound = _holm_over(np.where(p < floors, floors, p), holm)
    adjusted = np.asarray(adjusted, float)
    return ["-" if np.isnan(x) else (f"< {u:.4g}" if u > x else f"{x:.4g}")
            for x, u in zip(adjusted, bound, strict=True)]


def _conclusion(row, alpha) -> str:
    """What the pair's Holm-adjusted p says at level `alpha`."""
    if pd.isna(row["procedure"]):
        return "no procedure holds its level"
    if row["p_holm"] < alpha:
        return f"{row['a'] if row['estimate'] > 0 else row['b']} better"
    return "no difference shown"


def _pairs(n: int) -> str:
    return "1 pair" if n == 1 else f"{n} pairs"


def _table(frame: pd.DataFrame) -> str:
    return frame.to_string(index=False)
