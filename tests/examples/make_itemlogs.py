"""Write the example item-level logs of lm-evaluation-harness and inspect_ai into the folder
given (default: here), as ``lm_eval/`` and ``inspect/``.

The questions, answers and scores are made up (seeded); the files are laid out as the two
harnesses write them, field for field, nesting and value types included:

- lm-evaluation-harness (``lm_eval --tasks arc_easy,gsm8k --log_samples --output_path
  tests/examples/lm_eval``): one folder per model named by ``sanitize_model_name``
  (``lm_eval/utils.py``), holding ``results_<date>.json`` (``save_results_aggregated`` of
  ``lm_eval/loggers/evaluation_tracker.py``, the dict of ``simple_evaluate`` in
  ``lm_eval/evaluator.py`` and ``EvaluatorResults._to_eval_results`` in
  ``lm_eval/evaluator_utils.py``, plus ``asdict(GeneralConfigTracker)``) and
  ``samples_<task>_<date>.jsonl`` (``save_results_samples``: each line the ``example`` dict of
  ``evaluate`` in ``lm_eval/evaluator.py``, its ``arguments`` renamed ``gen_args_<i>.arg_<j>``
  and its ``resps`` turned to text by ``sanitize_list``; the metrics of
  ``ConfigurableTask.process_results`` in ``lm_eval/api/task.py``; one line per document and
  filter, filter by filter, as the two ``filter_list`` entries of ``tasks/gsm8k/gsm8k.yaml``).
- inspect_ai (``inspect eval inspect_evals/mmlu_0_shot --epochs 2``): the JSON log, an
  ``EvalLog`` (``inspect_ai/log/_log.py``: ``EvalSpec``, ``EvalResults``, ``EvalSample`` with
  ``scores`` of ``Score`` from ``inspect_ai/scorer/_metric.py``) as ``JSONRecorder`` writes it,
  and the ``.eval`` archive as ``EvalRecorder`` of ``inspect_ai/log/_recorders/eval.py`` writes
  it: ``_journal/start.json`` (``LogStart``), ``samples/<id>_epoch_<n>.json``,
  ``_journal/summaries/<n>.json``, ``summaries.json``, ``reductions.json`` and ``header.json``,
  members compressed with deflate (inspect_ai before 0.3.206; later ones use Zstandard).

``tests/test_itemlogs.py`` checks that this script writes the very files shipped.
"""

import hashlib
import json
import sys
import zipfile
from pathlib import Path

import numpy as np

#: One run of lm-evaluation-harness per model: its date id (``datetime.now().isoformat()`` with
#: ``:`` replaced by ``-``), its tasks and how much better than chance its log-likelihoods are.
LM_EVAL_RUNS = {
    "EleutherAI/pythia-160m": ("2024-05-01T10-12-31.483571", ("arc_easy", "gsm8k"), 0.4),
    "EleutherAI/pythia-410m": ("2024-05-01T11-02-54.120077", ("arc_easy",), 0.9),
}
ARC_DOCS = 20
GSM8K_DOCS = 6
#: inspect_ai runs of MMLU: the model, the log's name, its format and its epochs.
INSPECT_RUNS = (
    ("openai/gpt-4o-mini", "2025-03-04T09-15-02+00-00_mmlu-0-shot_G7cXqvT3Jm2dPbQ9nE4s6a.json",
     2, 0.8),
    ("anthropic/claude-3-5-haiku-latest",
     "2025-03-04T09-31-47+00-00_mmlu-0-shot_K2wRf8ZyLq5hN3uVb7TcdA.eval", 2, 1.2),
)
SUBJECTS = ("astronomy", "college_physics", "high_school_biology")
MMLU_PER_SUBJECT = 4


