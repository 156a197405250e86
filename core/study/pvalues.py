"""How the audit prints a p-value: a resampling procedure's p below its resolution 1/B (B its
resamples) reads ``< 1/B``, as ``< 1/999``, since B resamples cannot tell smaller p-values apart
(a percentile bootstrap's bisection would otherwise print 2.22e-16)."""

from __future__ import annotations

import math


def format_p(p, resamples=None, spec: str = ".4g") -> str:
    """A p-value as text: ``-`` when missing, ``< 1/B`` when below the resolution of `resamples`
    B, else formatted by `spec`.

    Parameters
    ----------
    p : float or None
    resamples : int, optional
        The procedure's resamples (:func:`evalmc.criteria.resamples`); None or NaN when it does
        not resample.
    spec : str
        The format of a p-value shown as a number.

    Returns
    -------
    str

    Examples
    --------
    >>> format_p(2.220446049250313e-16, 999), format_p(1 / 1001, 1000), format_p(0.0123, 999)
    ('< 1/999', '< 1/1000', '0.0123')
    >>> format_p(0.0, None), format_p(float("nan"))
    ('0', '-')
    """
    if p is None or _missing(p):
        return "-"
    if not _missing(resamples) and p < 1 / resamples:
        return f"< 1/{int(resamples)}"
    return format(p, spec)


def p_is(p, resamples=None, spec: str = ".4g") -> str:
    """``p = ...``, or ``p < 1/B`` below the resolution of `resamples` (:func:`format_p`).

    Parameters
    ----------
    p : float or None
    resamples : int, optional
    spec : str

    Returns
    -------
    str

    Examples
    --------
    >>> p_is(0.0, 999), p_is(0.1908, 999)
    ('p < 1/999', 'p = 0.1908')
    """
    text = format_p(p, resamples, spec)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def _missing(value) -> bool:
    """None, NaN or pandas' NA."""
    try:
        return value is None or math.isnan(value)
    except TypeError:
        return True
