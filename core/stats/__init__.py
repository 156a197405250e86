"""Statistics every layer above may use: Monte Carlo errors and intervals
(:mod:`~evalmc.stats.mcse`), normality tests (:mod:`~evalmc.stats.normality`) and group
comparisons (:mod:`~evalmc.stats.groups`). Nothing here knows of criteria or studies.
"""
