"""Research CSV files as people write them, read by every command that reads them (describe,
ranks, boon, compare, the empirical scenario): the answer is the one of
a plain reading of the intended columns, computed here with numpy and scipy, or a refusal in
one line where the file is ambiguous (one row per run, read without ``--model``)."""

import contextlib
import io
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from evalmc.cli import main
from evalmc.sims.scores import read_scores

MODELS = ["A", "B", "resnet", "mlp_2", "Model C"]
#: What may stand before the models' columns of a wide file: nothing, an id, the row index
#: pandas writes, or the names of the data sets.
EXTRAS = ["none", "seed", "dataset_id", "index", "names"]


@st.composite
def research_files(draw):
    """A wide file (a column per model) or a long log (one row per run, in completion order)
    of k models and n runs or data sets, with the habits of real files: ids, an index column,
    a delimiter ending the lines, ';' and decimal commas, Excel's sep= line, comments."""
    k, n = draw(st.integers(2, 4)), draw(st.integers(4, 7))
    models = draw(st.permutations(MODELS))[:k]
    scale = draw(st.sampled_from([1e-4, 1e-3]))  # accuracies in (0, 1), or losses up to 10
    scores = {m: np.array(draw(st.lists(st.integers(1, 9999), min_size=n, max_size=n,
                                        unique=True))) * scale for m in models}
    delimiter = draw(st.sampled_from([",", ";", "\t"]))
    decimal = draw(st.sampled_from([".", ","])) if delimiter != "," else "."
    trailing, long = draw(st.booleans()), draw(st.booleans())

    def cell(x):
        return f"{x:.4f}".replace(".", decimal)

    if long:
        header = ["model", "seed", "score"]
        rows = [[m, str(s), cell(scores[m][s])] for m in models for s in range(n)]
        rows = [rows[i] for i in draw(st.permutations(range(len(rows))))]
        extra = "long"
    else:
        extra = draw(st.sampled_from(EXTRAS))
        ids = {"none": [], "seed": [str(s) for s in draw(st.permutations(range(10, 10 + n)))],
               "dataset_id": [str(i + 1) for i in range(n)], "index": [str(i) for i in range(n)],
               "names": [f"data{i}" for i in range(n)]}[extra]
        header = ({"none": [], "index": [""]}.get(extra, [extra])) + models
        rows = [([ids[i]] if ids else []) + [cell(scores[m][i]) for m in models]
                for i in range(n)]
    lines = [delimiter.join(header) + delimiter * (trailing and draw(st.booleans()))]
    lines += [delimiter.join(row) + delimiter * trailing for row in rows]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, 1)), "# exported from the cluster")
    if delimiter == ";" and draw(st.booleans()):
        lines.insert(0, "sep=;")
    return "\n".join(lines) + "\n", scores, long, extra


def _run(argv):
    """Exit status, stdout and stderr of ``evalmc ARGV``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _refused(result, *words):
    code, out, err = result
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("evalmc: error: ") and all(w in err for w in words), err


def _mean_ranks(scores, best):
    table = np.column_stack(list(scores.values()))
    return stats.rankdata(-table if best == "max" else table, axis=1).mean(axis=0)


def _boo_n(x, n, best):
    """E[best of n runs drawn with replacement]: the order statistics' weights."""
    x = np.sort(x if best == "max" else -x)
    cdf = (np.arange(x.size + 1) / x.size) ** n
    return float(np.sum(x * np.diff(cdf))) * (1 if best == "max" else -1)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file=research_files(), best=st.sampled_from(["max", "min"]))
def test_every_command_reads_the_intended_columns_or_refuses(file, best):
    text, scores, long, extra = file
    models = list(scores)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "runs.csv"
        path.write_text(text)
        as_wide = ["--model", "model", "--score", "score"] if long else []

        if long:  # read as it is, a long log would pool the models: refused
            for argv in (["describe"], ["ranks"], ["boon", "--n", "3"]):
                _refused(_run([argv[0], path, *argv[1:]]), "looks like one row per run",
                         "'model' repeats its values")
            with pytest.raises(ValueError, match="looks like one row per run") as err:
                read_scores(str(path))
            assert "\n" not in str(err.value)

        code, out, err = _run(["describe", path, *as_wide, "--best", best, "--format", "json"])
        assert code == 0, err
        rows = {row["column"]: row for row in json.loads(out)}
        assert sorted(rows) == sorted(models)
        for m, x in scores.items():
            assert rows[m]["n"] == x.size
            assert rows[m]["mean"] == pytest.approx(x.mean(), rel=1e-12)
            assert rows[m]["sd"] == pytest.approx(x.std(ddof=1), rel=1e-12)
            assert rows[m]["median"] == pytest.approx(np.median(x), rel=1e-12)
            flag = (x.mean() - x.std(ddof=1) < x.min() if best == "min"
                    else x.mean() + x.std(ddof=1) > x.max())
            assert rows[m][next(key for key in rows[m] if key.startswith("mean_"))] == flag

        pair_by = ["--pair-by", "seed"] if long else []
        result = _run(["ranks", path, *as_wide, *pair_by, "--best", best, "--format", "json"])
        table = np.column_stack(list(scores.values()))
        if (table == table[:, :1]).all():
            _refused(result, "tie on every one of the")
        else:
            code, out, err = result
            assert code == 0, err
            res = json.loads(out)
            assert (res["models"], res["data_sets"]) == (len(models), table.shape[0])
            expected = dict(zip(models, _mean_ranks(scores, best), strict=True))
            for pair in res["pairs"]:
                assert pair["rank_i"] == pytest.approx(expected[pair["model_i"]])
                assert pair["rank_j"] == pytest.approx(expected[pair["model_j"]])
            if len(models) >= 3:
                ref = stats.friedmanchisquare(*table.T)
                assert res["friedman_chi2"] == pytest.approx(ref.statistic, rel=1e-9)

        model = models[-1]
        test = ["--test", model]
        code, out, err = _run(["boon", path, *as_wide, *test, "--n", "3", "--best", best,
                               "--resamples", "20", "--format", "json"])
        assert code == 0, err
        record = json.loads(out)
        assert record["m"] == scores[model].size
        assert record["mean"] == pytest.approx(scores[model].mean(), rel=1e-12)
        assert record["nonparametric"] == pytest.approx(_boo_n(scores[model], 3, best),
                                                        rel=1e-9)
        if not long:
            _refused(_run(["boon", path, "--n", "3"]), "`--test` must name the column")
            np.testing.assert_allclose(read_scores(str(path), model), scores[model],
                                       rtol=1e-15)

        a_name, b_name = models[0], models[1]
        a, b = scores[a_name], scores[b_name]
        argv = ["compare", path, *as_wide, "--a", a_name, "--b", b_name, "--best", best,
                "--resamples", "20", "--format", "json"]
        if long:  # a long log's order is not its seeds': refused without --pair-by
            _refused(_run(argv), "`--pair-by` is needed", "'seed'")
            argv += ["--pair-by", "seed"]
        code, out, err = _run(argv)
        assert code == 0, err
        res = json.loads(out)
        wins = (a > b) if best == "max" else (a < b)
        assert (res["k"], res["wins"], res["ties"]) == (a.size, wins.sum(), (a == b).sum())
        assert res["mean_difference"] == pytest.approx((a - b).mean(), rel=1e-9, abs=1e-12)
        t_test = next(t for t in res["tests"] if t["test"] == "paired-t")
        if np.ptp(a - b) > 0:
            assert t_test["p_value"] == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
