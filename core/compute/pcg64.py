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
    """The generator of block `block` of condition `cid`: numpy's own seeding.

    Parameters
    ----------
    seed : int
        The study's root seed.
    cid : int
        The condition's id.
    block : int
        The block's index within the condition.

    Returns
    -------
    numpy.random.Generator
        ``default_rng(SeedSequence(seed, spawn_key=(cid, block)))``.

    Examples
    --------
    >>> from evalmc.compute.pcg64 import block_rng
    >>> round(float(block_rng(1, 7, 0).standard_normal()), 6)
    -1.409117
    """
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(cid, block)))


def words32(value: int) -> list[int]:
    """A non-negative integer as numpy's SeedSequence reads it: 32-bit words, lowest first.

    Parameters
    ----------
    value : int
        At least 0.

    Returns
    -------
    list of int
        One word for 0.

    Examples
    --------
    >>> from evalmc.compute.pcg64 import words32
    >>> words32(0), words32(2**32 + 5)
    ([0], [5, 1])
    """
    out = [value & _MASK32]
    value >>= 32
    while value:
        out.append(value & _MASK32)
        value >>= 32
    return out


def pcg64_state(rng: np.random.Generator) -> list[int]:
    """A PCG64 generator's state as 64-bit words.

    Parameters
    ----------
    rng : numpy.random.Generator
        On a PCG64 bit generator.

    Returns
    -------
    list of int
        ``[state_hi, state_lo, inc_hi, inc_lo]``, as :attr:`BlockStreams.states` holds them.

    Examples
    --------
    >>> from evalmc.compute.streams import BlockStreams
    >>> from evalmc.compute.pcg64 import block_rng, pcg64_state
    >>> pcg64_state(block_rng(1, 7, 3)) == BlockStreams(1, 7, 3, 1).states[0].tolist()
    True
    """
    state = rng.bit_generator.state["state"]
    return [state["state"] >> 64, state["state"] & _MASK64, state["inc"] >> 64,
            state["inc"] & _MASK64]


def set_block_state(rng: np.random.Generator, states: np.ndarray, k: int) -> None:
    """Set a PCG64 generator to a block's initial state, through numpy's state setter (the
    slab kernels call it once per block, from :func:`evalmc.compute.seeding.enter_block`).

    Parameters
    ----------
    rng : numpy.random.Generator
        On a PCG64 bit generator; changed in place.
    states : ndarray of uint64, shape (blocks, 4)
        As :attr:`BlockStreams.states`.
    k : int
        The block.

    Examples
    --------
    >>> import numpy as np
    >>> from evalmc.compute.streams import BlockStreams
    >>> from evalmc.compute.pcg64 import block_rng, set_block_state
    >>> rng = np.random.default_rng(0)
    >>> set_block_state(rng, BlockStreams(1, 7, 0, 3).states, 2)
    >>> float(rng.random()) == float(block_rng(1, 7, 2).random())
    True
    """
    s_hi, s_lo, i_hi, i_lo = states[k].tolist()
    rng.bit_generator.state = {"bit_generator": "PCG64",
                               "state": {"state": s_hi << 64 | s_lo, "inc": i_hi << 64 | i_lo},
                               "has_uint32": 0, "uinteger": 0}
