"""The same population is the same condition, however its parameters are spelled."""

from io import StringIO

import pandas as pd

from evalmc.cli import main


def _summary(capsys, *params):
    argv = ["calibrate", "--scenario", "llm-items", *params, "--criterion", "paired-items",
            "--criterion", "unpaired-z", "--reps", "1500", "--seed", "1", "--format", "csv",
            "--quiet"]
    assert main(argv) == 0
    return pd.read_csv(StringIO(capsys.readouterr().out))


def test_a_default_spelled_out_on_the_command_line_is_the_same_condition(capsys):
    bare = _summary(capsys)
    spelled = _summary(capsys, "--param", "tau=0.0")
    both = _summary(capsys, "--param", "tau=0", "--param", "n_items=1000")
    for other in (spelled, both):
        assert other["condition_id"].tolist() == bare["condition_id"].tolist()
        assert other["rate"].tolist() == bare["rate"].tolist()
    moved = _summary(capsys, "--param", "tau=0.5")  # another population: another condition
    assert moved["condition_id"][0] != bare["condition_id"][0]
