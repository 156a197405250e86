"""Small multilayer perceptrons trained by per-example stochastic backpropagation.

The training of Giles and Lawrence (1997): ``n_in`` inputs, ``n_hidden`` tanh units, ``n_out``
linear outputs (or tanh outputs, ``output="tanh"``), quadratic cost
``0.5 * sum((output - target)^2)`` on one example per update, the learning rate falling
linearly from `lr0` at the first update to 0: ``lr_t = lr0 * (1 - t / n_updates)``. Updates
go through the training set in passes, each example once per pass in a new random order
(:func:`epoch_order`), as the paper's "update after every training point". The initial
weights and bias of a unit are ``U(-2.4 / F, 2.4 / F)``, ``F`` its fan-in (incoming
weights, bias not counted; Haykin 1994).

Many independent runs are trained at once: :func:`train_mlps` trains a block of runs in
sequence from one ``numpy.random.Generator`` (which draws each run's initial weights and the
examples of all its updates), each run by a nogil Numba kernel, so a block's results depend
only on the stream it is given.

Tasks: the teacher network of the paper's artificial task, purely random two-class labels (the
data-snooping task), and one-step prediction of the Mackey-Glass series by a windowed MLP.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalmc.compute.jit import njit
from evalmc.inputs.checks import check_choice, check_float, check_int

#: Output units of a network: linear, or saturating (tanh).
OUTPUTS = ("linear", "tanh")
#: Input distributions of the teacher task, each of zero mean and unit variance.
INPUTS = ("normal", "uniform")
#: Targets of the teacher task: standardized, or the teacher's raw outputs.
TARGET_SCALES = ("standardized", "raw")


@dataclass(frozen=True)
class MLPs:
    """Weights of ``n_runs`` networks of one shape: `w1` (n_runs, n_hidden, n_in), `b1`, `w2`
    (n_runs, n_out, n_hidden), `b2`; their output units, ``"linear"`` or ``"tanh"``."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    output: str = "linear"

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Outputs of every network on inputs `x` (n, n_in), shape (n_runs, n, n_out): network r's
        is ``b2[r] + w2[r] tanh(w1[r] x + b1[r])``, through a tanh for tanh outputs."""
        hidden = np.tanh(np.einsum("ni,rhi->rnh", x, self.w1) + self.b1[:, None, :])
        out = np.einsum("rnh,roh->rno", hidden, self.w2) + self.b2[:, None, :]
        return np.tanh(out) if self.output == "tanh" else out


@njit(cache=True, nogil=True)
def fast_tanh(s):
    """``tanh(s)`` as ``1 - 2 / (exp(2 s) + 1)``: within 4e-16 of ``np.tanh``, and a third of
    its cost inside the kernels."""
    return 1.0 - 2.0 / (np.exp(2.0 * s) + 1.0)


@njit(cache=True, nogil=True)
def _sgd(x, y, order, lr0, w1, b1, w2, b2, hidden, err, tanh_out=False):
    """Per-example backpropagation on one network, in place, on examples ``x[order[t]]``
    (`hidden`, `err`: scratch arrays; `tanh_out`: tanh output units)."""
    n_in = x.shape[1]
    n_hidden = w1.shape[0]
    n_out = w2.shape[0]
    n_updates = order.shape[0]
    for t in range(n_updates):
        lr = lr0 * (1.0 - t / n_updates)
        k = order[t]
        for h in range(n_hidden):
            s = b1[h]
            for i in range(n_in):
                s += w1[h, i] * x[k, i]
            hidden[h] = fast_tanh(s)
        for o in range(n_out):
            s = b2[o]
            for h in range(n_hidden):
                s += w2[o, h] * hidden[h]
            if tanh_out:
                s = fast_tanh(s)
                err[o] = (s - y[k, o]) * (1.0 - s * s)
            else:
                err[o] = s - y[k, o]
        for h in range(n_hidden):
            back = 0.0
            for o in range(n_out):
                back += err[o] * w2[o, h]
                w2[o, h] -= lr * err[o] * hidden[h]
            delta = (1.0 - hidden[h] * hidden[h]) * back
            for i in range(n_in):
                w1[h, i] -= lr * delta * x[k, i]
            b1[h] -= lr * delta
        for o in range(n_out):
            b2[o] -= lr * err[o]


def train_mlps(x, y, *, n_runs: int, n_hidden: int, n_updates: int, lr0: float = 0.1,
               rng: np.random.Generator, output: str = "linear") -> MLPs:
    """Train `n_runs` networks from independent random starts on one data set; `rng` draws,
    run after run, the initial weights then the examples of all its updates. `output`: the
    output units, ``"linear"`` or ``"tanh"``."""
    x = np.ascontiguousarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    y = np.ascontiguousarray(y[:, None] if y.ndim == 1 else y)
    if x.ndim != 2 or x.shape[0] == 0:
        raise ValueError(f"`x` must be a non-empty 2-D array; got shape {x.shape}.")
    if y.ndim != 2 or y.shape[0] != x.shape[0]:
        raise ValueError(f"`y` must have one row per row of `x` ({x.shape[0]}); "
                         f"got shape {y.shape}.")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("`x` and `y` must be finite.")
    n_runs = check_int("n_runs", n_runs, low=1)
    n_hidden = check_int("n_hidden", n_hidden, low=1)
    n_updates = check_int("n_updates", n_updates, low=1)
    lr0 = _check_positive("lr0", lr0)
    output = check_choice("output", output, OUTPUTS)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"`rng` must be a numpy.random.Generator; got {rng!r}.")
    n_in, n_out = x.shape[1], y.shape[1]
    nets = MLPs(np.empty((n_runs, n_hidden, n_in)), np.empty((n_runs, n_hidden)),
                np.empty((n_runs, n_out, n_hidden)), np.empty((n_runs, n_out)), output)
    hidden, err = np.empty(n_hidden), np.empty(n_out)
    for r in range(n_runs):
        first = rng.uniform(-2.4 / n_in, 2.4 / n_in, (n_hidden, n_in + 1))
        second = rng.uniform(-2.4 / n_hidden, 2.4 / n_hidden, (n_out, n_hidden + 1))
        order = epoch_order(rng, x.shape[0], n_updates)
        nets.w1[r], nets.b1[r] = first[:, :n_in], first[:, n_in]
        nets.w2[r], nets.b2[r] = second[:, :n_hidden], second[:, n_hidden]
        _sgd(x, y, order, lr0, nets.w1[r], nets.b1[r], nets.w2[r], nets.b2[r], hidden, err,
             output == "tanh")
    return nets


def epoch_order(rng: np.random.Generator, n_examples: int, n_updates: int) -> np.ndarray:
    """The example of each of `n_updates` updates: passes over the `n_examples` training
    examples, each pass a new random permutation; the last pass may stop part-way."""
    passes = -(-n_updates // n_examples)
    order = rng.permuted(np.tile(np.arange(n_examples), (passes, 1)), axis=1)
    return order.ravel()[:n_updates]


def _check_positive(name, value) -> float:
    """`value` as a float, or ValueError unless it is positive."""
    value = check_float(name, value)
    if value <= 0:
        raise ValueError(f"`{name}` must be positive; got {value:g}.")
    return value


def standardize(train, *others):
    """`train` and each of `others` scaled to the training set's zero column mean and unit
    variance."""
    mean, sd = train.mean(axis=0), train.std(axis=0)
    return tuple((a - mean) / sd for a in (train, *others))


def nmse(nets: MLPs, x, y) -> np.ndarray:
    """Normalized mean squared error of each network: MSE / variance of the targets."""
    y = y[:, None] if y.ndim == 1 else y
    return ((nets.predict(x) - y) ** 2).mean(axis=(1, 2)) / y.var()


def percent_correct(nets: MLPs, x, labels) -> np.ndarray:
    """Percentage of examples whose output's sign matches the label in {-1, +1}."""
    correct = (np.sign(nets.predict(x)[..., 0]) == labels).sum(axis=1)
    return 100.0 * correct / labels.size


