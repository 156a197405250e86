import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalmc.engine.scheduler import StudyError
from evalmc.sims.scores import Normal
from evalmc.study.design import RESERVED, condition_id, make_design
from evalmc.study.rates import run_study

CRITERIA = ["student-t", "welch-t", "mann-whitney"]
FLAKY = '''
def sometimes(a, b):
    """Fails when A's first score is above 1.5."""
    if a[0] > 1.5:
        raise RuntimeError("first score too high")
    return bool(a.mean() > b.mean() + 1)
'''


def _study(**kwargs):
    args = dict(design=make_design(n_a=[5, 8], n_b=6, sd_a=[1.0, 2.0]), scenario="normal",
                criteria=CRITERIA, n_reps=2500, seed=5, block_size=500)
    args.update(kwargs)
    return run_study(**args)


class TestDesign:
    def test_grid_and_ids(self):
        d = make_design(n_a=[5, 8], sd_a=2.0)
        assert d.columns.tolist() == ["condition_id", "n_a", "sd_a"]
        assert d[["n_a", "sd_a"]].values.tolist() == [[5, 2.0], [8, 2.0]]
        assert d["condition_id"].tolist() == [condition_id({"n_a": 5, "sd_a": 2}),
                                              condition_id({"n_a": 8, "sd_a": 2.0})]

    def test_ids_do_not_depend_on_the_rest_of_the_grid(self):
        small = make_design(n_a=[8], sd_a=[2.0])
        big = make_design(sd_a=[1.0, 2.0], n_a=[5, 8, 13])
        cid = small["condition_id"][0]
        assert cid in set(big["condition_id"])
        assert cid == 1287540930816000845  # fixed: ids are part of every seed

    @pytest.mark.parametrize(("grid", "match"), [
        ({"rate": [1]}, "design column `rate` is a reserved name"),
        ({"n_a": []}, "design parameter `n_a` needs at least one value"),
        ({"n_a": [5, 5]}, "the design has duplicate conditions"),
    ])
    def test_bad_designs(self, grid, match):
        with pytest.raises(ValueError, match=match):
            make_design(**grid)

    def test_reserved_names_are_the_summary_columns(self):
        """All of them: with the sign and magnitude errors of an alternative row, and the
        replicability of a scenario run several times on each replication."""
        cols = run_study(make_design(n_a=5, shift=[0.0, 1.0]), "normal", ["welch-t"],
                         n_reps=50, seed=1).summary.columns
        reruns = run_study(make_design(n=60, d=4, p=2, j=3, runs=2), "cv-regression",
                           ["resampled-t"], n_reps=20, seed=1).summary.columns
        # type_m_capped only when a type-M ratio was capped (tests/test_sign_errors.py shows one)
        assert set(RESERVED) - {"type_m_capped"} == (set(cols) | set(reruns)) - {
            "n_a", "shift", "n", "d", "p", "j", "runs"}
        assert "type_s" not in _study(n_reps=10).summary.columns

    def test_a_default_spelled_out_is_the_same_condition(self):
        spelled = run_study(make_design(n_a=[5, 10], sd_b=1.0), "normal", ["welch-t"],
                            n_reps=400, seed=2)
        bare = run_study(make_design(n_a=[5, 10]), "normal", ["welch-t"], n_reps=400, seed=2)
        assert spelled.design["condition_id"].tolist() == bare.design["condition_id"].tolist()
        assert spelled.summary["rate"].tolist() == bare.summary["rate"].tolist()
        # n_a = 10 is the default too: that condition is the one at every default
        assert bare.design["condition_id"][1] == condition_id({"n_a": 10})

    def test_with_its_scenario_a_design_is_keyed_and_validated(self):
        keyed = make_design("normal", n_a=[5, 10], sd_b=1.0)
        assert keyed["condition_id"].tolist() == [condition_id({"n_a": 5}),
                                                  condition_id({"n_a": 10})]
        with pytest.raises(ValueError, match="duplicate conditions"):
            make_design("normal", sd_b=[1.0, 1])
        with pytest.raises(ValueError, match="`n_a` must be an integer"):
            make_design("normal", n_a=[2.5])

    def test_ids_are_64_bit_and_do_not_collide(self):
        ids = make_design(x=list(range(100_000)))["condition_id"]
        assert ids.nunique() == 100_000
        assert all(0 <= int(i) < 2**64 for i in ids[:100])
        assert int(ids.max()) >= 2**32  # 64 bits are used


