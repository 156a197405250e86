import json

import numpy as np
import pytest
from scipy import stats

from evalmc.analysis.comparison import compare, compare_unpaired
from evalmc.cli import main
from evalmc.criteria.outperform import outperform_test

KEYS = {"k", "p_a_beats_b", "ci_low", "ci_high", "conclusion", "noether_n", "criteria"}
#: What the command says on stderr when it pairs a wide file's runs by row.
BY_ROW = ("evalmc: runs paired by row (row i's scores together), as no --pair-by was given: "
          "right only when they share a seed or split; give --unpaired for independent runs, or "
          "--pair-by COL to pair by a key.\n")


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
    assert code == 0 and err == BY_ROW
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
    assert json.loads(out) == {**res.to_dict(), "n_dropped": 0, "pairing": "seed"}


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
    assert err == ("evalmc: dropped 4 pair(s) missing a score: row 2, row 4, row 6, row 7\n"
                   + BY_ROW)
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


LOSSES = [(0.9878, 1.0173), (1.0220, 1.0411), (0.9718, 1.0165), (0.9448, 0.9348),
          (1.0056, 1.0453), (1.0043, 1.0223), (0.9439, 0.9732), (0.9932, 1.0291),
          (0.9726, 1.0182), (0.9796, 1.0147)]  # A's loss is lower on 9 of the 10 seeds


def test_losses_are_read_lower_is_better_with_best_min(capsys, tmp_path):
    path = tmp_path / "losses.csv"
    path.write_text("seed,new_loss,base_loss\n" + "".join(f"{i},{x},{y}\n" for i, (x, y)
                                                          in enumerate(LOSSES)))
    argv = ["compare", path, "--a", "new_loss", "--b", "base_loss", "--pair-by", "seed"]
    code, out, _ = _run(capsys, *argv)  # the default says which direction it assumed
    assert code == 0 and "; higher scores are better\n" in out
    assert "conclusion (two-sided, gamma = 0.75): B better\n" in out
    code, out, _ = _run(capsys, *argv, "--best", "min")
    assert code == 0
    assert out.startswith("pairs k = 10 (9 won by A, 0 ties counted one half, 0 dropped), "
                          "paired by seed; lower scores are better (--best min)\n"
                          "P(A<B) = 0.9000, 95% percentile-bootstrap interval [0.7000, 1.0000]")
    assert "conclusion (two-sided, gamma = 0.75): A better\n" in out
    assert "  t-oracle         A better" in out
    res = json.loads(_run(capsys, *argv, "--best", "min", "--format", "json")[1])
    a, b = np.array(LOSSES).T
    mirrored = compare(-a, -b)
    assert res["best"] == "min" and res["wins"] == 9 and res["criteria"] == mirrored.criteria
    assert (res["ci_low"], res["ci_high"]) == (mirrored.ci_low, mirrored.ci_high)
    assert res["mean_difference"] == pytest.approx(np.mean(a - b), rel=1e-12)  # A's - B's loss


def test_best_must_be_max_or_min(capsys, runs):
    code, _, err = _run(capsys, "compare", runs[0], "--a", "A", "--b", "B", "--best", "low")
    assert code == 2 and "argument --best: invalid choice: 'low'" in err
    with pytest.raises(ValueError, match="`best` must be one of 'max', 'min'; got 'low'"):
        compare([1.0, 2.0], [0.0, 1.0], best="low")


def _long(tmp_path, header="model,seed,acc"):
    """A long file whose runs are listed in a different seed order for each model: pairing
    by order pairs the wrong runs."""
    rng = np.random.default_rng(5)
    base = rng.normal(0.80, 0.05, 12)
    a, b = base + 0.01 + rng.normal(0, 0.002, 12), base
    rows = ([f"A,{s},{float(a[s])!r}" for s in range(12)]
            + [f"B,{s},{float(b[s])!r}" for s in range(12)[::-1]])
    path = tmp_path / "long.csv"
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path, a, b