@dataclass(frozen=True)
class Task:
    """A data set: standardized training and test inputs `x_train`, `x_test` and their targets
    `y_train`, `y_test`."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray


def teacher_task(rng, *, k: float, n_train: int = 1000, n_test: int = 5000, n_in: int = 5,
                 n_hidden: int = 5, output: str = "linear", inputs: str = "normal",
                 targets: str = "standardized") -> Task:
    """The paper's artificial task: targets of a random teacher MLP (weights ``U(-k, k)``, biases
    ``U(-0.01, 0.01)``, `output` units of :data:`OUTPUTS`) on `inputs` of :data:`INPUTS`
    (standard normal, or uniform on ``±sqrt(3)``), standardized; `targets` standardized or
    the teacher's raw outputs."""
    k = _check_positive("k", k)
    n_train = check_int("n_train", n_train, low=2)
    n_test = check_int("n_test", n_test, low=1)
    output = check_choice("output", output, OUTPUTS)
    inputs = check_choice("inputs", inputs, INPUTS)
    targets = check_choice("targets", targets, TARGET_SCALES)
    w1 = rng.uniform(-k, k, (n_hidden, n_in))
    b1 = rng.uniform(-0.01, 0.01, n_hidden)
    w2 = rng.uniform(-k, k, n_hidden)
    b2 = rng.uniform(-0.01, 0.01)
    shape = (n_train + n_test, n_in)
    x = (rng.standard_normal(shape) if inputs == "normal"
         else rng.uniform(-np.sqrt(3), np.sqrt(3), shape))
    y = np.tanh(x @ w1.T + b1) @ w2 + b2
    y = np.tanh(y) if output == "tanh" else y
    x_train, x_test = standardize(x[:n_train], x[n_train:])
    y_train, y_test = y[:n_train], y[n_train:]
    if targets == "standardized":
        y_train, y_test = standardize(y_train, y_test)
    return Task(x_train, y_train, x_test, y_test)


