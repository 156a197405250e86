"""``evalmc audit``: the observed data as a batch, the standard error, the minimum detectable
difference, the study on the fitted model, the command line."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalmc.cli import main
from evalmc.inputs.itemlogs import PairedItems, paired_items, read_items
from evalmc.study.audit import _crossing, audit, observed_batch, observed_se

EXAMPLES = Path(__file__).parent / "examples"
ITEMS = EXAMPLES / "items.csv"
READ = {"metric": "correct", "item": "question", "sample": "generation", "cluster": "subject"}


def _small_file(tmp_path, n=120, clusters=True, seed=3):
    """Two models' 0/1 answers on n items, 2 samples each, in clusters of 6 (or none)."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 1, n)
    rows = ["model,item,sample,group,score"]
    for m, bonus in (("x", 0.1), ("y", 0.0)):
        for i in range(n):
            for s in range(2):
                group = f"g{i // 6}" if clusters else f"i{i}"
                rows.append(f"{m},{i},{s},{group},{int(skill[i] + bonus + rng.normal() > 0)}")
    path = tmp_path / "items.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_make_writes_the_shipped_example(tmp_path):
    subprocess.run([sys.executable, str(EXAMPLES / "make_items.py"), str(tmp_path)], check=True)
    assert (tmp_path / "items.csv").read_bytes() == ITEMS.read_bytes()
    assert (tmp_path / "models.csv").read_bytes() == (EXAMPLES / "models.csv").read_bytes()


def test_observed_batch_groups_items_by_cluster():
    pair = PairedItems(["1", "2", "3", "4"], ["p", "q", "p", "r"],
                       np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
                       np.zeros((4, 2)), {})
    batch = observed_batch(pair)
    assert batch.cluster_sizes == (2, 1, 1) and batch.n_samples == 2
    assert batch.a.tolist() == [[0.5, 1.0, 0.0, 0.5]]
    assert batch.samples[0].tolist() == [[1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]]
    with pytest.raises(ValueError, match="as many samples per item"):
        observed_batch(pair._replace(b=np.zeros((4, 1))))


def test_observed_se_is_statsmodels_cluster_robust():
    import statsmodels.api as sm

    table = read_items(ITEMS, **READ)
    pair = paired_items(table, "candidate", "baseline")
    batch = observed_batch(pair)
    d = pair.a.mean(axis=1) - pair.b.mean(axis=1)
    groups = pd.factorize(pd.Series(pair.clusters))[0]
    fit = sm.OLS(d, np.ones(d.size)).fit(cov_type="cluster", use_t=False,
                                         cov_kwds={"groups": groups, "use_correction": False})
    assert observed_se(batch) == pytest.approx(fit.bse[0], rel=1e-10)


def test_crossing_interpolates_the_power_curve():
    delta = np.array([0.0, 0.01, 0.02, 0.04])
    assert _crossing(delta, np.array([0.05, 0.5, 0.9, 1.0])) == pytest.approx(0.0175)
    assert _crossing(delta, np.array([0.05, 0.85, 0.9, 1.0])) == pytest.approx(
        0.01 * 0.75 / 0.8)
    assert np.isnan(_crossing(delta, np.array([0.05, 0.2, 0.3, 0.5])))


def test_audit_is_the_same_for_any_workers_and_fixed_for_a_seed(tmp_path):
    path = _small_file(tmp_path)
    kwargs = {"cluster": "group", "sample": "sample", "criteria": ["paired-items",
                                                                   "clustered-z"],
              "estimators": ["paired-z-interval"], "deltas": [0.05], "n_reps": 300,
              "n_reps_alt": 200, "seed": 4, "progress": False}
    one = audit(path, "x", "y", **kwargs)
    two = audit(path, "x", "y", n_jobs=2, **kwargs)
    for name in ("sizes", "power", "coverage", "observed", "detectable"):
        pd.testing.assert_frame_equal(getattr(one, name), getattr(two, name))
    assert (one.sizes["rate"] * 300).round().tolist() == [34, 20]  # [33, 21] drawing scores
    assert one.data["n_clusters"] == 20 and one.data["n_samples"] == 2
    assert set(one.verdicts["verdict"]) <= {"calibrated", "liberal", "conservative",
                                            "undetermined"}
    text = one.report()
    for heading in ("The fitted model", "Is the fit faithful?", "Procedures at alpha",
                    "Intervals of A - B", "Verdicts:"):
        assert heading in text
    assert json.loads(json.dumps(one.to_dict()))["sizes"][0]["procedure"] == "paired-items"


def test_paired_test_holds_its_level_on_independent_items(tmp_path):
    """Without clusters and with one sample per item, the fitted model's items are independent
    and the paired z-test's size is 0.05 within 4 MCSE."""
    path = _small_file(tmp_path, n=300, clusters=False)
    result = audit(path, "x", "y", sample="sample", criteria=["paired-items"], estimators=[],
                   n_reps=3000, n_reps_alt=50, progress=False)
    size = result.sizes.iloc[0]
    assert abs(size["rate"] - 0.05) <= 4 * np.sqrt(0.05 * 0.95 / 3000)


