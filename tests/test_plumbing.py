"""The plumbing under every command: where results are written, cache keys, the Numba cache,
long computations and their estimates."""

import os
import stat
import subprocess
import sys

import numpy as np
import pytest

from evalmc.cli import main


@pytest.mark.parametrize("command", [["list", "--format", "csv"],
                                     ["calibrate", "--scenario", "normal", "--criterion",
                                      "welch-t", "--reps", "200", "--quiet"]])
def test_out_dash_is_stdout(capsys, tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    assert main(command) == 0
    expected = capsys.readouterr().out
    assert main([*command, "--out", "-"]) == 0
    assert capsys.readouterr().out == expected and not (tmp_path / "-").exists()


def test_out_writes_through_a_symlink(capsys, tmp_path):
    target, link = tmp_path / "target.csv", tmp_path / "link.csv"
    target.write_text("old\n")
    link.symlink_to(target)
    assert main(["list", "--format", "csv", "--out", str(link)]) == 0
    assert link.is_symlink() and target.read_text().startswith("kind,name")


def test_out_refuses_a_special_file(capsys, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert main(["list", "--out", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert err == (f"evalmc: error: `--out` must be a regular file (or '-' for standard "
                   f"output); got '{fifo}', a special file.\n")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # not replaced by a regular file


def test_scheduler_without_dask_says_how_to_install_it(capsys, monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "distributed" else find_spec(name, *a))
    argv = ["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--scheduler",
            "tcp://10.0.0.1:8786"]
    assert main(argv) == 2
    assert capsys.readouterr().err == ("evalmc: error: `scheduler` needs dask.distributed, "
                                       "which is not installed: pip install \"evalmc[dist]\".\n")


def test_no_writable_numba_cache_degrades_to_no_cache_with_one_warning():
    """As with a read-only install and home: Numba finds no cache location for any kernel."""
    argv = ["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--criterion",
            "mann-whitney", "--reps", "300", "--quiet"]
    no_locator = ("import numba.core.caching as c; c.CacheImpl._locator_classes = []; "
                  "import sys; from evalmc.cli import main; sys.exit(main(sys.argv[1:]))")
    cached = subprocess.run([sys.executable, "-m", "evalmc", *argv], capture_output=True,
                            text=True)
    uncached = subprocess.run([sys.executable, "-c", no_locator, *argv], capture_output=True,
                              text=True)
    assert uncached.returncode == 0 and uncached.stdout == cached.stdout
    assert uncached.stderr == ("evalmc: warning: Numba found no writable cache location: "
                               "kernels are compiled again in each run; set NUMBA_CACHE_DIR to "
                               "a writable folder to cache them\n")


def test_eta_times_the_steady_tasks_not_the_first(capsys, monkeypatch):
    """The first task takes 10 s (compiling the kernels), each later one of 1,000
    replications 0.125 s: after 1 s of steady work, 991 tasks are left, 123.9 s; the
    estimate was 1,211 s from the first task, and the wall time between two finished tasks
    also holds the tasks run meanwhile."""
    from evalmc.engine import scheduler

    clock = iter([0.0, 11.0])
    monkeypatch.setattr(scheduler.time, "perf_counter", lambda: next(clock))
    with scheduler._Progress(1_000_000, None, cached=False, desc="test") as progress:
        progress.computed(1000, 10.0)
        for _ in range(8):
            progress.computed(1000, 0.125)
    assert capsys.readouterr().err == (
        "evalmc: about 2 min 3 s to go (9,000 of 1,000,000 replications in 11.0 s); Ctrl-C "
        "stops the study, add --cache DIR to keep finished blocks and resume.\n")


def _ties_table(reps, d, k):
    return np.round(np.random.default_rng(4).normal(0.8, 0.05, (reps, d, k)), 2)  # ties


def test_ranks_tests_every_pair_in_one_pass(monkeypatch):
    """40 models took 25 s: each of the k^2 / 2 pairs re-ran the Wilcoxon tests of all pairs."""
    from evalmc import ranks
    from evalmc.criteria import ranks as criteria_ranks

    calls = []
    real = criteria_ranks.wilcoxon
    monkeypatch.setattr(criteria_ranks, "wilcoxon", lambda batch: calls.append(1) or real(batch))
    res = ranks(_ties_table(1, 9, 10)[0])
    assert len(res.pairs) == 45 and len(calls) == 1


def test_ranks_pairs_are_each_pairs_tests(monkeypatch):
    """In chunks of a few pairs: the p-values of the tests of each pair on its own, exactly."""
    from evalmc import ranks
    from evalmc.criteria.ranks import holm, nemenyi, wilcoxon_holm_pairs
    from evalmc.criteria.signed_rank import wilcoxon
    from evalmc.sims.base import Batch
    from evalmc.sims.multidataset import TableBatch

    table = _ties_table(3, 9, 7)
    monkeypatch.setattr("evalmc.criteria.ranks.PAIR_CHUNK", 4 * 3 * 9)  # 4 pairs a chunk
    pairs = [(i, j) for i in range(7) for j in range(i + 1, 7)]
    raw = np.stack([wilcoxon(Batch(table[:, :, i], table[:, :, j], paired=True)).pvalues()
                    for i, j in pairs], axis=1)
    assert np.array_equal(wilcoxon_holm_pairs(table), holm(raw))
    res = ranks(table[0])
    batch = TableBatch(table=table[:1])
    assert res.pairs["nemenyi_p"].tolist() == [nemenyi(batch, pair=p).pvalue[0] for p in pairs]
    assert res.pairs["wilcoxon_holm_p"].tolist() == holm(raw)[0].tolist()


def test_boon_bootstrap_estimates_a_long_run_from_its_steady_chunks(capsys, monkeypatch):
    """10 replicates a chunk; the first takes 10 s (compiling), each later one 0.5 s: after
    1 s of steady work, 997 chunks are left, 498.5 s."""
    from evalmc.estimators import boon

    runs = np.random.default_rng(0).normal(70.0, 1.0, 50)
    monkeypatch.setattr(boon, "_CHUNK", 500)
    quiet = boon.boon_interval(runs, n=5, n_resamples=10_000, seed=np.random.default_rng(1),
                               progress=False)
    assert capsys.readouterr().err == ""
    clock = iter([10.0 + 0.5 * k for k in range(1000)])
    monkeypatch.setattr("time.perf_counter", lambda: next(clock))
    shown = boon.boon_interval(runs, n=5, n_resamples=10_000, seed=np.random.default_rng(1))
    assert np.array_equal(shown.replicates, quiet.replicates)
    assert capsys.readouterr().err == (
        "evalmc: the nonparametric bootstrap has about 8 min 18 s to go (30 of 10,000 "
        "resamples of 50 runs); Ctrl-C stops it.\n")


def test_boon_smoothed_bootstrap_runs_in_interruptible_chunks(monkeypatch):
    """One kernel call per chunk (Ctrl-C stops between them), the replicates of one call."""
    from evalmc.estimators import boon

    runs = np.random.default_rng(0).normal(70.0, 1.0, 50)
    whole = boon.boon_interval(runs, n=5, n_resamples=100, method="smoothed",
                               seed=np.random.default_rng(1)).replicates
    calls = []
    kernel = boon._smoothed_kernel
    monkeypatch.setattr(boon, "_smoothed_kernel", lambda *a: calls.append(1) or kernel(*a))
    monkeypatch.setattr(boon, "_CHUNK", 500)  # 10 replicates a chunk
    chunked = boon.boon_interval(runs, n=5, n_resamples=100, method="smoothed",
                                 seed=np.random.default_rng(1)).replicates
    assert len(calls) == 10 and np.array_equal(chunked, whole)


def test_bayes_signed_rank_refuses_more_than_a_million_draws():
    """10^9 draws were days of work per replication; refused before any (the command line
    says the message and exits 2)."""
    from evalmc import get_criterion

    with pytest.raises(ValueError, match=r"^`n_samples` must be an integer in \[1, 1000000\]; "
                                         r"got 1000000000\.$"):
        get_criterion("bayes-signed-rank(n_samples=1e9)")


def test_bayes_signed_rank_draws_in_interruptible_chunks(monkeypatch):
    """A block of 1,000 replications of 10^6 draws was one kernel call of minutes, deaf to
    Ctrl-C; now each call draws 2^20 at most, and the draws are those of one call."""
    from evalmc import get_criterion
    from evalmc.criteria import kernels
    from evalmc.criteria.registry import BAYES_PRIOR
    from evalmc.sims.base import Batch

    rng = np.random.default_rng(0)
    a, b = rng.normal(0.3, 1.0, (7, 10)), rng.normal(0.0, 1.0, (7, 10))
    whole = np.empty(7)
    kernels.signed_rank_posterior(np.random.default_rng(1), b - a, BAYES_PRIOR, 0.0, 300_000,
                                  whole)
    calls = []
    kernel = kernels.signed_rank_posterior
    monkeypatch.setattr(kernels, "signed_rank_posterior",
                        lambda rng, z, *args: calls.append(len(z)) or kernel(rng, z, *args))
    test = get_criterion("bayes-signed-rank", n_samples=300_000)
    chunked = test(Batch(a, b, paired=True), np.random.default_rng(1)).statistic
    assert calls == [3, 3, 1] and np.array_equal(chunked, whole)


def _rate(capsys, argv):
    import json

    assert main([*argv, "--format", "json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)[0]["rate"]


def test_criterion_imports_its_neighbours_and_the_cache_follows_their_edits(capsys, tmp_path):
    """The newcomer's stale cache: the helper beside the criterion edited, --cache served the
    old rate (0.185 against 0.703 uncached)."""
    import sys

    folder, other = tmp_path / "mine", tmp_path / "other"
    folder.mkdir()
    other.mkdir()
    for where, margin in ((folder, "0.0"), (other, "100.0")):
        (where / "helper.py").write_text(f"def margin():\n    return {margin}\n")
        (where / "crit.py").write_text("import helper\n\n\ndef gap(a, b):\n"
                                       "    return bool(a.mean() - b.mean() > helper.margin())\n")
    argv = ["calibrate", "--scenario", "normal", "--param", "mean_a=0.5", "--criterion",
            f"{folder / 'crit.py'}:gap", "--reps", "400"]
    cache = ["--cache", str(tmp_path / "cache")]
    first = _rate(capsys, [*argv, *cache])
    (folder / "helper.py").write_text("def margin():\n    return 0.75\n")
    edited = _rate(capsys, [*argv, *cache])
    assert edited == _rate(capsys, argv) < first and "helper" not in sys.modules
    assert _rate(capsys, [*argv[:-3], f"{other / 'crit.py'}:gap", "--reps", "400"]) == 0.0


def test_cache_key_covers_the_users_modules_transitively(tmp_path, monkeypatch):
    """A criterion using a module of the user's on the path, which uses another: an edit of
    the second changes the key."""
    from evalmc.criteria import load_criterion

    lib, crit = tmp_path / "lib", tmp_path / "crit"
    lib.mkdir()
    crit.mkdir()
    (lib / "deep_margin.py").write_text("VALUE = 0.0\n")
    (lib / "my_margins.py").write_text("from deep_margin import VALUE\n\n\n"
                                       "def margin():\n    return VALUE\n")
    (crit / "crit.py").write_text("import numpy as np\n\nimport evalmc\nfrom my_margins import "
                                  "margin\n\n\ndef gap(a, b):\n"
                                  "    return bool(np.mean(a) - np.mean(b) > margin())\n")
    monkeypatch.syspath_prepend(str(lib))
    monkeypatch.delitem(__import__("sys").modules, "my_margins", raising=False)
    monkeypatch.delitem(__import__("sys").modules, "deep_margin", raising=False)
    criterion = load_criterion(f"{crit / 'crit.py'}:gap")
    before = criterion.key
    (lib / "deep_margin.py").write_text("VALUE = 0.5\n")
    assert load_criterion(f"{crit / 'crit.py'}:gap").key != before


def test_a_data_folder_named_like_a_module_is_no_module_of_the_users(tmp_path, monkeypatch):
    """A folder without __init__.py on the user's path, named like a module the criterion
    imports (here the standard library's `inspect`), is no module of the user's: the key is
    made as without it (the module finder failed on its missing loader)."""
    from evalmc.criteria import load_criterion

    (tmp_path / "crit.py").write_text("import inspect\n\n\ndef half(a, b):\n"
                                      "    return 0.5 if inspect.isclass(int) else 0.0\n")
    without = load_criterion(f"{tmp_path / 'crit.py'}:half").key
    (tmp_path / "inspect").mkdir()  # e.g. a folder of an evaluation harness's logs
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_criterion(f"{tmp_path / 'crit.py'}:half").key == without


def test_ctrl_c_stops_the_running_tasks_of_worker_threads(tmp_path):
    """Ctrl-C reaches the main thread only; with --jobs 2 it waited for the blocks the worker
    threads were running (here 20 s each) before exiting."""
    import signal
    import time

    started = tmp_path / "started"
    (tmp_path / "slow.py").write_text(
        "import pathlib\nimport time\n\n\ndef slow(a, b):\n"
        f"    pathlib.Path({str(started)!r}).touch()\n    time.sleep(0.01)\n    return 0.5\n")
    argv = ["calibrate", "--scenario", "normal", "--criterion", f"{tmp_path / 'slow.py'}:slow",
            "--reps", "8000", "--block-size", "2000", "--jobs", "2", "--backend", "threads"]
    proc = subprocess.Popen([sys.executable, "-m", "evalmc", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    start = time.time()
    while not started.exists():
        assert proc.poll() is None and time.time() - start < 60
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=10)  # the running blocks had 20 s to go
    assert proc.returncode == 130 and "Traceback" not in err
    assert err.startswith("evalmc: interrupted")


def test_an_interrupted_command_without_cache_does_not_offer_one(capsys, monkeypatch, tmp_path):
    from evalmc.estimators import boon

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(boon, "boon_interval", interrupted)
    path = tmp_path / "runs.csv"
    path.write_text("A\n0.9\n0.8\n0.85\n")
    assert main(["boon", str(path), "--n", "2"]) == 130
    assert capsys.readouterr().err == "evalmc: interrupted.\n"


def test_plot_dash_is_refused_not_written_to_a_file_named_dash(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scores.csv").write_text("A,B\n0.9,0.8\n0.8,0.7\n0.7,0.6\n0.9,0.7\n")
    assert main(["ranks", "scores.csv", "--plot", "-"]) == 2
    assert capsys.readouterr().err == ("evalmc: error: `--plot` must be a file name; '-' "
                                       "(standard output) is for --out only.\n")
    assert not (tmp_path / "-").exists()
