"""Item-level logs as lm-evaluation-harness and inspect_ai wrote them (``tests/examples/logs``,
sources in its README): each layout read against a plain reading of the same file, each refusal
on its one message, and the options that tell runs apart, choose tasks and keep common items."""

import json
import re
import shutil
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from evalmc.cli import main
from evalmc.inputs.itemlogs import detect_format, lm_eval_model, paired_items, read_items

LOGS = Path(__file__).parent / "examples" / "logs"
V042 = LOGS / "lm_eval_0.4.2"
MAY = next((LOGS / "lm_eval_2024-05").iterdir())
JUNE = LOGS / "lm_eval_2024-06" / "meta-llama__Meta-Llama-3-8B"
V0413 = LOGS / "lm_eval_0.4.13" / "Qwen__Qwen3-8B"
INSPECT = LOGS / "inspect"
UNSCORED = INSPECT / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
FEBRUARY = INSPECT / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
MAY_JSON = INSPECT / "2025-05-12T20-28-13-04-00_popularity.json"
EPOCHS = INSPECT / "log_streaming.eval"
TWO_SCORERS = next(INSPECT.glob("*_two-scorers_*.eval"))
LETTERS = {"C": 1.0, "I": 0.0}


def _one(folder: Path, pattern: str) -> Path:
    (path,) = folder.glob(pattern)
    return path


def _plain(pairs, model) -> pd.DataFrame:
    """(item, sample, score) triples of one model as read_items orders them."""
    frame = pd.DataFrame(pairs, columns=["item", "sample", "score"]).assign(model=model)
    frame["item"] = frame["item"].astype(str)
    frame["key"] = [tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", i))
                    for i in frame["item"]]
    return frame.sort_values(["key", "sample"]).drop(columns="key").reset_index(drop=True)


def _same(found: pd.DataFrame, expected: pd.DataFrame):
    cols = ["model", "item", "sample", "score"]
    pd.testing.assert_frame_equal(found[cols].reset_index(drop=True), expected[cols],
                                  check_dtype=False)


def _archive_samples(path: Path) -> list[dict]:
    """The samples of an .eval archive; a member compressed with Zstandard (zip method 93) is
    cut from the file at its local header and decompressed with ``zstandard``."""
    data = path.read_bytes()
    with zipfile.ZipFile(path) as archive:
        infos = [i for i in archive.infolist() if i.filename.startswith("samples/")]
        if all(i.compress_type != 93 for i in infos):
            return [json.loads(archive.read(i)) for i in infos]
    zstandard = pytest.importorskip("zstandard")
    samples = []
    for info in infos:
        start = info.header_offset + 30 + int.from_bytes(
            data[info.header_offset + 26:info.header_offset + 28], "little") + int.from_bytes(
            data[info.header_offset + 28:info.header_offset + 30], "little")
        member = data[start:start + info.compress_size]
        samples.append(json.loads(zstandard.ZstdDecompressor().stream_reader(
            member, read_across_frames=True).read()))
    return samples


# --------------------------------------------------------------------------- lm-eval 0.4.0-0.4.2


def test_lm_eval_0_4_2_json_array_reads_as_written():
    """0.4.0 to 0.4.2 wrote each task's samples as one JSON array in a .jsonl file named after
    the model arguments; the model and the task come from results.json beside it."""
    path = V042 / "model__gpt-3.5-turbo-0125_wmdp_bio.jsonl"
    assert detect_format(path) == "lm-eval-array"
    samples = json.loads(path.read_text(encoding="utf-8"))
    found = read_items(path)
    _same(found, _plain([(s["doc_id"], 0, s["exact_match"]) for s in samples],
                        "gpt-3.5-turbo-0125"))
    assert found.attrs["task"] == "wmdp_bio" and found.attrs["metric"] == "exact_match,none"
    assert lm_eval_model(path) == "gpt-3.5-turbo-0125"


