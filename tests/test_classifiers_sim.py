import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import naive
import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import ndtr, ndtri

from evalmc.reproductions.keller2005 import PANELS, central_range_truth, panel_categories
from evalmc.sims import get_scenario
from evalmc.sims.classifiers import (
    CountsBatch,
    PairedClassifiers,
    cell_probabilities,
    correctness,
    multinomial_rows,
)
from evalmc.study.rates import make_design, run_study

UNBALANCED = {"prevalence": 0.05, "tpr_a": 0.7, "fpr_a": 0.01, "tpr_b": 0.75, "fpr_b": 0.008,
              "rho": 0.6}


def _both_correct_by_quadrature(p_a, p_b, rho):
    """P(Z_A < Phi^-1(p_a), Z_B < Phi^-1(p_b)) as a 1-D integral over Z_A."""
    t_a, t_b = ndtri(p_a), ndtri(p_b)
    inner = lambda z: ndtr((t_b - rho * z) / np.sqrt(1 - rho**2)) * stats.norm.pdf(z)  # noqa: E731
    return integrate.quad(inner, -np.inf, t_a, epsabs=1e-14, epsrel=1e-12)[0]


class TestCells:
    @pytest.mark.parametrize("rho", [-0.5, 0.0, 0.6, 0.95])
    def test_marginals_and_joint(self, rho):
        p = cell_probabilities(0.3, 0.8, 0.1, 0.7, 0.2, rho)
        assert p.sum() == pytest.approx(1.0, abs=1e-15) and (p >= 0).all()
        pos, neg = p[4:] / 0.3, p[:4] / 0.7
        assert pos[2] + pos[3] == pytest.approx(0.8, abs=1e-12)  # A correct on positives
        assert pos[1] + pos[3] == pytest.approx(0.7, abs=1e-12)
        assert neg[0] + neg[1] == pytest.approx(0.1, abs=1e-12)  # A wrong on negatives: FPR
        assert neg[0] + neg[2] == pytest.approx(0.2, abs=1e-12)
        assert pos[3] == pytest.approx(_both_correct_by_quadrature(0.8, 0.7, rho), abs=1e-10)
        assert neg[3] == pytest.approx(_both_correct_by_quadrature(0.9, 0.8, rho), abs=1e-10)

    def test_independent_models_multiply(self):
        p = cell_probabilities(0.5, 0.8, 0.1, 0.6, 0.3, 0.0)
        assert p[7] == pytest.approx(0.5 * 0.8 * 0.6, abs=1e-12)

    def test_perfect_and_useless_classifiers(self):
        p = cell_probabilities(0.2, 1.0, 0.0, 0.0, 1.0, 0.5)
        np.testing.assert_allclose(p, [0, 0, 0.8, 0, 0, 0, 0.2, 0], atol=1e-15)

    def test_population_differences_match_the_cells(self):
        s = PairedClassifiers(**UNBALANCED)
        p = s.cells
        err_a, err_b = p[[0, 1, 4, 5]].sum(), p[[0, 2, 4, 6]].sum()
        tp_a, tp_b = p[6] + p[7], p[5] + p[7]
        f1_a = 2 * tp_a / (2 * tp_a + p[4] + p[5] + p[0] + p[1])
        f1_b = 2 * tp_b / (2 * tp_b + p[4] + p[6] + p[0] + p[2])
        assert s.difference("dcerr") == pytest.approx(err_a - err_b, abs=1e-12)
        assert s.difference("df1") == pytest.approx(f1_a - f1_b, abs=1e-12)


class TestMultinomial:
    def test_against_numpy_multinomial(self):
        p = PairedClassifiers(**UNBALANCED).cells
        n, reps = 300, 20_000
        ours = multinomial_rows(np.random.default_rng(0), reps, n, p)
        ref = np.random.default_rng(1).multinomial(n, p, reps)
        assert (ours.sum(axis=1) == n).all()
        se = np.sqrt(n * p * (1 - p) / reps)
        assert (np.abs(ours.mean(axis=0) - n * p) <= 4 * se + 1e-12).all()
        cov = np.cov(ours[:, 1], ours[:, 3])[0, 1]
        assert abs(cov + n * p[1] * p[3]) <= 4 * np.sqrt(n * p[1] * p[3] * 2 / reps) * n
        for cell in (0, 3, 6):  # same distribution as numpy's, cell by cell
            assert stats.ks_2samp(ours[:, cell], ref[:, cell]).pvalue > 1e-3
        assert stats.ks_2samp(ours[:, 1] - ours[:, 2], ref[:, 1] - ref[:, 2]).pvalue > 1e-3

    def test_fixed_seed_regression(self):
        counts = multinomial_rows(np.random.default_rng(42), 2, 100,
                                  PairedClassifiers(**UNBALANCED).cells)
        assert counts.tolist() == REGRESSION_COUNTS


