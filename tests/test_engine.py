"""The engine's scheduling and summaries: tasks of any length give the same bits, tallies are
exact at every level of their grid, and failures keep their block and replication."""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest
from scipy import stats

from evalmc.criteria import get_criterion
from evalmc.criteria.base import CriterionResult
from evalmc.engine.tallies import GRID, RejectionTally, grid_index
from evalmc.sims import Batch, Scenario
from evalmc.sims.base import param
from evalmc.sims.scores import Mixture, Normal, SkewNormal
from evalmc.study.rates import make_design, run_study


@dataclass(frozen=True)
class Coins(Scenario):
    """Two scores of 0 or 1 each: a sample is often constant, and a t-test then has no answer."""

    name: ClassVar[str] = "coins"
    n_a: int = param(2, int, "runs of A")
    n_b: int = param(2, int, "runs of B")

    @property
    def truth(self):
        return "null"

    def draw(self, rng, n_reps):
        return Batch(rng.integers(0, 2, (n_reps, self.n_a)).astype(float),
                     rng.integers(0, 2, (n_reps, self.n_b)).astype(float), paired=False)


def _normal_study(**kwargs):
    args = dict(design=make_design(n_a=[4, 9], n_b=6, sd_a=2.0), scenario="normal",
                criteria=["student-t", "welch-t", "mann-whitney"], n_reps=6000, seed=3,
                block_size=250, alpha=[0.01, 0.05, 0.0123])
    return run_study(**{**args, **kwargs})


class TestTasks:
    @pytest.mark.parametrize("task_seconds", [1e-9, 1e9])
    def test_task_length_does_not_change_a_bit(self, task_seconds):
        ref = _normal_study()
        res = _normal_study(task_seconds=task_seconds, n_jobs=2)
        assert res.summary.equals(ref.summary)
        for key, tally in ref.tallies.items():
            np.testing.assert_array_equal(res.tallies[key].hist, tally.hist)

    def test_fixed_seed_tallies(self):  # the same counts as the engine that kept p-values
        res = _normal_study()
        s = res.summary
        assert (s["rate"] * s["n_reps"]).round().astype(int).tolist() == [
            148, 537, 172, 62, 321, 84, 131, 380, 131, 34, 184, 41, 50, 278, 58, 26, 249, 42]

    def test_blocks_run_on_a_slab_equal_blocks_run_alone(self):
        sc = Normal(n_a=5, n_b=7)
        batches = [sc.draw(np.random.default_rng(i), 300) for i in range(3)]
        joint = Batch.concat(batches)
        for name in ("student-t", "welch-t", "mann-whitney"):
            whole = get_criterion(name)(joint, None).pvalues()
            parts = np.concatenate([get_criterion(name)(b, None).pvalues() for b in batches])
            np.testing.assert_array_equal(whole, parts)


    @pytest.mark.parametrize("scenario", [SkewNormal(n_a=3, n_b=5, shift=0.5),
                                          Mixture(n_a=4, n_b=2, shift=-1.0)])
    def test_a_slab_drawn_at_once_equals_its_blocks_drawn_alone(self, scenario):
        sizes = [7, 7, 3]
        joint, blocks = scenario.draw_slab([np.random.default_rng(i) for i in range(3)], sizes)
        alone = [scenario.draw(np.random.default_rng(i), n) for i, n in enumerate(sizes)]
        np.testing.assert_array_equal(joint.a, np.concatenate([b.a for b in alone]))
        np.testing.assert_array_equal(joint.b, np.concatenate([b.b for b in alone]))
        for block, ref in zip(blocks, alone, strict=True):
            np.testing.assert_array_equal(block.a, ref.a)


class TestTallies:
    def test_histogram_is_exact_at_every_level_of_the_grid(self):
        rng = np.random.default_rng(0)
        grid = np.arange(GRID + 1) / GRID
        p = np.concatenate([rng.random(5000), grid, np.nextafter(grid, 2), [0.0, 1.0]])
        p = np.clip(p, 0, 1)
        p[:10] = np.nan  # decisions without p-value: 4 of them reject
        reject = np.zeros(p.size, bool)
        reject[:4] = True
        failed = np.zeros(p.size, bool)
        failed[10:13] = True
        result = CriterionResult(failed, pvalue=p, reject=reject)
        (tally,) = RejectionTally.of_blocks(result, np.array([0, p.size]), (0.0123,))
        ok = ~failed & ~np.isnan(p)
        levels = [grid_index(a) for a in grid]
        assert levels == list(range(GRID + 1))
        for a in grid:
            assert tally.rejections(a) == int((p[ok] <= a).sum()) + 4
        assert tally.rejections(0.0123) == int((p[ok] <= 0.0123).sum()) + 4
        assert (tally.n, tally.failed, tally.decided, tally.decided_reject) == \
            (p.size, 3, 10, 4)
        with pytest.raises(ValueError, match=r"`alpha` 0.0456 is neither a level the study "
                                             r"counted \(0.0123\) nor a multiple of 1/1000"):
            tally.rejections(0.0456)

    def test_statistic_tally_equals_critical_value_decisions(self):
        t = np.random.default_rng(1).standard_t(5, 4000) * 1.5
        result = CriterionResult.from_statistic(t, ("t", (5,)))
        (tally,) = RejectionTally.of_blocks(result, np.array([0, t.size]), (0.0123,))
        for a in (0.001, 0.01, 0.05, 0.5, 0.0123):
            assert tally.rejections(a) == int((np.abs(t) >= stats.t(5).isf(a / 2)).sum())

    def test_blocks_add_up_to_the_whole(self):
        p = np.random.default_rng(2).random(1000)
        result = CriterionResult.from_pvalues(p)
        whole = RejectionTally.of_blocks(result, np.array([0, 1000]), ())[0]
        parts = RejectionTally.of_blocks(result, np.array([0, 100, 350, 1000]), ())
        total = parts[0] + parts[1] + parts[2]
        np.testing.assert_array_equal(total.hist, whole.hist)
        assert total.n == 1000

    def test_size_curve_is_uniform_under_the_null(self):
        res = run_study(make_design(n_a=8, n_b=8), "normal", ["welch-t"], n_reps=20_000,
                        seed=4)
        cid = int(res.design["condition_id"][0])
        curve = res.size_curve("welch-t", cid)
        assert curve["rate"].iloc[50] == res.summary["rate"].iloc[0]
        # Kolmogorov-Smirnov band (DKW, 99.9%): Welch's p-values are close to uniform at n = 8
        band = np.sqrt(np.log(2 / 0.001) / (2 * 20_000))
        assert np.abs(curve["rate"] - curve["alpha"]).max() < band
        with pytest.raises(ValueError, match="`criterion` must be one of the study's"):
            res.size_curve("student-t", cid)

    def test_off_grid_level_not_counted_is_refused(self):
        res = run_study(make_design(n_a=5), "normal", ["welch-t"], n_reps=100, seed=0)
        assert res.summarise(alpha=0.037)["alpha"].tolist() == [0.037]
        with pytest.raises(ValueError, match="`alpha` 0.0371 is neither"):
            res.summarise(alpha=0.0371)


