"""Write ``fastchat_reviews.jsonl``, a genuine public board, into the folder given (default:
here): GPT-3.5's pairwise reviews of five chat models on the 80 questions of the Vicuna
evaluation, as FastChat (github.com/lm-sys/FastChat, commit 6ed0394d) publishes them in
``fastchat/eval/table/review/gpt-3.5-turbo_review_vicuna-13b-20230322-new-hp-fp16/``, one
file per model reviewed against vicuna-13b (``gpt-3.5-turbo_review_<model>_vicuna-13b-
20230322-new-hp-fp16.jsonl``: alpaca-13b, bard, gpt35, llama-13b). Each review scores
Assistant 1 (the model) and Assistant 2 (vicuna-13b); a battle's winner is the higher score
(``model_a``: the model, ``model_b``: vicuna-13b), ``tie`` when the scores are equal, and the
one review without scores (bard on question 61, scored [-1, -1]) is left out. The verdicts
below were read off those files; the prompt of a battle is its question.
"""

import json
import sys
from pathlib import Path

#: For each model reviewed against vicuna-13b: the questions it won, and those tied.
WON = {"alpaca-13b": (26, 48, 67),
       "bard": (48, 62, 64, 66, 67, 68, 70, 72),
       "gpt-3.5-turbo": (26, 43, 46, 47, 48, 56, 61, 62, 63, 66, 67, 69, 70, 75),
       "llama-13b": ()}
TIED = {"alpaca-13b": (), "bard": (), "gpt-3.5-turbo": (68,), "llama-13b": (70,)}
#: Reviews without scores, left out.
UNSCORED = {"bard": (61,)}


def battles() -> list[dict]:
    """One battle per review, model by model, question by question."""
    rows = []
    for model, won in WON.items():
        for question in range(1, 81):
            if question in UNSCORED.get(model, ()):
                continue
            winner = ("model_a" if question in won else
                      "tie" if question in TIED[model] else "model_b")
            rows.append({"model_a": model, "model_b": "vicuna-13b", "winner": winner,
                         "prompt": f"q{question:02d}"})
    return rows


def main(folder: Path) -> None:
    lines = [json.dumps(row) for row in battles()]
    (folder / "fastchat_reviews.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
