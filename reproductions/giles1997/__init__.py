"""Giles and Lawrence (1997), "Presenting and analyzing the results of AI experiments: data
averaging and data snooping" (AAAI-97): the distribution of results of really trained networks,
and "significant" results on purely random labels.

Common to every figure (paper): stochastic backpropagation (one update per example), quadratic
cost, learning rate linear from 0.1 to 0, standardized inputs, initial weights
U(-2.4/F, 2.4/F). Training is ``evalmc.sims.networks``; every data set and block of runs is
a block of an ``evalmc.study.collection`` study, with its own stream, so nothing depends on the
workers, and a stopped run resumes from its cache.

Protocol, after a second reading of the paper:

- Only the inputs are standardized ("All inputs were normalized to zero mean and unit
  variance"): the Mackey-Glass targets are the raw series.
- The teacher task's patterns (G1-G4) depend on the teacher drawn: each K is run on 20
  teachers (quick: 5), and a pattern passes when most teachers show it (a share above one half
  by more than 2 binomial SEs), fails below one half by more than 2 SEs, and is inconclusive
  in between. Figs 4 and 5 show the first teacher.
- Inconclusive (neither pass nor FAIL) are also a K-S or skewness verdict that one run turns
  (dropping the worst run flips it), and a FIR or IIR comparison that misses where the paper's
  formulation (Back 1992) leaves open what decides it: the start, the feedback order, a
  stability constraint.
- Training goes through the training set in passes, each example once per pass in a new
  random order ("stochastic update (update after every training point)").
- G5 ("significant multimodality for high K") is judged by a trend across K: Kendall's tau
  between K and the teachers' bimodality coefficients, one-sided at 5%.
- G2, G3 and G5 are judged under the primary teacher protocol of :mod:`.teacher_sweep` (the
  teacher's raw outputs as targets, as the paper says), the protocols the paper leaves open
  reported beside it; Figs 4-5 (G1, G4) keep their standardized targets.
- G10: Shapiro-Wilk at 5% (the paper gives no level; the 10% rate is in the note), against
  the paper's own noise (30% of 20 data sets: binomial SE 0.10) with a tolerance of 2 SE.
- G12 fresh: the "optimal" learning rate "should be tested on an additional test set of unseen
  data"; the target is that the chosen setting's rate on it equals the t-test's rate without
  snooping (fixed learning rate) within 4 MCSE.
- G13: the paper's Fig 8 claim is at 1%; Tukey's HSD, which it recommends with no rate, is a
  finding. Every network has the order 5 as its input window, the Elman network too.
- G14 ("difficulties ... can be reduced greatly by using a larger test set size"): the
  t-test's spurious significance at 3000 test points must fall below its rate at 100; that the
  deviations from 50% shrink like 1/sqrt(test size) is a finding.
- The FIR and IIR MLPs of Figs 2-3 (Back 1992; their starts, the IIR's assumed feedback of
  order 2 and its unstable runs): see :mod:`.mackey_glass`.

Assumed where the paper is silent: tanh hidden units and a linear output; the teacher task's
inputs standard normal and, in Figs 4-5, its targets standardized (the teacher sweep's primary
keeps them raw, as the paper says); NMSE = MSE / variance of the targets of that set; the random
task's labels coded -1/+1 on one output, classified by its sign; K-S with the sample sd
(ddof=1); the Mackey-Glass series integrated by RK4 (dt 0.1, constant history 1.2, 1000 time
units dropped); Fig 7's learning rates; Fig 8's temporal task (``evalmc.sims.temporal``). Fig
1's data is the public ELENA phoneme set (:mod:`.phoneme`), its train/test split not given: G0
is judged over 40 random splits (quick: 5), by the share that shows the skew. Not built: the
Gamma, NP and WZ networks of Fig 8.

One module per experiment, over the shared :mod:`.protocol` (seed, scales, targets):
:mod:`.phoneme` (Fig 1), :mod:`.mackey_glass` (Figs 2-3), :mod:`.teacher` (Figs 4-5),
:mod:`.teacher_sweep` (G2, G3 and G5 under each teacher protocol),
:mod:`.random_labels` (Fig 6 and the test-set size), :mod:`.learning_rates` (Fig 7) and
:mod:`.network_types` (Fig 8).
"""

from __future__ import annotations

