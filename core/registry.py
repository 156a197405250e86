"""Registries: one per kind of thing evalmc names (scenarios, criteria, estimators, figures,
benchmark workloads), each a light table declared once beside the things it lists.

An entry holds what the command line shows and checks (the name, a one-line description, the
parameters with their defaults, and facts such as the data a scenario yields) and the place
of its implementation, ``'module:attribute'``, imported on first use. Reading a registry
imports no numerical library, so ``evalmc --help``, ``evalmc list`` and the checks of the
command line's arguments start at once.

Names with arguments, ``name(key=value,...)``, have one parser (:func:`parse_spec`) and one
printer (:func:`format_spec`), shared by every kind.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

_SPEC = re.compile(r"([\w.-]+)(?:\((.*)\))?")


@dataclass(frozen=True)
class Param:
    """A parameter of a registered thing: its name, default, type and a one-line doc."""

    name: str
    default: object
    kind: type
    doc: str

    def coerce(self, text: str):
        """The command-line text of this parameter as a value of its type, or a ValueError naming
        it."""
        if self.kind is str:
            return text
        try:
            return float(text) if self.kind is float else int(text)
        except ValueError:
            rule = "an integer" if self.kind is int else "a real number"
            raise ValueError(f"`{self.name}` must be {rule}; got {text!r}.") from None


@dataclass(frozen=True)
class Entry:
    """One registered thing: its name, its implementation ``'module:attribute'`` (:meth:`load`), a
    one-line description, its parameters, and `facts` the command line shows or checks without
    loading it (a criterion's ``paired``, the data it ``needs``)."""

    name: str
    target: str
    description: str
    params: tuple[Param, ...] = ()
    facts: dict = field(default_factory=dict)

    def load(self):
        """The implementation: ``target``'s attribute of its module, imported now."""
        module, _, attribute = self.target.partition(":")
        return getattr(importlib.import_module(module), attribute)

    def name_with(self, args: Mapping) -> str:
        """``name(key=value,...)`` of the arguments `args` that differ from the defaults
        (:func:`format_spec`)."""
        return format_spec(self.name, args, self.defaults())

    def defaults(self) -> dict:
        """Parameter name to default value, in order."""
        return {p.name: p.default for p in self.params}

    def param(self, name: str) -> Param:
        """The parameter `name`, or a ValueError naming the valid ones."""
        for p in self.params:
            if p.name == name:
                return p
        valid = ", ".join(p.name for p in self.params) or "none"
        raise ValueError(f"unknown parameter `{name}` for {self.name!r}; valid parameters: "
                         f"{valid}.")


class Registry(Mapping):
    """The entries of one `kind`, by name, in the order declared; `also` says what else names a
    thing of this kind, for the message of an unknown name."""

    def __init__(self, kind: str, entries: Iterable[Entry], *, also: str = ""):
        self.kind, self.also = kind, also
        self._entries: dict[str, Entry] = {}
        for entry in entries:
            if entry.name in self._entries:
                raise ValueError(f"{kind} {entry.name!r} is registered twice.")
            self._entries[entry.name] = entry

    def __getitem__(self, name: str) -> Entry:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {list(self._entries)})"

    def entry(self, name: str) -> Entry:
        """The entry `name`, or a ValueError listing the valid names."""
        try:
            return self._entries[name]
        except (KeyError, TypeError):
            families = [n for n, e in self._entries.items() if e.params]
            others = ([f"name(key=value) for {', '.join(families)}"] if families and self.also
                      else []) + ([self.also] if self.also else [])
            raise ValueError(f"unknown {self.kind} {name!r}; valid names: "
                             f"{', '.join([*self._entries, *others])}.") from None

    def parse(self, spec: str) -> tuple[Entry, dict]:
        """The entry of ``name(key=value,...)`` and its arguments in the order given, each of its
        parameter's type; a ValueError for a name, key or value it does not take."""
        name, items = parse_spec(spec)
        entry = self.entry(name)
        if items and not entry.params:
            takes = [n for n, e in self._entries.items() if e.params]
            raise ValueError(f"{self.kind} {name!r} takes no parameters; {self.kind} names "
                             f"with parameters: {', '.join(takes)}.")
        args = {}
        for key, text in items:
            if not any(p.name == key for p in entry.params):
                raise ValueError(f"{self.kind} {name!r}: {key}={text} is not key=value with a "
                                 f"key among {', '.join(p.name for p in entry.params)}.")
            kind = entry.param(key).kind
            try:
                value = text if kind is str else float(text)
            except ValueError:
                raise ValueError(f"{self.kind} {name!r}: `{key}` must be a number; got "
                                 f"{text!r}.") from None
            if kind is int and value.is_integer():  # '1e3' and '2.0' are integers too
                value = int(value)
            args[key] = value
        return entry, args

    def resolve(self, spec: str, args: Mapping | None = None) -> tuple[Entry, dict]:
        """The entry of ``name(key=value,...)`` and its arguments, those of the text and the
        keywords `args` together, checked and in the order of its parameters."""
        entry, given = self.parse(spec)
        args = {**given, **(args or {})}
        if args and not entry.params:
            raise ValueError(f"{self.kind} {entry.name!r} takes no parameters; got "
                             f"{', '.join(args)}.")
        return entry, _ordered(entry, args)


def _ordered(entry: Entry, args: Mapping) -> dict:
    for key in args:
        entry.param(key)
    return {p.name: args[p.name] for p in entry.params if p.name in args}


def parse_spec(spec: str) -> tuple[str, list[tuple[str, str]]]:
    """A name and its ``key=value`` arguments as texts, from ``name(key=value,...)`` (spaces
    ignored)."""
    text = spec.replace(" ", "") if isinstance(spec, str) else ""
    match = _SPEC.fullmatch(text)
    if not match:
        raise ValueError(f"{spec!r} is not a name or name(key=value,...).")
    name, inside = match.groups()
    items = []
    for item in filter(None, (inside or "").split(",")):
        key, equals, value = item.partition("=")
        if not equals or not key or not value:
            raise ValueError(f"{name!r}: {item!r} is not key=value.")
        items.append((key, value))
    return name, items


def format_spec(name: str, args: Mapping, defaults: Mapping | None = None) -> str:
    """``name(key=value,...)`` of the arguments that differ from `defaults`, a float as ``:g``
    unless that would round it: the inverse of :func:`parse_spec`, the name results and streams go
    by."""
    defaults = defaults or {}
    shown = [f"{k}={_text(v)}" for k, v in args.items()
             if v is not None and not (k in defaults and v == defaults[k])]
    return f"{name}({','.join(shown)})" if shown else name


def _text(value) -> str:
    """A value as a name shows it: a float as ``:g`` when that reads back as the same float,
    else in full (two values one name would be one cache key)."""
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(float(value))
    return str(value)
