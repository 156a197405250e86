"""Numbers that look valid must be right, or not be printed: the truth of a condition, the
answers of a whole-block criterion, rates over failures, coverage, overflow and memory."""

import io
import re

import numpy as np
import pandas as pd
import pytest

from evalmc.cli import main
from evalmc.sims import get_scenario


def _calibrate(capsys, *argv):
    """``evalmc calibrate ... --format csv``: its exit status, table (or None) and stderr."""
    code = main(["calibrate", *map(str, argv), "--quiet", "--format", "csv"])
    out, err = capsys.readouterr()
    return code, (pd.read_csv(io.StringIO(out), keep_default_na=False) if code == 0 else None), err


class TestTruthUpToRounding:
    @pytest.mark.parametrize(("scenario", "params"), [
        ("normal", {"mean_a": 0.7, "mean_b": 0.8, "shift": 0.1}),
        ("normal", {"mean_a": 0.1, "mean_b": 0.3, "shift": 0.2}),
        ("llm-items", {"skill_a": 0.7, "skill_b": 0.8, "shift": 0.1}),
    ])
    def test_a_null_by_decimal_arithmetic_is_a_null(self, scenario, params):
        # 0.7 + 0.1 - 0.8 is -1.1e-16 in floats: the null was labelled power
        cond = get_scenario(scenario)(**params)
        assert (cond.truth, cond.effect) == ("null", 0.0)
        assert [cond.truth_for(alt) for alt in ("two-sided", "greater", "less")] == ["null"] * 3

    def test_an_effect_is_kept_exact_away_from_the_null(self):
        normal = get_scenario("normal")
        assert normal(mean_a=0.7, mean_b=0.8, shift=0.2).effect == pytest.approx(0.1, rel=1e-14)
        assert normal(mean_a=0.5, mean_b=0.125, shift=0.25).effect == 0.625
        assert normal(mean_a=1.0, mean_b=1.0 + 2**-30).truth == "alternative"
        assert get_scenario("paired-normal")(mean_diff=0.1, shift=-0.1).truth == "null"

    def test_calibrate_reports_size_under_such_a_null(self, capsys):
        code, table, _ = _calibrate(capsys, "--scenario", "normal", "--param", "mean_a=0.7",
                                    "--param", "mean_b=0.8", "--param", "shift=0.1",
                                    "--criterion", "welch-t", "--reps", 500, "--seed", 1)
        assert code == 0
        row = table.iloc[0]
        assert row["truth"] == "null" and row["bradley"] in ("robust", "undetermined")
        assert "type_m" not in table.columns  # no type-M error of a zero effect


