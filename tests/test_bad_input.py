"""Bad input and large input: no traceback, no runaway, no memory blow-up."""

import contextlib
import csv
import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evalmc.criteria.outperform as outperform
from evalmc.analysis.comparison import compare
from evalmc.cli import main
from evalmc.engine import scheduler as engine


def _cli(*argv, cwd=None):
    return subprocess.run([sys.executable, "-m", "evalmc", *map(str, argv)], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


class TestLargeCompare:
    def test_a_million_pairs_with_ties_in_linear_memory(self):
        # the tabulated bootstrap law held (k + 1)^2 cells: 8 TB at this k
        res = outperform.outperform_test([600_000], [1000], 10**6,
                                         rng=np.random.default_rng(0))
        assert (res.ci_low[0], res.ci_high[0]) == (0.5995385, 0.601399)  # regression
        assert res.ci_low[0] < res.p_a_beats_b[0] < res.ci_high[0]

    @pytest.mark.parametrize("seed", [0, 1])
    def test_bisection_gives_the_tabulated_order_statistics(self, monkeypatch, seed):
        rng = np.random.default_rng(seed)
        k, n = int(rng.integers(5, 300)), 400
        wins = rng.integers(0, k + 1, n)
        ties = np.minimum(rng.integers(0, 4, n), k - wins) * seed  # seed 0: no ties
        table = outperform.outperform_test(wins, ties, k, rng=np.random.default_rng(5))
        monkeypatch.setattr(outperform, "TABLE_PAIRS", 0)
        bisected = outperform.outperform_test(wins, ties, k, rng=np.random.default_rng(5))
        np.testing.assert_array_equal(bisected.ci_low, table.ci_low)
        np.testing.assert_array_equal(bisected.ci_high, table.ci_high)

    def test_interval_covers_a_large_sample_as_the_normal_theory_says(self):
        # 2000 studies of k = 5000 pairs (above the table), P(A>B) = 0.6, no ties: the 95%
        # percentile interval covers 0.6 within 4 Monte Carlo SEs of 0.95
        rng = np.random.default_rng(11)
        k, n = 5000, 2000
        wins = rng.binomial(k, 0.6, n)
        res = outperform.outperform_test(wins, np.zeros(n, np.int64), k,
                                         rng=np.random.default_rng(12))
        cover = np.mean((res.ci_low <= 0.6) & (0.6 <= res.ci_high))
        assert abs(cover - 0.95) <= 4 * np.sqrt(0.95 * 0.05 / n)

    def test_percentile_ranks_are_numpys_without_the_ranks(self):
        for n in [*range(1, 400), 999, 1000, 1001, 9999, 10**5]:
            ranks = np.arange(1, n + 1)
            for alpha in (0.001, 0.01, 0.05, 0.1, 0.123, 0.5):
                expected = np.quantile(ranks, [alpha / 2, 1 - alpha / 2],
                                       method="inverted_cdf")
                assert outperform.percentile_ranks(n, alpha) == tuple(map(int, expected))
        assert outperform.percentile_ranks(10**12, 0.05) == (25 * 10**9, 975 * 10**9)

    def test_compare_of_a_million_pairs_and_the_most_resamples(self):
        rng = np.random.default_rng(3)
        b = rng.integers(0, 2, 10**6).astype(float)
        a = np.where(rng.random(10**6) < 0.3, 1.0, b)
        res = compare(a, b, n_resamples=10**7, seed=1)
        assert res.k == 10**6 and res.conclusion == "not meaningful (A ahead)"
        assert res.ci_low < res.p_a_beats_b < res.ci_high and res.null_a_better is None
        assert res.plot() is not None  # a histogram of resamples, not the (k + 1)^2 law


class TestWorkersAndBackends:
    def test_jobs_above_the_cores_are_capped_with_a_warning(self, tmp_path, monkeypatch,
                                                             capsys):
        (tmp_path / "mine.py").write_text("def f(a, b):\n    return 0.5\n")
        monkeypatch.chdir(tmp_path)
        assert main(["calibrate", "--scenario", "normal", "--criterion", "mine.py:f", "--reps",
                     "200", "--block-size", "100", "--jobs", "1000", "--quiet"]) == 0
        assert capsys.readouterr().err == (
            f"evalmc: warning: `n_jobs` = 1000 is more than this machine's "
            f"{os.cpu_count()} cores; running {os.cpu_count()} workers\n")

    def test_dask_without_its_extra_is_one_line(self, monkeypatch, capsys):
        import importlib.util

        real = importlib.util.find_spec
        monkeypatch.setattr(importlib.util, "find_spec",
                            lambda name, *a: None if name == "distributed" else real(name, *a))
        assert main(["calibrate", "--scenario", "normal", "--criterion", "welch-t",
                     "--backend", "dask"]) == 2
        assert capsys.readouterr().err == (
            "evalmc: error: `backend` 'dask' needs dask.distributed, which is not installed: "
            'pip install "evalmc[dist]".\n')


class TestStops:
    def test_sys_exit_in_a_criterion_is_a_failed_replication(self, tmp_path):
        (tmp_path / "leave.py").write_text("import sys\n\ndef f(a, b):\n    sys.exit(3)\n")
        proc = _cli("calibrate", "--scenario", "normal", "--criterion", "leave.py:f", "--reps",
                    "100", cwd=tmp_path)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr
        assert "failed in 100 of 100 replications; first error: SystemExit: 3" in proc.stderr

    def test_keyboard_interrupt_in_a_criterion_stops_like_ctrl_c(self, tmp_path):
        (tmp_path / "stop.py").write_text(
            "CALLS = []\n\ndef f(a, b):\n    CALLS.append(1)\n    if len(CALLS) > 250:\n"
            "        raise KeyboardInterrupt\n    return 0.5\n")
        proc = _cli("calibrate", "--scenario", "normal", "--criterion", "stop.py:f", "--reps",
                    "1000", "--block-size", "100", "--cache", "cache", cwd=tmp_path)
        assert proc.returncode == 130 and "Traceback" not in proc.stderr
        assert "interrupted; finished blocks are kept in --cache" in proc.stderr
        assert len(list((tmp_path / "cache").rglob("*.npz"))) >= 1

    def test_a_long_study_says_how_long_before_it_goes_on(self, capsys):
        assert engine._announce_long_run(2.0, 1000, 10**12, cached=False)
        err = capsys.readouterr().err
        assert err.startswith("evalmc: about 23,148 days to go (1,000 of 1,000,000,001,000 "
                              "replications in 2.0 s); Ctrl-C stops the study, add --cache")
        assert not engine._announce_long_run(0.5, 1000, 10**6, cached=True)  # too early
        assert engine._announce_long_run(2.0, 1000, 1000, cached=True)  # 2 s left: silent
        assert capsys.readouterr().err == ""
        assert engine._duration(3 * 3600 + 720) == "3 h 12 min"
        assert engine._duration(250) == "4 min 10 s"


@pytest.mark.parametrize(("argv", "message"), [
    (["boon", "RUNS", "--n", "5", "--test", "test", "--resamples", "1000000000"],
     "`--resamples` must be an integer in [1, 10000000]; got 1000000000."),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--block-size",
      "1000000000"], "`--block-size` must be an integer in [1, 100000]; got 1000000000."),
])
def test_options_that_would_exhaust_memory_are_bounded(capsys, argv, message):
    runs = str(Path(__file__).parent / "examples" / "runs.csv")
    assert main([runs if a == "RUNS" else a for a in argv]) == 2
    assert capsys.readouterr().err == f"evalmc: error: {message}\n"


