"""The public API: what ``import evalmc`` gives, each name documented with examples that run."""

import argparse
import doctest
import inspect
import io
import json
import subprocess
import sys

import numpy as np
import pytest

import evalmc

DATA = {"__version__", "SCENARIOS", "CRITERIA"}
#: Libraries ``import evalmc`` and the command modules' top levels must not load.
HEAVY = ("numpy", "pandas", "scipy", "numba", "matplotlib", "joblib", "dask")
#: evalmc modules the command modules may import only inside ``run`` (the registries they
#: read are light).
HEAVY_EVALMC = ("evalmc.study.rates", "evalmc.estimators.boon", "evalmc.estimators.intervals",
                "evalmc.estimators.describe", "evalmc.analysis.comparison",
                "evalmc.study.calibration", "evalmc.criteria.outperform", "evalmc.analysis.power",
                "evalmc.engine.scheduler", "evalmc.study.estimation", "evalmc.engine.tallies")


def _loaded(code: str) -> list:
    probe = (f"import json, sys\n{code}\n"
             f"print(json.dumps([m for m in sys.modules if m.split('.')[0] in {HEAVY!r} "
             f"or m.startswith({HEAVY_EVALMC!r})]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def test_import_evalmc_is_light():
    assert _loaded("import evalmc; dir(evalmc); evalmc.__version__") == []


def test_command_parsers_are_light():
    code = ("import argparse\n"
            "from evalmc.commands import boon, calibrate, compare, describe\n"
            "sub = argparse.ArgumentParser().add_subparsers()\n"
            "for module in (boon, calibrate, compare, describe):\n"
            "    module.register(sub)")
    assert _loaded(code) == []


def test_all_is_what_dir_adds_and_every_name_resolves():
    import evalmc.study.rates  # noqa: F401  (a loaded submodule stays out of dir)

    added = {n for n in dir(evalmc) if not (n.startswith("__") and n.endswith("__"))}
    assert added == set(evalmc.__all__) - {"__version__"}
    assert len(evalmc.__all__) == len(set(evalmc.__all__))  # no name twice; the set is dir's
    for name in evalmc.__all__:
        assert getattr(evalmc, name) is not None
    assert evalmc.calibrate.__module__ == "evalmc.study.calibration"
    assert evalmc.compare.__module__ == "evalmc.analysis.comparison"
    assert evalmc.CompareResult.__module__ == "evalmc.analysis.comparison"
    assert (evalmc.run_gate.__module__, evalmc.solve_gate.__module__) == (
        "evalmc.study.gate", "evalmc.study.gate_solve")
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        evalmc.nope  # noqa: B018


def test_version_is_the_installed_one():
    from importlib.metadata import version

    assert evalmc.__version__ == version("evalmc")


@pytest.mark.parametrize("name", sorted(set(evalmc.__all__) - DATA))
def test_public_name_has_examples_that_run(name):
    obj = getattr(evalmc, name)
    tests = [t for t in doctest.DocTestFinder(recurse=False).find(obj, name) if t.examples]
    assert tests, f"{name} has no Examples section"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    for test in tests:
        runner.run(test, out=report.write)
    assert runner.failures == 0, report.getvalue()


def test_python_m_evalmc_is_the_command():
    out = subprocess.run([sys.executable, "-m", "evalmc", "--version"], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == f"evalmc {evalmc.__version__}"


def _defaults(module, *argv) -> dict:
    parser = argparse.ArgumentParser()
    module.register(parser.add_subparsers())
    return vars(parser.parse_args(list(argv)))


def _signature(func) -> dict:
    return {k: p.default for k, p in inspect.signature(func).parameters.items()}


def test_parsers_defaults_and_choices_are_the_librarys():
    """The command line parses without importing the library: its copies must match."""
    from evalmc.commands import boon, calibrate, compare
    from evalmc.estimators.boon import BEST, CI_METHODS, boon_interval

    assert (boon.BEST, boon.CI_METHODS) == (BEST, CI_METHODS)

    cli = _defaults(calibrate, "calibrate", "--scenario", "normal", "--criterion", "welch-t")
    lib = _signature(evalmc.calibrate)
    assert (cli["reps"], float(cli["alpha"]), cli["seed"], cli["jobs"], cli["backend"],
            cli["block_size"]) == (lib["n_reps"], lib["alpha"], lib["seed"], lib["n_jobs"],
                                   lib["backend"], lib["block_size"])
    cli = _defaults(compare, "compare", "f.csv", "--a", "A", "--b", "B")
    lib = _signature(evalmc.compare)
    assert {k: cli[k] for k in ("gamma", "alpha", "beta", "delta", "sigma", "seed")} == {
        k: lib[k] for k in ("gamma", "alpha", "beta", "delta", "sigma", "seed")}
    assert cli["resamples"] == lib["n_resamples"]
    cli = _defaults(boon, "boon", "f.csv", "--n", "5")
    lib = _signature(boon_interval)
    assert (cli["best"], cli["level"], cli["method"], cli["resamples"]) == (
        lib["best"], lib["level"], lib["method"], lib["n_resamples"])


@pytest.fixture(scope="module")
def results():
    import numpy as np

    study = evalmc.calibrate("normal", ["welch-t", "single-point"], params={"n_a": [5, 10]},
                             n_reps=300, seed=3, progress=False)
    runs = np.random.default_rng(0).normal(size=20)
    boon = evalmc.boon_interval(runs, n=3, n_resamples=200, seed=np.random.default_rng(1))
    comparison = evalmc.compare(runs + 0.5, runs[::-1])
    return {"study": study, "boon": boon, "compare": comparison}


@pytest.mark.parametrize("kind", ["study", "boon", "compare"])
def test_results_show_as_tables_and_plot_on_a_given_axes(results, kind):
    import pandas as pd
    from matplotlib.figure import Figure

    res = results[kind]
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    html = res._repr_html_()
    assert frame.to_html(index=False, na_rep="-" if kind == "study" else "") in html
    fig = res.plot()
    assert isinstance(fig, Figure) and len(fig.axes) == 1 and fig.axes[0].has_data()
    ax = Figure().subplots(1, 2)[1]
    assert res.plot(ax=ax) is ax.figure and ax.has_data() and not ax.figure.axes[0].has_data()


def test_study_frame_is_its_summary(results):
    import pandas as pd

    study = results["study"]
    pd.testing.assert_frame_equal(study.to_frame(), study.summary)
    assert study.plot().axes[0].get_xlabel() == "n_a"


def test_compare_result():
    import numpy as np
    import scipy.stats

    rng = np.random.default_rng(0)
    b = rng.normal(70.0, 1.0, 30)
    a = b + 1.0 + rng.normal(0, 1.0, 30)
    a[5] = b[5]
    res = evalmc.compare(a, b, seed=1)
    record = res.to_dict()
    ci = scipy.stats.ttest_rel(a, b).confidence_interval(0.95)
    assert record == {
        "k": 30, "wins": 24, "ties": 1, "p_a_beats_b": pytest.approx(24.5 / 30),
        "ci_low": pytest.approx(20 / 30), "ci_high": pytest.approx(28 / 30),
        "conclusion": "A better", "gamma": 0.75, "alpha": 0.05, "n_resamples": 1000,
        "noether_n": 29, "sigma": pytest.approx(0.9354053959204944, rel=1e-12), "delta": 1.9952,
        "threshold": pytest.approx(1.9952 * 0.9354053959204944, rel=1e-12),
        "criteria": {"prob-outperform": "A better", "single-point": "no difference shown",
                     "average-delta": "no difference shown", "t-oracle": "A better"},
        "null_a_better": None, "null_b_better": None,
        "caveats": ["1 tied pair(s), each counted one half in P(A>B)."], "best": "max",
        "mean_difference": pytest.approx(np.mean(a - b), rel=1e-12),
        "diff_low": pytest.approx(ci.low, rel=1e-12),
        "diff_high": pytest.approx(ci.high, rel=1e-12), "tests": record["tests"]}
    assert list(record) == ["k", "wins", "ties", "p_a_beats_b", "ci_low", "ci_high",
                            "conclusion", "gamma", "alpha", "n_resamples", "noether_n",
                            "sigma", "delta", "threshold", "criteria", "null_a_better",
                            "null_b_better", "caveats", "best", "mean_difference", "diff_low",
                            "diff_high", "tests"]
    assert [t["test"] for t in record["tests"]] == ["paired-t", "wilcoxon",
                                                    "permutation-paired"]
    json.dumps(record)  # the command's --format json
    frame = res.to_frame()
    assert list(frame["criterion"]) == [*res.criteria, "paired-t", "wilcoxon",
                                        "permutation-paired"]
    assert frame["p_a_beats_b"].iloc[0] == res.p_a_beats_b
    assert frame["ci_low"].iloc[1:4].isna().all()
    assert frame["ci_low"].iloc[4] == res.diff_low  # the paired t row: the mean difference's
    ax = res.plot().axes[0]
    heights = [bar.get_height() for bar in ax.containers[0]]
    assert len(heights) == 61 and sum(heights) == pytest.approx(1.0)
    assert {line.get_xdata()[0] for line in ax.lines} == {0.5, 0.75}


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"criteria": []}, "`criteria` must name at least one criterion"),
    ({"criteria": "welch-t", "params": {"nope": 1}}, "unknown parameter `nope`"),
    ({"criteria": "welch-t", "params": {"n_a": [5, 1]}}, "`n_a` must be an integer >= 2"),
    ({"criteria": "welch-t", "params": "n_a=5"}, "`params` must be a mapping of parameter"),
    ({"criteria": "welch-t", "alpha": [0.05, 1.0]}, r"`alpha` must be in \(0, 1\)"),
    ({"criteria": "welch-t", "alpha": "0.05"}, "`alpha` must be a real number; got '0.05'"),
    ({"criteria": "welch-t", "alpha": []}, "`alpha` needs at least one value"),
    ({"criteria": "welch-t", "scenario": 3}, "`scenario` must be a scenario name or class"),
    ({"criteria": "welch-t", "backend": "mpi"}, "`backend` must be one of 'threads'"),
])
def test_calibrate_checks_its_arguments(kwargs, match):
    kwargs = {"scenario": "normal", **kwargs}
    with pytest.raises(ValueError, match=match):
        evalmc.calibrate(**kwargs)


