"""The built-in criteria: one row each, the only place a criterion is named and described.

A row names its test (``'module:function'`` of :mod:`evalmc.criteria`, imported on first use),
describes it in one line, and states what the command line shows and the engine checks: the
data it ``needs`` (a name of :attr:`evalmc.sims.base.Batch.holds`: ``'scores'``, a
paired-classifier table's ``'counts'``, several data sets' ``'table'``, cross-validation
``'splits'``), whether it is
``paired``, and how it runs (``uses_rng``: it draws random numbers; ``decision_only``: it gives
decisions without p-values; ``alternative``: what its rejection concludes; ``schemes`` and
``loss``: the cross-validation splits it is for; ``options``: fixed arguments of its test;
``estimand``: what its estimate estimates, when not the mean difference; ``interval``: the
estimator of :data:`~evalmc.estimators.registry.ESTIMATORS` that inverts it, which the audit
reports beside it; ``resamples``: the draws B of a resampling p-value when no parameter
``n_resamples`` sets them, so that a p below 1/B is reported as such; ``min_clusters``: the
clusters it needs to run, 2 for a cluster-robust one, which the audit drops or refuses on data
with fewer). A
row with ``params`` is a family: its target builds the test from the arguments, and
``name(key=value,...)`` names a member (:func:`evalmc.registry.format_spec`).

This module imports no numerical library: ``evalmc --help`` and ``evalmc list`` read it.
"""

from __future__ import annotations

from evalmc.registry import Entry, Param, Registry

#: The Bouthillier et al. thresholds: 1.9952 sigma (the paper's), 1.903 (its video).
DELTA_PAPER = 1.9952
DELTA_VIDEO = 1.903
#: The P(A>B) test's defaults: meaningful above gamma, percentile bootstrap of B resamples.
GAMMA = 0.75
OUTPERFORM_RESAMPLES = 1000
#: Resamples of the bootstrap tests of a mean difference, and of the cluster bootstrap.
BOOTSTRAP_RESAMPLES = 9999
CLUSTER_RESAMPLES = 999
#: Random sign flips or relabellings of the permutation tests.
PERMUTATION_RESAMPLES = 9999
#: sacrebleu's defaults (PairedTest._DEFAULT_SAMPLES): bootstrap resamples, and AR trials.
SACREBLEU_BS_RESAMPLES = 1000
SACREBLEU_AR_TRIALS = 10000
#: Replicates of the paired-classifier bootstrap tests (Keller et al.).
CLASSIFIER_BOOT = 5000
#: baycomp's defaults: decide when the posterior probability exceeds 0.95; the signed-rank
#: test's Dirichlet prior weight and its Monte Carlo draws.
BAYES_THRESHOLD = 0.95
BAYES_PRIOR = 0.5
BAYES_SAMPLES = 50_000
#: deepsig's ASO: A better when eps_min is below this.
ASO_THRESHOLD = 0.2

#: Rank procedures of a leaderboard: bootstrap boards (the Arena's 100), max-T Gaussian draws.
BOARD_BOOT = 100
BOARD_DRAWS = 1000
#: Keep rules of a research loop: the noise floor's multiple of the baseline's spread.
NOISE_FLOOR_K = 2.0

_GREATER = {"decision_only": True, "alternative": "greater"}
_PAIR = (Param("i", None, int, "first model of the pair (0-based)"),
         Param("j", None, int, "second model of the pair, above i"))
_THRESHOLD = (Param("delta", DELTA_PAPER, float, "threshold, in units of sigma"),
              Param("sigma", None, float, "known sd of a run's score; default: pooled sd"))
_ROPE = Param("rope", 0.0, float, "region of practical equivalence around 0 (>= 0)")
_N_BOOT = (Param("n_boot", BOARD_BOOT, int, "bootstrap boards per board"),)
_CSRANKS = (Param("n_draws", BOARD_DRAWS, int, "Gaussian draws of the parametric bootstrap"),
            Param("stepdown", 1, int, "1: stepdown (csranks' default), 0: a single step"))
_LEVEL = Param("level", 0.95, float, "confidence of the intervals (1 - the tests' level)")
_POSTERIOR = Param("threshold", BAYES_THRESHOLD, float, "posterior probability to decide")


