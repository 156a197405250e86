"""The one CSV reader: dialect, columns, missing values, long format; and the tables
researchers write (delimiters ending the lines, ids, index columns, one row per run, losses,
numbers written otherwise)."""

import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalmc.cli import main
from evalmc.inputs.tables import (
    check_wide,
    drop_missing,
    ids_note,
    is_score_column,
    key_word,
    numeric_column,
    only_score_column,
    read_table,
    score_columns,
    wide,
)
from evalmc.sims.scores import read_scores


def _file(tmp_path, text, name="runs.csv", mode="w"):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize(("text", "delimiter", "decimal"), [
    ("a,b\n0.5,1\n0.7,2\n", ",", "."),
    ("a;b\n0,5;1\n0,7;2\n", ";", ","),
    ("a;b\n0.5;1\n0.7;2\n", ";", "."),
    ("a\tb\n0,5\t1\n0,7\t2\n", "\t", ","),
    ("a|b\n0.5|1\n0.7|2\n", "|", "."),
    ("a , b\n0.5, 1\n0.7, 2\n", ",", "."),
])
def test_dialect_is_found_and_numbers_read(tmp_path, text, delimiter, decimal):
    frame = read_table(_file(tmp_path, text))
    assert (frame.attrs["delimiter"], frame.attrs["decimal"]) == (delimiter, decimal)
    assert list(frame.columns) == ["a", "b"]
    np.testing.assert_array_equal(numeric_column(frame, "a", option="--a"), [0.5, 0.7])


def test_bom_and_crlf(tmp_path):
    frame = read_table(_file(tmp_path, b"\xef\xbb\xbfacc,seed\r\n0.9,1\r\n0.8,2\r\n"))
    assert list(frame.columns) == ["acc", "seed"]
    np.testing.assert_array_equal(numeric_column(frame, "acc", option="x"), [0.9, 0.8])


@pytest.mark.parametrize(("text", "match"), [
    ("", r"`FILE` '.*runs.csv' is empty; a CSV file of runs needs a header row"),
    ("\n\n", r"is empty"),
    ("a,a\n1,2\n", r"has the column 'a' twice; columns must have distinct names"),
    (b"a,b\n\xff\xfe,1\n", r"must be UTF-8 text; byte 4 is b'\\xff'"),
    ('a,b\n"1,2\n', r"is not a readable CSV file \(delimiter ',', decimal '.'\)"),
])
def test_unreadable_files_name_the_reason(tmp_path, text, match):
    with pytest.raises(ValueError, match=match):
        read_table(_file(tmp_path, text))


def test_missing_file_names_the_option(tmp_path):
    with pytest.raises(ValueError, match=r"`FILE` must be an existing CSV file; got '.*none'"):
        read_table(tmp_path / "none")


def test_text_cells_inf_and_missing_values(tmp_path):
    frame = read_table(_file(tmp_path, "a,b,name\n1,2,x\n,oops,y\n3,inf,z\nNA,4,w\n"))
    values = numeric_column(frame, "a", option="--a")
    assert np.isnan(values[[1, 3]]).all() and values[[0, 2]].tolist() == [1.0, 3.0]
    assert drop_missing(values, dropna=True, option="--a", column="a").tolist() == [1.0, 3.0]
    with pytest.raises(ValueError, match="`--a` column 'a' has a missing value on data row 2"):
        drop_missing(values, dropna=False, option="--a", column="a")
    with pytest.raises(ValueError, match=r"`--b` column 'b' must hold finite numbers .*data row "
                                         r"2 has 'oops'"):
        numeric_column(frame, "b", option="--b")
    assert is_score_column(frame["b"]) and not is_score_column(frame["name"])
    with pytest.raises(ValueError, match=r"`--c` 'c' is not a column of .*; its columns: a, b, "
                                         r"name"):
        numeric_column(frame, "c", option="--c")