def test_calibrate_is_the_command(capsys):
    """The command parses its strings and calls calibrate: the same summary, to the digit."""
    import numpy as np

    from evalmc.cli import main

    assert main(["calibrate", "--scenario", "normal", "--param", "n_a=5,8", "--param",
                 "sd_a=2", "--criterion", "welch-t", "--criterion", "student-t", "--alpha",
                 "0.01,0.05", "--reps", "400", "--seed", "5", "--block-size", "150",
                 "--format", "json", "--quiet"]) == 0
    cli = json.loads(capsys.readouterr().out)
    res = evalmc.calibrate(evalmc.get_scenario("normal"), ["welch-t", "student-t"],
                           params={"n_a": np.array([5, 8]), "sd_a": 2.0}, alpha=(0.01, 0.05),
                           n_reps=400, seed=5, block_size=150, progress=False)
    assert cli == json.loads(res.summary.to_json(orient="records", double_precision=10))
    assert len(cli) == 8 and res.block_size == 150


def test_calibrate_defaults_to_one_condition_at_the_scenarios_defaults():
    res = evalmc.calibrate("normal", "welch-t", n_reps=200, progress=False)
    assert list(res.design.columns) == ["condition_id", "n_a"]
    assert res.design["n_a"].tolist() == [evalmc.get_scenario("normal")().n_a]
    assert res.summary["criterion"].tolist() == ["welch-t"] and res.n_reps == 200


