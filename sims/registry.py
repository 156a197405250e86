"""The built-in scenarios, one row each: its parameters (their defaults, types and docs) and
the data its batches hold (``yields``: the names of its batch type's
:attr:`~evalmc.sims.base.Batch.holds`, so that ``evalmc list`` can say which scenarios a
criterion works on); each row's class takes its fields from its row (``class Normal(Scenario,
registered="normal")``). Like every registry (:mod:`evalmc.registry`), it imports no
numerical library.
"""

from evalmc.registry import Entry, Param, Registry

#: Runs of a cross-validation scheme on one data set at most (replicability).
MAX_RUNS = 100
#: Features of the two-class learning problem at most.
MAX_FEATURES = 20

_N_A = Param("n_a", 10, int, "runs of model A")
_N_B = Param("n_b", 10, int, "runs of model B")
_SHIFT = Param("shift", 0.0, float, "added to A's scores")
_SD_A = Param("sd_a", 1.0, float, "sd of A's scores")
_SD_B = Param("sd_b", 1.0, float, "sd of B's scores")
#: How a learning scenario splits its data set.
_SPLITS = (
    Param("n", 300, int, "examples in the data set"),
    Param("scheme", "random", str, "kfold, repeated-kfold, random, 5x2 or holdout"),
    Param("k", 10, int, "folds (kfold, repeated-kfold)"),
    Param("r", 10, int, "repetitions (repeated-kfold)"),
    Param("j", 15, int, "random splits (random)"),
    Param("test_share", 0.1, float, "share of the data set tested (random, holdout)"),
    Param("runs", 1, int, f"independent runs of the scheme on each data set (2 to {MAX_RUNS}: "
                          "replicability)"),
)


#: The board of the leaderboard scenarios: its models and their spacing.
_BOARD = (Param("models", 10, int, "models on the board (>= 2)"),
          Param("spacing", 0.1, float, "strength between adjacent models (logit, >= 0)"),
          Param("tied", 3, int, "models tied at the top (1 = no tie)"))


def _scenario(name: str, target: str, description: str, *params: Param,
              yields: tuple[str, ...] = ("scores",)) -> Entry:
    return Entry(name, f"evalmc.sims.{target}", description, params, {"yields": yields})