class TestOverflow:
    @pytest.mark.parametrize(("params", "message"), [
        ({"mean_a": 1e308, "shift": 1e308}, "A's population mean, `mean_a` + `shift`, must "
                                            "be finite; got inf (mean_a=1e+308, shift=1e+308)."),
        ({"mean_a": 1e308, "mean_b": -1e308}, "A's population mean minus B's, `mean_a` + "
                                              "`shift` - `mean_b`, must be finite; got inf"),
        ({"sd_a": 1e200, "sd_b": 1e200, "shift": 1e200}, "`sd_a` must be at most 1.341e+154, so "
                                                         "that its square, the variance, is "
                                                         "finite; got 1e+200."),
    ])
    def test_parameters_whose_population_is_not_finite_are_refused(self, capsys, params,
                                                                   message):
        argv = [x for k, v in params.items() for x in ("--param", f"{k}={v}")]
        code, _, err = _calibrate(capsys, "--scenario", "normal", *argv, "--criterion",
                                  "welch-t", "--reps", 100)
        assert code == 2 and err.startswith("evalmc: error: ") and message in err
        assert err.count("\n") == 1

    @pytest.mark.parametrize(("name", "params"), [
        ("cv-regression", {"sd": 1e200, "shift": 0.1}), ("pipelines", {"sigma": 1e200}),
        ("llm-items", {"sd": 1e200, "shift": 1.0}), ("paired-normal", {"sd_b": 1e200}),
    ])
    def test_an_sd_whose_variance_overflows_is_refused(self, name, params):
        # OverflowError from sd**2 in Python floats
        with pytest.raises(ValueError, match="must be at most 1.341e"):
            get_scenario(name)(**params)

    def test_a_huge_skew_has_a_finite_mean(self):
        # skew**2 raised OverflowError: coverage of A's mean crashed
        skew_normal = get_scenario("skew-normal")
        assert skew_normal(skew=1e200).a_mean == skew_normal(skew=1e20).a_mean == pytest.approx(
            np.sqrt(2 / np.pi), rel=1e-15)
        assert skew_normal(skew=-1e200).a_mean == -skew_normal(skew=1e200).a_mean
        # and its draws are that half-normal's (skew / inf made them a normal's)
        a = skew_normal(skew=1e200, n_a=2000).draw(np.random.default_rng(0), 50).a
        assert abs(a.mean() - np.sqrt(2 / np.pi)) < 4 * np.sqrt((1 - 2 / np.pi) / a.size)

    def test_every_scenario_with_a_shift_refuses_an_infinite_location(self):
        for name, params in [("paired-normal", {"mean_diff": 1e308}),
                             ("llm-items", {"skill_a": 1e308}), ("val-test", {"mu_test": 1e308}),
                             ("skew-normal", {"loc": 1e308}), ("mixture", {"loc2": 1e308})]:
            with pytest.raises(ValueError, match="must be finite; got inf"):
                get_scenario(name)(**params, shift=1e308)


class TestBlockAnswers:
    def test_one_answer_for_a_block_fails_the_block(self):
        # a 0-d p-value was copied to every replication: 10 values posed as 10,000
        import evalmc
        from evalmc.engine.scheduler import StudyError

        def block_mean_test(a, b, axis):
            """Welch's t on the block's pooled scores: one p-value, not one per replication."""
            from scipy import stats

            return stats.ttest_ind(a.ravel(), b.ravel(), equal_var=False).pvalue

        with pytest.raises(StudyError, match=r"failed in (\d+) of \1 replications; first "
                           r"error: TypeError: returned an answer of shape \(\) for a block of "
                           r"1000 replications; expected shape \(1000,\), one answer per "
                           r"replication"):
            evalmc.run_study({"n_a": 10}, "normal", [block_mean_test], n_reps=10_000, seed=1,
                             progress=False)

    def test_one_answer_per_replication_is_kept(self):
        from scipy import stats

        from evalmc.criteria.base import UserCriterion
        from evalmc.sims.base import Batch

        rng = np.random.default_rng(0)
        batch = Batch(rng.normal(size=(3, 8)), rng.normal(size=(3, 8)), paired=False)
        result = UserCriterion(stats.ttest_ind)(batch, None)
        assert not result.failed.any()
        np.testing.assert_array_equal(result.pvalue,
                                      stats.ttest_ind(batch.a, batch.b, axis=1).pvalue)


