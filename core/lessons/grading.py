"""Grade a student's own test on a lesson's study: its size and power beside the references'."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from evalmc.engine.scheduler import StudyError
from evalmc.inputs.checks import check_choice, check_float, check_int
from evalmc.lessons import LESSONS, get_lesson
from evalmc.lessons.base import SCALES

#: Seconds each call of the student's test may take, by default.
TIMEOUT = 10.0


class GradeStopped(StudyError):
    """Grading stopped on the student's test, which it names: a call did not return within the
    time limit, its worker process ended, or it failed on too many replications."""


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
          n_jobs: int = 1, timeout: float = TIMEOUT) -> GradeResult:
    """Run lesson `name`'s grading study on `criterion` and the lesson's reference tests.

    The test passes when its size lies in Bradley's liberal band ``[alpha/2, 3 alpha/2]`` and
    its power is at least the best reference's (among those whose size is in the band) minus
    the lesson's margin (0.05).

    A student's function runs in a worker process of its own (one per worker of `n_jobs`),
    each call within `timeout` seconds: a call that takes longer stops the grading with
    :class:`GradeStopped` naming the test, and its worker is killed, as on Ctrl-C. The results
    are those of the function called here.

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
    timeout : float
        Seconds each call of the student's function may take (default 10; a vectorized one
        is called once per block of replications, another once per replication).

    Returns
    -------
    GradeResult

    Raises
    ------
    GradeStopped
        When a call does not return within `timeout`, its worker process ends, or the test
        fails (raises, or answers other than a p-value or a decision) on too many
        replications; the message names the test.

    Examples
    --------
    >>> from scipy import stats
    >>> from evalmc.lessons.grading import grade
    >>> def pooled(a, b, axis=-1):  # vectorized: called once per block of replications
    ...     return stats.ttest_ind(a, b, axis=axis).pvalue
    >>> res = grade("student-t", pooled)
    >>> res.passed, res.reason
    (False, 'size 0.262 is outside [0.025, 0.075].')
    >>> import time
    >>> def stuck(a, b):  # never returns
    ...     time.sleep(3600)
    >>> grade("student-t", stuck, timeout=1)
    Traceback (most recent call last):
    ...
    evalmc.lessons.grading.GradeStopped: the student's test 'stuck' did not return within 1 s \
on lesson 'student-t'; its worker process was stopped (`timeout` sets the limit of each call).
    """
    check_choice("scale", scale, SCALES)
    seed = check_int("seed", seed, low=0)
    timeout = check_float("timeout", timeout, low=0, open_low=True)
    if not LESSONS.entry(name).facts["grades"]:
        graded = ", ".join(n for n, e in LESSONS.items() if e.facts["grades"])
        raise ValueError(f"lesson {name!r} has no grading rule; lessons that grade a test: "
                         f"{graded}.")
    from evalmc.criteria import get_criterion

    rule = get_lesson(name).grading
    student = get_criterion(criterion)
    refs = [get_criterion(r) for r in rule.references]
    summary = _run(name, rule, student, refs, scale=scale, seed=seed, n_jobs=n_jobs,
                   timeout=timeout)
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


def _run(name, rule, student, refs, *, scale, seed, n_jobs, timeout):
    """The grading study's summary, a user's function called in worker processes within
    `timeout`; GradeStopped naming the student's test when it times out or fails."""
    from evalmc.criteria.base import UserCriterion
    from evalmc.lessons.timed import CallStopped, TimedFunction
    from evalmc.study.calibration import calibrate

    timed = TimedFunction(student.func, timeout) if isinstance(student, UserCriterion) else None
    runs = student
    if timed is not None:  # the same criterion, its stream and results too: only called there
        runs = dataclasses.replace(student, func=timed)
        runs.__dict__["key"] = student.key
    try:  # threads here, each waiting on its worker process
        return calibrate(rule.scenario, [runs, *refs], params=rule.conditions(),
                         n_reps=rule.n_reps[scale], alpha=rule.alpha, seed=seed, n_jobs=n_jobs,
                         backend="threads", progress=False).summary
    except CallStopped as stop:
        killed = ("; its worker process was stopped (`timeout` sets the limit of each call)"
                  if stop.timed_out else "")
        raise GradeStopped(f"the student's test {student.name!r} {stop} on lesson "
                           f"{name!r}{killed}.", criterion=student.name) from None
    except StudyError as err:
        if err.criterion != student.name or isinstance(err, GradeStopped):
            raise
        raise GradeStopped(f"the student's test {student.name!r} failed in {err.failed} of "
                           f"{err.done} replications on lesson {name!r}; first error: "
                           f"{err.first}.", criterion=student.name, failed=err.failed,
                           done=err.done, first=err.first) from None
    finally:
        if timed is not None:
            timed.close()


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
