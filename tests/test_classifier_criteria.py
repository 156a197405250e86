import functools
import inspect
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import naive
import numpy as np
import pytest
from scipy import stats

from evalmc.cli import main
from evalmc.criteria import get_criterion
from evalmc.criteria.classifiers import (
    _percentile_pvalue,
    bootstrap_dcerr,
    dcerr_replicate_law,
    discordant,
)
from evalmc.criteria.kernels import TILT_MAX, _tilt, bootstrap_df1_sides
from evalmc.sims.base import Batch
from evalmc.sims.classifiers import CountsBatch, PairedClassifiers
from evalmc.study.rates import make_design, run_study

MCNEMARS = ("mcnemar", "mcnemar-exact", "mcnemar-midp")
COUNT_CRITERIA = ("proportion", *MCNEMARS, "bootstrap-dcerr", "bootstrap-df1")
UNBALANCED = PairedClassifiers(prevalence=0.06, tpr_a=0.7, fpr_a=0.01, tpr_b=0.8, fpr_b=0.012,
                               rho=0.6)


def _tables(seed, n, reps=60, scenario=UNBALANCED):
    return PairedClassifiers(**{**scenario.to_dict(), "n": n}).draw(
        np.random.default_rng(seed), reps).counts


def _run(name, counts, seed=0):
    return get_criterion(name)(CountsBatch(paired=True, fill=lambda: None, sizes=(1, 1),
                                      counts=counts),
                          np.random.default_rng(seed))