def test_long_format_by_run_order_and_by_key(tmp_path):
    frame = read_table(_file(tmp_path, "model,seed,acc\nA,1,0.9\nB,2,0.7\nA,2,0.8\nB,1,\n"
                                       "C,1,0.5\n"))
    by_order = wide(frame, "model", "acc")
    assert list(by_order.columns) == ["A", "B", "C"]
    np.testing.assert_array_equal(by_order["A"], [0.9, 0.8])
    assert by_order["B"].isna().tolist() == [False, True]
    assert by_order.attrs["missing"] == {"B": 1}  # the empty cell, not C's absent second run
    by_seed = wide(frame, "model", "acc", "seed")
    assert list(by_seed.columns) == ["seed", "A", "B", "C"]
    assert by_seed["seed"].tolist() == ["1", "2"]
    np.testing.assert_array_equal(by_seed["B"], [np.nan, 0.7])


@pytest.mark.parametrize(("text", "args", "match"), [
    ("model,seed,acc\nA,1,0.9\nA,1,0.8\n", ("model", "acc", "seed"),
     r"`--pair-by` key seed=1 has two runs of model 'A' \(data row 2\)"),
    ("model,acc\nA,0.9\n,0.8\n", ("model", "acc"), "`--model` column 'model' must have a value "
                                                  "on every row; data row 2 has none"),
    ("model,acc\nA,0.9\nB,x\n", ("model", "acc"), "`--score` column 'acc' must hold finite"),
    ("model,acc\nA,0.9\n", ("name", "acc"), "`--model` 'name' is not a column"),
])
def test_long_format_errors(tmp_path, text, args, match):
    with pytest.raises(ValueError, match=match):
        wide(read_table(_file(tmp_path, text)), *args)


def test_compare_reads_long_format_and_semicolons(tmp_path, capsys):
    long = _file(tmp_path, "model,seed,acc\n" + "".join(
        f"{m},{s},{0.9 + (s % 4) / 100 + (0.05 if m == 'A' else 0)}\n"
        for s in range(6) for m in "AB"), "long.csv")
    wide_file = _file(tmp_path, "seed;A;B\n" + "".join(
        f"{s};{str(0.95 + (s % 4) / 100).replace('.', ',')};"
        f"{str(0.9 + (s % 4) / 100).replace('.', ',')}\n" for s in range(6)), "wide.csv")
    assert main(["compare", str(long), "--model", "model", "--score", "acc", "--a", "A", "--b",
                 "B", "--pair-by", "seed", "--format", "csv"]) == 0
    from_long = capsys.readouterr().out
    assert main(["compare", str(wide_file), "--a", "A", "--b", "B", "--format", "csv"]) == 0
    import io

    import pandas as pd

    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(capsys.readouterr().out)),
                                  pd.read_csv(io.StringIO(from_long)), rtol=1e-9)
    assert "prob-outperform,A better,1.0,1.0,1.0" in from_long


def test_model_and_score_go_together(tmp_path, capsys):
    path = _file(tmp_path, "model,acc\nA,1\nB,2\n")
    assert main(["describe", str(path), "--model", "model"]) == 2
    assert "`--model` and `--score` go together" in capsys.readouterr().err


def _cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code, err, *parts):
    assert code == 2 and err.count("\n") == 1 and err.startswith("evalmc: error: "), err
    assert all(part in err for part in parts), err


RUNS_A = [0.91, 0.93, 0.90, 0.94, 0.92]
RUNS_B = [0.80, 0.82, 0.85, 0.81, 0.83]


@pytest.mark.parametrize("header", ["seed,A,B", "seed,A,B,"])
def test_a_delimiter_ending_every_line_shifts_no_column(tmp_path, capsys, header):
    path = _file(tmp_path, header + "\n" + "".join(
        f"{s},{a},{b},\n" for s, (a, b) in enumerate(zip(RUNS_A, RUNS_B, strict=True))))
    assert list(read_table(path).columns) == ["seed", "A", "B"]
    code, out, err = _cli(capsys, "describe", path, "--format", "json")
    rows = {row["column"]: row for row in json.loads(out)}
    assert code == 0 and set(rows) == {"A", "B"}
    assert rows["A"]["mean"] == pytest.approx(np.mean(RUNS_A), rel=1e-12)
    assert rows["B"]["sd"] == pytest.approx(np.std(RUNS_B, ddof=1), rel=1e-12)
    assert err == "evalmc: not described (ids): 'seed' (integers 0..4 numbering the rows); " \
                  "--col C describes one\n"
    code, out, _ = _cli(capsys, "boon", path, "--test", "A", "--n", "3", "--format", "json",
                        "--resamples", "50")
    assert json.loads(out)["mean"] == pytest.approx(np.mean(RUNS_A))
    assert read_scores(str(path), "A").tolist() == RUNS_A  # the empirical scenario's reading


