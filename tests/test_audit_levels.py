"""`evalmc audit --cluster category/subject`: the procedures judged at the outer level, those
that read the clusters audited again at the inner level, and the report saying where the two
verdicts differ."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from test_itemmodel_nested import write_nested

import evalmc
from evalmc.cli import main
from evalmc.criteria import get_criterion
from evalmc.inputs.nested import read_levels
from evalmc.sims import get_scenario
from evalmc.sims.itemmodel import forget_fits
from evalmc.study.levels import LEVEL_SHARE, level_batches, level_lines, reads_clusters

PROCEDURES = ["paired-items", "clustered-z", "cr2-bm"]


@pytest.fixture
def nested_file(tmp_path):
    forget_fits()
    return write_nested(tmp_path / "nested.csv")


@pytest.fixture
def nested_audit(nested_file):
    # refits=0: both levels simulate the point fit, which the independent check draws from
    return evalmc.audit(nested_file, "x", "y", cluster="category/subject", criteria=PROCEDURES,
                        estimators=[], n_reps=400, n_reps_alt=20, progress=False, refits=0)


def test_only_the_procedures_that_read_clusters_are_audited_twice(nested_file):
    outer, inner = level_batches(read_levels(nested_file, cluster="category/subject"), "x", "y")
    assert (len(outer.cluster_sizes), len(inner.cluster_sizes)) == (8, 40)
    np.testing.assert_array_equal(outer.a, inner.a)
    picked = {name: reads_clusters(get_criterion(name), outer, inner)
              for name in [*PROCEDURES, "cluster-bootstrap", "sacrebleu-paired-bs", "sign"]}
    assert picked == {"paired-items": False, "clustered-z": True, "cr2-bm": True,
                      "cluster-bootstrap": True, "sacrebleu-paired-bs": False, "sign": False}


def test_a_nested_audit_reports_both_levels(nested_audit):
    levels = nested_audit.levels
    assert levels["procedure"].tolist() == ["clustered-z", "cr2-bm"]
    assert (levels["n_reps_inner"] == 400 // LEVEL_SHARE).all()
    assert nested_audit.settings["n_reps_level"] == 100
    assert (levels[["clusters_outer", "clusters_inner"]].to_numpy() == [8, 40]).all()
    sizes = nested_audit.sizes.set_index("procedure")
    assert levels.set_index("procedure")["size_outer"].to_dict() == {
        name: sizes.loc[name, "rate"] for name in ("clustered-z", "cr2-bm")}
    report = nested_audit.report()
    assert "in 8 clusters (category) of 40 subclusters (subject)" in report
    assert "\nCluster levels:\n- " in report
    assert "subcluster" in nested_audit.fit["parameter"].tolist()
    # fixed seed: the inner level's sizes at 100 replications
    assert levels["size_inner"].tolist() == pytest.approx([0.10, 0.08])
    assert nested_audit.to_dict()["levels"][0]["procedure"] == "clustered-z"


def test_the_inner_level_is_the_nested_model_clustered_by_subject(nested_file, nested_audit):
    """Statistical check: the second level's size of clustered-z agrees, within 4 combined
    MCSE, with an independent estimate: 1,500 data sets of the nested scenario at the inner
    level, drawn from other seeds, tested by a CR0 z written with numpy."""
    scenario = get_scenario("item-model")(file=nested_file, a="x", b="y",
                                          cluster="category/subject", level="inner")
    batch = scenario.draw(np.random.default_rng(123), 1500)
    d = np.asarray(batch.a) - np.asarray(batch.b)
    groups = np.repeat(np.arange(len(batch.cluster_sizes)), batch.cluster_sizes)
    resid = d - d.mean(axis=1, keepdims=True)
    totals = np.stack([resid[:, groups == g].sum(axis=1) for g in range(groups.max() + 1)])
    z = d.mean(axis=1) / (np.sqrt((totals**2).sum(axis=0)) / d.shape[1])
    rejected = 2 * stats.norm.sf(np.abs(z)) < 0.05
    mine = rejected.mean()
    row = nested_audit.levels.set_index("procedure").loc["clustered-z"]
    combined = np.sqrt(row["mcse_inner"] ** 2 + mine * (1 - mine) / rejected.size)
    assert abs(row["size_inner"] - mine) < 4 * combined
    # the subjects of a category are correlated here: clustered by subject, clustered-z is
    # liberal on this model (binomial test against 5%)
    assert stats.binomtest(int(rejected.sum()), rejected.size, 0.05).pvalue < 1e-3


def test_level_lines_say_a_difference_an_undetermined_level_or_none():
    base = {"procedure": "clustered-z", "outer": "category", "inner": "subject",
            "clusters_outer": 14, "clusters_inner": 91, "size_outer": 0.083,
            "mcse_outer": 0.0038, "bradley_outer": "liberal", "size_inner": 0.063,
            "mcse_inner": 0.0067, "bradley_inner": "robust", "n_reps_inner": 1325,
            "differs": True}
    assert level_lines(pd.DataFrame([base]))[0].endswith(
        "its verdict depends on the level it clusters at.")
    soft = {**base, "bradley_inner": "undetermined", "differs": False}
    assert "more replications would tell" in level_lines(pd.DataFrame([soft]))[0]
    same = {**base, "bradley_inner": "liberal", "differs": False}
    assert level_lines(pd.DataFrame([same])) == [
        "Clustered by subject (91 clusters, 1325 replications) instead of category, no "
        "procedure's verdict changes (clustered-z)."]
    assert level_lines(pd.DataFrame()) == []


def test_one_level_audits_have_no_second_level(tmp_path):
    path = write_nested(tmp_path / "one.csv")
    forget_fits()
    result = evalmc.audit(path, "x", "y", cluster="category", criteria=["clustered-z"],
                          estimators=[], n_reps=50, n_reps_alt=10, progress=False)
    assert result.levels.empty and "Cluster levels" not in result.report()


def test_the_command_line_takes_nested_clusters_and_refuses_three_levels(nested_file, capsys):
    assert main(["audit", nested_file, "--a", "x", "--b", "y", "--cluster",
                 "category/subject", "--criterion", "clustered-z", "--reps", "40",
                 "--reps-alt", "10", "--quiet"]) == 0
    assert "Cluster levels:" in capsys.readouterr().out
    assert main(["audit", nested_file, "--a", "x", "--b", "y", "--cluster", "a/b/c",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "`cluster` must be one column or two nested ones" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_stacked_files_keep_both_levels(nested_file, tmp_path):
    """A log per model, stacked: the table written for the scenario keeps both levels."""
    table = pd.read_csv(nested_file)
    paths = []
    for model in ("x", "y"):
        paths.append(tmp_path / f"{model}.csv")
        table[table["model"] == model].to_csv(paths[-1], index=False)
    result = evalmc.audit(paths, "x", "y", cluster="category/subject",
                          criteria=["clustered-z"], estimators=[], n_reps=40, n_reps_alt=10,
                          progress=False)
    assert result.data["n_subclusters"] == 40
    assert result.levels["clusters_inner"].tolist() == [40]


def test_the_recommendation_names_the_level_to_cluster_at():
    """A recommended procedure whose label differs at the inner level gets the level to cluster
    it at; one whose label is the same, or a procedure not audited twice, gets nothing."""
    from evalmc.study.levels import level_note

    row = {"procedure": "cr2-bm", "outer": "category", "inner": "subject", "size_inner": 0.29,
           "mcse_inner": 0.0125, "bradley_inner": "liberal", "bradley_outer": "robust"}
    levels = pd.DataFrame([row])
    assert level_note(levels, "cr2-bm").endswith(": cluster it by category.")
    assert level_note(levels, "paired-items") == level_note(levels, None) == ""
    assert level_note(pd.DataFrame([{**row, "bradley_inner": "robust"}]), "cr2-bm") == ""


def test_with_refits_the_second_level_is_split_over_them_as_the_null_is(nested_file):
    result = evalmc.audit(nested_file, "x", "y", cluster="category/subject",
                          criteria=["clustered-z"], estimators=[], n_reps=90, n_reps_alt=10,
                          progress=False, refits=4)
    # 90 // 4 = 22 at the second level, split over 4 refits: 6 each, 24 in all
    assert result.levels["n_reps_inner"].tolist() == [24]
    assert result.settings["n_reps_level"] == 24
