"""Blocks' random streams: a slab seeded at once, and drawn in one kernel call, gives every block
exactly the numbers of its own ``default_rng(SeedSequence(seed, spawn_key=(c, b)))``."""

import numpy as np
import pytest

from evalmc.compute import seeding
from evalmc.compute.pcg64 import block_rng, pcg64_state
from evalmc.compute.streams import BlockStreams
from evalmc.sims.scores import Empirical, Mixture, Normal, PairedNormal, SkewNormal


@pytest.mark.parametrize("seed", [0, 7, 2**32 - 1, 2**32, 2**127 + 3, 2**200 + 1])
@pytest.mark.parametrize("cid", [0, 5, 2**32, 2**64 - 1])
def test_slab_seeding_is_numpys(seed, cid):
    for first in (0, 1000, 2**32 - 2):  # the last crosses into blocks of two words
        streams = BlockStreams(seed, cid, first, 4)
        for k in range(4):
            ref = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(cid, first + k)))
            assert streams.states[k].tolist() == pcg64_state(np.random.Generator(ref))


def test_seeding_falls_back_on_numpy_when_the_copy_disagrees(monkeypatch):
    monkeypatch.setattr(seeding, "pcg64_states", lambda prefix, first, count, out: out.fill(1))
    streams = BlockStreams(3, 9, 10, 3)
    assert [row.tolist() for row in streams.states] == [
        pcg64_state(block_rng(3, 9, b)) for b in (10, 11, 12)]


def test_streams_are_the_blocks_generators_and_slice_in_runs():
    streams = BlockStreams(1, 2, 5, 6)
    assert len(streams) == 6 and list(streams[2:4].states.tolist()) == \
        streams.states[2:4].tolist()
    for k, rng in enumerate(streams):
        assert rng.random() == block_rng(1, 2, 5 + k).random()
    assert streams[-1].random() == block_rng(1, 2, 10).random()
    with pytest.raises(IndexError):
        streams[6]
    with pytest.raises(ValueError, match="consecutive"):
        streams[::2]


@pytest.fixture
def empirical(tmp_path):
    path = tmp_path / "scores.csv"
    np.savetxt(path, np.random.default_rng(0).gamma(2.0, size=30), header="score",
               comments="")
    return Empirical(file=str(path), n_a=4, n_b=6, shift=0.2)


def _same(x, y):
    assert (x is None) == (y is None)
    for u, v in zip(*((x, y) if isinstance(x, tuple) else ((x,), (y,))), strict=True):
        np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("scenario", [
    Normal(n_a=5, n_b=7, sd_a=2.0, shift=0.3), PairedNormal(n=2, rho=0.4, shift=0.2),
    PairedNormal(n=9, rho=-0.3, sd_b=2.0), SkewNormal(n_a=3, n_b=5, shift=0.5),
    Mixture(n_a=4, n_b=2, shift=-1.0), "empirical"])
def test_a_slab_drawn_in_one_call_equals_its_blocks_drawn_alone(scenario, empirical):
    scenario = empirical if scenario == "empirical" else scenario
    sizes = [7, 7, 3, 5]
    streams = BlockStreams(11, 2**40 + 3, 5, len(sizes))
    joint, blocks = scenario.draw_slab(streams, sizes)
    alone = [scenario.draw(block_rng(11, 2**40 + 3, 5 + k), n) for k, n in enumerate(sizes)]
    for name in ("_moments", "_diff_moments"):
        if getattr(alone[0], name) is not None:
            parts = [getattr(b, name) for b in alone]
            _same(getattr(joint, name), tuple(np.concatenate(c) for c in zip(*parts, strict=True)))
            for block, ref in zip(blocks, parts, strict=True):
                _same(getattr(block, name), ref)
    _same(joint.a, np.concatenate([b.a for b in alone]))
    _same(joint.b, np.concatenate([b.b for b in alone]))
    assert len(blocks) == len(sizes)
    for block, ref in zip(blocks, alone, strict=True):
        _same(block.a, ref.a)
        _same(block.b, ref.b)


def test_the_blocks_of_a_slab_are_made_only_when_asked_for():
    made = []
    joint, blocks = Normal(n_a=3).draw_slab(BlockStreams(1, 1, 0, 3), [4, 4, 2])
    blocks._make = lambda k, make=blocks._make: made.append(k) or make(k)
    joint.moments()
    assert made == []
    assert blocks[-1] is blocks[2] and made == [2]
