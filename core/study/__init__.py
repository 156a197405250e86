"""Studies on the engine: the design of conditions, rejection rates of criteria
(:mod:`~evalmc.study.rates`, :mod:`~evalmc.study.calibration`), estimators' bias and coverage
(:mod:`~evalmc.study.estimation`) and records drawn directly (:mod:`~evalmc.study.collection`).
"""
