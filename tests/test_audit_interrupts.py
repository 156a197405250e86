"""Ctrl-C in each phase of ``evalmc audit``, made deterministic by raising it from inside the
phase (not by a signal sent after some time): the command says "interrupted" in one line, exits
130 with no traceback, and keeps the blocks its studies finished, from which it resumes.

A KeyboardInterrupt need not reach the command as one: a library that is running when Ctrl-C
comes may turn it into another error (an import cut short fails later as a RuntimeError), or
clear it (numpy's array coercion clears any error but a few), and go on. Here Ctrl-C is a real
SIGINT sent to this process from inside the phase, which Python's handler turns into a
KeyboardInterrupt on the spot; each way a library may treat it still ends the command as
interrupted."""

import signal

import pytest

from evalmc.cli import main
from evalmc.criteria.base import BuiltinCriterion
from evalmc.engine import scheduler
from evalmc.sims import itemmodel
from evalmc.study import audit

#: Three blocks under the null, one under each alternative; one worker: tasks run in order.
ARGS = ["--a", "x", "--b", "y", "--cluster", "subject", "--sample", "sample", "--criterion",
        "paired-items", "--criterion", "clustered-z", "--estimator", "paired-z-interval",
        "--delta", "0.1", "--reps", "2500", "--reps-alt", "200", "--jobs", "1", "--quiet"]
INTERRUPTED = ("evalmc: interrupted; finished blocks are kept in --cache, if given: re-run the "
               "same command to resume.\n")
#: The studies of an audit, in the order it runs them.
STUDIES = ("null", "alternatives", "intervals")


def _read(monkeypatch):
    from evalmc.inputs import itemlogs

    itemmodel.forget_fits()  # else the table an earlier test read is remembered, and not read
    return itemlogs, "read_items"


def _fit(monkeypatch):
    itemmodel.forget_fits()  # else a fit of an earlier test is remembered
    monkeypatch.setattr(itemmodel, "_PAIRED", {})
    return itemmodel, "fit_items"


#: Each phase before and after the studies: where a function it calls first is found.
PHASES = {
    "reading the file": _read,
    "fitting the item model": _fit,
    "timing the procedures": lambda mp: (itemmodel.ItemModel, "draw"),
    "a procedure's first run (timed)": lambda mp: (BuiltinCriterion, "__call__"),
    "the observed procedures": lambda mp: (audit, "_observed"),
    "the faithfulness of the fit": lambda mp: (itemmodel, "faithfulness"),
    "the recommendation": lambda mp: (audit, "recommend"),
    "the report": lambda mp: (audit.AuditResult, "report"),
    "the figure": lambda mp: (__import__("evalmc.plots").plots, "audit_figure"),
}


def ctrl_c():
    """Ctrl-C, as a terminal sends it: SIGINT to this process, raised on the spot."""
    signal.raise_signal(signal.SIGINT)


def raised():
    ctrl_c()


def turned():
    """A library that turns the KeyboardInterrupt into its own error."""
    try:
        ctrl_c()
    except KeyboardInterrupt:
        raise RuntimeError("a module half imported") from None


def cleared():
    """A library that clears it and goes on, and fails later on what it left half done."""
    try:
        ctrl_c()
    except KeyboardInterrupt:
        pass
    raise TypeError("The axis argument to unique is not supported for dtype object")


def swallowed():
    """A library that clears it and goes on as if nothing happened."""
    try:
        ctrl_c()
    except KeyboardInterrupt:
        pass


WAYS = {"raised": raised, "turned into another error": turned,
        "cleared, then an error": cleared, "cleared": swallowed}


@pytest.fixture(scope="module")
def items(tmp_path_factory):
    """Two models' 0/1 scores on 48 items in 8 subjects, two samples each."""
    path = tmp_path_factory.mktemp("items") / "items.csv"
    rows = [f"{m},{i},{i % 8},{s},{int((i * 7 + s * 3 + (m == 'x') * (i % 3)) % 5 > 1)}"
            for m in "xy" for i in range(48) for s in range(2)]
    path.write_text("model,item,subject,sample,score\n" + "\n".join(rows) + "\n")
    return path


