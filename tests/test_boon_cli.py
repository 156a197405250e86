import json

import numpy as np
import pytest

from evalmc.cli import main
from evalmc.estimators.boon import boon_nonparametric, boon_parametric


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(0)
    val = rng.normal(70, 1, 40)
    test = 0.5 * val + rng.normal(35, 0.8, 40)
    path = tmp_path / "runs.csv"
    path.write_text("seed,val,test\n" + "".join(
        f"{i},{float(v)!r},{float(t)!r}\n" for i, (v, t) in enumerate(zip(val, test, strict=True))))
    return path, val, test


def test_json(runs, capsys):
    path, val, test = runs
    assert main(["boon", str(path), "--n", "5", "--val", "val", "--test", "test",
                 "--format", "json", "--resamples", "500"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert set(record) == {"n", "m", "nonparametric", "nonparametric_ci", "parametric",
                           "parametric_ci", "mean", "median"}
    assert record["m"] == 40 and record["n"] == 5
    assert record["nonparametric"] == pytest.approx(boon_nonparametric(test, val, n=5))
    assert record["parametric"] == pytest.approx(boon_parametric(test, val, n=5))
    low, high = record["nonparametric_ci"]
    assert low < record["nonparametric"] < high
    assert record["median"] == pytest.approx(np.median(test))


def test_single_evaluation_table_plot_and_warning(runs, tmp_path, capsys):
    path, _, test = runs
    png = tmp_path / "boon.png"
    assert main(["boon", str(path), "--n", "50", "--test", "test", "--plot", str(png),
                 "--resamples", "200"]) == 0
    out, err = capsys.readouterr()
    assert "nonparametric_ci" in out and png.stat().st_size > 1000
    assert "m = 40 runs is fewer than n = 50" in err
    assert f"{boon_nonparametric(test, n=50):.6g}" in out


@pytest.mark.parametrize(("content", "args", "match"), [
    ("a,b\n1,2\n3,4\n", ["--test", "c"], "`--test` 'c' is not a column of .*; its columns: a, b"),
    ("a,b\n1,2\nx,4\n", ["--test", "a"], "`--test` column 'a' must hold finite numbers .*data "
                                        "row 2 has 'x'"),
    ("a,b\n1,2\ninf,4\n", ["--test", "a"], "`--test` column 'a' must hold finite numbers"),
    ("a,b\n1,2\nnan,4\n", ["--test", "a"], "`--test` 'a' needs at least 2 distinct scores; got "
                                          "1 value"),
    ("a,b\n1,2\nnan,4\n3,4\n", ["--test", "a", "--no-dropna"],
     "`--test` column 'a' has a missing value on data row 2"),
    ("a\n1\n", [], "`--test` 'a' needs at least 2 distinct scores; got 1 value"),
    ("a,b\n1,2\n3,4\n", [], r"`--test` must name the column of scores .* \(columns of numbers: "
                           "a, b"),
    ("a,b\n1,2\n3,4\n", ["--test", "a", "--val", "z"], "`--val` 'z' is not a column of"),
    ("a\n1\n2\n", ["--n", "0"], "`n` must be an integer >= 1; got 0"),
    ("a\n1\n2\n", ["--level", "1.5"], r"`level` must be in \(0, 1\); got 1.5"),
    ("a\n1\n2\n", ["--confidence", "1.5"], r"`level` must be in \(0, 1\); got 1.5"),
    ("a\n1\n2\n", ["--plot", "/no/dir/x.png"], "`--plot` must be a file in a writable dir"),
])
def test_bad_input(tmp_path, capsys, content, args, match):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    argv = ["boon", str(path), *(args if "--n" in args else ["--n", "5", *args])]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and __import__("re").search(match, err), err


def test_missing_file(capsys):
    assert main(["boon", "/no/runs.csv", "--n", "5"]) == 2
    assert "`FILE` must be an existing CSV file" in capsys.readouterr().err
