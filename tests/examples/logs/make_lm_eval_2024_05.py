"""Write ``lm_eval_2024-05/``: lm-evaluation-harness logs as its code of May 2024 wrote them.

Between 3 and 30 May 2024 (commits 59cf408 to 0ff6ab9 of EleutherAI/lm-evaluation-harness,
after 0.4.2 and before 0.4.3) ``EvaluationTracker.save_results_samples`` wrote each task's
samples as one indented JSON array, ``samples_<task>_<date>.json``, beside
``results_<date>.json``. No such file committed to a public repository was found, so this script
writes one with that commit's own code: it loads ``lm_eval/utils.py`` and
``lm_eval/loggers/evaluation_tracker.py`` of commit 0ff6ab9 from a clone of the harness, builds
each logged sample as ``evaluate`` of that commit's ``lm_eval/evaluator.py`` builds it (the loop
over filters, then documents, copied below) from made-up documents and responses, and calls
``save_results_aggregated`` and ``save_results_samples`` as ``cli_evaluate`` of its
``lm_eval/__main__.py`` does. The documents, responses and scores are made up.

Usage: ``python make_lm_eval_2024_05.py CLONE_OF_LM_EVALUATION_HARNESS OUT_FOLDER``.
"""

import subprocess
import sys
import tempfile
import types
from pathlib import Path

COMMIT = "0ff6ab9973508e0444085f0c92f1b7f47f381077"
MODEL_ARGS = "pretrained=EleutherAI/pythia-160m,dtype=float32"


def harness(clone: Path, folder: Path):
    """The modules ``lm_eval.utils`` and ``lm_eval.loggers.evaluation_tracker`` of COMMIT."""
    for name in ("lm_eval/utils.py", "lm_eval/loggers/evaluation_tracker.py"):
        text = subprocess.run(["git", "-C", str(clone), "show", f"{COMMIT}:{name}"],
                              check=True, capture_output=True, text=True).stdout
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    for package in ("lm_eval", "lm_eval/loggers"):
        (folder / package / "__init__.py").write_text("")
    hub = types.ModuleType("huggingface_hub")  # used only to push to the Hub, which is off
    hub.HfApi = None
    sys.modules["huggingface_hub"] = hub
    sys.path.insert(0, str(folder))
    import lm_eval.utils
    from lm_eval.loggers import evaluation_tracker

    return lm_eval.utils, evaluation_tracker


class Request:
    """The fields of an ``Instance`` (``lm_eval/api/instance.py``) that ``evaluate`` logs."""

    def __init__(self, doc, arguments, idx, resps, filtered):
        self.doc, self.arguments, self.idx = doc, arguments, idx
        self.args, self.resps, self.filtered_resps = arguments, resps, filtered


def arc_task():
    """A multiple-choice task: made-up questions, log-likelihoods and ``acc``/``acc_norm``."""
    docs = [("Which is a liquid at room temperature?", ["water", "iron", "salt", "sand"], 0),
            ("What do plants take in to make food?", ["sand", "sunlight", "noise", "rock"], 1),
            ("Which tool measures temperature?", ["ruler", "scale", "thermometer", "clock"], 2),
            ("What is frozen water called?", ["steam", "ice", "fog", "dew"], 1)]
    logliks = [[-2.1, -4.0, -3.3, -5.2], [-3.9, -3.1, -6.0, -4.4], [-4.2, -3.0, -3.6, -5.1],
               [-2.9, -2.2, -4.8, -3.7]]
    out = []
    for doc_id, ((question, choices, gold), ll) in enumerate(zip(docs, logliks, strict=True)):
        doc = {"question": question, "choices": {"text": choices, "label": list("ABCD")},
               "answerKey": "ABCD"[gold]}
        context = f"Question: {question}\nAnswer:"
        requests = [Request(doc, (context, f" {c}"), i, [(ll[i], False)], {"none": (ll[i], False)})
                    for i, c in enumerate(choices)]
        best = max(range(4), key=lambda i: ll[i])
        norm = max(range(4), key=lambda i: ll[i] / len(choices[i]))
        metrics = {"none": {"acc": float(best == gold), "acc_norm": float(norm == gold)}}
        out.append((doc_id, doc, gold, requests, metrics))
    return out


