"""`paired-classifiers` given the paired 2x2 table (p_both, p_a_only, p_b_only) in place of
the rates and rho."""

import numpy as np
import pytest

from evalmc.sims.classifiers import (
    A_WRONG,
    B_WRONG,
    PairedClassifiers,
    cell_probabilities,
    multinomial_rows,
    table_cells,
)
from evalmc.stats.exact import MCNEMAR_TESTS, mcnemar_rejection_rates
from evalmc.study.design import condition_id
from evalmc.study.rates import make_design, run_study

TABLE = {"p_both": 0.7, "p_a_only": 0.12, "p_b_only": 0.08}
NULL_TABLE = {"p_both": 0.6, "p_a_only": 0.1, "p_b_only": 0.1}


def _paired(counts):
    """The paired table summed over the labels: both wrong, only B right, only A, both right."""
    counts = np.asarray(counts)
    return counts[..., :4] + counts[..., 4:]


class TestCells:
    @pytest.mark.parametrize("prevalence", [0.5, 0.03])
    def test_each_class_holds_the_table(self, prevalence):
        p = PairedClassifiers(prevalence=prevalence, **TABLE).cells
        assert p.sum() == pytest.approx(1.0, abs=1e-15)
        np.testing.assert_allclose(_paired(p), [0.1, 0.08, 0.12, 0.7], atol=1e-15)
        np.testing.assert_allclose(p[4:], prevalence * _paired(p), atol=1e-15)
        np.testing.assert_array_equal(p, table_cells(prevalence, 0.7, 0.12, 0.08))

    def test_differences_follow_the_cells(self):
        s = PairedClassifiers(prevalence=0.2, **TABLE)
        p = s.cells
        err_a, err_b = p[list(A_WRONG)].sum(), p[list(B_WRONG)].sum()
        tp_a, tp_b = p[6] + p[7], p[5] + p[7]
        f1_a = 2 * tp_a / (2 * tp_a + p[4] + p[5] + p[0] + p[1])
        f1_b = 2 * tp_b / (2 * tp_b + p[4] + p[6] + p[0] + p[2])
        # A's error minus B's, the sign of the rates' scenario: p_b_only - p_a_only
        assert s.difference("dcerr") == pytest.approx(err_a - err_b, abs=1e-12)
        assert s.difference("dcerr") == pytest.approx(0.08 - 0.12, abs=1e-15)
        assert s.difference("df1") == pytest.approx(f1_a - f1_b, abs=1e-12)
        assert s.difference("df1") > 0 and s.truth == "alternative"

    def test_default_condition_is_unchanged(self):
        params = {"prevalence": 0.05, "tpr_a": 0.7, "fpr_a": 0.01, "tpr_b": 0.7, "fpr_b": 0.01,
                  "rho": 0.6, "n": 500}
        s = PairedClassifiers(**params)
        assert condition_id(params, PairedClassifiers) == 16754440989716825975  # the README's
        assert condition_id({**params, "p_both": None}, PairedClassifiers) == 16754440989716825975
        np.testing.assert_array_equal(s.cells, cell_probabilities(0.05, 0.7, 0.01, 0.7, 0.01, 0.6))
        counts = PairedClassifiers(n=100).draw(np.random.default_rng(0), 1).counts
        assert counts.tolist() == [[2, 2, 1, 36, 8, 7, 8, 36]]


class TestDraws:
    def test_fixed_seed(self):
        counts = multinomial_rows(np.random.default_rng(42), 2, 100,
                                  PairedClassifiers(prevalence=0.3, **TABLE).cells)
        assert counts.tolist() == [[9, 5, 11, 44, 1, 6, 5, 19], [9, 3, 8, 54, 3, 0, 5, 18]]

    def test_paired_counts_within_4_mcse(self):
        n, reps = 200, 20_000
        s = PairedClassifiers(n=n, prevalence=0.3, **TABLE)
        counts = s.draw(np.random.default_rng(7), reps).counts
        paired = _paired(counts)
        for cell, p in enumerate([0.1, 0.08, 0.12, 0.7]):  # the discordant cells 1 and 2 too
            se = np.sqrt(n * p * (1 - p) / reps)
            assert abs(paired[:, cell].mean() - n * p) <= 4 * se, (cell, paired[:, cell].mean())
        positives = counts[:, 4:].sum(axis=1)
        assert abs(positives.mean() - n * 0.3) <= 4 * np.sqrt(n * 0.3 * 0.7 / reps)
        # the label is independent of the correctness: same table among the positives
        only_a = counts[:, 6].sum() / positives.sum()
        assert abs(only_a - 0.12) <= 4 * np.sqrt(0.12 * 0.88 / positives.sum())


