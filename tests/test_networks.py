import naive
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.integrate import solve_ivp

from evalmc.bench.registry import WORKLOADS
from evalmc.reproductions.giles1997 import TeacherRuns
from evalmc.sims.networks import (
    _mackey_glass,
    epoch_order,
    fast_tanh,
    mackey_glass,
    mackey_glass_task,
    nmse,
    percent_correct,
    random_label_task,
    standardize,
    teacher_task,
    train_mlps,
)
from evalmc.study.collection import collect
from evalmc.study.rates import make_design


def _rng(seed=0):
    return np.random.default_rng(seed)


def _small_data(seed=3, n=40, n_in=4, n_out=2):
    rng = _rng(seed)
    x, _ = standardize(rng.standard_normal((n, n_in)), rng.standard_normal((1, n_in)))
    return x, np.tanh(x @ rng.standard_normal((n_in, n_out)))


class TestAgainstNumpyReference:
    @pytest.mark.parametrize("n_updates", [1, 2, 3, 7, 30, 500])
    def test_same_weights_after_every_number_of_updates(self, n_updates):
        x, y = _small_data()
        nets = train_mlps(x, y, n_runs=1, n_hidden=3, n_updates=n_updates, lr0=0.1,
                          rng=_rng(11))
        ref = naive.train_mlp_numpy(_rng(11), x, y, 3, n_updates, 0.1)
        for ours, theirs in zip((nets.w1[0], nets.b1[0], nets.w2[0], nets.b2[0]), ref,
                                strict=True):
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)

    def test_runs_of_a_block_continue_one_stream(self):
        x, y = _small_data()
        nets = train_mlps(x, y, n_runs=3, n_hidden=2, n_updates=200, rng=_rng(8))
        rng = _rng(8)
        for r in range(3):
            w1, b1, w2, b2 = naive.train_mlp_numpy(rng, x, y, 2, 200, 0.1)
            np.testing.assert_allclose(nets.w1[r], w1, rtol=1e-12)
            np.testing.assert_allclose(nets.b2[r], b2, rtol=1e-12)

    def test_predict_matches_a_loop(self):
        x, y = _small_data()
        nets = train_mlps(x, y, n_runs=2, n_hidden=3, n_updates=100, rng=_rng(1))
        out = nets.predict(x)
        for r in range(2):
            for k in (0, 17):
                h = np.tanh(nets.w1[r] @ x[k] + nets.b1[r])
                np.testing.assert_allclose(out[r, k], nets.w2[r] @ h + nets.b2[r], rtol=1e-12)


class TestInitialWeights:
    def test_uniform_within_fan_in_bounds(self):
        # One update at a negligible rate leaves the initial weights in place.
        x, y = _small_data(n_in=4, n_out=1)
        nets = train_mlps(x, y, n_runs=4000, n_hidden=5, n_updates=1, lr0=1e-300, rng=_rng(2))
        w1, w2 = nets.w1.ravel(), nets.w2.ravel()
        assert np.abs(w1).max() <= 2.4 / 4 and np.abs(w2).max() <= 2.4 / 5
        assert stats.kstest(w1, stats.uniform(-0.6, 1.2).cdf).pvalue > 1e-3
        assert stats.kstest(nets.b2.ravel(), stats.uniform(-0.48, 0.96).cdf).pvalue > 1e-3


class TestTasks:
    def test_teacher_task_is_standardized_and_learnable(self):
        task = teacher_task(_rng(4), k=1.0, n_train=300, n_test=1000)
        np.testing.assert_allclose(task.x_train.mean(axis=0), 0, atol=1e-12)
        np.testing.assert_allclose(task.x_train.std(axis=0), 1, rtol=1e-12)
        np.testing.assert_allclose([task.y_train.mean(), task.y_train.std()], [0, 1],
                                   atol=1e-12)
        nets = train_mlps(task.x_train, task.y_train, n_runs=3, n_hidden=5, n_updates=20_000,
                          rng=_rng(5))
        assert (nmse(nets, task.x_test, task.y_test) < 0.05).all()

    def test_random_labels_give_chance_accuracy_on_fresh_data(self):
        # Labels are fair coins independent of the inputs: a trained net's test accuracy is
        # Binomial(100, 0.5) / 100 whatever it learnt; check its mean over 300 data sets.
        def one(rng, key):
            task = random_label_task(rng)
            nets = train_mlps(task.x_train, task.y_train, n_runs=1, n_hidden=3,
                              n_updates=2000, rng=rng)
            return (percent_correct(nets, task.x_test, task.y_test)[0],
                    percent_correct(nets, task.x_train, task.y_train)[0])

        acc = np.array([one(np.random.default_rng(seq), None)
                        for seq in np.random.SeedSequence(9).spawn(300)])
        assert abs(acc[:, 0].mean() - 50) <= 4 * 5 / np.sqrt(300)
        assert acc[:, 1].mean() > 55  # it does fit its own training labels

    def test_labels_are_fair_coins(self):
        task = random_label_task(_rng(6), n_train=2000, n_test=2000)
        assert set(np.unique(task.y_train)) == {-1.0, 1.0}
        k = int((np.r_[task.y_train, task.y_test] > 0).sum())
        assert stats.binomtest(k, 4000).pvalue > 1e-3


