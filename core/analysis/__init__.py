"""Analyses of a user's own results: comparing two models' runs
(:mod:`~evalmc.analysis.comparison`) and the sample sizes and power of the P(A>B) test
(:mod:`~evalmc.analysis.power`)."""
