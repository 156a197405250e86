"""What every kernel runs on: Numba's ``njit`` with its cache set up (:mod:`~evalmc.compute.jit`)
and the random stream of each block, numpy's seeding (:mod:`~evalmc.compute.pcg64`), its Numba
copy vectorized over blocks (:mod:`~evalmc.compute.seeding`) and a slab of blocks' streams
(:mod:`~evalmc.compute.streams`).
"""
