"""The random streams of blocks: block ``b`` of condition ``c`` draws from numpy's
``default_rng(SeedSequence(seed, spawn_key=(c, b)))``, a PCG64 generator.

Making that generator in Python, and handing it to a Numba kernel, costs more than drawing a
block of a hundred replications, all of it holding the GIL. A slab of blocks is therefore
seeded at once: :class:`BlockStreams` computes every block's initial PCG64 state in one Numba
call (numpy's ``SeedSequence`` mixing and PCG64 seeding, vectorized over blocks, and checked
against numpy itself on the first block), and a slab kernel draws every block with one
Generator that :func:`~evalmc.sims.kernels.enter_block` sets to each block's initial state in
turn (numpy's own state setter). Each block draws exactly the numbers its own
``default_rng(SeedSequence(seed, spawn_key=(c, b)))`` draws.

This module imports no Numba: the kernels are in :mod:`evalmc.sims.kernels`.
"""

from __future__ import annotations

from collections.abc import Sequence

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
    >>> from evalmc.sims.streams import block_rng
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
    >>> from evalmc.sims.streams import words32
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
    >>> from evalmc.sims.streams import BlockStreams, block_rng, pcg64_state
    >>> pcg64_state(block_rng(1, 7, 3)) == BlockStreams(1, 7, 3, 1).states[0].tolist()
    True
    """
    state = rng.bit_generator.state["state"]
    return [state["state"] >> 64, state["state"] & _MASK64, state["inc"] >> 64,
            state["inc"] & _MASK64]


def set_block_state(rng: np.random.Generator, states: np.ndarray, k: int) -> None:
    """Set a PCG64 generator to a block's initial state, through numpy's state setter (the
    slab kernels call it once per block, from :func:`evalmc.sims.kernels.enter_block`).

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
    >>> from evalmc.sims.streams import BlockStreams, block_rng, set_block_state
    >>> rng = np.random.default_rng(0)
    >>> set_block_state(rng, BlockStreams(1, 7, 0, 3).states, 2)
    >>> float(rng.random()) == float(block_rng(1, 7, 2).random())
    True
    """
    s_hi, s_lo, i_hi, i_lo = states[k].tolist()
    rng.bit_generator.state = {"bit_generator": "PCG64",
                               "state": {"state": s_hi << 64 | s_lo, "inc": i_hi << 64 | i_lo},
                               "has_uint32": 0, "uinteger": 0}


class BlockStreams(Sequence):
    """The random streams of consecutive blocks of one condition.

    Indexing gives block ``first + k``'s own Generator, as :func:`block_rng` makes it (so a
    BlockStreams serves wherever a list of the blocks' generators does); slicing gives the
    streams of a run of the blocks. A slab kernel draws every block at once instead, through
    :meth:`run`.

    Parameters
    ----------
    seed : int
        The study's root seed.
    cid : int
        The condition's id.
    first : int
        The first block.
    count : int
        Blocks.

    Examples
    --------
    >>> from evalmc.sims.streams import BlockStreams, block_rng
    >>> streams = BlockStreams(seed=1, cid=7, first=3, count=4)
    >>> len(streams), len(streams[1:3]), streams[1:3].first
    (4, 2, 4)
    >>> float(streams[1].random()) == float(block_rng(1, 7, 4).random())
    True
    """

    def __init__(self, seed: int, cid: int, first: int, count: int):
        self.seed, self.cid, self.first, self.count = seed, cid, first, count
        self._states = None
        self._generator = None

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, k):
        if isinstance(k, slice):
            start, stop, step = k.indices(self.count)
            if step != 1:
                raise ValueError("BlockStreams slices take consecutive blocks.")
            part = BlockStreams(self.seed, self.cid, self.first + start, max(0, stop - start))
            part._states, part._generator = self.states[start:stop], self._scratch()
            return part
        if not -self.count <= k < self.count:
            raise IndexError(f"block {k} of {self.count}")
        return block_rng(self.seed, self.cid, self.first + k % self.count)

    @property
    def states(self) -> np.ndarray:
        """Every block's initial PCG64 state as uint64 ``(state_hi, state_lo, inc_hi,
        inc_lo)``, shape (count, 4): computed at once, or block by block with numpy should
        the vectorized seeding ever disagree with numpy's on the first block.

        Examples
        --------
        >>> from evalmc.sims.streams import BlockStreams, block_rng, pcg64_state
        >>> states = BlockStreams(seed=1, cid=7, first=3, count=2).states
        >>> states.shape, states[1].tolist() == pcg64_state(block_rng(1, 7, 4))
        ((2, 4), True)
        """
        if self._states is None:
            from evalmc.sims.kernels import pcg64_states

            run = words32(self.seed)
            entropy = run + [0] * (POOL_SIZE - len(run)) + words32(self.cid)
            states = np.empty((self.count, 4), np.uint64)
            pcg64_states(np.array(entropy, np.uint64), self.first, self.count, states)
            if self.count and states[0].tolist() != pcg64_state(self[0]):
                states = np.array([pcg64_state(self[k]) for k in range(self.count)],
                                  np.uint64)
            self._states = states
        return self._states

    def run(self, kernel, bounds: np.ndarray, *args):
        """Call a slab kernel, ``kernel(rng, states, bounds, *args)``, which draws block k
        into rows ``bounds[k]:bounds[k + 1]`` after ``enter_block(rng, states, k)``.

        Parameters
        ----------
        kernel : Numba function
            For example :func:`evalmc.sims.kernels.gaussian_slab`.
        bounds : ndarray of int64, shape (count + 1,)
            The blocks' first rows, and the end.
        *args
            The kernel's own arguments.

        Returns
        -------
        object
            What the kernel returns.

        Examples
        --------
        >>> import numpy as np
        >>> from evalmc.sims.kernels import gaussian_slab
        >>> from evalmc.sims.streams import BlockStreams, block_rng
        >>> streams = BlockStreams(seed=1, cid=7, first=0, count=2)
        >>> out = np.empty((1, 5))
        >>> streams.run(gaussian_slab, np.array([0, 3, 5]), np.array([0.0]), out)
        >>> bool((out[0, 3:] == block_rng(1, 7, 1).standard_normal(2)).all())
        True
        """
        return kernel(self._scratch(), self.states, np.asarray(bounds, np.int64), *args)

    def _scratch(self) -> np.random.Generator:
        """The Generator the slab kernels set block by block (one for all the slices)."""
        if self._generator is None:
            self._generator = np.random.default_rng(0)
        return self._generator
