"""The benchmark workloads, one row each: the workload's factory (``'module:function'``,
imported on first use), its peer, and the optional package the peer needs with the extra that
installs it. Like every registry (:mod:`evalmc.registry`), it imports no numerical library:
``evalmc bench --help`` reads it.
"""

from __future__ import annotations

import os

from evalmc.registry import Entry, Registry


def _workload(name: str, target: str, peer: str, needs: tuple[str, str] | None = None):
    return Entry(name, f"evalmc.bench.{target}", peer, facts={"needs": needs})


def _cores() -> int:
    """The cores this process may run on (its affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


WORKLOADS = Registry("workload", [
    _workload("paired-t-size", "workloads:paired_t_size", "scipy.stats.power"),
    _workload("wilcoxon-ties", "workloads:wilcoxon_ties", "scipy.stats.wilcoxon, looped"),
    _workload("user-vectorized", "workloads:user_vectorized",
              "the same function per replication"),
    _workload("bayes-signed-rank", "workloads:bayes_signed_rank",
              "baycomp.two_on_multiple, looped", ("baycomp", "bench")),
    _workload("aso", "workloads:aso_deepsig", "deepsig.aso, looped", ("deepsig", "bench")),
    _workload("mlp-training", "workloads:mlp_training", "per-example numpy loop"),
    _workload("boon-bootstrap-ci", "workloads:boon_bootstrap_ci",
              "boon (authors' package), looped", ("boon", "bench")),
    _workload("fig6-outperform", "workloads:fig6_outperform", "scipy.stats.bootstrap, looped"),
    _workload("compare-1e6-pairs", "workloads:compare_million",
              "scipy.stats.bootstrap, 10^6 pairs"),
    _workload("bootstrap-df1-size", "classifiers:bootstrap_df1_size",
              "scipy.stats.bootstrap, paired"),
    _workload("audit-items", "items:audit_items", "the same procedures, one replication at "
              "a time (numpy, scipy.stats)"),
    _workload("audit-12k", "items:audit_large", "the general path (every score drawn), the "
              "audit's studies alone"),
    _workload("plan-t-test", "planning:plan_t_test",
              "grid search over n, run_study at each (the same MCSE)"),
    _workload("fisher-odds-ratio", "workloads:fisher_odds_ratio",
              "scipy.stats.contingency.odds_ratio per table"),
    _workload("ranks-300-models", "workloads:ranks_300_models",
              "scipy.stats.wilcoxon per pair"),
    _workload("cv-corrected-t", "workloads:cv_corrected_t", "scikit-learn fits, looped",
              ("sklearn", "bench")),
    _workload("arena-bootstrap", "arena:arena_bootstrap", "FastChat's compute_mle_elo "
              "(scikit-learn's LogisticRegression) refitted on resampled battles",
              ("sklearn", "bench")),
    _workload("lessons", "lessons:lessons_class_scale", "the same lessons on 1 worker"),
    _workload("gate-50-candidates", "workloads:gate_50_candidates",
              "a plain Python loop over the loops and candidates"),
    _workload("cli-help", "workloads:cli_help", "python -c pass"),
    _workload("cli-list", "workloads:cli_list", "python -c pass"),
    _workload("cli-bad-argument", "workloads:cli_bad_argument", "python -c pass"),
    _workload("study-2-threads", "engine:two_threads", "1 thread"),
    _workload("study-2-threads-block-10000", "engine:two_threads_large_blocks", "1 thread"),
    _workload("study-loky-2", "engine:loky", "1 thread"),
    _workload("study-dask-2", "engine:dask_local", "2 threads", ("distributed", "dist")),
    _workload("study-numpy", "engine:numpy_reference", "plain numpy + scipy.stats"),
    _workload("study-memory", "engine:memory", "10^6 replications"),
    *([_workload(f"study-{_cores()}-threads", "engine:every_core", "1 thread")]
      if _cores() > 2 else []),
])