class TestAgainstReferences:
    @pytest.mark.parametrize("seed", [0, 1])
    @pytest.mark.parametrize("n", [20, 300])
    def test_mcnemar_variants(self, seed, n):
        counts = _tables(seed, n)
        n01, n10 = discordant(counts)
        for name in MCNEMARS:
            ref = [naive.mcnemar_pvalues(int(b), int(c))[name] for b, c in zip(n01, n10,
                                                                                 strict=True)]
            np.testing.assert_allclose(_run(name, counts).pvalues(), ref, rtol=1e-10)

    def test_mcnemar_exact_is_scipy_binomtest(self):
        counts = _tables(2, 150)
        n01, n10 = discordant(counts)
        ref = [stats.binomtest(int(b), int(b + c)).pvalue if b + c else 1.0
               for b, c in zip(n01, n10, strict=True)]
        np.testing.assert_allclose(_run("mcnemar-exact", counts).pvalues(), ref, rtol=1e-10)

    def test_proportion_test_eq3(self):
        counts = _tables(3, 200)
        res = _run("proportion", counts)
        for row, z, p in zip(counts, res.statistic, res.pvalues(), strict=True):
            label, a_ok, b_ok = naive.examples_of_table(row)
            err_a, err_b = np.sum(a_ok == 0), np.sum(b_ok == 0)
            c = (err_a + err_b) / (2 * len(label))
            ref = (err_a - err_b) / len(label) / np.sqrt(2 * c * (1 - c) / len(label))
            assert z == pytest.approx(ref, rel=1e-12)
            assert p == pytest.approx(2 * stats.norm.sf(abs(ref)), rel=1e-10)

    def test_bootstrap_statistics_are_the_observed_differences(self):
        counts = _tables(4, 80)
        ref = np.array([naive.classifier_differences(*naive.examples_of_table(r)) for r in counts])
        np.testing.assert_allclose(_run("bootstrap-dcerr", counts).statistic, ref[:, 0],
                                   atol=1e-15)
        np.testing.assert_allclose(_run("bootstrap-df1", counts).statistic, ref[:, 1],
                                   atol=1e-15)

    @pytest.mark.parametrize("row", [[3, 9, 4, 50, 2, 6, 15, 31], [0, 1, 2, 150, 1, 3, 1, 4],
                                     [10, 30, 25, 40, 8, 20, 30, 37]])
    def test_bootstrap_matches_resampling_examples(self, row):
        # The share of replicates on each side of 0, ours vs naive Monte Carlo (resampling
        # the n examples): for dCerr our exact law, for dF1 multinomial draws over cells.
        counts = np.array([row], np.int64)
        n_ours, n_ref = 40_000, 4000
        (dcerr_le, dcerr_ge), (df1_le, df1_ge) = (
            (le / n_ref, ge / n_ref)
            for le, ge in naive.bootstrap_sides(row, n_ref, np.random.default_rng(1)))
        lt, eq = dcerr_replicate_law(counts.sum(axis=1), *discordant(counts))
        for exact, ref in (((lt + eq)[0], dcerr_le), ((1 - lt)[0], dcerr_ge)):
            assert abs(exact - ref) <= 4 * np.sqrt(exact * (1 - exact) / n_ref) + 1e-12
        below, above = np.empty(1, np.int64), np.empty(1, np.int64)
        bootstrap_df1_sides(np.random.default_rng(2), counts, n_ours, n_ours + 1, TILT_MAX, below,
                       above)
        for ours, ref in ((below[0] / n_ours, df1_le), (above[0] / n_ours, df1_ge)):
            p = (ours * n_ours + ref * n_ref) / (n_ours + n_ref)
            assert abs(ours - ref) <= 4 * np.sqrt(p * (1 - p) * (1 / n_ours + 1 / n_ref)) + 1e-12

    def test_bootstrap_decisions_match_the_resampling_percentile_test(self):
        # On the same 150 evaluation sets, our test and the textbook one (resample examples,
        # np.percentile interval) reject at rates equal within Monte Carlo error.
        counts = _tables(5, 60, reps=150, scenario=PairedClassifiers(
            prevalence=0.4, tpr_a=0.75, fpr_a=0.2, tpr_b=0.85, fpr_b=0.15, rho=0.5))
        n_boot = 400
        ours = get_criterion("bootstrap-df1", n_boot=n_boot)(
            CountsBatch(paired=True, fill=lambda: None, sizes=(1, 1), counts=counts),
            np.random.default_rng(6)).decisions(0.1)
        rng = np.random.default_rng(7)
        ref = []
        for row in counts:
            label, a_ok, b_ok = naive.examples_of_table(row)
            idx = rng.integers(0, len(label), (n_boot, len(label)))
            d = [naive.classifier_differences(label[i], a_ok[i], b_ok[i])[1] for i in idx]
            low, high = np.percentile(d, [5, 95])
            ref.append(not low <= 0 <= high)
        r1, r2 = ours.mean(), np.mean(ref)
        assert 0.1 < r2 < 0.9  # an informative case
        assert abs(r1 - r2) <= 4 * np.sqrt((r1 * (1 - r1) + r2 * (1 - r2)) / len(counts))


