"""numpy's seeding of PCG64 streams in Numba: every block's initial state at once
(:func:`pcg64_states`), and a kernel's Generator set to a block's state (:func:`enter_block`)."""

import numpy as np
from numba import objmode

from evalmc.compute.jit import njit
from evalmc.compute.pcg64 import POOL_SIZE, set_block_state

# Seeding a slab of blocks (evalmc.compute.streams): numpy.random.SeedSequence's constants
# (numpy/random/bit_generator.pyx) and PCG64's multiplier (numpy/random/src/pcg64/pcg64.h,
# PCG_DEFAULT_MULTIPLIER_128), in halves.
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715
_PCG_MULT_HI, _PCG_MULT_LO = 0x2360ED051FC65DA4, 0x4385DF649FCCF645
_M32 = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(16)


@njit(cache=True, nogil=True)
def _hashmix(value, hash_const):
    """SeedSequence's ``hashmix`` on 32-bit words held in uint64 (`hash_const` is updated)."""
    value = value ^ hash_const[0]
    hash_const[0] = (hash_const[0] * np.uint64(_MULT_A)) & _M32
    value = (value * hash_const[0]) & _M32
    return value ^ (value >> _SHIFT)


@njit(cache=True, nogil=True)
def _mix(x, y):
    """SeedSequence's ``mix`` on 32-bit words held in uint64."""
    result = (np.uint64(_MIX_MULT_L) * x - np.uint64(_MIX_MULT_R) * y) & _M32
    return result ^ (result >> _SHIFT)


@njit(cache=True, nogil=True)
def _mul_lo(a, b):
    """The low and high 64-bit words of the 128-bit product of two 64-bit words."""
    s = np.uint64(32)
    a0, a1, b0, b1 = a & _M32, a >> s, b & _M32, b >> s
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s) + (p01 & _M32) + (p10 & _M32)
    return (mid << s) | (p00 & _M32), p11 + (p01 >> s) + (p10 >> s) + (mid >> s)


@njit(cache=True, nogil=True)
def _step(state_hi, state_lo, inc_hi, inc_lo, mult_hi, mult_lo):
    """One step of PCG64's 128-bit LCG: ``state * mult + inc`` modulo 2^128."""
    lo, hi = _mul_lo(state_lo, mult_lo)
    hi += state_hi * mult_lo + state_lo * mult_hi
    new_lo = lo + inc_lo
    carry = np.uint64(1) if new_lo < lo else np.uint64(0)
    return hi + inc_hi + carry, new_lo


@njit(cache=True, nogil=True)
def pcg64_states(prefix, first, count, out):
    """The initial PCG64 states ``(state_hi, state_lo, inc_hi, inc_lo)`` of
    ``default_rng(SeedSequence(seed, spawn_key=(c, b)))`` for blocks ``b = first, ..., first +
    count - 1``, into `out` of shape (count, 4).

    `prefix` is the SeedSequence's entropy before the block's words (32-bit words held in uint64):
    the seed's words padded with zeros to the pool size, then the condition's. Numpy's algorithm,
    vectorized over blocks: ``mix_entropy`` into a pool of 4 words, ``generate_state(4,
    np.uint64)``, then PCG64's ``pcg64_set_seed`` (state 0, increment ``2 * seq + 1``, a step, add
    the seed, a step).
    """
    mult_hi, mult_lo = np.uint64(_PCG_MULT_HI), np.uint64(_PCG_MULT_LO)
    one = np.uint64(1)
    entropy = np.zeros(prefix.size + 2, np.uint64)  # 32-bit words, held in uint64
    entropy[:prefix.size] = prefix
    pool = np.empty(POOL_SIZE, np.uint64)
    hash_const = np.empty(1, np.uint64)
    seed = np.zeros(4, np.uint64)
    for k in range(count):
        block = np.uint64(first + k)
        n = prefix.size + 1
        entropy[prefix.size] = block & _M32
        if block >> np.uint64(32):
            entropy[n] = block >> np.uint64(32)
            n += 1
        hash_const[0] = np.uint64(_INIT_A)
        for i in range(POOL_SIZE):  # SeedSequence.mix_entropy
            pool[i] = _hashmix(entropy[i] if i < n else np.uint64(0), hash_const)
        for i_src in range(POOL_SIZE):
            for i_dst in range(POOL_SIZE):
                if i_src != i_dst:
                    pool[i_dst] = _mix(pool[i_dst], _hashmix(pool[i_src], hash_const))
        for i_src in range(POOL_SIZE, n):
            for i_dst in range(POOL_SIZE):
                pool[i_dst] = _mix(pool[i_dst], _hashmix(entropy[i_src], hash_const))
        h = np.uint64(_INIT_B)
        for i in range(8):  # SeedSequence.generate_state(4, np.uint64), low word first
            value = pool[i % POOL_SIZE] ^ h
            h = (h * np.uint64(_MULT_B)) & _M32
            value = (value * h) & _M32
            value ^= value >> _SHIFT
            if i % 2 == 0:
                seed[i // 2] = value
            else:
                seed[i // 2] |= value << np.uint64(32)
        inc_hi = (seed[2] << one) | (seed[3] >> np.uint64(63))  # pcg64_set_seed
        inc_lo = (seed[3] << one) | one
        s_hi, s_lo = _step(np.uint64(0), np.uint64(0), inc_hi, inc_lo, mult_hi, mult_lo)
        added = s_lo + seed[1]
        s_hi = s_hi + seed[0] + (one if added < s_lo else np.uint64(0))
        s_hi, s_lo = _step(s_hi, added, inc_hi, inc_lo, mult_hi, mult_lo)
        out[k, 0], out[k, 1], out[k, 2], out[k, 3] = s_hi, s_lo, inc_hi, inc_lo


@njit(cache=True)
def enter_block(rng, states, k):
    """In a kernel, set the PCG64 Generator `rng` to block k's initial state ``states[k]``, holding
    the GIL for microseconds (numpy's state setter; no ``nogil``: its object mode would warn)."""
    with objmode():
        set_block_state(rng, states, k)
