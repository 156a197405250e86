import json

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from scipy import stats

from evalmc.cli import main
from evalmc.estimators.describe import (
    KEYS,
    bimodality_coefficient,
    describe,
    describe_columns,
    hinge_iqr,
)
from evalmc.plots import box_vs_mean_sd, histograms, report_figure
from evalmc.stats.normality import lilliefors


class TestDescribe:
    def test_hinge_iqr_by_hand(self):
        assert hinge_iqr([8, 1, 7, 2, 6, 3, 5, 4]) == 4.0  # halves 1..4 and 5..8: 6.5 - 2.5
        assert hinge_iqr(np.arange(1, 10)) == 5.0  # median 5 left out: 7.5 - 2.5

    def test_values_against_numpy_and_scipy(self):
        x = np.random.default_rng(1).gamma(2.0, size=50)
        d = describe(x)
        assert list(d) == list(KEYS)
        assert d["n"] == 50 and d["mean"] == pytest.approx(x.mean())
        assert d["sd"] == pytest.approx(x.std(ddof=1)) and d["median"] == np.median(x)
        assert (d["min"], d["max"]) == (x.min(), x.max())
        assert d["skewness"] == pytest.approx(stats.skew(x, bias=False))
        assert d["shapiro_p"] == pytest.approx(stats.shapiro(x).pvalue)
        assert d["lilliefors_p"] == pytest.approx(lilliefors(x).pvalue)

    def test_mean_minus_sd_flag(self):
        # Nine runs at 1 and one at 10: mean 1.9, sd 2.85, so mean - sd is below the best run.
        assert describe([1.0] * 9 + [10.0])["mean_minus_sd_below_min"] is True
        assert describe(np.arange(10.0))["mean_minus_sd_below_min"] is False

    def test_bimodality_coefficient_theory(self):
        # 1/3 for a Gaussian, 5/9 for a uniform, ~1 for two well-separated equal modes.
        rng = np.random.default_rng(2)
        assert bimodality_coefficient(rng.standard_normal(20_000)) == pytest.approx(1 / 3,
                                                                                   abs=0.02)
        assert bimodality_coefficient(rng.random(20_000)) == pytest.approx(5 / 9, abs=0.02)
        two = np.r_[rng.normal(0, 0.1, 5000), rng.normal(5, 0.1, 5000)]
        assert bimodality_coefficient(two) > 0.9

    def test_fixed_seed_regression(self):
        d = describe(np.random.default_rng(42).lognormal(size=25))
        assert (d["iqr"], d["bimodality"]) == pytest.approx(
            (1.681176991717038, 0.5495012823039617), rel=1e-10)

    def test_columns(self):
        frame = pd.DataFrame({"a": np.arange(6.0), "b": [1, 2, 2, 3, 9, 4],
                              "name": list("xyzxyz")})
        out = describe_columns(frame)
        assert list(out["column"]) == ["a", "b"]
        assert list(out.columns) == ["column", *KEYS, "n_missing", "note"]
        with pytest.raises(ValueError, match=r"column 'name' must hold finite numbers only; "
                                             r"data row 1 holds 'x'\."):
            describe_columns(frame, ["name"])
        with pytest.raises(ValueError, match=r"`x` must be a 1-D sample of at least 4 values"):
            describe([1.0, 2.0, 3.0])


class TestPlots:
    def test_figures_are_built_not_shown(self):
        samples = {"a": np.arange(10.0), "b": np.arange(10.0) ** 2}
        for fig in (histograms(samples, ncols=2), box_vs_mean_sd(samples),
                    report_figure(samples)):
            assert isinstance(fig, Figure) and fig.axes

    def test_histograms_show_percentages_and_hide_empty_panels(self):
        rng = np.random.default_rng(0)
        samples = {k: rng.normal(size=20) for k in "ABC"}
        fig = histograms(samples, ncols=2, xlabel="score")
        assert len(fig.axes) == 4
        assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == ["A", "B", "C"]
        ax = fig.axes[0]
        assert len(ax.patches) == 20 and ax.get_ylabel() == "% of runs"
        assert sum(bar.get_height() for bar in ax.patches) == pytest.approx(100.0)
        assert [ax.get_title() for ax in report_figure(samples).axes] == ["A", "B", "C", ""]


