"""Every example in the package's docstrings runs and prints what it shows.

Each module's doctests run once here (the names of ``evalmc.__all__`` also have their own
check, in ``test_api.py``). A public function or class of the package documents itself with a
seeded Examples section; this collects them all.
"""

import doctest
import importlib
import io
import pkgutil

import pytest

import evalmc
import evalmc.reproductions
import evalmc.sims


def _modules() -> list[str]:
    """Every module of the package: core/ is evalmc, and sims/ and reproductions/ are mapped
    onto its subpackages from folders of their own, so each is walked."""
    names = {"evalmc", "evalmc.sims", "evalmc.reproductions"}
    for package in (evalmc, evalmc.sims, evalmc.reproductions):
        names |= {m.name for m in pkgutil.walk_packages(package.__path__,
                                                        f"{package.__name__}.")}
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_examples_of_the_module_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = [t for t in finder.find(module, name) if t.examples
             and t.name.startswith(name)]  # its own, not those of names it imports
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    for test in tests:
        runner.run(test, out=report.write)
    assert runner.failures == 0, report.getvalue()