def test_long_file_with_a_key_column_is_not_paired_by_its_order(capsys, tmp_path):
    path, a, b = _long(tmp_path)
    argv = ["compare", path, "--model", "model", "--score", "acc", "--a", "A", "--b", "B"]
    code, out, err = _run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == ("evalmc: error: `--pair-by` is needed: runs of a long file are otherwise "
                   "paired by their order, and its column 'seed' may key them; give "
                   "`--pair-by seed` (or `--unpaired` for independent runs).\n")
    res = json.loads(_run(capsys, *argv, "--pair-by", "seed", "--format", "json")[1])
    assert res["pairing"] == "seed" and res["wins"] == 12 and res["conclusion"] == "A better"
    assert res["tests"][0]["p_value"] == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)


def test_long_file_without_a_key_column_is_paired_by_run_order(capsys, tmp_path):
    path, a, b = _long(tmp_path, header="model,batch_size,acc")
    code, out, _ = _run(capsys, "compare", path, "--model", "model", "--score", "acc", "--a",
                        "A", "--b", "B", "--format", "json")
    res = json.loads(out)
    assert code == 0 and res["pairing"] == "run order" and res["k"] == 12
    assert res["mean_difference"] == pytest.approx(np.mean(a - b[::-1]), rel=1e-9)


@pytest.mark.parametrize("k", [9, 16, 40])
def test_paired_numbers_are_scipys(k):
    rng = np.random.default_rng(k)
    b = rng.normal(0.0, 1.0, k)
    a = b + 0.4 + rng.standard_t(3, k)
    a[2] = b[2] + 1e-3  # tiny but not zero: every test sees k pairs
    res = compare(a, b, alpha=0.1, seed=3)
    t = stats.ttest_rel(a, b)
    paired_t, wilcoxon, permutation = res.tests
    assert [x["test"] for x in res.tests] == ["paired-t", "wilcoxon", "permutation-paired"]
    assert paired_t["statistic"] == pytest.approx(t.statistic, rel=1e-10)
    assert paired_t["df"] == k - 1 and paired_t["p_value"] == pytest.approx(t.pvalue, rel=1e-9)
    ci = t.confidence_interval(0.9)
    assert (res.diff_low, res.diff_high) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert res.mean_difference == pytest.approx(np.mean(a - b), rel=1e-12)
    assert wilcoxon["p_value"] == pytest.approx(stats.wilcoxon(a, b).pvalue, rel=1e-9)
    assert wilcoxon["statistic"] == np.sum(stats.rankdata(np.abs(a - b))[a > b])
    if k <= 16:  # every one of the 2^k sign flips, as scipy's exact test
        exact = stats.permutation_test((a - b,), np.mean, permutation_type="samples",
                                       n_resamples=np.inf).pvalue
        assert permutation["p_value"] == pytest.approx(exact, rel=1e-12)
    else:  # 9999 random flips: within Monte Carlo error of scipy's 10^5
        ref = stats.permutation_test((a - b,), np.mean, permutation_type="samples",
                                     n_resamples=10**5, rng=np.random.default_rng(0)).pvalue
        assert abs(permutation["p_value"] - ref) <= 4 * np.sqrt(ref * (1 - ref) / 9999) + 0.005
    assert "normal differences" in paired_t["assumes"]


@pytest.mark.parametrize(("n_a", "n_b"), [(6, 6), (12, 30)])
def test_unpaired_numbers_are_scipys(n_a, n_b):
    rng = np.random.default_rng(n_a)
    a, b = rng.normal(0.6, 1.0, n_a), rng.normal(0.0, 2.0, n_b)
    a[0] = b[0]  # a tie between A and B: counted one half in P(A>B)
    res = compare_unpaired(a, b, alpha=0.1, seed=1)
    welch, mwu, permutation = res.tests
    t = stats.ttest_ind(a, b, equal_var=False)
    assert welch["statistic"] == pytest.approx(t.statistic, rel=1e-10)
    assert (welch["df"], welch["p_value"]) == pytest.approx((t.df, t.pvalue), rel=1e-9)
    ci = t.confidence_interval(0.9)
    assert (res.diff_low, res.diff_high) == pytest.approx((ci.low, ci.high), rel=1e-12)
    u = stats.mannwhitneyu(a, b)
    assert (mwu["statistic"], mwu["p_value"]) == pytest.approx((u.statistic, u.pvalue),
                                                               rel=1e-9)
    couples = (a[:, None] > b).mean() + (a[:, None] == b).mean() / 2
    assert res.p_a_beats_b == pytest.approx(couples, rel=1e-12)
    assert compare_unpaired(-a, -b, best="min").p_a_beats_b == pytest.approx(couples)

    def diff(x, y):
        return np.mean(x) - np.mean(y)

    if n_a == 6:  # C(12, 6) = 924 splits: every one, as scipy's exact test
        exact = stats.permutation_test((a, b), diff, n_resamples=np.inf).pvalue
        assert permutation["p_value"] == pytest.approx(exact, rel=1e-12)
    else:  # 9999 random relabellings: within Monte Carlo error of scipy's 10^5
        ref = stats.permutation_test((a, b), diff, n_resamples=10**5,
                                     rng=np.random.default_rng(0)).pvalue
        assert abs(permutation["p_value"] - ref) <= 4 * np.sqrt(ref * (1 - ref) / 9999) + 0.005