class TestSeeding:
    def test_fixed_seed_regression(self):
        task = teacher_task(_rng(0), k=5.0, n_train=100, n_test=100)
        nets = train_mlps(task.x_train, task.y_train, n_runs=2, n_hidden=5, n_updates=3000,
                          rng=_rng(1))
        np.testing.assert_allclose(nmse(nets, task.x_test, task.y_test),
                                   [0.06945170598104662, 0.08632374684719989], rtol=1e-9)

    def test_epoch_order_presents_each_example_once_per_pass(self):
        order = epoch_order(_rng(2), 7, 30)
        assert order.shape == (30,)
        for start in range(0, 28, 7):
            assert sorted(order[start:start + 7]) == list(range(7))
        assert len(set(order[28:])) == 2  # the last, partial pass: no repeat
        assert not np.array_equal(order[:7], order[7:14])  # a new order each pass
        np.testing.assert_array_equal(epoch_order(_rng(2), 7, 30), order)

    def test_results_do_not_depend_on_workers(self):
        design = make_design(k=[1.0, 5.0], teacher=0, updates=300)
        one = collect(design, TeacherRuns, n_reps=4, seed=3, block_size=2)
        two = collect(design, TeacherRuns, n_reps=4, seed=3, block_size=2, n_jobs=2)
        pd.testing.assert_frame_equal(one, two)
        assert one["rep"].tolist() == [0, 1, 2, 3] * 2
        assert one["test_nmse"].nunique() == 8


class TestValidation:
    @pytest.mark.parametrize(("kwargs", "match"), [
        ({"n_runs": 0}, r"`n_runs` must be an integer >= 1; got 0\."),
        ({"n_hidden": 1.5}, r"`n_hidden` must be an integer; got 1\.5\."),
        ({"n_updates": -3}, r"`n_updates` must be an integer >= 1; got -3\."),
        ({"lr0": -1.0}, r"`lr0` must be positive; got -1\."),
        ({"rng": 3}, r"`rng` must be a numpy.random.Generator; got 3\."),
    ])
    def test_train_arguments(self, kwargs, match):
        x, y = _small_data()
        args = {"n_runs": 1, "n_hidden": 2, "n_updates": 10, "lr0": 0.1, "rng": _rng()} | kwargs
        with pytest.raises(ValueError, match=match):
            train_mlps(x, y, **args)

    def test_data_shapes(self):
        x, y = _small_data()
        with pytest.raises(ValueError, match=r"`x` must be a non-empty 2-D array; got shape"):
            train_mlps(x[:, 0], y, n_runs=1, n_hidden=2, n_updates=1, rng=_rng())
        with pytest.raises(ValueError, match=r"`y` must have one row per row of `x` \(40\)"):
            train_mlps(x, y[:5], n_runs=1, n_hidden=2, n_updates=1, rng=_rng())
        with pytest.raises(ValueError, match=r"`x` and `y` must be finite\."):
            train_mlps(x, y * np.nan, n_runs=1, n_hidden=2, n_updates=1, rng=_rng())

    def test_task_arguments(self):
        with pytest.raises(ValueError, match=r"`k` must be positive; got 0\."):
            teacher_task(_rng(), k=0.0)
        with pytest.raises(ValueError, match=r"`n_train` must be an integer >= 2; got 1\."):
            random_label_task(_rng(), n_train=1)

    def test_collect_arguments(self):
        design = make_design(k=1.0)
        with pytest.raises(ValueError, match=r"`n_jobs` must be a positive integer or -1"):
            collect(design, TeacherRuns, n_reps=1, seed=1, n_jobs=0)
        with pytest.raises(ValueError, match=r"`seed` must be an integer >= 0; got -1\."):
            collect(design, TeacherRuns, n_reps=1, seed=-1)


def test_bench_workload_sides_agree():
    ours, peer = WORKLOADS["mlp-training"].load()()
    assert ours(small=True) == peer(small=True)


