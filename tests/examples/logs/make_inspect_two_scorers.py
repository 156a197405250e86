"""Write an inspect_ai log of two scorers and two epochs into the folder given.

No genuine log with several scorers was found committed to a public repository, so inspect_ai
itself writes this one (``inspect/*_two-scorers_*.eval``, by inspect_ai 0.3.285): it runs the
task below on its ``mockllm/model``, whose answers to the made-up questions are ANSWERS (their
token usage given, so that no tokenizer is fetched), scores each sample with ``match`` and
``includes``, and writes the ``.eval`` log, members compressed with Zstandard.

Usage: ``python make_inspect_two_scorers.py OUT_FOLDER`` (with inspect_ai installed).
"""

import sys

from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes, match
from inspect_ai.solver import generate

ANSWERS = {"What is 2 + 2?": "4", "Name a primary colour.": "Red, for one.",
           "What is the capital of France?": "It is Paris", "Spell 'cat' backwards.": "tac"}


def answer(input, tools, tool_choice, config):
    """The made-up answer to the question of the last message."""
    output = ModelOutput.from_content(model="mockllm", content=ANSWERS[input[-1].text])
    output.usage = ModelUsage(input_tokens=12, output_tokens=3, total_tokens=15)
    return output


@task
def two_scorers():
    samples = [
        Sample(id=1, input="What is 2 + 2?", target="4", metadata={"topic": "arithmetic"}),
        Sample(id=2, input="Name a primary colour.", target="Red", metadata={"topic": "words"}),
        Sample(id=3, input="What is the capital of France?", target="Paris",
               metadata={"topic": "geography"}),
        Sample(id=4, input="Spell 'cat' backwards.", target="tac", metadata={"topic": "words"}),
    ]
    return Task(dataset=samples, solver=generate(), scorer=[match(), includes()], epochs=2)


if __name__ == "__main__":
    eval(two_scorers(), model=get_model("mockllm/model", custom_outputs=answer),
         log_dir=sys.argv[1], log_format="eval", display="none")
