"""The lessons: each headline against an independent reference, the pages and figures they
write, grading a student's test, the command line, and the gallery being current.

Each lesson's study runs once here, at the smallest size its headline check needs (the size of
its ``regression`` value), in a fixture the tests share; the independent reference of each
headline is ``naive.LESSON_REFERENCES``. The gallery check does not rerun the lessons: each page
embeds the fingerprint of the code and inputs that made it (:mod:`evalmc.lessons.page`).
"""

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import naive
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalmc
from evalmc.cli import main
from evalmc.lessons import LESSONS, get_lesson
from evalmc.lessons.base import Lesson
from evalmc.lessons.figures import MAX_CURVES
from evalmc.lessons.page import fingerprint, page_fingerprint
from evalmc.reproductions.report import layout_problems

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "figures" / "lessons"


@pytest.fixture(scope="module")
def studies():
    """Each lesson's frame at the size of its regression value, seed 0, computed once on first
    use."""
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = get_lesson(name).compute(get_lesson(name).regression.reps, 0, 2)
        return cache[name]
    return get


def test_every_registered_lesson_loads_as_registered():
    assert len(LESSONS) >= 14
    for name, entry in LESSONS.items():
        lesson = entry.load()
        assert isinstance(lesson, Lesson) and lesson.id == name
        assert entry.facts["grades"] == (lesson.grading is not None)
        assert len(lesson.predict) == len(lesson.answers) >= 1
    assert set(naive.LESSON_REFERENCES) == set(LESSONS)


def test_the_registry_and_the_command_parser_import_no_numerical_library():
    code = ("import json, sys, argparse\nimport evalmc.lessons\nfrom evalmc.commands import "
            "lesson\nlesson.register(argparse.ArgumentParser().add_subparsers())\n"
            "print(json.dumps([m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'pandas', 'scipy', 'numba', 'matplotlib')]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out) == []


@pytest.mark.parametrize("name", list(LESSONS))
def test_headline_is_within_4_mcse_of_an_independent_reference(name, studies):
    head = get_lesson(name).headline(studies(name))
    want, want_mcse = naive.LESSON_REFERENCES[name]()
    assert abs(head.value - want) <= 4 * math.hypot(head.mcse, want_mcse), (head, want)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(LESSONS))
def test_full_scale_headline_is_within_4_mcse_of_the_reference(name):
    lesson = get_lesson(name)
    head = lesson.headline(lesson.compute(lesson.reps["full"], 1, 2))
    want, want_mcse = naive.LESSON_REFERENCES[name]()
    assert abs(head.value - want) <= 4 * math.hypot(head.mcse, want_mcse), (head, want)


@pytest.mark.parametrize("name", list(LESSONS))
def test_headline_fixed_seed_value(name, studies):
    lesson = get_lesson(name)
    assert lesson.headline(studies(name)).value == pytest.approx(lesson.regression.value,
                                                                 abs=1e-4)


def test_boo_n_headline_is_the_published_boo_10():
    assert naive.expected_max_normal(10) == pytest.approx(1.53875, abs=1e-4)  # Bajgar et al.


def test_rank_one_tie_reference_fits_as_ours_and_calibrated_boards_hold_5_percent(studies):
    """The reference's MM fit is the Newton fit of the boards; the bootstrap over prompts names
    a false rank 1 (top two tied) no more often than 5% (binomial test), the Arena's bootstrap
    far more often, and a board names one model rank 1 where some rank set is {1}."""
    from evalmc.criteria.leaderboard import bootstrap
    from evalmc.lessons.rank_one import _Crowns
    from evalmc.sims.bradley_terry import fit
    from evalmc.sims.leaderboard import Arena

    batch = Arena(models=5, tied=2, spacing=0.3, battles=400).draw(np.random.default_rng(3), 4)
    wins = batch.wins[:, 0] + 0.5 * batch.ties[:, 0]
    np.testing.assert_allclose(naive.bradley_terry_mm(wins), fit(batch.wins[:, 0],
                                                                 batch.ties[:, 0]), atol=1e-8)
    frame = studies("rank-one-tie")
    for procedure in ("board-prompt-bootstrap", "board-wald"):
        row = frame[(frame["tied"] == 2) & (frame["procedure"] == procedure)].iloc[0]
        k = round(row["rate"] * row["n_reps"])
        assert stats.binomtest(k, int(row["n_reps"]), 0.05, "greater").pvalue > 0.001, row
    arena = frame[(frame["tied"] == 2) & (frame["procedure"] == "board-bootstrap")].iloc[0]
    assert stats.binomtest(round(arena["rate"] * arena["n_reps"]), int(arena["n_reps"]), 0.05,
                           "greater").pvalue < 1e-6
    claims = bootstrap().claims(batch, np.random.default_rng(4))
    low, high = claims.rank_sets()
    crit = evalmc.get_criterion("board-bootstrap")
    ((tally, _),) = _Crowns(crit).tallies(claims, np.array([0, 4]), None)
    np.testing.assert_array_equal(tally.columns["crowned"], ((low == 1) & (high == 1)).any(axis=1))


