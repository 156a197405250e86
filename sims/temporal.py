"""Temporal networks on a temporal random task, for Giles and Lawrence's (1997) Fig 8.

The task (assumed; the paper says only that the random task was made "temporal" and the
networks had order 5): a sequence of uniform random scalar inputs with a fair-coin label
(+-1) at each step, 100 training steps followed by 100 test steps. No network can beat 50%
correct on the test steps on average.

Networks, each with `n_hidden` tanh units and one linear output, trained like
``evalmc.sims.networks`` (quadratic cost, per-example updates, learning rate linear from `lr0`
to 0):

- TDNN: an MLP on the window of the last `order` inputs (``evalmc.sims.networks.train_mlps``),
  initialised by its fan-in, the `order` inputs.
- FIR MLP (Back 1992; also used on Mackey-Glass): hidden unit ``h`` computes
  ``tanh(b_h + g_h * sum_k w_hk u_{t-k})``, the gain ``g_h`` (initially 1) learnt with synaptic
  gains and held at 1 without. Its only filters are the first-layer synapses, so without gains it
  has the TDNN's function and gradient; it differs in its start: a hidden unit's fan-in is its one
  synapse (the input's filter), not the `order` taps, so its tap weights start ``U(-2.4, 2.4)``.
- Elman network: ``s_t = tanh(W x_t + C s_{t-1} + b)`` on the window ``x_t`` of the last
  `order` inputs (the paper gives every network the order 5), trained on the sequence in order
  with the context ``s_{t-1}`` held as an input (Elman's truncation: no gradient through time);
  the context restarts at 0 each pass. On the scalar input alone, most of its runs on a random
  data set settled on one and the same solution, a constant output (input weights near 0).

Both kernels take pre-drawn initial weights and example order and train in place.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalmc.compute.jit import njit
from evalmc.inputs.checks import check_float, check_int
from evalmc.sims.networks import epoch_order, fast_tanh


@dataclass(frozen=True)
class Sequence:
    """Standardized inputs `u` and +-1 `labels` of one temporal random task, the first `n_train`
    steps for training."""

    u: np.ndarray
    labels: np.ndarray
    n_train: int

    def windows(self, order: int) -> np.ndarray:
        """Row t: inputs ``u_t, u_{t-1}, ..., u_{t-order+1}`` (zeros before the start)."""
        padded = np.r_[np.zeros(order - 1), self.u]
        return np.stack([padded[order - 1 - k: order - 1 - k + self.u.size]
                         for k in range(order)], axis=1)


def temporal_random_task(rng, *, n_train: int = 100, n_test: int = 100) -> Sequence:
    """Uniform random inputs with fair-coin labels, standardized with the training steps."""
    n_train = check_int("n_train", n_train, low=2)
    n_test = check_int("n_test", n_test, low=1)
    u = rng.random(n_train + n_test)
    labels = np.where(rng.random(n_train + n_test) < 0.5, -1.0, 1.0)
    return Sequence((u - u[:n_train].mean()) / u[:n_train].std(), labels, n_train)


@njit(cache=True, nogil=True)
def _fir_sgd(x, y, order_idx, lr0, learn_gains, w, g, b, v, c):
    """Per-example SGD of a FIR MLP on windows `x` (n, taps), targets `y` (n,); the gains `g`
    are learnt when `learn_gains`, else held."""
    n_hidden, taps = w.shape
    n_updates = order_idx.shape[0]
    filt = np.empty(n_hidden)
    hidden = np.empty(n_hidden)
    for t in range(n_updates):
        lr = lr0 * (1.0 - t / n_updates)
        k = order_idx[t]
        out = c[0]
        for h in range(n_hidden):
            s = 0.0
            for j in range(taps):
                s += w[h, j] * x[k, j]
            filt[h] = s
            hidden[h] = fast_tanh(b[h] + g[h] * s)
            out += v[h] * hidden[h]
        err = out - y[k]
        for h in range(n_hidden):
            delta = (1.0 - hidden[h] * hidden[h]) * err * v[h]
            v[h] -= lr * err * hidden[h]
            for j in range(taps):
                w[h, j] -= lr * delta * g[h] * x[k, j]
            if learn_gains:
                g[h] -= lr * delta * filt[h]
            b[h] -= lr * delta
        c[0] -= lr * err


@njit(cache=True, nogil=True)
def _elman_forward(x_k, w, rec, b, v, c, ctx, hidden):
    """One Elman step: fills `hidden` from the input window `x_k` and context `ctx`; returns
    the output."""
    out = c[0]
    for h in range(w.shape[0]):
        s = b[h]
        for j in range(x_k.shape[0]):
            s += w[h, j] * x_k[j]
        for j in range(ctx.shape[0]):
            s += rec[h, j] * ctx[j]
        hidden[h] = fast_tanh(s)
        out += v[h] * hidden[h]
    return out


@njit(cache=True, nogil=True)
def _elman_sgd(x, y, n_updates, lr0, w, rec, b, v, c):
    """Per-step SGD of an Elman network along the windows `x` (n, taps), context held as an
    input."""
    n_hidden = w.shape[0]
    n = x.shape[0]
    ctx = np.zeros(n_hidden)
    hidden = np.empty(n_hidden)
    for t in range(n_updates):
        lr = lr0 * (1.0 - t / n_updates)
        k = t % n
        if k == 0:
            ctx[:] = 0.0
        err = _elman_forward(x[k], w, rec, b, v, c, ctx, hidden) - y[k]
        for h in range(n_hidden):
            delta = (1.0 - hidden[h] * hidden[h]) * err * v[h]
            v[h] -= lr * err * hidden[h]
            for j in range(x.shape[1]):
                w[h, j] -= lr * delta * x[k, j]
            for j in range(n_hidden):
                rec[h, j] -= lr * delta * ctx[j]
            b[h] -= lr * delta
        c[0] -= lr * err
        ctx[:] = hidden


@njit(cache=True, nogil=True)
def _elman_outputs(x, w, rec, b, v, c, out):
    """Outputs along the whole sequence of windows `x` from a zero context."""
    n_hidden = w.shape[0]
    ctx = np.zeros(n_hidden)
    hidden = np.empty(n_hidden)
    for k in range(x.shape[0]):
        out[k] = _elman_forward(x[k], w, rec, b, v, c, ctx, hidden)
        ctx[:] = hidden


def _check(n_runs, n_hidden, n_updates, lr0):
    """Validate the training settings shared by the temporal networks."""
    n_runs = check_int("n_runs", n_runs, low=1)
    n_hidden = check_int("n_hidden", n_hidden, low=1)
    n_updates = check_int("n_updates", n_updates, low=1)
    lr0 = check_float("lr0", lr0)
    if lr0 <= 0:
        raise ValueError(f"`lr0` must be positive; got {lr0:g}.")
    return n_runs, n_hidden, n_updates, lr0


def fir_outputs(x, y, *, n_runs: int, n_hidden: int, n_updates: int, gains: bool = True,
                fan_in: int = 1, lr0: float = 0.1, rng, x_eval=None) -> np.ndarray:
    """Train `n_runs` FIR MLPs, with or without synaptic `gains`, on tapped inputs `x`; their
    outputs on `x_eval` (default `x`); hidden units start ``U(-2.4/F, 2.4/F)``, F = `fan_in`."""
    n_runs, n_hidden, n_updates, lr0 = _check(n_runs, n_hidden, n_updates, lr0)
    x = np.ascontiguousarray(x, dtype=float)
    y = np.ascontiguousarray(y, dtype=float)
    x_eval = x if x_eval is None else np.asarray(x_eval, dtype=float)
    taps = x.shape[1]
    fan_in = check_int("fan_in", fan_in, low=1)
    out = np.empty((n_runs, x_eval.shape[0]))
    for r in range(n_runs):
        first = rng.uniform(-2.4 / fan_in, 2.4 / fan_in, (n_hidden, taps + 1))
        second = rng.uniform(-2.4 / n_hidden, 2.4 / n_hidden, n_hidden + 1)
        w, b = first[:, :taps].copy(), first[:, taps].copy()
        v, c = second[:n_hidden].copy(), second[n_hidden:].copy()
        g = np.ones(n_hidden)
        _fir_sgd(x, y, epoch_order(rng, x.shape[0], n_updates), lr0, bool(gains), w, g, b, v, c)
        out[r] = c[0] + np.tanh(b + g * (x_eval @ w.T)) @ v
    return out


def fir_test_accuracy(task: Sequence, *, order: int, n_runs: int, n_hidden: int,
                      n_updates: int, gains: bool = True, lr0: float = 0.1, rng) -> np.ndarray:
    """Train FIR MLPs (`order` taps) on the training steps; percent correct on the test steps,
    one per run (:func:`fir_outputs`)."""
    x = task.windows(check_int("order", order, low=1))
    out = fir_outputs(x[:task.n_train], task.labels[:task.n_train], n_runs=n_runs,
                      n_hidden=n_hidden, n_updates=n_updates, gains=gains, lr0=lr0, rng=rng,
                      x_eval=x[task.n_train:])
    return np.array([_percent(o, task.labels[task.n_train:]) for o in out])


def elman_test_accuracy(task: Sequence, *, order: int, n_runs: int, n_hidden: int,
                        n_updates: int, lr0: float = 0.1, rng) -> np.ndarray:
    """Train Elman networks on the window of the last `order` inputs; percent correct on the
    test steps (context carried over), one per run."""
    n_runs, n_hidden, n_updates, lr0 = _check(n_runs, n_hidden, n_updates, lr0)
    x = task.windows(check_int("order", order, low=1))
    x_train, y_train = x[:task.n_train], task.labels[:task.n_train]
    out = np.empty(task.u.size)
    acc = np.empty(n_runs)
    fan = order + n_hidden
    for r in range(n_runs):
        first = rng.uniform(-2.4 / fan, 2.4 / fan, (n_hidden, fan + 1))
        second = rng.uniform(-2.4 / n_hidden, 2.4 / n_hidden, n_hidden + 1)
        w, rec, b = first[:, :order].copy(), first[:, order:-1].copy(), first[:, -1].copy()
        v, c = second[:n_hidden].copy(), second[n_hidden:].copy()
        _elman_sgd(x_train, y_train, n_updates, lr0, w, rec, b, v, c)
        _elman_outputs(x, w, rec, b, v, c, out)
        acc[r] = _percent(out[task.n_train:], task.labels[task.n_train:])
    return acc


def _percent(outputs, labels):
    """Percentage of `outputs` whose sign is the label."""
    return 100.0 * int((np.sign(outputs) == labels).sum()) / labels.size
