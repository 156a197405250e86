"""Write ``items.csv`` and ``models.csv`` (into the folder given; default: here): simulated
item-level logs, the worked examples of ``evalmc audit`` (two models) and of ``evalmc audit
--models`` (three).

1,000 multiple-choice questions in 40 subjects of unequal size, each answered 5 times by each
model (5 generations at a temperature above 0), scored 0/1; one row per (model, question,
generation). The truth, which the audit is not told: a question's difficulty has a subject
part (sd 0.5) and its own (sd 1), each model has a question-level luck of its own (sd 0.6) and
a generation's noise (sd 1), on a probit scale, and the subjects favour one model or the other
(sd 0.3 of the model x subject interaction). The candidate's skill is 0.05 above the
baseline's: 1.2 points of accuracy over the population of questions
(``Phi(0.30 / s) - Phi(0.25 / s)``, ``s^2 = 0.5^2 + 1 + 0.15^2 + 0.6^2 + 1``).

The script draws with numpy only (its own model, not evalmc's), seeded, so it writes the very
file shipped. Its seed is the one of the 20 seeds 20261120 to 20261139 whose draw shows the case
an audit is for: the item-level paired z-test calls the models different (p = 0.018), the
clustered one does not (p = 0.19).
"""

import sys
from pathlib import Path

import numpy as np

N_ITEMS, N_SUBJECTS, N_SAMPLES = 1000, 40, 5
SKILL = {"candidate": 0.30, "baseline": 0.25}


def draw(rng, skill=SKILL):
    """One benchmark: the subjects' sizes, each question's subject, and each model's 0/1
    answers, questions x generations."""
    sizes = rng.multinomial(N_ITEMS - 5 * N_SUBJECTS, rng.dirichlet(np.full(N_SUBJECTS, 2.0)))
    sizes += 5  # at least 5 questions per subject
    subject = np.repeat(np.arange(N_SUBJECTS), sizes)
    difficulty = rng.normal(0, 0.5, N_SUBJECTS)[subject] + rng.normal(0, 1.0, N_ITEMS)
    favour = rng.normal(0, 0.3, N_SUBJECTS)[subject] / 2
    answers = {}
    for sign, (model, value) in zip((1, -1), skill.items(), strict=True):
        luck = rng.normal(0, 0.6, N_ITEMS)
        latent = (value + sign * favour - difficulty + luck)[:, None] \
            + rng.normal(0, 1.0, (N_ITEMS, N_SAMPLES))
        answers[model] = (latent > 0).astype(int)
    return sizes, subject, answers


#: models.csv: three models' skills, one answer per question, 300 questions in 15 subjects.
MODELS = {"large": 0.6, "medium": 0.3, "small": 0.25}
N_MODEL_ITEMS, N_MODEL_SUBJECTS = 300, 15


def draw_models(rng, skill=MODELS):
    """Each question's subject and each model's 0/1 answer: the model of :func:`draw` with
    one generation, equal subjects, and each model its own advantage in a subject (sd 0.15)."""
    subject = np.repeat(np.arange(N_MODEL_SUBJECTS), N_MODEL_ITEMS // N_MODEL_SUBJECTS)
    difficulty = rng.normal(0, 0.5, N_MODEL_SUBJECTS)[subject] + rng.normal(0, 1.0, subject.size)
    answers = {}
    for model, value in skill.items():
        favour = rng.normal(0, 0.15, N_MODEL_SUBJECTS)[subject]
        latent = value + favour - difficulty + rng.normal(0, 0.6, subject.size) \
            + rng.normal(0, 1.0, subject.size)
        answers[model] = (latent > 0).astype(int)
    return subject, answers


def main(folder: Path) -> None:
    _, subject, answers = draw(np.random.default_rng(20261131))
    lines = ["model,question,generation,subject,correct"]
    for model, correct in answers.items():
        for i in range(N_ITEMS):
            for s in range(N_SAMPLES):
                lines.append(f"{model},q{i + 1:04d},{s},subject_{subject[i] + 1:02d},"
                             f"{correct[i, s]}")
    (folder / "items.csv").write_text("\n".join(lines) + "\n")
    subject, answers = draw_models(np.random.default_rng(20261140))
    lines = ["model,question,subject,correct"] + [
        f"{model},q{i + 1:03d},subject_{subject[i] + 1:02d},{correct[i]}"
        for model, correct in answers.items() for i in range(subject.size)]
    (folder / "models.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