def test_wald_small_every_coverage_is_within_4_mcse_of_the_exact_sum(studies):
    """Each interval's coverage at each (n, accuracy), against the finite binomial sum."""
    from evalmc.estimators.proportions import bounds
    from evalmc.stats.binomial import coverage_at

    frame = studies("wald-small")
    assert len(frame) == 33
    for row in frame.itertuples():
        exact = float(coverage_at(*bounds(row.estimator, row.n), row.theta))
        assert abs(row.coverage - exact) <= 4 * row.mcse, row


@pytest.mark.parametrize("name", list(LESSONS))
def test_figure_reads_on_a_projector(name, studies):
    lesson = get_lesson(name)
    fig = lesson.plot(studies(name))
    assert layout_problems(fig) == []
    assert fig.get_suptitle() == lesson.title
    for ax in fig.axes:
        curves = [line for line in ax.get_lines() if line.get_marker() not in (None, "None")]
        assert 1 <= len(curves) <= MAX_CURVES
        assert ax.xaxis.label.get_fontsize() >= 14


def test_lesson_is_deterministic_and_each_student_gets_other_data():
    lesson = get_lesson("rerun")
    first, again = lesson.compute(300, 5), lesson.compute(300, 5)
    other = lesson.compute(300, 6)
    pd.testing.assert_frame_equal(first, again)
    assert not first["rate"].equals(other["rate"])


def test_lesson_writes_figure_csv_and_page(tmp_path):
    res = evalmc.lesson("snooping", student_seed=4, out=tmp_path)
    assert [p.name for p in res.files] == ["snooping.png", "snooping.csv", "snooping.md"]
    assert all(p.stat().st_size > 0 for p in res.files)
    page = (tmp_path / "snooping.md").read_text()
    for section in ("## The question", "## Predict first", "## What the simulation shows",
                    "## Answers", "## Why", "## What to do instead", "--student-seed 4"):
        assert section in page
    assert f"{res.headline.value:.3f}" in page
    assert page_fingerprint(page) == fingerprint(res.lesson, "class", 4)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "snooping.csv"), res.data,
                                  check_dtype=False)


def test_a_published_number_is_on_the_page():
    res = evalmc.lesson("single-run")
    assert "Published: about 10%" in res.page and "Bouthillier et al. (2021)" in res.page


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"scale": "huge"}, "`scale` must be one of 'class', 'full'; got 'huge'."),
    ({"student_seed": -1}, "`student_seed` must be"),
])
def test_bad_arguments_name_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        evalmc.lesson("rerun", **kwargs)


def test_unknown_lesson_lists_the_valid_ones():
    with pytest.raises(ValueError, match="unknown lesson 'nope'; valid names: single-run"):
        evalmc.lesson("nope")


