"""The Monte Carlo figures resume from their cache: a stopped run recomputes only what it
had not finished, and gives the same figure as a run never stopped."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import main_job
import pandas as pd

from evalmc.cli import main


def _reproduce(spec, out, cache=None):
    args = ["reproduce", spec, "--out", str(out)] + (["--cache", str(cache)] if cache else [])
    assert main(args) == 0


def _uninterrupted(spec, tmp_path):
    """The data of figure `spec` from a run never stopped: CI's main job's when .ci/run
    vouches for it (main_job.py), else computed here."""
    paper, name = spec.split(".")
    folder = main_job.vouched()
    if folder is None:
        folder = tmp_path / "fresh"
        _reproduce(spec, folder)
    return pd.read_csv(folder / paper / f"{name}.csv")


def test_boon_figure_recomputes_only_the_missing_blocks(tmp_path, capsys):
    cache = tmp_path / "cache"
    fresh = _uninterrupted("bajgar2018.fig2", tmp_path)
    _reproduce("bajgar2018.fig2", tmp_path / "first", cache)
    blocks = sorted(cache.rglob("*.npz"))
    for path in blocks[::2]:  # as if stopped with half the blocks done
        path.unlink()
    before = {p: p.stat().st_mtime_ns for p in blocks[1::2]}
    _reproduce("bajgar2018.fig2", tmp_path / "resumed", cache)
    assert all(p.stat().st_mtime_ns == t for p, t in before.items())  # not rewritten
    assert len(list(cache.rglob("*.npz"))) == len(blocks)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "resumed" / "bajgar2018" / "fig2.csv"),
                                  fresh)


def test_network_figure_resumes_after_a_kill(tmp_path):
    """Fig 6 of Giles and Lawrence: 100 blocks (a random-label data set each, 10 networks
    trained by SGD), about 0.04 s each; the kill comes after 10, the resume runs in this
    process."""
    cache, env = tmp_path / "cache", {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    proc = subprocess.Popen([sys.executable, "-m", "evalmc", "reproduce", "giles1997.fig6",
                             "--out", str(tmp_path / "killed"), "--cache", str(cache)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    start = time.time()
    while len(list(cache.rglob("*.npz"))) < 10:
        assert proc.poll() is None, "the figure finished before it could be stopped"
        assert time.time() - start < 120
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = {p: p.stat().st_mtime_ns for p in cache.rglob("*.npz")}
    assert 10 <= len(done) < 100
    _reproduce("giles1997.fig6", tmp_path / "resumed", cache)
    assert all(p.stat().st_mtime_ns == t for p, t in done.items())  # not recomputed
    assert len(list(cache.rglob("*.npz"))) == 100
    assert not list(cache.rglob("*.tmp"))
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "resumed" / "giles1997" / "fig6.csv"),
        _uninterrupted("giles1997.fig6", tmp_path))
