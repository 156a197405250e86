"""The built-in estimators of an estimator study, one row each, and the estimands they are
judged against. Like every registry (:mod:`evalmc.registry`), it imports no numerical
library: the command line reads it.
"""

from __future__ import annotations

from evalmc.registry import Entry, Param, Registry

#: Bootstrap resamples of the built-in percentile interval.
PERCENTILE_BOOT = 1000
_LEVEL = Param("level", 0.95, float, "nominal coverage, in (0, 1)")
#: What the built-in estimators estimate (a key of :data:`TARGETS`): a study refuses another
#: named target for them.
_OF_MEAN_A = {"estimand": "mean-a"}
_OF_EFFECT = {"estimand": "effect"}
_N_BOOT = Param("n_boot", PERCENTILE_BOOT, int, "bootstrap resamples")

ESTIMATORS = Registry("estimator", also="or path/to/file.py:function", entries=[
    Entry("mean-a", "evalmc.estimators.intervals:mean_a", "mean of A's runs", (), _OF_MEAN_A),
    Entry("t-interval", "evalmc.estimators.intervals:t_interval",
          "Student's t interval of A's mean", (_LEVEL,), _OF_MEAN_A),
    Entry("percentile-bootstrap", "evalmc.estimators.intervals:percentile_bootstrap",
          "percentile bootstrap interval of A's mean", (
              _N_BOOT, _LEVEL), _OF_MEAN_A),
    Entry("mean-diff", "evalmc.estimators.intervals:mean_diff",
          "mean of A's runs minus mean of B's", (), _OF_EFFECT),
    Entry("welch-interval", "evalmc.estimators.intervals:welch_interval",
          "Welch's t interval of mean(A) - mean(B), unpaired", (_LEVEL,), _OF_EFFECT),
    Entry("paired-t-interval", "evalmc.estimators.intervals:paired_t_interval",
          "t interval of mean(A - B), paired runs", (_LEVEL,), {**_OF_EFFECT, "paired": True}),
    Entry("bootstrap-diff", "evalmc.estimators.intervals:bootstrap_diff",
          "percentile bootstrap interval of mean(A) - mean(B): pairs resampled together when "
          "the runs are paired, A and B independently otherwise", (_N_BOOT, _LEVEL), _OF_EFFECT),
])

#: Named estimands: the scenario's attribute that holds each one's true value.
TARGETS = {"mean-a": "a_mean", "effect": "effect"}
#: What each named estimand is, as messages say it.
TARGET_DOCS = {"mean-a": "A's population mean", "effect": "A's population mean minus B's"}

#: The choices of the Boo_n estimator: the best run is the highest or the lowest score, and
#: its interval a percentile or a smoothed bootstrap.
BEST = ("max", "min")
CI_METHODS = ("percentile", "smoothed")
