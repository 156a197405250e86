"""The IIR MLP (Back and Tsoi 1991; Back 1992) on a scalar series, for Giles and Lawrence's
(1997) Mackey-Glass Figs 2-3.

Hidden unit ``h`` filters the input series ``u`` through its first-layer synapse, an IIR
filter, ``z_h(t) = sum_{i=0}^{M} b_hi u(t-i) + sum_{j=1}^{N} a_hj z_h(t-j)``, and computes
``tanh(bias_h + g_h z_h(t))``, the synaptic gain ``g_h`` (initially 1) learnt with gains and
held at 1 without (it scales the filter's output: altering it alters all the feedforward taps
at once, as the paper says). The output unit is linear, its synapses plain weights (the paper:
"the second layer synapses did not contain FIR/IIR filters"). Quadratic cost, one update per
time step, learning rate linear from `lr0` to 0, as :mod:`evalmc.sims.networks`.

The filters carry their state from step to step, so training runs along the series in time
order, pass after pass (not the FIR MLP's shuffled windows), each pass from a zero filter state.
The gradient of the filter coefficients is Back and Tsoi's recursive, real-time one: each
sensitivity is filtered by the synapse's own feedback, ``dz(t)/db_i = u(t-i) + sum_j a_j
dz(t-j)/db_i`` and ``dz(t)/da_k = z(t-k) + sum_j a_j dz(t-j)/da_k``, the coefficients' change
along the pass ignored; with the coefficients held, it is the exact gradient.

Assumed where the paper is silent: 6 feedforward taps (its "6 taps", as for its FIR filters)
and feedback order 2, the least whose poles can be complex (a resonance, as the series'
quasi-period); the feedback coefficients start at 0, so that every filter starts stable.

No stability constraint: the paper states none. An unstable filter's output grows until its
unit's tanh is exactly +-1 in double precision; it is held within ``+-SATURATION`` (its
derivative there 0), so that the network stays computable and its error finite. Should an update
still leave the floating-point range, training stops before it and the run keeps its last
network: no run is dropped or redrawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evalmc.compute.jit import njit
from evalmc.inputs.checks import check_float, check_int
from evalmc.sims.networks import fast_tanh

#: Bound of a filter's output: beyond it tanh(g z) is exactly +-1 for any gain |g| > 1e-98, and
#: the feedback sums stay finite for coefficients below 1e200.
SATURATION = 1e100


@dataclass(frozen=True)
class IIRRuns:
    """Trained IIR MLPs: their `outputs` along the series (n_runs, n), whether each ends
    `unstable` (a pole on or outside the unit circle), and the `updates` made."""

    outputs: np.ndarray
    unstable: np.ndarray
    updates: np.ndarray


@njit(cache=True, nogil=True)
def _filters(u, t, b, a, zs, sb, sa, z, db, da):
    """Advance every hidden unit's filter to step `t`: its output ``z[h]`` and sensitivities
    ``db``, ``da``, then shift the histories ``zs``, ``sb``, ``sa`` by one step."""
    n_hidden, n_ff = b.shape
    n_fb = a.shape[1]
    for h in range(n_hidden):
        s = 0.0
        for i in range(min(n_ff, t + 1)):
            s += b[h, i] * u[t - i]
        for k in range(n_fb):
            s += a[h, k] * zs[h, k]
        if abs(s) < SATURATION:
            for i in range(n_ff):
                d = u[t - i] if t >= i else 0.0
                for j in range(n_fb):
                    d += a[h, j] * sb[h, i, j]
                db[h, i] = d
            for k in range(n_fb):
                d = zs[h, k]
                for j in range(n_fb):
                    d += a[h, j] * sa[h, k, j]
                da[h, k] = d
        else:
            s = math.copysign(SATURATION, s)
            db[h, :] = 0.0
            da[h, :] = 0.0
        z[h] = s
        for j in range(n_fb - 1, 0, -1):
            zs[h, j] = zs[h, j - 1]
            sb[h, :, j] = sb[h, :, j - 1]
            sa[h, :, j] = sa[h, :, j - 1]
        if n_fb > 0:
            zs[h, 0] = s
            sb[h, :, 0] = db[h]
            sa[h, :, 0] = da[h]


@njit(cache=True, nogil=True)
def _output(z, g, bias, v, c, hidden):
    """The network's output from the filter outputs `z`; fills `hidden`."""
    out = c[0]
    for h in range(z.shape[0]):
        hidden[h] = fast_tanh(bias[h] + g[h] * z[h])
        out += v[h] * hidden[h]
    return out


@njit(cache=True, nogil=True)
def _finite_step(lr, err, delta, z, db, da, b, a, g, bias, v, c, hidden, learn_gains):
    """Whether the update about to be made keeps every weight it changes finite."""
    ok = math.isfinite(c[0] - lr * err)
    for h in range(b.shape[0]):
        step = lr * delta[h] * g[h]
        ok = (ok and math.isfinite(v[h] - lr * err * hidden[h])
              and math.isfinite(bias[h] - lr * delta[h])
              and (not learn_gains or math.isfinite(g[h] - lr * delta[h] * z[h])))
        for i in range(b.shape[1]):
            ok = ok and math.isfinite(b[h, i] - step * db[h, i])
        for k in range(a.shape[1]):
            ok = ok and math.isfinite(a[h, k] - step * da[h, k])
    return ok


