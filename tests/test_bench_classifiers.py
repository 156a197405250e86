import re

import numpy as np
import pytest

from evalmc.bench.classifiers import (
    N_SETS,
    NULL,
    SIZES,
    _plan,
    agreement,
    peer_pvalue,
    percentile_pvalue,
)
from evalmc.bench.registry import WORKLOADS
from evalmc.criteria import get_criterion
from evalmc.sims.classifiers import CountsBatch, PairedClassifiers, correctness

B = 2000


def test_percentile_pvalue_counts_ties_on_both_sides():
    assert percentile_pvalue([-2, 1, 2, 3, 4, 5, 6, 7, 8]) == pytest.approx(2 * 2 / 10)
    assert percentile_pvalue([-1, 0, 0, 2, 3]) == 1.0  # below 3, above 3: capped


def test_peer_tests_every_size_equally():
    n_sets, n_boot, shared = _plan(small=False)
    assert (n_sets, n_boot) == (5000, 5000)
    assert list(np.bincount(shared % len(SIZES))) == [5] * len(SIZES)
    assert WORKLOADS["bootstrap-df1-size"].load()()[2] == pytest.approx(N_SETS / 45)


@pytest.fixture(scope="module")
def sets_and_peer():
    rng = np.random.default_rng(3)
    batch = PairedClassifiers(**{**NULL.to_dict(), "n": 200}).draw(rng, 12)
    return batch, np.array([peer_pvalue(counts, B, rng) for counts in batch.counts])


def test_bootstraps_of_the_same_sets_agree(sets_and_peer):
    batch, p_peer = sets_and_peer
    p_ours = get_criterion("bootstrap-df1", n_boot=B)(batch, np.random.default_rng(4)).pvalues()
    assert agreement(p_ours, p_peer, B) > 1e-3


def test_agreement_detects_a_bootstrap_of_the_wrong_size(sets_and_peer):
    # the same cell shares on twice the examples: the same dF1, a narrower bootstrap
    batch, p_peer = sets_and_peer
    counts = 2 * batch.counts
    wrong = CountsBatch(paired=True, counts=counts, sizes=(400, 400),
                        fill=lambda: correctness(counts))
    p_ours = get_criterion("bootstrap-df1", n_boot=B)(wrong, np.random.default_rng(4)).pvalues()
    assert agreement(p_ours, p_peer, B) < 1e-6


def test_workload_reports_both_sides_on_the_same_sets():
    ours, peer, _ = WORKLOADS["bootstrap-df1-size"].load()()
    rate, mcse = re.fullmatch(r"size (\S+) \(MCSE (\S+)\), 9 sets", ours(small=True)).groups()
    peer_rate, same, agree = re.fullmatch(
        r"size (\S+) on 9 sets, (\d+)/9 same decision, agreement p (\S+)", peer(small=True)
    ).groups()
    assert 0 <= float(rate) <= 1 and 0 <= float(mcse) and 0 <= float(peer_rate) <= 1
    assert int(same) <= 9 and float(agree) > 1e-3
