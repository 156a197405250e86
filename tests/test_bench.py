import json
import re

import pytest

from evalmc.bench import WORKLOADS, cli_startup, run_benchmarks
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
