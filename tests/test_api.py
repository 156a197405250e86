"""The public API: what ``import evalmc`` gives, each name documented with examples that run."""

import doctest
import subprocess
import sys
import types

import pytest

import evalmc

DATA = {"__version__", "SCENARIOS", "CRITERIA"}


def test_all_is_what_dir_adds_and_every_name_resolves():
    public = {n for n in dir(evalmc)  # less the subpackages imported so far
              if not n.startswith("_") and not isinstance(getattr(evalmc, n), types.ModuleType)}
    assert public == set(evalmc.__all__) - {"__version__"}
    for name in evalmc.__all__:
        assert getattr(evalmc, name) is not None
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
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} example(s) of {name} failed"


def test_python_m_evalmc_is_the_command():
    out = subprocess.run([sys.executable, "-m", "evalmc", "--version"], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == f"evalmc {evalmc.__version__}"


def test_parsers_choices_are_the_librarys():
    """The command line parses without importing the engine: its copies must match."""
    from evalmc.commands import boon, calibrate
    from evalmc.estimators.boon import BEST, CI_METHODS
    from evalmc.study import BACKENDS

    assert calibrate.BACKENDS == BACKENDS
    assert (boon.BEST, boon.CI_METHODS) == (BEST, CI_METHODS)


@pytest.fixture(scope="module")
def results():
    import numpy as np

    study = evalmc.calibrate("normal", ["welch-t", "single-point"], params={"n_a": [5, 10]},
                             reps=300, seed=3, progress=False)
    runs = np.random.default_rng(0).normal(size=20)
    boon = evalmc.boon_interval(runs, n=3, n_resamples=200, rng=np.random.default_rng(1))
    comparison = evalmc.compare(runs + 0.5, runs[::-1])
    return {"study": study, "boon": boon, "compare": comparison}


@pytest.mark.parametrize("kind", ["study", "boon", "compare"])
def test_results_show_as_tables_and_plot_on_a_given_axes(results, kind):
    import pandas as pd
    from matplotlib.figure import Figure

    res = results[kind]
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    assert res._repr_html_().startswith("<") and "<table" in res._repr_html_()
    fig = res.plot()
    assert isinstance(fig, Figure) and len(fig.axes) == 1 and fig.axes[0].has_data()
    ax = Figure().subplots(1, 2)[1]
    assert res.plot(ax=ax) is ax.figure and ax.has_data()


def test_study_frame_is_its_summary(results):
    import pandas as pd

    study = results["study"]
    pd.testing.assert_frame_equal(study.to_frame(), study.summary)
    assert study.plot().axes[0].get_xlabel() == "n_a"
    with pytest.raises(ValueError, match="`x` must be a design column"):
        study.plot(x="nope")


def test_compare_dict_is_the_json_of_the_command(results):
    record = results["compare"].to_dict()
    assert list(record) == ["k", "wins", "ties", "p_a_beats_b", "ci_low", "ci_high",
                            "conclusion", "gamma", "alpha", "resamples", "noether_n", "sigma",
                            "delta", "criteria"]


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"criteria": []}, "`criteria` must name at least one criterion"),
    ({"criteria": "welch-t", "params": {"nope": 1}}, "unknown parameter `nope`"),
    ({"criteria": "welch-t", "params": {"n_a": [5, 1]}}, "`n_a` must be an integer >= 2"),
    ({"criteria": "welch-t", "alpha": [0.05, 1.0]}, r"`alpha` must be in \(0, 1\)"),
])
def test_calibrate_checks_its_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        evalmc.calibrate("normal", **kwargs)


def test_compare_checks_its_runs():
    with pytest.raises(ValueError, match="`a` and `b` must be 1-D arrays of the same length"):
        evalmc.compare([1.0, 2.0, 3.0], [1.0, 2.0])
