"""Benchmarks of the study engine on 4 million replications of the skew-normal scenario
under three tests: the ratio (peer time / our time) is a speed-up over one thread, the share
of the threads' speed dask keeps, or how many times faster than plain numpy."""

from __future__ import annotations

import atexit
import subprocess
import sys

import joblib
import numpy as np

STUDY = {"n_a": 10, "n_b": 10, "skew": -4.0, "shift": [0.0, 0.5]}
CRITERIA = ("welch-t", "mann-whitney", "student-t")
REPS = 2_000_000  # per condition: 4 million in all


def _study(n_jobs=1, backend="threads", reps=REPS, block_size=1000):
    """Run the study; the result text is every rejection count (identical on every backend)."""
    from evalmc.study.rates import make_design, run_study

    def run(small=False):
        res = run_study(make_design(**STUDY), "skew-normal", list(CRITERIA), seed=1,
                        n_reps=2000 if small else reps, n_jobs=n_jobs, backend=backend,
                        block_size=block_size, progress=False)
        s = res.summary
        return "rejections " + " ".join(str(round(r * n)) for r, n in zip(
            s["rate"], s["n_reps"], strict=True))
    return run


def threads(workers, block_size=1000):
    """The workload of `workers` threads against one, blocks of `block_size`: ``(ours, peer)``."""
    def make():
        return (_study(n_jobs=workers, block_size=block_size),
                _study(block_size=block_size))
    return make


def loky():
    """Two loky processes against one thread.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the rejection counts, identical on both sides.

    Examples
    --------
    >>> from evalmc.bench.engine import loky
    >>> ours, peer = loky()  # the studies are built, not run
    >>> callable(ours), callable(peer)
    (True, True)
    """
    return _study(n_jobs=2, backend="loky"), _study()


def dask_local():
    """A LocalCluster of two single-thread workers (started once, outside the timing, closed at
    exit) against two threads: a ratio of 0.8 or more is dask within 1.25 x of threads.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the rejection counts, identical on both sides.

    Examples
    --------
    >>> from evalmc.bench.engine import dask_local
    >>> from evalmc.bench.registry import WORKLOADS
    >>> WORKLOADS.entry("study-dask-2").load() is dask_local  # a cluster takes seconds to start
    True
    """
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
    client = Client(cluster)
    atexit.register(cluster.close)
    atexit.register(client.close)
    return _study(n_jobs=2, backend="dask"), _study(n_jobs=2)


def numpy_reference():
    """One thread against plain numpy and scipy on the same draws and tests, vectorized; the
    counts agree within Monte Carlo error (numpy draws in another order).

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the rejection counts.

    Examples
    --------
    >>> from evalmc.bench.engine import numpy_reference
    >>> ours, peer = numpy_reference()  # the studies are built, not run
    >>> callable(ours), callable(peer)
    (True, True)
    """
    from scipy import stats

    def peer(small=False):
        reps, chunk = (2000, 2000) if small else (REPS, 100_000)
        rng = np.random.default_rng(1)
        delta = STUDY["skew"] / np.sqrt(1 + STUDY["skew"] ** 2)
        counts = []
        for shift in STUDY["shift"]:
            rejected = np.zeros(3, np.int64)
            for _ in range(reps // chunk):
                u0 = rng.standard_normal((chunk, 20))
                u1 = delta * u0 + np.sqrt(1 - delta**2) * rng.standard_normal((chunk, 20))
                x = np.where(u0 >= 0, u1, -u1)
                a, b = x[:, :10] + shift, x[:, 10:]
                p = [stats.ttest_ind(a, b, axis=1, equal_var=False).pvalue,
                     stats.mannwhitneyu(a, b, axis=1).pvalue,
                     stats.ttest_ind(a, b, axis=1).pvalue]
                rejected += [int((q <= 0.05).sum()) for q in p]
            counts += rejected.tolist()
        return "rejections " + " ".join(map(str, counts))

    return _study(), peer


# The peak is the process's own high-water mark (VmHWM): ru_maxrss would carry the parent's
# resident memory over the fork and exec that started it.
_RSS = """
from evalmc.study.rates import make_design, run_study
res = run_study(make_design(n_a=10, n_b=10), "normal", ["student-t"], n_reps={reps}, seed=1,
                progress=False)
rate = res.summary["rate"].iloc[0]
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
print(f"size {{rate:.5f}}, peak RSS {{peak:.0f}} MB")
"""


def memory():
    """Peak resident memory of a study of 10^8 replications (ours) against 10^6 (peer), each in a
    fresh process: the two must be about equal (the ratio is of times, about 1/100).

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the replications, the size and the peak memory.

    Examples
    --------
    >>> from evalmc.bench.engine import memory
    >>> ours, peer = memory()  # the studies are built, not run
    >>> callable(ours), callable(peer)
    (True, True)
    """
    def at(reps):
        def run(small=False):
            n = 1000 if small else reps
            out = subprocess.run([sys.executable, "-c", _RSS.format(reps=n)],
                                 capture_output=True, text=True, check=True)
            return f"{n:.0e} replications: {out.stdout.strip()}"
        return run
    return at(100_000_000), at(1_000_000)


def two_threads():
    """A 2-thread study against 1 thread (:func:`threads`).

    Returns
    -------
    tuple of callable
        ``(ours, peer)``: each runs the study and returns its rejection counts.

    Examples
    --------
    >>> from evalmc.bench.engine import two_threads
    >>> from evalmc.bench.registry import WORKLOADS
    >>> WORKLOADS.entry("study-2-threads").load() is two_threads
    True
    """
    return threads(2)()


def two_threads_large_blocks():
    """A 2-thread study of blocks of 10,000 against 1 thread (:func:`threads`).

    Returns
    -------
    tuple of callable
        ``(ours, peer)``.

    Examples
    --------
    >>> from evalmc.bench.engine import two_threads_large_blocks
    >>> from evalmc.bench.registry import WORKLOADS
    >>> WORKLOADS.entry("study-2-threads-block-10000").load() is two_threads_large_blocks
    True
    """
    return threads(2, block_size=10_000)()


def every_core():
    """A study on a thread per core against 1 thread (:func:`threads`).

    Returns
    -------
    tuple of callable
        ``(ours, peer)``.

    Examples
    --------
    >>> from evalmc.bench.engine import every_core
    >>> ours, peer = every_core()  # the studies are built, not run
    >>> callable(ours) and callable(peer)
    True
    """
    return threads(joblib.cpu_count())()