from evalmc.reproductions.giles1997.learning_rates import (
    LEARNING_RATES,
    LearningRateSets,
    check_fig7,
    compute_fig7,
    plot_fig7,
)
from evalmc.reproductions.giles1997.mackey_glass import (
    MG_NETWORKS,
    MackeyGlassRuns,
    check_fig2,
    check_fig3,
    compute_mackey_glass,
    plot_fig2,
    plot_fig3,
)
from evalmc.reproductions.giles1997.network_types import (
    NETWORKS,
    ORDER,
    TemporalSets,
    check_fig8,
    compute_fig8,
    plot_fig8,
)
from evalmc.reproductions.giles1997.phoneme import (
    PhonemeRuns,
    check_fig1,
    compute_fig1,
    phoneme_task,
    plot_fig1,
)
from evalmc.reproductions.giles1997.protocol import ALPHAS, PAPER_RATES, SCALE, SEED, TARGETS
from evalmc.reproductions.giles1997.random_labels import (
    TEST_SIZES,
    RandomLabelSets,
    check_fig6,
    check_test_size,
    compute_fig6,
    compute_test_size,
    plot_fig6,
    plot_test_size,
)
from evalmc.reproductions.giles1997.teacher import (
    KS,
    TeacherRuns,
    check_fig4,
    check_fig5,
    compute_teacher,
    plot_fig4,
    plot_fig5,
)
from evalmc.reproductions.giles1997.teacher_sweep import (
    VARIANTS,
    check_sweep,
    compute_sweep,
    plot_sweep,
)
from evalmc.reproductions.report import Figure

__all__ = [
    "ALPHAS", "FIG1", "FIG2", "FIG3", "FIG4", "FIG5", "FIG6", "FIG7", "FIG8", "KS",
    "TEACHERSWEEP", "VARIANTS", "check_sweep", "compute_sweep", "plot_sweep",
    "LEARNING_RATES", "MG_NETWORKS", "NETWORKS", "ORDER",
    "PAPER_RATES", "SCALE", "SEED", "TARGETS", "TESTSIZE", "TEST_SIZES",
    "LearningRateSets", "MackeyGlassRuns", "PhonemeRuns", "RandomLabelSets", "TeacherRuns",
    "TemporalSets",
    "check_fig1", "check_fig2", "check_fig3", "check_fig4", "check_fig5", "check_fig6",
    "check_fig7", "check_fig8", "check_test_size", "compute_fig1", "compute_fig6", "compute_fig7",
    "compute_fig8",
    "compute_mackey_glass", "compute_teacher", "compute_test_size", "phoneme_task", "plot_fig1",
    "plot_fig2", "plot_fig3", "plot_fig4", "plot_fig5", "plot_fig6", "plot_fig7", "plot_fig8",
    "plot_test_size",
]

_TEACHERS = ("5-5-1 MLPs on the teacher task (teacher 5-5-1 MLP, weights U(-K, K), 1000 train "
             "/ 5000 test points), 100 runs of 200,000 updates per teacher (quick: 40 of "
             "20,000); the first of 20 teachers per K (quick: 5) is shown, the targets are "
             "judged on the share of teachers; G2, G3 and G5 on the teacher sweep's primary "
             "protocol (teachersweep).")

FIG1 = Figure("Distribution of train/test % correct of 5-10-2 MLPs telling nasal from oral "
              "vowels on the ELENA phoneme data (5 cochlear-spectrum inputs), 200 runs of "
              "250,000 updates (quick: 40 of 25,000), on split 0, the file's order (first 3600 "
              "patterns train, next 1800 test); right: the train and test skewness of the % "
              "misclassified on each of 40 random 3600/1800 splits (quick: 5), the paper giving "
              "none.", compute_fig1, plot_fig1, check_fig1,
              title="Giles and Lawrence 1997, Fig 1: phoneme classification performance")

FIG2 = Figure("Distribution of train/test NMSE predicting Mackey-Glass (a=0.2, b=0.1, "
              "c=10, tau=30, sampled every 6) one step ahead, 1000 train / 1000 test patterns, "
              "inputs standardized and targets raw: MLP with input window 6 and FIR MLPs with "
              "6-tap first-layer synapses without and with synaptic gains (started from a fan-in "
              "of one synapse; the fourth row with gains from the MLP's fan-in 6), and IIR MLPs "
              "with 6 feedforward taps and feedback of order 2 (assumed) without and with "
              "gains, trained in time order, unstable runs kept; 5 hidden units, 100 runs of "
              "200,000 updates each (quick: 40 of 20,000). Series by RK4, dt=0.1, history 1.2, "
              "1000 time units dropped (assumed).",
              compute_mackey_glass, plot_fig2, check_fig2,
              title="Giles and Lawrence 1997, Fig 2: Mackey-Glass NMSE distributions")

