"""Shapes are checked before any kernel reads them."""

import numpy as np
import pytest

from evalmc.criteria import CRITERIA, get_criterion
from evalmc.sims.base import Batch, row_mean_var


def test_row_mean_var_refuses_a_y_of_another_width():
    with pytest.raises(ValueError, match=r"`y` must have the shape of `x`, \(2, 5\); got \(2, 3\)"):
        row_mean_var(np.ones((2, 5)), np.ones((2, 3)))


def test_row_mean_var_refuses_fewer_than_two_columns():
    with pytest.raises(ValueError, match="`x` must be a 2-D array with at least 2 columns"):
        row_mean_var(np.ones((3, 1)))


def test_row_mean_var_matches_numpy():
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((2, 4, 7))
    mean, var = row_mean_var(x, y)
    np.testing.assert_allclose(mean, (x - y).mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(var, (x - y).var(axis=1, ddof=1), rtol=1e-12)


def test_paired_batch_needs_equal_widths():
    with pytest.raises(ValueError, match="need as many runs of A as of B; got 5 and 3"):
        Batch(np.ones((2, 5)), np.ones((2, 3)), paired=True)


def test_batch_needs_one_row_per_replication_on_both_sides():
    with pytest.raises(ValueError, match=r"got shapes \(2, 5\) and \(3, 5\)"):
        Batch(np.ones((2, 5)), np.ones((3, 5)), paired=False)


@pytest.mark.parametrize("name", [n for n, c in CRITERIA.items() if c.facts.get("paired")])
def test_paired_criteria_never_see_unequal_widths(name):
    """A paired criterion reads a[i, j] and b[i, j] together: an unpaired batch of unequal widths
    is refused before any kernel runs."""
    rng = np.random.default_rng(0)
    batch = Batch(rng.standard_normal((4, 6)), rng.standard_normal((4, 3)), paired=False)
    with pytest.raises(ValueError, match=f"criterion '{name}' needs paired samples of equal width"):
        get_criterion(name)(batch, rng)