def gsm8k_task():
    """A generation task with two filters (``strict-match``, ``flexible-extract``)."""
    docs = [("Tom has 3 apples and buys 4 more. How many apples does he have?", "7",
             "Tom has 3 + 4 = 7 apples.\n#### 7"),
            ("A box holds 6 pens. How many pens are in 2 boxes?", "12",
             "There are 6 * 2 = 11 pens."),
            ("Sara reads 5 pages a day. How many pages does she read in 3 days?", "15",
             "She reads 5 * 3 = 15 pages.")]
    out = []
    for doc_id, (question, answer, response) in enumerate(docs):
        doc = {"question": question, "answer": f"... #### {answer}"}
        context = f"Question: {question}\nAnswer:"
        strict = response.split("#### ")[-1] if "#### " in response else "[invalid]"
        flexible = [w for w in response.replace(".", " ").split() if w.isdigit()][-1]
        until = {"until": ["Question:", "</s>", "<|im_end|>"], "do_sample": False,
                 "temperature": 0.0}
        requests = [Request(doc, (context, until), 0, [response],
                            {"strict-match": strict, "flexible-extract": flexible})]
        metrics = {"strict-match": {"exact_match": float(strict == answer)},
                   "flexible-extract": {"exact_match": float(flexible == answer)}}
        out.append((doc_id, doc, answer, requests, metrics))
    return out


def logged_samples(task, utils):
    """The samples ``evaluate`` logs for a task, as lm_eval/evaluator.py of COMMIT builds them."""
    import json

    samples = []
    for filter_key in task[0][3][0].filtered_resps.keys():
        for doc_id, doc, target, requests, metrics in task:
            example = {
                "doc_id": doc_id,
                "doc": doc,
                "target": target,
                "arguments": [req.args for req in requests],
                "resps": [req.resps for req in requests],
                "filtered_resps": [req.filtered_resps[filter_key] for req in requests],
                "doc_hash": utils.hash_string(
                    json.dumps(requests[0].doc, indent=2,
                               default=utils.handle_non_serializable, ensure_ascii=False)),
                "prompt_hash": utils.hash_string(requests[0].arguments[0]),
                "target_hash": utils.hash_string(str(target)),
            }
            example.update(metrics[filter_key])
            samples.append(example)
    return samples


def results_of(samples: dict) -> dict:
    """A results dict as ``simple_evaluate`` returns it (the fields the files show)."""
    results, configs = {}, {}
    for task, logged in samples.items():
        entry = {"alias": task}
        for key in (k for k in logged[0] if k not in ("doc_id", "doc", "target", "arguments",
                                                        "resps", "filtered_resps", "doc_hash",
                                                        "prompt_hash", "target_hash")):
            if task == "gsm8k":
                for i, name in enumerate(("strict-match", "flexible-extract")):
                    part = logged[i * 3:(i + 1) * 3]
                    entry[f"{key},{name}"] = sum(s[key] for s in part) / len(part)
            else:
                entry[f"{key},none"] = sum(s[key] for s in logged) / len(logged)
        results[task] = entry
        configs[task] = {"task": task, "num_fewshot": 0, "repeats": 1}
    configs["gsm8k"]["filter_list"] = [
        {"name": "strict-match", "filter": [{"function": "regex",
                                             "regex_pattern": "#### (\\-?[0-9\\.\\,]+)"},
                                            {"function": "take_first"}]},
        {"name": "flexible-extract", "filter": [{"function": "regex", "group_select": -1,
                                                 "regex_pattern": "(-?[$0-9.,]{2,})|(-?[0-9]+)"},
                                                {"function": "take_first"}]}]
    return {"results": results, "group_subtasks": {t: [] for t in samples}, "configs": configs,
            "versions": {t: 1.0 for t in samples}, "n-shot": {t: 0 for t in samples},
            "config": {"model": "hf", "model_args": MODEL_ARGS, "batch_size": "1",
                       "batch_sizes": [], "device": "cpu", "use_cache": None, "limit": None,
                       "bootstrap_iters": 100000, "gen_kwargs": None},
            "git_hash": COMMIT[:7]}


def main(clone: Path, out: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        utils, tracker_module = harness(clone, Path(folder))
        samples = {"arc_easy": logged_samples(arc_task(), utils),
                   "gsm8k": logged_samples(gsm8k_task(), utils)}
        results = results_of(samples)
        tracker = tracker_module.EvaluationTracker(output_path=str(out))
        tracker.general_config_tracker.log_experiment_args(model_source="hf",
                                                           model_args=MODEL_ARGS)
        tracker.save_results_aggregated(results=results, samples=samples)
        for task_name in results["configs"]:
            tracker.save_results_samples(task_name=task_name, samples=samples[task_name])


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
