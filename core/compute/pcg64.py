"""numpy's PCG64 seeding of a block's stream, in plain Python: block ``b`` of condition ``c``
draws from ``default_rng(SeedSequence(seed, spawn_key=(c, b)))``.

The Numba copy of the seeding, vectorized over blocks, is :mod:`evalmc.compute.seeding`.
"""

from __future__ import annotations

import numpy as np

#: numpy's SeedSequence pool size, in 32-bit words.
POOL_SIZE = 4
_MASK32 = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1


def block_rng(seed: int, cid: int, block: int) -> np.random.Generator:
    """The generator of block `block` of condition `cid`: ``default_rng(SeedSequence(seed,
    spawn_key=(cid, block)))``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(cid, block)))


def words32(value: int) -> list[int]:
    """A non-negative integer as numpy's SeedSequence reads it: 32-bit words, lowest first."""
    out = [value & _MASK32]
    value >>= 32
    while value:
        out.append(value & _MASK32)
        value >>= 32
    return out


def pcg64_state(rng: np.random.Generator) -> list[int]:
    """A PCG64 generator's state as 64-bit words ``[state_hi, state_lo, inc_hi, inc_lo]``."""
    state = rng.bit_generator.state["state"]
    return [state["state"] >> 64, state["state"] & _MASK64, state["inc"] >> 64,
            state["inc"] & _MASK64]


def set_block_state(rng: np.random.Generator, states: np.ndarray, k: int) -> None:
    """Set a PCG64 generator to block `k`'s initial state ``states[k]``, through numpy's state
    setter (what :func:`evalmc.compute.seeding.enter_block` calls)."""
    s_hi, s_lo, i_hi, i_lo = states[k].tolist()
    rng.bit_generator.state = {"bit_generator": "PCG64",
                               "state": {"state": s_hi << 64 | s_lo, "inc": i_hi << 64 | i_lo},
                               "has_uint32": 0, "uinteger": 0}
