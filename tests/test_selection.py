"""The selection scenarios: the best of N variants, and the experiment re-run until
significant."""

import math

import naive
import numpy as np
import pytest

import evalmc
from evalmc.cli import main
from evalmc.sims.selection import BestOfN, Rerun


def test_best_of_n_on_its_own_runs_is_biased_by_the_expected_maximum():
    n, variants, reps = 5, 8, 20_000
    a = BestOfN(n=n, variants=variants, effect=0.3).draw(np.random.default_rng(1), reps).a
    means = a.mean(axis=1)
    want = 0.3 + naive.expected_max_normal(variants) / math.sqrt(n)
    assert abs(means.mean() - want) <= 4 * means.std(ddof=1) / math.sqrt(reps)


def test_best_of_n_on_fresh_runs_is_unbiased():
    reps = 20_000
    batch = BestOfN(n=5, variants=8, effect=0.3, select="fresh").draw(
        np.random.default_rng(2), reps)
    means = batch.a.mean(axis=1)
    assert abs(means.mean() - 0.3) <= 4 * means.std(ddof=1) / math.sqrt(reps)
    assert abs(batch.b.mean()) <= 4 / math.sqrt(reps * 5)


def test_one_variant_and_one_try_are_the_plain_normal_scenario_in_law():
    res = evalmc.calibrate("best-of-n", ["welch-t"], params={"variants": 1}, n_reps=4000,
                           seed=3, progress=False).summary.iloc[0]
    plain = naive.rerun_rate(np.random.default_rng(4), 40_000, 10, 1, 0.05)
    assert abs(res["rate"] - plain) <= 4 * math.hypot(res["mcse"], math.sqrt(
        plain * (1 - plain) / 40_000))


def test_rerun_reports_the_first_significant_try():
    batch = Rerun(n=4, tries=3).draw(np.random.default_rng(5), 1)
    again = np.random.default_rng(5)
    a, b = again.standard_normal((2, 1, 3, 4))
    from evalmc.sims.selection import welch_pvalues

    p = welch_pvalues(a, b)[0]
    chosen = int(np.argmax(p < 0.05)) if (p < 0.05).any() else 2
    np.testing.assert_array_equal(batch.a[0], a[0, chosen])
    np.testing.assert_array_equal(batch.b[0], b[0, chosen])


def test_fixed_seed_values():
    assert BestOfN(n=3, variants=2).draw(np.random.default_rng(1), 1).a.round(3).tolist() == [
        [0.346, 0.822, 0.33]]
    assert Rerun(n=3, tries=2).draw(np.random.default_rng(1), 1).a.round(3).tolist() == [
        [-1.303, 0.905, 0.446]]


@pytest.mark.parametrize(("scenario", "kwargs", "message"), [
    (BestOfN, {"variants": 0}, "`variants` must be"),
    (BestOfN, {"n": 1}, "`n` must be"),
    (BestOfN, {"select": "test"}, "`select` must be one of 'same', 'fresh'; got 'test'."),
    (BestOfN, {"sd": 0.0}, "`sd` must be"),
    (Rerun, {"tries": 0}, "`tries` must be"),
    (Rerun, {"alpha": 1.5}, "`alpha` must be"),
])
def test_bad_parameters_name_the_rule(scenario, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        scenario(**kwargs)


def test_calibrate_runs_them_from_the_command_line(capsys):
    assert main(["calibrate", "--scenario", "rerun", "--param", "tries=1,3",
                 "--criterion", "welch-t", "--reps", "400", "--quiet", "--format", "csv"]) == 0
    assert capsys.readouterr().out.count("welch-t") == 2
