"""Item-level results in: tables of one's own, lm-evaluation-harness and inspect_ai logs.

Each reader is checked on the example logs of ``tests/examples`` against a plain reading of the
same file, and each kind of bad file on its one error naming the row and the field.
"""

import json
import shutil
import struct
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalmc.inputs.itemlogs import (
    COLUMNS,
    detect_format,
    lm_eval_model,
    paired_items,
    read_items,
    stack_items,
)

EXAMPLES = Path(__file__).parent / "examples"
LM_EVAL = EXAMPLES / "lm_eval"
SMALL = LM_EVAL / "EleutherAI__pythia-160m"
LARGE = LM_EVAL / "EleutherAI__pythia-410m"
INSPECT = EXAMPLES / "inspect"
INSPECT_JSON = next(INSPECT.glob("*.json"))
INSPECT_EVAL = next(INSPECT.glob("*.eval"))


def _one(folder: Path, pattern: str) -> Path:
    (path,) = folder.glob(pattern)
    return path


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _expected(model, rows) -> pd.DataFrame:
    """The table read plainly: (item, sample, cluster, score) rows of one model, sorted."""
    frame = pd.DataFrame(rows, columns=["item", "sample", "cluster", "score"])
    frame.insert(0, "model", model)
    frame["item"] = frame["item"].astype(str)
    frame["key"] = [(0, int(i), "") if i.isdigit() else (1, 0, i) for i in frame["item"]]
    frame = frame.sort_values(["key", "sample"]).drop(columns="key").reset_index(drop=True)
    return frame.astype({"model": object, "item": object, "sample": np.int64,
                         "cluster": object, "score": float})


def _same(found: pd.DataFrame, expected: pd.DataFrame):
    assert list(found.columns) == list(COLUMNS)
    pd.testing.assert_frame_equal(found.reset_index(drop=True), expected, check_dtype=False)
    assert found["sample"].dtype == np.int64 and found["score"].dtype == float


# --------------------------------------------------------------------------- the examples


def test_make_writes_the_shipped_example_logs(tmp_path):
    subprocess.run([sys.executable, str(EXAMPLES / "make_itemlogs.py"), str(tmp_path)],
                   check=True)
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    shipped = sorted(p.relative_to(EXAMPLES) for folder in ("lm_eval", "inspect")
                     for p in (EXAMPLES / folder).rglob("*") if p.is_file())
    assert made == shipped
    for name in made:
        assert (tmp_path / name).read_bytes() == (EXAMPLES / name).read_bytes(), name


# --------------------------------------------------------------------------- lm-eval


@pytest.mark.parametrize("folder", [SMALL, LARGE])
def test_lm_eval_samples_read_as_logged(folder):
    path = _one(folder, "samples_arc_easy_*.jsonl")
    results = json.loads(_one(folder, "results_*.json").read_text())
    found = read_items(path, metric="acc")
    rows = [(line["doc_id"], 0, str(line["doc_id"]), line["acc"]) for line in _lines(path)]
    _same(found, _expected(results["model_name"], rows))
    assert len(found) == 20
    assert found.attrs["metric"] == "acc,none" and found.attrs["format"] == "lm-eval"
    assert found["score"].mean() == pytest.approx(results["results"]["arc_easy"]["acc,none"])
    assert detect_format(path) == "lm-eval"


def test_lm_eval_filter_is_chosen_with_the_metric():
    path = _one(SMALL, "samples_gsm8k_*.jsonl")
    for name in ("strict-match", "flexible-extract"):
        found = read_items(path, metric=f"exact_match,{name}")
        rows = [(line["doc_id"], 0, str(line["doc_id"]), line["exact_match"])
                for line in _lines(path) if line["filter"] == name]
        _same(found, _expected("EleutherAI/pythia-160m", rows))
    with pytest.raises(ValueError, match=r"samples_gsm8k_.*\.jsonl: the samples hold 2 filters "
                       r"\(strict-match, flexible-extract\); choose one with `metric`, as in "
                       r"'exact_match,strict-match'"):
        read_items(path)
    with pytest.raises(ValueError, match="no sample of filter 'none'; filters present"):
        read_items(path, metric="exact_match,none")