class TestExactReplicateLaws:
    @pytest.mark.parametrize("row", [[0, 2, 0, 3, 0, 4, 0, 1], [1, 2, 3, 1, 0, 1, 2, 2],
                                     [0, 0, 0, 9, 0, 0, 0, 3], [2, 0, 1, 4, 1, 3, 0, 1]])
    def test_dcerr_law_is_the_enumerated_one(self, row):
        counts = np.array([row])
        lt, eq = dcerr_replicate_law(counts.sum(axis=1), *discordant(counts))
        (ref_lt, ref_eq), _ = naive.replicate_sides(row)
        np.testing.assert_allclose([lt[0], eq[0]], [ref_lt, ref_eq], rtol=1e-12, atol=1e-15)

    def test_dcerr_law_at_a_large_set(self):
        # n = 500: the double sum over the trinomial (n01*, n10*) by scipy
        n, n01, n10 = 500, 30, 45
        x1, x2 = np.meshgrid(np.arange(121), np.arange(151), indexing="ij")
        pmf = stats.multinomial.pmf(np.stack([x1, x2, n - x1 - x2], axis=-1), n,
                                    [n01 / n, n10 / n, 1 - (n01 + n10) / n])
        lt, eq = dcerr_replicate_law([n], [n01], [n10])
        np.testing.assert_allclose([lt[0], eq[0]], [pmf[x1 < x2].sum(), pmf[x1 == x2].sum()],
                                   rtol=1e-9)

    def test_dcerr_side_counts_follow_the_law(self):
        # The p-value is that of one multinomial draw of B over (below, tie, above): across
        # 4000 copies of one set (dCerr < 0), the mean count of replicates >= 0 is
        # B P(d* >= 0), and it stays the smaller side.
        counts = np.tile([[3, 9, 4, 50, 2, 6, 15, 31]], (4000, 1))
        lt, _ = dcerr_replicate_law([120], *discordant(counts[:1]))
        q, n_boot = float(1 - lt[0]), 200
        p = get_criterion("bootstrap-dcerr", n_boot=n_boot)(
            CountsBatch(paired=True, fill=lambda: None, sizes=(1, 1), counts=counts),
            np.random.default_rng(3)).pvalues()
        k = np.round(p * (n_boot + 1) / 2 - 1)  # min(below, above) = above
        assert (k / n_boot).mean() == pytest.approx(q, abs=4 * np.sqrt(q * (1 - q) / n_boot
                                                                        / 4000))
        assert k.var(ddof=1) / (n_boot * q * (1 - q)) == pytest.approx(
            1, abs=4 * np.sqrt(2 / 3999))

    # Tables where A leads in dF1 (cells 2, 6: A right where B is wrong) or B does (cells 1,
    # 5), and the rare side of a replicate has probability 0.04-0.13 by enumeration; the
    # last two have empty cells whose tilted values would otherwise be 0 * inf.
    TABLES = ((0, 1, 3, 0, 0, 1, 4, 13), (0, 0, 0, 3, 2, 2, 0, 1), (0, 0, 0, 2, 11, 0, 2, 1))

    @staticmethod
    @functools.cache
    def _df1_law(row):
        """Exact P(dF1* < 0) and P(dF1* = 0) when A leads, else P(dF1* > 0), P(dF1* = 0)."""
        lt, eq = naive.replicate_sides(row)[1]
        leads = naive.classifier_differences(*naive.examples_of_table(row))[1] > 0
        return (lt, eq) if leads else (1 - lt - eq, eq)

    @staticmethod
    def _merged(row, swap=False):
        c = np.asarray(row)
        x = np.array([c[0] + c[4], c[1], c[2], c[3], c[5], c[6], c[7]], np.int64)
        return x[[0, 2, 1, 3, 5, 4, 6]] if swap else x

    @pytest.mark.parametrize("row", TABLES)
    def test_chernoff_bound_holds_and_applies(self, row):
        swap = naive.classifier_differences(*naive.examples_of_table(row))[1] < 0
        x = self._merged(row, swap)
        log_q = _tilt(x / x.sum(), x.sum(), x.copy(), np.empty(7), np.empty(7))[0]
        lt, eq = self._df1_law(row)
        assert lt + eq <= np.exp(log_q) < TILT_MAX  # a valid bound, small enough to be used

    @pytest.mark.parametrize("row", TABLES)
    @pytest.mark.parametrize("swap", [False, True])
    @pytest.mark.parametrize("tilt_max", [TILT_MAX, 1e-300])
    def test_df1_side_counts_follow_the_law(self, row, swap, tilt_max):
        # Both samplers (tilted and one by one) and both orientations (A and B exchanged):
        # the count of replicates on the rare side across 300 copies of one set has the mean
        # and variance of Binomial(B, P(rare side)), and ties count on both sides.
        lt, eq = self._df1_law(row)
        leads = naive.classifier_differences(*naive.examples_of_table(row))[1] > 0
        row = np.array(row)[[0, 2, 1, 3, 4, 6, 5, 7]] if swap else np.array(row)
        counts = np.tile(row, (300, 1)).astype(np.int64)
        n_boot = 2000
        below, above = np.empty(300, np.int64), np.empty(300, np.int64)
        bootstrap_df1_sides(np.random.default_rng(4), counts, n_boot, n_boot + 1, tilt_max, below,
                       above)
        rare = below if leads != swap else above
        q = lt + eq
        assert rare.mean() / n_boot == pytest.approx(q, abs=4 * np.sqrt(q * (1 - q) / n_boot
                                                                       / 300))
        assert rare.var(ddof=1) / (n_boot * q * (1 - q)) == pytest.approx(
            1, abs=4 * np.sqrt(2 / 299))
        ties = below + above - n_boot
        assert ties.mean() / n_boot == pytest.approx(eq, abs=4 * np.sqrt(eq / n_boot / 300))