def test_semicolons_ending_every_line_and_a_value_past_the_header(tmp_path):
    path = _file(tmp_path, "seed;A\n0;0,91;\n1;0,93;\n")
    assert read_table(path)["A"].tolist() == [0.91, 0.93]
    with pytest.raises(ValueError, match=r"column 3 has no name in the header, yet data row 2 "
                                         r"has '7\.0' there"):
        read_table(_file(tmp_path, "seed,A\n0,0.91,\n1,0.93,7\n"))
    with pytest.raises(ValueError, match="data row 1 has 4 fields, but the header names 2"):
        read_table(_file(tmp_path, "seed,A\n0,0.91,1,2\n1,0.93,1,2\n"))


def _scores(rng, d=10):
    return pd.DataFrame({m: rng.normal(mu, 0.05, d).round(4)
                         for m, mu in (("A", 0.80), ("B", 0.75), ("C", 0.70))})


@pytest.mark.parametrize("layout", ["dataset_id", "index", "seed"])
def test_ids_and_the_index_column_are_no_models(tmp_path, capsys, layout):
    scores = _scores(np.random.default_rng(1))
    path = tmp_path / "scores.csv"
    if layout == "index":
        scores.to_csv(path)  # a first column without a name: the row index
        named = "'' (the row index: a first column without a name)"
    elif layout == "dataset_id":
        scores.insert(0, "dataset_id", np.arange(1, 11))
        scores.to_csv(path, index=False)
        named = "'dataset_id' (integers 1..10 numbering the rows)"
        scores = scores.drop(columns="dataset_id")
    else:
        scores.insert(1, "seed", [7, 3, 5, 11, 2, 9, 4, 8, 1, 6])
        scores.to_csv(path, index=False)
        named = "'seed' (integers, named as a key (seed))"
        scores = scores.drop(columns="seed")
    code, out, err = _cli(capsys, "ranks", path, "--format", "json")
    ref = stats.friedmanchisquare(*scores.to_numpy().T)
    res = json.loads(out)
    assert code == 0 and res["models"] == 3
    assert res["friedman_chi2"] == pytest.approx(ref.statistic, rel=1e-12)
    assert err == f"evalmc: not models (ids): {named}; --col C ranks one\n"


def test_a_file_of_one_row_per_run_is_not_pooled(tmp_path, capsys):
    rng = np.random.default_rng(2)
    rows = [(m, s, round(rng.normal(mu, 0.02), 4)) for s in range(6)
            for m, mu in (("A", 0.9), ("B", 0.5))]
    rng.shuffle(rows)
    path = _file(tmp_path, "model,seed,score\n" + "".join(f"{m},{s},{v}\n" for m, s, v in rows))
    for argv in (["describe"], ["ranks"], ["boon", "--n", "3"]):
        code, _, err = _cli(capsys, argv[0], path, *argv[1:])
        _one_line_error(code, err, "looks like one row per run: column 'model' repeats its "
                                   "values", "--model COL --score COL")
    code, out, _ = _cli(capsys, "describe", path, "--model", "model", "--score", "score",
                        "--format", "json")
    rows_out = {row["column"]: row for row in json.loads(out)}
    assert rows_out["B"]["mean"] == pytest.approx(np.mean([v for m, _, v in rows if m == "B"]))


