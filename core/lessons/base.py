"""What a lesson is: a question, a small study, its headline number and the page's words.

A lesson's study is a function ``compute(n_reps, seed, n_jobs) -> DataFrame`` that runs the
engine (:func:`evalmc.calibrate`, :func:`evalmc.run_estimation`, :func:`evalmc.plan`) and
returns a tidy frame with the Monte Carlo error of every number; ``headline(frame)`` picks the
one number the lesson is about, and ``plot(frame)`` draws it for a projector
(:mod:`evalmc.lessons.figures`). Everything a page says besides the numbers is text of the
lesson, written once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

#: The sizes a lesson runs at: ``class`` in seconds in a classroom, ``full`` for a handout.
SCALES = ("class", "full")


@dataclass(frozen=True)
class Headline:
    """The number a lesson is about, with its Monte Carlo standard error.

    Examples
    --------
    >>> from evalmc.lessons.base import Headline
    >>> Headline("size of Student's t", 0.1234, 0.0031).text()
    "size of Student's t: 0.123 (Monte Carlo standard error 0.0031)"
    """

    label: str
    value: float
    mcse: float
    digits: int = 3

    def text(self) -> str:
        """The headline in words: label, value and its Monte Carlo standard error.

        Returns
        -------
        str

        Examples
        --------
        >>> from evalmc.lessons.base import Headline
        >>> Headline("runs needed", 34.0, 1.2, digits=0).text()
        'runs needed: 34 (Monte Carlo standard error 1.2)'
        """
        return (f"{self.label}: {self.value:.{self.digits}f} (Monte Carlo standard error "
                f"{self.mcse:.2g})")


@dataclass(frozen=True)
class Regression:
    """A lesson's exact fixed-seed check: its headline's `value` with seed 0 at `reps`
    replications per condition, the smallest size at which its independent check (in the tests)
    decides."""

    reps: int
    value: float


@dataclass(frozen=True)
class Published:
    """A paper's number for the lesson's headline, and where it is stated.

    Examples
    --------
    >>> from evalmc.lessons.base import Published
    >>> Published("about 0.10", "Bouthillier et al. (2021), Fig. 6").source
    'Bouthillier et al. (2021), Fig. 6'
    """

    value: str
    source: str
    note: str = ""


@dataclass(frozen=True)
class Grading:
    """How a student's test is graded on a lesson: a null and an alternative condition of a
    scenario, the reference tests, and the rule.

    The student's test passes when its size (at the null) lies in Bradley's liberal band,
    ``[alpha / 2, 3 alpha / 2]``, and its power (at the alternative) is at least the best
    reference's minus `power_margin`.

    Examples
    --------
    >>> from evalmc.lessons.base import Grading
    >>> g = Grading("normal", {"n_a": 5}, ("shift", 0.0, 1.0), ("welch-t",))
    >>> g.conditions()
    {'n_a': [5], 'shift': [0.0, 1.0]}
    """

    scenario: str
    params: Mapping
    vary: tuple  # (parameter, value under the null, value under the alternative)
    references: tuple
    n_reps: Mapping = field(default_factory=lambda: {"class": 2000, "full": 10_000})
    alpha: float = 0.05
    power_margin: float = 0.05

    def conditions(self) -> dict:
        """The two conditions as a grid for :func:`evalmc.calibrate`.

        Returns
        -------
        dict
            Parameter name to the list of its values.

        Examples
        --------
        >>> from evalmc.lessons.base import Grading
        >>> Grading("normal", {}, ("sd_a", 1.0, 3.0), ()).conditions()
        {'sd_a': [1.0, 3.0]}
        """
        name, null, alternative = self.vary
        return {**{k: [v] for k, v in self.params.items()}, name: [null, alternative]}


@dataclass(frozen=True)
class Lesson:
    """One pitfall: its question, study, headline, figure and the words of its page.

    Parameters
    ----------
    id : str
        Its name in :data:`evalmc.lessons.LESSONS`.
    name : str
        Its heading.
    title : str
        The figure's title: the lesson's answer, stated.
    question : str
        The question the lesson answers, as a student would ask it.
    predict : tuple of str
        "Predict first" questions, asked before the figure is shown.
    answers : tuple of str
        Their answers, in order.
    explanation : str
        Why the result is what it is.
    instead : str
        What to do instead.
    reps : mapping
        Replications per condition at each scale of :data:`SCALES`.
    compute : callable
        ``compute(n_reps, seed, n_jobs) -> DataFrame``: the study.
    headline : callable
        ``headline(frame) -> Headline``.
    plot : callable
        ``plot(frame) -> matplotlib Figure``.
    published : Published, optional
        A paper's number for the headline.
    regression : Regression
        Its headline at a small size with seed 0, exact: the tests check it.
    grading : Grading, optional
        How ``evalmc lesson grade`` judges a student's test on this lesson.
    replications : callable, optional
        ``replications(frame, n_reps) -> str``: the replications the study used, in words, when
        they are not `n_reps` per condition (a planner's search stops before its cap, `n_reps`);
        default: ``'<n_reps> replications per condition'``.

    Examples
    --------
    >>> from evalmc.lessons import get_lesson
    >>> lesson = get_lesson("rerun")
    >>> lesson.id, len(lesson.predict) == len(lesson.answers), lesson.grading is None
    ('rerun', True, True)
    """

    id: str
    name: str
    title: str
    question: str
    predict: tuple
    answers: tuple
    explanation: str
    instead: str
    reps: Mapping
    compute: Callable
    headline: Callable
    plot: Callable
    regression: Regression
    published: Published | None = None
    grading: Grading | None = None
    replications: Callable | None = None

    def __post_init__(self):
        if len(self.predict) != len(self.answers):
            raise ValueError(f"lesson {self.id!r}: {len(self.predict)} predict-first "
                             f"questions but {len(self.answers)} answers.")
        if set(self.reps) != set(SCALES):
            raise ValueError(f"lesson {self.id!r}: `reps` must give {SCALES}; got "
                             f"{sorted(self.reps)}.")

    def used(self, frame, n_reps: int) -> str:
        """The replications the study that made `frame` used, in words, for its page.

        Parameters
        ----------
        frame : DataFrame
            The study's numbers (:attr:`compute`'s).
        n_reps : int
            The replications the study was given: per condition, or a search's cap.

        Returns
        -------
        str

        Examples
        --------
        >>> from evalmc.lessons import get_lesson
        >>> get_lesson("rerun").used(None, 4000)
        '4,000 replications per condition'
        """
        if self.replications is None:
            return f"{n_reps:,} replications per condition"
        return self.replications(frame, n_reps)
