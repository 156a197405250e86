"""Write ``battles.jsonl``, a simulated arena (not real votes), into the folder given (default:
here): 6 models, 1,500 battles on 100 prompts each reused 15 times, pairs drawn uniformly,
Bradley-Terry strengths 0.4, 0.4, 0.3, 0.1, 0, -0.3 (the top two tied) with a prompt x model
effect of sd 0.5, Davidson's ties (nu 0.25), each tie written ``tie`` or ``tie (bothbad)`` at
random; one JSON object per battle with FastChat's fields ``model_a, model_b, winner`` and a
``prompt``. ``tests/test_board_audit.py`` checks that this script writes the file shipped here.
"""

import json
import sys
from pathlib import Path

import numpy as np

MODELS = ("atlas", "birch", "cedar", "delta", "ember", "fjord")
STRENGTHS = np.array([0.4, 0.4, 0.3, 0.1, 0.0, -0.3])


def battles(rng) -> list[dict]:
    """The battles, in the order drawn."""
    effect = rng.normal(0.0, 0.5, (100, len(MODELS)))
    rows = []
    for k in range(1500):
        prompt = k % 100
        a, b = rng.choice(len(MODELS), 2, replace=False)
        gap = STRENGTHS[a] - STRENGTHS[b] + effect[prompt, a] - effect[prompt, b]
        weight = np.array([np.exp(gap / 2), np.exp(-gap / 2), 0.25])
        outcome = rng.choice(3, p=weight / weight.sum())
        winner = ("model_a", "model_b", "tie")[outcome]
        if outcome == 2 and rng.random() < 0.5:
            winner = "tie (bothbad)"
        rows.append({"model_a": MODELS[a], "model_b": MODELS[b], "winner": winner,
                     "prompt": f"p{prompt:03d}"})
    return rows


def main(folder: Path) -> None:
    rng = np.random.default_rng(41)
    lines = [json.dumps(row) for row in battles(rng)]
    (folder / "battles.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
