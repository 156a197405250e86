"""The fit's uncertainty in the audit: refits of the item model (a parametric bootstrap) and
the sizes pooled over them, with the spread between refits."""

import numpy as np
import pandas as pd
import pytest
from test_audit import _small_file

from evalmc.cli import main
from evalmc.sims import get_scenario
from evalmc.sims.itemmodel import ItemFit, fit_grid
from evalmc.sims.itemrefits import refit
from evalmc.study.audit import audit
from evalmc.study.refits import pool_summary


def _truth(cluster=0.1, interaction=0.02, item=0.4, model_item=0.48, sizes=(20,) * 20):
    """A known binary item model (one sample per item) in clusters of `sizes`."""
    return ItemFit(kind="binary", mu_a=0.2, mu_b=0.1, cluster=cluster, interaction=interaction,
                   item=item, model_item=model_item, sample=0.0, clipped=(),
                   n_items=sum(sizes), cluster_sizes=tuple(sizes), n_samples=1,
                   levels=np.array([0.0, 1.0]), cuts=np.array([0.0]), digest="0123456789abcdef")


def _fits(model, rng, n):
    """Fits of `n` data sets drawn from `model`."""
    size = sum(model.cluster_sizes)
    out = []
    for _ in range(n):
        a, b = model.draw_scores(rng, 1, model.mu_a, model.mu_b)
        out.append(fit_grid(a.reshape(size, 1), b.reshape(size, 1), model.cluster_sizes))
    return out


def test_refits_scatter_as_fits_of_fresh_data_do():
    """Fits of data sets from a known model scatter around it with some sd; refits of one
    such fit scatter around that fit with the same sd (each within 4 of its MCSE), and around
    it, not elsewhere."""
    truth = _truth()
    rng = np.random.default_rng(5)
    fits = _fits(truth, rng, 150)
    one = fits[0]
    refits = [refit(one, k, seed=2) for k in range(1, 151)]
    for name in ("item", "model_item", "cluster", "mu_a"):
        fresh = np.array([getattr(f, name) for f in fits])
        boot = np.array([getattr(f, name) for f in refits])
        sd_fresh, sd_boot = fresh.std(ddof=1), boot.std(ddof=1)
        mcse = np.hypot(sd_fresh, sd_boot) / np.sqrt(2 * 149)  # sd's MCSE, normal approx
        assert abs(sd_boot - sd_fresh) <= 4 * mcse, (name, sd_fresh, sd_boot)
        centre = abs(boot.mean() - getattr(one, name))
        assert centre <= 4 * sd_boot / np.sqrt(150) + abs(fresh.mean() - getattr(truth, name))


def test_refit_is_fixed_for_a_seed_and_differs_between_indices():
    one = _fits(_truth(), np.random.default_rng(1), 1)[0]
    first, again, other = refit(one, 3, seed=7), refit(one, 3, seed=7), refit(one, 4, seed=7)
    assert first is again and first.item != other.item
    assert round(first.item, 6) == 0.331568
    with pytest.raises(ValueError, match="`refit` must be"):
        refit(one, 0)


def test_pooled_rate_mcse_and_between_refit_sd_against_simulation():
    """Rejections drawn from refits whose true sizes have a known sd: the between-refit
    variance (one-way ANOVA) is unbiased for it, and the pooled rate's two-stage MCSE is the
    sd of the pooled rate over repetitions (each within 4 MCSE)."""
    rng = np.random.default_rng(11)
    k, n, reps, sd = 20, 265, 2000, 0.02
    pooled, mcse, var_b = np.empty(reps), np.empty(reps), np.empty(reps)
    for r in range(reps):
        p = np.clip(0.06 + sd * rng.standard_normal(k), 0, 1)
        rates = rng.binomial(n, p) / n
        summary = pd.DataFrame({"criterion": "t", "alpha": 0.05, "rate": rates,
                                "mcse": np.sqrt(rates * (1 - rates) / n), "n_reps": n,
                                "n_failed": 0})
        row = pool_summary(summary, ["criterion", "alpha"], {"rate": "mcse"}).iloc[0]
        pooled[r], mcse[r], var_b[r] = row["rate"], row["mcse"], row["fit_sd"] ** 2
    # truncation at 0 biases the component up a little; the untruncated mean is unbiased
    assert abs(var_b.mean() - sd**2) <= 4 * var_b.std(ddof=1) / np.sqrt(reps) + 2e-5
    sd_pooled = pooled.std(ddof=1)
    assert abs(np.sqrt((mcse**2).mean()) - sd_pooled) <= 4 * sd_pooled / np.sqrt(2 * reps)
    assert abs(pooled.mean() - 0.06) <= 4 * sd_pooled / np.sqrt(reps)


