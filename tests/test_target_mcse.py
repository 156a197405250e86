"""Studies that stop at a precision (``target_mcse``): where a condition stops is the first
complete prefix of its blocks whose rates are within the target, whatever the workers, the
backend, the tasks' length, or an interruption and resumption from the cache."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ndtri

from evalmc.cli import main
from evalmc.engine import scheduler as engine
from evalmc.engine.blockstore import BlockStore
from evalmc.engine.options import MIN_BLOCKS
from evalmc.engine.scheduler import namespace
from evalmc.engine.tallies import EstimateTally
from evalmc.study.calibration import calibrate
from evalmc.study.design import Design
from evalmc.study.estimation import EstimateTarget, run_estimation
from evalmc.study.rates import run_study

DESIGN = {"n": [5, 12], "rho": 0.5}


def _study(**kwargs):
    args = dict(design=DESIGN, scenario="paired-normal", criteria=["paired-t", "wilcoxon"],
                n_reps=8000, seed=11, block_size=250, alpha=[0.01, 0.05], target_mcse=0.006)
    return run_study(**{**args, **kwargs})


def _worst_mcse(k, n):
    """Plain numpy: the largest sqrt(p (1 - p) / n) over the 95% Wilson interval of k / n."""
    z = ndtri(0.975)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = np.where(k == 0, 0.0, centre - half)
    high = np.where(k == n, 1.0, centre + half)
    q = np.clip(0.5, low, high)
    return np.sqrt(q * (1 - q) / n)


def _cached_blocks(cond, seed, block_size, cache):
    """The stored per-block records of condition `cond`, in block order, while there are."""
    store = BlockStore(cache, namespace(cond, seed, block_size))
    blocks, b = [], 0
    while records := store.load(b, block_size):
        blocks.append(records)
        b += 1
    return blocks


class TestRule:
    def test_stops_at_the_first_prefix_within_the_target(self, tmp_path):
        """The stopping block recomputed in numpy from the stored blocks' counts."""
        res = _study(cache=tmp_path, task_seconds=1e9)  # long tasks: blocks computed ahead
        summary = res.summary
        stored = 0
        for cid in res.conditions:
            blocks = _cached_blocks(res.conditions[cid], res.seed, res.block_size, tmp_path)
            stored += len(blocks)
            worst = []
            for crit in res.criteria:
                counts = np.array([r[crit.key][0]["counts"] for r in blocks])
                hist = np.array([r[crit.key][0]["hist"] for r in blocks])
                valid = np.cumsum(counts[:, 0] - counts[:, 1])
                for a in res.alpha:
                    k = np.cumsum(hist[:, :round(a * 1000) + 1].sum(axis=1) + counts[:, 3])
                    worst.append(_worst_mcse(k, valid))
            worst = np.max(worst, axis=0)
            met = (worst <= 0.006) & (np.arange(1, len(blocks) + 1) >= MIN_BLOCKS)
            assert met.any()
            used = (int(np.argmax(met)) + 1) * 250
            rows = summary[summary["condition_id"] == cid]
            assert (rows["n_reps"] == used).all() and rows["target_met"].all()
            assert res.reps_used[cid] == used and res.target_met[cid]
            for crit in res.criteria:
                assert res.tallies[(cid, crit.key)].n == used
        assert 250 * MIN_BLOCKS < summary["n_reps"].min() < 8000  # stopped, neither bound
        # blocks past the stopping points were computed and stored, but not counted
        assert stored * 250 > sum(res.reps_used.values())

    def test_the_error_judged_is_never_zero_at_a_zero_rate(self):
        """The sign test on 5 pairs never rejects at 0.05 (its least p-value is 0.0625): with
        blocks of 100, the plug-in error 0 would stop after one block; the Wilson bound needs
        about 1.96 / n <= 0.002, ten blocks."""
        res = run_study({"n": 5}, "paired-normal", ["sign"], n_reps=5000, seed=1,
                        block_size=100, target_mcse=0.002)
        row = res.summary.iloc[0]
        assert row["rate"] == 0 and row["mcse"] == 0
        assert row["n_reps"] == 1000 and row["target_met"]
        # with blocks of 1000 the first already passes the bound: the minimum of 2 holds it
        res = run_study({"n": 5}, "paired-normal", ["sign"], n_reps=5000, seed=1,
                        target_mcse=0.002)
        assert res.summary["n_reps"].iloc[0] == 1000 * MIN_BLOCKS

    def test_a_paired_t_size_study_to_0002(self):
        res = calibrate("paired-normal", ["paired-t"], params={"n": 10, "rho": 0.5},
                        target_mcse=0.002, max_reps=20_000, seed=3, progress=False)
        row = res.summary.iloc[0]
        # sqrt(0.05 * 0.95 / n) <= 0.002 needs n >= 11,875; the Wilson bound a little more
        assert 12_000 <= row["n_reps"] <= 14_000 and row["target_met"]
        assert row["mcse"] <= 0.002

    def test_estimators_coverage_or_bias(self, tmp_path):
        """An interval estimator stops on its coverage, a point estimator on its bias."""
        res = run_estimation({"n_a": 5}, "normal", ["t-interval", "mean-a"], n_reps=10_000,
                             seed=2, block_size=500, target_mcse=0.008, cache=tmp_path,
                             task_seconds=1e9)
        (cid, cond), = Design.build({"n_a": 5}, "normal").conditions.items()
        blocks = _cached_blocks(cond, 2, 500, tmp_path)
        keys = {e.key: f"{e.key}|target=mean-a" for e in res.estimators}
        ok = []
        for b in range(1, len(blocks) + 1):
            total = {k: sum((EstimateTally.from_record(*r[key][:1], {}) for r in blocks[1:b]),
                            EstimateTally.from_record(*blocks[0][key][:1], {}))
                     for k, key in keys.items()}
            cover = total["t-interval"]
            point = total["mean-a"]
            errors = [_worst_mcse(np.float64(cover.covered), np.float64(cover.k_int)),
                      np.sqrt(point.m2 / (point.k - 1) / point.k)]
            ok.append(b >= MIN_BLOCKS and max(errors) <= 0.008)
        used = (ok.index(True) + 1) * 500
        assert (res.summary["n_reps"] == used).all() and res.target_met[cid]
        assert 500 * MIN_BLOCKS < used < 10_000