class TestReproducibility:
    def test_identical_for_jobs_and_backends(self):
        ref = _study().summary
        assert _study(n_jobs=2).summary.equals(ref)
        assert _study(n_jobs=2, backend="loky").summary.equals(ref)

    def test_identical_on_dask_local_cluster(self, tmp_path):
        pytest.importorskip("distributed")
        path = tmp_path / "flaky.py"
        path.write_text(FLAKY)
        crit = [*CRITERIA, f"{path}:sometimes"]
        # 1000 replications, 8 blocks: the equality does not depend on the size, and about 67
        # replications fail (P(first score > 1.5) = 0.067)
        ref = _study(criteria=crit, n_reps=1000)
        res = _study(criteria=crit, n_jobs=2, backend="dask", n_reps=1000)
        assert res.summary.equals(ref.summary)
        assert res.failures == ref.failures and len(ref.failures) > 0

    def test_criterion_results_do_not_depend_on_the_other_criteria(self):
        alone = _study(criteria=["mann-whitney"], keep_values=True)
        together = _study(keep_values=True)
        for key in alone.outcomes:
            np.testing.assert_array_equal(alone.outcomes[key].pvalues(),
                                          together.outcomes[key].pvalues())

    def test_fixed_seed_summary(self):
        s = _study().summary
        rejections = (s["rate"] * s["n_reps"]).round().astype(int).tolist()
        # sd_a = 1.0 is normal's default: those conditions are keyed as if it were left out
        assert rejections == [127, 117, 86, 174, 128, 94, 144, 133, 121, 109, 137, 108]

    def test_student_t_is_liberal_and_welch_calibrated_under_unequal_variances(self):
        s = run_study(make_design(n_a=10, n_b=40, sd_a=3.0), "normal", ["student-t", "welch-t"],
                      n_reps=20_000, seed=1).summary.set_index("criterion")
        assert s.loc["student-t", "ci_low"] > 0.2 and s.loc["student-t", "bradley"] == "liberal"
        welch = s.loc["welch-t"]
        assert abs(welch["rate"] - 0.05) <= 4 * welch["mcse"]

    def test_power_rows_are_not_judged_by_bradley(self):
        s = run_study(make_design(shift=[0.0, 1.0]), "normal", ["welch-t"], n_reps=2000,
                      seed=2).summary
        assert s["truth"].tolist() == ["null", "alternative"]
        assert pd.isna(s["bradley"].iloc[1]) and s["rate"].iloc[1] > 0.4

    def test_design_column_k_is_kept(self):
        # `pipelines` has a parameter k: the summary must show it, not a rejection count
        s = run_study(make_design(k=[3, 7], p_ab=0.7), "pipelines", ["t-oracle"], n_reps=200,
                      seed=0).summary
        assert s["k"].tolist() == [3, 7]
        assert (s["rate"] > 0.1).all()

    def test_decision_only_criteria_get_one_row_without_alpha(self):
        s = run_study(make_design(k=5, p_ab=0.5), "pipelines",
                      ["single-point", "prob-outperform", "t-oracle"], n_reps=300, seed=0,
                      alpha=[0.01, 0.05]).summary
        assert s["criterion"].tolist() == ["single-point", "prob-outperform", "t-oracle",
                                           "t-oracle"]
        assert s["alpha"].isna().tolist() == [True, True, False, False]
        assert s["bradley"].iloc[:2].isna().all() and s["bradley"].iloc[2:].notna().all()
        assert s["rate"].iloc[0] > 0  # single-point rejects when a_1 - b_1 > 1.9952 sd
        assert json.loads(s.to_json(orient="records"))[0]["alpha"] is None

    def test_user_criterion_returning_decisions_gets_one_row(self):
        def beats(a, b):
            return bool(a.mean() > b.mean() + 0.5)

        def pval(a, b):
            return float(a.mean() > b.mean())

        s = _study(criteria=[beats, pval], n_reps=200, alpha=[0.01, 0.05]).summary
        per_condition = s[s["condition_id"] == s["condition_id"].iloc[0]]
        assert per_condition["criterion"].tolist() == [beats.__qualname__,
                                                       pval.__qualname__, pval.__qualname__]
        assert per_condition["alpha"].isna().tolist() == [True, False, False]

    def test_truth_depends_on_the_criterions_alternative(self):
        one_sided = ["single-point", "average-delta", "prob-outperform", "t-oracle"]
        s = run_study(make_design(k=5, p_ab=[0.3, 0.5, 0.8]), "pipelines",
                      [*one_sided, "welch-t"], n_reps=200, seed=0).summary
        truth = s.set_index(["p_ab", "criterion"])["truth"]
        for name in one_sided:
            assert truth[(0.3, name)] == "null" and truth[(0.5, name)] == "null"
            assert truth[(0.8, name)] == "alternative"
        assert truth[(0.3, "welch-t")] == "alternative" and truth[(0.5, "welch-t")] == "null"
        judged = s.set_index(["p_ab", "criterion"])["bradley"]
        assert judged[(0.3, "t-oracle")] == "conservative"  # a null row: judged
        assert pd.isna(judged[(0.3, "welch-t")]) and pd.isna(judged[(0.8, "t-oracle")])

    def test_several_alphas_from_one_run(self):
        res = _study(alpha=[0.01, 0.05])
        s = res.summary
        assert s["alpha"].tolist()[:2] == [0.01, 0.05]
        again = res.summarise(alpha=0.05)
        pd.testing.assert_frame_equal(again.reset_index(drop=True),
                                      s[s["alpha"] == 0.05].reset_index(drop=True))