def test_lm_eval_model_from_the_folder_without_results(tmp_path):
    folder = tmp_path / "EleutherAI__pythia-410m"
    folder.mkdir()
    path = shutil.copy(_one(LARGE, "samples_arc_easy_*.jsonl"), folder)
    assert lm_eval_model(path) == "EleutherAI__pythia-410m"
    assert set(read_items(path, metric="acc_norm")["model"]) == {"EleutherAI__pythia-410m"}
    assert set(read_items(path, metric="acc", model="pythia")["model"]) == {"pythia"}


def test_lm_eval_cluster_is_a_field_of_the_doc():
    path = _one(SMALL, "samples_arc_easy_*.jsonl")
    found = read_items(path, metric="acc", cluster="answerKey")
    keys = {str(line["doc_id"]): line["doc"]["answerKey"] for line in _lines(path)}
    assert found["cluster"].tolist() == [keys[i] for i in found["item"]]
    assert found.attrs["cluster"] == "answerKey"
    with pytest.raises(ValueError, match=r"line 1: `doc` has no field `subject` \(cluster\); "
                       "its fields: id, question, choices, answerKey"):
        read_items(path, metric="acc", cluster="subject")


def _bad_lm_eval(tmp_path, edit) -> Path:
    """The small model's arc_easy log, its lines edited by `edit` (list -> list of str)."""
    source = _one(SMALL, "samples_arc_easy_*.jsonl")
    folder = tmp_path / "EleutherAI__pythia-160m"
    folder.mkdir()
    path = folder / source.name
    path.write_text("\n".join(edit(source.read_text().splitlines())) + "\n")
    return path


def _drop_acc(lines, number=7):
    record = json.loads(lines[number - 1])
    del record["acc"]
    record["metrics"] = ["acc_norm"]
    lines[number - 1] = json.dumps(record)
    return lines


def _set(number, field, value):
    def edit(lines):
        record = json.loads(lines[number - 1])
        record[field] = value
        lines[number - 1] = json.dumps(record)
        return lines
    return edit


@pytest.mark.parametrize(("edit", "message"), [
    (lambda lines: lines[:4] + ['{"doc_id": 4, "doc": {'] + lines[5:],
     r"line 5: not valid JSON \(Expecting property name enclosed in double quotes at column "
     r"23\)\."),
    (_drop_acc, r"line 7: field `acc` missing; metrics present: acc_norm \(choose one with "
                r"`metric`\)\."),
    (_set(3, "acc", [1, 2]), r"line 3: metric `acc` holds \[1, 2\], not a score of its own"),
    (_set(3, "acc", "high"), r"line 3: field `acc` must be a number; got 'high'\."),
    (lambda lines: lines + lines[2:3], r"line 21 repeats samples_arc_easy_.*\.jsonl line 3: "
                                       r"model 'EleutherAI__pythia-160m', item '2', sample 0 "
                                       "twice"),
    (_set(5, "acc", None), r"line 5: no score `acc,none` \(missing\)"),
])
def test_a_bad_lm_eval_log_names_its_line_and_field(tmp_path, edit, message):
    with pytest.raises(ValueError, match=r"^samples_arc_easy_.*\.jsonl " + message):
        read_items(_bad_lm_eval(tmp_path, edit), metric="acc")


def test_lm_eval_numpy_values_written_as_text_are_read(tmp_path):
    path = _bad_lm_eval(tmp_path, _set(2, "acc", "True"))  # handle_non_serializable(np.True_)
    assert read_items(path, metric="acc").set_index("item").loc["1", "score"] == 1.0


def test_missing_scores_can_be_dropped_and_listed(tmp_path):
    path = _bad_lm_eval(tmp_path, _set(5, "acc", None))
    found = read_items(path, metric="acc", dropna=True)
    assert len(found) == 19 and "4" not in set(found["item"])
    assert found.attrs["dropped"] == [f"{path.name} line 5"]


# --------------------------------------------------------------------------- inspect_ai


def _inspect_expected(log: dict, samples) -> pd.DataFrame:
    letters = {"C": 1.0, "I": 0.0}
    rows = [(s["id"], s["epoch"], s["metadata"]["subject"],
             letters[s["scores"]["choice"]["value"]]) for s in samples]
    return _expected(log["eval"]["model"], rows)


