"""An audit as one Markdown file (``evalmc audit --report FILE.md``): its tables, verdicts and
recommendation, and its figure written beside it as a PNG and linked; for several models the
pairs' table first, then each pair's audit."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd


def write_markdown(result, path) -> str:
    """Write `result` to the Markdown file `path`, its figures beside it.

    Parameters
    ----------
    result : AuditResult or AuditModelsResult
        An audit (:func:`~evalmc.study.audit.audit`), or several models'
        (:func:`~evalmc.study.audit_models.audit_models`).
    path : path
        The ``.md`` file. One audit's figure is ``<name>.png`` beside it; pair k's of several
        models, ``<name>-<k>.png``.

    Returns
    -------
    str
        The Markdown written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import evalmc
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "items.csv").write_text("model,item,score\\n" + "".join(
    ...     f"{m},{i},{int((i * 7 + (m == 'x')) % 3 > 0)}\\n" for m in "xy" for i in range(60)))
    >>> result = evalmc.audit(folder / "items.csv", "x", "y", criteria=["paired-items"],
    ...                       estimators=[], n_reps=200, n_reps_alt=100, progress=False)
    >>> text = write_markdown(result, folder / "audit.md")
    >>> text.splitlines()[0], "![" in text, (folder / "audit.png").exists()
    ('# evalmc audit: x against y', True, True)
    """
    path = os.fspath(path)
    stem = os.path.splitext(path)[0]
    if hasattr(result, "pairs"):
        lines = _models(result, stem)
    else:
        lines = [f"# evalmc audit: {result.data['a']} against {result.data['b']}", "",
                 *_audit(result, f"{stem}.png", "##")]
    text = "\n".join(lines) + "\n"
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    return text


def _models(result, stem) -> list[str]:
    """The pairs' tables, then each pair's audit (figure ``<stem>-<k>.png``)."""
    report = result.report().split("\n")
    lines = [f"# evalmc audit: {', '.join(result.models)}", "", report[0], "", report[1], "",
             markdown_table(result.shown()), "",
             "Each procedure's p on your data, Holm-adjusted over the pairs (a procedure that "
             "does not hold its level on a pair's data is no evidence there: see its verdicts):",
             "", markdown_table(result._adjusted_wide()), ""]
    for k, ((a, b), audit) in enumerate(result.pairs.items(), start=1):
        lines += [f"## Pair {k}: {a} against {b}", "", *_audit(audit, f"{stem}-{k}.png", "###")]
    return lines


def _audit(result, figure, level) -> list[str]:
    """One audit's sections at heading `level`, its figure saved to `figure` and linked."""
    d, s = result.data, result.settings
    head = result.report().split("\n")[:2]
    result.plot().savefig(figure, dpi=120)
    lines = [*head[:1], "", *head[1:], "",
             f"{level} Recommendation", "", result.recommendation.get("line", "-"), "",
             f"![size, power and coverage of each procedure on data like "
             f"{d['a']} against {d['b']}]({os.path.basename(figure)})", "",
             f"{level} Procedures", "",
             f"At alpha = {s['alpha']}: size under the null ({s['n_reps']} replications), "
             f"power when A leads by delta ({s['n_reps_alt']} each; correct sign in brackets), "
             "minimum detectable difference (MDD) at 80% power, p on your data:", "",
             markdown_table(result._procedure_table()), "",
             f"{level} Intervals of A - B", "",
             f"At their nominal level, under the null ({s['n_reps']} replications), and on "
             "your data:", "", markdown_table(result._interval_table()), "",
             f"{level} Verdicts", "", *(f"- {line}" for line in result.verdicts["line"]), "",
             f"{level} The fitted model", "",
             "Its parameters (latent scale, one score's variance 1):", "",
             markdown_table(result.fit), "",
             "Each statistic of the data beside data simulated from the fit (sd: its spread "
             "over simulated data sets):", "", markdown_table(result.faithfulness), ""]
    return lines


def markdown_table(frame: pd.DataFrame) -> str:
    """`frame` as a Markdown pipe table (numbers to 6 significant digits, missing as ``-``).

    Parameters
    ----------
    frame : DataFrame

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> print(markdown_table(pd.DataFrame({"name": ["a|b"], "value": [1 / 3]})))
    | name | value |
    | --- | --- |
    | a\\|b | 0.333333 |
    """
    def cell(value) -> str:
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return "-"
        text = f"{value:.6g}" if isinstance(value, (float, np.floating)) else str(value)
        return text.replace("|", "\\|")
    rows = [[str(c) for c in frame.columns], ["---"] * len(frame.columns),
            *([cell(v) for v in row] for row in frame.itertuples(index=False))]
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)
