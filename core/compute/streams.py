"""The random streams of blocks: block ``b`` of condition ``c`` draws from numpy's
``default_rng(SeedSequence(seed, spawn_key=(c, b)))``, a PCG64 generator.

Making that generator in Python, and handing it to a Numba kernel, costs more than drawing a
block of a hundred replications, all of it holding the GIL. A slab of blocks is therefore
seeded at once: :class:`BlockStreams` computes every block's initial PCG64 state in one Numba
call (numpy's ``SeedSequence`` mixing and PCG64 seeding, vectorized over blocks, and checked
against numpy itself on the first block), and a slab kernel draws every block with one
Generator that :func:`~evalmc.compute.seeding.enter_block` sets to each block's initial state in
turn (numpy's own state setter). Each block draws exactly the numbers its own
``default_rng(SeedSequence(seed, spawn_key=(c, b)))`` draws.

This module imports no Numba: the seeding kernels are in :mod:`evalmc.compute.seeding`,
imported on first use.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evalmc.compute.pcg64 import POOL_SIZE, block_rng, pcg64_state, words32


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
    >>> from evalmc.compute.streams import BlockStreams
    >>> from evalmc.compute.pcg64 import block_rng
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
        >>> from evalmc.compute.streams import BlockStreams
        >>> from evalmc.compute.pcg64 import block_rng, pcg64_state
        >>> states = BlockStreams(seed=1, cid=7, first=3, count=2).states
        >>> states.shape, states[1].tolist() == pcg64_state(block_rng(1, 7, 4))
        ((2, 4), True)
        """
        if self._states is None:
            from evalmc.compute.seeding import pcg64_states

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
        >>> from evalmc.compute.streams import BlockStreams
        >>> from evalmc.compute.pcg64 import block_rng
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