def test_no_spread_without_it():
    """Equal rates in every refit: the pooled rate is the plain one, its MCSE the binomial's,
    and the ANOVA's between-refit sd is 0."""
    summary = pd.DataFrame({"criterion": "t", "alpha": 0.05, "rate": [0.05] * 10,
                            "mcse": 0.0, "n_reps": 200, "n_failed": 0})
    row = pool_summary(summary, ["criterion", "alpha"], {"rate": "mcse"}).iloc[0]
    assert row["rate"] == pytest.approx(0.05) and row["fit_sd"] == 0
    assert row["mcse"] == pytest.approx(np.sqrt(0.05 * 0.95 / 2000))
    assert row["refits"] == 10 and row["n_reps"] == 2000 and row["bradley"] == "robust"


def test_audit_over_refits_is_fixed_for_a_seed_and_any_workers(tmp_path):
    path = _small_file(tmp_path)
    kwargs = {"cluster": "group", "sample": "sample", "criteria": ["paired-items",
                                                                   "clustered-z"],
              "estimators": ["paired-z-interval"], "deltas": [0.05], "n_reps": 300,
              "n_reps_alt": 100, "seed": 4, "progress": False, "refits": 10}
    one = audit(path, "x", "y", **kwargs)
    two = audit(path, "x", "y", n_jobs=2, **kwargs)
    for name in ("sizes", "power", "coverage"):
        pd.testing.assert_frame_equal(getattr(one, name), getattr(two, name))
    sizes = one.sizes
    assert sizes["refits"].tolist() == [10, 10] and one.settings["n_reps"] == 300
    assert (sizes["rate"] * 300).round().tolist() == [30, 27]
    assert sizes[["mcse", "fit_sd"]].round(4).to_numpy().tolist() == [[0.0233, 0.05],
                                                                      [0.0172, 0.0156]]
    assert "over 10 refits of the model" in one.report() and "fit sd" in one.report()
    assert "fit_sd" in one.coverage


def test_refits_are_refused_when_negative(tmp_path, capsys):
    path = _small_file(tmp_path, n=24)
    with pytest.raises(ValueError, match="`refits` must be"):
        audit(path, "x", "y", sample="sample", refits=-1, progress=False)
    with pytest.raises(ValueError, match="`refit` must be"):
        get_scenario("item-model")(file=str(path), a="x", b="y", sample="sample", refit=-2)
    assert main(["audit", str(path), "--a", "x", "--b", "y", "--sample", "sample",
                 "--refits", "-1", "--quiet"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_design_effect_band_keeps_a_z_tests_size_in_bradleys_band():
    """At the band's ends, a z-test whose variance is off by that ratio has size 1.5 alpha and
    alpha / 2 exactly (scipy's normal)."""
    from scipy.stats import norm

    from evalmc.sims.itemmodel import design_effect_band

    for alpha in (0.05, 0.01):
        low, high = design_effect_band(alpha)
        z = norm.ppf(1 - alpha / 2)
        assert 2 * norm.sf(z / np.sqrt(high)) == pytest.approx(1.5 * alpha, rel=1e-9)
        assert 2 * norm.sf(z / np.sqrt(low)) == pytest.approx(alpha / 2, rel=1e-9)


def test_faithfulness_flags_a_design_effect_off_by_more_than_the_band(tmp_path):
    """12,000 items in 14 clusters, an ICC of the differences of 0.00215 simulated against
    0.00145 observed: within the simulated sd, but a design effect 27% too large, which moves a
    5% paired test out of Bradley's band; and a fit simulated from itself is faithful."""
    from evalmc.sims.itemmodel import _design_effect_ratio, design_effect_band, faithfulness

    ratio = _design_effect_ratio((857,) * 14, 0.00215, 0.00145)
    assert round(ratio, 3) == 1.267 and ratio > design_effect_band(0.05)[1]
    model = get_scenario("item-model")(file=str(_small_file(tmp_path)), a="x", b="y",
                                       cluster="group", sample="sample")
    table = faithfulness(model, np.random.default_rng(3))
    row = table.set_index("quantity").loc["icc_diff"]
    assert np.isfinite(row["ratio"]) and table["ratio"].notna().sum() == 1
    flagged = model.fit.observed["icc_diff"]
    object.__setattr__(model.fit, "observed", {**model.fit.observed,
                                               "icc_diff": flagged + 0.5 * row["sd"]})
    shifted = faithfulness(model, np.random.default_rng(3)).set_index("quantity")
    expected = design_effect_band()[0] <= shifted.loc["icc_diff", "ratio"] <= \
        design_effect_band()[1]
    assert bool(shifted.loc["icc_diff", "faithful"]) == expected


def test_the_report_names_the_estimand(tmp_path):
    """Each size and coverage is for the population of items; with repeated samples the report
    also names the narrower question of these items."""
    path = _small_file(tmp_path, n=48)
    result = audit(path, "x", "y", sample="sample", criteria=["paired-items"],
                   estimators=["paired-z-interval"], n_reps=40, n_reps_alt=20, refits=2,
                   progress=False)
    text = result.report()
    assert "Estimand of every procedure and interval below: the population of items" in text
    assert "With 2 samples per item, these items:" in text
    assert set(result.sizes["estimand"]) == set(result.coverage["estimand"]) == {"population"}
    assert result.to_dict()["settings"]["estimand"] == "population"