REGRESSION_COUNTS = [[0, 0, 1, 93, 0, 3, 1, 2], [0, 0, 0, 96, 2, 0, 1, 1]]


class TestScenario:
    def test_draw_gives_counts_and_correctness(self):
        batch = PairedClassifiers(n=50, **UNBALANCED).draw(np.random.default_rng(3), 7)
        assert batch.counts.shape == (7, 8) and (batch.counts.sum(axis=1) == 50).all()
        assert batch.n_reps == 7 and batch.sizes == (50, 50) and batch.paired
        a, b = batch.a, batch.b
        np.testing.assert_array_equal(a.sum(axis=1), batch.counts[:, [2, 3, 6, 7]].sum(axis=1))
        np.testing.assert_array_equal(b.sum(axis=1), batch.counts[:, [1, 3, 5, 7]].sum(axis=1))
        np.testing.assert_allclose(batch.moments()[0], a.mean(axis=1))
        np.testing.assert_allclose(batch.moments()[1], a.var(axis=1, ddof=1))

    def test_take_keeps_the_counts(self):
        batch = PairedClassifiers(n=20).draw(np.random.default_rng(0), 4)
        one = batch.take(2)
        np.testing.assert_array_equal(one.counts, batch.counts[2:3])
        np.testing.assert_array_equal(one.a, batch.a[2:3])

    def test_correctness_expands_the_table(self):
        a, b = correctness(np.array([[1, 2, 0, 0, 0, 0, 3, 1]]))
        assert a.tolist() == [[0, 0, 0, 1, 1, 1, 1]]
        assert b.tolist() == [[0, 1, 1, 0, 0, 0, 1]]
        _, a_ok, b_ok = naive.examples_of_table([1, 2, 0, 0, 0, 0, 3, 1])
        assert a_ok.tolist() == a[0].tolist() and b_ok.tolist() == b[0].tolist()

    def test_is_registered(self):
        assert get_scenario("paired-classifiers") is PairedClassifiers

    def test_results_do_not_depend_on_workers(self):
        design = make_design(n=[60, 200], prevalence=0.3)
        runs = [run_study(design, "paired-classifiers", ["mcnemar", "bootstrap-dcerr"],
                          n_reps=300, seed=5, block_size=100, n_jobs=jobs, keep_values=True)
                for jobs in (1, 2)]
        for key, res in runs[0].outcomes.items():
            np.testing.assert_array_equal(res.pvalue, runs[1].outcomes[key].pvalue)


class TestTruth:
    @pytest.mark.parametrize("measure", ["dcerr", "df1"])
    @pytest.mark.parametrize("value", [0.0, -0.01, 0.02])
    def test_with_difference_hits_the_target(self, measure, value):
        s = PairedClassifiers(prevalence=0.3, tpr_a=0.6, fpr_a=0.15, rho=0.8)
        moved = s.with_difference(measure, value)
        assert moved.difference(measure) == pytest.approx(value, abs=1e-13)
        assert moved.fpr_a == s.fpr_a and moved.rho == s.rho and moved.measure == measure
        assert moved.truth == ("null" if value == 0 else "alternative")

    def test_truth_per_measure(self):
        s = PairedClassifiers(**UNBALANCED).with_difference("dcerr", 0.0)
        assert s.truth_of("dcerr") == "null" and s.truth_of("df1") == "alternative"
        assert PairedClassifiers().truth == "null"

    def test_unreachable_difference(self):
        with pytest.raises(ValueError, match=r"`value` 0.5 of dcerr cannot be reached by A's TPR"):
            PairedClassifiers(**UNBALANCED).with_difference("dcerr", 0.5)

    def test_central_range_rule(self):
        assert central_range_truth(np.linspace(-1, 3, 101), 0.05) == "null"
        assert central_range_truth(np.linspace(0.1, 3, 101), 0.05) == "alternative"
        # 0 inside the whole range but outside the central 80%
        assert central_range_truth(np.r_[-1.0, np.linspace(0.1, 3, 19)], 0.2) == "alternative"

    def test_rule_agrees_with_quantiles_of_a_sample(self):
        x = np.random.default_rng(0).normal(0.3, 0.2, 500)
        low, high = np.quantile(x, [0.025, 0.975])
        assert central_range_truth(x, 0.05) == ("null" if low <= 0 <= high else "alternative")