def test_unpaired_command(capsys, tmp_path):
    path = tmp_path / "u.csv"
    path.write_text("A,B\n0.91,0.90\n0.93,0.91\n0.90,\n0.94,0.89\n0.92,0.90\n,0.88\n")
    code, out, err = _run(capsys, "compare", path, "--a", "A", "--b", "B", "--unpaired",
                          "--format", "json")
    assert code == 0 and err == "evalmc: dropped 2 missing score(s)\n"
    res = json.loads(out)
    a, b = [0.91, 0.93, 0.90, 0.94, 0.92], [0.90, 0.91, 0.89, 0.90, 0.88]
    assert {k: res[k] for k in ("n_a", "n_b", "n_dropped", "pairing")} == {
        "n_a": 5, "n_b": 5, "n_dropped": 2, "pairing": None}
    assert res["tests"][0]["p_value"] == pytest.approx(
        stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-9)
    code, out, _ = _run(capsys, "compare", path, "--a", "A", "--b", "B", "--unpaired")
    assert out.startswith("runs n_a = 5, n_b = 5, independent (2 missing dropped); higher "
                          "scores are better\n")
    code, _, err = _run(capsys, "compare", path, "--a", "A", "--b", "B", "--unpaired",
                        "--pair-by", "A")
    assert code == 2 and "`--unpaired` and `--pair-by` exclude each other" in err


def test_permutation_tests_are_not_run_above_their_bound(capsys, tmp_path):
    """9999 random sign flips of 10^6 pairs took a minute; the t-test is their limit."""
    rng = np.random.default_rng(8)
    b = rng.integers(0, 2, 10_001).astype(float)
    a = np.where(rng.random(10_001) < 0.1, 1.0, b)
    res = compare(a, b)
    record = res.tests[2]
    assert record["test"] == "permutation-paired" and np.isnan(record["p_value"])
    assert record["assumes"] == ("exchangeable signs of the differences; not run above 10000 "
                                 "scores (the t-test is its large-sample limit)")
    assert res.tests[1]["p_value"] == pytest.approx(stats.wilcoxon(a, b).pvalue, rel=1e-9)
    path = tmp_path / "big.csv"
    path.write_text("A,B\n" + "".join(f"{x:g},{y:g}\n" for x, y in zip(a, b, strict=True)))
    out = _run(capsys, "compare", path, "--a", "A", "--b", "B")[1]
    assert "  permutation-paired  mean(A - B) = 0.0474953  p -  " in out
    res = json.loads(_run(capsys, "compare", path, "--a", "A", "--b", "B", "--format",
                          "json")[1])
    assert res["tests"][2]["p_value"] is None