def test_cli_writes_json_and_refuses_bad_input(tmp_path, capsys):
    path = _small_file(tmp_path, n=60)
    out = tmp_path / "audit.json"
    argv = ["audit", str(path), "--a", "x", "--b", "y", "--cluster", "group", "--sample",
            "sample", "--criterion", "paired-items", "--estimator", "paired-z-interval",
            "--reps", "200", "--reps-alt", "50", "--quiet", "--format", "json", "--out",
            str(out)]
    assert main(argv) == 0
    spec = json.loads(out.read_text())
    assert spec["data"]["n_items"] == 60 and spec["sizes"][0]["procedure"] == "paired-items"
    capsys.readouterr()
    assert main(argv[:-4] + ["--delta", "0.1,x"]) == 2
    assert "`--delta` must be numbers" in capsys.readouterr().err
    assert main(["audit", str(path), "--a", "x", "--b", "z", "--sample", "sample"]) == 2
    assert "`b` 'z' is not a model" in capsys.readouterr().err


def test_the_readme_excerpt_is_in_the_figures_report():
    """Each line of the README's excerpt of the worked example is a line of
    figures/audit/audit.txt (which the slow test below checks is current)."""
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    start = readme.index("## Auditing your own evaluation")
    excerpt = readme[readme.index("```text\n", start) + 8:readme.index("```\n\n![", start)]
    report = (Path(__file__).parents[1] / "figures" / "audit" / "audit.txt").read_text()
    lines = set(report.splitlines())
    assert excerpt.strip() and all(line in lines for line in excerpt.splitlines())


@pytest.mark.slow
def test_the_worked_example_report_is_current(tmp_path, monkeypatch):
    """The worked example's command writes figures/audit/audit.txt as committed (15 s)."""
    out = tmp_path / "audit.txt"
    monkeypatch.chdir(Path(__file__).parents[1])
    assert main(["audit", "tests/examples/items.csv", "--a", "candidate", "--b", "baseline",
                 "--metric", "correct", "--item", "question", "--sample", "generation", "--cluster",
                 "subject", "--delta", "0.01,0.02,0.03", "--jobs", "2", "--quiet", "--out",
                 str(out)]) == 0
    committed = (Path(__file__).parents[1] / "figures" / "audit" / "audit.txt").read_text()
    assert out.read_text() == committed


def test_sizes_under_the_process_that_wrote_the_example():
    """The README's check of the audit: 2,000 benchmarks drawn from make_items.py's process
    with equal skills (fresh subjects of fresh sizes each): the paired z-test's size 0.226 and
    the clustered z-test's 0.075 at the 5% level."""
    from scipy.special import ndtr

    sys.path.insert(0, str(EXAMPLES))
    import make_items

    rng = np.random.default_rng(5)
    reps, rejected = 2000, np.zeros(2)
    for _ in range(reps):
        sizes, _, answers = make_items.draw(rng, {"candidate": 0.275, "baseline": 0.275})
        d = answers["candidate"].mean(axis=1) - answers["baseline"].mean(axis=1)
        paired = d.std(ddof=1) / np.sqrt(d.size)
        sums = np.add.reduceat(d, np.cumsum(sizes) - sizes)
        clustered = np.sqrt(((sums - sizes * d.mean()) ** 2).sum()) / d.size
        rejected += 2 * ndtr(-abs(d.mean() / np.array([paired, clustered]))) < 0.05
    assert (rejected / reps).tolist() == [0.226, 0.075]


def test_two_harness_logs_are_stacked(tmp_path):
    """lm-evaluation-harness writes a log per model: the two arc_easy logs of the examples,
    audited together, pair the models on the same 20 documents; the report names both files."""
    logs = sorted(str(p) for p in (EXAMPLES / "lm_eval").glob("*/samples_arc_easy_*.jsonl"))
    result = audit(logs, "EleutherAI/pythia-410m", "EleutherAI/pythia-160m", metric="acc",
                   criteria=["paired-items", "mcnemar-items"], estimators=["newcombe-paired"],
                   n_reps=200, n_reps_alt=50, progress=False)
    assert result.data["n_items"] == 20 and result.data["difference"] == pytest.approx(0.3)
    assert result.data["file"] == ", ".join(logs) and result.data["n_samples"] == 1
    out = tmp_path / "audit.png"
    assert main(["audit", *logs, "--a", "EleutherAI/pythia-410m", "--b",
                 "EleutherAI/pythia-160m", "--metric", "acc", "--criterion", "paired-items",
                 "--estimator", "newcombe-paired", "--reps", "100", "--reps-alt", "50",
                 "--quiet", "--plot", str(out), "--out", str(tmp_path / "audit.txt")]) == 0
    assert out.stat().st_size > 0


