"""Research loops with non-Gaussian run noise (skewed, multimodal, the user's own runs) and the
hold-out rerun that corrects the final score for its selection: the noise against scipy's
distributions, the overstatement against quadrature, the correction's bias against 0,
fixed-seed regression values and bad input."""

import naive
import numpy as np
import pytest
from scipy import stats

from evalmc.sims.loops import Loop
from evalmc.sims.noise import RunNoise
from evalmc.study.gate import run_gate

RUNS = "tests/examples/runs.csv"


def _standardized(spec):
    """The noise `spec` standardized, as an independent scipy-like distribution."""
    if spec.startswith("skew-normal"):
        d = stats.skewnorm(-6.0)
        m, s = d.mean(), d.std()
        return stats.skewnorm(-6.0, loc=-m / s, scale=1 / s)
    return naive.StandardizedMixture(0.3, 0.0, 3.0, 1.0, 1.0)


def test_the_default_noise_and_a_rerun_leave_the_loops_as_they_were():
    rng = np.random.default_rng
    plain = Loop(candidates=6, runs=3, base_runs=3, share=0.5, rho=0.4).draw(rng(3), 50)
    again = Loop(candidates=6, runs=3, base_runs=3, share=0.5, rho=0.4, noise="normal",
                 rerun=4).draw(rng(3), 50)
    assert np.array_equal(plain.cand, again.cand) and np.array_equal(plain.b, again.b)
    assert plain.rerun.shape == (50, 0) and again.rerun.shape == (50, 4)
    # the Gaussian draw as it was written: own parts, then the seeds' shared parts
    g = rng(3)
    own = np.sqrt(0.6) * g.standard_normal((50, 3))
    g.standard_normal((50, 6, 3))
    assert np.array_equal(plain.b, own + np.sqrt(0.4) * g.standard_normal((50, 3)))


@pytest.mark.parametrize("spec", ["skew-normal(skew=-6)", "mixture"])
def test_a_noise_has_mean_0_sd_1_and_its_scenarios_shape(spec):
    """200,000 draws: mean and variance within 4 MCSE of 0 and 1, and a KS test against the
    standardized distribution written from scipy's skew-normal or the mixture's formula."""
    x = RunNoise(spec).draw(np.random.default_rng(1), (40_000, 5)).ravel()
    n = x.size
    assert abs(x.mean()) <= 4 * x.std() / np.sqrt(n)
    assert abs((x**2).mean() - 1) <= 4 * (x**2).std() / np.sqrt(n)
    assert stats.kstest(x[:20_000], _standardized(spec).cdf).pvalue > 1e-3
    assert stats.kstest(x[:20_000], "norm").pvalue < 1e-6  # and not Gaussian


def test_the_users_runs_are_resampled_about_their_mean_at_their_sd():
    """Smoothed bootstrap of the file's test scores (the empirical scenario's), standardized by
    the kernel density's moments: a KS test against that density, and the sd of the runs."""
    noise = RunNoise(f"empirical(file={RUNS},column=test)")
    scores = np.loadtxt(RUNS, delimiter=",", skiprows=1, usecols=2)
    h = stats.gaussian_kde(scores).covariance[0, 0] ** 0.5
    assert noise.mean == pytest.approx(scores.mean())
    assert noise.sd == pytest.approx(np.sqrt(scores.var() + h * h))
    assert noise.runs_sd == pytest.approx(scores.std(ddof=1))

    def cdf(x):
        y = noise.mean + noise.sd * np.asarray(x)[:, None]
        return stats.norm.cdf((y - scores) / h).mean(axis=1)

    x = noise.draw(np.random.default_rng(2), (4000, 5)).ravel()
    assert stats.kstest(x, cdf).pvalue > 1e-3
    # the cache tells two files' noises apart
    assert Loop(noise=f"empirical(file={RUNS},column=val)").fingerprint() != Loop(
        noise=f"empirical(file={RUNS},column=test)").fingerprint()


@pytest.mark.parametrize("spec", ["mixture", "empirical(file=tests/examples/runs.csv)"])
def test_seed_paired_runs_keep_their_sd_and_correlation(spec):
    """rho = 0.6, sd 2: a run's variance sd^2 and two runs on one seed covariance rho sd^2,
    within 4 MCSE, for noise that is not Gaussian (its shape both in a run's own part and in
    its seed's)."""
    if "runs.csv" in spec:
        spec = spec.replace(")", ",column=val)")
    batch = Loop(candidates=2, runs=2, base_runs=2, rho=0.6, sd=2.0, noise=spec,
                 rerun=2).draw(np.random.default_rng(4), 40_000)
    base, cand, rerun = batch.b, batch.cand, batch.rerun
    for x, y, target in ((base[:, 0], cand[:, 1, 0], 0.6 * 4), (base[:, 1], base[:, 1], 4.0),
                         (cand[:, 0, 1], cand[:, 1, 1], 0.6 * 4), (rerun[:, 0], rerun[:, 0],
                                                                   4.0),
                         (rerun[:, 0], base[:, 0], 0.0), (base[:, 0], base[:, 1], 0.0)):
        xy = x * y
        assert abs(xy.mean() - target) <= 4 * xy.std() / np.sqrt(xy.size), target


