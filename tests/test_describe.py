import json

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from scipy import stats

from evalmc.cli import main
from evalmc.criteria.normality import lilliefors
from evalmc.estimators.describe import (
    KEYS,
    bimodality_coefficient,
    describe,
    describe_columns,
    hinge_iqr,
)
from evalmc.plots import box_vs_mean_sd, histograms, report_figure


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
        assert list(out["column"]) == ["a", "b"] and list(out.columns) == ["column", *KEYS]
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
        (["RUNS", "--col", "name"], "column 'name' must hold finite numbers only"),
        (["RUNS", "--plot", "/no/such/dir/x.png"], "`--plot` must be a file in a writable"),
        (["EMPTY"], "is not a readable CSV file"),
        (["SHORT"], "column 'a': `x` must be a 1-D sample of at least 4 values"),
    ])
    def test_errors_exit_2_with_one_line(self, runs_csv, tmp_path, capsys, argv, match):
        (tmp_path / "empty.csv").write_text("")
        (tmp_path / "short.csv").write_text("a\n1\n2\n3\n")
        names = {"RUNS": str(runs_csv), "EMPTY": str(tmp_path / "empty.csv"),
                 "SHORT": str(tmp_path / "short.csv")}
        assert main(["describe", *[names.get(a, a) for a in argv]]) == 2
        err = capsys.readouterr().err
        assert match in err and err.count("\n") == 1
