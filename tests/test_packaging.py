"""The wheel installs one package, `evalmc`, and its layers import one way only.

The source folders core/, sims/ and reproductions/ are mapped onto evalmc, evalmc.sims and
evalmc.reproductions, so the layering contract (pyproject.toml, import-linter) is checked on the
built wheel, where the package is nested as users get it.
"""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
FOLDERS = {"core": "evalmc", "sims": "evalmc/sims", "reproductions": "evalmc/reproductions"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of the sources: a build in the checkout writes its build/
    folder there, which two test processes building at once would share."""
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("wheel")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    skip = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc")
    for folder in FOLDERS:
        shutil.copytree(ROOT / folder, source / folder, ignore=skip)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out),
                    str(source)], check=True, capture_output=True)
    (path,) = out.glob("evalmc-*.whl")
    return path


@pytest.fixture
def unpacked(wheel, tmp_path) -> Path:
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def lint_imports(folder: Path) -> subprocess.CompletedProcess:
    """Run import-linter on the package unpacked in `folder` (which goes first on the path)."""
    script = "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"
    command = [sys.executable, "-c", script, "--config", "pyproject.toml", "--no-cache"]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True,
                           env={"PYTHONPATH": str(folder), "PATH": ""})


def test_wheel_installs_only_evalmc(wheel):
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"evalmc"}


def test_wheel_holds_every_source_module(wheel):
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    for folder, package in FOLDERS.items():
        for source in (ROOT / folder).rglob("*.py"):
            if "__pycache__" not in source.parts:
                assert f"{package}/{source.relative_to(ROOT / folder).as_posix()}" in shipped


def test_layers_are_kept(unpacked):
    proc = lint_imports(unpacked)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{CONTRACTS} kept, 0 broken" in proc.stdout


#: The contracts of pyproject.toml (tomllib is Python 3.11+: counted as text).
CONTRACTS = (ROOT / "pyproject.toml").read_text().count("[[tool.importlinter.contracts]]")


@pytest.mark.parametrize(("module", "upward"), [
    ("sims/base.py", "evalmc.study.rates"),  # the simulators below everything
    ("engine/tallies.py", "evalmc.criteria.base"),  # the engine knows no criterion
    ("stats/mcse.py", "evalmc.engine.tallies"),  # statistics below the engine
    ("criteria/ttests.py", "evalmc.study.rates"),  # criteria below the studies
    ("engine/tallies.py", "evalmc.engine.scheduler"),  # inside the engine
    ("study/rates.py", "evalmc.study.calibration"),  # inside the studies
])
def test_an_upward_import_breaks_the_contract(unpacked, module, upward):
    path = unpacked / "evalmc" / module
    path.write_text(path.read_text() + f"\nimport {upward}  # noqa\n")
    proc = lint_imports(unpacked)
    importer = "evalmc." + module.removesuffix(".py").replace("/", ".")
    assert proc.returncode != 0
    assert "BROKEN" in proc.stdout and f"{importer} -> {upward}" in proc.stdout


def test_a_module_outside_every_layer_breaks_the_contract(unpacked):
    (unpacked / "evalmc" / "stray.py").write_text("")
    proc = lint_imports(unpacked)
    assert proc.returncode != 0 and "evalmc.stray" in proc.stdout