def test_one_name_per_concept_across_the_python_api():
    """Replications and workers are ``n_reps`` and ``n_jobs`` wherever a public function
    takes them (the command line's flags are ``--reps`` and ``--jobs``)."""
    for name in evalmc.__all__:
        obj = getattr(evalmc, name)
        if callable(obj) and not isinstance(obj, type):
            params = set(inspect.signature(obj).parameters)
            assert not params & {"reps", "jobs"}, (name, params)
    assert {"n_reps", "n_jobs"} <= set(inspect.signature(evalmc.calibrate).parameters)
    import dataclasses

    kept = [{f.name for f in dataclasses.fields(cls)} for cls in (evalmc.StudyResult,
                                                                  evalmc.EstimationResult)]
    assert all("outcomes" in names and "values" not in names for names in kept)


def test_calibrates_old_keywords_still_work_with_a_deprecation_warning():
    new = evalmc.calibrate("normal", "welch-t", n_reps=200, n_jobs=1, seed=4, progress=False)
    with pytest.warns(DeprecationWarning) as caught:
        old = evalmc.calibrate("normal", "welch-t", reps=200, jobs=1, seed=4, progress=False)
    assert [str(w.message) for w in caught] == [
        "`reps` is deprecated; use `n_reps` (as in run_study).",
        "`jobs` is deprecated; use `n_jobs` (as in run_study)."]
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert old.summary.equals(new.summary) and old.n_reps == 200
    with pytest.raises(TypeError, match="calibrate.. got both `reps` and `n_reps`"):
        evalmc.calibrate("normal", "welch-t", reps=200, n_reps=300)
    with pytest.raises(TypeError, match="unexpected keyword argument 'rep'"):
        evalmc.calibrate("normal", "welch-t", rep=200)


