"""Sequential boundaries for the keep rules that look at a candidate more than once
(:mod:`evalmc.criteria.gate`).

- Alpha spending (Lan and DeMets, 1983, Biometrika 70, 659-663): a one-sided group-sequential
  test whose boundary at look l, at information fraction t_l, spends ``alpha(t_l) -
  alpha(t_{l-1})`` of the level; ``'obf'`` is the O'Brien-Fleming-type function
  ``2 - 2 Phi(z_{1 - alpha/2} / sqrt(t))`` and ``'pocock'`` the Pocock-type
  ``alpha log(1 + (e - 1) t)``. The boundaries come from the joint law of the looks' z
  statistics (those of a Brownian motion in information time, ``corr = sqrt(t_i / t_j)``), by
  recursive numerical integration (Armitage, McPherson and Rowe, 1969; Jennison and Turnbull,
  2000, ch. 19), Simpson's rule on a grid.
- The normal-mixture e-process (Robbins, 1970; the normal-mixture boundary of Howard, Ramdas,
  McAuliffe and Sekhon, 2021, Annals of Statistics 49, 1055-1080): for a score ``S = Z sqrt(I)``
  at information I (in units of the runs' sd) and a N(0, tau^2) mixture over the standardized
  effect, ``E = (1 + tau^2 I)^(-1/2) exp(tau^2 S^2 / (2 (1 + tau^2 I)))``, a nonnegative
  martingale of mean 1 under no effect; by Ville's inequality it ever reaches ``1 / alpha``
  with probability at most alpha, whenever one stops looking.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import integrate, optimize, stats

from evalmc.inputs.checks import check_choice, check_float

SPENDING = ("obf", "pocock")
#: The integration grid: 2 * _HALF + 1 Simpson points per look, from -_LOW up to the boundary.
_HALF, _LOW = 200, 8.0


def spent(alpha: float, t, spending: str = "obf") -> np.ndarray:
    """The level spent by information fraction(s) `t` under the Lan-DeMets `spending` function
    (the module docstring); ``spent(alpha, 1) == alpha``."""
    t = np.asarray(t, dtype=float)
    if spending == "obf":
        return 2.0 * stats.norm.sf(stats.norm.isf(alpha / 2.0) / np.sqrt(t))
    return alpha * np.log1p((np.e - 1.0) * t)


def spending_bounds(alpha, fractions, spending="obf") -> np.ndarray:
    """One-sided boundaries on the z scale of a group-sequential test that spends `alpha` over
    looks at the information `fractions` (the module docstring).

    Parameters
    ----------
    alpha : float
        One-sided level, in (0, 1).
    fractions : sequence of float
        Information fractions of the looks, increasing in (0, 1] (the last is usually 1).
    spending : {'obf', 'pocock'}
        Lan-DeMets O'Brien-Fleming-type or Pocock-type spending function.

    Returns
    -------
    ndarray
        The boundary c_l of each look: reject at the first look where ``Z_l >= c_l``.

    Examples
    --------
    >>> from evalmc.criteria.sequential import spending_bounds
    >>> spending_bounds(0.025, [0.2, 0.4, 0.6, 0.8, 1.0]).round(3).tolist()
    [4.877, 3.357, 2.68, 2.29, 2.031]
    >>> spending_bounds(0.025, [0.5, 1.0], "pocock").round(3).tolist()
    [2.157, 2.201]
    """
    check_float("alpha", alpha, low=0, high=1, open_low=True, open_high=True)
    check_choice("spending", spending, SPENDING)
    t = np.asarray(fractions, dtype=float)
    if t.ndim != 1 or t.size == 0 or t[0] <= 0 or t[-1] > 1 or np.any(np.diff(t) <= 0):
        raise ValueError("`fractions` must increase in (0, 1]; got "
                         f"{np.round(t, 4).tolist()}.")
    return np.array(_bounds(float(alpha), tuple(t.tolist()), spending))


@functools.lru_cache(maxsize=512)
def _bounds(alpha: float, t: tuple, spending: str) -> tuple:
    """:func:`spending_bounds` on a tuple, cached: each look's boundary solves for the level it
    may spend, given the density of the z statistic on the region of no earlier crossing."""
    inc = np.diff(spent(alpha, np.array(t), spending), prepend=0.0)
    bounds = [float(stats.norm.isf(inc[0]))]
    z, w = _grid(bounds[0])
    mass = w * stats.norm.pdf(z)
    for look in range(1, len(t)):
        r = np.sqrt(t[look - 1] / t[look])
        s = np.sqrt(1.0 - r * r)

        def excess(c, mass=mass, z=z, r=r, s=s, need=inc[look]):
            return mass @ stats.norm.sf((c - r * z) / s) - need

        c = optimize.brentq(excess, -_LOW, 40.0, xtol=1e-10)
        bounds.append(float(c))
        new, w_new = _grid(c)
        mass = w_new * (mass @ stats.norm.pdf((new[None, :] - r * z[:, None]) / s) / s)
        z = new
    return tuple(bounds)


def _grid(upper: float):
    """Simpson's points and weights on [-_LOW, upper]."""
    z = np.linspace(-_LOW, upper, 2 * _HALF + 1)
    return z, integrate.simpson(np.eye(z.size), x=z, axis=1)


def log_mixture_evalue(z, info, tau: float) -> np.ndarray:
    """Log of the normal-mixture e-value (the module docstring) of z statistics `z` at
    information `info` (per sd^2), the standardized effect mixed N(0, `tau`^2)."""
    v = tau * tau * np.asarray(info, dtype=float)
    return 0.5 * (v * np.asarray(z) ** 2 / (1.0 + v) - np.log1p(v))
