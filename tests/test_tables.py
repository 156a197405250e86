"""The one CSV reader: dialect, columns, missing values, long format."""

import numpy as np
import pytest

from evalmc.cli import main
from evalmc.sims.tables import drop_missing, is_score_column, numeric_column, read_table, wide


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
