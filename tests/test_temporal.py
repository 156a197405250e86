import naive
import numpy as np
import pytest

from evalmc.sims.temporal import (
    _elman_sgd,
    _fir_sgd,
    elman_test_accuracy,
    fir_test_accuracy,
    temporal_random_task,
)


def _start(rng, n_hidden, taps):
    return (rng.uniform(-0.5, 0.5, (n_hidden, taps)), rng.uniform(0.5, 1.5, n_hidden),
            rng.uniform(-0.5, 0.5, n_hidden), rng.uniform(-0.5, 0.5, n_hidden),
            rng.uniform(-0.5, 0.5, 1))


@pytest.mark.parametrize("gains", [True, False])
@pytest.mark.parametrize("n_updates", [1, 2, 5, 300])
def test_fir_kernel_matches_numpy_steps(n_updates, gains):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((30, 5)), np.sign(rng.standard_normal(30))
    order = rng.integers(0, 30, n_updates)
    start = _start(rng, 3, 5)
    ours = [a.copy() for a in start]
    _fir_sgd(x, y, order, 0.1, gains, *ours)
    for a, b in zip(ours, naive.fir_numpy(x, y, order, 0.1, gains, *start), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    if not gains:
        np.testing.assert_array_equal(ours[1], start[1])


@pytest.mark.parametrize("n_updates", [1, 2, 25, 300])
def test_elman_kernel_matches_numpy_steps(n_updates):
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((20, 4)), np.sign(rng.standard_normal(20))
    w, rec = rng.uniform(-0.5, 0.5, (3, 4)), rng.uniform(-0.5, 0.5, (3, 3))
    b, v, c = rng.uniform(-0.5, 0.5, 3), rng.uniform(-0.5, 0.5, 3), rng.uniform(-0.5, 0.5, 1)
    start = (w, rec, b, v, c)
    ours = [a.copy() for a in start]
    _elman_sgd(x, y, n_updates, 0.1, *ours)
    for a, b_ in zip(ours, naive.elman_numpy(x, y, n_updates, 0.1, *start), strict=True):
        np.testing.assert_allclose(a, b_, rtol=1e-12, atol=1e-15)


def test_task_windows_and_standardization():
    task = temporal_random_task(np.random.default_rng(3), n_train=50, n_test=10)
    assert task.u[:50].mean() == pytest.approx(0, abs=1e-12)
    assert task.u[:50].std() == pytest.approx(1)
    win = task.windows(3)
    assert win.shape == (60, 3)
    np.testing.assert_array_equal(win[10], task.u[[10, 9, 8]])
    np.testing.assert_array_equal(win[0], [task.u[0], 0.0, 0.0])


def test_chance_accuracy_on_random_labels():
    # Test labels are fair coins independent of everything the nets saw: each run's accuracy
    # on the 100 test steps is Binomial(100, 1/2) / 100; check the mean over 150 data sets.
    rng = np.random.default_rng(4)
    fir, elman = [], []
    for _ in range(150):
        task = temporal_random_task(rng)
        fir.append(fir_test_accuracy(task, order=5, n_runs=1, n_hidden=3, n_updates=500,
                                     rng=rng)[0])
        elman.append(elman_test_accuracy(task, order=5, n_runs=1, n_hidden=3, n_updates=500,
                                         rng=rng)[0])
    for acc in (fir, elman):
        assert abs(np.mean(acc) - 50) <= 4 * 5 / np.sqrt(150)


def test_fixed_seed_regression():
    task = temporal_random_task(np.random.default_rng(5))
    rng = np.random.default_rng(6)
    fir = fir_test_accuracy(task, order=5, n_runs=2, n_hidden=3, n_updates=2000, rng=rng)
    elman = elman_test_accuracy(task, order=5, n_runs=2, n_hidden=3, n_updates=2000, rng=rng)
    np.testing.assert_array_equal(np.r_[fir, elman], [52.0, 54.0, 53.0, 52.0])


def test_bad_arguments():
    task = temporal_random_task(np.random.default_rng(0))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"`lr0` must be positive; got 0\."):
        elman_test_accuracy(task, order=5, n_runs=1, n_hidden=3, n_updates=10, lr0=0.0, rng=rng)
    with pytest.raises(ValueError, match=r"`order` must be an integer >= 1; got 0\."):
        fir_test_accuracy(task, order=0, n_runs=1, n_hidden=3, n_updates=10, rng=rng)


def test_elman_runs_differ_on_a_random_data_set():
    # On the scalar input alone most runs settled on one constant output; on the window of 5
    # inputs the 10 runs of a data set differ.
    task = temporal_random_task(np.random.default_rng(7))
    acc = elman_test_accuracy(task, order=5, n_runs=10, n_hidden=3, n_updates=20_000,
                              rng=np.random.default_rng(8))
    assert len(set(acc.tolist())) > 3