def test_a_file_named_with_a_comma_is_one_value(tmp_path):
    from evalmc.commands import parse_grid

    path = _file(tmp_path, "acc\n0.9\n0.8\n0.7\n", "a,b.csv")
    assert parse_grid("empirical", [f"file={path}"])["file"] == [str(path)]
    assert parse_grid("empirical", ["column=x,y"])["column"] == ["x", "y"]


@pytest.mark.parametrize("values", [np.array([1, 2, 3, 5, 4, 7]) * 1e-310,
                                    np.array([1, 2, 3, 5, 4, 7]) * 1e300])
def test_describe_of_subnormal_and_huge_scores_is_the_scaled_report(values):
    from evalmc.estimators.describe import describe

    scale = 2.0 ** (1000 if values[0] < 1 else -1000)  # exact: a power of two
    ours, ref = describe(values), describe(values * scale)
    for key in ("mean", "sd", "median", "iqr", "min", "max"):
        assert ours[key] == ref[key] / scale
    for key in ("skewness", "bimodality", "ks_p", "shapiro_p"):
        assert ours[key] == pytest.approx(ref[key], rel=1e-9)
    assert ours["sd"] > 0


@pytest.mark.parametrize(("text", "cause"), [
    ('seed,A\n0,"1,234.5"\n1,"1,240.5"\n2,"1,236.5"\n', "holds '1,234.5' on data row 1: a ',' "
                                                        "grouping thousands; write 1234.5"),
    ("seed;A\n0;1.234,5\n1;1.240,5\n2;1.236,5\n", "holds '1.234,5' on data row 1: a '.' "
                                                  "grouping thousands; write 1234.5"),
    ('seed,A\n0,"0,91"\n1,"0,93"\n2,"0,92"\n', "a decimal comma in a file whose fields are "
                                               "separated by ','"),
    ("seed;A\n0;0,91\n1;0.93\n2;0,92\n", "data row 2 has '0.93': a decimal point in a file "
                                         "whose other numbers have a decimal comma"),
    ("0.91,0.80\n0.93,0.82\n", "has no header row: its first row holds numbers (0.91, 0.80)"),
    ("# seed,A,B\n0,0.91,0.80\n1,0.93,0.82\n", "the comment line '# seed,A,B' is skipped: "
                                               "remove its '#'"),
])
def test_numbers_written_otherwise_are_refused_naming_the_cause(tmp_path, capsys, text, cause):
    code, _, err = _cli(capsys, "describe", _file(tmp_path, text))
    _one_line_error(code, err, cause)


@pytest.mark.parametrize("text", [
    "sep=;\nseed;A;B\n0;0,91;0,80\n1;0,93;0,82\n2;0,90;0,85\n",
    "# runs of May\nseed,A,B\n0,0.91,0.80\n# a rerun\n1,0.93,0.82\n\n2,0.90,0.85\n",
    "# runs of May\r\nseed,A,B\r\n0,0.91,0.80\r\n  # a rerun\r1,0.93,0.82\r\n2,0.90,0.85",
    "seed,A,B\n0,\u22120.91,0.80\n1,\u22120.93,0.82\n2,\u22120.90,0.85\n",
])
def test_excel_sep_line_comments_and_unicode_minus_are_read(tmp_path, text):
    frame = read_table(_file(tmp_path, text))
    assert list(frame.columns) == ["seed", "A", "B"] and frame["seed"].tolist() == [0, 1, 2]
    a = numeric_column(frame, "A", option="--a")
    assert np.abs(a).tolist() == [0.91, 0.93, 0.90] and (a < 0).all() == ("\u2212" in text)
    assert numeric_column(frame, "B", option="--b").tolist() == [0.80, 0.82, 0.85]


def test_sep_line_comment_and_a_delimiter_ending_the_lines_together(tmp_path):
    frame = read_table(_file(tmp_path, "sep=,\n# two runs\nseed,A,B,\n1,0.91,0.80,\n"
                                       "2,0.93,0.82,\n"))
    assert frame.to_dict(orient="list") == {"seed": [1, 2], "A": [0.91, 0.93], "B": [0.8, 0.82]}
    assert (frame.attrs["delimiter"], frame.attrs["decimal"]) == (",", ".")


