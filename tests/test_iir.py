import numpy as np
import pytest
from scipy.signal import lfilter

from evalmc.sims.iir import SATURATION, _iir_forward, _iir_sgd, iir_outputs
from evalmc.sims.temporal import Sequence, _fir_sgd, temporal_random_task


def _network(rng, n_hidden=3, taps=4, feedback=2):
    """Random weights whose second-order filters are stable (poles of modulus < 0.9)."""
    radius, angle = rng.uniform(0.2, 0.9, n_hidden), rng.uniform(0, np.pi, n_hidden)
    a = np.stack([2 * radius * np.cos(angle), -radius**2], axis=1)[:, :feedback]
    return (rng.uniform(-1, 1, (n_hidden, taps)), a, rng.uniform(0.5, 1.5, n_hidden),
            rng.uniform(-0.5, 0.5, n_hidden), rng.uniform(-1, 1, n_hidden),
            rng.uniform(-0.5, 0.5, 1))


def _reference_outputs(u, b, a, g, bias, v, c):
    """The network's outputs with each synapse filtered by scipy's lfilter."""
    z = np.stack([lfilter(bh, np.r_[1.0, -ah], u) for bh, ah in zip(b, a, strict=True)])
    return c[0] + v @ np.tanh(bias[:, None] + g[:, None] * z)


