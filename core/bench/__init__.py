"""Benchmarks: each workload timed for evalmc and its peer, side by side
(:mod:`~evalmc.bench.workloads`; the engine's own in :mod:`~evalmc.bench.engine`, the
classifier tests' in :mod:`~evalmc.bench.classifiers`)."""
