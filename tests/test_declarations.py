"""Each registered thing is declared once: its row holds its name, its parameters' defaults and
its facts; what runs, what it is named and what it is cached under all follow from the row.

A family's function repeats the row's defaults in its signature (so that a direct call does
what the name says); these tests fail when the two copies differ, when a row's default is not
what runs, and when two spellings of one thing get two names or one name covers two things
(a name is a cache key and the name of random streams).
"""

import dataclasses
import inspect
import math

import numpy as np
import pytest

from evalmc.criteria import CRITERIA, get_criterion
from evalmc.criteria.base import build
from evalmc.estimators.intervals import get_estimator
from evalmc.estimators.registry import ESTIMATORS
from evalmc.registry import Entry, Param
from evalmc.sims import SCENARIOS, get_scenario

FAMILIES = [pytest.param(registry, name, id=f"{registry.kind}:{name}")
            for registry in (CRITERIA, ESTIMATORS)
            for name, entry in registry.items() if entry.params]


def test_the_families_are_all_here():
    assert len(FAMILIES) >= 36  # 13 criteria and 23 estimators when this was written


@pytest.mark.parametrize(("registry", "name"), FAMILIES)
def test_a_familys_function_states_its_rows_defaults(registry, name):
    entry = registry[name]
    signature = inspect.signature(entry.load())
    assert {k: p.default for k, p in signature.parameters.items()} == entry.defaults()


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_a_scenarios_fields_are_its_rows_parameters(name):
    fields = {f.name: f.default for f in get_scenario(name).parameters()}
    assert fields == SCENARIOS[name].defaults()


@pytest.mark.parametrize("name", [n for n, e in ESTIMATORS.items() if e.params])
def test_an_estimators_facts_are_its_rows(name):
    entry, est = ESTIMATORS[name], get_estimator(name)
    assert est.needs == entry.facts.get("needs", "scores")
    assert est.paired == entry.facts.get("paired", False)
    assert est.estimand == entry.facts.get("estimand")


def _spy(level=0.5, n=3):
    """A family's target that returns its arguments, to see what a build passes it."""
    return {"level": level, "n": n}


_SPY = Entry("spy", f"{__name__}:_spy", "a family whose row and signature disagree",
             (Param("level", 0.9, float, ""), Param("n", 3, int, "")))


def test_the_rows_default_is_what_a_criterion_runs():
    assert build(_SPY).test == {"level": 0.9, "n": 3} and build(_SPY).name == "spy"
    built = build(_SPY, {"level": 0.5})
    assert built.test == {"level": 0.5, "n": 3} and built.name == "spy(level=0.5)"


def test_the_rows_default_is_what_an_estimator_runs(monkeypatch):
    entry = ESTIMATORS["t-interval"]
    changed = dataclasses.replace(entry, params=(dataclasses.replace(entry.params[0],
                                                                     default=0.9),))
    monkeypatch.setitem(ESTIMATORS._entries, "t-interval", changed)
    assert get_estimator("t-interval").level == 0.9
    spelled = get_estimator("t-interval(level=0.95)")
    assert (spelled.name, spelled.level) == ("t-interval(level=0.95)", 0.95)


def _spellings(param: Param) -> list[str]:
    value = param.default
    if param.kind is int:
        return [str(value), f"{float(value)}", f"{value:.3e}"]
    return [repr(value), f"{value:.17g}", f"{value:.12e}"]


@pytest.mark.parametrize(("registry", "name"), FAMILIES)
def test_every_spelling_of_the_defaults_is_the_bare_name(registry, name):
    entry = registry[name]
    for param in entry.params:
        if param.default is None or param.kind is str:
            continue
        for text in _spellings(param):
            spelled, args = registry.resolve(f"{name}({param.name}={text})")
            assert spelled.name_with(args) == name, text


@pytest.mark.parametrize(("registry", "name"), FAMILIES)
def test_two_values_are_two_names_and_a_name_reads_back_as_its_value(registry, name):
    entry = registry[name]
    for param in entry.params:
        if param.kind is str:
            continue
        base = param.default if param.default not in (None, 0) else 1
        if param.kind is int:
            values = [base + 1, base + 2]
        else:  # the nearest floats: :g alone would name them alike
            values = [float(base) * 1.5, np.nextafter(float(base) * 1.5, math.inf)]
        names = [entry.name_with({param.name: v}) for v in values]
        assert names[0] != names[1], names
        for value, spelled in zip(values, names, strict=True):
            assert registry.resolve(spelled)[1] == {param.name: value}


def test_a_criterion_is_cached_under_the_name_it_runs_as():
    plain, spelled = get_criterion("prob-outperform"), get_criterion("prob-outperform(gamma=0.75)")
    assert plain.key == spelled.key == "prob-outperform"
    assert get_criterion("prob-outperform(gamma=0.7500001)").key != plain.key


def test_a_criterions_interval_is_a_registered_estimator():
    named = {n: e.facts["interval"] for n, e in CRITERIA.items() if "interval" in e.facts}
    assert named and all(interval in ESTIMATORS for interval in named.values()), named