class TestFailures:
    def test_failed_replications_keep_their_block_and_replication(self, tmp_path):
        kwargs = dict(design=make_design(n_a=2), scenario=Coins, criteria=["welch-t"],
                      n_reps=3000, seed=6, block_size=200)
        res = run_study(**kwargs)
        assert res.summary["n_failed"].iloc[0] == len(res.failures) > 100
        for fail in res.failures[::37]:
            batch = res.replay(fail)
            assert np.isnan(get_criterion("welch-t")(batch, None).pvalues()[0])
        assert run_study(**kwargs, cache=tmp_path).failures == res.failures

    def test_failure_records_are_capped_in_order(self, monkeypatch):
        from evalmc.engine import scheduler as engine

        monkeypatch.setattr(engine, "MAX_FAILURES_KEPT", 5)
        res = run_study(make_design(n_a=2), Coins, ["welch-t"], n_reps=3000, seed=6,
                        block_size=200, n_jobs=2)
        assert len(res.failures) == 5 and res.summary["n_failed"].iloc[0] > 100
        where = [(f.block, f.rep) for f in res.failures]
        assert where == sorted(where) and where[0][0] == 0


def test_processes_are_chosen_for_a_users_python_criterion_on_several_workers():
    from evalmc.criteria import get_criterion
    from evalmc.engine import scheduler as engine
    from evalmc.study.rates import _CriterionRun

    def mine(a, b):
        return float(a.mean() > b.mean())

    builtin, user = (_CriterionRun(get_criterion(c), (), (0.05,)) for c in ("welch-t", mine))
    assert engine.choose_backend([builtin], 4) == "threads"
    assert engine.choose_backend([builtin, user], 4) == "loky"
    assert engine.choose_backend([builtin, user], 1) == "threads"
    ref = run_study(make_design(n_a=5), "normal", [mine], n_reps=300, seed=1, block_size=100)
    auto = run_study(make_design(n_a=5), "normal", [mine], n_reps=300, seed=1, block_size=100,
                     n_jobs=2)
    assert auto.summary.equals(ref.summary)


def test_records_tally_keeps_its_failures_through_sums_and_the_store():
    """A records tally's failed replications survive adding blocks and a round trip through
    the block store's record (a block store written without them reads as none failed)."""
    from evalmc.engine.tallies import RecordsTally

    first = RecordsTally(3, {"rep": np.array([0, 2])}, failed=1)
    second = RecordsTally(2, {"rep": np.array([0])}, failed=1)
    total = first + second
    assert (total.n, total.failed, total.columns["rep"].tolist()) == (5, 2, [0, 2, 3])
    back = RecordsTally.from_record(*total.to_record())
    assert (back.n, back.failed) == (5, 2)
    assert RecordsTally.from_record({"rep": np.array([0])}, {"n": 1}).failed == 0


def test_the_readme_example_of_an_analysis_runs():
    """core/README.md's example of writing an analysis runs, and its assertions hold."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "core" / "README.md").read_text()
    section = readme.split("## Writing an analysis for the engine")[1].split("\n## ")[0]
    code, = re.findall(r"^```python\n(.*?)^```\n", section, re.S | re.M)
    exec(compile(code, "core/README.md", "exec"), {"__name__": "readme_example"})


def test_a_conditions_cache_folder_digests_what_its_blocks_depend_on():
    from evalmc.engine.scheduler import namespace

    folder = namespace(Normal(), 1, 1000)
    name, digest = folder.split("-")
    assert (name, len(digest)) == ("normal", 16)
    assert namespace(Normal(n_a=10), 1, 1000) == folder  # n_a=10 is the default
    assert folder not in {namespace(Normal(shift=0.5), 1, 1000), namespace(Normal(), 2, 1000),
                          namespace(Normal(), 1, 500)}


def test_the_precision_of_a_rate_is_judged_at_the_least_favourable_rate():
    """Above the plug-in error, and above 0 with no rejection (the Wilson interval's reach)."""
    from evalmc.engine.tallies import precision_mcse

    assert precision_mcse([0, 50, 500], 1000).round(4).tolist() == [0.002, 0.0078, 0.0158]