class TestWarnings:
    def test_library_warnings_of_criteria_are_one_counted_line(self, tmp_path, monkeypatch,
                                                               capsys):
        (tmp_path / "loud.py").write_text(
            "import warnings\n\ndef f(a, b):\n    warnings.warn('odd scores')\n"
            "    return 0.5\n")
        monkeypatch.chdir(tmp_path)
        for jobs in ("1", "2"):  # the study's own thread, and loky processes
            assert main(["calibrate", "--scenario", "normal", "--criterion", "loud.py:f",
                         "--reps", "300", "--block-size", "100", "--jobs", jobs, "--quiet"]) == 0
            assert capsys.readouterr().err == "evalmc: warning: odd scores (300 times)\n"

    def test_describe_keeps_scipys_warning_in_the_columns_note(self, tmp_path, capsys):
        path = tmp_path / "big.csv"
        values = np.random.default_rng(0).normal(size=6000)
        path.write_text("acc\n" + "".join(f"{v}\n" for v in values))
        assert main(["describe", str(path), "--format", "csv"]) == 0
        out, err = capsys.readouterr()
        assert err == "" and "For N > 5000, computed p-value may not be accurate" in out


NUMBERS = st.floats(-100, 100, allow_nan=False).map(lambda x: f"{x:.3g}")
ODD_CELLS = st.sampled_from(["", "NaN", "inf", "abc", "1,5", " 3 ", "1e400", "NA"])
#: A messy file's cells; a tidy file has numbers and, rarely, an empty cell, so that files of
#: every shape reach the commands' results too.
MESSY = st.one_of(NUMBERS, NUMBERS, NUMBERS, ODD_CELLS)
TIDY = st.one_of(*[NUMBERS] * 9, st.just(""))
HEADERS = st.one_of(st.just(["seed", "a", "b"]), st.just(["a", "b"]),
                    st.lists(st.sampled_from(["a", "b", "seed", "A", ""]), max_size=4))