def test_lm_eval_0_4_2_results_and_folder_read_every_task_keyed_by_task():
    results = V042 / "results.json"
    assert detect_format(results) == "lm-eval-results" and detect_format(V042) == "lm-eval-folder"
    found = read_items(results, cluster="task")
    assert found.attrs["tasks"] == ["wmdp_bio", "wmdp_chem", "wmdp_cyber"]
    assert found["item"].tolist()[:6] == [f"wmdp_bio/{i}" for i in range(5)] + ["wmdp_chem/0"]
    assert found.groupby("cluster").size().to_dict() == {
        "wmdp_bio": 5, "wmdp_chem": 5, "wmdp_cyber": 5}
    folder = read_items(V042, cluster="task")
    pd.testing.assert_frame_equal(folder, found)
    assert folder.attrs["format"] == "lm-eval-folder"
    assert len(read_items(V042, tasks=["wmdp"])) == 15  # the group names its tasks
    chem = read_items(V042, tasks=["wmdp_chem"])
    assert set(chem["item"]) == {f"wmdp_chem/{i}" for i in range(5)}
    with pytest.raises(ValueError, match=r"^lm_eval_0\.4\.2: no task 'mmlu'; tasks present: "
                       r"wmdp_bio, wmdp_chem, wmdp_cyber \(groups: wmdp\)\.$"):
        read_items(V042, tasks=["mmlu"])


# --------------------------------------------------------------------------- lm-eval May 2024


def test_lm_eval_may_2024_array_names_its_filters_from_the_results():
    """May 2024: samples_<task>_<date>.json, an indented JSON array; a task with two filters
    logs each document once per filter without naming it, in the order of its filter_list."""
    path = _one(MAY, "samples_gsm8k_*.json")
    assert detect_format(path) == "lm-eval-array"
    samples = json.loads(path.read_text(encoding="utf-8"))
    names = [f["name"] for f in json.loads(_one(MAY, "results_*.json").read_text())[
        "configs"]["gsm8k"]["filter_list"]]
    for k, name in enumerate(names):
        part = samples[k * 3:(k + 1) * 3]
        _same(read_items(path, metric=f"exact_match,{name}"),
              _plain([(s["doc_id"], 0, s["exact_match"]) for s in part], "EleutherAI/pythia-160m"))
    with pytest.raises(ValueError, match=r"^samples_gsm8k_.*\.json: the samples hold 2 filters "
                       r"\(strict-match, flexible-extract\); choose one with `metric`, as in "
                       r"'exact_match,strict-match'\.$"):
        read_items(path)


def test_lm_eval_unnamed_filters_without_results_are_refused(tmp_path):
    path = Path(shutil.copy(_one(MAY, "samples_gsm8k_*.json"), tmp_path))
    with pytest.raises(ValueError, match=r"^samples_gsm8k_.*\.json entry 4: document 0 logged "
                       r"again, without a filter name \(lm-evaluation-harness before 0\.4\.7 logs "
                       r"a task's documents once per filter, in the order of the `filter_list` "
                       r"its results file holds\); no results file of its run was found beside "
                       r"it\.$"):
        read_items(path)


def test_lm_eval_may_2024_folder():
    found = read_items(MAY.parent, metric="acc", tasks=["arc_easy"])
    samples = json.loads(_one(MAY, "samples_arc_easy_*.json").read_text(encoding="utf-8"))
    _same(found, _plain([(f"arc_easy/{s['doc_id']}", 0, s["acc"]) for s in samples],
                        "EleutherAI/pythia-160m"))
    with pytest.raises(ValueError, match=r"^samples_arc_easy_.*\.json entry 1: 2 metrics \(acc, "
                       r"acc_norm\); choose one with `metric`\. \(Or leave task 'arc_easy' out: "
                       r"name the tasks to read with `tasks`, --task on the command line\.\)$"):
        read_items(MAY.parent)


# --------------------------------------------------------------------------- lm-eval June 2024


def test_lm_eval_june_2024_json_lines_in_a_json_file():
    path = _one(JUNE, "samples_*.json")
    assert detect_format(path) == "lm-eval"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    found = read_items(path, metric="acc_norm")
    _same(found, _plain([(s["doc_id"], 0, s["acc_norm"]) for s in lines],
                        "meta-llama/Meta-Llama-3-8B"))
    with pytest.raises(ValueError, match=r"line 1: metric `f1` holds \[1, 1\], not a score of "
                       "its own"):
        read_items(path, metric="f1")
    assert read_items(JUNE.parent, metric="acc")["item"].iloc[0] == "bias_classification/0"


