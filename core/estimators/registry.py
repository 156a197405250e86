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
_OF_ODDS_RATIO = {"estimand": "odds-ratio"}
_N_BOOT = Param("n_boot", PERCENTILE_BOOT, int, "bootstrap resamples")
#: Cluster resamples of the cluster bootstrap interval, as the ``cluster-bootstrap`` test's.
CLUSTER_BOOT = 999
_PAIRED_EFFECT = {**_OF_EFFECT, "paired": True}
#: A cluster-robust interval's facts: it needs two clusters (the audit drops it with fewer).
_CLUSTERED = {**_PAIRED_EFFECT, "min_clusters": 2}
#: Resamples of the proportion bootstrap and prior draws of the clustered Bayesian interval,
#: the authors' ``K`` and ``num_samples`` (Bowyer et al. 2025).
PROPORTION_BOOT = 10_000
IMPORTANCE_DRAWS = 10_000
_K = Param("k", 1, int, "samples drawn per item (each item needs n_samples >= k)")


def _row(module: str, name: str, function: str, description: str, params, facts) -> Entry:
    return Entry(name, f"evalmc.estimators.{module}:{function}", description, params, facts)


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
    _row("items", "wilson", "wilson",
         "Wilson score interval of A's accuracy (0/1 item scores)", (_LEVEL,), _OF_MEAN_A),
    _row("items", "newcombe-diff", "newcombe_diff",
         "Newcombe's hybrid score interval of A's accuracy minus B's, independent samples",
         (_LEVEL,), _OF_EFFECT),
    _row("items", "newcombe-paired", "newcombe_paired",
         "Newcombe's (1998, method 10) score interval of A's accuracy minus B's on the same "
         "items", (_LEVEL,), _PAIRED_EFFECT),
    _row("items", "paired-z-interval", "paired_z_interval",
         "mean(A - B) +- z sd / sqrt(n) over items (Miller 2024)", (_LEVEL,), _PAIRED_EFFECT),
    _row("items", "clustered-interval", "clustered_interval",
         "mean(A - B) +- z cluster-robust (CR0) standard error (Miller 2024)", (_LEVEL,),
         _CLUSTERED),
    _row("items", "cluster-bootstrap-interval", "cluster_bootstrap_interval",
         "percentile interval of mean(A - B) resampling clusters",
         (Param("n_boot", CLUSTER_BOOT, int, "cluster resamples"), _LEVEL), _CLUSTERED),
    _row("cluster_robust", "cr1-t-interval", "cr1_t_interval",
         "mean(A - B) +- t(G - 1) CR1 cluster-robust standard error (as cr1-t)", (_LEVEL,),
         _CLUSTERED),
    _row("cluster_robust", "cr2-t-interval", "cr2_t_interval",
         "mean(A - B) +- t(G - 1) CR2 (Bell and McCaffrey 2002) cluster-robust standard error "
         "(as cr2-t)", (_LEVEL,), _CLUSTERED),
    _row("cluster_robust", "cr2-bm-interval", "cr2_bm_interval",
         "mean(A - B) +- t CR2 cluster-robust standard error, Bell-McCaffrey degrees of "
         "freedom (as cr2-bm)", (_LEVEL,), _CLUSTERED),
    _row("cluster_robust", "wild-cluster-interval", "wild_cluster_interval",
         "symmetric percentile-t interval of mean(A - B), wild cluster bootstrap without the "
         "null (WCU), CR1 t; every sign vector when Rademacher and 2^G <= n_resamples", (
             Param("weights", "rademacher", str, "the clusters' weights: 'rademacher' or "
                                                 "'webb' (six-point, for very few clusters)"),
             Param("n_resamples", CLUSTER_BOOT, int, "bootstrap draws"), _LEVEL),
         _CLUSTERED),
    _row("comparisons", "clt-diff", "clt_diff",
         "CLT (Wald) interval of A's accuracy minus B's, independent samples (0/1 item scores)",
         (_LEVEL,), _OF_EFFECT),
    _row("comparisons", "agresti-caffo-diff", "agresti_caffo_diff",
         "Agresti-Caffo interval of A's accuracy minus B's: the CLT (Wald) interval after one "
         "right and one wrong answer are added to each sample; independent samples (0/1 item "
         "scores)", (_LEVEL,), _OF_EFFECT),
    _row("comparisons", "bayes-diff", "bayes_diff",
         "posterior interval of A's accuracy minus B's, independent Beta(1, 1) priors and "
         "samples", (_LEVEL,), _OF_EFFECT),
    _row("comparisons", "fisher-odds-ratio", "fisher_odds_ratio",
         "interval of the odds ratio of A's accuracy to B's inverting Fisher's exact test, "
         "independent samples", (_LEVEL,), _OF_ODDS_RATIO),
    _row("comparisons", "bayes-odds-ratio", "bayes_odds_ratio",
         "posterior interval of the odds ratio of A's accuracy to B's, independent Beta(1, 1) "
         "priors", (_LEVEL,), _OF_ODDS_RATIO),
    _row("comparisons", "bayes-paired", "bayes_paired",
         "posterior interval of A's accuracy minus B's on the same items, latent bivariate "
         "normal model (Bowyer et al. 2025)", (_LEVEL,), _PAIRED_EFFECT),
    _row("items", "passk-interval", "passk_interval",
         "A's mean unbiased pass@k (Chen et al. 2021) +- z sd / sqrt(n_items); its estimand is "
         "A's pass@k (A's mean for k=1)", (_K, _LEVEL), {"needs": "samples"}),
    *[_row("proportions", name, function, description, params, {**_OF_MEAN_A, **facts})
      for name, function, description, params, facts in (
        ("wald", "wald", "CLT (Wald) interval of A's accuracy, p +- z sqrt(p (1 - p) / n) "
         "(0/1 item scores)", (_LEVEL,), {}),
        ("clopper-pearson", "clopper_pearson", "Clopper-Pearson (Beta quantile) interval of "
         "A's accuracy (0/1 item scores)", (_LEVEL,), {}),
        ("beta-posterior", "beta_posterior", "equal-tailed Beta(k + prior_a, n - k + prior_b) "
         "posterior interval of A's accuracy (0/1 item scores)", (
             _LEVEL, Param("prior_a", 1.0, float, "Beta prior's first parameter (> 0)"),
             Param("prior_b", 1.0, float, "Beta prior's second parameter (> 0)")), {}),
        ("proportion-bootstrap", "proportion_bootstrap", "percentile bootstrap interval of "
         "A's accuracy, resampled means drawn as Binomial(n, p) / n (0/1 item scores)",
         (Param("n_boot", PROPORTION_BOOT, int, "bootstrap resamples"), _LEVEL), {}),
        ("clustered-wald", "clustered_wald", "CLT interval of A's accuracy with the "
         "cluster-robust (CR0) standard error of its tasks", (_LEVEL,), {"needs": "clusters"}),
        ("clustered-bayes", "clustered_bayes", "importance-weighted posterior interval of A's "
         "mean rate, hierarchical Beta-binomial model of its tasks (Bowyer et al. 2025)", (
             _LEVEL, Param("n_samples", IMPORTANCE_DRAWS, int, "prior draws"),
             Param("prior_a", 1.0, float, "Beta prior of the mean rate: first parameter"),
             Param("prior_b", 1.0, float, "Beta prior of the mean rate: second parameter"),
             Param("d_shape", 1.0, float, "Gamma prior of the dispersion: shape"),
             Param("d_scale", 1.0, float, "Gamma prior of the dispersion: scale")),
         {"needs": "clusters"}),
    )],
])

#: Named estimands: the scenario's attribute that holds each one's true value.
TARGETS = {"mean-a": "a_mean", "effect": "effect", "odds-ratio": "odds_ratio"}
#: What each named estimand is, as messages say it.
TARGET_DOCS = {"mean-a": "A's population mean", "effect": "A's population mean minus B's",
               "odds-ratio": "the odds of A's accuracy over the odds of B's"}

#: The choices of the Boo_n estimator: the best run is the highest or the lowest score, and
#: its interval a percentile or a smoothed bootstrap.
BEST = ("max", "min")
CI_METHODS = ("percentile", "smoothed")