@st.composite
def csv_files(draw):
    """CSV files of every kind: delimiters, line ends, BOM, duplicate or empty headers, text,
    missing and infinite cells, decimal commas, no rows, no header."""
    delimiter = draw(st.sampled_from([",", ";", "\t"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    names = draw(HEADERS)
    width, cells = max(len(names), 1), draw(st.sampled_from([MESSY, TIDY]))
    rows = draw(st.lists(st.lists(cells, min_size=width, max_size=width), max_size=12))
    text = io.StringIO()
    writer = csv.writer(text, delimiter=delimiter, lineterminator=newline)
    if names:
        writer.writerow(names)
    writer.writerows(rows)
    return (("\ufeff" if draw(st.booleans()) else "") + text.getvalue()).encode()


COMMANDS = [
    ["boon", "FILE", "--n", "3", "--resamples", "50"],
    ["boon", "FILE", "--n", "3", "--test", "a", "--val", "b", "--resamples", "50"],
    ["compare", "FILE", "--a", "a", "--b", "b", "--resamples", "50"],
    ["compare", "FILE", "--a", "a", "--b", "b", "--pair-by", "seed", "--resamples", "50"],
    ["describe", "FILE"],
    ["describe", "FILE", "--no-dropna"],
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=csv_files(), command=st.sampled_from(COMMANDS),
       fmt=st.sampled_from(["table", "csv", "json"]))
def test_random_csv_files_end_in_a_result_or_one_line(content, command, fmt):
    with tempfile.TemporaryDirectory() as folder:
        path, out = Path(folder) / "runs.csv", Path(folder) / "result.txt"
        path.write_bytes(content)
        argv = [str(path) if a == "FILE" else a for a in command]
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main([*argv, "--format", fmt, "--out", str(out)])
        lines = [line for line in stderr.getvalue().splitlines()
                 if not line.startswith(("evalmc: warning:", "evalmc: dropped",
                                         "evalmc: skipped", "evalmc: not described",
                                         "evalmc: runs paired by"))]
        assert code in (0, 2), stderr.getvalue()
        assert stdout.getvalue() == ""
        leftovers = sorted(p.name for p in Path(folder).iterdir())
        if code == 2:
            assert len(lines) == 1 and lines[0].startswith("evalmc: error: ")
            assert leftovers == ["runs.csv"]  # no output file, not even half of one
        else:
            assert lines == [] and leftovers == ["result.txt", "runs.csv"]
            assert out.read_text().endswith("\n")
