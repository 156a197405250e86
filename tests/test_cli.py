import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evalmc.cli import main

MUST_SHOW = ["calibrate", "--scenario", "normal", "--param", "n_a=10", "--param", "n_b=40",
             "--param", "sd_a=3", "--param", "sd_b=1", "--criterion", "student-t",
             "--criterion", "welch-t", "--reps", "20000", "--seed", "1", "--format", "json"]


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list(capsys):
    code, out, _ = _run(capsys, "list")
    assert code == 0 and "paired-normal" in out and "mann-whitney" in out and "rho" in out
    assert "[works on table: scenario multi-dataset]" in out
    assert "[works on splits: scenarios cv-regression, cv-classification, cv-stumps]" in out
    code, out, _ = _run(capsys, "list", "--format", "json")
    spec = json.loads(out)
    assert spec["scenarios"]["normal"]["parameters"]["n_a"]["default"] == 10
    assert spec["scenarios"]["llm-items"]["yields"] == ["scores", "clusters", "samples"]
    assert spec["criteria"]["sign"]["paired"] is True
    assert spec["criteria"]["friedman"]["data"] == "table"


def test_must_show_student_liberal_welch_calibrated(capsys):
    code, out, _ = _run(capsys, *MUST_SHOW)
    assert code == 0
    rows = {r["criterion"]: r for r in json.loads(out)}
    for row in rows.values():
        assert {"n_a", "n_b", "sd_a", "sd_b", "rate", "mcse", "ci_low", "ci_high", "bradley",
                "n_reps", "n_failed", "truth"} <= set(row)
        assert row["truth"] == "null" and row["n_reps"] == 20000
    assert rows["student-t"]["ci_low"] > 0.2
    assert abs(rows["welch-t"]["rate"] - 0.05) <= 4 * rows["welch-t"]["mcse"]


def test_grid_alphas_csv_and_out(capsys, tmp_path):
    out_file = tmp_path / "res.csv"
    code, out, _ = _run(capsys, "calibrate", "--scenario", "paired-normal", "--param",
                        "n=5,10", "--param", "rho=0.5", "--criterion", "paired-t",
                        "--criterion", "sign", "--reps", "500", "--alpha", "0.01,0.05",
                        "--format", "csv", "--out", str(out_file), "--quiet")
    assert code == 0 and out == ""
    lines = out_file.read_text().splitlines()
    assert lines[0].startswith("scenario,condition_id,n,rho,criterion,alpha,rate,mcse")
    assert len(lines) == 1 + 2 * 2 * 2


