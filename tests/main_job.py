"""The quick-scale figures that CI's main job has just written, for the reproductions' tests.

.ci/run runs the README's first command (``evalmc reproduce all --scale quick``, which
writes every figure under ``figures/quick/``) and then the tests, on the same checkout. So
that the tests do not compute the same figures again, .ci/run vouches for them: it sets
``EVALMC_MAIN_JOB_FIGURES`` to that folder and ``EVALMC_MAIN_JOB_LIBRARIES`` to what this
file prints when the main job's Python runs it, the version of every distribution the main
job ran with. A test reads the figures only when both are set and every one of those
distributions has the same version in its own environment; otherwise (a developer's run, a
stale folder, other library versions) it computes them.

    python tests/main_job.py     # the versions, as JSON
"""

import json
import os
import sys
import warnings
from importlib import metadata
from pathlib import Path

from evalmc.reproductions import runner


def libraries() -> dict:
    """``{distribution: version}`` of this environment, and Python's own version."""
    found = {d.metadata["Name"].lower().replace("_", "-"): d.version
             for d in metadata.distributions()}
    return {**found, "python": sys.version}


def vouched():
    """The main job's figures folder, or None when .ci/run has not vouched for it or the main
    job ran with other libraries."""
    folder, theirs = (os.environ.get(f"EVALMC_MAIN_JOB_{k}") for k in ("FIGURES", "LIBRARIES"))
    if not folder or not theirs:
        return None
    mine = libraries()
    differ = {k: (v, mine.get(k)) for k, v in json.loads(theirs).items() if mine.get(k) != v}
    if differ:
        warnings.warn(f"the main job ran with other libraries than the tests ({differ}): "
                      f"the quick figures are computed again", stacklevel=2)
        return None
    return Path(folder)


def checks(folder: Path, paper: str, figure: str) -> list:
    """The checks of one figure of the quick scale written under `folder`."""
    from evalmc.reproductions.report import Check

    record = json.loads((folder / paper / f"{figure}.checks.json").read_text())
    assert (record["paper"], record["figure"], record["scale"]) == (paper, figure, "quick")
    assert (folder / paper / f"{figure}.csv").is_file()
    return [Check(**c) for c in record["checks"]]


def figures(paper: str):
    """``(folder, checks)``: the main job's figures of `paper` and their checks in the order
    :func:`evalmc.reproductions.runner.reproduce` returns them, or None (see `vouched`)."""
    folder = vouched()
    if folder is None:
        return None
    return folder, [c for figure in runner.figures(paper)
                    for c in checks(folder, paper, figure.name)]


if __name__ == "__main__":
    print(json.dumps(libraries(), sort_keys=True))