def _row(name: str, target: str, description: str, params=(), **facts) -> Entry:
    return Entry(name, f"evalmc.criteria.{target}", description, tuple(params), facts)


def _bootstrap_mean(method: str, paired: bool) -> Entry:
    label = "BCa" if method == "bca" else method
    target = "mean(A - B)" if paired else "mean(A) - mean(B)"
    name = "bootstrap-mean" + ("-paired" if paired else "") + (
        "" if method == "bca" else f"-{method}")
    return _row(name, "bootstrap:bootstrap_mean", f"{label} bootstrap interval of {target} "
                f"({BOOTSTRAP_RESAMPLES} resamples) excludes 0", paired=paired, uses_rng=True,
                options={"method": method, "paired": paired}, resamples=BOOTSTRAP_RESAMPLES)


def _board(name: str, target: str, description: str, params=()) -> Entry:
    """A rank procedure of a leaderboard: it claims some model better than another."""
    return _row(name, f"leaderboard:{target}", f"leaderboard: {description}",
                (*params, _LEVEL), needs="leaderboard", decision_only=True,
                uses_rng=any(p.name.startswith("n_") for p in params))


def _keep(name: str, target: str, description: str, params=()) -> Entry:
    """A keep rule of a research loop: it keeps some candidate."""
    return _row(name, f"gate:{target}", f"loop: {description}", params, needs="loop",
                **_GREATER)


_KEEP_T = (Param("alpha", 0.05, float, "level, in (0, 1)"),
           Param("test", "welch", str, "'welch', or 'paired' (runs paired by seed)"))
_ADJUST = Param("adjust", "bonferroni", str, "'bonferroni' (alpha / K) or 'none'")
_KNOWN_SD = Param("sd", None, float, "the runs' known sd; default: pooled from the runs")


def _cv(name: str, target: str, description: str, schemes, **facts) -> Entry:
    return _row(name, target, description, paired=True, needs="splits", schemes=schemes,
                **facts)