def test_grade_passes_welch_and_fails_student(tmp_path, capsys):
    tests = tmp_path / "student.py"
    tests.write_text("from scipy import stats\n\n\n"
                     "def welch(a, b, axis=-1):\n"
                     "    return stats.ttest_ind(a, b, axis=axis, equal_var=False).pvalue\n\n\n"
                     "def pooled(a, b, axis=-1):\n"
                     "    return stats.ttest_ind(a, b, axis=axis).pvalue\n")
    assert main(["lesson", "grade", "student-t", f"{tests}:welch"]) == 0
    out = capsys.readouterr().out
    assert "PASS" in out and "welch-t" in out
    assert main(["lesson", "grade", "student-t", f"{tests}:pooled"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "is outside [0.025, 0.075]" in out


def test_grade_on_paired_seeds_fails_a_test_that_ignores_the_pairing():
    from evalmc.lessons.grading import grade

    def welch(a, b, axis=-1):
        return stats.ttest_ind(a, b, axis=axis, equal_var=False).pvalue

    def paired(a, b, axis=-1):
        return stats.ttest_rel(a, b, axis=axis).pvalue

    unpaired = grade("seeds-power", welch)
    assert not unpaired.passed and unpaired.table["size"].iloc[0] < 0.025
    assert grade("seeds-power", paired).passed


def test_grade_fails_a_test_without_power():
    from evalmc.lessons.grading import grade

    def blind(a, b, axis=-1):  # a uniform p-value from digits of the data: size 5%, power 5%
        return np.modf(np.abs(np.take(a, 0, axis=axis)) * 1e6)[0]

    res = grade("single-run", blind)
    assert not res.passed and "power" in res.reason, res.table


_STUDENT = """import os
import sys
import time


def sleeps(a, b):
    \"\"\"Write its process id and the time, then never return.\"\"\"
    with open(os.environ["EVALMC_TEST_MARK"], "w") as mark:
        mark.write(f"{os.getpid()} {time.time()}")
    time.sleep(3600)


def raises(a, b, axis=-1):
    raise ZeroDivisionError("my own bug")


def exits(a, b):
    os._exit(3)
"""


def _student(tmp_path, monkeypatch=None):
    """The student's file of :data:`_STUDENT` in `tmp_path`, and where its `sleeps` marks."""
    path, mark = tmp_path / "stu.py", tmp_path / "mark.txt"
    path.write_text(_STUDENT)
    if monkeypatch is not None:
        monkeypatch.setenv("EVALMC_TEST_MARK", str(mark))
    return path, mark


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_grade_stops_a_call_past_its_time_limit_and_names_the_function(tmp_path, monkeypatch,
                                                                        n_jobs):
    """A student's function that never returns: grading stops `timeout` seconds after the call
    began (plus a small margin), says so in one line naming it, and its worker is gone."""
    from evalmc.lessons.grading import GradeStopped, grade

    path, mark = _student(tmp_path, monkeypatch)
    start = time.monotonic()
    with pytest.raises(GradeStopped) as stop:
        grade("student-t", f"{path}:sleeps", timeout=1, n_jobs=n_jobs)
    returned = time.time()
    assert time.monotonic() - start < 1 + 15  # its worker's start and the study's set-up
    pid, began = mark.read_text().split()
    assert returned - float(began) < 1 + 1.5
    assert int(pid) != os.getpid() and _gone(int(pid))
    message = str(stop.value)
    assert message == (f"the student's test '{path}:sleeps' did not return within 1 s on "
                       "lesson 'student-t'; its worker process was stopped (`timeout` sets "
                       "the limit of each call).")
    assert stop.value.criterion == f"{path}:sleeps"


def test_grade_command_stops_at_timeout_in_one_line_naming_the_function(tmp_path, monkeypatch,
                                                                        capsys):
    path, mark = _student(tmp_path, monkeypatch)
    assert main(["lesson", "grade", "student-t", f"{path}:sleeps", "--timeout", "1"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"evalmc: stopped: the student's test '{path}:sleeps' did not "
                          "return within 1 s on lesson 'student-t'")
    assert "--timeout SECONDS" in err
    assert _gone(int(mark.read_text().split()[0]))


def test_grade_in_a_worker_gives_what_the_function_gives_here():
    """Called in its worker, a function that draws from its rng and prints gets the same
    answers as called here (the same stream), its prints still captured and announced."""
    from evalmc.criteria import get_criterion
    from evalmc.lessons.grading import grade
    from evalmc.study.calibration import calibrate

    def coin(a, b, rng):
        print("drawn")
        return float(rng.uniform()) if a[0] > -1 else 1.0

    with pytest.warns(UserWarning, match="coin' printed"):  # once: before the study here
        table = grade("student-t", coin, seed=2).table
    rule = get_lesson("student-t").grading
    here = calibrate(rule.scenario, [get_criterion(coin)], params=rule.conditions(),
                     n_reps=rule.n_reps["class"], seed=2, progress=False).summary
    assert table.iloc[0][["size", "power"]].tolist() == here["rate"].tolist()


def test_grade_time_limit_default_is_10_s_on_both_sides():
    import inspect

    from evalmc.commands import lesson
    from evalmc.lessons.grading import TIMEOUT, grade

    assert TIMEOUT == lesson.TIMEOUT == 10
    assert inspect.signature(grade).parameters["timeout"].default == TIMEOUT
    assert main(["lesson", "grade", "student-t", "x.py:f", "--timeout", "0"]) == 2


def test_grade_names_a_function_that_raises(tmp_path, capsys):
    from evalmc.lessons.grading import GradeStopped, grade

    path, _ = _student(tmp_path)
    with pytest.raises(GradeStopped, match=(
            f"^the student's test '{path}:raises' failed in 2000 of 2000 replications on "
            "lesson 'student-t'; first error: ZeroDivisionError: my own bug.$")):
        grade("student-t", f"{path}:raises")
    assert main(["lesson", "grade", "student-t", f"{path}:raises"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"'{path}:raises' failed" in err


def test_grade_loads_the_students_module_whatever_pickler_loky_was_given(tmp_path):
    """A library may set loky's pickler for the whole process (deepsig sets dill); the standard
    pickler would look the student's module up by name in the worker, where it is unknown."""
    path, _ = _student(tmp_path)
    code = ("from joblib.externals.loky import set_loky_pickler\nset_loky_pickler('pickle')\n"
            "from evalmc.lessons.grading import GradeStopped, grade\n"
            f"try:\n    grade('student-t', {str(path) + ':raises'!r}, timeout=20)\n"
            "except GradeStopped as stop:\n    print(stop)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "failed in 2000 of 2000 replications" in out, out


def test_grade_names_a_function_that_ends_its_worker_process(tmp_path):
    from evalmc.lessons.grading import GradeStopped, grade

    path, _ = _student(tmp_path)
    with pytest.raises(GradeStopped, match=(
            f"^the student's test '{path}:exits' ended its worker process \\(it exited, "
            r"crashed or ran out of memory\) on lesson 'student-t'.$")):
        grade("student-t", f"{path}:exits")


def test_grade_interrupted_says_so_naming_the_function_and_stops_its_worker(tmp_path):
    """Ctrl-C while the student's function runs (it has written its mark): "interrupted", the
    function named, status 130, no traceback, and the worker process gone. The grader starts
    with SIGINT handled, as from a terminal: started from tests run in the background by a
    shell, which ignores SIGINT there, it would inherit SIGINT ignored, and Ctrl-C would go
    unseen until the call's time limit (exit 1)."""
    path, mark = _student(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "evalmc", "lesson", "grade", "student-t",
                             f"{path}:sleeps"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "EVALMC_TEST_MARK": str(mark)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not (mark.exists() and mark.read_text()) and proc.poll() is None:
        assert time.monotonic() < deadline, "the student's function never started"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err == (f"evalmc: interrupted while grading the student's test '{path}:sleeps' on "
                   "lesson student-t.\n")
    assert _gone(int(mark.read_text().split()[0]))


def test_each_page_says_the_replications_its_study_used():
    """A page states the replications its CSV holds: `n` per condition when every row ran `n`;
    else (the planner of seeds-power stops before its cap) what each curve used, in all."""
    for name in LESSONS:
        frame = pd.read_csv(GALLERY / f"{name}.csv")
        page = (GALLERY / f"{name}.md").read_text()
        reps = frame["n_reps"].unique()
        if len(reps) == 1:
            assert f"; {int(reps[0]):,} replications per condition, seed 0" in page, name
        else:
            assert "replications per condition" not in page, name
    frame = pd.read_csv(GALLERY / "seeds-power.csv")
    page = (GALLERY / "seeds-power.md").read_text()
    used = frame.groupby("gain")["n_reps"].sum()
    assert used[0.5] == 10000 and "for gains of 0.3, 0.5 and 0.8 sd" in page
    assert (f"the planner ran {used[0.3]:,}, {used[0.5]:,} and {used[0.8]:,} replications"
            in page)
    assert "its cap is 40,000 per gain" in page


@pytest.mark.parametrize(("argv", "message"), [
    (["lesson", "nope"], "unknown lesson 'nope'"),
    (["lesson", "grade", "student-t"], "grade ID FILE.py:function"),
    (["lesson", "grade", "mcnemar", "x.py:f"], "has no grading rule"),
    (["lesson", "list", "extra"], "takes no more arguments"),
    (["lesson", "all", "--scale", "full"], "class scale and seed 0"),
])
def test_command_line_bad_input_is_one_line_and_status_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_list_prints_every_lesson(capsys):
    assert main(["lesson", "list", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["lesson"] for r in rows] == list(LESSONS)
    graded = {r["lesson"] for r in rows if r["grades"] == "yes"}
    assert graded == {n for n in LESSONS if get_lesson(n).grading is not None} and graded


def test_gallery_is_current():
    """Every lesson's page, figure and CSV are in figures/lessons, made by the code as it is
    now (the page's fingerprint), and the index links each one."""
    index = (GALLERY / "README.md").read_text()
    for name in LESSONS:
        for suffix in (".png", ".csv", ".md"):
            assert (GALLERY / f"{name}{suffix}").is_file(), name + suffix
        page = (GALLERY / f"{name}.md").read_text()
        assert page_fingerprint(page) == fingerprint(get_lesson(name), "class", 0), (
            f"figures/lessons/{name}.md is out of date: run `evalmc lesson all --out "
            "figures/lessons`")
        assert f"[{name}]({name}.md)" in index and f"({name}.png)" in index