@pytest.fixture(autouse=True)
def quick_timing(monkeypatch):
    """The time estimate on a few replications: its length is not what is tested."""
    monkeypatch.setattr(audit, "PILOT_SECONDS", 0.001)


@pytest.fixture
def terminal():
    """SIGINT handled as in a terminal (a shell running the tests in the background ignores
    it, and this process would too)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _interrupt(monkeypatch, owner, name, way):
    """Ctrl-C, in `way`, at the first call of `owner.name`."""
    func = getattr(owner, name)
    calls = []

    def first_call(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            WAYS[way]()
        return func(*args, **kwargs)

    monkeypatch.setattr(owner, name, first_call)
    return calls


def _studies(monkeypatch, study=None, way="raised"):
    """The blocks each study computes; with `study`, Ctrl-C in `way` at its first task after
    one has finished (its blocks stored)."""
    blocks = {s: 0 for s in STUDIES}
    done = {s: 0 for s in STUDIES}
    current = []
    init, finish, run_task = (scheduler.Scheduler.__init__, scheduler.Scheduler.finish,
                              scheduler.run_task)

    def counted_init(self, *args, **kwargs):
        current.append(STUDIES[len(current)])
        init(self, *args, **kwargs)

    def counted_finish(self, result):
        done[current[-1]] += 1
        return finish(self, result)

    def counted_task(task):
        if current[-1] == study and done[study]:
            WAYS[way]()
        blocks[current[-1]] += len(task.sizes)
        return run_task(task)

    monkeypatch.setattr(scheduler.Scheduler, "__init__", counted_init)
    monkeypatch.setattr(scheduler.Scheduler, "finish", counted_finish)
    monkeypatch.setattr(scheduler, "run_task", counted_task)
    return blocks


def _audit(capsys, items, *more):
    code = main(["audit", str(items), *ARGS, *more])
    out, err = capsys.readouterr()
    return code, out, err


#: Every phase with Ctrl-C raised; every way of a library's in the phases that call the most
#: of other libraries (files read, kernels loaded and procedures first run, the figure drawn).
CASES = [(phase, "raised") for phase in PHASES] + [
    (phase, way) for phase in ("reading the file", "a procedure's first run (timed)",
                               "the figure")
    for way in WAYS if way != "raised"]


@pytest.mark.parametrize(("phase", "way"), CASES)
def test_ctrl_c_in_a_phase_outside_the_studies(phase, way, monkeypatch, capsys, tmp_path,
                                               terminal, items):
    owner, name = PHASES[phase](monkeypatch)
    calls = _interrupt(monkeypatch, owner, name, way)
    cache = tmp_path / "cache"
    code, out, err = _audit(capsys, items, "--cache", str(cache), "--plot", str(tmp_path / "a.png"))
    assert calls, f"{name} was not called"
    assert (code, err) == (130, INTERRUPTED), err
    assert "Traceback" not in out + err
    blocks = list(cache.rglob("*.npz"))
    assert bool(blocks) == (phase in ("the observed procedures", "the faithfulness of the fit",
                                      "the recommendation", "the report", "the figure"))


@pytest.mark.parametrize(("study", "way"), [(s, "raised") for s in STUDIES] + [
    ("null", way) for way in WAYS if way != "raised"])
def test_ctrl_c_in_a_study_keeps_its_finished_blocks_and_resumes(study, way, monkeypatch,
                                                                  capsys, tmp_path, terminal,
                                                                  items):
    cache = tmp_path / "cache"
    with monkeypatch.context() as patched:
        _studies(patched, study, way)
        code, out, err = _audit(capsys, items, "--cache", str(cache))
    assert (code, out, err) == (130, "", INTERRUPTED)
    with monkeypatch.context() as patched:
        resumed_blocks = _studies(patched)
        code, resumed, _ = _audit(capsys, items, "--cache", str(cache))
    assert code == 0
    fresh_blocks = _studies(monkeypatch)
    code, fresh, _ = _audit(capsys, items)
    assert code == 0 and resumed == fresh
    for s in STUDIES[:STUDIES.index(study)]:
        assert resumed_blocks[s] == 0 < fresh_blocks[s]  # a finished study's blocks all kept
    assert 0 < resumed_blocks[study] < fresh_blocks[study]  # its finished blocks kept
