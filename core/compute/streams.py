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
    """The random streams of blocks ``first, ..., first + count - 1`` of condition `cid`: indexing
    gives a block's own Generator (:func:`block_rng`), slicing a run of blocks' streams, and a slab
    kernel draws every block at once through :meth:`run`."""

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
        """Every block's initial PCG64 state, uint64 of shape (count, 4): computed at once, or
        block by block with numpy should the vectorized seeding disagree with numpy's on the first
        block."""
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
        """Call a slab kernel, ``kernel(rng, states, bounds, *args)``, which draws block k into
        rows ``bounds[k]:bounds[k + 1]`` after ``enter_block(rng, states, k)``; returns what it
        returns."""
        return kernel(self._scratch(), self.states, np.asarray(bounds, np.int64), *args)

    def _scratch(self) -> np.random.Generator:
        """The Generator the slab kernels set block by block (one for all the slices)."""
        if self._generator is None:
            self._generator = np.random.default_rng(0)
        return self._generator
