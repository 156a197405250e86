"""The contract between a study and a user's criterion (or estimator): read-only scores,
captured prints, answers that mean one thing, exits that are failures."""

import re
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

from evalmc.criteria.base import UserCriterion
from evalmc.criteria.capture import CriterionPrinted, captured_stdout
from evalmc.engine.scheduler import StudyError
from evalmc.estimators.intervals import UserEstimator
from evalmc.sims.base import Batch
from evalmc.study.rates import make_design, run_study

DESIGN = make_design(n_a=[6], n_b=[6])


def sorts_in_place(a, b):
    a.sort()
    return 0.5


def shifts_in_place(a, b):
    a[:] = a + 100
    return 0.5


def _rates(criteria, cache=None, **kw):
    res = run_study(DESIGN, "normal", criteria, n_reps=2000, seed=3, block_size=500,
                    cache=cache, max_failure_rate=1.0, **kw)
    return res.summary.set_index("criterion")


@pytest.mark.parametrize("culprit, victim", [(sorts_in_place, "sign"),
                                             (shifts_in_place, "mann-whitney")])
def test_a_criterion_writing_its_input_cannot_change_another(culprit, victim, tmp_path):
    alone = _rates([victim]).loc[victim, "rate"]
    together = _rates([culprit, victim], cache=tmp_path)
    assert together.loc[victim, "rate"] == alone
    assert together.loc[culprit.__name__, "n_failed"] == 2000
    assert _rates([victim], cache=tmp_path).loc[victim, "rate"] == alone  # the cache is clean


def test_writing_the_input_is_reported_with_the_rule():
    with pytest.raises(StudyError, match=r"changed its input in place.*np\.sort\(a\)"):
        run_study(DESIGN, "normal", [sorts_in_place], n_reps=200, seed=0, block_size=100)


def test_batch_arrays_are_read_only_views_of_the_callers_arrays():
    a = np.zeros((2, 3))
    batch = Batch(a, a.copy(), paired=True)
    assert not batch.a.flags.writeable and not batch.moments()[0].flags.writeable
    a[0, 0] = 1.0  # the caller's own array stays writable
    assert batch.a[0, 0] == 1.0


def _batch():
    rng = np.random.default_rng(0)
    return Batch(rng.normal(size=(4, 5)), rng.normal(size=(4, 5)), paired=False)


def test_integer_answers_are_decisions_and_other_integers_are_refused():
    res = UserCriterion(lambda a, b: 1)(_batch(), None)
    assert res.decisions(0.05).all() and not res.failed.any()
    assert not UserCriterion(lambda a, b: np.int64(0))(_batch(), None).decisions(0.05).any()
    res = UserCriterion(lambda a, b: 2)(_batch(), None)
    assert res.failed.all() and "returned the integer 2" in res.errors[0]
    block = UserCriterion(lambda a, b, axis: np.array([0, 1, 1, 3]))(_batch(), None)
    assert block.failed.tolist() == [False, False, False, True]
    assert block.decisions(0.05)[:3].tolist() == [False, True, True]


def test_system_exit_is_a_failed_replication():
    def leaves(a, b):
        sys.exit(3)

    res = UserCriterion(leaves)(_batch(), None)
    assert res.failed.all() and res.errors[0] == "SystemExit: 3"


def test_prints_are_captured_and_announced_once(capsys):
    def chatty(a, b):
        print("debug", a[0])
        return 0.5

    with pytest.warns(CriterionPrinted, match="chatty' printed.*first line: 'debug"):
        res = UserCriterion(chatty)(_batch(), None)
    assert not res.failed.any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        UserCriterion(chatty)(_batch(), None)  # said once per criterion
    assert capsys.readouterr().out == ""


def test_capture_is_per_thread_and_restores_stdout():
    original = sys.stdout
    seen = {}
    barrier = threading.Barrier(2)

    def work(name):
        with captured_stdout() as buffer:
            barrier.wait()
            print(name)
            barrier.wait()
        seen[name] = buffer.getvalue()

    threads = [threading.Thread(target=work, args=(n,)) for n in ("one", "two")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"one": "one\n", "two": "two\n"}
    assert sys.stdout is original


def test_csv_summary_on_stdout_is_not_corrupted_by_prints(tmp_path):
    (tmp_path / "loud.py").write_text("def loud(a, b):\n    print('hello')\n    return 0.5\n")
    out = subprocess.run(
        [sys.executable, "-m", "evalmc", "calibrate", "--scenario", "normal", "--criterion",
         "loud.py:loud", "--reps", "100", "--block-size", "100", "--format", "csv", "--quiet"],
        cwd=tmp_path, capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0].startswith("scenario,") and len(lines) == 2
    assert "hello" not in out.stdout
    assert out.stderr.startswith("evalmc: warning: criterion 'loud.py:loud' printed")