def test_compare_checks_its_runs():
    with pytest.raises(ValueError, match="`a` and `b` must be 1-D arrays of the same length"):
        evalmc.compare([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"`b` must hold finite scores; b\[1\] is nan"):
        evalmc.compare([1.0, 2.0, 3.0], [1.0, float("nan"), 2.0])


def test_describe_takes_a_frame_a_dict_or_one_sample():
    import numpy as np
    import pandas as pd

    from evalmc.estimators.describe import KEYS, describe, describe_columns

    rng = np.random.default_rng(4)
    x, y = rng.gamma(2.0, size=30), rng.normal(size=30)
    by_frame = evalmc.describe(pd.DataFrame({"x": x, "y": y, "name": ["r"] * 30}))
    assert list(by_frame.columns) == ["column", *KEYS, "n_missing", "note"]
    assert list(by_frame["column"]) == ["x", "y"]
    pd.testing.assert_frame_equal(by_frame, describe_columns(pd.DataFrame({"x": x, "y": y})))
    pd.testing.assert_frame_equal(evalmc.describe({"x": x, "y": list(y)}), by_frame)
    one = evalmc.describe(x)
    assert one["column"].tolist() == [0]
    assert one[list(KEYS)].iloc[0].to_dict() == describe(x)
    assert evalmc.describe(pd.Series(x, name="acc"))["column"].tolist() == ["acc"]
    ragged = evalmc.describe({"x": x, "y": y[:10]}, columns="y")
    assert ragged[["column", "n"]].values.tolist() == [["y", 10]]


@pytest.mark.parametrize(("data", "columns", "match"), [
    ([[1.0, 2.0], [3.0, 4.0]], None, "`data` must be a DataFrame, a dict of column name to "
                                     "runs or a 1-D array of runs; got list of 2 dimensions"),
    ({"x": [1.0, 2.0, 3.0, 4.0]}, ["z"], "`columns` must name columns of `data`; 'z' is not "
                                        "one of x"),
    ({"x": ["a", "b", "c", "d"]}, None, "`columns` must name at least one column of numbers"),
    ({"x": [1.0, 2.0, "two", 4.0, 5.0]}, ["x"], "column 'x' must hold finite numbers only; "
                                               "data row 3 holds 'two'"),
    ({"x": [1.0, 2.0, np.inf, 4.0, 5.0]}, ["x"], "column 'x' must hold finite numbers only; "
                                                "data row 3 holds inf"),
])
def test_describe_checks_its_data(data, columns, match):
    with pytest.raises(ValueError, match=match):
        evalmc.describe(data, columns)


def test_describe_skips_and_counts_missing_values_and_keeps_odd_columns():
    frame = evalmc.describe({"x": [1.0, 2.0, None, 4.0, 5.0], "flat": [3.0] * 5,
                             "short": [1.0, 2.0, 3.0]})
    x, flat, short = (frame.iloc[i] for i in range(3))
    assert (x["n"], x["n_missing"], x["mean"], x["note"]) == (4, 1, 3.0, "")
    assert (flat["n"], flat["sd"], flat["note"]) == (5, 0.0, "constant: no shape")
    assert np.isnan(flat["skewness"]) and short["note"] == "3 values: shape needs 4"
    with pytest.raises(ValueError, match=r"column 'x' must hold no missing values \(dropna="
                                         r"False\); data row 3 holds nan"):
        evalmc.describe({"x": [1.0, 2.0, None, 4.0, 5.0]}, dropna=False)


def test_a_registered_test_runs_on_your_own_two_samples():
    """``get_criterion('welch-t')(a, b)`` raised AttributeError from deep inside."""
    import scipy.stats

    rng = np.random.default_rng(7)
    a, b = rng.normal(0.5, 1.0, 12), rng.normal(0.0, 2.0, 9)
    welch = evalmc.get_criterion("welch-t")
    res = welch.on(a, b)
    ref = scipy.stats.ttest_ind(a, b, equal_var=False)
    assert res.pvalues()[0] == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.statistic[0] == pytest.approx(ref.statistic, rel=1e-10)
    paired = evalmc.get_criterion("paired-t").on(a[:9], b)
    assert paired.pvalues()[0] == pytest.approx(scipy.stats.ttest_rel(a[:9], b).pvalue,
                                                rel=1e-10)
    rows = evalmc.get_criterion("mann-whitney").on(np.stack([a[:9], b]), np.stack([b, a[:9]]))
    assert rows.pvalues().shape == (2,)
    perm = evalmc.get_criterion("permutation-two-sample")
    assert perm.on(a, b, rng=3).pvalues() == perm.on(a, b, rng=3).pvalues()
    with pytest.raises(TypeError, match=r"on your own two samples of scores call "
                                        r"criterion.on\(a, b\)"):
        welch(a, b)
    with pytest.raises(ValueError, match="pairs a\\[j\\] with b\\[j\\]: `a` and `b` must have "
                                         "the same shape; got \\(12,\\) and \\(9,\\)"):
        evalmc.get_criterion("paired-t").on(a, b)
    with pytest.raises(ValueError, match="criterion 'mcnemar' reads counts, not two samples"):
        evalmc.get_criterion("mcnemar").on(a, b)
    with pytest.raises(ValueError, match="`a` and `b` must be 1-D samples, or 2-D"):
        welch.on(a, np.stack([b, b]))


def test_one_name_per_concept_resamples_and_level():
    """``n_resamples`` for the bootstrap resamples, ``level`` for a confidence level, in the
    results as in the parameters (the commands' ``--resamples``, ``--level``)."""
    comparison = evalmc.compare([0.91, 0.93, 0.90, 0.94, 0.92], [0.90, 0.91, 0.91, 0.92, 0.90],
                                n_resamples=200)
    assert comparison.n_resamples == 200 and not hasattr(comparison, "resamples")
    assert "level" in inspect.signature(evalmc.boon_interval).parameters
    assert "confidence" not in inspect.signature(evalmc.boon_interval).parameters
    interval = evalmc.boon_interval(np.arange(10.0), n=3, n_resamples=50, level=0.9)
    assert interval.level == 0.9 and interval.to_frame()["level"].tolist() == [0.9]
    from evalmc.commands import boon

    for option in ("--level", "--confidence"):  # the README's former spelling still works
        assert _defaults(boon, "boon", "f.csv", "--n", "3", option, "0.8")["level"] == 0.8
