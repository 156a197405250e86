"""The audit of 1,000 items x 2 models x 5 samples, timed against a plain loop running each
procedure per replication (numpy and scipy.stats) on 1% of the replications, scaled by 100;
and the audit of 12,000 items in 14 clusters (one 0/1 answer each) on 2 workers, timed against
the general path, which draws every score, on a quarter of the replications, scaled by 4."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from scipy import stats

#: The example's shape: items, clusters, samples per item; and the differences asked for.
N_ITEMS, N_CLUSTERS, N_SAMPLES = 1000, 40, 5
DELTAS = (0.01, 0.02, 0.03)
#: The share of the replications the plain loop runs.
PEER_SHARE = 0.01
#: The large example's shape: items, clusters, workers; and the share of the replications
#: the general path runs.
LARGE_ITEMS, LARGE_CLUSTERS, LARGE_JOBS, GENERAL_SHARE = 12_000, 14, 2, 0.25


def write_items(folder) -> Path:
    """Write a simulated item-level file of two models, ``items.csv``, into `folder`."""
    rng = np.random.default_rng(27)
    cluster = np.repeat(np.arange(N_CLUSTERS), N_ITEMS // N_CLUSTERS)
    difficulty = rng.normal(0, 0.5, N_CLUSTERS)[cluster] + rng.normal(0, 1, N_ITEMS)
    favour = rng.normal(0, 0.15, N_CLUSTERS)[cluster]
    rows = ["model,item,sample,cluster,score"]
    for sign, model in ((1, "a"), (-1, "b")):
        latent = (sign * favour - difficulty + rng.normal(0, 0.6, N_ITEMS))[:, None] \
            + rng.normal(0, 1, (N_ITEMS, N_SAMPLES))
        rows += [f"{model},{i},{s},{cluster[i]},{int(latent[i, s] > 0)}"
                 for i in range(N_ITEMS) for s in range(N_SAMPLES)]
    path = Path(folder) / "items.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def audit_items():
    """``evalmc.audit`` of 1,000 items x 2 models x 5 samples (10 procedures, 4 intervals, 3
    differences and the grid) on one core, against a plain per-replication loop.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the sizes of three procedures as text.
    peer_scale : float
        The replications over those the plain loop runs.

    Examples
    --------
    >>> from evalmc.bench.registry import WORKLOADS
    >>> WORKLOADS.entry("audit-items").load() is audit_items  # building it writes the file
    True
    """
    from evalmc.engine.options import AUDIT_ALT_REPS, AUDIT_REPS
    from evalmc.study.audit import audit

    path = write_items(tempfile.mkdtemp(prefix="evalmc-bench-"))
    read = {"cluster": "cluster", "sample": "sample"}

    def ours(small=False):
        result = audit(path, "a", "b", **read, deltas=DELTAS,
                       n_reps=50 if small else AUDIT_REPS,
                       n_reps_alt=20 if small else AUDIT_ALT_REPS, progress=False)
        return _sizes(dict(zip(result.sizes["procedure"], result.sizes["rate"], strict=True)),
                      result.settings["grid"])

    def peer(small=False):
        first = audit(path, "a", "b", **read, deltas=DELTAS, n_reps=2, n_reps_alt=2,
                      progress=False)  # the same grid of differences as ours
        grid = first.settings["grid"]
        n_null = 5 if small else round(PEER_SHARE * AUDIT_REPS)
        n_alt = 2 if small else round(PEER_SHARE * AUDIT_ALT_REPS)
        return _sizes(plain_loop(path, read, grid, n_null, n_alt), grid)

    return ours, peer, 1 / PEER_SHARE


def write_large_items(folder) -> Path:
    """Write a simulated item-level file of two models, ``large.csv``, into `folder`: 12,000 items
    in 14 clusters of unequal sizes, one 0/1 answer each (the models' accuracies near 65%)."""
    rng = np.random.default_rng(12)
    sizes = rng.multinomial(LARGE_ITEMS - 200 * LARGE_CLUSTERS,
                            np.full(LARGE_CLUSTERS, 1 / LARGE_CLUSTERS)) + 200
    cluster = np.repeat(np.arange(LARGE_CLUSTERS), sizes)
    difficulty = rng.normal(0, 0.5, LARGE_CLUSTERS)[cluster] + rng.normal(0, 1, LARGE_ITEMS)
    favour = rng.normal(0, 0.15, LARGE_CLUSTERS)[cluster]
    rows = ["model,item,cluster,score"]
    for sign, model, skill in ((1, "a", 0.3), (-1, "b", 0.25)):
        latent = skill + sign * favour - difficulty + rng.normal(0, 0.8, LARGE_ITEMS)
        rows += [f"{model},{i},c{cluster[i]},{int(latent[i] > 0)}" for i in range(LARGE_ITEMS)]
    path = Path(folder) / "large.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def audit_large():
    """``evalmc.audit`` of 12,000 items in 14 clusters, one 0/1 answer each (9 procedures, 5
    intervals, the default replications) on 2 workers, file read and fit included, against the
    general path (every score drawn): the audit's three studies alone, on a quarter of their
    replications.

    Returns
    -------
    ours, peer : callable
        Each takes ``small=False`` and returns the sizes of three procedures as text.
    peer_scale : float
        The replications over those the general path runs.

    Examples
    --------
    >>> from evalmc.bench.registry import WORKLOADS
    >>> WORKLOADS.entry("audit-12k").load() is audit_large  # building it writes the file
    True
    """
    from evalmc.engine.options import AUDIT_ALT_REPS, AUDIT_REPS
    from evalmc.sims.itemmodel import forget_fits
    from evalmc.study.audit import audit

    path = write_large_items(tempfile.mkdtemp(prefix="evalmc-bench-"))
    read = {"cluster": "cluster"}

    def ours(small=False):
        forget_fits()  # read and fitted afresh, as a first audit of the file is
        result = audit(path, "a", "b", **read, n_jobs=LARGE_JOBS, progress=False,
                       n_reps=50 if small else AUDIT_REPS,
                       n_reps_alt=20 if small else AUDIT_ALT_REPS)
        return _sizes(dict(zip(result.sizes["procedure"], result.sizes["rate"], strict=True)),
                      result.settings["grid"])

    def peer(small=False):
        rates, grid = general_studies(path, read, LARGE_JOBS,
                                      50 if small else round(GENERAL_SHARE * AUDIT_REPS),
                                      20 if small else round(GENERAL_SHARE * AUDIT_ALT_REPS))
        return _sizes(rates, grid)

    return ours, peer, 1 / GENERAL_SHARE


def general_studies(path, read, n_jobs, n_null, n_alt) -> tuple[dict, list]:
    """The null rates and the grid of the studies of an audit of `path` (read with `read`) on
    the general path (``draws='scores'``), at `n_null` and `n_alt` replications, with the
    audit's procedures, intervals and differences."""
    from evalmc.criteria import get_criterion
    from evalmc.engine.options import AUDIT_REFITS
    from evalmc.estimators.intervals import get_estimator
    from evalmc.inputs.itemlogs import read_items
    from evalmc.sims import get_scenario
    from evalmc.sims.itemmodel import paired
    from evalmc.study.audit import (
        _differences,
        _simulate,
        default_intervals,
        default_procedures,
        observed_batch,
        observed_se,
    )

    base = {"file": str(path), "a": "a", "b": "b", **read, "draws": "scores"}
    batch = observed_batch(paired(read_items(path, **read), "a", "b"))
    scenario = get_scenario("item-model")
    _, grid = _differences(scenario, base, (), observed_se(batch))
    crits = [get_criterion(c) for c in default_procedures(batch, "binary")]
    ests = [get_estimator(e) for e in default_intervals(batch, "binary")]
    run = {"seed": 0, "n_jobs": n_jobs, "backend": None, "cache": None, "progress": False}
    null, _, _ = _simulate(scenario, base, crits, ests, grid, alpha=0.05, n_reps=n_null,
                           n_reps_alt=n_alt, run=run, refits=AUDIT_REFITS)
    return dict(zip(null["criterion"], null["rate"], strict=True)), grid


def plain_loop(path, read, grid, n_null, n_alt) -> dict:
    """Each procedure's rejection rate under the null, run plainly one replication at a time."""
    from evalmc.sims import get_scenario

    scenario = get_scenario("item-model")
    base = {"file": str(path), "a": "a", "b": "b", **read}
    rng = np.random.default_rng(1)
    sizes = {}
    for delta, reps in ((0.0, n_null), *((d, n_alt) for d in grid)):
        model = scenario(**base, delta=delta)
        for _ in range(reps):
            batch = model.draw(rng, 1)
            p = _procedures(batch, rng)
            _intervals(batch, rng)
            if delta == 0.0:
                for name, value in p.items():
                    sizes[name] = sizes.get(name, 0.0) + (value < 0.05) / reps
    return sizes


def _procedures(batch, rng) -> dict:
    """The ten procedures' p-values on one replication, plainly."""
    from evalmc.criteria.bootstrap import interval_pvalues

    samples_a = batch.samples[0][0].reshape(-1, N_SAMPLES)
    samples_b = batch.samples[1][0].reshape(-1, N_SAMPLES)
    a, b = samples_a.mean(axis=1), samples_b.mean(axis=1)
    d, n = a - b, a.size
    sizes = np.array(batch.cluster_sizes)
    starts = np.cumsum(sizes) - sizes
    p = {}
    se = np.sqrt(a.var(ddof=1) / n + b.var(ddof=1) / n)
    p["unpaired-z"] = 2 * stats.norm.sf(abs(d.mean() / se))
    p["paired-items"] = 2 * stats.norm.sf(abs(d.mean() / (d.std(ddof=1) / np.sqrt(n))))
    flat = (samples_a - samples_b).ravel()
    p["paired-samples-z"] = 2 * stats.norm.sf(abs(flat.mean() / (flat.std(ddof=1)
                                                              / np.sqrt(flat.size))))
    passk = (samples_a.max(axis=1) - samples_b.max(axis=1)).astype(float)  # pass@5 of 5
    p["passk-paired(k=5)"] = 2 * stats.norm.sf(abs(passk.mean() / (passk.std(ddof=1)
                                                                   / np.sqrt(n))))
    sums = np.add.reduceat(d, starts)
    cse = np.sqrt(((sums - sizes * d.mean()) ** 2).sum()) / n
    p["clustered-z"] = 2 * stats.norm.sf(abs(d.mean() / cse))
    pick = rng.integers(0, sizes.size, (999, sizes.size))
    boot = sums[pick].sum(axis=1) / sizes[pick].sum(axis=1)
    p["cluster-bootstrap"] = interval_pvalues(np.array([d.mean()]), boot[None, :],
                                              "percentile")[0]
    real = abs(d.mean())
    means = np.abs(d[rng.integers(0, n, (1000, n))].mean(axis=1))
    p["sacrebleu-paired-bs"] = (np.sum(means - means.mean() > real) + 1) / 1001
    swaps = rng.integers(0, 2, (10_000, n)).astype(bool)
    flips = np.abs(np.where(swaps, -d, d).mean(axis=1))
    p["sacrebleu-paired-ar"] = (np.sum(flips > real) + 1) / 10_001
    nonzero = d[d != 0]
    p["sign"] = stats.binomtest(int((nonzero > 0).sum()), nonzero.size).pvalue
    p["wilcoxon"] = stats.wilcoxon(d).pvalue
    return p


def _intervals(batch, rng) -> list:
    """The four intervals of A - B on one replication, plainly."""
    a, b = batch.a[0], batch.b[0]
    d, n = a - b, a.size
    z = stats.norm.ppf(0.975)
    sizes = np.array(batch.cluster_sizes)
    sums = np.add.reduceat(d, np.cumsum(sizes) - sizes)
    cse = np.sqrt(((sums - sizes * d.mean()) ** 2).sum()) / n
    pick = rng.integers(0, sizes.size, (999, sizes.size))
    boot = sums[pick].sum(axis=1) / sizes[pick].sum(axis=1)
    welch = stats.ttest_ind(a, b, equal_var=False).confidence_interval()
    return [(welch.low, welch.high),
            (d.mean() - z * d.std(ddof=1) / np.sqrt(n), d.mean() + z * d.std(ddof=1) / np.sqrt(n)),
            (d.mean() - z * cse, d.mean() + z * cse),
            tuple(np.quantile(boot, [0.025, 0.975]))]


def _sizes(rates: dict, grid) -> str:
    shown = ("paired-items", "clustered-z", "sacrebleu-paired-bs")
    return ", ".join(f"{name} {rates[name]:.3f}" for name in shown) + f"; grid {len(grid)}"
