"""Write ``scores.csv`` (into the folder given; default: here): a **simulated** board of
continuous item scores, not real results: 6 models scored on 300 prompts in 30 topics of 10,
one graded score in [0, 1] per model and prompt (a BLEU, an F1 or a judge's grade), rounded to
3 decimals. The truth, which ``evalmc leaderboard`` is not told: on a logit scale the score is
``expit(skill + topic + model x topic + prompt + model x prompt)``, skills 0.6, 0.6, 0.45, 0.2,
0.1, -0.2 (the top two tied), a topic's difficulty of sd 0.5, a model x topic effect of sd 0.5,
a prompt's difficulty of sd 0.8 and a model x prompt effect of sd 0.7. One row per (model,
prompt): ``model, item, topic, score`` (the item is the prompt). The script draws with numpy
only, seeded, so it writes the very file shipped; ``tests/test_board_user.py`` checks it.
"""

import sys
from pathlib import Path

import numpy as np

MODELS = ("atlas", "birch", "cedar", "delta", "ember", "fjord")
SKILLS = np.array([0.6, 0.6, 0.45, 0.2, 0.1, -0.2])
TOPICS, PER_TOPIC = 30, 10


def draw(rng) -> np.ndarray:
    """The scores, prompts x models."""
    m, n = len(MODELS), TOPICS * PER_TOPIC
    topic = np.repeat(np.arange(TOPICS), PER_TOPIC)
    logit = (SKILLS[None, :] + rng.normal(0.0, 0.5, TOPICS)[topic, None]
             + rng.normal(0.0, 0.5, (TOPICS, m))[topic]
             + rng.normal(0.0, 0.8, n)[:, None] + rng.normal(0.0, 0.7, (n, m)))
    return np.round(1.0 / (1.0 + np.exp(-logit)), 3)


def main(folder: Path) -> None:
    scores = draw(np.random.default_rng(42))
    lines = ["model,item,topic,score"]
    for j, model in enumerate(MODELS):
        for k in range(scores.shape[0]):
            lines.append(f"{model},p{k + 1:03d},t{k // PER_TOPIC + 1:02d},{scores[k, j]:.3f}")
    (folder / "scores.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