@pytest.mark.parametrize("spec", ["skew-normal(skew=-6)", "mixture"])
def test_the_ratchets_overstatement_is_the_expected_maximum_of_the_noise(spec):
    """Null candidates, one run each, against b1: the ratchet reports the largest of K + 1
    runs, so its overstatement is sd E[max of K + 1 noise draws], by quadrature."""
    n = 20_000
    row = run_gate({"candidates": 20, "noise": spec, "sd": 2.0}, ["keep-ratchet"], n_reps=n,
                   seed=6, progress=False).iloc[0]
    exact = 2.0 * naive.expected_max_quad(_standardized(spec), 21)
    assert abs(row.overstatement - exact) <= 4 * row.overstatement_mcse, (row.overstatement,
                                                                          exact)
    gauss = 2.0 * naive.expected_max_normal_quad(21)
    assert abs(exact - gauss) > 20 * row.overstatement_mcse  # the shape matters


@pytest.mark.parametrize("mode", ["fixed", "replace"])
def test_the_rerun_corrects_the_final_score_the_naive_one_overstates(mode):
    """Skewed noise, runs paired by seed, real and null candidates: the final score overstates
    its truth by many MCSE; the mean of the final model's fresh runs is within 4 MCSE of it."""
    params = {"candidates": 20, "runs": 3, "base_runs": 3, "share": 0.2, "gain": 0.5,
              "rho": 0.5, "noise": "skew-normal(skew=4)", "rerun": 3, "baseline": mode}
    frame = run_gate(params, ["keep-ratchet", "keep-t"], n_reps=20_000, seed=7,
                     progress=False)
    for row in frame.itertuples():
        assert row.overstatement > 20 * row.overstatement_mcse, row
        assert abs(row.corrected) <= 4 * row.corrected_mcse, row
        assert row.runs == 3 + 20 * 3 + 3
    assert "corrected" not in run_gate({"runs": 3}, ["keep-ratchet"], n_reps=10,
                                       progress=False)


def test_fixed_seed_values():
    params = {"candidates": 10, "runs": 2, "base_runs": 2, "share": 0.2, "gain": 1.0,
              "rho": 0.3, "rerun": 2}
    got = []
    for spec in ("skew-normal", "mixture(weight=0.1,loc2=5)",
                 f"empirical(file={RUNS},column=test)"):
        frame = run_gate({**params, "noise": spec}, ["keep-noise-floor", "keep-t"],
                         n_reps=2000, seed=8, progress=False)
        got += frame[["any_false", "power", "overstatement", "corrected"]].round(4).to_numpy(
        ).tolist()
    assert got == [
        [0.2, 0.2828, 0.281, -0.013],       # skew-normal: keep-noise-floor
        [0.1035, 0.0948, 0.1789, -0.013],   # keep-t
        [0.405, 0.3985, 0.6461, -0.0187],   # mixture(weight=0.1,loc2=5)
        [0.1085, 0.1318, 0.219, -0.0187],
        [0.294, 0.319, 0.4536, 0.0043],     # the test scores of runs.csv
        [0.123, 0.1022, 0.2284, 0.0043],
    ]


@pytest.mark.parametrize(("argv", "message"), [
    (["--noise", "gamma"], "`--noise` must be a CSV FILE or one of normal, skew-normal, "
                           "mixture, empirical"),
    (["--noise", "mixture(n_a=3)"], "`--noise` 'mixture' takes only the parameters of its "
                                    "shape: weight, loc1, loc2, scale1, scale2; got n_a."),
    (["--noise", RUNS], "`--noise-column` must name the column of scores"),
    (["--noise", RUNS, "--noise-column", "acc"], "`--noise-column` 'acc' is not a column"),
    (["--noise-column", "test"], "`--noise-column` names a column of a `--noise` FILE"),
    (["--rerun", "-1"], "`--rerun` must be an integer >= 0; got -1."),
])
def test_the_command_refuses_bad_noise_in_one_line(argv, message, capsys):
    from evalmc.cli import main

    assert main(["gate", "--quiet", "--reps", "10", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_the_command_takes_the_sd_of_the_noise_file(capsys):
    from evalmc.cli import main

    argv = ["gate", "--quiet", "--reps", "300", "--format", "csv", "--rule", "keep-ratchet",
            "--noise", RUNS, "--noise-column", "test", "--rerun", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    sd = np.loadtxt(RUNS, delimiter=",", skiprows=1, usecols=2).std(ddof=1)
    frame = run_gate({"noise": f"empirical(file={RUNS},column=test)", "sd": sd, "rerun": 1},
                     ["keep-ratchet"], n_reps=300, progress=False)
    assert out == frame.to_csv(index=False)
    assert main([*argv, "--sd", "1"]) == 0
    assert capsys.readouterr().out != out
