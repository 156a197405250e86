"""Write ``swebench_bash_only.csv``, a genuine public board, into the folder given (default:
here): which of the 500 SWE-bench Verified instances each of the twelve best systems of
SWE-bench's bash-only leaderboard resolved, as the leaderboard's site publishes them.

Source: github.com/SWE-bench/swe-bench.github.io, commit
f1176b65ae29d14f4f52208b48e3d8cfc972bc17 (2025-12-10, "Update leaderboard"), file
``data/leaderboards.json`` (licence of that repository: CC BY-NC 4.0), the leaderboard named
``bash-only``: every model runs in the same minimal harness (mini-SWE-agent, bash commands
only), so the board compares the models. Each entry holds ``resolved`` (its headline share,
in %), ``folder`` (``<date>_mini-v<version>_<model>``) and ``per_instance_details``
(``{instance_id: {"resolved": bool, "cost": ..., "api_calls": ...}}``, the 500 instances).

The twelve entries with the highest ``resolved`` are kept (every one has per-instance
details; ties broken as the file lists them), the model named by its folder's ``<model>``.
One row per (model, instance): ``score`` 1 when ``per_instance_details[instance]["resolved"]``
is true, else 0; ``repo``, the instance's repository (the id's part before the issue number,
12 repositories). Below, the instances per repository and each model's 500 verdicts as a
125-digit hexadecimal number, bit i (from the left) the verdict on the i-th instance id in
sorted order; ``python make_swebench_bash_only.py --derive leaderboards.json`` recomputes
both from the source file and says whether they match.
"""

import json
import sys
from pathlib import Path

