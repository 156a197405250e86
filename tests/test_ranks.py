"""Several models over several data sets: the scenario, Friedman, Nemenyi, Wilcoxon-Holm,
the critical-difference diagram and the `ranks` command."""

import subprocess
import sys

import naive
import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from evalmc import get_criterion, get_scenario, run_study
from evalmc.criteria.ranks import holm, mean_ranks
from evalmc.sims.base import Batch
from evalmc.sims.multidataset import TableBatch
from evalmc.study.rates import make_design


def _batch(rng, reps=25, d=12, k=4, step=None):
    table = rng.normal(size=(reps, d, k)) + np.array([0.6, 0.3, 0.0, 0.0][:k])
    if step:
        table = np.round(table / step) * step  # ties within data sets
    return TableBatch(table=table)


@pytest.mark.parametrize("step", [None, 0.5])
def test_friedman_is_scipys(step):
    batch = _batch(np.random.default_rng(1), step=step)
    ours = get_criterion("friedman")(batch, None)
    for i, t in enumerate(batch.table):
        ref = stats.friedmanchisquare(*t.T)
        assert ours.statistic[i] == pytest.approx(ref.statistic, rel=1e-10)
        assert ours.pvalue[i] == pytest.approx(ref.pvalue, rel=1e-10)


def test_nemenyi_pairs_and_family_by_hand():
    """Mean ranks by scipy.stats.rankdata, the studentized range (k, inf) by scipy."""
    batch = _batch(np.random.default_rng(2))
    k, d = 4, 12
    se = np.sqrt(k * (k + 1) / (6 * d))
    family = get_criterion("nemenyi")(batch, None).pvalue
    pair = get_criterion("nemenyi(i=0,j=2)")(batch, None).pvalue
    for i, t in enumerate(batch.table):
        r = np.mean([stats.rankdata(-row) for row in t], axis=0)
        ps = {(a, b): stats.studentized_range.sf(np.sqrt(2) * abs(r[a] - r[b]) / se, k, np.inf)
              for a in range(k) for b in range(a + 1, k)}
        assert family[i] == pytest.approx(min(ps.values()), rel=1e-9)
        assert pair[i] == pytest.approx(ps[(0, 2)], rel=1e-9)


def test_wilcoxon_holm_is_scipy_and_statsmodels():
    # ties: scipy enumerates the 2^8 sign flips of each pair (the 2^13 limit of our Wilcoxon
    # is test_signed_rank.py's)
    batch = _batch(np.random.default_rng(3), reps=6, d=8, step=0.25)
    family = get_criterion("wilcoxon-holm")(batch, None).pvalue
    pair = get_criterion("wilcoxon-holm(i=1,j=3)")(batch, None).pvalue
    pairs = [(a, b) for a in range(4) for b in range(a + 1, 4)]
    for i, t in enumerate(batch.table):
        raw = [stats.wilcoxon(t[:, a], t[:, b]).pvalue for a, b in pairs]
        adjusted = multipletests(raw, method="holm")[1]
        assert family[i] == pytest.approx(adjusted.min(), rel=1e-9)
        assert pair[i] == pytest.approx(adjusted[pairs.index((1, 3))], rel=1e-9)


def test_wilcoxon_any_is_scipy_unadjusted():
    batch = _batch(np.random.default_rng(3), reps=6, d=8, step=0.25)
    family = get_criterion("wilcoxon-any")(batch, None).pvalue
    pairs = [(a, b) for a in range(4) for b in range(a + 1, 4)]
    for i, t in enumerate(batch.table):
        raw = [stats.wilcoxon(t[:, a], t[:, b]).pvalue for a, b in pairs]
        assert family[i] == pytest.approx(min(raw), rel=1e-9)


def test_holm_is_statsmodels_on_ties():
    p = np.array([[0.01, 0.04, 0.03, 0.04, 0.5], [0.2, 0.2, 0.001, 0.9, 0.0]])
    for row, ours in zip(p, holm(p), strict=True):
        np.testing.assert_allclose(ours, multipletests(row, method="holm")[1], rtol=1e-12)


@pytest.mark.parametrize(("k", "d"), [(3, 10), (5, 20)])
def test_family_wise_error_is_the_permutation_reference(k, d):
    """Global null: each data set's ranking is a uniform permutation whatever the data set,
    interaction and noise; Friedman's and Nemenyi's rejection rates match a plain simulation
    of random rankings within 4 combined MCSEs."""
    reps = 20_000
    res = run_study(make_design(k=k, n_datasets=d, sd_interaction=0.7, rho=0.3),
                    "multi-dataset", ["friedman", "nemenyi"], n_reps=reps, seed=11)
    ref = naive.rank_null_rejections(k, d, reps, np.random.default_rng(12), 0.05)
    for rate, expected in zip(res.summary["rate"], ref, strict=True):
        se = np.sqrt(rate * (1 - rate) / reps + expected * (1 - expected) / reps)
        assert abs(rate - expected) <= 4 * se