class TestCache:
    def test_rerun_reuses_every_block(self, tmp_path):
        first = _study(cache=tmp_path)
        again = _study(cache=tmp_path)
        assert first.blocks_computed == 20 and again.blocks_computed == 0
        assert again.blocks_reused == 20
        assert again.summary.equals(first.summary)

    def test_extension_reuses_finished_blocks(self, tmp_path):
        short = _study(cache=tmp_path, n_reps=1500, keep_values=True)
        longer = _study(cache=tmp_path, n_reps=2500, keep_values=True)
        assert longer.blocks_reused == 4 * 3 and longer.blocks_computed == 4 * 2
        assert longer.summary.equals(_study().summary)
        key = next(iter(short.outcomes))
        np.testing.assert_array_equal(short.outcomes[key].pvalues(),
                                      longer.outcomes[key].pvalues()[:1500])

    def test_added_criterion_computes_only_itself(self, tmp_path):
        _study(cache=tmp_path, criteria=["student-t"])
        res = _study(cache=tmp_path)
        assert res.blocks_computed == 20
        assert res.summary.equals(_study().summary)

    def test_other_criteria_stored_in_a_block_are_kept(self, tmp_path):
        _study(cache=tmp_path, criteria=["student-t", "welch-t"])
        _study(cache=tmp_path, criteria=["mann-whitney"])
        again = _study(cache=tmp_path, criteria=["student-t", "welch-t"])
        assert again.blocks_computed == 0 and again.blocks_reused == 20

    def test_unreadable_block_is_recomputed(self, tmp_path):
        _study(cache=tmp_path)
        victim = sorted(tmp_path.rglob("*.npz"))[0]
        victim.write_bytes(b"not a zip")
        res = _study(cache=tmp_path)
        assert res.blocks_computed == 1 and res.summary.equals(_study().summary)


