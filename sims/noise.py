"""Run noise of a given shape, standardized: mean 0 and sd 1, drawn by evalmc's score simulators.

A noise is named as a score scenario, ``name(key=value,...)``, whose draws give its shape:

- ``normal``: Gaussian (drawn as ``rng.standard_normal``);
- ``skew-normal``: skewed, ``scipy.stats.skewnorm(skew, loc, scale)`` (default ``skew=-4``:
  a long tail of bad runs);
- ``mixture``: multimodal, a two-component Gaussian mixture (default a second mode 3 sd up
  with weight 0.3);
- ``empirical``: the user's own runs, ``file`` (and ``column``), by the smoothed bootstrap of
  the ``empirical`` scenario (resampled runs plus Gaussian kernel noise).

Each is drawn by its scenario's own simulator (:mod:`evalmc.sims.scores`), then centred on its
population mean and divided by its population sd (for ``empirical`` the kernel density's:
``sqrt(var0 + kernel_sd^2)``, var0 the runs' variance about their mean).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from evalmc.registry import parse_spec
from evalmc.sims.registry import SCENARIOS

#: The scenarios a noise may be named after.
NOISES = ("normal", "skew-normal", "mixture", "empirical")
#: Their parameters that do not shape a standardized noise.
_NOT_SHAPES = ("n_a", "n_b", "shift")


class RunNoise:
    """A standardized run noise named `spec` (the module docstring): :meth:`draw` gives its
    draws; `mean` and `sd` are the population moments its simulator's draws are standardized by.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.sims.noise import RunNoise
    >>> noise = RunNoise("skew-normal(skew=-6)")
    >>> round(noise.mean, 4), round(noise.sd, 4)
    (-0.787, 0.6169)
    >>> noise.draw(np.random.default_rng(0), (2, 3)).round(3).tolist()
    [[1.04, 0.28, 0.323], [-0.557, 0.488, 0.268]]
    """

    def __init__(self, spec: str = "normal"):
        if parse_spec(spec)[0] not in NOISES:
            raise ValueError(f"`noise` must be one of {', '.join(NOISES)}, optionally with "
                             f"parameters of its shape, e.g. 'skew-normal(skew=-6)'; got "
                             f"{spec!r}.")
        entry, args = SCENARIOS.parse(spec)
        shapes = [p.name for p in entry.params
                  if entry.name != "normal" and p.name not in _NOT_SHAPES]
        if any(key not in shapes for key in args):
            raise ValueError(f"`noise` {entry.name!r} takes only the parameters of its shape: "
                             f"{', '.join(shapes) or 'none'}; got {', '.join(args)}.")
        self.name = entry.name
        self.scenario = None if self.name == "normal" else entry.load()(**args)
        self.mean, self.sd = _moments(self.name, self.scenario)

    @property
    def runs_sd(self) -> float | None:
        """The sample sd (ddof 1) of the user's runs for ``empirical``, else None."""
        return float(self.scenario.scores.std(ddof=1)) if self.name == "empirical" else None

    def fingerprint(self) -> str:
        """Text that changes with the noise's distribution (a file counts by its scores)."""
        return "normal" if self.scenario is None else self.scenario.fingerprint()

    def draw(self, rng, shape) -> np.ndarray:
        """Standardized draws of shape `shape` from `rng`."""
        if self.scenario is None:
            return rng.standard_normal(shape)
        a = np.empty((int(np.prod(shape[:-1])), shape[-1]))
        self.scenario._fill(rng, a, np.empty((a.shape[0], 0)))
        return ((a - self.mean) / self.sd).reshape(shape)


def _moments(name: str, scenario) -> tuple[float, float]:
    """Population mean and sd of a noise scenario's draws (B's: no shift)."""
    if name == "normal":
        return 0.0, 1.0
    if name == "skew-normal":
        mean, var = stats.skewnorm(scenario.skew, scenario.loc, scenario.scale).stats("mv")
        return float(mean), float(np.sqrt(var))
    if name == "mixture":
        w = scenario.weight
        mean = (1 - w) * scenario.loc1 + w * scenario.loc2
        var = ((1 - w) * scenario.scale1**2 + w * scenario.scale2**2
               + w * (1 - w) * (scenario.loc2 - scenario.loc1) ** 2)
        return float(mean), float(np.sqrt(var))
    scores = scenario.scores
    return float(scores.mean()), float(np.sqrt(scores.var() + scenario.kernel_sd**2))