def test_inspect_json_log_reads_as_logged():
    log = json.loads(INSPECT_JSON.read_text())
    found = read_items(INSPECT_JSON, cluster="subject")
    _same(found, _inspect_expected(log, log["samples"]))
    assert len(found) == 24 and set(found["sample"]) == {1, 2}  # epochs become samples
    assert found.attrs["metric"] == "choice" and detect_format(INSPECT_JSON) == "inspect"


def test_inspect_eval_archive_reads_as_logged():
    with zipfile.ZipFile(INSPECT_EVAL) as archive:
        header = json.loads(archive.read("header.json"))
        samples = [json.loads(archive.read(n)) for n in archive.namelist()
                   if n.startswith("samples/")]
    found = read_items(INSPECT_EVAL, metric="choice", cluster="subject")
    _same(found, _inspect_expected(header, samples))
    assert found["cluster"].nunique() == 3


def _rewrite_archive(source: Path, target: Path, skip=(), add=()) -> Path:
    """A copy of an .eval archive without the members `skip` and with `add` appended."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            if info.filename not in skip:
                new.writestr(info, old.read(info))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # a duplicate name, as inspect writes
            for name, data in add:
                new.writestr(name, json.dumps(data))
    return target


def test_inspect_archive_under_way_and_relogged_samples(tmp_path):
    with zipfile.ZipFile(INSPECT_EVAL) as archive:
        sample = json.loads(archive.read("samples/3_epoch_2.json"))
    sample["scores"]["choice"]["value"] = "P"
    path = _rewrite_archive(INSPECT_EVAL, tmp_path / "run.eval", skip={"header.json"},
                            add=[("samples/3_epoch_2.json", sample)])
    found = read_items(path).set_index(["item", "sample"])
    assert found.loc[("3", 2), "score"] == 0.5  # the last entry of a re-logged sample
    assert set(found["model"]) == {"anthropic/claude-3-5-haiku-latest"}  # _journal/start.json
    assert len(found) == 24


def test_inspect_values_read_as_value_to_float(tmp_path):
    log = json.loads(INSPECT_JSON.read_text())
    values = ["C", "I", "P", "N", True, 0.25, 3, "yes", "False", "0.75"]
    samples = log["samples"]
    log["samples"] = [dict(samples[i], scores={"s": {"value": v}}) for i, v in enumerate(values)]
    path = tmp_path / "values.json"
    path.write_text(json.dumps(log))
    assert read_items(path)["score"].tolist() == [1.0, 0.0, 0.5, 0.0, 1.0, 0.25, 3.0, 1.0,
                                                  0.0, 0.75]
    log["samples"] = [dict(samples[i], scores={"s": {"value": {"a": 1, "b": i / 4}}})
                      for i in range(3)]
    path.write_text(json.dumps(log))
    assert read_items(path, metric="s:b")["score"].tolist() == [0.0, 0.25, 0.5]
    assert read_items(path, metric="s:b").attrs["metric"] == "s:b"
    with pytest.raises(ValueError, match=r"^values\.json sample 1 epoch 1: field "
                       r"`scores\.s\.value` is a dict of a, b; choose one with `metric`, as "
                       r"in 's:a'\.$"):
        read_items(path)
    with pytest.raises(ValueError, match=r"^values\.json sample 1 epoch 1: field "
                       r"`scores\.s\.value` has no key `c`; keys present: a, b\.$"):
        read_items(path, metric="s:c")


def _bad_inspect(tmp_path, edit) -> Path:
    log = json.loads(INSPECT_JSON.read_text())
    edit(log["samples"])
    path = tmp_path / "mmlu.json"
    path.write_text(json.dumps(log))
    return path


def _score(number, value):
    def edit(samples):
        samples[number]["scores"]["choice"]["value"] = value
    return edit


def _fail(samples):
    samples[4].update(scores=None, error={"message": "RateLimitError('429')",
                                          "traceback": "", "traceback_ansi": ""})


@pytest.mark.parametrize(("edit", "message"), [
    (_score(2, "X"), r"sample 3 epoch 1: field `scores\.choice\.value` is 'X'; a score is a "
                     r"number, a boolean, or one of C, P, I, N"),
    (_score(2, [1, 0]), r"sample 3 epoch 1: field `scores\.choice\.value` is \[1, 0\]"),
    (_fail, r"sample 5 epoch 1: no score `choice` \(missing; the sample failed: "
            r"RateLimitError\('429'\)\); with dropna=True"),
    (lambda s: s[1].update(scores={"match": {"value": "C"}}),
     r"sample 2 epoch 1: no score `choice`; scorers present: match"),
    (lambda s: s[13].update(id=1),
     r"sample 1 epoch 2: logged twice \(samples\[12\] and samples\[13\]\): model "),
    (lambda s: s[12]["metadata"].update(subject="anatomy"),
     r"sample 1 epoch 2: item '1' is in cluster 'anatomy', but in 'astronomy' at mmlu\.json "
     "sample 1 epoch 1"),
    (lambda s: s[3].pop("epoch"), r"samples\[3\]: field `epoch` missing"),
])
def test_a_bad_inspect_log_names_its_sample_and_field(tmp_path, edit, message):
    path = _bad_inspect(tmp_path, edit)
    with pytest.raises(ValueError, match=r"^mmlu\.json " + message):
        read_items(path, metric="choice", cluster="subject")


def test_a_failed_inspect_sample_can_be_dropped(tmp_path):
    found = read_items(_bad_inspect(tmp_path, _fail), dropna=True)
    assert len(found) == 23 and found.attrs["dropped"] == ["mmlu.json sample 5 epoch 1"]


def test_a_scorer_name_may_hold_a_colon(tmp_path):
    log = json.loads(INSPECT_JSON.read_text())
    for sample in log["samples"]:
        sample["scores"] = {"judge:v2": sample["scores"]["choice"]}
    path = tmp_path / "colon.json"
    path.write_text(json.dumps(log))
    assert read_items(path, metric="judge:v2")["score"].tolist() == read_items(
        INSPECT_JSON)["score"].tolist()


def test_an_lm_eval_results_file_reads_the_samples_beside_it(tmp_path):
    results = _one(SMALL, "results_*.json")
    assert detect_format(results) == "lm-eval-results"
    with pytest.raises(ValueError, match=r"^samples_gsm8k_.*\.jsonl: the samples hold 2 filters "
                       r"\(strict-match, flexible-extract\); choose one with `metric`, as in "
                       r"'acc,strict-match'\. \(Or leave task 'gsm8k' out: name the tasks to read "
                       r"with `tasks`, --task on the command line\.\)$"):
        read_items(results, metric="acc")
    found = read_items(results, metric="acc", tasks=["arc_easy"], cluster="task")
    alone = read_items(_one(SMALL, "samples_arc_easy_*.jsonl"), metric="acc")
    assert found["item"].tolist() == [f"arc_easy/{i}" for i in alone["item"]]
    assert found["score"].tolist() == alone["score"].tolist()
    assert set(found["cluster"]) == {"arc_easy"} and found.attrs["tasks"] == ["arc_easy"]
    moved = tmp_path / results.name
    moved.write_bytes(results.read_bytes())
    with pytest.raises(ValueError, match=r"^results_.*\.json: an lm-evaluation-harness results "
                       r"file, without its samples beside it \(samples_<task>_2024-05-01T10-12-31"
                       r"\.483571\.jsonl\); lm_eval writes them with --log_samples\.$"):
        read_items(moved)
    with pytest.raises(ValueError, match=r"^results_.*\.json: not an inspect_ai log \(no field "
                       r"`eval`\)\. It is an lm-evaluation-harness results file; its scores per "
                       r"item are in the samples_<task>_<date>\.jsonl beside it"):
        read_items(results, fmt="inspect")


def test_a_malformed_inspect_log(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text(INSPECT_JSON.read_text()[:500])
    with pytest.raises(ValueError, match=r"^cut\.json: not valid JSON \(.* at line \d+ column"):
        read_items(path)
    member = tmp_path / "member.eval"
    with zipfile.ZipFile(INSPECT_EVAL) as archive:
        sample = archive.read("samples/2_epoch_1.json")
    _rewrite_archive(INSPECT_EVAL, member, skip={"samples/2_epoch_1.json"})
    with zipfile.ZipFile(member, "a") as archive:
        archive.writestr("samples/2_epoch_1.json", sample[:-10])
    with pytest.raises(ValueError, match=r"^member\.eval samples/2_epoch_1\.json: not valid "
                       "JSON"):
        read_items(member)


def test_a_zstandard_archive_is_read_with_zstandard(tmp_path, monkeypatch):
    """inspect_ai >= 0.3.206 writes .eval members with Zstandard (zip method 93), as here with
    ``zstandard`` patched into zipfile as inspect_ai's ``_util/zipfile.py`` does."""
    zstandard = pytest.importorskip("zstandard")
    path = tmp_path / "zstd.eval"
    with monkeypatch.context() as patch:
        original = zipfile._get_compressor
        patch.setattr(zipfile, "_check_compression", lambda method: None)
        patch.setattr(zipfile, "_get_compressor", lambda method, level=None: (
            zstandard.ZstdCompressor(level=3).compressobj() if method == 93
            else original(method, level)))
        with zipfile.ZipFile(INSPECT_EVAL) as old, zipfile.ZipFile(path, "w") as new:
            for info in old.infolist():
                new.writestr(info.filename, old.read(info), compress_type=93)
    with zipfile.ZipFile(path) as archive:
        assert {i.compress_type for i in archive.infolist()} == {93}
    pd.testing.assert_frame_equal(read_items(path, cluster="subject"),
                                  read_items(INSPECT_EVAL, cluster="subject"))


