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
    """A parameter of a registered thing: its name, default, type and a one-line doc.

    Examples
    --------
    >>> from evalmc.registry import Param
    >>> Param("n", 10, int, "runs per replication").coerce("12")
    12
    """

    name: str
    default: object
    kind: type
    doc: str

    def coerce(self, text: str):
        """The command-line text of this parameter as a value of its type.

        Parameters
        ----------
        text : str

        Returns
        -------
        int, float or str

        Raises
        ------
        ValueError
            Naming the parameter and its type.

        Examples
        --------
        >>> from evalmc.registry import Param
        >>> Param("rho", 0.0, float, "correlation").coerce("0.5")
        0.5
        >>> Param("n", 10, int, "runs").coerce("ten")
        Traceback (most recent call last):
        ...
        ValueError: `n` must be an integer; got 'ten'.
        """
        if self.kind is str:
            return text
        try:
            return float(text) if self.kind is float else int(text)
        except ValueError:
            rule = "an integer" if self.kind is int else "a real number"
            raise ValueError(f"`{self.name}` must be {rule}; got {text!r}.") from None


@dataclass(frozen=True)
class Entry:
    """One registered thing.

    Attributes
    ----------
    name : str
    target : str
        Its implementation, ``'module:attribute'``, imported by :meth:`load`.
    description : str
        One line, as ``evalmc list`` shows it.
    params : tuple of Param
        Its parameters, in order (a scenario's, or a criterion's that takes arguments).
    facts : dict
        What else the command line shows or checks without loading it (for example a
        criterion's ``paired``, the data it ``needs``).

    Examples
    --------
    >>> from evalmc.registry import Entry
    >>> Entry("sqrt", "math:sqrt", "square root").load()(16.0)
    4.0
    """

    name: str
    target: str
    description: str
    params: tuple[Param, ...] = ()
    facts: dict = field(default_factory=dict)

    def load(self):
        """The implementation: ``target``'s attribute of its module, imported now.

        Returns
        -------
        object

        Examples
        --------
        >>> from evalmc.registry import Entry
        >>> Entry("pi", "math:pi", "the circle's constant").load()
        3.141592653589793
        """
        module, _, attribute = self.target.partition(":")
        return getattr(importlib.import_module(module), attribute)

    def name_with(self, args: Mapping) -> str:
        """The name of this entry built with `args`: ``name(key=value,...)`` of the arguments
        that differ from the defaults (:func:`format_spec`).

        Parameters
        ----------
        args : mapping
            Arguments by parameter name, in the parameters' order.

        Returns
        -------
        str

        Examples
        --------
        >>> from evalmc.criteria import CRITERIA
        >>> CRITERIA["nemenyi"].name_with({"i": 0, "j": 4})
        'nemenyi(i=0,j=4)'
        """
        return format_spec(self.name, args, self.defaults())

    def defaults(self) -> dict:
        """Parameter name to default value, in order.

        Returns
        -------
        dict

        Examples
        --------
        >>> from evalmc.sims import SCENARIOS
        >>> SCENARIOS["pool"].defaults()
        {'preset': 'asreader-random', 'n': 10, 'shift': 0.0}
        """
        return {p.name: p.default for p in self.params}

    def param(self, name: str) -> Param:
        """The parameter `name`, or a ValueError naming the valid ones.

        Parameters
        ----------
        name : str

        Returns
        -------
        Param

        Examples
        --------
        >>> from evalmc.sims import SCENARIOS
        >>> SCENARIOS["pool"].param("n").doc
        'runs per model and replication'
        """
        for p in self.params:
            if p.name == name:
                return p
        valid = ", ".join(p.name for p in self.params) or "none"
        raise ValueError(f"unknown parameter `{name}` for {self.name!r}; valid parameters: "
                         f"{valid}.")