def test_user_criterion_from_file(capsys, tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("from scipy import stats\n\ndef t(a, b):\n"
                    "    return float(stats.ttest_ind(a, b).pvalue)\n")
    code, out, _ = _run(capsys, "calibrate", "--scenario", "normal", "--criterion",
                        f"{path}:t", "--criterion", "student-t", "--reps", "300",
                        "--format", "json", "--jobs", "2", "--backend", "loky")
    rows = json.loads(out)
    assert code == 0 and rows[0]["rate"] == rows[1]["rate"]


def test_decision_only_criterion_prints_no_alpha(capsys):
    code, out, _ = _run(capsys, "calibrate", "--scenario", "pipelines", "--param", "k=5",
                        "--criterion", "single-point", "--criterion", "t-oracle", "--alpha",
                        "0.01,0.05", "--reps", "200", "--quiet")
    header, *rows = [line.split() for line in out.splitlines()]
    assert code == 0 and [r[header.index("criterion")] for r in rows] == [
        "single-point", "t-oracle", "t-oracle"]
    assert [r[header.index("alpha")] for r in rows] == ["-", "0.01", "0.05"]
    assert rows[0][header.index("bradley")] == "-"


def test_table_default_design(capsys):
    code, out, _ = _run(capsys, "calibrate", "--scenario", "skew-normal", "--criterion",
                        "mann-whitney", "--reps", "200")
    assert code == 0 and "skew-normal" in out and "mann-whitney" in out


@pytest.mark.parametrize(("argv", "match"), [
    (["calibrate", "--scenario", "gauss", "--criterion", "welch-t"],
     "unknown scenario 'gauss'; valid names: "),
    (["calibrate", "--scenario", "normal", "--criterion", "t"],
     "unknown criterion 't'; valid names: paired-t, student-t"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--param", "n_a10"],
     "`--param` must be KEY=VALUE"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--param", "n_a=5",
      "--param", "n_a=6"], "`--param` n_a is given twice"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--param", "n=5"],
     "unknown parameter `n` for scenario 'normal'; valid parameters: n_a, n_b"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--param", "n_a=1"],
     "`n_a` must be an integer >= 2; got 1"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--param", "sd_a=x"],
     "`sd_a` must be a real number; got 'x'"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--reps", "0"],
     "`--reps` must be an integer >= 1; got 0"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--reps", "1e3"],
     "`reps` must be an integer; got '1e3'"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--alpha", "1.5"],
     r"`alpha` must be in \(0, 1\); got 1.5"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--alpha", "a"],
     r"`alpha` must be in \(0, 1\); got 'a'"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--backend", "mpi"],
     "argument --backend: invalid choice: 'mpi'"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--jobs", "0"],
     "`--jobs` must be a positive integer or -1; got 0"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--scheduler", "x:1"],
     "`scheduler` needs backend 'dask'"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--out", "/no/dir/f.csv"],
     "`--out` must be a file in a writable directory"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--out", "."],
     "`--out` must be a file in a writable directory; got '.'"),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--cache", "README.md"],
     r"`--cache` must be a directory \(or not exist yet\); got 'README.md'"),
    (["compare", ".", "--a", "A", "--b", "B"], "`FILE` must be an existing CSV file; got '.'"),
    (["calibrate", "--scenario", "normal", "--criterion", "/no/such.py:f"],
     "`criterion` file '/no/such.py' does not exist"),
    (["calibrate", "--scenario", "empirical", "--criterion", "welch-t", "--param",
      "file=/no/scores.csv"], "`file` must be an existing CSV file; got '/no/scores.csv'"),
    (["calibrate", "--scenario", "empirical-paired", "--criterion", "paired-t", "--param",
      "file=tests/examples/pairs.csv", "--param", "a=A"], "`b` is required: the column of B's "
                                                          "scores; columns of .*: seed, A, B"),
    (["calibrate", "--scenario", "normal", "--param", "n_b=4", "--criterion", "paired-t"],
     "criterion 'paired-t' needs paired samples of equal size"),
    (["calibrate", "--scenario", "normal"], "the following arguments are required: --criterion"),
    (["bench", "--only", "nope"], "unknown workload 'nope'; valid names: paired-t-size"),
    ([], "the following arguments are required: command"),
])
def test_bad_input_exits_2_with_one_line(capsys, monkeypatch, argv, match):
    monkeypatch.chdir(Path(__file__).parents[1])  # relative paths above: the repository's
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("evalmc: error: ")
    assert __import__("re").search(match, err), err


@pytest.mark.parametrize(("alpha", "message"), [
    ("1.5", "`alpha` must be in (0, 1); got 1.5."),
    ("nan", "`alpha` must be finite; got nan."),
])
def test_alpha_has_one_rule_and_one_message_in_every_command(capsys, tmp_path, alpha,
                                                             message):
    """The commands check a level as the library does: the same words whichever reads it."""
    runs = tmp_path / "runs.csv"
    runs.write_text("A,B,C\n0.9,0.8,0.7\n0.8,0.7,0.9\n0.7,0.6,0.5\n")
    for argv in (["ranks", str(runs)], ["compare", str(runs), "--a", "A", "--b", "B"],
                 ["calibrate", "--scenario", "normal", "--criterion", "welch-t"]):
        code, out, err = _run(capsys, *argv, "--alpha", alpha)
        assert (code, out) == (2, "") and err.endswith(f"evalmc: error: {message}\n"), argv


