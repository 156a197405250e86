"""Statistics every layer above may use: Monte Carlo errors and intervals
(:mod:`~evalmc.stats.mcse`), normality tests (:mod:`~evalmc.stats.normality`), group
comparisons (:mod:`~evalmc.stats.groups`) and exact operating characteristics of discrete tests
by enumeration (:mod:`~evalmc.stats.exact`). Nothing here knows of criteria or studies.
"""
