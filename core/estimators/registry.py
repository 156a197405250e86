"""The built-in estimators of an estimator study, one row each, and the estimands they are
judged against. Like every registry (:mod:`evalmc.registry`), it imports no numerical
library: the command line reads it.
"""

from __future__ import annotations

from evalmc.registry import Entry, Param, Registry

#: Bootstrap resamples of the built-in percentile interval.
PERCENTILE_BOOT = 1000
_LEVEL = Param("level", 0.95, float, "nominal coverage, in (0, 1)")

ESTIMATORS = Registry("estimator", also="or path/to/file.py:function", entries=[
    Entry("mean-a", "evalmc.estimators.intervals:mean_a", "mean of A's runs"),
    Entry("t-interval", "evalmc.estimators.intervals:t_interval",
          "Student's t interval of A's mean", (_LEVEL,)),
    Entry("percentile-bootstrap", "evalmc.estimators.intervals:percentile_bootstrap",
          "percentile bootstrap interval of A's mean", (
              Param("n_boot", PERCENTILE_BOOT, int, "bootstrap resamples"), _LEVEL)),
])

#: Named estimands: the scenario's attribute that holds each one's true value.
TARGETS = {"mean-a": "a_mean", "effect": "effect"}

#: The choices of the Boo_n estimator: the best run is the highest or the lowest score, and
#: its interval a percentile or a smoothed bootstrap.
BEST = ("max", "min")
CI_METHODS = ("percentile", "smoothed")