def _env():
    return {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}


def test_console_script_error_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "evalmc", "calibrate", "--scenario", "nope",
                           "--criterion", "welch-t"], capture_output=True, text=True, env=_env())
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("evalmc: error: unknown scenario 'nope'")


def test_study_error_exits_1(capsys, tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("def f(a, b):\n    raise KeyError('x')\n")
    code, _, err = _run(capsys, "calibrate", "--scenario", "normal", "--criterion",
                        f"{path}:f", "--reps", "100")
    assert code == 1 and "failed in 100 of 100 replications" in err


def test_ctrl_c_keeps_finished_blocks_and_resumes(tmp_path, capsys):
    """Ctrl-C stops a running command with status 130 and its finished blocks kept; the same
    command (here run in this process) resumes from them to the output of a run never
    stopped."""
    path = tmp_path / "slow.py"
    # called once per block (it takes `axis`): 16 blocks of 0.1 s, the interrupt after 3
    path.write_text("import time\n\ndef slow(a, b, axis=-1):\n    time.sleep(0.1)\n"
                    "    return 0.5 + 0 * a.mean(axis=axis)\n")
    cache = tmp_path / "cache"
    argv = ["calibrate", "--scenario", "normal", "--criterion", f"{path}:slow", "--criterion",
            "welch-t", "--reps", "1600", "--block-size", "100", "--cache", str(cache),
            "--format", "json"]
    # as from a terminal: a shell running the tests in the background ignores SIGINT, and
    # the child would inherit that
    # with the fault handler on: a crash while stopping shows where it happened
    proc = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", "evalmc", *argv],
                            env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    start = time.time()
    while len(list(cache.rglob("*.npz"))) < 3:
        assert proc.poll() is None and time.time() - start < 60
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert "interrupted; finished blocks are kept" in err
    kept = {p: p.stat().st_mtime_ns for p in cache.rglob("*.npz")}
    assert 3 <= len(kept) < 16
    code, resumed, _ = _run(capsys, *argv)
    assert code == 0 and all(p.stat().st_mtime_ns == t for p, t in kept.items())  # not redone
    code, fresh, _ = _run(capsys, *argv[:-4], "--format", "json")
    assert code == 0 and resumed == fresh


def test_failures_in_many_conditions_are_said_in_one_line(capsys):
    """The engine's failure warnings of one criterion with one first error, in several
    conditions (a plan's points), become one text with their range; others stay apart."""
    import warnings

    from evalmc.cli import _summarise
    from evalmc.engine.scheduler import FailureWarning

    def seen(message):
        return warnings.WarningMessage(message, UserWarning, "x.py", 1)

    _summarise([seen(FailureWarning("t", 12, 1000, "1 (normal {})", "degenerate")),
                seen(FailureWarning("t", 105, 1000, "2 (normal {})", "degenerate")),
                seen(FailureWarning("u", 50, 1000, "2 (normal {})", "nan")),
                seen(UserWarning("something else"))])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("evalmc: warning: ")
    assert ("'t' failed in 1.2% to 10.5% of the replications of 2 conditions (the most in "
            "condition 2 (normal {}))") in err
    assert "'u' failed in 50 of 1000 replications (5.0%) of condition 2" in err
    assert "something else" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--target-mcse", "2"],
     "`--target-mcse` must be in (0, 0.5]; got 2.0"),
    (["coverage", "--scenario", "normal", "--estimator", "t-interval", "--reps", "-3"],
     "`--reps` must be an integer >= 1; got -3"),
])
def test_errors_name_the_option_not_the_python_keyword(capsys, argv, message):
    """The study functions' keywords (``n_reps``, ``target_mcse``) are named as the options
    the user typed."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "n_reps" not in err and "target_mcse" not in err