def test_early_stop_keeps_every_decision_up_to_p_max():
    # Set by set with the same stream, stopping once the p-value must exceed p_max gives the
    # same decisions at every level <= p_max as all B replicates, and a lower p-value bound.
    counts = _tables(8, 150, reps=80, scenario=PairedClassifiers(
        prevalence=0.4, tpr_a=0.75, fpr_a=0.2, tpr_b=0.8, fpr_b=0.2, rho=0.5))
    full = get_criterion("bootstrap-df1", n_boot=2000)
    early = get_criterion("bootstrap-df1", n_boot=2000, p_max=0.1)
    stopped = 0
    for i in range(len(counts)):
        one = CountsBatch(paired=True, fill=lambda: None, sizes=(1, 1),
                          counts=counts[i:i + 1])
        p_full = full(one, np.random.default_rng(i)).pvalues()[0]
        p_early = early(one, np.random.default_rng(i)).pvalues()[0]
        for alpha in (0.01, 0.05, 0.1):
            assert (p_full <= alpha) == (p_early <= alpha)
        assert p_early <= p_full and (p_early == p_full or p_early > 0.1)
        stopped += p_early < p_full
    assert stopped > 20  # the early stop happened


def test_dcerr_refuses_p_max():
    # its side counts are drawn at once: nothing to stop early
    for p_max in (0.1, 1.0):
        with pytest.raises(ValueError, match="unknown parameter `p_max` for 'bootstrap-dcerr'"):
            get_criterion("bootstrap-dcerr", n_boot=2000, p_max=p_max)
    assert "p_max" not in inspect.signature(bootstrap_dcerr).parameters
    assert get_criterion("bootstrap-dcerr", n_boot=2000).key == "bootstrap-dcerr(n_boot=2000)"
    with pytest.raises(ValueError, match="criterion 'mcnemar' takes no parameters"):
        get_criterion("mcnemar(p_max=0.1)")


class TestPercentileRule:
    @pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
    def test_pvalue_is_the_order_statistic_interval(self, alpha):
        n_boot = 5000
        k = round(alpha * n_boot / 2)
        rng = np.random.default_rng(0)
        for offset in range(k - 3, k + 4):
            x = np.sort(rng.integers(1, 20, n_boot))
            x[:offset] = rng.integers(-5, 1, offset)  # `offset` values <= 0, some ties at 0
            x = np.sort(x)
            below, above = np.sum(x <= 0), np.sum(x >= 0)
            outside = not x[k - 1] <= 0 <= x[n_boot - k]
            p = _percentile_pvalue(np.array([below]), np.array([above]), n_boot)[0]
            assert (p <= alpha) == outside