#: SWE-bench Verified's instances: issue numbers per repository (``<owner>__<repo>``).
INSTANCES = {
    "astropy__astropy": (
        "7166 7336 7606 7671 8707 8872 12907 13033 13236 13398 13453 13579 13977 14096 "
        "14182 14309 14365 14369 14508 14539 14598 14995"
    ),
    "django__django": (
        "7530 9296 10097 10554 10880 10914 10973 10999 11066 11087 11095 11099 11119 "
        "11133 11138 11141 11149 11163 11179 11206 11211 11239 11265 11276 11292 11299 "
        "11333 11400 11433 11451 11477 11490 11532 11551 11555 11603 11728 11734 11740 "
        "11749 11790 11815 11820 11848 11880 11885 11951 11964 11999 12039 12050 12125 "
        "12143 12155 12193 12209 12262 12273 12276 12304 12308 12325 12406 12419 12663 "
        "12708 12713 12741 12754 12774 12858 12965 13012 13023 13028 13033 13089 13109 "
        "13112 13121 13128 13158 13195 13212 13279 13297 13315 13343 13344 13346 13363 "
        "13401 13406 13410 13417 13449 13512 13513 13516 13551 13568 13569 13590 13658 "
        "13670 13741 13786 13794 13807 13809 13810 13820 13821 13837 13925 13933 13964 "
        "14007 14011 14017 14034 14053 14089 14122 14140 14155 14170 14238 14311 14315 "
        "14349 14351 14373 14376 14404 14434 14493 14500 14534 14539 14559 14580 14608 "
        "14631 14672 14725 14752 14765 14771 14787 14792 14855 14915 14999 15022 15037 "
        "15098 15103 15104 15127 15128 15161 15252 15268 15277 15278 15280 15315 15368 "
        "15375 15380 15382 15467 15499 15503 15525 15554 15561 15563 15569 15572 15629 "
        "15695 15731 15732 15741 15814 15851 15863 15916 15930 15957 15973 15987 16032 "
        "16082 16100 16116 16136 16139 16145 16255 16256 16263 16315 16333 16429 16454 "
        "16485 16493 16502 16527 16560 16569 16595 16612 16631 16642 16661 16662 16667 "
        "16801 16819 16877 16899 16901 16938 16950 17029 17084 17087"
    ),
    "matplotlib__matplotlib": (
        "13989 14623 20488 20676 20826 20859 21568 22719 22865 22871 23299 23314 23412 "
        "23476 24026 24149 24177 24570 24627 24637 24870 24970 25122 25287 25311 25332 "
        "25479 25775 25960 26113 26208 26291 26342 26466"
    ),
    "mwaskom__seaborn": (
        "3069 3187"
    ),
    "pallets__flask": (
        "5014"
    ),
    "psf__requests": (
        "1142 1724 1766 1921 2317 2931 5414 6028"
    ),
    "pydata__xarray": (
        "2905 3095 3151 3305 3677 3993 4075 4094 4356 4629 4687 4695 4966 6461 6599 6721 "
        "6744 6938 6992 7229 7233 7393"
    ),
    "pylint-dev__pylint": (
        "4551 4604 4661 4970 6386 6528 6903 7080 7277 8898"
    ),
    "pytest-dev__pytest": (
        "5262 5631 5787 5809 5840 6197 6202 7205 7236 7324 7432 7490 7521 7571 7982 8399 "
        "10051 10081 10356"
    ),
    "scikit-learn__scikit-learn": (
        "9288 10297 10844 10908 11310 11578 12585 12682 12973 13124 13135 13142 13328 "
        "13439 13496 13779 14053 14087 14141 14496 14629 14710 14894 14983 15100 25102 "
        "25232 25747 25931 25973 26194 26323"
    ),
    "sphinx-doc__sphinx": (
        "7440 7454 7462 7590 7748 7757 7889 7910 7985 8035 8056 8120 8265 8269 8459 8475 "
        "8548 8551 8593 8595 8621 8638 8721 9229 9230 9258 9281 9320 9367 9461 9591 9602 "
        "9658 9673 9698 9711 10323 10435 10449 10466 10614 10673 11445 11510"
    ),
    "sympy__sympy": (
        "11618 12096 12419 12481 12489 13031 13091 13372 13480 13551 13615 13647 13757 "
        "13798 13852 13877 13878 13974 14248 14531 14711 14976 15017 15345 15349 15599 "
        "15809 15875 15976 16450 16597 16766 16792 16886 17139 17318 17630 17655 18189 "
        "18199 18211 18698 18763 19040 19346 19495 19637 19783 19954 20154 20428 20438 "
        "20590 20801 20916 21379 21596 21612 21847 21930 22080 22456 22714 22914 23262 "
        "23413 23534 23824 23950 24066 24213 24443 24539 24562 24661"
    ),
}
#: Each model's verdicts, 1 bit per instance in sorted id order (the module docstring).
RESOLVED = {
    "claude-opus-4-5-20251101": (
        "8d4dd0ebefded73dafdb3ffffcf7f3fefdd71bddffdd7dfffd97f77cfdf76fff"
        "3edfbe6d61ffff63023797ffffff7addb23affd7f7fffc4ff6f32fe613fbf"
    ),
    "gemini-3-pro-preview-20251118": (
        "ad6dd2ebc7eedff4b6db9ffffcfff3feffd71bfdffdb6ddfdd97a7fcfd777eff"
        "6edfbeac79bff7e30a3797fffffffaddb63bfad5d7fbfcbdf6f30fe693fbf"
    ),
    "sonnet-4-5-20250929": (
        "8d6dd0ebeede5f3ceffb1effdcb6fbfebfd7139ffbdd65ffff97e7fcfd737cff"
        "6adb9eac613ef7731a37bffff7fffeddb23afb7757f9fe0ddaf30de613fff"
    ),
    "claude-4-opus-20250514": (
        "8d5dd0ebc6dc5f34aedb5ffffcf7e37eff539a9dfbdb65dfd797e7fcfd737ebf"
        "eedbbe2d6a3ef76312369d7ffbfb7eddb43ab9d5d7eeec4fc2f367e793dbf"
    ),
    "gpt-5.1-codex": (
        "8dcdd0cbcfdcc735feda17fbd4d773fe7fd71afdfbde79dfd597affced737eff"
        "2ed8ba24603fffe30a3797fff3ff7add963abbf4d7fbdc0dd6f345e593d9f"
    ),
    "gpt-5.1-2025-11-13": (
        "ad4dd0cbce5edf30afda17e7fcb2f37effd71abceb9d6ddfd596a7fcfdf37fff"
        "6ed9baac60bef4e30a36b7fff7fffedbb23abbf6d3f8fc8dfaf905e693dbf"
    ),
    "gpt-5": (
        "8d4dd0cbcfdcc735aedb5febdcb7f3feff539afdeb5f6ddf9593efdced737efe"
        "2edbb8ac40bef7630a369dfff7ff7a59b62bbbf7d3fcdc0ddaf10fe493f97"
    ),
    "claude-sonnet-4-20250514": (
        "8d55d0cbcfde4734abfb1ffff0f7f97e5d531b9dfbde6cdfdd17a7fcedf76fbf"
        "6cdabeac603ef7730236bdfeefff6eddb43aa997c3f8dccddef325e693dfd"
    ),
    "minimax-m2": (
        "8d5dc2ebd7dc4734aebb173edcf27b3e5d539b9def5974cdc59fc5fc6d7768ff"
        "eedbbea5e03bf6c202769ffffbfb7ad8b6382b91c7eefc4cd2f244e213fff"
    ),
    "deepseek-v3.2-reasoner": (
        "8d5dd2ab86ce4f3d8ff9170ef8d36afcffd612faebcf6dddd597a37c6df77cbe"
        "2edbbea4411ef5e3023691bef3fffa5f923abbd6d2da6408d6f3456633fbf"
    ),
    "gpt-5-mini": (
        "8d4dd0cbcf4c5535aedb97ebdc87f27efbd71b957b1e6ddbd59785fc7d716cff"
        "2cdbbea57a9ff68302169f7fe7ff7a9c241bb9d1c3fcdc05daf3476413dbd"
    ),
    "o3-2025-04-16": (
        "8d4dd0ebc25cdf25bfcb966f9cf772febf159add6bdd65dff593a7fced7368ff"
        "2c5bb824229bf7430216157afffe6a5c84123bd5c3f8dc4cdeb123e593dbf"
    ),
}