def test_a_zstandard_archive_without_zstandard_says_how_to_read_it(tmp_path, monkeypatch):
    """inspect_ai >= 0.3.206 compresses with Zstandard (zip method 93), which Python reads from
    3.14 on: the member's method is patched to 93 in both its headers."""
    data = bytearray(INSPECT_EVAL.read_bytes())
    with zipfile.ZipFile(INSPECT_EVAL) as archive:
        local, central = archive.getinfo("header.json").header_offset, archive.start_dir
    data[local + 8:local + 10] = (93).to_bytes(2, "little")
    while data[central:central + 4] == b"PK\x01\x02":
        n, m, k = struct.unpack("<HHH", data[central + 28:central + 34])
        if data[central + 46:central + 46 + n] == b"header.json":
            data[central + 10:central + 12] = (93).to_bytes(2, "little")
        central += 46 + n + m + k
    path = tmp_path / "zstd.eval"
    path.write_bytes(bytes(data))
    monkeypatch.setitem(sys.modules, "zstandard", None)
    if sys.version_info < (3, 14):
        with pytest.raises(ValueError, match=r"^zstd\.eval: compressed with Zstandard .*install "
                           r"the `zstandard` package, or convert it with `inspect log convert "
                           r"--to json`\.$"):
            read_items(path)