def _holm(p):
    """Holm's adjusted p-values, step by step (reference)."""
    order, m, out, running = np.argsort(p), len(p), np.empty(len(p)), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def test_several_models_every_pair_with_holm(capsys, tmp_path):
    rng = np.random.default_rng(11)
    base = rng.normal(0.8, 0.02, 12)
    runs = {"A": base + 0.02 + rng.normal(0, 0.01, 12), "B": base,
            "C": base + rng.normal(0, 0.01, 12), "D": base - 0.01 + rng.normal(0, 0.01, 12)}
    runs["C"][3] = np.nan  # C misses seed 3: its pairs keep the 11 others
    path = tmp_path / "four.csv"
    path.write_text("seed," + ",".join(runs) + "\n" + "".join(
        f"{s}," + ",".join("" if np.isnan(x[s]) else repr(float(x[s])) for x in runs.values())
        + "\n" for s in range(12)))
    code, out, _ = _run(capsys, "compare", path, "--models", "A", "B", "C", "D", "--pair-by",
                        "seed", "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert [(r["model_a"], r["model_b"]) for r in rows] == [
        ("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]
    for r in rows:
        a, b = runs[r["model_a"]], runs[r["model_b"]]
        keep = ~np.isnan(a) & ~np.isnan(b)
        assert r["n_a"] == keep.sum() == (11 if "C" in (r["model_a"], r["model_b"]) else 12)
        t = stats.ttest_rel(a[keep], b[keep])
        assert r["paired-t_p"] == pytest.approx(t.pvalue, rel=1e-9)
        assert r["wilcoxon_p"] == pytest.approx(stats.wilcoxon(a[keep], b[keep]).pvalue,
                                                rel=1e-9)
        assert r["conclusion_unadjusted"] == compare(a[keep], b[keep]).conclusion
    for test in ("paired-t", "wilcoxon", "permutation-paired"):
        raw = np.array([r[f"{test}_p"] for r in rows])
        assert [r[f"{test}_p_holm"] for r in rows] == pytest.approx(_holm(raw), rel=1e-12)
    code, out, _ = _run(capsys, "compare", path, "--models", "A", "B", "C", "D", "--unpaired",
                        "--format", "json")
    rows = json.loads(out)
    assert rows[1]["n_b"] == 11 and rows[1]["welch-t_p"] == pytest.approx(
        stats.ttest_ind(runs["A"], runs["C"][~np.isnan(runs["C"])], equal_var=False).pvalue)
    code, out, _ = _run(capsys, "compare", path, "--models", "A", "B", "C", "--pair-by", "seed")
    assert out.startswith("3 models, 3 pairs, paired by seed; higher scores are better; mean "
                          "difference model_a - model_b with its 95% t interval; p-values "
                          "two-sided, _holm adjusted by Holm over the 3 pairs; "
                          "conclusion_unadjusted: each pair's P(A>B) test (gamma 0.75, alpha "
                          "0.05) on its own, not adjusted\n")


@pytest.mark.parametrize(("extra", "match"), [
    (["--models", "A"], r"`--models` must name at least 2 models, without `--a` and `--b`"),
    (["--models", "A", "B", "--a", "A"], "`--models` must name at least 2 models"),
    (["--a", "A"], "`--a` and `--b` must name the two pipelines to compare"),
    (["--models", "A", "Z"], "`--models` 'Z' is not a column of"),
    (["--models", "A", "B", "--plot", "x.png"], "`--plot` draws the bootstrap law"),
])
def test_models_errors(capsys, runs, extra, match):
    code, _, err = _run(capsys, "compare", runs[0], *extra)
    assert code == 2 and __import__("re").search(match, err), err


def test_models_of_a_wide_file_pair_by_key(capsys, tmp_path):
    path = tmp_path / "keys.csv"
    path.write_text("s,A,B,C\n1,0.9,,\n1,,0.8,0.7\n2,0.95,0.85,0.8\n3,0.9,0.7,0.75\n")
    argv = ["compare", path, "--models", "A", "B", "C", "--pair-by", "s", "--format", "json"]
    rows = json.loads(_run(capsys, *argv)[1])
    assert [r["n_a"] for r in rows] == [3, 3, 3] and rows[0]["mean_difference"] == pytest.approx(
        np.mean([0.9 - 0.8, 0.95 - 0.85, 0.9 - 0.7]))
    path.write_text("s,A,B,C\n1,0.9,,\n1,,0.8,0.7\n2,0.95,0.85,0.8\n2,0.9,,\n3,0.9,0.7,0.7\n")
    code, _, err = _run(capsys, *argv)
    assert code == 2 and err == ("evalmc: error: `--pair-by` key s=2 has more than one score "
                                 "for 'A'; each key may hold one score per model.\n")


def test_a_negative_delta_is_refused(capsys, runs):
    """Below 0 the threshold delta x sigma turns negative and both directions hold: 'A better'
    whenever A - B > -|delta| sigma."""
    path, a, b = runs
    code, out, err = _run(capsys, "compare", path, "--a", "A", "--b", "B", "--pair-by", "seed",
                          "--delta", "-1")
    assert (code, out) == (2, "") and err.startswith("evalmc: error: `--delta` must be a "
                                                     "number >= 0") and err.count("\n") == 1
    with pytest.raises(ValueError, match="`delta` must be >= 0"):
        compare(a, b, delta=-1.0)
    zero = compare(a, b, delta=0.0)  # 0 reads any difference: one side at most
    assert zero.criteria["single-point"] == ("A better" if a[0] > b[0] else "B better")


def test_the_threshold_is_named_apart_from_delta_and_sigma(capsys, runs):
    path, a, b = runs
    res = compare(a, b, delta=1.5)
    sigma = np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2)
    assert (res.delta, res.sigma) == (1.5, pytest.approx(sigma, rel=1e-12))
    assert res.threshold == pytest.approx(1.5 * sigma, rel=1e-12)
    out = _run(capsys, "compare", path, "--a", "A", "--b", "B", "--pair-by", "seed", "--delta",
               "1.5")[1]
    assert (f"other criteria, two-sided (threshold delta x sigma = 1.5 x {sigma:.4g} = "
            f"{1.5 * sigma:.4g}):") in out


def test_pairing_by_row_or_run_order_is_said(capsys, tmp_path):
    """Independent seeds in a wide file would be paired by row without a word."""
    wide = tmp_path / "atari.csv"
    wide.write_text("DQN,Rainbow\n10,14\n12,11\n9,15\n13,16\n")
    code, _, err = _run(capsys, "compare", wide, "--a", "DQN", "--b", "Rainbow")
    assert code == 0 and err == BY_ROW
    code, _, err = _run(capsys, "compare", wide, "--models", "DQN", "Rainbow")
    assert code == 0 and err == BY_ROW
    for extra in (["--unpaired"], ["--models", "DQN", "Rainbow", "--unpaired"]):
        argv = ["--a", "DQN", "--b", "Rainbow", *extra] if extra[0] != "--models" else extra
        code, _, err = _run(capsys, "compare", wide, *argv)
        assert code == 0 and err == ""
    long = tmp_path / "long.csv"
    long.write_text("model,acc\nA,1\nA,2\nA,3\nB,1.5\nB,2.5\nB,2\n")
    code, _, err = _run(capsys, "compare", long, "--model", "model", "--score", "acc", "--a",
                        "A", "--b", "B")
    assert code == 0 and err == BY_ROW.replace("row (row i's scores together)",
                                               "run order (each model's i-th run together)")


def test_models_table_labels_its_conclusion_unadjusted(capsys, tmp_path):
    """Beside Holm-adjusted p-values, the P(A>B) verdict is each pair's own."""
    rng = np.random.default_rng(2)
    base = rng.normal(0.8, 0.02, 30)
    runs = {"A": base + 0.004 + rng.normal(0, 0.01, 30), "B": base,
            "C": base + rng.normal(0, 0.01, 30)}
    path = tmp_path / "three.csv"
    path.write_text("seed,A,B,C\n" + "".join(
        f"{s}," + ",".join(repr(float(x[s])) for x in runs.values()) + "\n" for s in range(30)))
    argv = ["compare", path, "--models", "A", "B", "C", "--pair-by", "seed"]
    rows = json.loads(_run(capsys, *argv, "--format", "json")[1])
    assert all("conclusion" not in r for r in rows)
    assert [r["conclusion_unadjusted"] for r in rows] == [
        compare(runs[r["model_a"]], runs[r["model_b"]]).conclusion for r in rows]
    out = _run(capsys, *argv)[1]
    assert "conclusion_unadjusted: each pair's P(A>B) test" in out.splitlines()[0]
    assert "conclusion_unadjusted" in out.splitlines()[1].split()