def sha(text: str) -> str:
    """``hash_string`` of lm-evaluation-harness: the SHA-256 of the text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sanitize_model_name(name: str) -> str:
    """``sanitize_model_name`` of ``lm_eval/utils.py``."""
    import re

    return re.sub(r"[\"<>:/|\\?*\[\]]+", "__", name)


def arc_docs() -> list[dict]:
    """ARC-Easy-shaped documents (``allenai/ai2_arc``: id, question, choices, answerKey)."""
    rng = np.random.default_rng(2024)
    docs = []
    for i in range(ARC_DOCS):
        a, b = (int(x) for x in rng.integers(2, 40, 2))
        right = a + b
        wrong = sorted({right + 1, right - 1, right + 10} - {right})[:3]
        texts = [str(x) for x in [right, *wrong]]
        order = rng.permutation(4)
        texts = [texts[k] for k in order]
        docs.append({"id": f"Example_{7000 + i}",
                     "question": f"A jar holds {a} marbles and {b} more are added. How many "
                                 "marbles are in the jar?",
                     "choices": {"text": texts, "label": ["A", "B", "C", "D"]},
                     "answerKey": "ABCD"[texts.index(str(right))]})
    return docs


def arc_line(doc_id: int, doc: dict, rng, skill: float) -> dict:
    """One line of ``samples_arc_easy_<date>.jsonl`` (output_type multiple_choice)."""
    context = f"Question: {doc['question']}\nAnswer:"
    choices = doc["choices"]["text"]
    gold = doc["choices"]["label"].index(doc["answerKey"])
    lls = rng.normal(-6.0, 1.0, len(choices))
    lls[gold] += skill
    is_greedy = [bool(rng.random() < 0.1) for _ in choices]
    completion_len = np.array([float(len(c)) for c in choices])
    acc = 1.0 if int(np.argmax(lls)) == gold else 0.0
    acc_norm = 1.0 if int(np.argmax(lls / completion_len)) == gold else 0.0
    target = gold  # doc_to_target: "{{choices.label.index(answerKey)}}"
    return {
        "doc_id": doc_id,
        "doc": doc,
        "target": str(target),
        "arguments": {f"gen_args_{i}": {"arg_0": context, "arg_1": f" {c}"}
                      for i, c in enumerate(choices)},
        "resps": [[[str(float(ll)), str(g)]] for ll, g in zip(lls, is_greedy, strict=True)],
        "filtered_resps": [[str(float(ll)), str(g)] for ll, g in zip(lls, is_greedy,
                                                                     strict=True)],
        "filter": "none",
        "metrics": ["acc", "acc_norm"],
        "doc_hash": sha(json.dumps(doc, indent=2, ensure_ascii=False)),
        "prompt_hash": sha(context),
        "target_hash": sha(str(target)),
        "acc": acc,
        "acc_norm": acc_norm,
    }


def gsm8k_lines(rng, skill: float) -> list[dict]:
    """The lines of ``samples_gsm8k_<date>.jsonl`` (generate_until, two filters: every
    document under ``strict-match``, then every one under ``flexible-extract``)."""
    docs, outputs = [], []
    for _ in range(GSM8K_DOCS):
        a, b = (int(x) for x in rng.integers(3, 30, 2))
        docs.append({"question": f"Sam has {a} apples and buys {b} more. How many apples "
                                 "does Sam have now?",
                     "answer": f"Sam has {a} + {b} = <<{a}+{b}={a + b}>>{a + b} apples.\n"
                               f"#### {a + b}"})
        said = a + b if rng.random() < 0.3 + skill / 2 else a + b + int(rng.integers(1, 5))
        outputs.append(f" Sam has {a} + {b} = {said} apples.\n#### {said}" if rng.random() < 0.5
                       else f" Sam now has {said} apples.")
    until = {"until": ["Question:", "</s>", "<|im_end|>"], "do_sample": False,
             "temperature": 0.0}
    lines = []
    for name in ("strict-match", "flexible-extract"):
        for doc_id, (doc, out) in enumerate(zip(docs, outputs, strict=True)):
            context = f"Question: {doc['question']}\nAnswer:"
            gold = doc["answer"].split("#### ")[-1]
            if name == "strict-match":
                kept = out.split("#### ")[-1] if "#### " in out else "[invalid]"
            else:
                kept = [w for w in out.replace(".", " ").split() if w.isdigit()][-1]
            lines.append({
                "doc_id": doc_id,
                "doc": doc,
                "target": doc["answer"],
                "arguments": {"gen_args_0": {"arg_0": context, "arg_1": until}},
                "resps": [[out]],
                "filtered_resps": [kept],
                "filter": name,
                "metrics": ["exact_match"],
                "doc_hash": sha(json.dumps(doc, indent=2, ensure_ascii=False)),
                "prompt_hash": sha(context),
                "target_hash": sha(doc["answer"]),
                "exact_match": 1.0 if kept == gold else 0.0,
            })
    return lines


def lm_eval_results(model: str, date: str, samples: dict[str, list[dict]]) -> dict:
    """``results_<date>.json`` of one run."""
    results, configs, n_samples = {}, {}, {}
    for task, lines in samples.items():
        entry = {"alias": task}
        for metric in lines[0]["metrics"]:
            for name in dict.fromkeys(line["filter"] for line in lines):
                values = np.array([line[metric] for line in lines if line["filter"] == name])
                entry[f"{metric},{name}"] = float(values.mean())
                entry[f"{metric}_stderr,{name}"] = float(values.std(ddof=1)
                                                         / np.sqrt(len(values)))
        results[task] = entry
        configs[task] = {"task": task, "dataset_path": ("allenai/ai2_arc" if task == "arc_easy"
                                                        else "openai/gsm8k"),
                         "output_type": ("multiple_choice" if task == "arc_easy"
                                         else "generate_until"),
                         "repeats": 1, "metadata": {"version": 1.0 if task == "arc_easy"
                                                    else 3.0}}
        n_samples[task] = {"original": 2376 if task == "arc_easy" else 1319,
                           "effective": len({line["doc_id"] for line in lines})}
    tasks = sorted(samples)
    return {
        "results": results,
        "group_subtasks": {task: [] for task in tasks},
        "configs": dict(sorted(configs.items())),
        "versions": {task: configs[task]["metadata"]["version"] for task in tasks},
        "n-shot": {task: 0 if task == "arc_easy" else 5 for task in tasks},
        "higher_is_better": {task: {m: True for m in samples[task][0]["metrics"]}
                             for task in tasks},
        "n-samples": n_samples,
        "config": {"model": "hf", "model_args": f"pretrained={model},dtype=float32",
                   "model_num_parameters": 162322944 if "160m" in model else 405334016,
                   "model_dtype": "torch.float32", "model_revision": "main",
                   "model_sha": "50f5173d932e8e61f858120bcb800b97af589f46",
                   "batch_size": "8", "batch_sizes": [], "device": "cpu", "use_cache": None,
                   "limit": 20.0, "bootstrap_iters": 100000, "gen_kwargs": None,
                   "random_seed": 0, "numpy_seed": 1234, "torch_seed": 1234,
                   "fewshot_seed": 1234},
        "git_hash": "4e7e0d4",
        "date": 1714558351.4835,
        "task_hashes": {task: sha("".join(line["doc_hash"] + line["prompt_hash"]
                                          + line["target_hash"] for line in lines))
                        for task, lines in samples.items()},
        "model_source": "hf",
        "model_name": model,
        "model_name_sanitized": sanitize_model_name(model),
        "system_instruction": None,
        "system_instruction_sha": None,
        "fewshot_as_multiturn": False,
        "chat_template": None,
        "chat_template_sha": None,
        "total_evaluation_time_seconds": "412.5087466239929",
    }


def write_lm_eval(folder: Path) -> None:
    """Both models' lm-evaluation-harness logs under ``folder/lm_eval``."""
    docs = arc_docs()
    for seed, (model, (date, tasks, skill)) in enumerate(LM_EVAL_RUNS.items()):
        rng = np.random.default_rng(seed)
        out = folder / "lm_eval" / sanitize_model_name(model)
        out.mkdir(parents=True, exist_ok=True)
        samples = {"arc_easy": [arc_line(i, doc, rng, skill) for i, doc in enumerate(docs)]}
        if "gsm8k" in tasks:
            samples["gsm8k"] = gsm8k_lines(rng, skill)
        results = lm_eval_results(model, date, samples)
        (out / f"results_{date}.json").write_text(
            json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
        for task, lines in samples.items():
            with open(out / f"samples_{task}_{date}.jsonl", "w", encoding="utf-8") as handle:
                for line in lines:
                    handle.write(json.dumps(line, ensure_ascii=False) + "\n")


def mmlu_docs() -> list[dict]:
    """MMLU-shaped questions as ``inspect_evals/mmlu_0_shot`` makes its samples: ``input``,
    ``choices``, ``target`` a letter and ``metadata.subject``."""
    rng = np.random.default_rng(57)
    docs = []
    for subject in SUBJECTS:
        for k in range(MMLU_PER_SUBJECT):
            right = int(rng.integers(10, 99))
            texts = [str(right + d) for d in rng.permutation([0, 1, 2, 3])]
            docs.append({"input": f"An example question of {subject.replace('_', ' ')} "
                                  f"(number {k + 1}): which value is {right}?",
                         "choices": texts, "target": "ABCD"[texts.index(str(right))],
                         "metadata": {"subject": subject}})
    return docs


def inspect_sample(sample_id: int, epoch: int, doc: dict, model: str, rng, skill: float,
                   uuid: str) -> dict:
    """One ``EvalSample`` as JSON (a ``choice`` scorer: value "C" or "I")."""
    gold = "ABCD".index(doc["target"])
    weights = np.exp(rng.normal(0, 1, 4) + skill * (np.arange(4) == gold))
    letter = "ABCD"[int(rng.choice(4, p=weights / weights.sum()))]
    prompt = ("Answer the following multiple choice question. The entire content of your "
              "response should be of the following format: 'ANSWER: $LETTER' (without quotes) "
              "where LETTER is one of A,B,C,D.\n\n" + doc["input"] + "\n\n"
              + "\n".join(f"{'ABCD'[i]}) {c}" for i, c in enumerate(doc["choices"])))
    short = model.split("/", 1)[1]
    usage = {"input_tokens": 120 + sample_id, "output_tokens": 3, "total_tokens": 123 + sample_id}
    answer = f"ANSWER: {letter}"
    return {
        "id": sample_id,
        "epoch": epoch,
        "input": doc["input"],
        "choices": doc["choices"],
        "target": doc["target"],
        "messages": [
            {"id": f"{uuid}u", "content": prompt, "source": "input", "role": "user"},
            {"id": f"{uuid}a", "content": answer, "source": "generate", "role": "assistant",
             "model": short},
        ],
        "output": {"model": short,
                   "choices": [{"message": {"id": f"{uuid}a", "content": answer,
                                            "source": "generate", "role": "assistant",
                                            "model": short},
                                "stop_reason": "stop"}],
                   "completion": answer, "usage": usage, "time": 0.8},
        "scores": {"choice": {"value": "C" if letter == doc["target"] else "I",
                              "answer": letter, "explanation": answer, "history": []}},
        "metadata": doc["metadata"],
        "store": {},
        "events": [],
        "model_usage": {model: usage},
        "started_at": "2025-03-04T09:15:03.120000+00:00",
        "completed_at": "2025-03-04T09:15:03.940000+00:00",
        "total_time": 0.82,
        "working_time": 0.8,
        "uuid": uuid,
        "error_retries": [],
    }


def inspect_spec(model: str, epochs: int, n: int, run: int) -> dict:
    """The ``EvalSpec`` (``eval``) of a run."""
    return {
        "eval_id": f"Ev{run}aL6pQ2zXc8Yd4Nf7Wm3Tg",
        "run_id": f"Ru{run}nB5hK9sVe2Lx7Qp4Dj8Za",
        "created": "2025-03-04T09:15:02+00:00",
        "task": "inspect_evals/mmlu_0_shot",
        "task_id": f"Ta{run}sk3Mv8Rn2Wq6Yc9Hb5Ue",
        "task_version": 0,
        "task_display_name": "mmlu_0_shot",
        "task_registry_name": "inspect_evals/mmlu_0_shot",
        "task_attribs": {},
        "task_args": {"language": "EN_US", "subjects": list(SUBJECTS), "cot": False},
        "task_args_passed": {"subjects": list(SUBJECTS)},
        "dataset": {"name": "cais/mmlu", "location": "cais/mmlu", "samples": n,
                    "sample_ids": list(range(1, n + 1)), "shuffled": False},
        "model": model,
        "model_generate_config": {},
        "model_args": {},
        "model_roles": {},
        "config": {"epochs": epochs, "epochs_reducer": ["mean"], "fail_on_error": True,
                   "continue_on_fail": False, "sandbox_cleanup": True, "log_samples": True,
                   "log_realtime": True, "log_images": True, "score_display": True},
        "packages": {"inspect_ai": "0.3.80"},
        "scorers": [{"name": "choice", "options": {},
                     "metrics": [{"name": "inspect_ai/accuracy", "options": {}},
                                 {"name": "inspect_ai/stderr", "options": {}}],
                     "metadata": {}}],
    }


def inspect_log(model: str, epochs: int, skill: float, run: int) -> dict:
    """A whole ``EvalLog`` as JSON."""
    docs = mmlu_docs()
    rng = np.random.default_rng(100 + run)
    samples = [inspect_sample(i + 1, epoch, doc, model, rng, skill,
                              f"Sa{run}{i:02d}{epoch}mPlEuUiDxYzQ")
               for epoch in range(1, epochs + 1) for i, doc in enumerate(docs)]
    samples.sort(key=lambda s: (s["epoch"], s["id"]))  # sort_samples of _log.py
    by_id: dict[int, list[float]] = {}
    for s in samples:
        by_id.setdefault(s["id"], []).append(1.0 if s["scores"]["choice"]["value"] == "C"
                                             else 0.0)
    reduced = {k: float(np.mean(v)) for k, v in by_id.items()}
    values = np.array(list(reduced.values()))
    results = {
        "total_samples": len(docs) * epochs,
        "completed_samples": len(docs) * epochs,
        "scores": [{"name": "choice", "scorer": "choice", "reducer": "mean",
                    "scored_samples": len(docs), "unscored_samples": 0, "params": {},
                    "metrics": {
                        "accuracy": {"name": "accuracy", "value": float(values.mean()),
                                     "params": {}},
                        "stderr": {"name": "stderr",
                                   "value": float(values.std(ddof=1) / np.sqrt(len(values))),
                                   "params": {}}}}],
    }
    usage = {"input_tokens": 3000, "output_tokens": 72, "total_tokens": 3072}
    return {
        "version": 2,
        "status": "success",
        "eval": inspect_spec(model, epochs, len(docs), run),
        "plan": {"name": "plan", "steps": [{"solver": "multiple_choice",
                                            "params": {"cot": False}}],
                 "config": {}},
        "results": results,
        "stats": {"started_at": "2025-03-04T09:15:02+00:00",
                  "completed_at": "2025-03-04T09:16:40+00:00", "model_usage": {model: usage}},
        "invalidated": False,
        "samples": samples,
        "reductions": [{"scorer": "choice", "reducer": "mean",
                        "samples": [{"value": reduced[k], "sample_id": k} for k in reduced]}],
    }


def compact(data) -> bytes:
    """A member of an .eval archive: ``to_json_safe(data, indent=None)``, compact JSON."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def summary(sample: dict) -> dict:
    """``EvalSample.summary()``: the sample without its messages, output and events."""
    keys = ("id", "epoch", "input", "choices", "target", "metadata", "scores", "model_usage",
            "started_at", "completed_at", "total_time", "working_time", "uuid")
    return {**{k: sample[k] for k in keys}, "retries": 0, "completed": True,
            "message_count": len(sample["messages"])}


def write_eval_archive(log: dict, path: Path) -> None:
    """The .eval archive of a log, its members in the order ``EvalRecorder`` writes them."""
    members = [("_journal/start.json", {"version": log["version"], "eval": log["eval"],
                                        "plan": log["plan"]})]
    members += [(f"samples/{s['id']}_epoch_{s['epoch']}.json", s) for s in log["samples"]]
    summaries = [summary(s) for s in log["samples"]]
    members += [("_journal/summaries/1.json", summaries), ("summaries.json", summaries),
                ("reductions.json", log["reductions"])]
    header = {k: v for k, v in log.items() if k not in ("samples", "reductions")}
    members.append(("header.json", header))
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(2025, 3, 4, 9, 16, 40))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, compact(data))


def write_inspect(folder: Path) -> None:
    """Both inspect_ai logs under ``folder/inspect``."""
    out = folder / "inspect"
    out.mkdir(parents=True, exist_ok=True)
    for run, (model, name, epochs, skill) in enumerate(INSPECT_RUNS):
        log = inspect_log(model, epochs, skill, run)
        if name.endswith(".json"):
            (out / name).write_text(json.dumps(log, indent=2, ensure_ascii=False),
                                    encoding="utf-8")
        else:
            write_eval_archive(log, out / name)


def main(folder: Path) -> None:
    write_lm_eval(folder)
    write_inspect(folder)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
