"""The command line answers at once: help, listing and bad arguments import no heavy library.

Timing is measured by ``evalmc bench --only cli-help`` (and ``cli-list``) against ``python -c
pass``; here the cause of a slow start is checked: which libraries a command loads.
"""

import subprocess
import sys

import pytest

HEAVY = ("numba", "pandas", "scipy.stats", "scipy.special", "matplotlib", "joblib", "dask")

PROBE = """
import sys
from evalmc.cli import main
try:
    status = main({argv!r})
except SystemExit as stop:
    status = stop.code
print(status, [m for m in {heavy!r} if m in sys.modules], file=sys.stderr)
"""


@pytest.mark.parametrize(("argv", "status"), [
    (["--help"], 0),
    (["--version"], 0),
    (["list"], 0),
    (["list", "--format", "json"], 0),
    (["calibrate", "--help"], 0),
    (["calibrate", "--scenario", "normal"], 2),
    (["calibrate", "--scenario", "nope", "--criterion", "welch-t"], 2),
    (["calibrate", "--scenario", "normal", "--criterion", "nope"], 2),
    (["calibrate", "--scenario", "normal", "--param", "n_a=1", "--criterion", "welch-t"], 2),
    (["calibrate", "--scenario", "normal", "--criterion", "welch-t", "--alpha", "1.5"], 2),
    (["coverage", "--help"], 0),
    (["coverage", "--scenario", "normal", "--estimator", "nope"], 2),
    (["compare", "--help"], 0),
    (["boon", "--help"], 0),
    (["reproduce", "nope"], 2),
])
def test_command_loads_no_heavy_library(argv, status):
    proc = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
                          capture_output=True, text=True)
    last = proc.stderr.strip().splitlines()[-1]
    assert last == f"{status} []", proc.stderr