# --------------------------------------------------------------------------- lm-eval 0.4.13


def _runs():
    return sorted(V0413.glob("results_*.json"))


def test_two_runs_of_one_model_in_one_folder_need_labels():
    first, second = _runs()
    with pytest.raises(ValueError, match=r"^Qwen__Qwen3-8B: two runs of model 'Qwen/Qwen3-8B' on "
                       r"task 'negotiationtom_belief' \(results_2026-07-08T16-04-34\.219874\.json, "
                       r"results_2026-07-08T18-15-33\.115417\.json\); label them apart with "
                       r"`labels`"):
        read_items(V0413, metric="acc", tasks=["negotiationtom_belief"])
    found = read_items(V0413, metric="acc", cluster="task",
                       tasks=["negotiationtom_belief", "negotiationtom_desire"],
                       labels={first.name: "Qwen3-8B 16:04", str(second): "Qwen3-8B 18:15"})
    assert sorted(set(found["model"])) == ["Qwen3-8B 16:04", "Qwen3-8B 18:15"]
    for results, model in ((first, "Qwen3-8B 16:04"), (second, "Qwen3-8B 18:15")):
        date = results.stem.removeprefix("results_")
        rows = [(f"{task}/{s['doc_id']}", 0, s["acc"]) for task in (
            "negotiationtom_belief", "negotiationtom_desire")
            for s in map(json.loads, (V0413 / f"samples_{task}_{date}.jsonl").read_text(
                encoding="utf-8").splitlines())]
        _same(found[found["model"] == model], _plain(rows, model))
    pair = paired_items(found, "Qwen3-8B 16:04", "Qwen3-8B 18:15")
    assert pair.clusters == ["negotiationtom_belief"] * 4 + ["negotiationtom_desire"] * 4
    with pytest.raises(ValueError, match=r"^`labels`: 'results_2026-07-08T00-00-00\.json' is no "
                       r"file or folder read from "):
        read_items(V0413, metric="acc", tasks=["negotiationtom_belief"],
                   labels={first.name: "a", second.name: "b",
                           "results_2026-07-08T00-00-00.json": "c"})


def test_a_run_read_by_its_results_file_and_its_group():
    first = _runs()[0]
    found = read_items(first, metric="exact_match", tasks=["negotiationtom_intention"])
    assert found["item"].tolist() == [f"negotiationtom_intention/{i}" for i in range(4)]
    with pytest.raises(ValueError, match=r"^samples_negotiationtom_intention_.*\.jsonl line 1: "
                       r"field `acc` missing; metrics present: micro_f1, macro_f1, exact_match "
                       r"\(choose one with `metric`\)\. \(Or leave task "
                       r"'negotiationtom_intention' out: name the tasks to read with `tasks`, "
                       r"--task on the command line\.\)$"):
        read_items(first, metric="acc", tasks=["negotiationtom"])  # the group: its 3 tasks


# --------------------------------------------------------------------------- inspect_ai


def test_inspect_epochs_are_samples():
    samples = _archive_samples(EPOCHS)
    found = read_items(EPOCHS)
    _same(found, _plain([(s["id"], s["epoch"], LETTERS[s["scores"]["match"]["value"]])
                         for s in samples], "azureai/Meta-Llama-3-1-405B-Instruct-jqf"))
    assert found["sample"].tolist() == [1, 2, 1, 2]


def test_inspect_two_scorers_name_the_choice():
    if sys.version_info < (3, 14):  # Python reads Zstandard zip members from 3.14 on
        pytest.importorskip("zstandard")
    with pytest.raises(ValueError, match=r"_two-scorers_.*\.eval: 2 scorers \(match, includes\); "
                       r"choose one with `metric` \(--metric on the command line\), as in "
                       r"metric='match'\.$"):
        read_items(TWO_SCORERS)
    samples = _archive_samples(TWO_SCORERS)
    for scorer in ("match", "includes"):
        found = read_items(TWO_SCORERS, metric=scorer, cluster="topic")
        _same(found, _plain([(s["id"], s["epoch"], LETTERS[s["scores"][scorer]["value"]])
                             for s in samples], "mockllm/model"))
    assert found.set_index("item")["cluster"].to_dict() == {
        str(s["id"]): s["metadata"]["topic"] for s in samples}