# A user's estimator is wrapped as a user's criterion is: the same contract.

def test_an_estimator_that_exits_fails_its_replication_not_the_study():
    def leaves(a, b):
        if a[0] > 0:
            sys.exit(3)
        return a.mean()

    res = UserEstimator(leaves)(_batch(), None)
    assert res.failed.tolist() == (_batch().a[:, 0] > 0).tolist()
    assert set(res.errors.values()) == {"SystemExit: 3"}


def test_an_estimator_writing_its_input_is_told_the_rule():
    def sorts(a, b):
        a.sort()
        return a.mean()

    res = UserEstimator(sorts)(_batch(), None)
    assert res.failed.all()
    assert "(the estimator changed its input in place; the scores are read-only, shared with " \
           "the other estimators: work on a copy" in res.errors[0]


def test_an_estimators_prints_are_captured_and_announced_once(capsys):
    def talkative(a, b):
        print("debug", a[0])
        return a.mean()

    with pytest.warns(CriterionPrinted, match="estimator '.*talkative' printed.*first line: "
                                              "'debug.*what estimators print"):
        res = UserEstimator(talkative)(_batch(), None)
    assert not res.failed.any() and capsys.readouterr().out == ""


def test_an_estimator_stops_on_ctrl_c_between_replications(monkeypatch):
    from evalmc.engine import options

    stop = threading.Event()
    stop.set()  # the pool is closing
    monkeypatch.setattr(options._WORKER, "stop", stop, raising=False)
    calls = []
    with pytest.raises(KeyboardInterrupt):
        UserEstimator(lambda a, b: calls.append(1) or 0.0)(_batch(), None)
    assert calls == []


def test_an_estimator_that_cannot_be_pickled_is_refused_by_name():
    lock = threading.Lock()

    def locked(a, b):
        with lock:
            return a.mean()

    with pytest.raises(ValueError, match="estimator '.*locked' cannot be pickled by value, as "
                                         "its cache key needs: TypeError"):
        _ = UserEstimator(locked).key


@pytest.mark.parametrize(("spec", "message"), [
    ("{tmp}/none.py:f", "`estimator` file '{tmp}/none.py' does not exist."),
    ("{tmp}/est.py:g", "`estimator` file '{tmp}/est.py' has no function 'g'."),
    ("{tmp}/bad.py:f", "`estimator` file '{tmp}/bad.py' failed to import: ZeroDivisionError"),
])
def test_an_estimators_file_is_named_as_the_estimators(tmp_path, spec, message):
    from evalmc.estimators.intervals import get_estimator

    (tmp_path / "est.py").write_text("def f(a, b):\n    return a.mean()\n")
    (tmp_path / "bad.py").write_text("1 / 0\n")
    with pytest.raises(ValueError, match=re.escape(message.format(tmp=tmp_path))):
        get_estimator(spec.format(tmp=tmp_path))


def _wrong_axis(a, b, axis):
    """Welch's t along axis 0, whatever `axis` says."""
    from scipy import stats

    return stats.ttest_ind(a, b, axis=0, equal_var=False).pvalue


def _right_axis(a, b, axis):
    from scipy import stats

    return stats.ttest_ind(a, b, axis=axis, equal_var=False).pvalue


def test_an_answer_along_the_wrong_axis_fails_when_the_block_is_as_wide_as_the_scores():
    rng = np.random.default_rng(0)
    square = Batch(rng.normal(size=(6, 6)), rng.normal(size=(6, 6)), paired=False)
    res = UserCriterion(_wrong_axis)(square, None)
    assert res.failed.all()
    assert "shape (6,) for a block of 5 replications" in res.errors[0]
    assert "axis 0" in res.errors[0]
    with pytest.raises(StudyError, match="reduce along axis 0"):
        run_study(DESIGN, "normal", [_wrong_axis], n_reps=60, seed=1, block_size=6)
    ok = UserCriterion(_right_axis)(square, None)  # the right axis is kept, value for value
    assert not ok.failed.any()
    from scipy import stats
    np.testing.assert_array_equal(ok.pvalue, stats.ttest_ind(square.a, square.b, axis=1,
                                                             equal_var=False).pvalue)
