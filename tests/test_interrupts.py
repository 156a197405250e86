"""Ctrl-C on every backend, made deterministic from inside a criterion: a terminal's SIGINT goes
to the whole process group of the study (its workers included), and a KeyboardInterrupt raised
in a task stops the study as on threads."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

#: A criterion that, on its 30th call counted across processes, sends SIGINT to its process
#: group, as a terminal's Ctrl-C does; once (a second Ctrl-C would stop the clean-up).
STOPPER = '''
import os
import signal


def f(a, b):
    """Ctrl-C from a terminal on the 30th call."""
    with open({calls!r}, "a") as fh:
        fh.write("x")
    if os.path.getsize({calls!r}) >= 30:
        try:
            os.close(os.open({sent!r}, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return 0.5
        os.killpg(os.getpgrp(), signal.SIGINT)
    return 0.5
'''


def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a shell running tests in the background


@pytest.mark.parametrize("backend", ["threads", "loky", pytest.param(
    "dask", marks=pytest.mark.slow)])  # a local dask cluster takes about 10 s to start and stop
def test_ctrl_c_from_the_terminal_stops_the_study(backend, tmp_path):
    if backend == "dask":
        pytest.importorskip("distributed")
    path = tmp_path / "stop.py"
    path.write_text(STOPPER.format(calls=str(tmp_path / "calls"), sent=str(tmp_path / "sent")))
    proc = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "evalmc", "calibrate", "--scenario",
         "normal", "--criterion", f"{path}:f", "--reps", "2000", "--block-size", "10",
         "--backend", backend, "--jobs", "2", "--cache", str(tmp_path / "cache")],
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=_default_sigint)  # its own group: ours is spared
    out, err = proc.communicate(timeout=120)
    assert (tmp_path / "sent").exists()
    assert proc.returncode == 130 and out == "", err
    assert "Traceback" not in err, err  # nor a worker's
    assert err.endswith("evalmc: interrupted; finished blocks are kept in --cache, if given: "
                        "re-run the same command to resume.\n")


#: A study whose criterion raises KeyboardInterrupt in a task, on the backend of argv[1]; dask
#: on an in-process cluster (threads: quick to start).
RAISER = '''
import sys

import evalmc

CALLS = []


def f(a, b):
    CALLS.append(1)
    if len(CALLS) == 30:
        raise KeyboardInterrupt
    return 0.5


def study():
    evalmc.run_study({"n_a": 5}, "normal", [f], n_reps=2000, block_size=10, seed=1,
                     n_jobs=2, backend=sys.argv[1], progress=False)


if __name__ == "__main__":
    try:
        if sys.argv[1] == "dask":
            from distributed import Client, LocalCluster

            with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                              dashboard_address=None, silence_logs=50) as cluster, \\
                    Client(cluster):
                study()
        else:
            study()
    except KeyboardInterrupt:
        print("interrupted")
    else:
        print("not interrupted")
'''


@pytest.mark.parametrize("backend", ["loky", "dask"])
def test_a_keyboard_interrupt_in_a_task_stops_the_study(backend, tmp_path):
    """On dask a task's KeyboardInterrupt killed its worker thread: the study hung (on a
    cluster of processes the worker was restarted and the task run again)."""
    if backend == "dask":
        pytest.importorskip("distributed")
    path = tmp_path / "raiser.py"
    path.write_text(textwrap.dedent(RAISER))
    proc = subprocess.run([sys.executable, str(path), backend], env=_env(), cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.stdout == "interrupted\n", proc.stderr


def test_a_local_clusters_processes_leave_ctrl_c_to_the_study():
    """Started with SIGINT ignored, they inherit it: a terminal's Ctrl-C reaches them too, and
    their own KeyboardInterrupt tracebacks would cover the study's one-line stop."""
    from evalmc.engine.executors import _sigint_ignored

    before = signal.getsignal(signal.SIGINT)
    with _sigint_ignored():
        child = subprocess.run([sys.executable, "-c", "import signal; print(signal.getsignal("
                                "signal.SIGINT) == signal.SIG_IGN)"], capture_output=True,
                               text=True, timeout=60)
    assert child.stdout == "True\n"
    assert signal.getsignal(signal.SIGINT) is before
