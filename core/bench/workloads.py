"""Benchmarks: each workload timed for evalmc and for its peer, side by side in one process.

A workload returns ``(ours, peer)``, two callables computing the same quantity and describing
it, each taking ``small=False`` (``True``: a tiny warm-up); a peer too slow for the whole runs a
part, and ``(ours, peer, peer_scale)`` scales its time by the whole over the part."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
import warnings
from functools import partial

import numpy as np
import pandas as pd
from scipy import stats

from evalmc.bench.registry import WORKLOADS

REPEATS = 3


def paired_t_size():
    """Size of the paired t-test, n = 20, 100,000 replications, against scipy.stats.power.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns a line of text: the size.

    Examples
    --------
    >>> from evalmc.bench.workloads import paired_t_size
    >>> ours, peer = paired_t_size()  # built, not run
    >>> callable(ours), callable(peer)
    (True, True)
    """
    from evalmc.study.rates import make_design, run_study

    n, reps, alpha = 20, 100_000, 0.05

    def ours(small=False):
        n_reps = 100 if small else reps
        res = run_study(make_design(n=n), "paired-normal", ["paired-t"], n_reps=n_reps, seed=1,
                        alpha=alpha, progress=False).summary.iloc[0]
        return f"size {res['rate']:.4f} (MCSE {res['mcse']:.4f})"

    def peer(small=False):
        n_reps = 100 if small else reps
        rng = np.random.default_rng(1)
        res = stats.power(
            lambda x, y, axis=-1: stats.ttest_rel(x, y, axis=axis).pvalue,
            (rng.standard_normal, rng.standard_normal), (n, n),
            significance=alpha, n_resamples=n_reps,
        )
        return f"size {float(res.power):.4f}"

    return ours, peer


def wilcoxon_ties():
    """Wilcoxon signed-rank p-values of 20,000 sets of 12 pairs on a grid of 0.5 (ties and zeros:
    scipy enumerates the 2^12 sign flips), against scipy.stats.wilcoxon per set on 200 sets.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns a line of text: the size.
    peer_scale : float
        The sets over those the peer tests.

    Examples
    --------
    >>> from evalmc.bench.workloads import wilcoxon_ties
    >>> ours, peer, peer_scale = wilcoxon_ties()  # built, not run
    >>> callable(ours), callable(peer), peer_scale
    (True, True, 100.0)
    """
    from evalmc.criteria.signed_rank import wilcoxon
    from evalmc.sims.base import Batch

    reps, part = 20_000, 200
    rng = np.random.default_rng(5)
    a, b = (np.round(rng.standard_normal((2, reps, 12)) * 2) / 2)

    def ours(small=False):
        k = 10 if small else reps
        p = wilcoxon(Batch(a[:k], b[:k], paired=True)).pvalues()
        return f"size {np.mean(p <= 0.05):.4f}; first {part} sets {np.mean(p[:part] <= 0.05):.3f}"

    def peer(small=False):
        k = 2 if small else part
        p = np.array([stats.wilcoxon(x, y).pvalue for x, y in zip(a[:k], b[:k], strict=True)])
        return f"first {part} sets {np.mean(p <= 0.05):.3f}"

    return ours, peer, reps / part


def user_vectorized():
    """A user's numpy Welch t-test in a size study, called once per block against once per run.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the size as text.

    Examples
    --------
    >>> from evalmc.bench.workloads import user_vectorized
    >>> ours, peer = user_vectorized()  # built, not run
    >>> ours.keywords, peer.args
    ({}, (False,))
    """
    from evalmc.criteria import UserCriterion
    from evalmc.study.rates import make_design, run_study

    def welch(a, b, axis=-1):
        va, vb = a.var(axis=axis, ddof=1) / a.shape[axis], b.var(axis=axis, ddof=1) / b.shape[axis]
        t = (a.mean(axis=axis) - b.mean(axis=axis)) / np.sqrt(va + vb)
        df = (va + vb) ** 2 / (va**2 / (a.shape[axis] - 1) + vb**2 / (b.shape[axis] - 1))
        return 2 * stats.t.sf(np.abs(t), df)

    def size(vectorized, small=False):
        crit = UserCriterion(welch, name="welch", vectorized=vectorized)
        res = run_study(make_design(n_a=10, n_b=10), "normal", [crit], n_reps=100 if small else
                        20_000, seed=2, progress=False).summary.iloc[0]
        return f"size {res['rate']:.4f} (MCSE {res['mcse']:.4f})"

    return partial(size, True), partial(size, False)


def bayes_signed_rank():
    """baycomp's Bayesian signed-rank test on 1,000 sets of 10 pairs, against baycomp on 20.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the share of sets called 'A better' as text.
    peer_scale : float
        The sets over those the peer tests.

    Examples
    --------
    >>> from evalmc.bench.workloads import bayes_signed_rank
    >>> ours, peer, peer_scale = bayes_signed_rank()  # built, not run
    >>> callable(ours), callable(peer), peer_scale
    (True, True, 50.0)
    """
    import baycomp

    from evalmc.criteria import get_criterion
    from evalmc.sims.base import Batch

    reps, part = 1000, 20
    rng = np.random.default_rng(8)
    a, b = rng.normal(0.3, 1, (reps, 10)), rng.normal(0, 1, (reps, 10))
    crit = get_criterion("bayes-signed-rank")

    def ours(small=False):
        k = 2 if small else reps
        prob = crit(Batch(a[:k], b[:k], paired=True), np.random.default_rng(1)).statistic
        return f"A better {np.mean(prob > 0.95):.3f}; first {part} sets {prob[:part].mean():.3f}"

    def peer(small=False):
        k = 1 if small else part
        prob = [baycomp.two_on_multiple(x, y, random_state=i)[0]
                for i, (x, y) in enumerate(zip(a[:k], b[:k], strict=True))]
        return f"first {part} sets {np.mean(prob):.3f}"

    return ours, peer, reps / part


def aso_deepsig():
    """Almost stochastic order on 200 pairs of 10 + 10 runs, against ``deepsig.aso`` on 4 pairs.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the share called 'A better' and the first values.
    peer_scale : float
        The pairs over those the peer tests.

    Examples
    --------
    >>> from evalmc.bench.workloads import aso_deepsig
    >>> ours, peer, peer_scale = aso_deepsig()  # built, not run
    >>> callable(ours), callable(peer), peer_scale
    (True, True, 50.0)
    """
    import deepsig

    from evalmc.criteria.aso import eps_min

    reps, part = 200, 4
    rng = np.random.default_rng(9)
    a, b = rng.normal(0.5, 1, (reps, 10)), rng.normal(0, 1, (reps, 10))

    def ours(small=False):
        values = [eps_min(x, y, seed=i) for i, (x, y) in
                  enumerate(zip(a[:1 if small else reps], b, strict=False))]
        return (f"A better {np.mean(np.array(values) < 0.2):.3f}; first {part} "
                f"{np.round(values[:part], 6).tolist()}")

    def peer(small=False):
        values = [deepsig.aso(x, y, seed=i, show_progress=False) for i, (x, y) in
                  enumerate(zip(a[:1 if small else part], b, strict=False))]
        return f"first {part} {np.round(values, 6).tolist()}"

    return ours, peer, reps / part


def boon_bootstrap_ci():
    """Percentile bootstrap CI of Boo_5 from 200 runs, against ``boon.boo`` once per resample.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the estimate and its interval as text.

    Examples
    --------
    >>> from evalmc.bench.workloads import boon_bootstrap_ci
    >>> ours, peer = boon_bootstrap_ci()  # built, not run
    >>> callable(ours), callable(peer)
    (True, True)
    """
    import boon

    from evalmc.estimators.boon import boon_interval

    rng = np.random.default_rng(0)
    val = rng.normal(size=200)
    test = 0.5 * val + rng.normal(size=200)
    reps = 10_000

    def ours(small=False):
        res = boon_interval(test, val, n=5, n_resamples=100 if small else reps,
                            seed=np.random.default_rng(1))
        return f"{res.estimate:.4f} [{res.low:.4f}, {res.high:.4f}]"

    def peer(small=False):
        draw = np.random.default_rng(1)
        values = np.empty(100 if small else reps)
        for i in range(values.size):
            idx = draw.integers(0, val.size, val.size)
            values[i] = boon.boo(val[idx], test[idx], n=5)
        low, high = np.quantile(values, [0.025, 0.975])
        return f"{boon.boo(val, test, n=5):.4f} [{low:.4f}, {high:.4f}]"

    return ours, peer


def mlp_training():
    """5-5-1 MLPs trained by per-example SGD on the teacher task, against a numpy loop on one
    core: 4 runs of 50,000 updates each side, the same draws, the NMSEs equal to ~1e-12.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the mean training NMSE as text.

    Examples
    --------
    >>> from evalmc.bench.workloads import mlp_training
    >>> ours, peer = mlp_training()  # built, not run
    >>> callable(ours), callable(peer)
    (True, True)
    """
    from evalmc.sims.networks import nmse, teacher_task, train_mlps

    task = teacher_task(np.random.default_rng(0), k=5.0)
    x, y = task.x_train, task.y_train
    runs, updates = 4, 50_000

    def ours(small=False):
        nets = train_mlps(x, y, n_runs=runs, n_hidden=5, n_updates=100 if small else updates,
                          rng=np.random.default_rng(1))
        return f"mean train NMSE {nmse(nets, x, y).mean():.10f}"

    def peer(small=False):
        rng = np.random.default_rng(1)
        n_updates = 100 if small else updates
        errors = []
        for _ in range(runs):
            w1 = np.array([[rng.uniform(-0.48, 0.48) for _ in range(6)] for _ in range(5)])
            w2 = np.array([rng.uniform(-0.48, 0.48) for _ in range(6)])
            passes = -(-n_updates // x.shape[0])  # each example once per pass
            order = rng.permuted(np.tile(np.arange(x.shape[0]), (passes, 1)), axis=1).ravel()
            for t in range(n_updates):
                lr = 0.1 * (1 - t / n_updates)
                k = order[t]
                hidden = np.tanh(w1[:, :5] @ x[k] + w1[:, 5])
                err = w2[:5] @ hidden + w2[5] - y[k]
                delta = (1 - hidden**2) * w2[:5] * err
                w2[:5] -= lr * err * hidden
                w2[5] -= lr * err
                w1[:, :5] -= lr * np.outer(delta, x[k])
                w1[:, 5] -= lr * delta
            out = np.tanh(x @ w1[:, :5].T + w1[:, 5]) @ w2[:5] + w2[5]
            errors.append(((out - y) ** 2).mean() / y.var())
        return f"mean train NMSE {np.mean(errors):.10f}"

    return ours, peer


def fig6_outperform():
    """Bouthillier et al.'s Fig 6: the P(A>B) test on 1000 studies of k = 50 pairs at 25 values
    of P(A>B), against scipy.stats.bootstrap looped over the values.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the mean rate of 'A better' as text.

    Examples
    --------
    >>> from evalmc.bench.workloads import fig6_outperform
    >>> ours, peer = fig6_outperform()  # built, not run
    >>> callable(ours), callable(peer)
    (True, True)
    """
    from evalmc.sims.benchmarks import Benchmark
    from evalmc.study.rates import make_design, run_study

    k, reps, resamples = 50, 1000, 1000
    grid = np.linspace(0.4, 0.999, 25)

    def ours(small=False):
        res = run_study(make_design(k=k, p_ab=list(grid[:2] if small else grid)), Benchmark,
                        ["prob-outperform"], n_reps=reps, seed=1, progress=False)
        return f"mean rate {res.summary['rate'].mean():.4f}"

    def peer(small=False):
        rates = []
        for i, p in enumerate(grid[:2] if small else grid):
            rng = np.random.default_rng(i)
            study = Benchmark(k=k, p_ab=float(p))  # ideal estimator: independent runs
            diff = study.shift + study.sigma * np.sqrt(2.0) * rng.standard_normal((reps, k))
            wins = (diff > 0).astype(float)
            ci = stats.bootstrap((wins,), np.mean, n_resamples=resamples, method="percentile",
                                 vectorized=True, axis=-1, batch=100, rng=rng).confidence_interval
            rates.append(np.mean((ci.low > 0.5) & (ci.high > 0.75)))
        return f"mean rate {np.mean(rates):.4f}"

    return ours, peer


def compare_million():
    """``evalmc compare`` on a CSV file of 10^6 item-level pairs (half tied), against
    scipy.stats.bootstrap's interval of P(A>B) on 100 of the 1000 resamples.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the interval as text.
    peer_scale : float
        10.0: the resamples over those the peer draws.

    Examples
    --------
    >>> from evalmc.bench.registry import WORKLOADS
    >>> from evalmc.bench.workloads import compare_million
    >>> WORKLOADS.entry("compare-1e6-pairs").load() is compare_million  # not built: 10^6 pairs
    True
    """
    import json
    import tempfile

    k = 10**6
    rng = np.random.default_rng(6)
    b = rng.integers(0, 2, k)
    a = np.where(rng.random(k) < 0.3, 1, b)
    folder = tempfile.mkdtemp(prefix="evalmc-bench-")
    path = f"{folder}/pairs.csv"
    pd.DataFrame({"A": a, "B": b}).to_csv(path, index=False)
    score = (a > b) + 0.5 * (a == b)

    def ours(small=False):
        argv = [sys.executable, "-m", "evalmc", "compare", path, "--a", "A", "--b", "B",
                "--format", "json"]
        out = json.loads(subprocess.run(argv, capture_output=True, text=True,
                                        check=True).stdout)
        return f"P(A>B) {out['p_a_beats_b']:.4f} [{out['ci_low']:.4f}, {out['ci_high']:.4f}]"

    def peer(small=False):
        ci = stats.bootstrap((score,), np.mean, n_resamples=10 if small else 100,
                             method="percentile", vectorized=True, batch=10,
                             rng=np.random.default_rng(1)).confidence_interval
        return f"P(A>B) {score.mean():.4f} [{ci.low:.4f}, {ci.high:.4f}] (100 resamples)"

    return ours, peer, 10.0


def ranks_300_models():
    """``evalmc.ranks`` of 300 models on 30 data sets (44,850 pairs), against
    scipy.stats.wilcoxon per pair on 450 of them (the smallest of their p-values).

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns that p-value as text.
    peer_scale : float
        The pairs over those the peer tests.

    Examples
    --------
    >>> from evalmc.bench.workloads import ranks_300_models
    >>> ours, peer, peer_scale = ranks_300_models()  # built, not run
    >>> callable(ours), callable(peer), round(peer_scale, 1)
    (True, True, 99.7)
    """
    from evalmc.analysis.ranks import ranks
    from evalmc.criteria.signed_rank import wilcoxon
    from evalmc.sims.base import Batch

    k, d, part = 300, 30, 450
    table = np.random.default_rng(8).normal(0.8, 0.05, (d, k)) + np.linspace(0, 0.02, k)
    first, second = np.triu_indices(k, 1)

    def ours(small=False):
        models = 5 if small else k
        res = ranks(table[:, :models])
        raw = wilcoxon(Batch(table[:, first[:part]].T, table[:, second[:part]].T,
                             paired=True)).pvalues()
        return (f"{len(res.pairs):,} pairs; first {part} pairs' smallest Wilcoxon p "
                f"{raw.min():.4g}")

    def peer(small=False):
        pairs = 2 if small else part
        raw = [stats.wilcoxon(table[:, i], table[:, j]).pvalue
               for i, j in zip(first[:pairs], second[:pairs], strict=True)]
        return f"first {part} pairs' smallest Wilcoxon p {min(raw):.4g}"

    return ours, peer, first.size / part


def fisher_odds_ratio():
    """Fisher's conditional odds ratio and its exact interval for all 3,721 tables of 60 + 60
    items, against scipy's ``odds_ratio(kind='conditional')`` on one table in ten.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns that interval as text.
    peer_scale : float
        The tables over those the peer solves.

    Examples
    --------
    >>> from evalmc.bench.workloads import fisher_odds_ratio
    >>> ours, peer, peer_scale = fisher_odds_ratio()
    >>> ours(small=True) == peer(small=True), round(peer_scale, 3)
    (True, 9.976)
    """
    from scipy.stats.contingency import odds_ratio

    from evalmc.stats.oddsratio import conditional_odds_ratio

    n, share = 60, 10
    k_a, k_b = (k.ravel() for k in np.meshgrid(np.arange(n + 1), np.arange(n + 1)))
    solved = np.arange(k_a.size)[::share]

    def rows(small):
        middle = solved.size // 2
        return solved[middle:middle + 3] if small else solved

    def widest(low, high):
        finite = np.isfinite(high) & (low > 0)
        i = np.flatnonzero(finite)[np.argmax(high[finite] / low[finite])]
        return f"widest finite interval ({low[i]:.6g}, {high[i]:.6g})"

    def ours(small=False):
        _, low, high = conditional_odds_ratio(k_a, n, k_b, n)
        return widest(low[rows(small)], high[rows(small)])

    def peer(small=False):
        cis = [odds_ratio([[k_a[i], n - k_a[i]], [k_b[i], n - k_b[i]]],
                          kind="conditional").confidence_interval(0.95) for i in rows(small)]
        return widest(np.array([c.low for c in cis]), np.array([c.high for c in cis]))

    return ours, peer, k_a.size / solved.size


def cv_corrected_t():
    """Size of the corrected resampled t-test on 10,000 data sets of the cv-regression scenario,
    against a scikit-learn loop (ShuffleSplit, LinearRegression) on 200 data sets.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the size as text.
    peer_scale : float
        The data sets over those the peer tests (50.0).

    Examples
    --------
    >>> from evalmc.bench.registry import WORKLOADS
    >>> from evalmc.bench.workloads import cv_corrected_t
    >>> WORKLOADS.entry("cv-corrected-t").load() is cv_corrected_t  # the peer needs sklearn
    True
    """
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import ShuffleSplit

    from evalmc.sims.learning import CvRegression
    from evalmc.study.rates import make_design, run_study

    reps, part, j = 10_000, 200, 15
    scenario = CvRegression(n=300, scheme="random", j=j, test_share=0.1)
    beta = scenario.beta

    def ours(small=False):
        res = run_study(make_design(n=300, scheme="random", j=j), "cv-regression",
                        ["corrected-resampled-t"], n_reps=100 if small else reps, seed=1,
                        progress=False).summary.iloc[0]
        return f"size {res['rate']:.4f} (MCSE {res['mcse']:.4f})"

    def peer(small=False):
        rng = np.random.default_rng(1)
        splitter = ShuffleSplit(n_splits=j, test_size=0.1, random_state=1)
        rejected = 0
        for _ in range(2 if small else part):
            x = rng.standard_normal((300, beta.size))
            y = x @ beta + rng.standard_normal(300)
            d = []
            for train, test in splitter.split(x):
                mse = [np.mean((y[test] - LinearRegression(fit_intercept=False).fit(
                    x[train][:, :q], y[train]).predict(x[test][:, :q])) ** 2)
                    for q in (beta.size, scenario.p)]
                d.append(mse[0] - mse[1])
            t = np.mean(d) / np.sqrt((1 / j + 30 / 270) * np.var(d, ddof=1))
            rejected += 2 * stats.t.sf(abs(t), j - 1) <= 0.05
        return f"size {rejected / part:.3f} ({part} data sets)"

    return ours, peer, reps / part


def cli_startup(*args, status=0):
    """``(ours, peer)``: 10 launches of ``evalmc ARGS`` (exit `status`) and ``python -c pass``."""
    def launches(command, expected):
        def run(small=False):
            start = time.perf_counter()
            for _ in range(1 if small else 10):
                code = subprocess.run(command, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL).returncode
                if code != expected:
                    raise RuntimeError(f"{' '.join(command)} exited {code}, not {expected}.")
            return f"{(time.perf_counter() - start) / (1 if small else 10):.3f} s a launch"
        return run

    return (launches([sys.executable, "-m", "evalmc", *args], status),
            launches([sys.executable, "-c", "pass"], 0))


def cli_help():
    """``evalmc --help`` against ``python -c pass`` (:func:`cli_startup`).

    Returns
    -------
    ours, peer : callable
        As :func:`cli_startup` returns them.

    Examples
    --------
    >>> from evalmc.bench.workloads import cli_help
    >>> ours, peer = cli_help()
    >>> callable(ours), callable(peer)
    (True, True)
    """
    return cli_startup("--help")


def cli_list():
    """``evalmc list`` against ``python -c pass`` (:func:`cli_startup`).

    Returns
    -------
    ours, peer : callable
        As :func:`cli_startup` returns them.

    Examples
    --------
    >>> from evalmc.bench.workloads import cli_list
    >>> ours, peer = cli_list()
    >>> callable(ours), callable(peer)
    (True, True)
    """
    return cli_startup("list")


def cli_bad_argument():
    """A bad argument's one-line error (exit 2) against ``python -c pass``.

    Returns
    -------
    ours, peer : callable
        As :func:`cli_startup` returns them.

    Examples
    --------
    >>> from evalmc.bench.workloads import cli_bad_argument
    >>> ours, peer = cli_bad_argument()
    >>> callable(ours), callable(peer)
    (True, True)
    """
    return cli_startup("calibrate", "--scenario", "normal", "--criterion", "welch-t",
                       "--alpha", "1.5", status=2)


def run_benchmarks(only: str | None = None) -> pd.DataFrame:
    """Time each workload (or `only` one), best of three, for evalmc and its peer."""
    if only is not None:
        WORKLOADS.entry(only)  # an unknown name is an error naming the valid ones
    rows = []
    for name, entry in WORKLOADS.items():
        if only is not None and name != only:
            continue
        module, extra = entry.facts["needs"] or (None, None)
        if module is not None and importlib.util.find_spec(module) is None:
            warnings.warn(f"skipped the {name} workload: it needs {module}; install "
                          f"evalmc[{extra}] to run it", stacklevel=2)
            continue
        peer_name = entry.description
        ours, peer, *scale = entry.load()()
        ours(small=True), peer(small=True)  # compile and warm caches outside the timing
        ours_s, ours_out = _best_time(ours)
        peer_s, peer_out = _best_time(peer)
        peer_s *= scale[0] if scale else 1.0
        rows.append({"workload": name, "peer": peer_name, "ours_s": ours_s, "peer_s": peer_s,
                     "ratio": peer_s / ours_s, "ours": ours_out, "peer_result": peer_out})
    return pd.DataFrame(rows, columns=["workload", "peer", "ours_s", "peer_s", "ratio", "ours",
                                       "peer_result"])


def _best_time(func):
    best, out = float("inf"), None
    for _ in range(REPEATS):
        start = time.perf_counter()
        out = func()
        best = min(best, time.perf_counter() - start)
    return best, out


def gate_50_candidates():
    """A 50-candidate study of 10,000 research loops (``evalmc gate``: the noise floor and the
    ratchet on null candidates, one run each, two baseline runs), against a plain Python loop
    over the loops and their candidates on 200 loops.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns a line of text: P(any false keep) of each rule.
    peer_scale : float
        The loops over those the peer runs.

    Examples
    --------
    >>> from evalmc.bench.workloads import gate_50_candidates
    >>> ours, peer, peer_scale = gate_50_candidates()  # built, not run
    >>> callable(ours), callable(peer), peer_scale
    (True, True, 50.0)
    """
    from evalmc.study.gate import run_gate

    loops, part, k = 10_000, 200, 50

    def ours(small=False):
        frame = run_gate(rules=["keep-noise-floor", "keep-ratchet"],
                         n_reps=100 if small else loops, seed=1, progress=False)
        return "any false: " + ", ".join(f"{r.rule} {r.any_false:.3f}"
                                         for r in frame.itertuples())

    def peer(small=False):
        rng = np.random.default_rng(1)
        floor = ratchet = 0
        for _ in range(2 if small else part):
            b1, b2 = rng.standard_normal(2)
            best, kept_floor, kept_ratchet = b1, False, False
            for c in rng.standard_normal(k):
                kept_floor |= c - b1 >= 2.0 * abs(b1 - b2)
                if c > best:
                    best, kept_ratchet = c, True
            floor, ratchet = floor + kept_floor, ratchet + kept_ratchet
        n = 2 if small else part
        return f"any false: keep-noise-floor {floor / n:.3f}, keep-ratchet {ratchet / n:.3f}"

    return ours, peer, loops / part
