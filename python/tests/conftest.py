"""Helpers of the trellis package's tests: a layer's forward pass and its
gradients (w.r.t. parameters and float inputs) against PyTorch in f64."""

import numpy as np
import pytest
import torch

import trellis
from trellis import layers as tl

# f64 on both sides: agreement to rounding error, far below 1e-6 (the
# issue's bar); 1e-9 relative (with 1e-12 absolute for values near zero)
# leaves room for different summation orders.
RTOL, ATOL = 1e-9, 1e-12


def close(actual, expected, what, rtol=RTOL, atol=ATOL):
    actual = np.asarray(actual, np.float64)
    expected = np.asarray(expected, np.float64)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    err = np.abs(actual - expected)
    bound = atol + rtol * np.abs(expected)
    assert np.all(err <= bound), (
        f"{what}: max error {err.max():.3e} at {np.unravel_index(np.argmax(err - bound), err.shape)}")


def random_inputs(specs, rng):
    out = []
    for shape, dtype, high in specs:
        if dtype == "i32":
            out.append(rng.integers(0, high, shape).astype(np.int32))
        else:
            out.append(rng.standard_normal(shape))
    return out


def check_layer(layer, specs, reference, seed=0, rng_key=None):
    """Compares `layer` on inputs `specs` ([(shape, dtype, int_bound)]) with
    `reference(params, *inputs)` (torch tensors -> a tensor or a list): the
    forward outputs, then the gradients of sum_i mean(y_i * c_i) (random
    cotangents c_i) w.r.t. every parameter and float input."""
    rng = np.random.default_rng(seed)
    inputs = [tl.Input(s, d) for s, d, _ in specs]
    model = tl.Model(layer, inputs, dtype="f64")
    # Random parameters, not the initializers: zero biases and unit scales
    # would hide errors in their gradients.
    params = [rng.standard_normal(p.shape) for p in model.params]
    xs = random_inputs(specs, rng)
    key = {} if rng_key is None else {"rng": rng_key}
    outs = model(params, *xs, **key)

    tp = [torch.tensor(p, requires_grad=True) for p in params]
    tx = [torch.tensor(x, requires_grad=x.dtype == np.float64) for x in xs]
    ref = reference(tp, *tx)
    ref = list(ref) if isinstance(ref, (list, tuple)) else [ref]
    assert len(outs) == len(ref)
    for i, (o, r) in enumerate(zip(outs, ref)):
        close(o, r.detach().numpy(), f"{layer!r} output {i}")

    n_out = len(outs)
    cots = [rng.standard_normal(o.shape) for o in outs]

    def dot(b, *vals):
        ys, cs = vals[:n_out], vals[n_out:]
        total = None
        for y, c in zip(ys, cs):
            m = b.mean(b.binary("arith.mulf", y, c))
            total = m if total is None else b.binary("arith.addf", total, m)
        return total

    loss_model = tl.Model(
        tl.Serial(tl.Parallel(layer, tl.Identity(n_out)), tl.Fn("dot", dot, n_in=2 * n_out)),
        inputs + [tl.Input(c.shape, "f64") for c in cots], dtype="f64")
    assert loss_model.param_names == model.param_names
    g = trellis.grad(loss_model, wrt="all")
    grads = g(params, *xs, *cots, **key)

    loss = sum((r * torch.tensor(c)).mean() for r, c in zip(ref, cots))
    wrt = tp + [t for t in tx if t.requires_grad]
    tgrads = torch.autograd.grad(loss, wrt, allow_unused=True)
    names = model.param_names + [f"input {i}" for i, x in enumerate(xs) if x.dtype == np.float64]
    # the cotangent inputs are differentiated too (wrt="all"): d/dc = y / size
    assert len(grads) == len(wrt) + n_out
    for name, gv, tg, t in zip(names, grads, tgrads, wrt):
        close(gv, np.zeros_like(t.detach().numpy()) if tg is None else tg.numpy(),
              f"{layer!r} gradient of {name}")
    for i, (gv, o) in enumerate(zip(grads[len(wrt):], outs)):
        close(gv, np.asarray(o) / o.size, f"{layer!r} gradient of cotangent {i}")
    return model, params, xs, outs