def random_label_task(rng, *, n_train: int = 100, n_test: int = 100, n_in: int = 5) -> Task:
    """The paper's random problem: uniform random inputs, labels ±1 by a fair coin, so any
    "significant" result is spurious."""
    n_train = check_int("n_train", n_train, low=2)
    n_test = check_int("n_test", n_test, low=1)
    x = rng.random((n_train + n_test, n_in))
    labels = np.where(rng.random(n_train + n_test) < 0.5, -1.0, 1.0)
    x_train, x_test = standardize(x[:n_train], x[n_train:])
    return Task(x_train, labels[:n_train], x_test, labels[n_train:])


@njit(cache=True, nogil=True)
def _mackey_glass(a, b, c, lag, dt, x0, out):
    """RK4 on dx/dt = a x(t - tau) / (1 + x(t - tau)^c) - b x(t), ``tau = lag * dt``, from the
    constant history `x0`; ``out[i]`` is x at time ``i * dt``."""
    out[0] = x0
    for i in range(out.shape[0] - 1):
        d0 = out[i - lag] if i >= lag else x0
        d1 = out[i - lag + 1] if i + 1 >= lag else x0
        dh = 0.5 * (d0 + d1)
        f0 = a * d0 / (1.0 + d0**c)
        fh = a * dh / (1.0 + dh**c)
        f1 = a * d1 / (1.0 + d1**c)
        x = out[i]
        k1 = f0 - b * x
        k2 = fh - b * (x + 0.5 * dt * k1)
        k3 = fh - b * (x + 0.5 * dt * k2)
        k4 = f1 - b * (x + dt * k3)
        out[i + 1] = x + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def mackey_glass(n_samples: int, *, a: float = 0.2, b: float = 0.1, c: float = 10.0,
                 tau: float = 30.0, sample_every: float = 6.0, dt: float = 0.1,
                 x0: float = 1.2, transient: float = 1000.0) -> np.ndarray:
    """The Mackey-Glass series ``dx/dt = a x(t - tau) / (1 + x(t - tau)^c) - b x(t)`` by RK4 of
    step `dt`, sampled every `sample_every` time units after a `transient`."""
    n_samples = check_int("n_samples", n_samples, low=1)
    for name, value in (("tau", tau), ("sample_every", sample_every), ("dt", dt)):
        _check_positive(name, value)
    lag, every = round(tau / dt), round(sample_every / dt)
    if not (np.isclose(lag * dt, tau) and np.isclose(every * dt, sample_every)):
        raise ValueError(f"`dt` must divide `tau` and `sample_every`; got dt={dt:g}.")
    skip = round(transient / dt)
    out = np.empty(skip + n_samples * every)
    _mackey_glass(a, b, c, lag, dt, x0, out)
    return out[skip::every][:n_samples].copy()


def mackey_glass_task(*, window: int = 6, n_train: int = 1000, n_test: int = 1000) -> Task:
    """One-step prediction of the Mackey-Glass series (tau = 30, sampled every 6) from the last
    `window` samples; inputs standardized, targets raw, as Giles and Lawrence (1997)."""
    window = check_int("window", window, low=1)
    n_train = check_int("n_train", n_train, low=2)
    n_test = check_int("n_test", n_test, low=1)
    series = mackey_glass(window + n_train + n_test)
    idx = np.arange(window)[None, :] + np.arange(n_train + n_test)[:, None]
    x, y = series[idx], series[window:]
    x_train, x_test = standardize(x[:n_train], x[n_train:])
    return Task(x_train, y[:n_train], x_test, y[n_train:])


