"""``evalmc audit --models`` (every pair, Holm-adjusted) and the audit's reporting: resampling
p-values below their resolution, and ``--report FILE.md``."""

import json
import re

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from evalmc.cli import main
from evalmc.criteria import resamples
from evalmc.study.audit import audit
from evalmc.study.audit_models import audit_models
from evalmc.study.pvalues import format_p

FAST = {"cluster": "group", "n_reps": 300, "n_reps_alt": 60, "progress": False}


def _file(tmp_path, skills, n=120, seed=5):
    """Models' 0/1 answers on n items in clusters of 6, one answer each, by skill."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0, 1, n)
    rows = ["model,item,group,score"] + [
        f"{m},{i},g{i // 6},{int(s - difficulty[i] + rng.normal() > 0)}"
        for m, s in skills.items() for i in range(n)]
    path = tmp_path / "items.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_resamples_of_each_resampling_procedure():
    assert resamples("cluster-bootstrap") == 999
    assert resamples("sacrebleu-paired-bs") == 1000 and resamples("sacrebleu-paired-ar") == 10000
    assert resamples("wild-cluster-bootstrap(weights=webb)") == 999
    assert resamples("wild-cluster-bootstrap(n_resamples=99)") == 99
    assert resamples("permutation-paired") == 9999 and resamples("bootstrap-mean") == 9999
    assert resamples("paired-items") is None and resamples("cr2-bm") is None


def test_a_p_below_the_resolution_prints_as_one_over_b():
    assert format_p(0.0, 999) == format_p(2.220446049250313e-16, 999) == "< 1/999"
    assert format_p(1 / 1001, 1000) == "< 1/1000"  # sacrebleu's (0 + 1) / (B + 1)
    assert format_p(2 / 1001, 1000) == "0.001998"
    assert format_p(0.0, None) == "0" and format_p(np.nan, 999) == "-"


def test_the_report_prints_a_bootstrap_p_of_zero_as_below_its_resolution(tmp_path):
    """A clear winner: every cluster-bootstrap replicate is above 0, whose bisected p-value
    is 2^-52, and no sacrebleu resample beats the observed difference, p = 1/(B + 1)."""
    path = _file(tmp_path, {"x": 1.0, "y": -1.0})
    crits = ["cluster-bootstrap", "sacrebleu-paired-bs(n_resamples=200)", "paired-items"]
    result = audit(path, "x", "y", criteria=crits, estimators=[], **FAST)
    observed = result.observed.set_index("name")
    assert observed.loc["cluster-bootstrap", "pvalue"] < 1e-15
    assert observed.loc["sacrebleu-paired-bs(n_resamples=200)", "pvalue"] == 1 / 201
    text = result.report()
    assert re.search(r"cluster-bootstrap .* < 1/999\n", text)
    assert re.search(r"sacrebleu-paired-bs\(n_resamples=200\) .* < 1/200\n", text)
    assert "e-16" not in text and "< 1/" not in text.split("paired-items", 2)[-1].split("\n")[0]
    assert result.to_dict()["observed"][0]["resamples"] == 999


def test_several_models_every_pair_holm_adjusted(tmp_path):
    path = _file(tmp_path, {"x": 0.5, "y": 0.2, "z": 0.1})
    crits, run = ["cr2-bm", "clustered-z"], {**FAST, "n_reps": 2000}
    result = audit_models(path, ["x", "y", "z"], criteria=crits, estimators=[], **run)
    table = result.table
    assert list(zip(table["a"], table["b"], strict=True)) == [("x", "y"), ("x", "z"), ("y", "z")]
    for (a, b), pair in result.pairs.items():  # each pair its own fit and simulations
        alone = audit(path, a, b, criteria=crits, estimators=[], **run)
        pd.testing.assert_frame_equal(pair.sizes, alone.sizes)
    assert not result.pairs[("x", "y")].sizes.equals(result.pairs[("x", "z")].sizes)
    tested = table["pvalue"].notna()
    assert tested.sum() >= 2, table
    assert table["p_holm"].round(4).tolist() == [0.3062, 0.352, 0.7715]  # fixed seed
    reference = multipletests(table.loc[tested, "pvalue"], method="holm")[1]
    np.testing.assert_allclose(table.loc[tested, "p_holm"], reference, rtol=1e-12)
    for _, rows in result.adjusted.groupby("procedure"):
        np.testing.assert_allclose(rows["p_holm"], multipletests(rows["pvalue"],
                                                                 method="holm")[1], rtol=1e-12)
    for _, row in table[tested].iterrows():  # the conclusion reads the adjusted p
        assert row["conclusion"] == ((row["a"] if row["estimate"] > 0 else row["b"]) + " better"
                                     if row["p_holm"] < 0.05 else "no difference shown")
    shown = result.shown()
    assert list(shown.columns) == ["pair", "procedure", "estimate A - B", "interval", "p",
                                   "Holm p", "conclusion"]
    assert "Holm's adjusted p" in result.report()


def test_a_conclusion_follows_the_adjusted_not_the_raw_p():
    """Raw p 0.03 in a family of three is not significant after Holm (0.03 x 2 or 3)."""
    from evalmc.criteria.ranks import holm
    from evalmc.study.audit_models import _conclusion, _holm_over

    p = np.array([0.01, 0.03, 0.2])
    adjusted = _holm_over(p, holm)
    np.testing.assert_allclose(adjusted, multipletests(p, method="holm")[1])
    row = {"procedure": "cr2-bm", "a": "x", "b": "y", "estimate": 0.1, "p_holm": adjusted[1]}
    assert adjusted[1] > 0.05 and _conclusion(row, 0.05) == "no difference shown"


def test_a_pair_without_a_procedure_still_counts_in_holms_family():
    """Three pairs, one with no procedure that holds its level: the other two are adjusted as
    in a family of three (the untested one as p = 1), not of two."""
    from evalmc.criteria.ranks import holm
    from evalmc.study.audit_models import _holm_over

    adjusted = _holm_over(np.array([0.01, np.nan, 0.02]), holm)
    np.testing.assert_allclose(adjusted[[0, 2]],
                               multipletests([0.01, 1.0, 0.02], method="holm")[1][[0, 2]])
    assert np.isnan(adjusted[1]) and adjusted[2] == pytest.approx(0.04)


def test_holm_of_a_p_below_resolution_prints_as_a_bound():
    from evalmc.study.audit_models import _holm_shown

    shown = _holm_shown(np.array([1e-16, 0.02, 0.3]), [999, None, None],
                        multipletests([1e-16, 0.02, 0.3], method="holm")[1])
    assert shown == ["< 0.003003", "0.04", "0.3"]


def test_cli_models_and_report(tmp_path, capsys):
    path = _file(tmp_path, {"x": 1.0, "y": -1.0, "z": -0.9})
    report = tmp_path / "out" / "audit.md"
    report.parent.mkdir()
    base = ["audit", str(path), "--cluster", "group", "--criterion", "cluster-bootstrap",
            "--criterion", "paired-items", "--estimator", "paired-z-interval", "--reps", "300",
            "--reps-alt", "60", "--quiet"]
    assert main([*base, "--a", "x", "--b", "y", "--report", str(report)]) == 0
    text = report.read_text()
    assert "![" in text and "(audit.png)" in text and (report.parent / "audit.png").exists()
    assert "| procedure | size | Bradley |" in text and "## Recommendation" in text
    assert "| cluster-bootstrap |" in text and "< 1/999 |" in text
    assert "| interval | level | coverage |" in text and "| parameter | value |" in text
    capsys.readouterr()
    assert main([*base, "--models", "x", "y", "z", "--format", "json"]) == 0
    spec = json.loads(capsys.readouterr().out)
    assert [(r["a"], r["b"]) for r in spec["table"]] == [("x", "y"), ("x", "z"), ("y", "z")]
    assert main([*base, "--models", "x", "y", "z", "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "Holm p" in out and "conclusion" in out
    text = report.read_text()
    assert "| pair | procedure | estimate A - B |" in text
    for k in (1, 2, 3):
        assert f"(audit-{k}.png)" in text and (report.parent / f"audit-{k}.png").exists()


@pytest.mark.parametrize(("extra", "message"), [
    (["--models", "x", "y", "--a", "x"], "`--models` must name at least 2 distinct models"),
    (["--models", "x"], "`--models` must name at least 2 distinct models"),
    (["--models", "x", "x"], "`--models` must name at least 2 distinct models"),
    (["--a", "x"], "`--a` and `--b` must name the two models"),
    (["--models", "x", "y", "--plot", "f.png"], "`--plot` draws one pair's audit"),
])
def test_cli_refuses_models_named_wrongly(tmp_path, capsys, extra, message):
    path = _file(tmp_path, {"x": 0.0, "y": 0.0})
    assert main(["audit", str(path), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
