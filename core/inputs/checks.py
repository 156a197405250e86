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
    """Return `value` as an int, or raise ValueError naming `name` and the rule.

    An integral float (``5.0``) counts as an integer; a bool does not.

    Parameters
    ----------
    name : str
        The parameter's name, as the message shows it.
    value : int or float
        The value to check.
    low, high : int, optional
        Inclusive bounds; None leaves that side open.

    Returns
    -------
    int

    Examples
    --------
    >>> from evalmc.inputs.checks import check_int
    >>> check_int("n", 5.0, low=2)
    5
    >>> check_int("n", 1, low=2)
    Traceback (most recent call last):
    ...
    ValueError: `n` must be an integer >= 2; got 1.
    """
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
    """Return `value` as a finite float within the bounds, or raise ValueError.

    Parameters
    ----------
    name : str
        The parameter's name, as the message shows it.
    value : float
        The value to check (a real number; a bool is refused).
    low, high : float, optional
        Bounds; None leaves that side unbounded.
    open_low, open_high : bool
        Whether `low` (resp. `high`) itself is excluded.

    Returns
    -------
    float

    Examples
    --------
    >>> from evalmc.inputs.checks import check_float
    >>> check_float("rho", 0.5, low=-1, high=1, open_low=True, open_high=True)
    0.5
    >>> check_float("rho", 1, low=-1, high=1, open_low=True, open_high=True)
    Traceback (most recent call last):
    ...
    ValueError: `rho` must be in (-1, 1); got 1.0.
    """
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
    """Return `value` as a standard deviation, or raise ValueError naming `name` and the rule:
    a finite float above 0 (at least 0 with `zero`) whose square, the variance, is finite.

    Parameters
    ----------
    name : str
        The parameter's name, as the message shows it.
    value : float
        The value to check.
    zero : bool
        Whether 0 (no spread) is allowed.

    Returns
    -------
    float

    Examples
    --------
    >>> from evalmc.inputs.checks import check_sd
    >>> check_sd("sd", 2)
    2.0
    >>> check_sd("sd", 1e200)
    Traceback (most recent call last):
    ...
    ValueError: `sd` must be at most 1.341e+154, so that its square, the variance, is finite; \
got 1e+200.
    """
    sd = check_float(name, value, low=0, open_low=not zero)
    if not math.isfinite(sd * sd):
        raise ValueError(f"`{name}` must be at most {math.sqrt(np.finfo(float).max):.4g}, so "
                         f"that its square, the variance, is finite; got {sd:g}.")
    return sd


def population_sum(what: str, plus: dict, minus: dict | None = None) -> float:
    """A population value derived from parameters, ``sum(plus) - sum(minus)``: summed exactly
    and rounded once (:func:`math.fsum`), 0.0 when it lies within :data:`NULL_TOLERANCE` of
    its largest term (a null is decided by it, never by float equality), and refused when it
    is not finite.

    Parameters
    ----------
    what : str
        What the value is, as the message shows it.
    plus, minus : dict of str to float
        The parameters added and subtracted, by name.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Naming the parameters, when the value is not finite.

    Examples
    --------
    >>> from evalmc.inputs.checks import population_sum
    >>> 0.7 + 0.1 - 0.8 == 0, population_sum("the effect", {"a": 0.7, "s": 0.1}, {"b": 0.8})
    (False, 0.0)
    >>> population_sum("A's mean", {"mean_a": 1e308, "shift": 1e308})
    Traceback (most recent call last):
    ...
    ValueError: A's mean, `mean_a` + `shift`, must be finite; got inf (mean_a=1e+308, \
shift=1e+308).
    """
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
    """Return `value` if it is one of `choices`, else raise ValueError listing them.

    Parameters
    ----------
    name : str
        The parameter's name, as the message shows it.
    value : object
        The value to check.
    choices : sequence
        The valid values.

    Returns
    -------
    object
        `value` itself.

    Examples
    --------
    >>> from evalmc.inputs.checks import check_choice
    >>> check_choice("scheme", "kfold", ("kfold", "5x2"))
    'kfold'
    >>> check_choice("scheme", "loo", ("kfold", "5x2"))
    Traceback (most recent call last):
    ...
    ValueError: `scheme` must be one of 'kfold', '5x2'; got 'loo'.
    """
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