def instances() -> list[str]:
    """The 500 instance ids, sorted."""
    return sorted(f"{repo}-{number}" for repo, numbers in INSTANCES.items()
                  for number in numbers.split())


def verdicts(mask: str) -> list[int]:
    """The 0/1 verdicts, in the order of :func:`instances`, of a hexadecimal mask."""
    return [int(bit) for bit in format(int(mask, 16), f"0{len(instances())}b")]


def rows() -> list[str]:
    """The CSV's lines: model by model (board order), instance by instance."""
    lines = ["model,item,repo,score"]
    for model, mask in RESOLVED.items():
        for item, score in zip(instances(), verdicts(mask), strict=True):
            owner, repo = item.rsplit("-", 1)[0].split("__")
            lines.append(f"{model},{item},{owner}/{repo},{score}")
    return lines


def derive(source: Path) -> tuple[dict, dict]:
    """``INSTANCES`` and ``RESOLVED`` recomputed from the site's ``data/leaderboards.json``."""
    boards = json.loads(source.read_text())["leaderboards"]
    entries = next(board["results"] for board in boards if board["name"] == "bash-only")
    top = sorted(entries, key=lambda entry: -float(entry["resolved"]))[:12]
    ids = sorted(top[0]["per_instance_details"])
    numbers = {}
    for item in ids:
        repo, number = item.rsplit("-", 1)
        numbers.setdefault(repo, []).append(int(number))
    found = {repo: " ".join(map(str, sorted(n))) for repo, n in sorted(numbers.items())}
    masks = {}
    for entry in top:
        details = entry["per_instance_details"]
        bits = "".join("1" if details[item]["resolved"] else "0" for item in ids)
        masks[entry["folder"].split("_", 2)[2]] = format(int(bits, 2), f"0{len(ids) // 4}x")
    return found, masks


def main(folder: Path) -> None:
    (folder / "swebench_bash_only.csv").write_text("\n".join(rows()) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--derive"]:
        found, masks = derive(Path(sys.argv[2]))
        same = found == {r: " ".join(n.split()) for r, n in INSTANCES.items()} and masks == RESOLVED
        print("the source gives the instances and verdicts written here" if same
              else "the source differs from what is written here")
        sys.exit(0 if same else 1)
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