def test_scenario_means_and_truth():
    scen = get_scenario("multi-dataset")(k=4, n_datasets=30, spread=0.9, runs=4)
    table = scen.draw(np.random.default_rng(4), 2000).table
    np.testing.assert_allclose(scen.effects, [0.9, 0.6, 0.3, 0.0])
    model_means = (table - table.mean(axis=2, keepdims=True)).mean(axis=(0, 1))
    np.testing.assert_allclose(model_means, scen.effects - scen.effects.mean(), atol=0.02)
    assert scen.truth == "alternative" and scen.effect == pytest.approx(0.3)
    ranks = mean_ranks(table).mean(axis=0)
    assert np.all(np.diff(ranks) > 0)  # the best model ranks first


@pytest.mark.parametrize("bad", [{"k": 1}, {"n_datasets": 1}, {"rho": 1.0}, {"sd_run": 0.0},
                                 {"runs": 0}, {"sd_interaction": -1.0}])
def test_bad_parameters_are_named(bad):
    with pytest.raises(ValueError, match=f"`{next(iter(bad))}`"):
        get_scenario("multi-dataset")(**bad)


def test_rank_criteria_need_a_table_and_a_valid_pair():
    batch = Batch(np.zeros((2, 5)), np.zeros((2, 5)), paired=True)
    with pytest.raises(ValueError,
                       match="criterion 'friedman' needs table; this batch holds scores."):
        get_criterion("friedman")(batch, None)
    table = _batch(np.random.default_rng(5), k=3)
    with pytest.raises(ValueError, match="`j` must be below the number of models, 3"):
        get_criterion("nemenyi(i=0,j=3)")(table, None)
    with pytest.raises(ValueError, match="`i` must be below `j`"):
        get_criterion("wilcoxon-holm(i=2,j=1)")


def test_fixed_seed_regression():
    res = run_study(make_design(k=5, n_datasets=15, spread=[0.0, 1.5]), "multi-dataset",
                    ["friedman", "nemenyi", "wilcoxon-holm", "nemenyi(i=0,j=4)", "wilcoxon"],
                    n_reps=400, seed=13)
    assert list(res.summary["spread"]) == [0.0] * 5 + [1.5] * 5
    assert [round(r * 400) for r in res.summary["rate"]] == [18, 20, 18, 3, 22, 310, 297, 286,
                                                            240, 46]