def test_an_unscored_inspect_log_says_how_to_score_it():
    with pytest.raises(ValueError, match=r"^2025-02-11T15-17-00.*\.eval: no sample is scored "
                       r"\(0 scorers\): the log was written without scoring \(inspect eval "
                       r"--no-score\) or its scoring failed; score it with `inspect score "
                       r"2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr\.eval`, which "
                       r"writes a scored log, and read that one\.$"):
        read_items(UNSCORED)
    with pytest.raises(ValueError, match=r"sample \d+ epoch 1: no score `match` \(missing; the "
                       r"sample is unscored: score the log with `inspect score`, or choose a "
                       r"scorer it has with `metric`\); with dropna=True"):
        read_items(UNSCORED, metric="match")


def test_two_runs_of_one_model_labelled_and_cut_to_their_common_items():
    with pytest.raises(ValueError, match=r"^2025-02-11T15-18-04.*\.eval and 2025-05-12T20-28-13"
                       r".*\.json both hold model 'openai/gpt-4o-mini' on the same items "
                       r"\(item '1', \.\.\.\): two runs of it\? Label them apart with `labels`"):
        read_items([FEBRUARY, MAY_JSON])
    labels = {FEBRUARY.name: "February", str(MAY_JSON): "May"}
    both = read_items([FEBRUARY, MAY_JSON], labels=labels)
    assert both.groupby("model").size().to_dict() == {"February": 10, "May": 3}
    with pytest.raises(ValueError, match=r"'February' has 10, 'May' 3, 3 in common .*; "
                       r"common=True \(--common on the command line\) keeps the common ones\.$"):
        paired_items(both, "February", "May")
    common = read_items([FEBRUARY, MAY_JSON], labels=labels, common=True)
    assert common["item"].tolist() == ["1", "2", "3"] * 2
    assert common.attrs["dropped_items"] == {"February": 7}
    may = json.loads(MAY_JSON.read_text(encoding="utf-8"))["samples"]
    assert common[common["model"] == "May"]["score"].tolist() == [
        LETTERS[s["scores"]["match"]["value"]] for s in may]


# --------------------------------------------------------------------------- the command line


def test_audit_reads_an_output_folder_with_tasks_and_labels(tmp_path):
    """The harness's output folder of the examples holds two models; --task keeps arc_easy,
    --label names one model's folder."""
    folder = Path(__file__).parent / "examples" / "lm_eval"
    out = tmp_path / "audit.json"
    argv = ["audit", str(folder), "--task", "arc_easy", "--metric", "acc",
            "--label", f"{folder / 'EleutherAI__pythia-160m'}=pythia-160m",
            "--a", "EleutherAI/pythia-410m", "--b", "pythia-160m", "--criterion", "paired-items",
            "--estimator", "newcombe-paired", "--reps", "100", "--reps-alt", "50", "--quiet",
            "--format", "json", "--out", str(out)]
    assert main(argv) == 0
    data = json.loads(out.read_text())["data"]
    assert data["n_items"] == 20 and data["difference"] == pytest.approx(0.3)
    assert main(argv[:5] + argv[7:] + ["--label", "pythia-160m"]) == 2  # not FILE=NAME


def test_audit_common_keeps_the_items_both_models_have(tmp_path, capsys):
    path = tmp_path / "items.csv"
    rows = [f"x,{i},{int(i % 3 > 0)}" for i in range(40)] + [
        f"y,{i},{int(i % 4 > 0)}" for i in range(5, 45)]
    path.write_text("model,item,score\n" + "\n".join(rows) + "\n")
    argv = ["audit", str(path), "--a", "x", "--b", "y", "--criterion", "paired-items",
            "--estimator", "newcombe-paired", "--reps", "100", "--reps-alt", "50", "--quiet",
            "--format", "json", "--out", str(tmp_path / "audit.json")]
    assert main(argv) == 2
    assert "common=True (--common on the command line) keeps the common ones" in (
        capsys.readouterr().err)
    assert main(argv + ["--common"]) == 0
    assert json.loads((tmp_path / "audit.json").read_text())["data"]["n_items"] == 35