class Registry(Mapping):
    """The entries of one kind, by name, in the order declared.

    Parameters
    ----------
    kind : str
        What an entry is (``'scenario'``, ``'criterion'``, ...), for messages.
    entries : iterable of Entry
    also : str
        What else names a thing of this kind, for the message of an unknown name (e.g.
        ``'path/to/file.py:function'``).

    Examples
    --------
    >>> from evalmc.registry import Entry, Registry
    >>> funcs = Registry("function", [Entry("sqrt", "math:sqrt", "square root")])
    >>> list(funcs), funcs.entry("sqrt").description
    (['sqrt'], 'square root')
    >>> funcs.entry("cbrt")
    Traceback (most recent call last):
    ...
    ValueError: unknown function 'cbrt'; valid names: sqrt.
    """

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
        """The entry `name`, or a ValueError listing the valid names.

        Parameters
        ----------
        name : str

        Returns
        -------
        Entry

        Examples
        --------
        >>> from evalmc.criteria import CRITERIA
        >>> CRITERIA.entry("welch-t").target
        'evalmc.criteria.ttests:welch_t'
        """
        try:
            return self._entries[name]
        except (KeyError, TypeError):
            families = [n for n, e in self._entries.items() if e.params]
            others = ([f"name(key=value) for {', '.join(families)}"] if families and self.also
                      else []) + ([self.also] if self.also else [])
            raise ValueError(f"unknown {self.kind} {name!r}; valid names: "
                             f"{', '.join([*self._entries, *others])}.") from None

    def parse(self, spec: str) -> tuple[Entry, dict]:
        """The entry of ``name(key=value,...)`` and its arguments, each of its parameter's type.

        Parameters
        ----------
        spec : str

        Returns
        -------
        tuple of (Entry, dict)
            The arguments given, in the order given.

        Raises
        ------
        ValueError
            For an unknown name, an entry that takes no arguments, an unknown key or a value
            not of its parameter's type.

        Examples
        --------
        >>> from evalmc.registry import Entry, Param, Registry
        >>> tests = Registry("criterion", [Entry("nemenyi", "m:f", "Nemenyi test", (
        ...     Param("i", None, int, "first model"), Param("j", None, int, "second model")))])
        >>> tests.parse("nemenyi(i=0, j=4)")[1]
        {'i': 0, 'j': 4}
        """
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
        keywords `args` together, checked and in the order of its parameters.

        Parameters
        ----------
        spec : str
        args : mapping, optional
            More arguments, by parameter name.

        Returns
        -------
        tuple of (Entry, dict)

        Raises
        ------
        ValueError
            As :meth:`parse`, and for a keyword that is not a parameter of the entry.

        Examples
        --------
        >>> from evalmc.criteria import CRITERIA
        >>> entry, args = CRITERIA.resolve("average-delta(sigma=2)", {"delta": 0.5})
        >>> args, entry.name_with(args)
        ({'delta': 0.5, 'sigma': 2.0}, 'average-delta(delta=0.5,sigma=2)')
        """
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
    """A name and its ``key=value`` arguments as texts, from ``name(key=value,...)``.

    Parameters
    ----------
    spec : str
        A name, or a name followed by comma-separated ``key=value`` in parentheses; spaces
        are ignored.

    Returns
    -------
    tuple of (str, list of (str, str))

    Raises
    ------
    ValueError
        When the text is not of that form.

    Examples
    --------
    >>> from evalmc.registry import parse_spec
    >>> parse_spec("single-point(delta=1, sigma=0.2)")
    ('single-point', [('delta', '1'), ('sigma', '0.2')])
    >>> parse_spec("welch-t")
    ('welch-t', [])
    """
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
    unless that would round it (then in full).

    The inverse of :func:`parse_spec`: the name a thing built with `args` is known by (its
    results and its random streams are named by it).

    Parameters
    ----------
    name : str
    args : mapping
        Argument name to value, in the order to print.
    defaults : mapping, optional
        Argument name to default: an argument equal to its default is left out.

    Returns
    -------
    str

    Examples
    --------
    >>> from evalmc.registry import format_spec
    >>> format_spec("bayes-signed-rank", {"rope": 0.01, "threshold": 0.95},
    ...             {"rope": 0.0, "threshold": 0.95})
    'bayes-signed-rank(rope=0.01)'
    >>> format_spec("welch-t", {})
    'welch-t'
    >>> format_spec("bayes-signed-rank", {"n_samples": 1_000_000})  # integers in full
    'bayes-signed-rank(n_samples=1000000)'
    >>> format_spec("bayes-signed-rank", {"rope": 0.0100000001})  # not rounded to 0.01
    'bayes-signed-rank(rope=0.0100000001)'
    """
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
