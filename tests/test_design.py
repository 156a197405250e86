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


def test_a_file_counts_by_its_content_not_its_path(tmp_path):
    """The same scores under two paths give one condition id; other scores another."""
    from evalmc.sims import get_scenario
    from evalmc.study.design import condition_id

    scenario = get_scenario("empirical-paired")
    first, moved, other = (tmp_path / "a.csv", tmp_path / "sub" / "b.csv", tmp_path / "c.csv")
    moved.parent.mkdir()
    for path, last in ((first, "0.9"), (moved, "0.9"), (other, "0.8")):
        path.write_text(f"a,b\n0.5,0.4\n0.7,0.6\n{last},0.7\n")
    ids = [condition_id({"file": str(p), "a": "a", "b": "b"}, scenario)
           for p in (first, moved, other)]
    assert ids[0] == ids[1] != ids[2]
