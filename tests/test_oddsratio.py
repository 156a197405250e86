"""Fisher's conditional odds ratio and its exact interval, all tables at once, against scipy's
one-table ``odds_ratio(kind='conditional')``."""

import numpy as np
import pytest
from scipy.stats.contingency import odds_ratio

from evalmc.stats.oddsratio import conditional_odds_ratio


def _scipy(rows, level):
    out = []
    for k_a, n_a, k_b, n_b in rows:
        res = odds_ratio([[k_a, n_a - k_a], [k_b, n_b - k_b]], kind="conditional")
        ci = res.confidence_interval(confidence_level=level)
        out.append((res.statistic, ci.low, ci.high))
    return np.array(out).T


def _every_table(largest):
    return np.array([(k_a, n_a, k_b, n_b) for n_a in range(1, largest + 1)
                     for n_b in range(1, largest + 1) for k_a in range(n_a + 1)
                     for k_b in range(n_b + 1)])


@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_every_small_table_and_some_large_ones_are_scipys(level):
    """Every table with 1-5 answers per model (zero margins, zero cells, both ends of the
    support) and 40 random ones up to 300: the same NaN, 0 and inf, the rest within 1e-9."""
    rng = np.random.default_rng(3)
    n = rng.integers(1, 301, (40, 2))
    large = np.column_stack([rng.integers(0, n[:, 0] + 1), n[:, 0],
                             rng.integers(0, n[:, 1] + 1), n[:, 1]])
    rows = np.vstack([_every_table(5), large])
    ours, ref = np.array(conditional_odds_ratio(*rows.T, level=level)), _scipy(rows, level)
    for special in (np.isnan, np.isinf, lambda v: v == 0):
        np.testing.assert_array_equal(special(ours), special(ref))
    finite = np.isfinite(ref) & (ref > 0)
    np.testing.assert_allclose(ours[finite], ref[finite], rtol=1e-9)


def test_fixed_values_and_broadcasting():
    """A 2x3 grid of tables against one B: the shape kept, and a fixed value."""
    est, low, high = conditional_odds_ratio([[4, 0, 3], [5, 1, 2]], 5, 2, 5, level=0.9)
    assert est.shape == low.shape == high.shape == (2, 3)
    assert round(float(low[0, 0]), 6) == 0.315242  # scipy: 0.31524240020865174
    assert (est[1, 0], high[1, 0]) == (np.inf, np.inf) and low[0, 1] == 0.0


def test_the_interval_holds_the_estimate_and_narrows_with_the_level():
    rows = _every_table(6)
    est, low90, high90 = conditional_odds_ratio(*rows.T, level=0.9)
    _, low99, high99 = conditional_odds_ratio(*rows.T, level=0.99)
    ok = ~np.isnan(est)
    assert np.all((low90[ok] <= est[ok]) & (est[ok] <= high90[ok]))
    assert np.all((low99 <= low90) & (high90 <= high99))


def test_level_is_checked():
    with pytest.raises(ValueError, match="`level` must be"):
        conditional_odds_ratio(1, 2, 1, 2, level=1.0)


def test_a_tables_bits_do_not_depend_on_the_other_tables():
    """Solved alone or among tables of other sizes and supports, in any order: bit for bit
    the same (the engine's answers must not depend on how a block is cut or cached)."""
    rows = np.array([(3, 10, 5, 10), (40, 100, 55, 100), (1, 7, 6, 9), (120, 300, 2, 40)])
    alone = np.array([conditional_odds_ratio(*row) for row in rows]).T
    mixed = np.array(conditional_odds_ratio(*np.vstack([_every_table(4), rows[::-1]]).T))
    np.testing.assert_array_equal(mixed[:, -4:][:, ::-1], alone.reshape(3, -1))


def test_counts_out_of_range_are_refused():
    with pytest.raises(ValueError, match="`k_b` must be whole counts between 0"):
        conditional_odds_ratio(1, 5, 6, 5)
    with pytest.raises(ValueError, match="`k_a` must be whole counts"):
        conditional_odds_ratio(1.5, 5, 2, 5)