@njit(cache=True, nogil=True)
def _iir_sgd(u, y, start, stop, n_updates, lr0, learn_gains, b, a, g, bias, v, c):
    """Online SGD of an IIR MLP along `u`, passes over steps ``0..stop-1`` updating from `start`,
    until `n_updates`; the updates made (fewer when one would leave the float range)."""
    n_hidden, n_ff = b.shape
    n_fb = a.shape[1]
    zs, sb, sa = (np.zeros((n_hidden, n_fb)), np.zeros((n_hidden, n_ff, n_fb)),
                  np.zeros((n_hidden, n_fb, n_fb)))
    z, hidden, delta = np.empty(n_hidden), np.empty(n_hidden), np.empty(n_hidden)
    db, da = np.empty((n_hidden, n_ff)), np.empty((n_hidden, n_fb))
    done = 0
    while done < n_updates:
        zs[:], sb[:], sa[:] = 0.0, 0.0, 0.0
        for t in range(stop):
            _filters(u, t, b, a, zs, sb, sa, z, db, da)
            out = _output(z, g, bias, v, c, hidden)
            if t < start:
                continue
            lr = lr0 * (1.0 - done / n_updates)
            err = out - y[t]
            for h in range(n_hidden):
                delta[h] = (1.0 - hidden[h] * hidden[h]) * err * v[h]
            if not _finite_step(lr, err, delta, z, db, da, b, a, g, bias, v, c, hidden,
                                learn_gains):
                return done
            for h in range(n_hidden):
                step = lr * delta[h] * g[h]
                v[h] -= lr * err * hidden[h]
                for i in range(n_ff):
                    b[h, i] -= step * db[h, i]
                for k in range(n_fb):
                    a[h, k] -= step * da[h, k]
                if learn_gains:
                    g[h] -= lr * delta[h] * z[h]
                bias[h] -= lr * delta[h]
            c[0] -= lr * err
            done += 1
            if done == n_updates:
                break
    return done


@njit(cache=True, nogil=True)
def _iir_forward(u, b, a, g, bias, v, c, out):
    """Outputs of one IIR MLP at every step of the series `u`, from a zero filter state."""
    n_hidden, n_ff = b.shape
    n_fb = a.shape[1]
    zs, sb, sa = (np.zeros((n_hidden, n_fb)), np.zeros((n_hidden, n_ff, n_fb)),
                  np.zeros((n_hidden, n_fb, n_fb)))
    z, hidden = np.empty(n_hidden), np.empty(n_hidden)
    db, da = np.empty((n_hidden, n_ff)), np.empty((n_hidden, n_fb))
    for t in range(u.shape[0]):
        _filters(u, t, b, a, zs, sb, sa, z, db, da)
        out[t] = _output(z, g, bias, v, c, hidden)


def _unstable(a) -> bool:
    """Whether a filter of feedback `a` (one row per synapse) has a pole on or outside the unit
    circle."""
    return any(np.abs(np.roots(np.r_[1.0, -row])).max(initial=0.0) >= 1.0 for row in a)


def _check_series(u, y, start, stop):
    u = np.ascontiguousarray(u, dtype=float)
    y = np.ascontiguousarray(y, dtype=float)
    if u.ndim != 1 or u.size < 2:
        raise ValueError(f"`u` must be a 1-D series of at least 2 steps; got shape {u.shape}.")
    if y.shape != u.shape:
        raise ValueError(f"`y` must have one target per step of `u` ({u.size}); "
                         f"got shape {y.shape}.")
    if not (np.isfinite(u).all() and np.isfinite(y).all()):
        raise ValueError("`u` and `y` must be finite.")
    start = check_int("start", start, low=0, high=u.size - 1)
    stop = check_int("stop", stop, low=start + 1, high=u.size)
    return u, y, start, stop


def iir_outputs(u, y, *, start: int, stop: int, n_runs: int, n_hidden: int, n_updates: int,
                gains: bool = True, taps: int = 6, feedback: int = 2, fan_in: int = 1,
                lr0: float = 0.1, rng) -> IIRRuns:
    """Train `n_runs` IIR MLPs, with or without synaptic `gains`, along `u` on the steps
    ``start..stop-1`` (the earlier ones only fill the filters); their :class:`IIRRuns`."""
    u, y, start, stop = _check_series(u, y, start, stop)
    n_runs = check_int("n_runs", n_runs, low=1)
    n_hidden = check_int("n_hidden", n_hidden, low=1)
    n_updates = check_int("n_updates", n_updates, low=1)
    taps = check_int("taps", taps, low=1)
    feedback = check_int("feedback", feedback, low=0)
    fan_in = check_int("fan_in", fan_in, low=1)
    lr0 = check_float("lr0", lr0, low=0.0, open_low=True)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"`rng` must be a numpy.random.Generator; got {rng!r}.")
    outputs = np.empty((n_runs, u.size))
    unstable = np.empty(n_runs, dtype=bool)
    updates = np.empty(n_runs, dtype=np.int64)
    for r in range(n_runs):
        first = rng.uniform(-2.4 / fan_in, 2.4 / fan_in, (n_hidden, taps + 1))
        second = rng.uniform(-2.4 / n_hidden, 2.4 / n_hidden, n_hidden + 1)
        b, bias = first[:, :taps].copy(), first[:, taps].copy()
        v, c = second[:n_hidden].copy(), second[n_hidden:].copy()
        a, g = np.zeros((n_hidden, feedback)), np.ones(n_hidden)
        updates[r] = _iir_sgd(u, y, start, stop, n_updates, lr0, bool(gains), b, a, g, bias,
                              v, c)
        _iir_forward(u, b, a, g, bias, v, c, outputs[r])
        unstable[r] = _unstable(a)
    return IIRRuns(outputs, unstable, updates)