def _flaky(a, b):
    """Fails when A's first score is above 1.5 (6.7% of replications); else a z-test."""
    import math

    if a[0] > 1.5:
        raise RuntimeError("first score too high")
    d = a - b
    z = d.mean() / (d.std(ddof=1) / math.sqrt(d.size))
    return math.erfc(abs(z) / math.sqrt(2))


@pytest.mark.filterwarnings("ignore:'_flaky' failed")
def test_failures_and_values_are_those_of_the_blocks_used():
    res = run_study({"n": 8}, "paired-normal", [_flaky], n_reps=3000, seed=5, block_size=100,
                    target_mcse=0.012, keep_values=True, task_seconds=1e9)
    (cid,) = res.conditions
    used = res.reps_used[cid]
    assert 200 < used < 3000 and res.target_met[cid]
    (outcome,) = res.outcomes.values()
    assert outcome.failed.size == used
    row = res.summary.iloc[0]
    assert row["n_failed"] == outcome.failed.sum() == len(res.failures) > 0
    assert max(f.block for f in res.failures) < used // 100
    assert res.replay(res.failures[-1]).a[0, 0] > 1.5


class TestDeterminism:
    @pytest.mark.parametrize("kwargs", [
        {"n_jobs": 2},
        {"n_jobs": 2, "task_seconds": 1e-9},  # a block a task, many in flight
        {"n_jobs": 2, "task_seconds": 1e9},  # the whole cap in one task, far past the stop
    ])
    def test_identical_for_workers_and_tasks(self, kwargs):
        ref = _study()
        res = _study(**kwargs)
        assert res.summary.equals(ref.summary)
        assert res.reps_used == ref.reps_used
        for key, tally in ref.tallies.items():
            np.testing.assert_array_equal(res.tallies[key].hist, tally.hist)

    def test_identical_on_loky(self):
        assert _study(n_jobs=2, backend="loky").summary.equals(_study().summary)

    def test_interrupted_then_resumed_equals_uninterrupted(self, tmp_path, monkeypatch):
        """Ctrl-C at block 5 of a condition, then a re-run from the cache."""
        run_task = engine.run_task

        def interrupted(task):
            if task.first >= 5:
                raise KeyboardInterrupt
            return run_task(task)

        monkeypatch.setattr(engine, "run_task", interrupted)
        with pytest.raises(KeyboardInterrupt):
            _study(cache=tmp_path, task_seconds=1e-9)
        monkeypatch.setattr(engine, "run_task", run_task)
        assert len(list(tmp_path.rglob("*.npz"))) >= 5
        resumed = _study(cache=tmp_path)
        assert resumed.blocks_reused >= 5
        assert resumed.summary.equals(_study().summary)

    def test_a_smaller_cap_then_a_larger_one_from_the_cache(self, tmp_path):
        small = _study(cache=tmp_path, max_reps=500)  # 2 blocks: the cap binds
        assert not any(small.target_met.values())
        resumed = _study(cache=tmp_path)
        assert resumed.blocks_reused >= 2 * len(resumed.conditions)
        assert resumed.summary.equals(_study().summary)

    def test_a_cache_of_every_block_re_decides_from_the_prefix(self, tmp_path):
        """Blocks past the stopping point in the cache (a fixed-size run's) are not counted."""
        run_study(DESIGN, "paired-normal", ["paired-t", "wilcoxon"], n_reps=8000, seed=11,
                  block_size=250, alpha=[0.01, 0.05], cache=tmp_path)
        res = _study(cache=tmp_path)
        assert res.blocks_computed == 0
        assert res.summary.equals(_study().summary)


