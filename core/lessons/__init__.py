"""Lessons: each classic pitfall of evaluation as one small study, one figure and one page.

``LESSONS`` (:mod:`evalmc.lessons.registry`) is the registry of the lessons, one row each; like
every registry it imports no numerical library, so ``evalmc lesson list`` starts at once. A
lesson is a :class:`~evalmc.lessons.base.Lesson` (:mod:`evalmc.lessons.base`), run and written by
:func:`~evalmc.lessons.runner.lesson`; :func:`~evalmc.lessons.grading.grade` judges a
student's own test on a lesson's study.
"""

from __future__ import annotations

from evalmc.lessons.registry import LESSONS

__all__ = ["LESSONS", "get_lesson"]


def get_lesson(name: str):
    """The lesson called `name`, or a ValueError listing the valid names.

    Parameters
    ----------
    name : str
        A name of :data:`LESSONS`.

    Returns
    -------
    Lesson

    Examples
    --------
    >>> from evalmc.lessons import get_lesson
    >>> get_lesson("student-t").id
    'student-t'
    """
    return LESSONS.entry(name).load()