def test_ranks_command_prints_the_tests_and_draws_the_diagram(tmp_path):
    from figure_checks import layout_problems
    from matplotlib.image import imread

    from evalmc.plots import critical_difference

    rng = np.random.default_rng(6)
    scores = rng.normal(size=(14, 4)) + [0.8, 0.5, 0.0, -0.2]
    csv = tmp_path / "scores.csv"
    header = "dataset,alpha_net,beta_net,gamma_net,delta_net\n"
    csv.write_text(header + "".join(f"d{i}," + ",".join(f"{x:.4f}" for x in row) + "\n"
                                    for i, row in enumerate(scores)))
    png = tmp_path / "cd.png"
    proc = subprocess.run([sys.executable, "-m", "evalmc", "ranks", str(csv), "--plot",
                           str(png)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    ref = stats.friedmanchisquare(*scores.T)
    assert f"Friedman chi-square {ref.statistic:.3f}" in proc.stdout
    assert "alpha_net" in proc.stdout and imread(png).shape[1] > 400
    fig = critical_difference({"a": 1.2, "b": 2.1, "c": 2.4, "d": 4.3}, 1.25, title="t")
    assert layout_problems(fig) == []


def test_ranks_command_refuses_a_file_without_two_models(tmp_path):
    csv = tmp_path / "one.csv"
    csv.write_text("dataset,acc\nx,0.5\ny,0.6\n")
    proc = subprocess.run([sys.executable, "-m", "evalmc", "ranks", str(csv)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "2 models and 2 complete data sets" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_wilcoxon_holm_family_wise_error_is_a_plain_simulation():
    """Global null, 4 models on 10 data sets: scipy's Wilcoxon on every pair of 2000
    independent normal tables (untied: scipy's exact law), Holm's first step; within 4 combined
    MCSEs."""
    reps = 2000
    res = run_study(make_design(k=4, n_datasets=10), "multi-dataset", ["wilcoxon-holm"],
                    n_reps=reps, seed=14)
    rate = res.summary["rate"].iloc[0]
    rng = np.random.default_rng(15)
    t = rng.normal(size=(reps, 10, 1)) + rng.normal(size=(reps, 10, 4))
    raw = np.stack([stats.wilcoxon(t[:, :, a], t[:, :, b], axis=1).pvalue
                    for a in range(4) for b in range(a + 1, 4)], axis=1)
    ref = np.mean(raw.min(axis=1) <= 0.05 / 6)  # Holm rejects some pair iff its first step does
    assert abs(rate - ref) <= 4 * np.sqrt(rate * (1 - rate) / reps + ref * (1 - ref) / reps)


def _ranks_cli(capsys, *argv):
    from evalmc.cli import main

    code = main(["ranks", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_ranks_says_which_scores_rank_first_and_points_out_losses(tmp_path, capsys):
    """A table of losses ranked highest-first said nothing: its worst model came out best."""
    from evalmc import ranks

    csv = tmp_path / "losses.csv"
    csv.write_text("A_loss,B_loss,C_loss\n0.10,0.30,0.20\n0.12,0.33,0.25\n0.11,0.35,0.21\n"
                   "0.09,0.31,0.22\n")
    code, out, err = _ranks_cli(capsys, csv)
    assert code == 0 and out.startswith("3 models on 4 data sets, higher scores better; ")
    assert err == ("evalmc: 'A_loss', 'B_loss', 'C_loss' read like a loss or an error, but "
                   "higher scores rank first (--best max): give --best min if lower is "
                   "better.\n")
    code, out, err = _ranks_cli(capsys, csv, "--best", "min")
    assert (code, err) == (0, "") and out.startswith("3 models on 4 data sets, lower scores "
                                                     "better; ")
    res = ranks({"A": [0.1, 0.12, 0.11], "B": [0.3, 0.33, 0.35]}, best="min")
    assert res.best == "min" and res.to_dict()["best"] == "min"
    assert res.mean_ranks.tolist() == [1.0, 2.0]
    long = tmp_path / "long.csv"
    long.write_text("model,data,val_err\nA,x,0.1\nB,x,0.3\nA,y,0.2\nB,y,0.4\n")
    err = _ranks_cli(capsys, long, "--model", "model", "--score", "val_err", "--pair-by",
                     "data")[2]
    assert err.startswith("evalmc: 'val_err' reads like a loss or an error")
    csv.write_text("acc_a,errata\n0.9,0.8\n0.8,0.7\n")  # words, not substrings
    assert _ranks_cli(capsys, csv)[2] == ""


def test_ranks_averages_several_runs_per_model_and_data_set(tmp_path, capsys):
    from evalmc import ranks

    rng = np.random.default_rng(4)
    scores = rng.normal(size=(3, 5, 4)) + np.array([0.5, 0.0, 0.2])[:, None, None]
    rows = [f"{m},d{d},{s},{float(scores[i, d, s])!r}" for i, m in enumerate("ABC")
            for d in range(5) for s in range(4)]
    rows[7] = rows[7].rsplit(",", 1)[0] + ","  # A misses a run on d1: its mean is of 3
    csv = tmp_path / "seeds.csv"
    csv.write_text("model,dataset,seed,acc\n" + "\n".join(rows) + "\n")
    argv = [csv, "--model", "model", "--score", "acc", "--pair-by", "dataset"]
    code, _, err = _ranks_cli(capsys, *argv)
    assert code == 2 and err.endswith("each key may hold one run per model; --mean-runs "
                                      "averages them.\n")
    code, out, err = _ranks_cli(capsys, *argv, "--mean-runs", "--format", "json")
    assert code == 0 and err == ("evalmc: averaged 59 runs into 15 means of a model on a data "
                                 "set (3 to 4 runs each; 1 missing score(s) skipped)\n")
    means = np.nanmean(np.where(np.arange(60).reshape(3, 5, 4) == 7, np.nan, scores), axis=2)
    ref = ranks({m: means[i] for i, m in enumerate("ABC")})
    got = __import__("json").loads(out)
    assert got["friedman_chi2"] == pytest.approx(ref.friedman_chi2, rel=1e-12)
    assert [p["rank_i"] for p in got["pairs"]] == ref.pairs["rank_i"].tolist()
    code, _, err = _ranks_cli(capsys, *argv, "--mean-runs", "--no-dropna")
    assert code == 2 and "has a missing value on data row 8" in err
    code, _, err = _ranks_cli(capsys, csv, "--mean-runs")
    assert code == 2 and "`--mean-runs` averages a long file's runs" in err