class TestDegenerate:
    @pytest.mark.parametrize("row", [
        [0, 0, 0, 100, 0, 0, 0, 0],   # no positive, no error at all: F1 undefined for both
        [0, 0, 0, 90, 0, 0, 0, 10],   # no discordant pair
        [100, 0, 0, 0, 0, 0, 0, 0],   # both always wrong
        [0, 0, 0, 0, 0, 0, 0, 100],   # both always right
    ])
    def test_defined_decisions(self, row):
        counts = np.array([row], np.int64)
        for name in COUNT_CRITERIA:
            res = _run(name, counts)
            assert not res.failed.any() and np.isfinite(res.pvalues()).all()
            assert res.pvalues()[0] == 1.0 and not res.decisions(0.1).any(), name
            assert np.isfinite(res.statistic).all()

    def test_undefined_f1_counts_as_zero(self):
        counts = np.array([[0, 0, 5, 95, 0, 0, 0, 0]], np.int64)  # only B has false positives
        assert _run("bootstrap-df1", counts).statistic[0] == 0.0


# Size of each McNemar variant under an exact null (equal population error rates), against
# the exact value by enumeration of the discordant counts.
EXACT_NULL = PairedClassifiers(prevalence=0.4, tpr_a=0.7, fpr_a=0.15, tpr_b=0.8, fpr_b=0.2,
                               rho=0.3).with_difference("dcerr", 0.0)


def test_exact_sizes_are_informative():
    # about 27% discordant pairs: the exact sizes are clearly below alpha and distinct
    assert naive.mcnemar_exact_size(30, 0.269, 0.05, "mcnemar") == pytest.approx(0.019, abs=1e-3)
    assert naive.mcnemar_exact_size(30, 0.269, 0.05, "mcnemar-midp") == pytest.approx(0.0388,
                                                                                     abs=1e-3)


@pytest.mark.parametrize("n", [30, 300])
@pytest.mark.parametrize("name", MCNEMARS)
def test_mcnemar_size_under_exact_null_within_4_mcse(n, name):
    scenario = PairedClassifiers(**{**EXACT_NULL.to_dict(), "n": n})
    q = scenario.cells[[1, 2, 5, 6]].sum()
    exact = naive.mcnemar_exact_size(n, q, 0.05, name)
    reps = 40_000
    res = run_study(make_design(**scenario.to_dict()), "paired-classifiers", [name],
                    n_reps=reps, seed=13)
    assert res.summary["truth"].iloc[0] == "null"
    rate = res.summary["rate"].iloc[0]
    assert abs(rate - exact) <= 4 * np.sqrt(exact * (1 - exact) / reps), (rate, exact)


def test_fixed_seed_regression_values():
    res = run_study(make_design(n=[100, 1000], prevalence=0.3, tpr_a=0.75), "paired-classifiers",
                    list(COUNT_CRITERIA), n_reps=300, seed=3)
    rejections = (res.summary["rate"] * res.summary["n_reps"]).round().astype(int)
    assert rejections.tolist() == REGRESSION_REJECTIONS


REGRESSION_REJECTIONS = [10, 9, 9, 13, 12, 19, 29, 57, 58, 63, 59, 87]


class TestErrors:
    def test_batch_without_counts(self):
        batch = Batch(np.zeros((2, 3)), np.ones((2, 3)), paired=True)
        with pytest.raises(ValueError,
                           match="criterion 'mcnemar' needs counts; this batch holds scores."):
            get_criterion("mcnemar")(batch, np.random.default_rng(0))

    def test_count_criteria_refuse_score_scenarios(self):
        with pytest.raises(ValueError, match="criterion 'bootstrap-df1' needs counts; "
                                             "scenario 'paired-normal' yields scores."):
            run_study(make_design(n=5), "paired-normal", ["bootstrap-df1"], n_reps=5, seed=0)

    def test_bootstrap_options(self):
        with pytest.raises(ValueError, match="`n_boot` must be an integer >= 1; got 0."):
            get_criterion("bootstrap-df1", n_boot=0)
        with pytest.raises(ValueError, match="unknown criterion 'bootstrap-auc'"):
            get_criterion("bootstrap-auc")
        assert get_criterion("bootstrap-df1").key == "bootstrap-df1"
        assert get_criterion("bootstrap-df1(n_boot=999)").key == "bootstrap-df1(n_boot=999)"
        assert get_criterion("bootstrap-df1", n_boot=999, p_max=0.1).key == (
            "bootstrap-df1(n_boot=999,p_max=0.1)")
        with pytest.raises(ValueError, match=r"`p_max` must be in \(0, 1\]; got 0.0."):
            get_criterion("bootstrap-df1", n_boot=10, p_max=0.0)


