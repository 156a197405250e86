"""Validation of user-facing parameters, with messages that name the parameter and the rule."""

from __future__ import annotations

import math
import numbers

import numpy as np

#: A population difference within this share of its scale (its largest term; 1 for rates) is an
#: exact null:
#: only the rounding of floats parts it from 0 (``0.7 + 0.1 - 0.8`` is -1.1e-16 in floats).
NULL_TOLERANCE = 1e-12


def check_int(name: str, value, *, low: int | None = None, high: int | None = None) -> int:
    """`value` as an int within the inclusive bounds (an integral float counts, a bool does not),
    or a ValueError naming `name` and the rule."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"`{name}` must be an integer; got {value!r}.")
    if not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"`{name}` must be an integer; got {value!r}.")
    value = int(value)
    _check_bounds(name, value, low, high, "an integer")
    return value


def check_float(
    name: str,
    value,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """`value` as a finite float within the bounds (`open_low`, `open_high`: excluded), or a
    ValueError naming `name` and the rule."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"`{name}` must be a real number; got {value!r}.")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"`{name}` must be finite; got {value}.")
    if open_low or open_high:
        lo = "(" if open_low else "["
        hi = ")" if open_high else "]"
        interval = f"{lo}{_fmt(low, '-inf')}, {_fmt(high, 'inf')}{hi}"
        bad = (low is not None and (value <= low if open_low else value < low)) or (
            high is not None and (value >= high if open_high else value > high)
        )
        if bad:
            raise ValueError(f"`{name}` must be in {interval}; got {value}.")
        return value
    _check_bounds(name, value, low, high, "a number")
    return value


def check_sd(name: str, value, *, zero: bool = False) -> float:
    """`value` as a standard deviation, a finite float above 0 (at least 0 with `zero`) whose
    square is finite, or a ValueError."""
    sd = check_float(name, value, low=0, open_low=not zero)
    if not math.isfinite(sd * sd):
        raise ValueError(f"`{name}` must be at most {math.sqrt(np.finfo(float).max):.4g}, so "
                         f"that its square, the variance, is finite; got {sd:g}.")
    return sd


def population_sum(what: str, plus: dict, minus: dict | None = None) -> float:
    """``sum(plus) - sum(minus)`` summed exactly (:func:`math.fsum`), 0.0 within
    :data:`NULL_TOLERANCE` of its largest term (a null is decided by it, not by float equality),
    and a ValueError naming the parameters when not finite."""
    minus = minus or {}
    values = [*plus.values(), *(-v for v in minus.values())]
    try:
        total = math.fsum(values)
    except OverflowError:  # an intermediate sum overflowed: so does the value
        total = sum(values)
    if not math.isfinite(total):
        formula = " + ".join(f"`{k}`" for k in plus) + "".join(f" - `{k}`" for k in minus)
        given = ", ".join(f"{k}={v:g}" for k, v in {**plus, **minus}.items())
        raise ValueError(f"{what}, {formula}, must be finite; got {total} ({given}).")
    return 0.0 if abs(total) <= NULL_TOLERANCE * max(map(abs, values)) else total


def check_choice(name: str, value, choices) -> str:
    """`value` if it is one of `choices`, else a ValueError listing them."""
    if value not in choices:
        valid = ", ".join(repr(c) for c in choices)
        raise ValueError(f"`{name}` must be one of {valid}; got {value!r}.")
    return value


def _check_bounds(name, value, low, high, kind):
    """Raise ValueError unless `value` lies in the inclusive bounds."""
    if low is not None and high is not None and not low <= value <= high:
        raise ValueError(f"`{name}` must be {kind} in [{low}, {high}]; got {value}.")
    if low is not None and value < low:
        raise ValueError(f"`{name}` must be {kind} >= {low}; got {value}.")
    if high is not None and value > high:
        raise ValueError(f"`{name}` must be {kind} <= {high}; got {value}.")


def _fmt(bound, default):
    """A bound as text, `default` when it is None."""
    return default if bound is None else f"{bound:g}"