SCENARIOS = Registry("scenario", [
    _scenario("normal", "scores:Normal", "two independent Gaussian samples of run scores",
              _N_A, _N_B, Param("mean_a", 0.0, float, "mean score of A"),
              Param("mean_b", 0.0, float, "mean score of B"), _SD_A, _SD_B, _SHIFT),
    _scenario("paired-normal", "scores:PairedNormal",
              "paired Gaussian scores of two models on the same seeds",
              Param("n", 10, int, "paired runs (seeds) per replication"),
              Param("mean_diff", 0.0, float, "mean of A minus mean of B"), _SD_A, _SD_B,
              Param("rho", 0.0, float, "correlation of A's and B's score on one seed, in "
                                       "(-1, 1)"), _SHIFT),
    _scenario("val-test", "scores:ValTest",
              "runs with correlated validation and test scores (two models)",
              Param("n", 10, int, "runs per model and replication"),
              Param("mu_val", 0.0, float, "mean validation score"),
              Param("mu_test", 0.0, float, "mean test score"),
              Param("sd_val", 1.0, float, "sd of validation scores"),
              Param("sd_test", 1.0, float, "sd of test scores"),
              Param("rho", 0.5, float, "validation/test correlation of a run, in [-1, 1]"),
              Param("shift", 0.0, float, "added to A's validation and test scores"),
              yields=("scores", "validation scores")),
    _scenario("skew-normal", "scores:SkewNormal",
              "two independent skew-normal samples (skewed run scores)",
              _N_A, _N_B, Param("loc", 0.0, float, "location"),
              Param("scale", 1.0, float, "scale (> 0)"),
              Param("skew", -4.0, float, "shape; negative = long tail toward low scores"),
              _SHIFT),
    _scenario("mixture", "scores:Mixture", "two independent samples of a bimodal Gaussian mixture",
              _N_A, _N_B,
              Param("weight", 0.3, float, "probability of the second component, in [0, 1]"),
              Param("loc1", 0.0, float, "mean of the first component"),
              Param("loc2", 3.0, float, "mean of the second component"),
              Param("scale1", 1.0, float, "sd of the first component"),
              Param("scale2", 1.0, float, "sd of the second component"), _SHIFT),
    _scenario("empirical", "scores:Empirical",
              "your own scores from a CSV column, smoothed bootstrap",
              Param("file", "", str, "CSV file of run scores (required)"),
              Param("column", "", str, "column of scores; default: the only numeric column"),
              _N_A, _N_B,
              Param("bandwidth", "scott", str, "'scott', 'silverman', or scipy's bw_method "
                                               "factor"), _SHIFT),
    _scenario("empirical-paired", "scores:EmpiricalPaired",
              "your own paired runs (a row per seed), smoothed bootstrap of the pairs",
              Param("file", "", str, "CSV file, a row per seed (required)"),
              Param("a", "", str, "column of A's scores (required)"),
              Param("b", "", str, "column of B's scores (required)"),
              Param("n", 10, int, "pairs (seeds) per replication"),
              Param("bandwidth", "scott", str, "'scott', 'silverman', or scipy's bw_method "
                                               "factor"),
              Param("shift", 0.0, float, "added to A's scores, whose mean is first moved to "
                                         "B's")),
    _scenario("pipelines", "benchmarks:Benchmark",
              "k runs of two pipelines, ideal or biased (shared-bias) estimator",
              Param("k", 50, int, "runs of each pipeline per study (replication)"),
              Param("p_ab", 0.5, float, "P(A > B) of one run of A against one of B, in (0, 1)"),
              Param("sigma", 1.0, float, "sd of a run's score given the study (> 0)"),
              Param("bias_sd", 0.0, float, "sd of a pipeline's shared bias; 0 = ideal "
                                           "estimator")),
    _scenario("paired-classifiers", "classifiers:PairedClassifiers",
              "two classifiers on the same evaluation sets (8-cell table)",
              Param("n", 1000, int, "examples per evaluation set"),
              Param("prevalence", 0.5, float, "share of positive examples, in (0, 1)"),
              Param("tpr_a", 0.8, float, "true positive rate of A, in [0, 1]"),
              Param("fpr_a", 0.1, float, "false positive rate of A, in [0, 1]"),
              Param("tpr_b", 0.8, float, "true positive rate of B, in [0, 1]"),
              Param("fpr_b", 0.1, float, "false positive rate of B, in [0, 1]"),
              Param("rho", 0.5, float, "correlation of A's and B's latent scores, in (-1, 1)"),
              Param("measure", "dcerr", str, "difference `truth` refers to: 'dcerr' or 'df1'"),
              Param("p_both", None, float, "P(both right) on an example; the paired table "
                                           "replaces the rates and rho"),
              Param("p_a_only", None, float, "P(only A right) on an example (paired table)"),
              Param("p_b_only", None, float, "P(only B right) on an example (paired table)"),
              yields=("counts",)),
    _scenario("llm-items", "items:Items",
              "two models' 0/1 correctness (or latent scores) on the same n items, in clusters",
              Param("n_items", 1000, int, "items (questions) per replication"),
              Param("n_clusters", 0, int, "clusters of equal size; 0 = every item its own"),
              Param("icc", 0.0, float, "share of difficulty variance between clusters, in "
                                       "[0, 1)"),
              Param("sd", 1.0, float, "sd of item difficulty (probit scale, > 0)"),
              Param("skill_a", 0.5, float, "skill of A (probit scale)"),
              Param("skill_b", 0.5, float, "skill of B (probit scale)"),
              Param("tau", 0.0, float, "sd of a cluster's advantage of A over B (>= 0)"),
              Param("rho", 0.5, float, "correlation of the two models' item-level noise, in "
                                       "(-1, 1)"),
              Param("shift", 0.0, float, "added to A's skill"),
              Param("n_samples", 1, int, "scores per item (repeated generations)"),
              Param("persistence", 1.0, float, "share of the item-level noise fixed per item, "
                                               "the rest redrawn per sample, in [0, 1]"),
              Param("scores", "correct", str, "'correct' (0/1) or 'latent' (the latent value, "
                                              "like a log-probability)"),
              yields=("scores", "clusters", "samples")),
    _scenario("two-models", "twomodels:TwoModels",
              "two models' 0/1 answers on n different questions each, right with probabilities "
              "theta_a and theta_b (Bowyer et al. 2025)",
              Param("n", 10, int, "questions per model and replication"),
              Param("theta_a", 0.5, float, "A's accuracy, in (0, 1)"),
              Param("theta_b", 0.5, float, "B's accuracy, in (0, 1)")),
    _scenario("paired-models", "twomodels:PairedModels",
              "two models' 0/1 answers on the same n questions: signs of correlated latent "
              "normals (Bowyer et al. 2025)",
              Param("n", 10, int, "questions per replication"),
              Param("theta_a", 0.5, float, "A's accuracy, in (0, 1)"),
              Param("theta_b", 0.5, float, "B's accuracy, in (0, 1)"),
              Param("rho", None, float, "latent correlation, in (-1, 1); default: 2 r - 1, "
                                        "r ~ Beta(4, 2), drawn per replication")),
    _scenario("item-model", "itemmodel:ItemModel",
              "your own two models' item scores: a latent Gaussian model fitted to them, fresh "
              "items each replication",
              Param("file", "", str, "item-level results of both models (required; "
                                     "read_items: CSV, JSON Lines, lm-eval, inspect)"),
              Param("a", "", str, "model A's name in the file (required)"),
              Param("b", "", str, "model B's name in the file (required)"),
              Param("metric", "", str, "the scores' column or metric; default: read_items'"),
              Param("cluster", "", str, "column or field of the items' clusters; default none"),
              Param("sample", "", str, "column of sample indices; default none (one score "
                                       "per item)"),
              Param("item", "item", str, "a table's column of item ids"),
              Param("model", "", str, "a table's column of model names; default model"),
              Param("delta", 0.0, float, "A's expected score minus B's; 0 = the null"),
              Param("n_items", 0, int, "items per replication (>= 2); 0 = the file's items "
                                       "in the file's clusters"),
              Param("draws", "auto", str, "'auto': 0/1 scores drawn as each cluster's counts of "
                                         "item types (their sufficient statistic), the scores "
                                         "only if a criterion asks; 'scores': every score"),
              Param("level", "outer", str, "with nested clusters (cluster='outer/inner'), the "
                                           "level the batches cluster at: 'outer' or 'inner'"),
              Param("refit", 0, int, "0: the file's fit; k >= 1: the fit to the k-th data set "
                                     "drawn from it (a parametric bootstrap of the fit)"),
              Param("refit_seed", 0, int, "seed of the data sets drawn for `refit`"),
              yields=("scores", "clusters", "samples")),
    _scenario("bernoulli", "proportions:Bernoulli",
              "one model's 0/1 answers to n questions, each right with probability theta",
              Param("n", 30, int, "questions per replication"),
              Param("theta", 0.5, float, "the model's true accuracy, in [0, 1]")),
    _scenario("bernoulli-tasks", "proportions:BernoulliTasks",
              "one model's 0/1 answers to tasks x per_task questions, task rates "
              "Beta(d theta, d (1 - theta)), d ~ Gamma(d_shape, d_scale) per replication",
              Param("tasks", 6, int, "tasks per replication"),
              Param("per_task", 5, int, "questions per task"),
              Param("theta", 0.5, float, "the model's true mean accuracy, in (0, 1)"),
              Param("d_shape", 1.0, float, "shape of the dispersion's Gamma law (> 0)"),
              Param("d_scale", 1.0, float, "scale of the dispersion's Gamma law (> 0)"),
              yields=("scores", "clusters", "samples")),
    _scenario("multi-dataset", "multidataset:MultiDataset",
              "k models on d data sets: data set, model, interaction, noise",
              Param("k", 5, int, "models"), Param("n_datasets", 20, int, "data sets"),
              Param("spread", 0.0, float, "effect of the best model over the worst, spaced "
                                          "evenly"),
              Param("sd_dataset", 1.0, float, "sd of a data set's difficulty (shared, >= 0)"),
              Param("sd_interaction", 0.5, float, "sd of the model x data set interaction "
                                                  "(>= 0)"),
              Param("sd_run", 1.0, float, "sd of one run's noise (> 0)"),
              Param("runs", 1, int, "runs averaged per model and data set"),
              Param("rho", 0.0, float, "correlation of the models' run noise on a data set, "
                                       "[0, 1)"), yields=("scores", "table")),
    _scenario("cv-regression", "learning:CvRegression",
              "least squares on d features (A) vs the first p (B), test errors on each "
              "cross-validation split of one data set", *_SPLITS,
              Param("d", 10, int, "features of the population and of A's model"),
              Param("p", 5, int, "features of B's model (the first p), 1 <= p < d"),
              Param("sd", 1.0, float, "noise sd (> 0)"),
              Param("shift", 0.0, float, "B's expected risk minus A's at n_train, in sd^2"),
              yields=("scores", "splits")),
    _scenario("cv-classification", "learning:CvClassification",
              "linear discriminant (A) vs nearest mean (B) on two Gaussian classes, test "
              "errors on each cross-validation split", *_SPLITS,
              Param("d", 10, int, f"features, 2 <= d <= {MAX_FEATURES}"),
              Param("delta", 2.0, float, "distance of the class means along feature 1 (> 0)"),
              Param("shift", 0.0, float, "B's expected error rate minus A's at n_train"),
              Param("alternative", "correlation", str,
                    "how a shift is made: 'correlation' (the features', which changes the "
                    "noise too) or 'exchange' (A-only errors become B's: the null's noise)"),
              yields=("scores", "splits")),
    _scenario("cv-stumps", "learning:CvStumps",
              "decision stump on feature 1 (A) vs on feature 2 (B), unstable learners at "
              "equal expected error, test errors on each cross-validation split", *_SPLITS,
              Param("slope", 0.5, float, "how much each feature moves P(y = 1), in (0, 0.5]"),
              yields=("scores", "splits")),
    _scenario("best-of-n", "selection:BestOfN",
              "A = the best of several equally good variants by their mean over n runs, "
              "against a baseline",
              Param("n", 10, int, "runs of each variant and of the baseline"),
              Param("variants", 10, int, "variants of A tried (>= 1)"),
              Param("effect", 0.0, float, "population difference of every variant over B"),
              Param("sd", 1.0, float, "sd of a run's score (> 0)"),
              Param("select", "same", str, "'same': A's scores are the runs it was chosen by "
                                           "(snooping); 'fresh': n new runs of the chosen one")),
    _scenario("rerun", "selection:Rerun",
              "two Gaussian samples drawn again, up to `tries` times, until Welch's t-test is "
              "significant; the reported try",
              Param("n", 10, int, "runs of each model per try"),
              Param("tries", 5, int, "tries at most (>= 1)"),
              Param("shift", 0.0, float, "A's population mean minus B's"),
              Param("sd", 1.0, float, "sd of a run's score (> 0)"),
              Param("alpha", 0.05, float, "level of the t-test that stops the re-runs")),
    _scenario("arena", "leaderboard:Arena",
              "M models in pairwise battles: Bradley-Terry strengths evenly spaced with a tied "
              "group at the top, Davidson ties, prompt reuse, uniform or adaptive pairing",
              *_BOARD,
              Param("battles", 5000, int, "battles per board"),
              Param("tie", 0.5, float, "Davidson's tie parameter nu (>= 0): P(tie) = "
                                       "nu / (2 + nu) between equals"),
              Param("prompts", 0, int, "prompts, each reused by battles/prompts battles; 0 = "
                                       "every battle its own prompt"),
              Param("prompt_sd", 0.0, float, "sd of the prompt x model effect (needs prompts)"),
              Param("pairing", "uniform", str, "'uniform', or 'adaptive': pairs drawn by "
                                               "exp(-|fitted gap| / width), chunk by chunk"),
              Param("chunks", 10, int, "chunks of battles of adaptive pairing"),
              Param("width", 0.2, float, "width of adaptive pairing's kernel (logit, > 0)"),
              Param("position", 0.0, float, "log-odds bonus of the model shown first"),
              yields=("leaderboard", "battles")),
    _scenario("item-board", "leaderboard:ItemBoard",
              "M models' 0/1 answers (logistic item model) or continuous scores (Gaussian) on "
              "items in clusters, skills evenly "
              "spaced with a tied group at the top",
              Param("models", 20, int, "models on the board (>= 2)"),
              Param("spacing", 0.1, float, "skill between adjacent models (logit, >= 0)"),
              Param("tied", 3, int, "models tied at the top (1 = no tie)"),
              Param("items", 500, int, "items per board"),
              Param("clusters", 20, int, "clusters of equal size; 0 = every item its own"),
              Param("sd", 1.0, float, "sd of item difficulty (logit)"),
              Param("sd_cluster", 0.5, float, "sd of a cluster's difficulty (logit)"),
              Param("tau", 0.0, float, "sd of the model x cluster effect (logit)"),
              Param("scores", "binary", str, "'binary' (0/1 answers), or 'gaussian': the "
                                             "logit itself plus N(0, noise^2), a continuous "
                                             "score (BLEU, F1, a grade)"),
              Param("noise", 1.0, float, "sd of a gaussian score's noise (> 0)"),
              yields=("leaderboard", "items")),
    _scenario("loop", "loops:Loop",
              "a research loop: K candidates tried in turn against a baseline with a few "
              "runs each (Gaussian, skewed, multimodal or resampled noise), a share of them "
              "with a real effect, the baseline fixed or replaced by each kept candidate",
              Param("candidates", 50, int, "candidates K tried in turn (>= 1)"),
              Param("runs", 1, int, "runs r of each candidate"),
              Param("base_runs", 2, int, "runs of the baseline"),
              Param("share", 0.0, float, "share of candidates with a real effect, in [0, 1]: "
                                         "round(share K) of them, at random places"),
              Param("gain", 1.0, float, "true gain (effect) of a real candidate"),
              Param("sd", 1.0, float, "sd of a run's score (> 0)"),
              Param("rho", 0.0, float, "correlation of two runs on one seed, in [0, 1): "
                                       "0 = runs independent, above 0 = paired by seed"),
              Param("baseline", "fixed", str, "'fixed', or 'replace': each kept candidate "
                                              "becomes the baseline (a ratchet)"),
              Param("noise", "normal", str, "shape of a run's noise, scaled to sd: normal, "
                                            "skew-normal, mixture or empirical(file=...), "
                                            "with their parameters"),
              Param("rerun", 0, int, "fresh runs, on new seeds, of the final reported "
                                     "model (0 = none)"),
              Param("looks", 1, int, "looks a rule may take at a candidate, `runs` more runs "
                                     "each (1 = decide once)"),
              Param("gain_sd", 0.0, float, "sd of the real candidates' effects, drawn "
                                           "N(gain, gain_sd^2) per candidate (0 = all `gain`); "
                                           "one drawn <= 0 has no real effect"),
              yields=("loop",)),
    _scenario("pool", "pools:Pool", "runs from a preset pool of val/test scores (Bajgar et al.)",
              Param("preset", "asreader-random", str, "resnet-fixed, asreader-fixed, "
                                                       "asreader-random"),
              Param("n", 10, int, "runs per model and replication"),
              Param("shift", 0.0, float, "added to A's validation and test scores"),
              yields=("scores", "validation scores")),
])