class TestCalibrate:
    def test_user_checks_tests_on_their_prevalence(self, capsys):
        argv = ["calibrate", "--scenario", "paired-classifiers", "--param", "prevalence=0.05",
                "--param", "n=200,2000", "--param", "fpr_a=0.02", "--criterion", "mcnemar",
                "--criterion", "bootstrap-dcerr", "--reps", "200", "--format", "json", "--quiet"]
        assert main(argv) == 0
        rows = json.loads(capsys.readouterr().out)
        assert [(r["n"], r["criterion"]) for r in rows] == [
            (200, "mcnemar"), (200, "bootstrap-dcerr"), (2000, "mcnemar"),
            (2000, "bootstrap-dcerr")]
        assert all(r["truth"] == "alternative" and r["scenario"] == "paired-classifiers"
                   for r in rows)
        assert rows[2]["rate"] > rows[0]["rate"]  # more power on larger sets

    def test_bad_parameter_is_one_line_and_exit_2(self, capsys):
        argv = ["calibrate", "--scenario", "paired-classifiers", "--param", "prevalence=1.5",
                "--criterion", "mcnemar", "--quiet"]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err == "evalmc: error: `prevalence` must be in (0, 1); got 1.5.\n"


@pytest.mark.parametrize("row", [(0, 1, 3, 0, 0, 1, 4, 13), (0, 0, 0, 3, 2, 2, 0, 1)])
def test_centred_df1_counts_follow_the_enumerated_law(row):
    # Over 300 copies of one set, the share of replicates at least |m| from their mean m (the
    # paper's interval centred on the mean leaves 0 out when it is <= alpha) matches
    # P(|dF1* - m| >= |m|) by enumerating every replicate, within 4 SE; m is the replicates'
    # mean, so the law is taken at the worst m within 4 SE of the exact mean.
    tables, probs = naive.multinomial_outcomes(row)
    d = np.array([naive.classifier_differences(*naive.examples_of_table(t))[1] for t in tables])
    mean = float(probs @ d)
    n_boot = 2000
    spread = 4 * np.sqrt(float(probs @ (d - mean) ** 2) / n_boot)
    q = [float(probs[np.abs(d - m) >= abs(m)].sum()) for m in np.linspace(mean - spread,
                                                                            mean + spread, 41)]
    counts = np.tile(np.asarray(row, np.int64), (300, 1))
    p = get_criterion("bootstrap-df1-centred", n_boot=n_boot)(
        CountsBatch(paired=True, counts=counts, sizes=(sum(row), sum(row)), fill=lambda: None),
        np.random.default_rng(5)).pvalues()
    se = 4 * np.sqrt(0.25 / n_boot / 300)
    assert 0.02 < min(q) and max(q) - min(q) < 0.05
    assert min(q) - se <= p.mean() <= max(q) + se


def test_centred_df1_regression():
    counts = np.array([[10, 3, 8, 29, 12, 2, 9, 27], [0, 0, 0, 50, 50, 0, 0, 0]])
    p = get_criterion("bootstrap-df1-centred", n_boot=999)(
        CountsBatch(paired=True, counts=counts, sizes=(100, 100), fill=lambda: None),
        np.random.default_rng(0)).pvalues()
    assert p.tolist() == pytest.approx([16 / 999, 1.0])  # no positive prediction: dF1* = 0