SLOW = '''
import time
def slow(a, b, axis=-1):
    """Called once per block (it takes `axis`): 0.1 s."""
    time.sleep(0.1)
    return (a.mean(axis=axis) > b.mean(axis=axis)).astype(float)
'''
KILLABLE = '''
import sys
from evalmc.study.rates import make_design, run_study
run_study(make_design(n_a=5, n_b=5), "normal", ["welch-t", sys.argv[2]], n_reps=1600, seed=3,
          block_size=100, cache=sys.argv[1])
'''
BLOCKS = 16  # of KILLABLE's study, 0.1 s each (the sleep): the kill comes after 3


def _killable(criterion, cache):
    return run_study(make_design(n_a=5, n_b=5), "normal", ["welch-t", criterion], n_reps=1600,
                     seed=3, block_size=100, cache=cache)


def _wait_for_blocks(cache, count, proc, timeout=60):
    start = time.time()
    while len(list(Path(cache).rglob("*.npz"))) < count:
        assert proc.poll() is None, "the study finished before it could be interrupted"
        assert time.time() - start < timeout
        time.sleep(0.02)


def test_sigkill_then_resume_equals_uninterrupted(tmp_path):
    """A study killed by SIGKILL mid-run resumes from its cache (here in this process) to
    the summary of a study never stopped, reusing every block the killed one finished."""
    script, criterion = tmp_path / "study.py", tmp_path / "slow.py"
    script.write_text(KILLABLE)
    criterion.write_text(SLOW)
    cache, spec = tmp_path / "cache", f"{criterion}:slow"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    proc = subprocess.Popen([sys.executable, str(script), str(cache), spec], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for_blocks(cache, 3, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = len(list(cache.rglob("*.npz")))
    assert 3 <= finished < BLOCKS
    resumed = _killable(spec, cache)
    assert (resumed.blocks_reused, resumed.blocks_computed) == (finished, BLOCKS - finished)
    assert resumed.summary.equals(_killable(spec, None).summary)
    assert len(list(cache.rglob("*.npz"))) == BLOCKS
    assert not list(cache.rglob("*.tmp"))


def test_resume_recomputes_no_finished_block(tmp_path):
    cache = tmp_path / "cache"
    _study(cache=cache, n_reps=1000)  # as if stopped after two blocks per condition
    res = _study(cache=cache)
    assert res.blocks_reused == 8 and res.blocks_computed == 12


class TestFailures:
    def test_failures_are_recorded_not_redrawn(self, tmp_path):
        path = tmp_path / "flaky.py"
        path.write_text(FLAKY)
        res = run_study(make_design(n_a=4), "normal", [f"{path}:sometimes"], n_reps=3000,
                        seed=4, block_size=1000)
        row = res.summary.iloc[0]
        assert row["n_reps"] == 3000 and row["n_failed"] == len(res.failures)
        # P(first score > 1.5) = 0.0668 for a standard normal: the failures are those draws.
        assert abs(row["n_failed"] / 3000 - 0.0668) <= 4 * np.sqrt(0.0668 * 0.9332 / 3000)
        fail = res.failures[0]
        assert fail.message == "RuntimeError: first score too high"
        replayed = res.replay(fail)
        assert replayed.a[0, 0] > 1.5

    def test_mostly_failing_condition_stops_with_its_name(self, tmp_path):
        def broken(a, b):
            raise ValueError("bad")

        with pytest.raises(StudyError, match=r"condition \d+ \(normal .*'n_a': 3.*\): criterion "
                                             r"'.*broken' failed in 600 of 600 .*ValueError: bad"):
            run_study(make_design(n_a=[3]), "normal", [broken], n_reps=1000, seed=1,
                      block_size=100, cache=tmp_path)
        # it stops once failures exceed half of all 1000: the six finished blocks are kept
        assert len(list(tmp_path.rglob("*.npz"))) == 6

    @pytest.mark.parametrize("block_size", [10, 1000])
    def test_stopping_does_not_depend_on_blocks(self, block_size):
        def often(a, b):  # fails on P(Z > 0.15) = 44% of replications: not most
            if a[0] > 0.15:
                raise ValueError("often")
            return 0.5

        res = run_study(make_design(n_a=[3]), "normal", [often], n_reps=1000, seed=2,
                        block_size=block_size)
        assert 0.35 < res.summary["n_failed"].iloc[0] / 1000 < 0.5


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"n_reps": 0}, "`n_reps` must be an integer >= 1; got 0"),
    ({"seed": -1}, "`seed` must be an integer >= 0; got -1"),
    ({"alpha": 1.5}, r"`alpha` must be in \(0, 1\); got 1.5"),
    ({"alpha": []}, "`alpha` needs at least one value"),
    ({"block_size": 0}, r"`block_size` must be an integer in \[1, 100000\]; got 0"),
    ({"n_jobs": 0}, "`n_jobs` must be a positive integer or -1; got 0"),
    ({"backend": "mpi"}, "`backend` must be one of 'threads', 'loky', 'dask'; got 'mpi'"),
    ({"scheduler": "tcp://x:1"}, "`scheduler` needs backend 'dask'"),
    ({"max_failure_rate": 0}, r"`max_failure_rate` must be in \(0, 1\]; got 0.0"),
    ({"design": [1]}, "`design` must be a DataFrame from make_design"),
    ({"scenario": "gauss"}, "unknown scenario 'gauss'"),
    ({"scenario": Normal(n_a=3)}, "`scenario` must be a scenario name or class"),
    ({"design": make_design(n=3)}, "unknown parameter `n` for scenario 'normal'"),
    ({"design": make_design(n_a=1)}, "`n_a` must be an integer >= 2; got 1"),
    ({"criteria": []}, "`criteria` must name at least one criterion"),
    ({"criteria": ["welch-t", "welch-t"]}, "`criteria` lists a criterion twice"),
    ({"criteria": ["ttest"]}, "unknown criterion 'ttest'"),
    ({"criteria": ["paired-t"]}, r"criterion 'paired-t' needs paired samples of equal size; "
                                 r"condition \d+ \{'n_a': 5, .*\} of scenario 'normal' has sizes "
                                 r"\(5, 6\)"),
])
def test_run_study_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        _study(**kwargs)