class TestPanels:
    @pytest.mark.parametrize("panel", list(PANELS))
    def test_categories_follow_the_panel(self, panel):
        balanced, close = PANELS[panel]
        cats = panel_categories(panel, 6)
        assert cats == panel_categories(panel, 6)  # reproducible
        for c in cats:
            assert (0.4 <= c.prevalence <= 0.5) if balanced else (1 / 101 <= c.prevalence <= 1 / 11)
            assert (0.98 <= c.rho <= 0.995) if close else (0.5 <= c.rho <= 0.7)

    def test_population_matches_its_stated_laws(self):
        """Over 300 categories: the laws of panel_categories' docstring."""
        n = 300

        def log_uniform(x, low, high):
            return stats.kstest((np.log(x) - np.log(low)) / (np.log(high) - np.log(low)),
                                "uniform").pvalue > 1e-3

        for panel in "cd":  # close models: the distinct first category, then small gaps
            cats = panel_categories(panel, n)
            assert 0.015 <= abs(cats[0].difference("dcerr")) <= 0.03
            tied = [c for c in cats[1:] if c.tpr_a == c.tpr_b == c.fpr_a == c.fpr_b == 0]
            gaps = np.array([c.difference("dcerr") for c in cats[1:] if c not in tied])
            assert (gaps > 0).any() and (gaps < 0).any()
            assert log_uniform(np.abs(gaps), 1 / 20000, 1 / 1200)
            share = len(tied) / (n - 1)
            expected = 0.0 if panel == "c" else 0.1
            assert abs(share - expected) <= 4 * np.sqrt(0.1 * 0.9 / n)
        balanced = np.array([c.difference("dcerr") for c in panel_categories("a", n)])
        assert log_uniform(np.abs(balanced), 1e-5, 0.1)
        assert abs((balanced > 0).mean() - 0.7) <= 4 * np.sqrt(0.21 / n)  # the MLP worse
        unbalanced = panel_categories("b", n)
        assert log_uniform([c.tpr_b - c.tpr_a for c in unbalanced], 0.02, 0.5)
        assert all(c.fpr_b <= c.fpr_a <= 1.25 * c.fpr_b for c in unbalanced)
        assert log_uniform([(1 - c.prevalence) / c.prevalence for c in unbalanced], 10, 100)

    def test_unknown_panel(self):
        with pytest.raises(ValueError, match="`panel` must be one of 'a', 'b', 'c', 'd'; got 'e'"):
            panel_categories("e", 3)


class TestValidation:
    @pytest.mark.parametrize(("params", "match"), [
        ({"prevalence": 1.5}, r"`prevalence` must be in \(0, 1\); got 1.5."),
        ({"prevalence": 0.0}, r"`prevalence` must be in \(0, 1\); got 0.0."),
        ({"tpr_a": -0.1}, r"`tpr_a` must be a number in \[0, 1\]; got -0.1."),
        ({"fpr_b": 2}, r"`fpr_b` must be a number in \[0, 1\]; got 2.0."),
        ({"rho": 1.0}, r"`rho` must be in \(-1, 1\); got 1.0."),
        ({"n": 0}, r"`n` must be an integer >= 1; got 0."),
        ({"measure": "auc"}, r"`measure` must be one of 'dcerr', 'df1'; got 'auc'."),
    ])
    def test_messages(self, params, match):
        with pytest.raises(ValueError, match=match):
            PairedClassifiers(**params)

    def test_other_messages(self):
        with pytest.raises(ValueError, match="`statistics` must be a non-empty array of finite"):
            central_range_truth([0.1, np.nan], 0.05)
        with pytest.raises(ValueError, match=r"`alpha` must be in \(0, 1\); got 1.0."):
            central_range_truth([0.1], 1.0)
        with pytest.raises(ValueError, match="`measure` must be one of 'dcerr', 'df1'; got 'f1'."):
            PairedClassifiers().with_difference("f1", 0.0)
        with pytest.raises(ValueError, match="`n_categories` must be an integer >= 1; got 0."):
            panel_categories("a", 0)

    def test_score_criteria_are_refused(self):
        with pytest.raises(ValueError, match="criterion 'paired-t' needs scores; scenario "
                                             "'paired-classifiers' yields counts."):
            run_study(make_design(n=10), "paired-classifiers", ["paired-t"], n_reps=5, seed=0)

    def test_a_cut_of_a_counts_batch_keeps_its_type_and_counts(self):
        batch = PairedClassifiers(n=20).draw(np.random.default_rng(0), 3)
        one = batch.take(1)
        assert type(one) is CountsBatch and one.counts.tolist() == batch.counts[1:2].tolist()
        assert one.a.tolist() == batch.a[1:2].tolist()


def test_effect_and_estimand_follow_the_measure():
    better = PairedClassifiers(tpr_a=0.9)
    assert better.effect == -better.difference() > 0
    assert better.estimand == "mean difference"
    assert PairedClassifiers(measure="df1").estimand == "F1 difference"
