import json

import numpy as np
import pytest

from evalmc.analysis.comparison import compare
from evalmc.cli import main
from evalmc.criteria.outperform import outperform_test

KEYS = {"k", "p_a_beats_b", "ci_low", "ci_high", "conclusion", "noether_n", "criteria"}


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(3)
    a, b = rng.normal(1.5, 1.0, 40), rng.normal(0.0, 1.0, 40)
    path = tmp_path / "runs.csv"
    path.write_text("seed,A,B\n" + "".join(f"{i},{float(x)!r},{float(y)!r}\n" for i, (x, y)
                                           in enumerate(zip(a, b, strict=True))))
    return path, a, b


def _run(capsys, *argv):
    code = main([str(x) for x in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_answer_matches_the_library(capsys, runs):
    path, a, b = runs
    code, out, err = _run(capsys, "compare", path, "--a", "A", "--b", "B", "--format", "json",
                          "--seed", "4")
    assert code == 0 and err == ""
    res = json.loads(out)
    assert KEYS <= set(res)
    assert res["k"] == 40 and res["noether_n"] == 29 and res["n_dropped"] == 0
    wins = int((a > b).sum())
    assert res["p_a_beats_b"] == pytest.approx(wins / 40)
    ref = outperform_test([wins], [0], 40, rng=np.random.default_rng(4))
    assert (res["ci_low"], res["ci_high"]) == (ref.ci_low[0], ref.ci_high[0])
    assert res["conclusion"] == "A better"
    assert set(res["criteria"]) == {"prob-outperform", "single-point", "average-delta",
                                    "t-oracle"}
    assert res["criteria"]["t-oracle"] == "A better"
    sigma = np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2)
    diff = a.mean() - b.mean()
    expected = ("A better" if diff > 1.9952 * sigma else "B better" if -diff > 1.9952 * sigma
                else "no difference shown")
    assert res["criteria"]["average-delta"] == expected


def test_json_is_the_librarys_result(capsys, runs):
    path, a, b = runs
    code, out, _ = _run(capsys, "compare", path, "--a", "A", "--b", "B", "--pair-by", "seed",
                        "--format", "json", "--gamma", "0.6", "--sigma", "0.5", "--seed", "2")
    assert code == 0
    res = compare(a, b, gamma=0.6, sigma=0.5, seed=2)
    assert json.loads(out) == {**res.to_dict(), "n_dropped": 0}


def test_table_and_plot(capsys, runs, tmp_path):
    path, _, _ = runs
    png = tmp_path / "boot.png"
    code, out, _ = _run(capsys, "compare", path, "--a", "A", "--b", "B", "--gamma", "0.6",
                        "--plot", png)
    assert code == 0
    assert "conclusion (two-sided, gamma = 0.6): A better" in out
    assert "Noether sample size for gamma = 0.6: 181 pairs" in out
    assert png.stat().st_size > 1000


@pytest.mark.parametrize(("wins", "gamma", "conclusion"), [
    (66, 0.9, "not meaningful (A ahead)"),  # significant, the interval stays below gamma
    (34, 0.9, "not meaningful (B ahead)"),
    (80, 0.75, "A better"),
    (20, 0.75, "B better"),  # the one-sided test said only "not significant" here
    (50, 0.75, "not significant"),
])
def test_conclusions_in_both_directions(capsys, tmp_path, wins, gamma, conclusion):
    path = tmp_path / "c.csv"
    path.write_text("a,b\n" + "1,0\n" * wins + "0,1\n" * (100 - wins))
    res = json.loads(_run(capsys, "compare", path, "--a", "a", "--b", "b", "--gamma", gamma,
                          "--format", "json")[1])
    assert res["conclusion"] == conclusion and res["p_a_beats_b"] == wins / 100
    assert res["caveats"] == [] and res["null_a_better"] is None  # 100 pairs > Noether's


def test_few_pairs_qualify_the_verdict_with_its_exact_rate_under_equal_models(capsys, tmp_path):
    path = tmp_path / "two.csv"
    path.write_text("a,b\n0.92,0.90\n0.93,0.91\n")
    code, out, _ = _run(capsys, "compare", path, "--a", "a", "--b", "b")
    assert code == 0
    assert "conclusion (two-sided, gamma = 0.75): A better\n" in out
    assert ("caveat: k = 2 pairs is below Noether's 29 for gamma = 0.75 (alpha = 0.05, beta = "
            "0.05): with equal models this test says 'A better' with probability 0.25 and 'B "
            "better' with probability 0.25 at k = 2.") in out
    res = json.loads(_run(capsys, "compare", path, "--a", "a", "--b", "b", "--format",
                          "json")[1])
    assert res["null_a_better"] == pytest.approx(0.25, abs=1e-12)
    three = compare([3.0, 2.0, 4.0], [1.0, 1.0, 1.0])
    assert three.null_a_better == pytest.approx(0.125, abs=1e-12)


def test_missing_pairs_are_dropped_and_reported(capsys, tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("a,b\n1,0\n2,\n3,1\n,4\n5,2\nnan,3\n6,\n")
    code, out, err = _run(capsys, "compare", path, "--a", "a", "--b", "b", "--format", "json")
    assert code == 0
    assert err == "evalmc: dropped 4 pair(s) missing a score: row 2, row 4, row 6, row 7\n"
    res = json.loads(out)
    assert res["k"] == 3 and res["n_dropped"] == 4 and res["p_a_beats_b"] == 1.0


def test_pair_by_matches_rows_by_key_and_counts_ties(capsys, tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("seed,a,b\n3,0.5,\n1,,0.2\n2,0.9,\n1,0.7,\n3,,0.5\n2,,0.1\n4,1.0,\n")
    code, out, err = _run(capsys, "compare", path, "--a", "a", "--b", "b", "--pair-by", "seed",
                          "--format", "json")
    assert code == 0 and err == "evalmc: dropped 1 pair(s) missing a score: seed=4\n"
    res = json.loads(out)
    assert (res["k"], res["wins"], res["ties"]) == (3, 2, 1)
    assert res["p_a_beats_b"] == pytest.approx(2.5 / 3)


@pytest.mark.parametrize(("content", "extra", "match"), [
    ("a,b\n1,2\n3,4\n", ["--b", "c"], "`--b` 'c' is not a column of .*; its columns: a, b"),
    ("a,b\n1,2\nx,4\n3,1\n", [], "`--a` column 'a' must hold finite numbers .*data row 2 has 'x'"),
    ("a,b\n1,2\n,4\n", [], "`--a` and `--b` need at least 2 complete pairs; got 1 "
                           r"\(1 pairs miss a score\)"),
    ("s,a,b\n1,1,\n1,2,\n1,,3\n", ["--pair-by", "s"],
     "`--pair-by` key s=1 has more than one score for A"),
    ("s,a,b\n1,1,2\n,2,3\n", ["--pair-by", "s"], "`--pair-by` column 's' must have a value on "
                                                 "every row; data row 2 has none"),
    ("a,b\n1,2\n3,4\n2,1\n", ["--gamma", "1.5"], r"`gamma` must be in \(0.5, 1\); got 1.5"),
    ("a,b\n1,2\n3,4\n2,1\n", ["--sigma", "0"], r"`sigma` must be in \(0, inf\]; got 0.0"),
    ("a,b\n1,2\n3,4\n2,1\n", ["--resamples", "ten"], "`resamples` must be an integer; got 'ten'"),
    ("a,b\n1,2\n3,4\n2,1\n", ["--resamples", "0"],
     r"`resamples` must be an integer in \[1, 10000000\]; got 0"),
    ("a,b\n1,2\n3,4\n2,1\n", ["--resamples", "100000000"],  # took 2.9 GB below Noether's k
     r"`resamples` must be an integer in \[1, 10000000\]; got 100000000\."),
])
def test_errors_are_one_line_exit_2(capsys, tmp_path, content, extra, match):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    argv = ["compare", path, "--a", "a", "--b", "b", *extra]
    code, _, err = _run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1
    assert __import__("re").search(match, err), err


def test_missing_file(capsys, tmp_path):
    code, _, err = _run(capsys, "compare", tmp_path / "none.csv", "--a", "a", "--b", "b")
    assert code == 2 and "`FILE` must be an existing CSV file" in err


def test_interval_is_labelled_with_its_real_level(capsys, runs):
    path, _, _ = runs
    code, out, _ = _run(capsys, "compare", path, "--a", "A", "--b", "B", "--alpha", "0.025")
    assert code == 0 and "97.5% percentile-bootstrap interval" in out  # not "98%"


def test_ctrl_c_exits_130_with_a_message_and_writes_nothing(capsys, runs, monkeypatch,
                                                            tmp_path):
    import evalmc.analysis.comparison as comparison

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(comparison, "compare", interrupted)
    path, _, _ = runs
    target = tmp_path / "out.json"
    code, out, err = _run(capsys, "compare", path, "--a", "A", "--b", "B", "--out", target)
    assert (code, out, err) == (130, "", "evalmc: interrupted; nothing was written.\n")
    assert not target.exists()
