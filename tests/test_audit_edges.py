"""``evalmc audit`` at the edges of its input: few clusters or one, a user's own test, two
identical models; each gives an answer or a one-line refusal, never a traceback."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from evalmc.cli import main
from evalmc.study.audit import GRID, audit

WELCH = ("from scipy import stats\n\n\ndef welch(a, b):\n"
         "    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)\n")
SMALL = ["--reps", "100", "--reps-alt", "20", "--quiet"]


def _write(path, n=120, n_clusters=2, seed=3, identical=False, twin_clusters=False):
    """Two models' 0/1 answers on `n` items in `n_clusters` clusters (item i in cluster i mod
    G); `identical`: B's answers are A's; `twin_clusters`: two clusters, the second a copy of
    the first with one of A's answers flipped, so the clusters' mean differences nearly agree
    and the CR0 standard error is far below the paired one."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 1, n)
    a = (skill + 0.1 + rng.normal(size=n) > 0).astype(int)
    b = a.copy() if identical else (skill + rng.normal(size=n) > 0).astype(int)
    cluster = np.arange(n) % n_clusters
    if twin_clusters:
        half = n // 2
        a, b = np.r_[a[:half], a[:half]], np.r_[b[:half], b[:half]]
        a[half] = 1 - a[half]
        cluster = np.repeat([0, 1], half)
    rows = ["model,item,cluster,score"] + [
        f"{m},{i},c{cluster[i]},{s[i]}" for m, s in (("x", a), ("y", b)) for i in range(n)]
    path.write_text("\n".join(rows) + "\n")
    return path


def _cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_two_clusters_say_which_standard_error_and_scale_the_grid_from_the_fit(tmp_path):
    """Two clusters whose mean differences nearly agree: CR0 is 0.0059, the paired standard
    error several times that. The header says which it shows; the grid is scaled from the
    spread of A - B on data simulated from the fit (within 4 of its MCSEs of an independent
    estimate from 4,000 replications), so the calibrated tests' MDDs are found."""
    from evalmc.criteria.items import clustered_mean_se
    from evalmc.sims import get_scenario

    path = _write(tmp_path / "items.csv", twin_clusters=True)
    result = audit(path, "x", "y", cluster="cluster", criteria=["paired-items", "cr2-bm"],
                   estimators=[], n_reps=200, n_reps_alt=50, progress=False)
    d = result.data
    assert round(d["se"], 4) == 0.0059 and round(d["grid_se"], 4) == 0.0519
    assert "(standard error 0.0059, cluster-robust CR0 over 2 clusters, too few to trust; " \
           "the power grid uses 0.0519" in result.report().splitlines()[1]
    model = get_scenario("item-model")(file=str(path), a="x", b="y", cluster="cluster")
    means = clustered_mean_se(model.draw(np.random.default_rng(9), 4000))[0]
    mcse = d["grid_se"] / np.sqrt(2 * 399)
    assert abs(d["grid_se"] - means.std(ddof=1)) <= 4 * mcse
    assert result.detectable["mdd"].notna().all()
    assert result.settings["grid"][0] == pytest.approx(d["grid_se"], rel=1e-2)


def test_the_grid_reaches_where_a_t_test_on_few_clusters_has_power():
    """With 2 equal clusters (Bell-McCaffrey df 1) the multiples go on in steps of sqrt(2)
    until GRID's largest times t(1, 0.975) / z(0.975) = 36.3; with many clusters, or none,
    they are GRID."""
    from evalmc.sims.items import ClusteredBatch
    from evalmc.study.audit import _multiples

    def batch(sizes):
        n = sum(sizes)
        return ClusteredBatch(np.ones((1, n)), np.zeros((1, n)), paired=True,
                              cluster_sizes=sizes)

    top = GRID[-1] * stats.t.ppf(0.975, 1) / stats.norm.ppf(0.975)
    two = _multiples(batch((5, 5)))
    assert two[:len(GRID)] == GRID and two[-2] < top <= two[-1]
    assert two == (1.0, 2.0, 2.8, 4.0, 5.6, 7.9, 11.2, 15.8, 22.3, 31.5, 44.5)
    assert _multiples(batch((2,) * 40)) == GRID and _multiples(batch((1,) * 8)) == GRID


def test_one_cluster_drops_the_cluster_robust_procedures_or_refuses_them(tmp_path, capsys):
    path = _write(tmp_path / "items.csv", n_clusters=1)
    with pytest.warns(UserWarning, match="with 1 cluster the cluster-robust procedures cannot "
                                         "run, so clustered-z, cluster-bootstrap, cr2-bm"):
        result = audit(path, "x", "y", cluster="cluster", n_reps=100, n_reps_alt=20,
                       progress=False)
    assert "clustered-z" not in set(result.sizes["procedure"])
    assert "paired-items" in set(result.sizes["procedure"])
    assert "With one cluster no cluster-robust test can run" in result.recommendation["line"] \
        or result.recommendation["procedure"]
    code, out, err = _cli(capsys, "audit", path, "--a", "x", "--b", "y", "--cluster",
                          "cluster", "--criterion", "paired-items", "--estimator",
                          "paired-z-interval", *SMALL)
    assert code == 0 and "paired-items" in out and err == ""
    code, out, err = _cli(capsys, "audit", path, "--a", "x", "--b", "y", "--cluster",
                          "cluster", "--criterion", "cr2-bm", *SMALL)
    assert code == 2 and out == "" and err == (
        "evalmc: error: `--criterion`: cr2-bm needs at least 2 clusters and the data have 1; "
        "audit it on data with more clusters.\n")


