import json
import re

import pytest

from evalmc.bench.registry import WORKLOADS
from evalmc.bench.workloads import cli_startup, run_benchmarks
from evalmc.cli import main


def test_bench_json_reports_both_sides_and_they_agree(capsys):
    assert main(["bench", "--only", "paired-t-size", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert {"workload", "peer", "ours_s", "peer_s", "ratio"} <= set(row)
    assert row["peer"] == "scipy.stats.power"
    assert row["ratio"] == pytest.approx(row["peer_s"] / row["ours_s"], rel=1e-6)
    ours = float(re.search(r"size (\S+) \(MCSE (\S+)\)", row["ours"]).group(1))
    peer = float(re.search(r"size (\S+)", row["peer_result"]).group(1))
    mcse = (0.05 * 0.95 / 100_000) ** 0.5
    assert abs(ours - 0.05) <= 4 * mcse and abs(peer - 0.05) <= 4 * mcse


def test_only_runs_the_named_workload():
    assert "paired-t-size" in WORKLOADS
    assert list(run_benchmarks(only="paired-t-size")["workload"]) == ["paired-t-size"]


def test_cli_startup_workload_launches_both_commands():
    ours, peer = cli_startup("--version")
    assert re.fullmatch(r"\d+\.\d{3} s a launch", ours(small=True))
    assert re.fullmatch(r"\d+\.\d{3} s a launch", peer(small=True))


def test_cli_startup_workload_checks_the_exit_status():
    ours, _ = cli_startup("calibrate", "--scenario", "nope", "--criterion", "welch-t", status=2)
    assert re.fullmatch(r"\d+\.\d{3} s a launch", ours(small=True))
    wrong, _ = cli_startup("--version", status=2)
    with pytest.raises(RuntimeError, match="exited 0, not 2"):
        wrong(small=True)


def test_engine_workload_reports_the_rejection_counts():
    # that they are the same on every backend is tests/test_study.py's
    # TestReproducibility::test_identical_for_jobs_and_backends
    from evalmc.bench.engine import threads

    ours, _ = threads(2)()
    assert re.fullmatch(r"rejections( \d+){6}", ours(small=True))


def test_memory_workload_reports_peak_memory():
    from evalmc.bench.engine import memory

    ours, _ = memory()
    assert re.fullmatch(r"1e\+03 replications: size 0\.\d+, peak RSS \d+ MB", ours(small=True))


def test_numpy_reference_counts_within_monte_carlo_error_of_ours():
    from evalmc.bench.engine import numpy_reference

    ours, peer = numpy_reference()
    mine = [int(c) for c in ours(small=True).split()[1:]]
    theirs = [int(c) for c in peer(small=True).split()[1:]]
    for m, t in zip(mine, theirs, strict=True):  # 2000 replications each: 4 sd of a difference
        p = (m + t) / 4000
        assert abs(m - t) / 2000 <= 4 * (2 * p * (1 - p) / 2000) ** 0.5 + 1e-9


def test_cv_workload_reports_a_size_on_both_sides():
    pytest.importorskip("sklearn")
    from evalmc.bench.workloads import cv_corrected_t

    ours, peer, scale = cv_corrected_t()
    assert re.fullmatch(r"size 0\.\d{4} \(MCSE 0\.\d{4}\)", ours(small=True))
    assert re.fullmatch(r"size 0\.\d{3} \(200 data sets\)", peer(small=True))
    assert scale == 50


def test_plan_workload_solves_the_same_n_for_fewer_replications():
    """The plan and the grid at the plan's MCSE agree on n = 34 (statsmodels' answer) within
    a unit, and the plan spends a fraction of the grid's replications."""
    from evalmc.bench.planning import plan_t_test

    ours, peer = plan_t_test()
    mine, theirs = ours(), peer()
    n, low, high, spent = re.match(r"n = (\d+) \[(\d+), (\d+)\].*?([\d,]+) replications",
                                   mine).groups()
    assert int(low) <= 34 <= int(high) and int(n) == 34
    first, per_n, total = re.match(r"n = (\d+) .*?([\d,]+) replications per n, ([\d,]+) in "
                                   r"all", theirs).groups()
    assert abs(int(first) - 34) <= 1
    assert int(spent.replace(",", "")) * 3 < int(total.replace(",", ""))


def test_audit_workload_writes_its_file_and_loops_every_procedure(tmp_path):
    import pandas as pd

    from evalmc.bench.items import plain_loop, write_items

    path = write_items(tmp_path)
    assert pd.read_csv(path).shape == (10000, 5)
    sizes = plain_loop(path, {"cluster": "cluster", "sample": "sample"}, [], 2, 0)
    assert len(sizes) == 10 and sorted(sizes)[:3] == ["cluster-bootstrap", "clustered-z",
                                                      "paired-items"]


def test_large_audit_workload_writes_its_file_and_runs_the_general_path(tmp_path):
    import pandas as pd

    from evalmc.bench.items import general_studies, write_items, write_large_items

    table = pd.read_csv(write_large_items(tmp_path))
    assert table.shape == (24000, 4) and table["cluster"].nunique() == 14
    assert set(table["score"]) == {0, 1}
    rates, grid = general_studies(write_items(tmp_path), {"cluster": "cluster",
                                                          "sample": "sample"}, 1, 20, 10)
    assert len(rates) == 11 and len(grid) == 5 and "passk-paired(k=5)" in rates
    assert "cr2-bm" in rates


def test_gate_workload_the_plain_loop_agrees_with_the_study():
    """200 plain-Python loops against 10,000 of the study: each rule's P(any false keep)
    within 4 sds of the peer's binomial error."""
    from evalmc.bench.workloads import gate_50_candidates

    ours, peer, scale = gate_50_candidates()
    assert scale == 50.0
    pattern = r"any false: keep-noise-floor (0\.\d{3}), keep-ratchet (0\.\d{3}|1\.000)"
    mine = [float(v) for v in re.fullmatch(pattern, ours()).groups()]
    theirs = [float(v) for v in re.fullmatch(pattern, peer()).groups()]
    for p, q in zip(mine, theirs, strict=True):
        assert abs(p - q) <= 4 * (p * (1 - p) / 200) ** 0.5 + 1e-3