def test_dict_design_and_paired_criterion_on_equal_independent_samples():
    res = run_study({"n_a": 6, "n_b": 6}, "normal", ["paired-t", "sign"], n_reps=500, seed=1)
    assert res.summary["criterion"].tolist() == ["paired-t", "sign"]


def test_progress_bar_on_request_and_silent_otherwise(capsys):
    _study(n_reps=1000, progress=True)
    assert "evalmc normal" in capsys.readouterr().err
    _study(n_reps=1000)  # stderr is not a terminal under pytest
    assert capsys.readouterr().err == ""


@pytest.fixture(scope="module")
def classifiers():
    return run_study(make_design(n=[200, 400], measure=["dcerr", "df1"]), "paired-classifiers",
                     ["mcnemar", "proportion"], n_reps=200, seed=2, alpha=[0.01, 0.05])


class TestDisplay:
    """A result shows as its summary table and plots one marker per criterion and condition."""

    @staticmethod
    def _series(ax):
        """Legend label -> (x, y) of each errorbar's markers."""
        return {c.get_label(): tuple(np.asarray(v, dtype=float) for v in c.lines[0].get_data())
                for c in ax.containers}

    def test_html_and_frame_are_the_summary(self, classifiers):
        pd.testing.assert_frame_equal(classifiers.to_frame(), classifiers.summary)
        assert classifiers._repr_html_() == classifiers.summary.to_html(index=False, na_rep="-")

    def test_conditions_on_x_when_several_columns_vary(self, classifiers):
        ax = classifiers.plot().axes[0]
        assert ax.get_xlabel() == "condition"
        assert [t.get_text() for t in ax.get_xticklabels()] == [
            "n=200, measure=dcerr", "n=200, measure=df1", "n=400, measure=dcerr",
            "n=400, measure=df1"]
        series = self._series(ax)
        assert list(series) == ["mcnemar, alpha=0.01", "mcnemar, alpha=0.05",
                                "proportion, alpha=0.01", "proportion, alpha=0.05"]
        summary = classifiers.summary
        for label, (x, y) in series.items():
            crit, alpha = label.split(", alpha=")
            rows = summary[(summary["criterion"] == crit) & (summary["alpha"] == float(alpha))]
            np.testing.assert_array_equal(y, rows["rate"])
            np.testing.assert_allclose(x - x.mean(), np.arange(4) - 1.5)  # dodged, in order
        assert sorted(line.get_ydata()[0] for line in ax.lines if line.get_linestyle() == "--") \
            == [0.01, 0.05]

    def test_a_text_column_is_categorical_and_the_others_make_series(self, classifiers):
        ax = classifiers.plot(x="measure").axes[0]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["dcerr", "df1"]
        series = self._series(ax)
        assert len(series) == 8 and "proportion, alpha=0.05, n=400" in series
        ax = classifiers.plot(x="n").axes[0]
        assert ax.get_xlabel() == "n" and "mcnemar, alpha=0.01, measure=df1" in self._series(ax)
        np.testing.assert_allclose(self._series(ax)["mcnemar, alpha=0.01, measure=df1"][0],
                                   [200, 400], atol=0.1 * 200)
        with pytest.raises(ValueError, match=r"`x` must be a design column \(n, measure\); "
                                             r"got 'nope'"):
            classifiers.plot(x="nope")

    def test_one_varying_number_is_x(self):
        res = _study(design=make_design(n_a=[5, 8, 12], n_b=6), criteria=["welch-t"],
                     n_reps=300)
        ax = res.plot().axes[0]
        ((label, (x, y)),) = self._series(ax).items()
        assert label == "welch-t" and ax.get_xlabel() == "n_a"
        np.testing.assert_array_equal(x, [5, 8, 12])
        np.testing.assert_array_equal(y, res.summary["rate"])

    def test_the_drawing_is_the_plots_modules(self):
        import pandas as pd

        from evalmc import plots

        design = pd.DataFrame({"condition_id": [7, 9], "n": [10, 20]})
        summary = design.assign(criterion="welch-t", alpha=0.05, rate=[0.06, 0.05],
                                ci_low=[0.04, 0.03], ci_high=[0.08, 0.07])
        ax = plots.rate_plot(summary, design, alpha=(0.05,)).axes[0]
        assert ax.get_xlabel() == "n" and [c.get_label() for c in ax.containers] == ["welch-t"]


def test_a_killed_writers_temporary_file_is_removed_on_reopening(tmp_path):
    from evalmc.engine.blockstore import _TMP_PREFIX, BlockStore

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    store_dir = tmp_path / "ns"
    store_dir.mkdir()
    orphan = store_dir / f"{_TMP_PREFIX}{gone.stdout.strip()}-abc.tmp"
    live = store_dir / f"{_TMP_PREFIX}{os.getpid()}-def.tmp"
    other_host = store_dir / ".elsewhere-1-ghi.tmp"
    for path in (orphan, live, other_host):
        path.write_bytes(b"partial")
    BlockStore(tmp_path, "ns")
    assert not orphan.exists()
    assert live.exists() and other_host.exists()