def test_score_columns_ids_and_key_words():
    frame = pd.DataFrame({"n": [1, 2, 3], "model": ["A", "B", "C"], "seed": [7, 3, 5],
                          "acc": [0.91, 0.89, 0.90]})
    scores, text, ids = score_columns(frame)
    assert (scores, text) == (["acc"], ["model"])
    assert ids_note(ids) == ("'n' (integers 1..3 numbering the rows), 'seed' (integers, named "
                             "as a key (seed))")
    assert [key_word(n) for n in ("seed", "Random Seed", "cv_fold", "data_set", "datasetId",
                                  "acc")] == ["seed", "seed", "fold", "dataset", "id", None]
    assert is_score_column(pd.Series(["0.9", "0.8", "n/a"]))
    assert not is_score_column(pd.Series(["A", "B"]))
    assert only_score_column(pd.DataFrame({"seed": [0, 1, 2], "acc": [0.91, 0.89, 0.93]}),
                             option="--column") == "acc"


def test_one_row_per_run_is_refused_with_its_fix():
    long = pd.DataFrame({"model": ["A", "B", "A", "B"], "acc": [0.9, 0.8, 0.91, 0.79]})
    with pytest.raises(ValueError, match=re.escape(
            "`FILE`: 'the file' looks like one row per run: column 'model' repeats its values "
            "(A 2 times, B 2 times); give --model model --score acc.")):
        check_wide(long, ["model"], option="FILE", fix="give --model model --score acc")


def test_a_first_column_named_hash_is_not_a_comment(tmp_path):
    frame = read_table(_file(tmp_path, "#,A\n1,0.9\n2,0.8\n3,0.7\n"))
    assert list(frame.columns) == ["#", "A"]


def test_ranks_of_models_tied_on_every_data_set_are_refused(tmp_path, capsys):
    path = _file(tmp_path, "A,B,C\n0.9,0.9,0.9\n0.8,0.8,0.8\n0.7,0.7,0.7\n")
    code, _, err = _cli(capsys, "ranks", path)
    _one_line_error(code, err, "the 3 models tie on every one of the 3 data sets",
                    "no rank test is possible")


def test_ranks_and_describe_of_losses(tmp_path, capsys):
    import evalmc

    scores = _scores(np.random.default_rng(3), d=12)
    path = tmp_path / "losses.csv"
    scores.to_csv(path, index=False)
    _, out, _ = _cli(capsys, "ranks", path, "--best", "min", "--format", "json")
    res = json.loads(out)
    ref = evalmc.ranks(-scores)
    assert res["friedman_chi2"] == ref.friedman_chi2
    assert [p["rank_i"] for p in res["pairs"]] == ref.pairs["rank_i"].tolist()
    assert res["pairs"][0]["rank_i"] > res["pairs"][0]["rank_j"]  # A, the highest, ranks last
    _, out, _ = _cli(capsys, "describe", path, "--best", "max", "--format", "json")
    row = json.loads(out)[0]
    a = scores["A"].to_numpy()
    assert row["mean_plus_sd_above_max"] == bool(a.mean() + a.std(ddof=1) > a.max())
    assert "mean_minus_sd_below_min" not in row


@pytest.mark.parametrize(("val", "said"), [
    ([0.5] * 5, "parametric and parametric_ci are undefined: the validation scores are all "
                "equal"),
    ([0.5, 0.6, 0.5, 0.6, 0.5], "parametric_ci is undefined: in 10 of 200 resamples the "
                                "validation scores are all equal"),
])
def test_boon_says_why_the_gaussian_estimate_is_undefined(tmp_path, capsys, val, said):
    path = _file(tmp_path, "seed,val,test\n" + "".join(
        f"{s},{v},{t}\n" for s, (v, t) in enumerate(zip(val, RUNS_A, strict=True))))
    code, out, err = _cli(capsys, "boon", path, "--test", "test", "--val", "val", "--n", "3",
                          "--resamples", "200")
    assert code == 0 and "nan to nan" in out
    assert err == f"evalmc: warning: {said}" + err.split(said)[1] and err.count("\n") == 1