def test_forward_pass_matches_lfilter():
    rng = np.random.default_rng(0)
    u = rng.standard_normal(300)
    net = _network(rng)
    out = np.empty(u.size)
    _iir_forward(u, *net, out)
    np.testing.assert_allclose(out, _reference_outputs(u, *net), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("feedback", [1, 2])
def test_real_time_gradient_matches_finite_differences(feedback):
    # With the coefficients held over the steps before the first update, the recursive
    # gradient is the exact gradient of 0.5 * err^2 at that step: one update of lr0 moves each
    # weight by -lr0 times it.
    rng = np.random.default_rng(1)
    u, y = rng.standard_normal(40), rng.standard_normal(40)
    net = _network(rng, feedback=feedback)
    t, lr0 = 30, 1e-3
    trained = [w.copy() for w in net]
    assert _iir_sgd(u, y, t, t + 1, 1, lr0, True, *trained) == 1
    for which, (w, w1) in enumerate(zip(net, trained, strict=True)):
        grad = np.empty_like(w)
        for idx in np.ndindex(w.shape):
            loss = []
            for eps in (1e-6, -1e-6):
                moved = [x.copy() for x in net]
                moved[which][idx] += eps
                loss.append(0.5 * (_reference_outputs(u[:t + 1], *moved)[t] - y[t]) ** 2)
            grad[idx] = (loss[0] - loss[1]) / 2e-6
        np.testing.assert_allclose((w - w1) / lr0, grad, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("gains", [True, False])
def test_without_feedback_it_is_the_fir_mlp_in_time_order(gains):
    rng = np.random.default_rng(2)
    u, y = rng.standard_normal(50), rng.standard_normal(50)
    b, _, g, bias, v, c = _network(rng, taps=5)
    start, stop, n_updates = 4, 50, 300
    windows = Sequence(u, y, stop).windows(5)[start:stop]
    order = np.tile(np.arange(stop - start), 7)[:n_updates]
    fir = [b.copy(), g.copy(), bias.copy(), v.copy(), c.copy()]
    _fir_sgd(windows, y[start:stop], order, 0.1, gains, *fir)
    iir = [b.copy(), np.zeros((3, 0)), g.copy(), bias.copy(), v.copy(), c.copy()]
    assert _iir_sgd(u, y, start, stop, n_updates, 0.1, gains, *iir) == n_updates
    for ours, theirs in zip([iir[0], *iir[2:]], fir, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


def test_an_unstable_filter_saturates_its_unit():
    rng = np.random.default_rng(3)
    u = rng.standard_normal(2000)
    b, _, g, bias, v, c = _network(rng, n_hidden=2)
    a = np.array([[-1.5, 0.0], [0.5, 0.0]])  # the first unit's pole at -1.5
    out = np.empty(u.size)
    _iir_forward(u, b, a, g, bias, v, c, out)
    assert np.isfinite(out).all()
    # Past the blow-up the first unit is +-1, its sign alternating with the pole's.
    z2 = lfilter(b[1], [1.0, -0.5], u)
    first = (out - c[0] - v[1] * np.tanh(bias[1] + g[1] * z2)) / v[0]
    np.testing.assert_allclose(np.abs(first[200:]), 1.0, rtol=0, atol=1e-12)
    assert (np.sign(first[201:]) == -np.sign(first[200:-1])).all()
    trained = [b.copy(), a.copy(), g.copy(), bias.copy(), v.copy(), c.copy()]
    assert _iir_sgd(u, u, 5, 2000, 4000, 0.1, True, *trained) == 4000
    assert all(np.isfinite(w).all() for w in trained)
    assert SATURATION > 1e50


def test_chance_accuracy_on_random_labels():
    # The test labels are fair coins independent of all the networks saw: a run's accuracy on
    # the 100 test steps is Binomial(100, 1/2) / 100; the mean of 150 data sets' runs.
    rng = np.random.default_rng(4)
    acc = []
    for _ in range(150):
        task = temporal_random_task(rng)
        runs = iir_outputs(task.u, task.labels, start=0, stop=task.n_train, n_runs=1,
                           n_hidden=3, n_updates=500, rng=rng)
        test = slice(task.n_train, None)
        acc.append(100 * np.mean(np.sign(runs.outputs[0, test]) == task.labels[test]))
    assert abs(np.mean(acc) - 50) <= 4 * 5 / np.sqrt(150)


def test_fixed_seed_regression():
    u = np.sin(np.arange(300) / 4.0) + 0.1 * np.random.default_rng(5).standard_normal(300)
    runs = iir_outputs(u[:-1], u[1:], start=5, stop=200, n_runs=3, n_hidden=4,
                       n_updates=5000, rng=np.random.default_rng(6))
    mse = ((runs.outputs[:, 200:] - u[201:]) ** 2).mean(axis=1)
    # One run learns the sine; two end with an unstable synapse and a near-constant output.
    np.testing.assert_allclose(mse, [0.012752744433353627, 0.5179725110005631,
                                     0.5179713898581887], rtol=1e-10)
    assert runs.unstable.tolist() == [False, True, True]
    assert runs.updates.tolist() == [5000, 5000, 5000]


def test_bad_arguments():
    u, rng = np.zeros(20), np.random.default_rng(0)
    common = {"n_runs": 1, "n_hidden": 2, "n_updates": 10, "rng": rng}
    with pytest.raises(ValueError, match=r"`stop` must be an integer in \[6, 20\]; got 5\."):
        iir_outputs(u, u, start=5, stop=5, **common)
    with pytest.raises(ValueError, match=r"`stop` must be an integer in \[6, 20\]; got 21\."):
        iir_outputs(u, u, start=5, stop=21, **common)
    with pytest.raises(ValueError, match=r"`y` must have one target per step of `u` \(20\)"):
        iir_outputs(u, u[:-1], start=0, stop=10, **common)
    with pytest.raises(ValueError, match=r"`u` and `y` must be finite\."):
        iir_outputs(np.r_[np.nan, u[1:]], u, start=0, stop=10, **common)
    with pytest.raises(ValueError, match=r"`feedback` must be an integer >= 0; got -1\."):
        iir_outputs(u, u, start=0, stop=10, feedback=-1, **common)
    with pytest.raises(ValueError, match=r"`rng` must be a numpy.random.Generator"):
        iir_outputs(u, u, start=0, stop=10, n_runs=1, n_hidden=2, n_updates=10, rng=0)
