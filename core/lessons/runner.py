"""Run a lesson and write its figure, CSV and page; write the whole gallery with its index."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from evalmc.inputs.checks import check_choice, check_int
from evalmc.lessons import LESSONS, get_lesson
from evalmc.lessons.base import SCALES, Headline, Lesson
from evalmc.lessons.page import index, render


@dataclass(frozen=True)
class LessonResult:
    """A lesson's run: its study's frame, headline, page and the files written.

    Attributes
    ----------
    lesson : Lesson
    data : DataFrame
        The study's numbers, each with its Monte Carlo standard error.
    headline : Headline
    page : str
        The page, Markdown.
    scale : str
    seed : int
    seconds : float
        How long the study and its figure took.
    files : tuple of Path
        The figure, CSV and page, when written.
    """

    lesson: Lesson
    data: pd.DataFrame
    headline: Headline
    page: str
    scale: str
    seed: int
    seconds: float
    files: tuple = ()


def lesson(name: str, *, scale: str = "class", student_seed: int = 0, out=None,
           n_jobs: int = 1) -> LessonResult:
    """Run the lesson `name`: its study, headline, figure and page.

    Deterministic for a seed; each `student_seed` gives other data with the same lesson.

    Parameters
    ----------
    name : str
        A lesson of :data:`evalmc.lessons.LESSONS` (``evalmc lesson list``).
    scale : {'class', 'full'}
        ``'class'``: seconds, for showing in class; ``'full'``: more replications.
    student_seed : int
        The seed of the study (>= 0).
    out : path, optional
        Folder to write ``<name>.png``, ``<name>.csv`` and ``<name>.md`` into; default:
        nothing is written.
    n_jobs : int
        Workers; the numbers do not depend on it.

    Returns
    -------
    LessonResult

    Examples
    --------
    >>> import evalmc
    >>> res = evalmc.lesson("rerun", student_seed=3)
    >>> print(res.headline.text())
    false positive rate after up to 5 tries: 0.226 (Monte Carlo standard error 0.0066)
    >>> evalmc.lesson("rerun", scale="huge")
    Traceback (most recent call last):
    ...
    ValueError: `scale` must be one of 'class', 'full'; got 'huge'.
    """
    check_choice("scale", scale, SCALES)
    seed = check_int("student_seed", student_seed, low=0)
    item = get_lesson(name)
    start = time.perf_counter()
    data = item.compute(item.reps[scale], seed, n_jobs)
    head = item.headline(data)
    fig = item.plot(data)
    seconds = time.perf_counter() - start
    page = render(item, head, scale=scale, seed=seed, n_reps=item.reps[scale],
                  used=item.used(data, item.reps[scale]))
    files = ()
    if out is not None:
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        files = (folder / f"{name}.png", folder / f"{name}.csv", folder / f"{name}.md")
        fig.savefig(files[0], dpi=100)
        data.to_csv(files[1], index=False)
        files[2].write_text(page)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return LessonResult(item, data, head, page, scale, seed, seconds, files)


def write_gallery(out, *, only=None, n_jobs: int = 1, log=print) -> list[LessonResult]:
    """Run every lesson (or those of `only`) at the class scale, seed 0, into `out`, with the
    index ``README.md`` of those run.

    Parameters
    ----------
    out : path
        The gallery's folder (``figures/lessons`` in the repository).
    only : sequence of str, optional
        The lessons to run; default: every one of :data:`evalmc.lessons.LESSONS`.
    n_jobs : int
        Workers.
    log : callable, optional
        Told each lesson's headline and time as it finishes.

    Returns
    -------
    list of LessonResult

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> from evalmc.lessons.runner import write_gallery
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     res = write_gallery(tmp, only=["rerun"], log=None)
    ...     sorted(p.name for p in pathlib.Path(tmp).iterdir())
    ['README.md', 'rerun.csv', 'rerun.md', 'rerun.png']
    """
    names = list(LESSONS) if only is None else [LESSONS.entry(n).name for n in only]
    results = []
    for name in names:
        res = lesson(name, out=out, n_jobs=n_jobs)
        if log is not None:
            log(f"{name}: {res.headline.text()} ({res.seconds:.1f} s)")
        results.append(res)
    rows = [(r.lesson.id, LESSONS[r.lesson.id].description, r.headline.text())
            for r in results]
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / "README.md").write_text(index(rows))
    return results
