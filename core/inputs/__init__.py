"""What a user hands evalmc, checked and read: parameters (:mod:`~evalmc.inputs.checks`),
tables of scores (:mod:`~evalmc.inputs.tables`) and evaluation harnesses' per-item logs
(:mod:`~evalmc.inputs.itemlogs`).

It sits below the simulators: the empirical and item-model scenarios read files through it.
"""
