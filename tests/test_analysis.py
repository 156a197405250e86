"""The engine's contract: an analysis derives from ``evalmc.engine.analysis.Analysis`` and
implements only what differs; the engine runs it, caches its blocks and resumes from them.
core/README.md's example of writing one runs in test_engine.py."""

from dataclasses import dataclass

import numpy as np
import pytest

import evalmc
from evalmc.engine import scheduler as engine
from evalmc.engine.analysis import Analysis
from evalmc.engine.tallies import EstimateTally
from evalmc.sims.scores import PairedNormal


@dataclass(frozen=True)
class MeanOfDifferences(Analysis):
    """A toy analysis: the mean of ``a - b`` per replication, its moments summed, the values
    kept on request, replications with a mean above `fail_above` failed."""

    fail_above: float = np.inf
    key = "mean-diff"
    tally_type = EstimateTally

    def run(self, batch, rng):
        return batch.diff_moments()[0]

    def tallies(self, result, starts, scenario):
        out = []
        for start, stop in zip(starts[:-1], starts[1:], strict=True):
            mean = result[start:stop]
            failed = mean > self.fail_above
            errors = {int(i): f"mean {mean[i]:.3f}" for i in np.flatnonzero(failed)}
            out.append((EstimateTally.of(mean, None, None, failed, 0.0), errors))
        return out

    def split(self, result, starts):
        return [result[start:stop] for start, stop in zip(starts[:-1], starts[1:], strict=True)]

    def values_to_record(self, values):
        return {"mean": values}, {}

    def values_from_record(self, arrays, info, errors):
        return arrays["mean"]


def _run(analyses, **kwargs):
    plan = engine.Plan({4: PairedNormal(n=5, rho=0.3), 9: PairedNormal(n=8)}, analyses,
                       n_reps=1050, seed=2, block_size=100)
    return engine.run(plan, progress=False, **kwargs)


def test_a_toy_analysis_runs_caches_and_resumes(tmp_path):
    toy = MeanOfDifferences(fail_above=0.9)
    ref = _run([toy], keep_values=True)
    assert ref.blocks_computed == 22 and ref.tallies[(4, "mean-diff")].n == 1050
    means = np.concatenate(ref.values[(4, "mean-diff")])
    assert means.size == 1050 and ref.tallies[(4, "mean-diff")].failed == (means > 0.9).sum()
    assert ref.failures and ref.failures[0].criterion == "mean-diff"
    for kwargs in ({"n_jobs": 2}, {"cache": tmp_path, "keep_values": True},
                   {"cache": tmp_path, "keep_values": True}, {"cache": tmp_path}):
        out = _run([toy], **{"keep_values": False, **kwargs})
        assert out.tallies == ref.tallies and out.failures == ref.failures
        if kwargs.get("keep_values"):
            for key, parts in out.values.items():
                np.testing.assert_array_equal(np.concatenate(parts),
                                              np.concatenate(ref.values[key]))
    assert out.blocks_computed == 0 and out.blocks_reused == 22


def test_a_block_is_recomputed_when_its_record_does_not_serve(tmp_path):
    class Strict(MeanOfDifferences):
        def serves(self, meta):
            return meta.get("strict", False)

        def record_meta(self):
            return {"strict": True}

    _run([MeanOfDifferences()], cache=tmp_path)
    assert _run([MeanOfDifferences()], cache=tmp_path).blocks_reused == 22
    first = _run([Strict()], cache=tmp_path)  # same key, but the records lack its metadata
    assert first.blocks_computed == 22
    assert _run([Strict()], cache=tmp_path).blocks_reused == 22
    assert first.tallies == _run([MeanOfDifferences()]).tallies


def test_the_base_class_declares_every_member_with_its_default():
    class Bare(Analysis):
        key, tally_type = "bare", EstimateTally

        def run(self, batch, rng):
            return None

        def tallies(self, result, starts, scenario):
            return []

    bare = Bare()
    assert (bare.stream, bare.name, bare.uses_rng, bare.pure_python) == ("bare", "bare",
                                                                          False, False)
    assert bare.split(None, np.array([0, 5, 9])) == [None, None]
    assert bare.serves({}) and bare.record_meta() == {} and bare.values_key == "bare#values"
    with pytest.raises(NotImplementedError, match="keeps no values"):
        bare.values_to_record(np.zeros(2))
    assert engine.choose_backend([bare], 4) == "threads"


def test_an_analysis_must_implement_the_contract():
    class Incomplete(Analysis):
        key = "incomplete"

    with pytest.raises(TypeError, match="abstract"):
        Incomplete()
    with pytest.raises(TypeError, match="derive from evalmc.engine.analysis.Analysis"):
        engine.Plan({}, [object()], n_reps=1, seed=0, block_size=1)


def test_compare_sigma_of_scores_near_the_floats_limit_is_the_scaled_sigma():
    a, b = np.array([1.0, 2, 3, 4, 5]), np.array([0.5, 1.5, 2.5, 3.0, 4.0])
    small = evalmc.compare(a, b, n_resamples=200)
    with np.errstate(over="ignore"):
        huge = evalmc.compare(a * 1e307, b * 1e307, n_resamples=200)
    assert huge.sigma == pytest.approx(small.sigma * 1e307, rel=1e-12)