class TestMackeyGlass:
    def test_first_delay_interval_matches_the_closed_form(self):
        # For t < tau the delayed term is the constant history x0: dx/dt = A - b x, so
        # x(t) = A / b + (x0 - A / b) exp(-b t).
        out = np.empty(301)
        _mackey_glass(0.2, 0.1, 10.0, 300, 0.1, 1.2, out)
        big_a = 0.2 * 1.2 / (1 + 1.2**10)
        t = np.arange(301) * 0.1
        np.testing.assert_allclose(out, big_a / 0.1 + (1.2 - big_a / 0.1) * np.exp(-0.1 * t),
                                   rtol=1e-10)

    def test_second_interval_matches_scipy_ode_solver(self):
        # On [tau, 2 tau] the delayed term is the closed form above: an ODE for solve_ivp.
        big_a = 0.2 * 1.2 / (1 + 1.2**10)

        def first(t):
            return big_a / 0.1 + (1.2 - big_a / 0.1) * np.exp(-0.1 * t)

        def rhs(t, x):
            d = first(t - 30.0)
            return 0.2 * d / (1 + d**10) - 0.1 * x

        ref = solve_ivp(rhs, (30.0, 60.0), [first(30.0)], rtol=1e-11, atol=1e-12).y[0, -1]
        errors = []
        for dt, lag in ((0.1, 300), (0.05, 600)):
            out = np.empty(2 * lag + 1)
            _mackey_glass(0.2, 0.1, 10.0, lag, dt, 1.2, out)
            errors.append(abs(out[-1] - ref))
        # The delayed term at half steps is interpolated linearly: second order in dt.
        assert errors[0] < 1e-5 and errors[1] < errors[0] / 3

    def test_series_and_task(self):
        series = mackey_glass(2000)
        assert 0.2 < series.min() and series.max() < 1.45  # the attractor's known range
        np.testing.assert_allclose(mackey_glass(3), [1.2526571416027366, 1.0095936959604417,
                                                     0.8027718445435286], rtol=1e-12)
        task = mackey_glass_task(window=6, n_train=50, n_test=20)
        raw = mackey_glass(76)
        assert task.x_train.shape == (50, 6) and task.y_test.shape == (20,)
        # Row j's inputs are samples j..j+5, standardized, and its target sample j+6, raw.
        np.testing.assert_allclose(np.corrcoef(task.x_train[:, 0], raw[:50])[0, 1], 1.0)
        np.testing.assert_allclose(task.x_train.mean(axis=0), 0.0, atol=1e-12)
        np.testing.assert_array_equal(task.y_train, raw[6:56])
        np.testing.assert_array_equal(task.y_test, raw[56:76])

    def test_bad_step(self):
        with pytest.raises(ValueError, match=r"`dt` must divide `tau` and `sample_every`"):
            mackey_glass(10, dt=0.7)


def test_fast_tanh_matches_numpy():
    s = np.r_[np.linspace(-30, 30, 100_001), -800.0, 800.0, 0.0, 1e-300]
    out = np.array([fast_tanh(v) for v in s])
    np.testing.assert_allclose(out, np.tanh(s), rtol=0, atol=4e-16)
    assert fast_tanh(800.0) == 1.0 and fast_tanh(-800.0) == -1.0


class TestSaturatingOutput:
    """Tanh output units and the teacher task's open protocols (the teacher sweep)."""

    @pytest.mark.parametrize("n_updates", [1, 7, 500])
    def test_tanh_output_matches_numpy_reference(self, n_updates):
        x, y = _small_data()
        nets = train_mlps(x, y, n_runs=1, n_hidden=3, n_updates=n_updates, rng=_rng(11),
                          output="tanh")
        ref = naive.train_mlp_numpy(_rng(11), x, y, 3, n_updates, 0.1, output="tanh")
        for ours, theirs in zip((nets.w1[0], nets.b1[0], nets.w2[0], nets.b2[0]), ref,
                                strict=True):
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)
        h = np.tanh(nets.w1[0] @ x[3] + nets.b1[0])
        np.testing.assert_allclose(nets.predict(x)[0, 3], np.tanh(nets.w2[0] @ h + nets.b2[0]),
                                   rtol=1e-12)

    def test_teacher_variants_share_the_teacher(self):
        # The same stream gives the same weights: a tanh teacher's raw targets are the tanh of
        # the linear teacher's raw targets, inside (-1, 1); uniform inputs are bounded.
        linear = teacher_task(_rng(4), k=15.0, n_train=200, n_test=50, targets="raw")
        tanh = teacher_task(_rng(4), k=15.0, n_train=200, n_test=50, targets="raw",
                            output="tanh")
        np.testing.assert_allclose(tanh.y_train, np.tanh(linear.y_train), rtol=1e-12)
        assert np.abs(tanh.y_test).max() <= 1 and linear.y_train.std() > 5
        uniform = teacher_task(_rng(4), k=1.0, n_train=4000, n_test=1, inputs="uniform")
        assert np.abs(uniform.x_train).max() < np.sqrt(3) * 1.05
        # Excess kurtosis of a uniform is -1.2 (SE about sqrt(24 / 4000) per column).
        kurt = stats.kurtosis(uniform.x_train, axis=0)
        assert np.all(np.abs(kurt + 1.2) < 4 * np.sqrt(24 / 4000))

    def test_fixed_seed_regression(self):
        runs = TeacherRuns(k=15.0, teacher=0, updates=300, output="tanh", student="tanh",
                           targets="raw").draw(_rng(0), 2)
        assert runs.columns["test_nmse"].round(4).tolist() == [0.3001, 0.3114]

    @pytest.mark.parametrize("param", ["output", "student", "inputs", "targets"])
    def test_bad_protocol_is_refused(self, param):
        with pytest.raises(ValueError, match=rf"`{param}` must be one of"):
            TeacherRuns(**{param: "sigmoid"})