CRITERIA = Registry("criterion", also="path/to/file.py:function, or module:function", entries=[
    _row("paired-t", "ttests:paired_t", "paired t-test on A - B", paired=True),
    _row("student-t", "ttests:student_t", "Student's t-test, pooled variance"),
    _row("welch-t", "ttests:welch_t", "Welch's t-test, unequal variances"),
    _row("mann-whitney", "nonparametric:mann_whitney",
         "Mann-Whitney U (exact if a sample <= 8 and no ties, else normal approx.)"),
    _row("sign", "nonparametric:sign_test", "sign test on paired differences (exact binomial)",
         paired=True),
    _row("wilcoxon", "signed_rank:wilcoxon",
         "Wilcoxon signed-rank test, zero differences dropped (scipy's defaults)", paired=True),
    _row("wilcoxon-pratt", "signed_rank:wilcoxon", "Wilcoxon signed-rank test, Pratt's zeros",
         paired=True, options={"zero_method": "pratt"}),
    _row("wilcoxon-zsplit", "signed_rank:wilcoxon", "Wilcoxon signed-rank test, zeros split",
         paired=True, options={"zero_method": "zsplit"}),
    _row("permutation-paired", "permutation:permutation_paired", "paired permutation test of "
         "mean(A - B): all 2^n sign flips up to 16 pairs, else 9999 random (+1)", paired=True,
         uses_rng=True, resamples=PERMUTATION_RESAMPLES),
    _row("permutation-two-sample", "permutation:permutation_two_sample", "two-sample "
         "permutation test of mean(A) - mean(B): every split up to 9999, else 9999 random (+1)",
         uses_rng=True, resamples=PERMUTATION_RESAMPLES),
    *(_bootstrap_mean(method, paired) for paired in (False, True)
      for method in ("bca", "percentile", "basic")),
    _row("single-point", "outperform:single_point", "one run each: A better if a_1 - b_1 > "
         "delta sigma (sigma: the pooled sd of the runs unless given)", _THRESHOLD, **_GREATER),
    _row("average-delta", "outperform:average_delta", "A better if mean(a) - mean(b) > delta "
         "sigma (sigma: the pooled sd of the runs unless given)", _THRESHOLD, **_GREATER),
    _row("prob-outperform", "outperform:prob_outperform", "P(A>B) percentile bootstrap: A "
         "better if its interval clears 0.5 and gamma", (
             Param("gamma", GAMMA, float, "meaningful P(A>B), in (0.5, 1)"),
             Param("alpha", 0.05, float, "1 - the interval's confidence"),
             Param("n_resamples", OUTPERFORM_RESAMPLES, int, "bootstrap resamples")),
         paired=True, uses_rng=True, **_GREATER),
    _row("t-oracle", "outperform:t_oracle", "one-sided Welch t-test of mean(A) > mean(B)",
         alternative="greater"),
    _row("proportion", "classifiers:proportion", "proportion test on the error rates, errors "
         "taken as independent", needs="counts"),
    _row("mcnemar", "classifiers:mcnemar", "McNemar's chi2 test, continuity-corrected",
         needs="counts"),
    _row("mcnemar-uncorrected", "classifiers:mcnemar_uncorrected", "McNemar's chi2 test "
         "without continuity correction", needs="counts"),
    _row("mcnemar-exact", "classifiers:mcnemar_exact", "McNemar's exact (binomial) test",
         needs="counts"),
    _row("mcnemar-midp", "classifiers:mcnemar_midp", "McNemar's mid-p test", needs="counts"),
    _row("bootstrap-dcerr", "classifiers:bootstrap_dcerr_test", "bootstrap percentile test on "
         "the difference of classification errors",
         (Param("n_boot", CLASSIFIER_BOOT, int, "bootstrap replicates per evaluation set"),),
         needs="counts", uses_rng=True),
    _row("bootstrap-df1", "classifiers:bootstrap_df1_test", "bootstrap percentile test on the "
         "difference of F1", (
             Param("n_boot", CLASSIFIER_BOOT, int, "bootstrap replicates per evaluation set"),
             Param("p_max", 1.0, float, "stop a set's replicates once its p-value exceeds "
                                        "this")),
         needs="counts", uses_rng=True, estimand="F1 difference"),
    _row("bootstrap-df1-centred", "classifiers:bootstrap_df1_centred_test", "bootstrap test "
         "on the difference of F1, interval centred on the replicates' mean",
         (Param("n_boot", CLASSIFIER_BOOT, int, "bootstrap replicates per evaluation set"),),
         needs="counts", uses_rng=True, estimand="F1 difference"),
    _row("unpaired-z", "items:unpaired_z", "lm-evaluation-harness's z-test of two accuracies "
         "(unpaired standard errors)", paired=True),
    _row("paired-items", "items:paired_items", "z-test on per-item differences A - B",
         paired=True, interval="paired-z-interval"),
    _row("paired-samples-z", "items:paired_samples_z", "z-test on per-sample differences, every "
         "sample counted as an item of its own (ignores that an item's samples go together)",
         paired=True, needs="samples"),
    _row("mcnemar-items", "items:mcnemar_items", "exact McNemar test on the items only one "
         "model got right", paired=True),
    _row("clustered-z", "items:clustered_z", "z-test of mean(A - B) with cluster-robust (CR0) "
         "standard error", paired=True, interval="clustered-interval", min_clusters=2),
    _row("cluster-bootstrap", "items:cluster_bootstrap", "percentile bootstrap of mean(A - B) "
         f"resampling clusters ({CLUSTER_RESAMPLES} resamples)", paired=True, uses_rng=True,
         interval="cluster-bootstrap-interval", resamples=CLUSTER_RESAMPLES,
         min_clusters=2),
    _row("cr1-t", "cluster_robust:cluster_t", "t-test of mean(A - B) with the CR1 "
         "cluster-robust standard error (CR0 x G/(G - 1), as Stata), t(G - 1) reference",
         paired=True, options={"se": "CR1", "df": "clusters"}, interval="cr1-t-interval",
         min_clusters=2),
    _row("cr2-t", "cluster_robust:cluster_t", "t-test of mean(A - B) with the CR2 (Bell and "
         "McCaffrey 2002) cluster-robust standard error, t(G - 1) reference", paired=True,
         options={"se": "CR2", "df": "clusters"}, interval="cr2-t-interval",
         min_clusters=2),
    _row("cr2-bm", "cluster_robust:cluster_t", "t-test of mean(A - B) with the CR2 "
         "cluster-robust standard error and Bell-McCaffrey degrees of freedom (Imbens and "
         "Kolesar 2016)", paired=True, options={"se": "CR2", "df": "bm"},
         interval="cr2-bm-interval", min_clusters=2),
    _row("wild-cluster-bootstrap", "cluster_robust:wild_cluster_bootstrap", "wild cluster "
         "bootstrap-t test of mean(A - B), null imposed (WCR), CR1 t: p = #{|t*| >= |t|} / B; "
         "every sign vector when Rademacher and 2^G <= B", (
             Param("weights", "rademacher", str, "the clusters' weights: 'rademacher' or "
                                                 "'webb' (six-point, for very few clusters)"),
             Param("n_resamples", CLUSTER_RESAMPLES, int, "bootstrap draws B")),
         paired=True, uses_rng=True, interval="wild-cluster-interval", min_clusters=2),
    _row("sacrebleu-paired-bs", "item_procedures:sacrebleu_paired_bs", "sacrebleu's paired "
         "bootstrap test of the mean item score: (#{|m*| - mean|m*| > |m|} + 1) / (B + 1)",
         (Param("n_resamples", SACREBLEU_BS_RESAMPLES, int, "bootstrap resamples"),),
         paired=True, uses_rng=True),
    _row("sacrebleu-paired-ar", "item_procedures:sacrebleu_paired_ar", "sacrebleu's "
         "approximate randomization test of the mean item score (swaps, +1 smoothing)",
         (Param("n_resamples", SACREBLEU_AR_TRIALS, int, "trials of random swaps"),),
         paired=True, uses_rng=True),
    _row("fisher-exact", "proportions:fisher_exact", "Fisher's exact test of two accuracies, "
         "each model's 0/1 answers to its own questions (independent samples), two-sided"),
    _row("passk-paired", "item_procedures:passk_paired", "z-test on per-item differences of "
         "unbiased pass@k (Chen et al. 2021), se = sd / sqrt(n_items)",
         (Param("k", 1, int, "samples drawn per item (each item needs n_samples >= k)"),),
         paired=True, needs="samples", estimand="pass@k difference"),
    _row("friedman", "ranks:friedman", "Friedman test: some model differs (several data sets)",
         paired=True, needs="table"),
    _row("nemenyi", "ranks:nemenyi_test", "Nemenyi test on mean ranks: some pair of models "
         "differs (family-wise), or models i and j differ", _PAIR, paired=True, needs="table"),
    _row("wilcoxon-holm", "ranks:wilcoxon_holm_test", "Wilcoxon signed-rank tests of all "
         "pairs, Holm-adjusted: some pair differs, or models i and j differ", _PAIR,
         paired=True, needs="table"),
    _row("wilcoxon-any", "ranks:wilcoxon_any", "Wilcoxon signed-rank tests of all pairs, "
         "unadjusted: some pair differs if any p-value is below the level (the "
         "multiple-comparisons pitfall)", paired=True, needs="table"),
    _board("board-bootstrap", "bootstrap", "percentile bootstrap over battles (items) and "
           "the Arena rule: i better than j when i's lower bound exceeds j's upper", _N_BOOT),
    _board("board-prompt-bootstrap", "prompt_bootstrap", "percentile bootstrap over prompts "
           "(clusters of items) and the Arena rule", _N_BOOT),
    _board("board-wald", "wald", "Bradley-Terry (or mean score) sandwich Wald intervals, "
           "clustered by prompt (cluster), and the Arena rule"),
    _board("board-holm", "holm_sign", "exact sign tests of every pair's decisive battles "
           "(McNemar's on items), Holm-adjusted tiers"),
    _board("board-max-t", "max_t", "max-|t| simultaneous intervals of every difference of "
           "strengths, sandwich covariance",
           (Param("n_draws", BOARD_DRAWS, int, "Gaussian draws for the critical value"),)),
    _keep("keep-noise-floor", "noise_floor", "keep c when c - b1 >= k |b1 - b2|, b1, b2 two "
          "baseline runs fixed for the loop",
          (Param("k", NOISE_FLOOR_K, float, "multiple of the baseline's spread (>= 0)"),)),
    _keep("keep-ratchet", "RATCHET", "keep c when it beats the best so far, starting from b1"),
    _keep("keep-t", "t_rule", "one-sided t-test (Welch or paired) of each candidate against "
          "the baseline at alpha", _KEEP_T),
    _keep("keep-bonferroni", "bonferroni", "one-sided t-test of each candidate at alpha / K",
          _KEEP_T),
    _keep("keep-holm", "holm_rule", "Holm's step-down over the K candidates' one-sided t-tests "
          "against the fixed baseline", _KEEP_T),
    _keep("keep-spending", "spending_rule", "group-sequential one-sided z-test of each "
          "candidate over its looks, Lan-DeMets alpha spending", (
              Param("alpha", 0.05, float, "level, in (0, 1)"),
              Param("spending", "obf", str, "'obf' (O'Brien-Fleming-type) or 'pocock'"),
              _ADJUST, _KNOWN_SD)),
    _keep("keep-anytime", "anytime_rule", "normal-mixture e-value of each candidate's gain, "
          "kept at 1/alpha: valid whenever the looks stop (Ville)", (
              Param("alpha", 0.05, float, "level, in (0, 1)"), _ADJUST, _KNOWN_SD,
              Param("tau", 1.0, float, "sd of the mixture over the gain, in run sds (> 0)"))),
    _board("board-anchor", "anchor_walk", "McNemar anchor walk: models in order of strength, "
           "a new tier at the first model an exact sign test (McNemar's on items) separates "
           "from the tier's anchor"),
    _board("board-adjacent-bootstrap", "adjacent_bootstrap", "paired percentile bootstrap of "
           "each adjacent pair's difference of strengths; a new tier where it lies above 0",
           _N_BOOT),
    _board("board-csranks-simultaneous", "csranks_simultaneous", "simultaneous confidence "
           "sets for ranks of Mogstad et al. 2024 as csranks computes them: stepdown max-t "
           "intervals of every difference, sandwich covariance", _CSRANKS),
    _board("board-csranks-marginal", "csranks_marginal", "marginal confidence set of each "
           "model's rank (Mogstad et al. 2024, as csranks): stepdown max-t intervals of the "
           "differences that involve it; claims of every model's", _CSRANKS),
    _row("aso", "aso:aso", "almost stochastic order as deepsig computes it: A better when "
         f"eps_min < {ASO_THRESHOLD:g}", uses_rng=True, **_GREATER),
    _row("bayes-correlated-t", "bayesian:bayes_correlated_t", "baycomp's correlated t-test: "
         "A better if P(A - B > rope) > threshold", (
             _ROPE, _POSTERIOR,
             Param("correction", None, float, "variance correction; default 1/(n - 1)")),
         paired=True, **_GREATER),
    _row("bayes-signed-rank", "bayesian:bayes_signed_rank", "baycomp's Bayesian signed-rank "
         "test: A better if P(A - B > rope) > threshold", (
             _ROPE, _POSTERIOR,
             Param("prior", BAYES_PRIOR, float, "weight of the Dirichlet prior (> 0)"),
             Param("n_samples", BAYES_SAMPLES, int, "posterior draws, at most 10^6")),
         paired=True, uses_rng=True, **_GREATER),
    _cv("cv-paired-t", "cv:t_over_splits", "paired t over k folds, as if independent",
        ("kfold",), options={"corrected": False}),
    _cv("resampled-t", "cv:t_over_splits", "paired t over J random splits, as if independent",
        ("random",), options={"corrected": False}),
    _cv("corrected-resampled-t", "cv:t_over_splits",
        "Nadeau-Bengio: variance x (1/J + n_test/n_train)", ("random",),
        options={"corrected": True}),
    _cv("corrected-repeated-cv-t", "cv:t_over_splits",
        "Bouckaert-Frank: r x k folds, variance x (1/(k r) + n_test/n_train)",
        ("repeated-kfold",), options={"corrected": True}),
    _cv("5x2cv-t", "cv:five_by_two_t", "Dietterich's 5x2cv paired t (5 df)", ("5x2",)),
    _cv("5x2cv-f", "cv:five_by_two_f", "Alpaydin's combined 5x2cv F (10, 5 df)", ("5x2",)),
    _cv("holdout-mcnemar", "cv:holdout_mcnemar", "McNemar's chi2 (continuity-corrected) on one "
        "hold-out split", ("holdout",), loss="0/1"),
    _cv("holdout-proportion", "cv:holdout_proportion", "two-proportion z on one hold-out "
        "split, errors taken as independent", ("holdout",), loss="0/1"),
])
