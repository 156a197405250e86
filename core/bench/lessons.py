"""The lessons timed at the class scale: every lesson's study and figure, on 2 workers and on 1."""

from __future__ import annotations

import time

WARM_UP_SHARE = 10  # the warm-up runs each lesson at a tenth of its class-scale replications


def lessons_class_scale():
    """Every lesson at the class scale (seed 0), on 2 workers against 1 worker.

    The warm-up runs each lesson's study at a tenth of its replications (compiling the kernels);
    a timed call reports each lesson's best time so far.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns a line of text: each lesson's seconds.

    Examples
    --------
    >>> from evalmc.bench.lessons import lessons_class_scale
    >>> ours, peer = lessons_class_scale()  # built, not run (about a minute)
    >>> callable(ours), callable(peer)
    (True, True)
    """
    from evalmc.lessons import LESSONS, get_lesson
    from evalmc.lessons.runner import lesson

    def timer(n_jobs):
        best = {}

        def run(small=False):
            for name in LESSONS:
                if small:
                    item = get_lesson(name)
                    item.compute(item.reps["class"] // WARM_UP_SHARE, 0, n_jobs)
                    continue
                start = time.perf_counter()
                lesson(name, n_jobs=n_jobs)
                best[name] = min(best.get(name, float("inf")), time.perf_counter() - start)
            if small:
                return "warm"
            slowest = max(best, key=best.get)
            return (f"slowest {slowest} {best[slowest]:.1f} s; " +
                    ", ".join(f"{name} {seconds:.1f}" for name, seconds in best.items()))
        return run

    return timer(2), timer(1)
