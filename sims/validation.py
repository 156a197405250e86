"""Validation of user-facing parameters, with messages that name the parameter and the rule."""

from __future__ import annotations

import math
import numbers

import numpy as np


def check_int(name: str, value, *, low: int | None = None, high: int | None = None) -> int:
    """Return `value` as an int, or raise ValueError naming `name` and the rule."""
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
    """Return `value` as a finite float within the bounds, or raise ValueError."""
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


def check_choice(name: str, value, choices) -> str:
    """Return `value` if it is one of `choices`, else raise ValueError listing them."""
    if value not in choices:
        valid = ", ".join(repr(c) for c in choices)
        raise ValueError(f"`{name}` must be one of {valid}; got {value!r}.")
    return value


def _check_bounds(name, value, low, high, kind):
    if low is not None and high is not None and not low <= value <= high:
        raise ValueError(f"`{name}` must be {kind} in [{low}, {high}]; got {value}.")
    if low is not None and value < low:
        raise ValueError(f"`{name}` must be {kind} >= {low}; got {value}.")
    if high is not None and value > high:
        raise ValueError(f"`{name}` must be {kind} <= {high}; got {value}.")


def _fmt(bound, default):
    return default if bound is None else f"{bound:g}"
