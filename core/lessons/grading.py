"""Grade a student's own test on a lesson's study: its size and power beside the references'."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from evalmc.inputs.checks import check_choice, check_int
from evalmc.lessons import LESSONS, get_lesson
from evalmc.lessons.base import SCALES


@dataclass(frozen=True)
class GradeResult:
    """A student's test judged on a lesson: the table, the verdict and its reason.

    Attributes
    ----------
    lesson : str
    criterion : str
        The student's test's name.
    table : DataFrame
        ``criterion``, ``role`` (student or reference), ``size``, ``size_mcse``, ``power``,
        ``power_mcse``, ``n_reps``.
    passed : bool
    reason : str
        Why it passed or failed, in one sentence.
    """

    lesson: str
    criterion: str
    table: pd.DataFrame
    passed: bool
    reason: str


def grade(name: str, criterion, *, scale: str = "class", seed: int = 0,
          n_jobs: int = 1) -> GradeResult:
    """Run lesson `name`'s grading study on `criterion` and the lesson's reference tests.

    The test passes when its size lies in Bradley's liberal band ``[alpha/2, 3 alpha/2]`` and
    its power is at least the best reference's (among those whose size is in the band) minus
    the lesson's margin (0.05).

    Parameters
    ----------
    name : str
        A lesson with a grading rule (``evalmc lesson list`` marks them).
    criterion : str or callable
        The student's test: ``'file.py:function'`` or a callable ``f(a, b)`` returning a
        p-value or a decision (:func:`evalmc.get_criterion`).
    scale : {'class', 'full'}
    seed : int
    n_jobs : int

    Returns
    -------
    GradeResult

    Examples
    --------
    >>> from scipy import stats
    >>> from evalmc.lessons.grading import grade
    >>> def pooled(a, b, axis=-1):  # vectorized: called once per block of replications
    ...     return stats.ttest_ind(a, b, axis=axis).pvalue
    >>> res = grade("student-t", pooled)
    >>> res.passed, res.reason
    (False, 'size 0.262 is outside [0.025, 0.075].')
    """
    from evalmc.criteria import get_criterion
    from evalmc.study.calibration import calibrate

    check_choice("scale", scale, SCALES)
    seed = check_int("seed", seed, low=0)
    if not LESSONS.entry(name).facts["grades"]:
        graded = ", ".join(n for n, e in LESSONS.items() if e.facts["grades"])
        raise ValueError(f"lesson {name!r} has no grading rule; lessons that grade a test: "
                         f"{graded}.")
    rule = get_lesson(name).grading
    student = get_criterion(criterion)
    refs = [get_criterion(r) for r in rule.references]
    res = calibrate(rule.scenario, [student, *refs], params=rule.conditions(),
                    n_reps=rule.n_reps[scale], alpha=rule.alpha, seed=seed, n_jobs=n_jobs,
                    progress=False)
    summary = res.summary
    param, null, _ = rule.vary
    rows = []
    for crit in [student, *refs]:
        mine = summary[summary["criterion"] == crit.name]
        at_null = mine[mine[param] == null].iloc[0]
        at_alt = mine[mine[param] != null].iloc[0]
        rows.append({"criterion": crit.name, "role": "student" if crit is student else
                     "reference", "size": at_null["rate"], "size_mcse": at_null["mcse"],
                     "power": at_alt["rate"], "power_mcse": at_alt["mcse"],
                     "n_reps": int(at_null["n_reps"])})
    table = pd.DataFrame(rows)
    passed, reason = _verdict(table, rule.alpha, rule.power_margin)
    return GradeResult(name, student.name, table, passed, reason)


def _verdict(table: pd.DataFrame, alpha: float, margin: float) -> tuple[bool, str]:
    low, high = alpha / 2, 3 * alpha / 2
    mine = table.iloc[0]
    if not low <= mine["size"] <= high:
        return False, f"size {mine['size']:.3f} is outside [{low:.3f}, {high:.3f}]."
    refs = table[(table["role"] == "reference") & table["size"].between(low, high)]
    if refs.empty:
        return True, f"size {mine['size']:.3f} is inside [{low:.3f}, {high:.3f}]."
    best = refs.loc[refs["power"].idxmax()]
    if mine["power"] < best["power"] - margin:
        return False, (f"power {mine['power']:.3f} is below {best['criterion']}'s "
                       f"{best['power']:.3f} minus {margin:g}.")
    return True, (f"size {mine['size']:.3f} is inside [{low:.3f}, {high:.3f}] and power "
                  f"{mine['power']:.3f} is within {margin:g} of {best['criterion']}'s "
                  f"{best['power']:.3f}.")