def test_a_users_own_test_is_audited_like_a_built_in(tmp_path, capsys):
    """Alone or beside a built-in: its size and power, no correct-sign power (it gives no
    estimate: '-'), and its p-value on the data, scipy's Welch test of the item scores."""
    path = _write(tmp_path / "items.csv", n_clusters=5)
    mine = tmp_path / "my.py"
    mine.write_text(WELCH)
    alone = audit(path, "x", "y", criteria=[f"{mine}:welch"], estimators=[], deltas=[0.1],
                  n_reps=100, n_reps_alt=20, progress=False)
    beside = audit(path, "x", "y", criteria=[f"{mine}:welch", "paired-items"], estimators=[],
                   deltas=[0.1], n_reps=100, n_reps_alt=20, progress=False)
    table = pd.read_csv(path)
    expected = stats.ttest_ind(table.score[table.model == "x"], table.score[table.model == "y"],
                               equal_var=False).pvalue
    for result in (alone, beside):
        row = result.observed.iloc[0]
        assert row["name"] == f"{mine}:welch" and row["pvalue"] == pytest.approx(expected)
        assert result.power.loc[result.power["procedure"] == f"{mine}:welch",
                                "power_sign"].isna().all()
        assert "[-]" in result.report()
    pd.testing.assert_frame_equal(alone.sizes, beside.sizes.iloc[:1])
    code, out, _ = _cli(capsys, "audit", path, "--a", "x", "--b", "y", "--criterion",
                        f"{mine}:welch", "--criterion", "paired-items", *SMALL)
    assert code == 0 and f"{mine}:welch" in out


def test_identical_models_and_a_test_that_never_answers_are_refused_in_one_line(tmp_path,
                                                                             capsys):
    same = _write(tmp_path / "same.csv", identical=True)
    code, out, err = _cli(capsys, "audit", same, "--a", "x", "--b", "y", *SMALL)
    assert code == 2 and out == "" and err == (
        "evalmc: error: models 'x' and 'y' have identical scores on all 120 items: A - B is 0 "
        "on each, so there is nothing to audit; check that `a` and `b` name two different "
        "models.\n")
    broken = tmp_path / "broken.py"
    broken.write_text("def never(a, b):\n    raise RuntimeError('no answer')\n")
    path = _write(tmp_path / "items.csv")
    code, out, err = _cli(capsys, "audit", path, "--a", "x", "--b", "y", "--criterion",
                          f"{broken}:never", "--criterion", "paired-items", *SMALL)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"evalmc: error: the audit cannot judge '{broken}:never': it gave "
                          "no result on ")
    assert "RuntimeError: no answer" in err and "condition" not in err


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(n_clusters=st.integers(1, 60), identical=st.booleans(), own=st.booleans(),
       builtin=st.sampled_from([None, "paired-items", "cr2-bm", "clustered-z"]),
       seed=st.integers(0, 3))
def test_any_audit_answers_or_refuses_in_one_line(tmp_path_factory, capsys, n_clusters,
                                                   identical, own, builtin, seed):
    """1 to 60 clusters, a user's test or not, a built-in asked or the defaults, identical
    models or not: exit 0 with the report, or exit 2 with one line; never a traceback."""
    folder = tmp_path_factory.mktemp("audit")
    path = _write(folder / "items.csv", n=60, n_clusters=n_clusters, seed=seed,
                  identical=identical)
    argv = ["audit", path, "--a", "x", "--b", "y", "--cluster", "cluster", *SMALL]
    if own:
        (folder / "my.py").write_text(WELCH)
        argv += ["--criterion", f"{folder / 'my.py'}:welch", "--estimator", "paired-z-interval"]
    if builtin:
        argv += ["--criterion", builtin]
    code, out, err = _cli(capsys, *argv)
    assert code in (0, 2), err
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("evalmc: error: "), err
    else:
        assert out.startswith("evalmc audit ") and "Traceback" not in err
        assert all(line.startswith("evalmc: warning: ") for line in err.splitlines()), err
    assert identical <= (code == 2)
    assert (n_clusters == 1 and builtin in ("cr2-bm", "clustered-z")) <= (code == 2)


def test_a_file_is_read_once_and_the_reading_said_first(tmp_path, monkeypatch, capsys):
    """The audit reads its file as the scenario fitted to it does, so it is read once (10^5
    items took 17 s to a first word, two readings of 6 s and the fit, and 6 s after); with
    progress shown, its first line says it is reading, before the fit."""
    import evalmc.inputs.itemlogs as itemlogs
    from evalmc.sims.itemmodel import forget_fits

    forget_fits()
    reads = []
    real = itemlogs.read_items
    monkeypatch.setattr(itemlogs, "read_items", lambda *a, **k: reads.append(a) or real(*a, **k))
    path = _write(tmp_path / "items.csv", n_clusters=20)
    audit(path, "x", "y", cluster="cluster", criteria=["paired-items"], estimators=[],
          n_reps=50, n_reps_alt=20, progress=True)
    assert len(reads) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        f"evalmc audit: reading {path} and fitting the model to it...")