class TestFailuresAreSaid:
    def test_a_criterion_failing_often_is_warned_of(self):
        import evalmc

        def picky(a, b):
            """Welch's t, failing when A's first score is below -0.25 (40% of replications)."""
            from scipy import stats

            if a[0] < -0.25:
                raise ValueError("first score below -0.25")
            return stats.ttest_ind(a, b, equal_var=False).pvalue

        with pytest.warns(UserWarning, match=r"'.*picky' failed in 387 of 1000 replications "
                          r"\(38\.7%\) of condition \d+ \(normal \{.*\}\): its rates and "
                          r"estimates are over the 613 that did not fail \(first error: "
                          r"ValueError: first score below -0.25\)"):
            res = evalmc.run_study({"n_a": 10}, "normal", [picky], n_reps=1000, seed=3,
                                   progress=False)
        row = res.summary.iloc[0]
        assert row["rate"] == res.tallies[(row["condition_id"], res.criteria[0].key)
                                          ].rejections(0.05) / (1000 - row["n_failed"])

    def test_a_few_failures_are_not(self, recwarn):
        import evalmc

        def rare(a, b):
            if a[0] > 3.0:  # P = 0.13%
                raise ValueError("far out")
            return 0.5

        res = evalmc.run_study({"n_a": 10}, "normal", [rare], n_reps=1000, seed=3,
                               progress=False)
        assert 0 < res.summary["n_failed"].iloc[0] <= 10
        assert not [w for w in recwarn if "failed in" in str(w.message)]

    def test_decisions_coded_0_2_do_not_print_a_silent_zero(self, tmp_path, capsys):
        path = tmp_path / "coded.py"
        path.write_text("from scipy import stats\n\n\ndef coded(a, b):\n"
                        "    return 2 if stats.ttest_ind(a, b).pvalue <= 0.05 else 0\n")
        code, table, err = _calibrate(capsys, "--scenario", "normal", "--criterion",
                                      f"{path}:coded", "--reps", 2000, "--seed", 2)
        assert code == 0 and table["rate"].iloc[0] == 0.0
        assert table["n_failed"].iloc[0] > 20
        assert err.startswith("evalmc: warning: '") and err.count("\n") == 1
        assert ("(first error: TypeError: returned the integer 2; expected a p-value (a float "
                "in [0, 1]) or a decision (a bool, or the integer 0 or 1; True or 1 = reject))"
                in err)


class TestCoverage:
    def test_a_target_the_estimator_does_not_estimate_is_refused(self, capsys):
        # intervals of A's mean judged against the effect: coverage 0.0, bias -2.0
        code = main(["coverage", "--scenario", "normal", "--param", "mean_b=-2", "--estimator",
                     "t-interval", "--target", "effect", "--reps", "200", "--quiet"])
        assert code == 2
        assert capsys.readouterr().err == (
            "evalmc: error: `target` 'effect' (A's population mean minus B's) is not what "
            "estimator 't-interval' estimates, 'mean-a' (A's population mean); give target "
            "'mean-a', or an estimator of 'effect'.\n")

    def test_a_users_estimator_is_trusted_unless_it_declares_its_estimand(self):
        import evalmc

        def diff(a, b):
            return a.mean() - b.mean()

        res = evalmc.run_estimation({"mean_b": -2.0}, "normal", [diff], n_reps=200, seed=1,
                                    target="effect", progress=False)
        assert abs(res.summary["bias"].iloc[0]) < 4 * res.summary["bias_mcse"].iloc[0]
        diff.estimand = "mean-a"  # declared wrongly: refused
        with pytest.raises(ValueError, match="is not what estimator '.*diff' estimates, 'mean-a'"):
            evalmc.run_estimation({}, "normal", [diff], n_reps=200, seed=1, target="effect")

    @pytest.mark.parametrize(("answer", "message"), [
        ("(m + 1.0, m - 1.0)", r"ValueError: returned the interval \((\S+), (\S+)\), whose low "
                               r"bound is above its high one; expected \(low, high\) with low "
                               r"<= high"),
        ("float('nan')", r"ValueError: returned nan: NaN is no estimate or bound"),
    ])
    def test_an_impossible_answer_fails_its_replication(self, answer, message):
        import evalmc

        namespace = {}
        exec(f"def odd(a, b):\n    m = a.mean()\n    return {answer} if a[0] > 1.5 else "
             "(m - 1.0, m + 1.0)\n", namespace)
        with pytest.warns(UserWarning, match="failed in 72 of 1000 replications"):
            res = evalmc.run_estimation({}, "normal", [namespace["odd"]], n_reps=1000, seed=4,
                                        progress=False)
        row = res.summary.iloc[0]
        assert row["n_failed"] == 72  # and no negative width:
        assert row["width"] == pytest.approx(2.0, abs=1e-12)
        assert re.fullmatch(message, res.failures[0].message)