@pytest.fixture
def runs_csv(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "runs.csv"
    pd.DataFrame({"mlp": rng.normal(0.1, 0.01, 100),
                  "fir": np.r_[rng.normal(0.1, 0.01, 70), rng.normal(0.3, 0.02, 30)],
                  "name": ["x"] * 100}).to_csv(path, index=False)
    return path


class TestCommand:
    def test_json_keys_and_values(self, runs_csv, capsys):
        assert main(["describe", str(runs_csv), "--col", "fir", "--col", "mlp",
                     "--format", "json"]) == 0
        rows = json.loads(capsys.readouterr().out)
        assert [r["column"] for r in rows] == ["fir", "mlp"]
        assert {"n", "mean", "sd", "median", "iqr", "min", "max", "skewness", "ks_d", "ks_p",
                "shapiro_p", "mean_minus_sd_below_min"} <= set(rows[0])
        fir = pd.read_csv(runs_csv)["fir"]
        assert rows[0]["mean"] == pytest.approx(fir.mean(), rel=1e-12)
        assert rows[0]["ks_p"] < 1e-6 < rows[1]["ks_p"]  # full precision, not rounded to 0
        assert rows[0]["mean_minus_sd_below_min"] is True

    def test_table_and_plot(self, runs_csv, tmp_path, capsys):
        png = tmp_path / "runs.png"
        assert main(["describe", str(runs_csv), "--col", "mlp", "--plot", str(png)]) == 0
        out = capsys.readouterr().out
        assert out.splitlines()[0].split()[:3] == ["column", "n", "mean"]
        assert png.stat().st_size > 1000

    @pytest.mark.parametrize(("argv", "match"), [
        (["missing.csv"], "`FILE` must be an existing CSV file; got 'missing.csv'."),
        (["RUNS", "--col", "zz"], "`--col` 'zz' is not a column of"),
        (["RUNS", "--col", "name"], "`--col` column 'name' must hold finite numbers (an empty "
                                    "cell is a missing value); data row 1 has 'x'"),
        (["RUNS", "--plot", "/no/such/dir/x.png"], "`--plot` must be a file in a writable"),
        (["EMPTY"], "is empty; a CSV file of runs needs a header row"),
        (["TEXT"], "has no column of numbers; its columns: model"),
        (["GAP", "--no-dropna"], "column 'a' must hold no missing values (dropna=False); data "
                                 "row 2 holds nan"),
        (["ONE_TEXT_CELL"], "`--col` column 'a' must hold finite numbers (an empty cell is a "
                            "missing value); data row 3 has 'oops'"),
    ])
    def test_errors_exit_2_with_one_line(self, runs_csv, tmp_path, capsys, argv, match):
        files = {"EMPTY": "", "TEXT": "model\nx\ny\n", "GAP": "a,b\n1,1\n,2\n3,3\n4,4\n5,5\n",
                 "ONE_TEXT_CELL": "a,b\n1,2\n2,3\noops,4\n3,5\n4,6\n"}
        names = {"RUNS": str(runs_csv)}
        for name, text in files.items():
            (tmp_path / f"{name}.csv").write_text(text)
            names[name] = str(tmp_path / f"{name}.csv")
        assert main(["describe", *[names.get(a, a) for a in argv]]) == 2
        err = capsys.readouterr().err
        assert match in err and err.count("\n") == 1

    def test_missing_values_constant_and_short_columns_do_not_abort_the_report(self, tmp_path,
                                                                             capsys):
        path = tmp_path / "runs.csv"
        path.write_text("model,a,flat,short\nm1,1,5,1\nm2,,5,2\nm3,3,5,\nm4,4,5,\nm5,6,5,\n")
        assert main(["describe", str(path), "--format", "csv"]) == 0
        out, err = capsys.readouterr()
        report = pd.read_csv(__import__("io").StringIO(out)).set_index("column")
        assert err == "evalmc: not described (not numbers): model\n"
        assert report.loc["a", ["n", "n_missing"]].tolist() == [4, 1]
        assert report.loc["flat", "note"] == "constant: no shape"
        assert report.loc["short", "note"] == "2 values: shape needs 4"

    def test_semicolons_and_decimal_commas_are_read_as_numbers(self, tmp_path, capsys):
        path = tmp_path / "runs.csv"
        path.write_text("run;acc\n1;0,91\n2;0,93\n3;0,90\n4;0,95\n")
        assert main(["describe", str(path), "--col", "acc", "--format", "json"]) == 0
        row = json.loads(capsys.readouterr().out)[0]
        assert row["mean"] == pytest.approx(0.9225) and row["n"] == 4

    def test_long_format_describes_each_model(self, tmp_path, capsys):
        path = tmp_path / "long.csv"
        path.write_text("model,seed,acc\n" + "".join(
            f"{m},{s},{v}\n" for s in range(5) for m, v in (("A", 0.9 + s / 100),
                                                           ("B", 0.8 + s * s / 100))))
        assert main(["describe", str(path), "--model", "model", "--score", "acc", "--format",
                     "json"]) == 0
        rows = json.loads(capsys.readouterr().out)
        assert [r["column"] for r in rows] == ["A", "B"]
        assert rows[1]["mean"] == pytest.approx(0.8 + 0.3 / 5 * 1.0, abs=1e-12)


def test_the_iqr_says_how_it_is_computed(tmp_path, capsys):
    """Medians of the halves, not numpy's interpolated quartiles: 30 against 20 here."""
    from evalmc.estimators.describe import IQR_NOTE

    path = tmp_path / "five.csv"
    path.write_text("x\n10\n20\n30\n40\n50\n")
    assert main(["describe", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[5] == "30.0" and np.subtract(*np.percentile([10, 20, 30, 40, 50],
                                                                        [75, 25])) == 20.0
    assert lines[-1] == IQR_NOTE and "median of the upper half" in IQR_NOTE
    for fmt in ("csv", "json"):  # the machine formats hold the table only
        assert main(["describe", str(path), "--format", fmt]) == 0
        assert IQR_NOTE not in capsys.readouterr().out
    path.write_text("x\n1\n2\n")  # too short for an IQR: no note
    assert main(["describe", str(path)]) == 0
    assert IQR_NOTE not in capsys.readouterr().out
    import subprocess
    import sys

    help_text = subprocess.run([sys.executable, "-m", "evalmc", "--help"], capture_output=True,
                               text=True).stdout
    assert "IQR (medians of the upper and lower halves)" in " ".join(help_text.split())