class TestTruth:
    def test_null_when_only_a_equals_only_b(self):
        s = PairedClassifiers(**NULL_TABLE)
        assert s.truth_of("dcerr") == s.truth_of("df1") == "null"
        assert s.difference("dcerr") == 0.0

    def test_null_within_the_tolerance(self):
        assert PairedClassifiers(p_both=0.6, p_a_only=0.1, p_b_only=0.1 + 1e-14).truth == "null"
        near = PairedClassifiers(p_both=0.6, p_a_only=0.1, p_b_only=0.1 + 1e-9)
        assert near.truth_of("dcerr") == near.truth_of("df1") == "alternative"


class TestMcNemar:
    def test_sizes_within_4_mcse_of_exact(self):
        reps, ns = 20_000, [40, 150]
        res = run_study(make_design(n=ns, prevalence=0.3, **NULL_TABLE), "paired-classifiers",
                        list(MCNEMAR_TESTS), n_reps=reps, seed=31)
        assert set(res.summary["truth"]) == {"null"} and len(res.summary) == 8
        for row in res.summary.itertuples():
            # p01: A wrong only (only B right), p10: B wrong only (only A right)
            exact = mcnemar_rejection_rates(int(row.n), 0.1, 0.1, 0.05)[row.criterion]
            se = np.sqrt(exact * (1 - exact) / reps)
            assert abs(row.rate - exact) <= 4 * se, (row.n, row.criterion, row.rate, exact)
        first = res.summary.iloc[0]
        assert (first.n, first.criterion, first.rate) == (40, "mcnemar-uncorrected", 0.04235)

    def test_power_within_4_mcse_of_exact(self):
        reps, n = 20_000, 150
        res = run_study(make_design(n=n, **TABLE), "paired-classifiers", ["mcnemar-exact"],
                        n_reps=reps, seed=32)
        rate, truth = res.summary["rate"].iloc[0], res.summary["truth"].iloc[0]
        exact = mcnemar_rejection_rates(n, 0.08, 0.12, 0.05)["mcnemar-exact"]
        assert truth == "alternative" and abs(rate - exact) <= 4 * np.sqrt(exact * (1 - exact)
                                                                            / reps)


class TestValidation:
    @pytest.mark.parametrize(("params", "match"), [
        ({"p_both": 1.5, "p_a_only": 0.1, "p_b_only": 0.1},
         r"`p_both` must be a number in \[0, 1\]; got 1.5."),
        ({"p_both": 0.5, "p_a_only": -0.1, "p_b_only": 0.1},
         r"`p_a_only` must be a number in \[0, 1\]; got -0.1."),
        ({"p_both": 0.8, "p_a_only": 0.1, "p_b_only": 0.2},
         r"`p_both` \+ `p_a_only` \+ `p_b_only` must be <= 1; got 1.1."),
        ({"p_a_only": 0.1, "p_b_only": 0.1},
         "`p_both` must be given with `p_a_only`: the paired table takes p_both, p_a_only and "
         "p_b_only."),
        ({**TABLE, "tpr_a": 0.9},
         r"`tpr_a` and `p_both` exclude each other: give the paired table \(p_both, p_a_only, "
         r"p_b_only\) or the rates and rho, not both."),
        ({"p_b_only": 0.1, "p_a_only": 0.1, "p_both": 0.5, "rho": 0.0},
         "`rho` and `p_both` exclude each other"),
    ])
    def test_messages(self, params, match):
        with pytest.raises(ValueError, match=match):
            PairedClassifiers(**params)

    def test_a_table_sums_to_one_exactly(self):
        s = PairedClassifiers(p_both=0.7, p_a_only=0.2, p_b_only=0.1)  # summed exactly: 1
        assert s.cells[[0, 4]].tolist() == [0.0, 0.0] and s.cells.sum() == pytest.approx(1.0)

    def test_with_difference_is_refused(self):
        with pytest.raises(ValueError, match="`with_difference` sets A's TPR, which the paired "
                                             "table"):
            PairedClassifiers(**TABLE).with_difference("dcerr", 0.0)

    def test_run_study_refuses_rates_with_the_table(self):
        with pytest.raises(ValueError, match="`fpr_b` and `p_both` exclude each other"):
            run_study(make_design(fpr_b=0.2, **TABLE), "paired-classifiers", ["mcnemar"],
                      n_reps=5, seed=0)