FIG3 = Figure("Box-whiskers (box: IQR, bar: median, whiskers: minimum and maximum) beside "
              "mean +- sd of the Fig 2 runs, one panel per network, log scale shared (a mean - "
              "sd below 0, off the scale, is written under the panel's title).",
              compute_mackey_glass, plot_fig3, check_fig3,
              title="Giles and Lawrence 1997, Fig 3: box-whiskers vs mean +- sd")

FIG4 = Figure("Distribution of train/test NMSE for K = 1, 5, 10, 15: " + _TEACHERS,
              compute_teacher, plot_fig4, check_fig4,
              title="Giles and Lawrence 1997, Fig 4: teacher-task NMSE distributions")

FIG5 = Figure("Box-whiskers beside mean +- sd of the Fig 4 runs: " + _TEACHERS,
              compute_teacher, plot_fig5, check_fig5,
              title="Giles and Lawrence 1997, Fig 5: box-whiskers vs mean +- sd")

TEACHERSWEEP = Figure(
    "The teacher task (Figs 4-5) under the protocols the paper leaves open, per protocol: the "
    "share of teachers (2-SE bars) with skewness positive at K = 1 and negative at K = 15 (G2), "
    "the median below the mean at K = 1 and above it at K = 15 (G3), and K = 15 runs spread "
    "(IQR > 0.1 x median: the paper's high-K regime, where Figs 4-5's protocol puts every run "
    "within a few percent), with Kendall's tau of the bimodality coefficient against K (G5). "
    "The primary, by the paper's description (the students are new MLPs like the teacher, "
    "trained on its raw outputs): linear output units for teacher and students, raw targets, "
    "standard normal inputs, 200,000 updates; 20 teachers per K of 100 runs each (quick: 5 "
    "of 20 runs, 20,000 updates); the sensitivity protocols on the share of the teachers "
    "their labels state.",
    compute_sweep, plot_sweep, check_sweep,
    title="Giles and Lawrence 1997, Figs 4-5: G2, G3 and G5 under each teacher protocol")

FIG6 = Figure("Test accuracy of 10 runs on each of 20 random-label data sets (5 uniform "
              "inputs, 5-3-1 MLPs, 100 train / 100 test points, 100,000 updates per run); the "
              "targets use 1000 data sets (quick: 100 data sets, 20,000 updates).",
              compute_fig6, plot_fig6, check_fig6,
              title="Giles and Lawrence 1997, Fig 6: runs on random labels")

TESTSIZE = Figure("Left: spurious-significance rate of the one-sample t-test against the "
                  "test-set size, on the Fig 6 networks (bars 2 MCSE). Right: RMS deviation of the "
                  "data sets' mean accuracy from 50% against the test-set size, with the "
                  "1/sqrt(size) line.", compute_test_size, plot_test_size, check_test_size,
                  title="Giles and Lawrence 1997, closing note: a larger test set")

FIG7 = Figure("Learning rate chosen on test set 1 (0.01-0.5, assumed), judged on it and "
              "on a fresh test set 2 (t-test and the binomial test of the runs' vote); 150 "
              "random data sets (quick: 30).", compute_fig7, plot_fig7, check_fig7,
              title="Giles and Lawrence 1997, Fig 7: the learning rate chosen on the test set")

FIG8 = Figure("Network types on a temporal random task (scalar uniform inputs, "
              "fair-coin label per step, 100 train / 100 test steps; assumed): TDNN, FIR MLP with "
              "synaptic gains and Elman network, each on a window of 5 inputs (order 5), 3 hidden "
              "units, 10 runs of 100,000 updates each; pairwise t-tests against Tukey's HSD at 1% "
              "over 150 data sets (quick: 30, 20,000 updates). Gamma, NP and WZ networks not "
              "built.",
              compute_fig8, plot_fig8, check_fig8,
              title="Giles and Lawrence 1997, Fig 8: network types on random data")
