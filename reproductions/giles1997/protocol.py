"""What the figures of Giles and Lawrence (1997) share: the seed, the scales, the targets,
and the helpers that run a scenario as an :mod:`evalmc.study.collection` study.

See :mod:`evalmc.reproductions.giles1997` for the paper and the protocol.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from evalmc.reproductions.report import Runs, Target, Targets
from evalmc.study.collection import collect
from evalmc.study.rates import make_design

SEED = 1997
ALPHAS = (0.01, 0.05, 0.1)
PAPER_RATES = {0.01: 0.30, 0.05: 0.45, 0.1: 0.50}
#: Per scale: runs, updates and random train/test splits of Fig 1, and runs and updates of Figs 2
#: and 4; updates of each random-task run (Figs 6-8) and the number of random data sets of Figs
#: 6, 7 and 8; the runs per teacher of the teacher sweep.
SCALE = {
    "quick": {"phoneme_runs": 40, "phoneme_updates": 25_000, "phoneme_splits": 5,
              "teacher_runs": 40, "teacher_updates": 20_000, "teachers": 5,
              "sweep_runs": 20,
              "random_updates": 20_000, "random_sets": 100, "lr_sets": 30, "temporal_sets": 30},
    "paper": {"phoneme_runs": 200, "phoneme_updates": 250_000, "phoneme_splits": 40,
              "teacher_runs": 100, "teacher_updates": 200_000, "teachers": 20,
              "sweep_runs": 100,
              "random_updates": 100_000, "random_sets": 1000, "lr_sets": 150,
              "temporal_sets": 150},
}

_KS_TEXT = ('"The K-S values (D, P) for the training and test sets respectively are ... FIR '
            'gains: (0.18, 0.0035), (0.17, 0.0054), ... and MLP: (0.066, 0.76), (0.052, 0.95). '
            'All distributions are significantly different from Gaussian except for the MLP '
            'case." (Mackey-Glass)')
_TEACHER_KS = ('"The K-S values (D, P) for the training and test sets respectively are K = 1: '
               '(0.25, 8.3e-6), (0.25, 6.3e-6), K = 5: (0.26, 1.9e-6), (0.25, 3.3e-6), K = 10: '
               '(0.17, 0.0045), (0.17, 0.0071), and K = 15: (0.19, 0.0015), (0.12, 0.088). '
               'Hence, all of these distributions are significantly different from Gaussian." '
               '(Artificial task)')
_FIR_KS = ('"The K-S values (D, P) for the training and test sets respectively are FIR no '
           'gains: (0.34, 1.3e-10), (0.39, 6.8e-14), FIR gains: (0.18, 0.0035), (0.17, 0.0054), '
           '... All distributions are significantly different from Gaussian except for the MLP '
           'case." (Mackey-Glass)')
_IIR_KS = ('"The K-S values (D, P) for the training and test sets respectively are ... IIR no '
           'gains: (0.5, \u22480), (0.5, \u22480), IIR gains: (0.28, 2.5e-7), (0.28, 2.2e-7), '
           '... All distributions are significantly different from Gaussian except for the MLP '
           'case." (Mackey-Glass)')
_FIG3B = ('"Notice that a) although the means for the FIR and IIR synaptic gains cases are '
          'similar, the median for the IIR MLP networks is much lower, and b) the mean minus one '
          'standard deviation for the IIR MLP networks is lower than the best individual '
          'networks and actually lower than zero for the synaptic gains case." (Fig 3 caption)')
_FIG8 = ('"Once again, there is an overabundance of \u201cstatistically significant\u201d '
         'differences between the algorithms, e.g. the Gamma network is \u201cbetter\u201d than '
         'the Elman, NP, WZ, and FIR at the 1% level of significance according to t-tests." '
         '(Data Snooping, Fig 8)')
_SKEW = ('"the distribution of performance is skewed towards better performance for smoother '
         'target functions (lower K) and skewed towards worse performance for more complex '
         'target functions (higher K)" (Artificial task)')
_FIG5 = ('"We observe that a) the mean minus one standard deviation for K = 1 and 5 is lower '
         'than the best individual networks, and b) the median moves from being below the mean '
         'to being above the mean as K is increased." (Fig 5 caption)')
_FIG6 = ('"we find that 30% of the results are significantly different at p = 1%, 45% at '
         'p = 5% and 50% at p = 10%" (Data Snooping, Fig 6)')
_SHAPIRO = ('"the distributions are significantly different from normal 30% of the time '
            'according to Shapiro-Wilks tests, and the pairwise variance of the distributions '
            'varies significantly 25% of the time according to f-tests." (Data Snooping)')
_UNSEEN = ('"the result of the optimization (the \u201coptimal\u201d learning rate) should be '
           'tested on an additional test set of unseen data" (Data Snooping, Fig 7)')
_TUKEY = ('"it is important to only rely on appropriate statistical tests (e.g. ANOVA and '
          'Tukey\u2019s HSD when comparing multiple groups)" (Data Snooping, Fig 8)')
_LARGER = ('"Note that the observed difficulties in the example above can be reduced greatly by '
           'using a larger test set size." (Data Snooping)')
_TEACHER_NETS = ('"An MLP with 5 input nodes, 5 hidden nodes, and 1 output node is initialized '
                 'with random weights ... n_tr data points are created by selecting random '
                 'inputs with zero mean and unit variance and propagating them through the '
                 'network to find the corresponding outputs ... The training data set S is used '
                 'to train new MLPs ... Each network was trained for 200,000 updates." '
                 '(Artificial task)')
#: The teacher sweep's protocols other than the primary (``teacher_sweep.VARIANTS``).
_SENSITIVITY = {
    "figs4-5": "linear teacher and students, standardized targets (Figs 4-5)",
    "tanh": "tanh teacher and students, raw targets",
    "tanh-teacher": "tanh teacher, linear students, raw targets (1/2 of the teachers)",
    "uniform": "the primary on uniform inputs (1/2 of the teachers)",
    "updates/4": "the primary with 1/4 of the updates",
    "updates*2": "the primary with 2x the updates (1/4 of the teachers)",
}
_SHARE = "share of teachers above 0.5 by 2 SE"
_TREND = "Kendall's tau of the coefficient against K > 0, one-sided P < 0.05"
TARGETS = Targets([
    Target("G0", "phoneme data: train and test errors skewed toward better performance (the "
           "% misclassified skewed right) and not symmetric, over random train/test splits "
           "(the paper gives none)", paper="skewed towards better performance, not Gaussian, "
           "not symmetric", tolerance="a split shows it when skewness > 0 and D'Agostino's "
           "skewness test P < 0.05, train and test; the share of random splits showing it "
           "above 1/2 by more than 2 SE (within 2 SE of 1/2: inconclusive)",
           source='"It can be observed that the distributions are skewed towards better '
                  'performance and are a) not Gaussian and b) not symmetric." (Phoneme Data, '
                  'Fig 1)'),
    Target("G6", "Mackey-Glass MLP errors consistent with a Gaussian (train and test)",
           paper="D=0.066, 0.052; P=0.76, 0.95", source=_KS_TEXT,
           tolerance="paper's K-S P > 0.05"),
    Target("G6 FIR no gains", "Mackey-Glass FIR MLP without gains: errors not Gaussian (train "
           "and test)", paper="D=0.34, 0.39; P=1.3e-10, 6.8e-14", source=_FIR_KS,
           tolerance="paper's K-S P < 0.01"),
    Target("G6 FIR gains", "Mackey-Glass FIR MLP with gains: errors not Gaussian (train and "
           "test)", paper="D=0.18, 0.17; P=0.0035, 0.0054", source=_FIR_KS,
           tolerance="paper's K-S P < 0.01"),
    Target("G6 FIR gains fan-in 6", "the FIR MLP with gains started like the MLP (fan-in 6, "
           "not its one synapse): K-S (D, P), train and test", paper="not stated",
           source=_FIR_KS, role="finding"),
    Target("G6 IIR no gains", "Mackey-Glass IIR MLP without gains: errors not Gaussian (train "
           "and test)", paper="D=0.5, 0.5; P\u22480, \u22480", source=_IIR_KS,
           tolerance="paper's K-S P < 0.01"),
    Target("G6 IIR gains", "Mackey-Glass IIR MLP with gains: errors not Gaussian (train and "
           "test)", paper="D=0.28, 0.28; P=2.5e-7, 2.2e-7", source=_IIR_KS,
           tolerance="paper's K-S P < 0.01"),
    Target("G6b", "Mackey-Glass MLP: mean - sd not below the best run, train and test",
           paper="below only for the IIR cases, not the MLP",
           source='"However, none of the 100 trials results in such performance for the two '
                  'IIR test cases." (Mackey-Glass, Fig 3)'),
    Target("G6c", "Mackey-Glass: the FIR MLP with gains does worse than the MLP and the FIR MLP "
           "without gains (median test NMSE)",
           paper="MLP and FIR no gains compressed by the poor performance of the others",
           tolerance="FIR gains median above both",
           source='"The MLP and FIR no gains cases are compressed in this graph due to the '
                  'relative poor performance of the other cases." (Fig 3 caption)'),
    Target("G6d", "Mackey-Glass IIR MLPs without and with gains: mean - sd of the test errors "
           "below the best run", paper="lower than the best individual error for the two IIR "
           "test cases", tolerance="test mean - sd < minimum, both IIR networks",
           source='"The mean minus one standard deviation is actually lower than the best '
                  'individual error for the two IIR test cases. ... However, none of the 100 '
                  'trials results in such performance for the two IIR test cases." '
                  '(Mackey-Glass, Fig 3)'),
    Target("G6e", "Mackey-Glass IIR MLP with gains: mean - sd of the test errors below 0",
           paper="actually lower than zero for the synaptic gains case",
           tolerance="test mean - sd < 0", source=_FIG3B),
    Target("G6f", "Mackey-Glass FIR and IIR MLPs with gains: similar mean test errors, the "
           "IIR median much lower", paper="means similar, the median for the IIR MLP networks "
           "much lower", tolerance="IIR / FIR median < 0.5, IIR / FIR mean in [0.5, 2]",
           source=_FIG3B),
    Target("G6g", "Mackey-Glass IIR MLP with gains: test errors more significantly skewed toward "
           "better performance (skewed right) than the FIR MLP with gains'",
           paper="the IIR case is more significantly skewed towards better performance",
           tolerance="D'Agostino skewness z: IIR > FIR, IIR one-sided P < 0.05",
           source='"When considering the FIR and IIR synaptic gains networks, significant '
                  'differences are evident from the distributions and the box-whiskers plots '
                  '(all distributions are multimodal, however the IIR case is more '
                  'significantly skewed towards better performance)." (Mackey-Glass)'),
    Target("G1 K=1", "K=1: errors non-Gaussian, train and test", tolerance="paper's K-S P < "
           "0.01 for a " + _SHARE, paper="D=0.25, 0.25; P=8.3e-06, 6.3e-06",
           source=_TEACHER_KS),
    Target("G1 K=5", "K=5: errors non-Gaussian, train and test", tolerance="paper's K-S P < "
           "0.01 for a " + _SHARE, paper="D=0.26, 0.25; P=1.9e-06, 3.3e-06",
           source=_TEACHER_KS),
    Target("G1 K=10", "K=10: errors non-Gaussian, train and test", tolerance="paper's K-S P < "
           "0.01 for a " + _SHARE, paper="D=0.17, 0.17; P=0.0045, 0.0071",
           source=_TEACHER_KS),
    Target("G1 K=15", "K=15: training errors non-Gaussian (the paper's own test P = 0.088 is not "
           "significant, so the test errors are reported, not judged)",
           tolerance="paper's K-S P < 0.01 (train) for a " + _SHARE,
           paper="D=0.19, 0.12; P=0.0015, 0.088", source=_TEACHER_KS),
    Target("G2", "test-error skewness positive at K=1 (toward better), negative at K=15",
           paper="K=1 > 0, K=15 < 0", source=_SKEW, tolerance=_SHARE),
    Target("G5", "multimodality grows toward high K: Sarle's bimodality coefficient of the "
           "test errors rises with K across the teachers",
           paper="significant multimodality for high K", tolerance=_TREND,
           source='"Note that there is significant multimodality for high K." (Artificial '
                  'task)'),
    Target("G3", "test error: median below the mean at K=1, above it at K=15",
           paper="K=1 below, K=15 above", source=_FIG5, tolerance=_SHARE),
    *(Target(f"G2-G5 {variant}", f"sensitivity of G2, G3 and G5 to the protocol: {label}",
             paper="protocol not stated", source=_TEACHER_NETS, role="finding")
      for variant, label in _SENSITIVITY.items()),
    Target("G4 K=1", "K=1: mean - sd below the best run (train and test)", paper="yes",
           source=_FIG5, tolerance=_SHARE),
    Target("G4 K=5", "K=5: mean - sd below the best run (train and test)", paper="yes",
           source=_FIG5, tolerance=_SHARE),
    *(Target(gid, "share of random data sets whose 10 test accuracies differ from 50% by a "
             f"one-sample t-test at {a:g}", paper=f"{PAPER_RATES[a]:g}", source=_FIG6,
             tolerance="±0.12", value=PAPER_RATES[a], tol=0.12)
      for gid, a in zip(("G7", "G8", "G9"), ALPHAS, strict=True)),
    Target("G10", "share of data sets whose 10 accuracies are non-normal (Shapiro-Wilk; the "
           "paper gives no level: 5% assumed)", paper="0.3", source=_SHAPIRO,
           tolerance="±0.2 (2 SE of 20 data sets)", value=0.30, tol=0.2),
    Target("G11", "share of pairs of data sets with different run variances (F-test, 5%)",
           paper="0.25", source=_SHAPIRO, tolerance="±0.12", value=0.25, tol=0.12),
    Target("G14", "a larger test set cuts the spurious-significance rate of the t-test (5%) "
           "on random data", paper="reduced greatly", source=_LARGER,
           tolerance="rate at 3000 test points below the rate at 100 by > 4 MCSE of the "
                     "difference"),
    Target("G14 deviation", "RMS deviation of the data sets' mean accuracy from 50% against the "
           "test size (log-log slope; -1/2 by the binomial law, whatever the networks)",
           paper="not stated", source=_LARGER, role="finding"),
    Target("G12 snooped", "learning rate chosen on test set 1: its 10 runs 'better than "
           "chance' on test set 1 (t-test) far above 5%", paper="far above alpha",
           tolerance="> 5% + 4 MCSE",
           source='"Clearly, selection of the optimal value here would allow us to present '
                  'results which are significantly better than chance." (Data Snooping, Fig 7)'),
    Target("G12 fresh", "the chosen setting judged on a fresh test set 2 (t-test): the rate of "
           "the same t-test without snooping (fixed learning rate 0.1)",
           paper="snooping bias removed", source=_UNSEEN, tolerance="4 MCSE"),
    Target("G13 t-tests", "pairwise t-tests between network types on random data: some pair "
           "'significant' at 1% far more often than 1%", paper="an overabundance",
           tolerance="> 1% + 4 MCSE", source=_FIG8),
    Target("G13 Tukey", "family-wise rate of Tukey's HSD between network types on random "
           "data (1%)", paper="not stated", source=_TUKEY, role="finding"),
])
_RUNS_PER_SET = 10
_BLOCK = 10


def _collect(scenario, design: pd.DataFrame, n_reps: int, runs: Runs, block_size: int = 1):
    """Every record of `scenario` over `design` (:mod:`evalmc.study.collection`), one stream
    per block."""
    data = collect(design, scenario, n_reps=n_reps, seed=SEED, block_size=block_size,
                   progress=False, **runs.engine)
    return data.drop(columns="condition_id")


def _data_sets(scenario, scale: str, sets: str, runs: Runs) -> pd.DataFrame:
    """The records of `scenario` over the scale's number of `sets`, one data set a block."""
    data = _collect(scenario, make_design(updates=SCALE[scale]["random_updates"]),
                    SCALE[scale][sets], runs)
    return data.rename(columns={"rep": "data_set"}).drop(columns="updates")


def _below_best(values) -> tuple[float, bool]:
    """The mean minus one sd of `values` (errors), and whether it is below the best (lowest)."""
    low = values.mean() - values.std(ddof=1)
    return low, bool(low < values.min())


def _t_pvalue(acc, alternative="two-sided"):
    """One-sample t-test of accuracies against 50%; 1 when all runs agree exactly on 50."""
    if np.ptp(acc) == 0:
        return 1.0 if acc[0] == 50 else 0.0
    return float(stats.ttest_1samp(acc, 50.0, alternative=alternative).pvalue)


def _accuracies(frame):
    return frame[[f"acc{r}" for r in range(_RUNS_PER_SET)]].to_numpy()