# --------------------------------------------------------------------------- tables


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(27)
    rows = [(m, str(i), s, f"c{i % 3}", float(rng.integers(0, 2)) if m == "A" else
             round(float(rng.random()), 3))
            for m in ("A", "B") for i in range(12) for s in range(3)]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def test_a_long_csv_round_trips(tmp_path):
    table = _table()
    path = tmp_path / "items.csv"
    table.sample(frac=1.0, random_state=1).to_csv(path, index=False)
    found = read_items(path, sample="sample", cluster="cluster")
    pd.testing.assert_frame_equal(found, table, check_dtype=False)
    assert found.attrs["format"] == "csv"
    renamed = table.rename(columns={"model": "system", "item": "question", "score": "correct"})
    renamed.drop(columns=["sample", "cluster"])[table["sample"] == 0].to_csv(
        path.with_suffix(".tsv"), sep="\t", index=False)
    again = read_items(path.with_suffix(".tsv"), model="system", item="question",
                       metric="correct")
    assert again["cluster"].tolist() == again["item"].tolist()
    np.testing.assert_array_equal(again["score"], table[table["sample"] == 0]["score"])


def test_a_long_jsonl_round_trips(tmp_path):
    table = _table()
    path = tmp_path / "items.jsonl"
    table.to_json(path, orient="records", lines=True)
    assert detect_format(path) == "jsonl"
    pd.testing.assert_frame_equal(read_items(path, sample="sample", cluster="cluster"), table,
                                  check_dtype=False)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("items.csv", "model,item,score\nA,1,1\nA,2,0\nA,1,0\n",
     r"^items\.csv data row 3 repeats items\.csv data row 1: model 'A', item '1', sample 0 "
     r"twice; each \(model, item, sample\) may hold one score\.$"),
    ("items.csv", "model,item,acc\nA,1,1\n",
     r"^items\.csv data row 1: field `score` \(metric\) missing; fields present: model, item, "
     r"acc \(name the metric with `metric`\)\.$"),
    ("items.csv", "model,item,score\nA,1,1\nA,2,yes please\n",
     r"^items\.csv data row 2: field `score` must be a number; got 'yes please'\.$"),
    ("items.csv", "model,item,score\nA,1,1\nA,,0\n", r"^items\.csv data row 2: field `item` is "
                                                      r"empty\.$"),
    ("items.jsonl", '{"model": "A", "item": 1, "score": 1}\n{"model": "A", "item": 2}\n',
     r"^items\.jsonl line 2: field `score` \(metric\) missing; fields present: model, item "),
    ("items.jsonl", '{"model": "A", "item": 1, "score": 1, "sample": 0.5}\n',
     r"^items\.jsonl line 1: field `sample` \(sample\) must be an integer; got 0\.5\.$"),
    ("items.jsonl", '{"model": "A", "item": 1, "score": 1}\n[1, 2]\n',
     r"^items\.jsonl line 2: a JSON object is needed; got list\.$"),
])
def test_a_bad_table_names_its_row_and_field(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_items(path, sample="sample" if "sample" in text else None)


# --------------------------------------------------------------------------- pairs


def test_paired_items_of_two_harness_logs():
    table = stack_items([read_items(INSPECT_JSON, cluster="subject"),
                         read_items(INSPECT_EVAL, cluster="subject")])
    pair = paired_items(table, "openai/gpt-4o-mini", "anthropic/claude-3-5-haiku-latest")
    assert pair.items == [str(i) for i in range(1, 13)] and pair.dropped == {}
    assert pair.a.shape == pair.b.shape == (12, 2)
    log = json.loads(INSPECT_JSON.read_text())
    plain = {(s["id"], s["epoch"]): float(s["scores"]["choice"]["value"] == "C")
             for s in log["samples"]}
    assert pair.a.tolist() == [[plain[(i, 1)], plain[(i, 2)]] for i in range(1, 13)]
    assert pair.clusters[:4] == ["astronomy"] * 4

    arc = stack_items([read_items(_one(folder, "samples_arc_easy_*.jsonl"), metric="acc")
                       for folder in (SMALL, LARGE)])
    pair = paired_items(arc, "EleutherAI/pythia-410m", "EleutherAI/pythia-160m")
    assert pair.a.shape == (20, 1) and pair.a.mean() > pair.b.mean()


def test_models_with_different_items_are_refused_or_cut_to_the_common_ones():
    table = stack_items([read_items(_one(SMALL, "samples_arc_easy_*.jsonl"), metric="acc"),
                         read_items(_one(SMALL, "samples_gsm8k_*.jsonl"),
                                    metric="exact_match,flexible-extract", model="gsm")])
    a, b = "EleutherAI/pythia-160m", "gsm"
    with pytest.raises(ValueError, match=r"^models 'EleutherAI/pythia-160m' and 'gsm' must be "
                       r"scored on the same items to be paired: 'EleutherAI/pythia-160m' has "
                       r"20, 'gsm' 6, 6 in common \(14 only in 'EleutherAI/pythia-160m', 0 only "
                       r"in 'gsm', e\.g\. '6'\); common=True \(--common on the command line\) "
                       r"keeps the common ones\.$"):
        paired_items(table, a, b)
    pair = paired_items(table, a, b, common=True)
    assert pair.items == [str(i) for i in range(6)] and pair.dropped == {a: 14}
    with pytest.raises(ValueError, match=r"`b` 'C' is not a model of the table; its models: "):
        paired_items(table, a, "C")


def test_paired_items_need_the_same_samples_on_every_item():
    table = _table()
    table = table.drop(index=table.index[(table["model"] == "B") & (table["item"] == "4")
                                         & (table["sample"] == 2)])
    with pytest.raises(ValueError, match=r"^model 'B' has no sample 2 of item '4' \(its "
                       r"samples: 0, 1, 2\); each item needs the same samples\.$"):
        paired_items(table, "A", "B")


def test_stacking_the_same_run_twice_is_refused():
    table = read_items(INSPECT_JSON)
    with pytest.raises(ValueError, match=r"\(table 2\) row 1 repeats .*\(table 1\) row 1: "
                       "model 'openai/gpt-4o-mini', item '1', sample 1 twice"):
        stack_items([table, table])
    assert len(stack_items([table, table.assign(sample=table["sample"] + 2)])) == 48


def test_detect_format_needs_a_known_name(tmp_path):
    with pytest.raises(ValueError, match=r"^items\.parquet: cannot tell the format"):
        detect_format(tmp_path / "items.parquet")


def test_tasks_of_one_model_stack_with_their_names():
    tables = [read_items(_one(SMALL, "samples_arc_easy_*.jsonl"), metric="acc"),
              read_items(_one(SMALL, "samples_gsm8k_*.jsonl"),
                         metric="exact_match,flexible-extract")]
    assert [t.attrs["task"] for t in tables] == ["arc_easy", "gsm8k"]
    with pytest.raises(ValueError, match=r"samples_gsm8k_.*\.jsonl \(table 2\) row 1 repeats "
                       r"samples_arc_easy_.*\.jsonl \(table 1\) row 1: model "):
        stack_items(tables)
    table = stack_items(tables, tasks=[t.attrs["task"] for t in tables])
    assert len(table) == 26 and table.attrs["metric"] is None
    assert table["item"].tolist()[:3] == ["arc_easy/0", "arc_easy/1", "arc_easy/2"]
    assert table["item"].tolist()[19:21] == ["arc_easy/19", "gsm8k/0"]
    assert (table["cluster"] == table["item"]).all()
    assert read_items(INSPECT_EVAL).attrs["task"] == "mmlu_0_shot"


def test_an_inspect_log_without_samples_or_header(tmp_path):
    log = json.loads(INSPECT_JSON.read_text())
    del log["samples"]
    path = tmp_path / "header_only.json"
    path.write_text(json.dumps(log))
    with pytest.raises(ValueError, match=r"^header_only\.json: the log holds no samples \(was "
                       r"it written with --no-log-samples\?\)\.$"):
        read_items(path)
    bare = _rewrite_archive(INSPECT_EVAL, tmp_path / "bare.eval",
                            skip={"header.json", "_journal/start.json"})
    with pytest.raises(ValueError, match=r"^bare\.eval: not an inspect_ai log \(no header\.json "
                       r"or _journal/start\.json\)\.$"):
        read_items(bare)


def test_lm_eval_model_from_the_model_args_of_the_results(tmp_path):
    folder = tmp_path / "EleutherAI__pythia-160m"
    folder.mkdir()
    samples = folder / "samples_arc_easy_2024-05-01T10-00-00.123456.jsonl"
    results = folder / "results_2024-05-01T10-00-00.123456.json"
    results.write_text(json.dumps({"config": {
        "model": "hf", "model_args": "pretrained=EleutherAI/pythia-160m,dtype=float32"}}))
    assert lm_eval_model(samples) == "EleutherAI/pythia-160m"
    assert detect_format("scores.csv") == "csv"  # from the name alone


def test_tasks_prefix_the_items_and_the_clusters_that_are_items():
    run = pd.DataFrame({"model": ["A", "A"], "item": ["1", "2"], "sample": [0, 0],
                        "cluster": ["1", "2"], "score": [1.0, 0.0]})
    table = stack_items([run, run.assign(cluster="algebra")], tasks=["physics", "algebra"])
    assert table["item"].tolist() == ["algebra/1", "algebra/2", "physics/1", "physics/2"]
    assert table["cluster"].tolist() == ["algebra", "algebra", "physics/1", "physics/2"]