class TestCap:
    def test_the_cap_binds_and_says_so(self):
        res = _study(target_mcse=0.001, max_reps=1100)  # 4 blocks of 250 and one of 100
        s = res.summary
        assert (s["n_reps"] == 1100).all() and not s["target_met"].any()
        assert res.n_reps == 1100 and not any(res.target_met.values())

    def test_n_reps_is_the_cap_by_default(self):
        res = _study(target_mcse=0.001, n_reps=750)
        assert (res.summary["n_reps"] == 750).all() and not res.summary["target_met"].any()

    def test_without_a_target_the_summary_is_unchanged(self):
        res = _study(target_mcse=None, n_reps=500)
        assert "target_met" not in res.summary and (res.summary["n_reps"] == 500).all()
        assert res.reps_used is None and res.target_met is None


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"target_mcse": 0}, r"`target_mcse` must be in \(0, 0.5\]; got 0.0"),
    ({"target_mcse": 0.7}, r"`target_mcse` must be in \(0, 0.5\]; got 0.7"),
    ({"target_mcse": -0.01}, r"`target_mcse` must be in \(0, 0.5\]; got -0.01"),
    ({"target_mcse": "small"}, "`target_mcse` must be a real number; got 'small'"),
    ({"target_mcse": float("nan")}, "`target_mcse` must be finite"),
    ({"max_reps": 0}, "`max_reps` must be an integer >= 1; got 0"),
    ({"max_reps": 10.5}, "`max_reps` must be an integer; got 10.5"),
    ({"target_mcse": None, "max_reps": 1000}, "`max_reps` caps a study that stops at "
                                              "`target_mcse`"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        _study(**kwargs)


def test_estimation_targets_are_in_the_estimates_units():
    with pytest.raises(ValueError, match=r"`target_mcse` must be in \(0, inf\); got 0.0"):
        run_estimation({"n_a": 5}, "normal", ["mean-a"], n_reps=100, seed=1, target_mcse=0)
    res = run_estimation({"n_a": 5, "sd_a": 30.0}, "normal", ["mean-a"], n_reps=4000, seed=1,
                         target_mcse=2.0)  # sd 30: 2.0 needs 225 replications, 2 blocks
    assert res.summary["n_reps"].iloc[0] == 1000 * MIN_BLOCKS


def test_a_point_estimators_error_is_undefined_on_one_replication():
    two = EstimateTally.of(np.array([0.5, 1.5]), None, None, np.zeros(2, bool), 1.0)
    one = EstimateTally.of(np.array([0.5]), None, None, np.zeros(1, bool), 1.0)
    rule = EstimateTarget(0.1, ["e"])
    assert rule.errors({"e": two}).tolist() == [0.5]
    assert rule.errors({"e": one}).tolist() == [np.inf]


class TestCommandLine:
    def test_calibrate(self, capsys):
        argv = ["calibrate", "--scenario", "paired-normal", "--param", "n=5,12",
                "--criterion", "paired-t", "--block-size", "500", "--seed", "4",
                "--format", "json", "--quiet"]
        assert main([*argv, "--target-mcse", "0.008", "--max-reps", "6000"]) == 0
        rows = json.loads(capsys.readouterr().out)
        assert all(r["target_met"] and 500 < r["n_reps"] < 6000 for r in rows)
        ref = calibrate("paired-normal", ["paired-t"], params={"n": [5, 12]}, block_size=500,
                        seed=4, target_mcse=0.008, max_reps=6000, progress=False)
        assert [r["n_reps"] for r in rows] == ref.summary["n_reps"].tolist()
        assert main([*argv, "--target-mcse", "0.002", "--reps", "1000"]) == 0
        rows = json.loads(capsys.readouterr().out)
        assert all(not r["target_met"] and r["n_reps"] == 1000 for r in rows)

    @pytest.mark.parametrize(("extra", "message"), [
        (["--target-mcse", "1"], "`--target-mcse` must be in (0, 0.5]; got 1.0"),
        (["--target-mcse", "x"], "`target-mcse` must be a number; got 'x'"),
        (["--max-reps", "100"], "`--max-reps` caps a study that stops at `--target-mcse`"),
    ])
    def test_bad_flags_exit_2(self, extra, message, capsys):
        code = main(["calibrate", "--scenario", "normal", "--criterion", "welch-t", *extra])
        assert code == 2 and message in capsys.readouterr().err

    def test_coverage(self, capsys):
        assert main(["coverage", "--scenario", "normal", "--estimator", "t-interval",
                     "--target-mcse", "0.006", "--block-size", "500", "--format", "json",
                     "--quiet"]) == 0
        (row,) = json.loads(capsys.readouterr().out)
        assert row["target_met"] and 1000 < row["n_reps"] < 10_000


def test_progress_counts_blocks(capsys):
    _study(n_reps=1000, progress=True)
    err = capsys.readouterr().err
    assert "evalmc paired-normal" in err and "block" in err


SLOW = '''
import time
def slow(a, b, axis=-1):
    """Called once per block (it takes `axis`): 0.1 s; p-value 0 or 1, a rate of 1/2."""
    time.sleep(0.1)
    return (a.mean(axis=axis) > b.mean(axis=axis)).astype(float)
'''
KILLABLE = '''
import sys
from evalmc.study.rates import run_study
run_study({"n_a": 5, "n_b": 5}, "normal", ["welch-t", sys.argv[2]], n_reps=1600, seed=3,
          block_size=100, cache=sys.argv[1], target_mcse=0.02)
'''


def _killable(criterion, cache):
    return run_study({"n_a": 5, "n_b": 5}, "normal", ["welch-t", criterion], n_reps=1600,
                     seed=3, block_size=100, cache=cache, target_mcse=0.02)


@pytest.mark.slow
def test_sigkill_then_resume_stops_where_an_uninterrupted_run_does(tmp_path):
    script, criterion = tmp_path / "study.py", tmp_path / "slow.py"
    script.write_text(KILLABLE)
    criterion.write_text(SLOW)
    cache, spec = tmp_path / "cache", f"{criterion}:slow"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    proc = subprocess.Popen([sys.executable, str(script), str(cache), spec], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    start = time.time()
    while len(list(cache.rglob("*.npz"))) < 3:
        assert proc.poll() is None, "the study finished before it could be interrupted"
        assert time.time() - start < 60
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = len(list(cache.rglob("*.npz")))
    resumed = _killable(spec, cache)
    ref = _killable(spec, None)
    assert resumed.blocks_reused >= finished >= 3
    assert resumed.summary.equals(ref.summary)
    used = ref.reps_used[next(iter(ref.conditions))]
    assert finished * 100 < used < 1600 and all(ref.target_met.values())
