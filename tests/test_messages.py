"""What the command line says to bad input it is given: the option's name and the rule, in one
line, never a Python keyword alone or a library's internal message."""

import zipfile
from pathlib import Path

from evalmc.cli import main

EXAMPLES = Path(__file__).parent / "examples"
EVAL = next((EXAMPLES / "inspect").glob("*.eval"))


def _refused(capsys, *argv) -> str:
    """The one line of a refusal (exit 2, nothing on stdout)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1, err
    return err.removeprefix("evalmc: error: ").rstrip("\n")


def test_too_few_resamples_name_the_option_and_the_rule(capsys):
    line = _refused(capsys, "compare", EXAMPLES / "pairs.csv", "--a", "A", "--b", "B",
                    "--resamples", "1")
    assert line == ("`--resamples` must give the 0.95 percentile interval two distinct ends, "
                    "the resamples' order statistics 1 and 1 here; got 1 (e.g. 40 do).")
    assert main(["compare", str(EXAMPLES / "pairs.csv"), "--a", "A", "--b", "B",
                 "--resamples", "40"]) == 0


def test_a_negative_value_says_how_to_give_it(capsys):
    plan = ["plan", "--scenario", "normal", "--criterion", "welch-t", "--solve", "n_b",
            "--cost", "n_a=16,24"]
    assert _refused(capsys, *plan, "--unit-costs", "-1,4") == (
        "argument --unit-costs: expected one argument (a value that starts with '-' is "
        "written --unit-costs=VALUE)")
    assert _refused(capsys, *plan, "--unit-costs=-1,4") == (
        "`--unit-costs` must be two positive numbers C1,C2; got '-1,4'.")


def test_the_null_example_names_a_parameter_of_the_scenario(capsys):
    line = _refused(capsys, "plan", "--scenario", "two-models", "--criterion", "proportion",
                    "--solve", "n")
    assert line == ("scenario 'two-models' has no `shift` or `delta` parameter: give `--null`, "
                    "the parameters of its null condition (e.g. --null theta_a=0.5 on the "
                    "command line, null={'theta_a': 0.5} in Python).")


def test_a_truncated_or_corrupt_eval_log_is_named(tmp_path, capsys):
    data = EVAL.read_bytes()
    cut = tmp_path / "cut.eval"
    cut.write_bytes(data[:len(data) // 2])
    assert _refused(capsys, "audit", cut, "--a", "x", "--b", "y") == (
        "cut.eval: a zip archive (an inspect_ai .eval log) that cannot be opened: it looks "
        "truncated or corrupt (no zip directory at its end); copy or write it again.")
    info = next(i for i in zipfile.ZipFile(EVAL).infolist() if i.filename.startswith("samples/"))
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    spoiled = bytearray(data)
    spoiled[start + 5:start + 15] = bytes(b ^ 0xFF for b in spoiled[start + 5:start + 15])
    bad = tmp_path / "bad.eval"
    bad.write_bytes(bytes(spoiled))
    line = _refused(capsys, "audit", bad, "--a", "x", "--b", "y")
    assert line.startswith(f"bad.eval {info.filename}: corrupt in the archive (")
    noise = tmp_path / "noise.eval"
    noise.write_bytes(bytes(range(128, 256)))
    assert _refused(capsys, "audit", noise, "--a", "x", "--b", "y") == (
        "noise.eval: neither an inspect_ai .eval archive nor a JSON log (byte 0 is not UTF-8 "
        "text).")


def test_models_on_different_items_name_the_flag_and_the_keyword(tmp_path, capsys):
    """Already so before: the refusal names --common and common=True; with it the audit runs."""
    path = tmp_path / "items.csv"
    path.write_text("model,item,score\n" + "".join(
        f"{m},{i},{(i * 7 + (m == 'x')) % 3 > 0:d}\n" for m in "xy"
        for i in range(40 + (m == "x"))))
    line = _refused(capsys, "audit", path, "--a", "x", "--b", "y")
    assert "common=True (--common on the command line) keeps the common ones." in line
    assert main(["audit", str(path), "--a", "x", "--b", "y", "--criterion", "paired-items",
                 "--estimator", "paired-z-interval", "--reps", "100", "--reps-alt", "20",
                 "--quiet", "--common"]) == 0