def test_calibrate_plot_draws_a_line_per_combination_and_keeps_size_apart(tmp_path, capsys,
                                                                          monkeypatch):
    # three varying parameters were joined in one zig-zag, size and power points together
    import evalmc.plots

    drawn = []

    def spy(*args, **kwargs):
        drawn.append(real(*args, **kwargs))
        return drawn[-1]

    real = evalmc.plots.rate_panels
    monkeypatch.setattr(evalmc.plots, "rate_panels", spy)
    code, _, _ = _calibrate(capsys, "--scenario", "normal", "--param", "shift=0,0.5,1",
                            "--param", "n_a=5,10", "--param", "sd_b=1,2", "--criterion",
                            "welch-t", "--criterion", "student-t", "--reps", 200, "--plot",
                            tmp_path / "rates.png")
    assert code == 0 and (tmp_path / "rates.png").stat().st_size > 0
    for ax in drawn[0].axes:  # a panel per n_a
        lines = [line.get_xdata().tolist() for line in ax.lines if line.get_linestyle() == "-"]
        assert lines == [[0.0], [0.5, 1.0]] * 4  # 2 criteria x 2 sd_b: size, then power
    assert [t.get_text() for t in drawn[0].axes[-1].get_legend().get_texts()] == [
        "welch-t, sd_b=1", "student-t, sd_b=1", "welch-t, sd_b=2", "student-t, sd_b=2"]


class TestMemoryBudget:
    def test_wide_conditions_get_smaller_blocks_and_slabs(self, monkeypatch):
        # n_a = n_b = 10^6 with mann-whitney drew 1000 x 2 x 10^6 scores (7.45 GiB) a block
        import evalmc
        import evalmc.engine.options
        from evalmc.sims.scores import Normal

        assert evalmc.engine.options.block_rows(Normal(n_a=10**6, n_b=10**6), 1000) == 16
        base = evalmc.run_study({"n_a": [5, 140]}, "normal", ["mann-whitney"], n_reps=1000,
                                seed=5, progress=False).summary
        monkeypatch.setattr(evalmc.engine.options, "MAX_BLOCK_BYTES", 8 * 15 * 1000)
        drawn = []
        real = Normal.draw_slab

        def spy(self, rngs, sizes):
            drawn.append((self.n_a, sum(sizes)))
            return real(self, rngs, sizes)

        monkeypatch.setattr(Normal, "draw_slab", spy)
        res = evalmc.run_study({"n_a": [5, 140]}, "normal", ["mann-whitney"], n_reps=1000,
                               seed=5, progress=False)
        assert {rows for n_a, rows in drawn if n_a == 140} == {100}  # 150 scores: 100 rows
        assert {rows for n_a, rows in drawn if n_a == 5} == {1000}  # within budget: as before
        pd.testing.assert_frame_equal(res.summary.iloc[[0]], base.iloc[[0]])
        monkeypatch.setattr(Normal, "draw_slab", real)
        small = evalmc.run_study({"n_a": 140}, "normal", ["mann-whitney"], n_reps=1000, seed=5,
                                 block_size=100, progress=False).summary
        assert res.summary["rate"].iloc[1] == small["rate"].iloc[0]  # blocks of 100

    def test_a_failure_in_a_smaller_block_replays(self, monkeypatch):
        import evalmc
        import evalmc.engine.options

        def first_above(a, b):
            if a[0] > 2:
                raise ValueError("first score of A above 2")
            return 0.5

        monkeypatch.setattr(evalmc.engine.options, "MAX_BLOCK_BYTES", 8 * 150 * 100)
        res = evalmc.run_study({"n_a": 140}, "normal", [first_above], n_reps=300, seed=3,
                               progress=False)
        assert {f.block for f in res.failures} > {0}  # blocks of 100: failures beyond the first
        for failure in res.failures:
            assert res.replay(failure).a[0, 0] > 2
