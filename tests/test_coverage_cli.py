"""``evalmc coverage``: an estimator study from the command line."""

import io

import pandas as pd
import pytest

from evalmc.cli import main
from evalmc.estimators.intervals import get_estimator
from evalmc.estimators.registry import ESTIMATORS

INTERVAL = '''
import numpy as np
def plus_minus_one(a, b):
    """The mean of A's runs, plus or minus one."""
    return a.mean(), a.mean() - 1.0, a.mean() + 1.0
'''


def test_estimators_take_arguments_by_name(capsys):
    assert main(["coverage", "--scenario", "normal", "--estimator", "t-interval(level=0.9)",
                 "--reps", "400", "--format", "csv", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "t-interval(level=0.9)" in out and ",0.9," in out  # its name and its level
    assert main(["coverage", "--scenario", "normal", "--estimator", "t-interval(lvl=0.9)"]) == 2
    assert "key among level" in capsys.readouterr().err
    for name in ESTIMATORS:  # every registered row builds the estimator of its name
        assert get_estimator(name).name == name


def test_csv_summary_and_plot(tmp_path, capsys):
    path = tmp_path / "interval.py"
    path.write_text(INTERVAL)
    plot = tmp_path / "coverage.png"
    assert main(["coverage", "--scenario", "normal", "--param", "n_a=4,16", "--estimator",
                 "t-interval", "--estimator", f"{path}:plus_minus_one", "--reps", "2000",
                 "--format", "csv", "--plot", str(plot), "--quiet"]) == 0
    s = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert s["estimator"].tolist() == ["t-interval", f"{path}:plus_minus_one"] * 2
    user = s[s["estimator"] != "t-interval"].set_index("n_a")["coverage"]
    # the mean of n N(0,1) runs lies within 1 of 0 with probability 2 Phi(sqrt(n)) - 1
    for n, p in ((4, 0.9545), (16, 0.99994)):
        assert abs(user[n] - p) <= 4 * (p * (1 - p) / 2000) ** 0.5 + 1e-3
    assert plot.stat().st_size > 0


@pytest.mark.parametrize(("argv", "message"), [
    (["--estimator", "nope"], "unknown estimator 'nope'"),
    (["--estimator", "mean-a", "--target", "median"],
     "`target` must be mean-a or effect or odds-ratio or a number; got 'median'"),
    (["--estimator", "mean-a", "--reps", "x"], "`reps` must be an integer; got 'x'"),
    (["--estimator", "mean-a", "--plot", "/no/such/dir/f.png"],
     "`--plot` must be a file in a writable directory"),
])
def test_bad_arguments_exit_2_with_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        status = main(["coverage", "--scenario", "normal", *argv])
        raise SystemExit(status)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