def test_review_rules(tmp_path):
    """Only intervals of A - B are audited, refused before any study; a difference the scores
    cannot reach is refused, not dropped; a procedure's observed result does not depend on
    the others audited beside it; a copy of the file elsewhere has the scenario's
    fingerprint."""
    from evalmc.sims import get_scenario

    path = _small_file(tmp_path, n=60)
    kwargs = {"sample": "sample", "n_reps": 50, "n_reps_alt": 20, "progress": False}
    with pytest.raises(ValueError, match="`estimators` must be intervals of A - B"):
        audit(path, "x", "y", criteria=["paired-items"], estimators=["wilson"], **kwargs)
    with pytest.raises(ValueError, match="`delta`"):
        audit(path, "x", "y", criteria=["paired-items"], estimators=[], deltas=[1.5], **kwargs)
    alone = audit(path, "x", "y", criteria=["sacrebleu-paired-bs"], estimators=[], **kwargs)
    beside = audit(path, "x", "y", criteria=["paired-items", "sacrebleu-paired-bs"],
                   estimators=[], **kwargs)
    assert alone.observed["pvalue"].iloc[0] == beside.observed["pvalue"].iloc[1]
    copy = tmp_path / "elsewhere" / "copy.csv"
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    model = get_scenario("item-model")
    assert model(file=str(path), a="x", b="y", sample="sample").fingerprint() == model(
        file=str(copy), a="x", b="y", sample="sample").fingerprint()


def test_the_readme_plan_excerpt_is_in_the_figures_table():
    """The README's table of the questions a 2-point difference needs is figures/plan's."""
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    start = readme.index("How many questions for a 2-point difference")
    excerpt = readme[readme.index("```text\n", start) + 8:readme.index("```\n\nabout", start)]
    table = (Path(__file__).parents[1] / "figures" / "plan" / "items.txt").read_text()
    assert excerpt.strip() and all(line in table.splitlines() for line in excerpt.splitlines())


@pytest.mark.slow
def test_the_items_plan_is_current(tmp_path, monkeypatch):
    """figures/plan/items.txt is what its command writes (17 s)."""
    monkeypatch.chdir(Path(__file__).parents[1])
    out = tmp_path / "items.txt"
    params = ["file=tests/examples/items.csv", "a=candidate", "b=baseline", "metric=correct",
              "item=question", "sample=generation", "cluster=subject", "delta=0.02"]
    argv = ["plan", "--scenario", "item-model", "--criterion", "clustered-z", "--solve",
            "n_items", "--low", "500", "--jobs", "2", "--quiet", "--out", str(out)]
    for p in params:
        argv += ["--param", p]
    assert main(argv) == 0
    assert out.read_text() == (Path(__file__).parents[1] / "figures" / "plan"
                               / "items.txt").read_text()


def test_the_audit_says_how_long_it_will_take_before_it_starts(tmp_path, capsys):
    """Its first words, before any study: the time it expects and the replications."""
    path = _small_file(tmp_path, n=60)
    audit(path, "x", "y", sample="sample", criteria=["paired-items", "cluster-bootstrap"],
          estimators=["paired-z-interval"], deltas=[0.1], n_reps=200, n_reps_alt=100,
          progress=True)
    first = capsys.readouterr().err.lstrip().splitlines()[0]
    assert re.fullmatch(r"evalmc audit: about \d+ s to go \(1,000 replications: 200 under the "
                        r"null, 100 at each of 6 differences, 200 for the intervals\); add "
                        r"--cache DIR to keep finished blocks and resume\.", first), first


def test_a_long_audit_keeps_its_blocks_in_the_users_cache(tmp_path, monkeypatch, capsys):
    """An audit expected to pass a minute keeps its finished blocks in the user's cache folder
    and says so; a re-run takes them (the same results); False keeps none."""
    import evalmc.study.audit as module

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(module, "_expected_seconds", lambda *args, **kwargs: 3600.0)
    path = _small_file(tmp_path, n=60)
    kwargs = {"sample": "sample", "criteria": ["paired-items"], "estimators": [],
              "n_reps": 100, "n_reps_alt": 50, "progress": None}
    first = audit(path, "x", "y", **kwargs)
    folder = tmp_path / "cache" / "evalmc" / "audit"
    assert module.default_cache() == str(folder)
    assert "about 1 h 0 min to go" in capsys.readouterr().err
    stored = sorted(folder.rglob("*.npz"))
    assert stored
    again = audit(path, "x", "y", **kwargs)
    pd.testing.assert_frame_equal(first.sizes, again.sizes)
    assert sorted(folder.rglob("*.npz")) == stored
    audit(path, "x", "y", **{**kwargs, "cache": False, "seed": 1})
    assert sorted(folder.rglob("*.npz")) == stored
