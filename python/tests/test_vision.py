"""The vision layers (Conv, MaxPool, AvgPool, BatchNorm, Flatten, Sigmoid)
against PyTorch in f64: forward passes and gradients (conftest.check_layer,
1e-9 relative), BatchNorm's state in both modes, and the Trainer carrying
the state through trellis-train."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import trellis
from trellis import layers as tl
from trellis.ir import ShapeError

from conftest import check_layer, close


def nchw(t):
    return t.permute(0, 3, 1, 2)


def nhwc(t):
    return t.permute(0, 2, 3, 1)


def t_conv(x, w, b, strides, pad, dilation):
    """pad: (top, bottom, left, right), zeros (F.pad takes left, right, top, bottom)."""
    xp = F.pad(nchw(x), (pad[2], pad[3], pad[0], pad[1]))
    return nhwc(F.conv2d(xp, w.permute(3, 2, 0, 1), b, stride=strides, dilation=dilation))


@pytest.mark.parametrize("kwargs,pad", [
    ({}, (0, 0, 0, 0)),
    ({"strides": (2, 1), "padding": "SAME"}, (1, 1, 1, 1)),        # 7x6 input, 3x3
    ({"padding": (1, 0, 0, 2), "dilation": (1, 2)}, (1, 0, 0, 2)),
    ({"strides": 2, "padding": "SAME"}, None),                       # odd pixel at the end
])
def test_conv(kwargs, pad):
    layer = tl.Conv(4, (3, 3), **kwargs)
    if pad is None:  # SAME with stride 2 on 7x6: 4x3 outputs, padding (1, 1) and (0, 1)
        pad = (1, 1, 0, 1)
    strides = kwargs.get("strides", 1)
    strides = (strides, strides) if isinstance(strides, int) else strides
    check_layer(layer, [((2, 7, 6, 3), "f64", 0)],
                lambda p, x: t_conv(x, p[0], p[1], strides, pad, kwargs.get("dilation", 1)))


def test_same_padding_keeps_the_size():
    m = tl.Model(tl.Conv(8, 5, padding="SAME"), [(2, 9, 9, 3)])
    assert m.outputs[0].shape == (2, 9, 9, 8)
    assert m.param_shapes == [(5, 5, 3, 8), (8,)]


@pytest.mark.parametrize("layer,fn", [
    (tl.MaxPool((2, 2)), lambda x: nhwc(F.max_pool2d(nchw(x), 2))),
    (tl.MaxPool((3, 2), strides=(2, 1)), lambda x: nhwc(F.max_pool2d(nchw(x), (3, 2), (2, 1)))),
    (tl.AvgPool((2, 3), strides=(1, 3)), lambda x: nhwc(F.avg_pool2d(nchw(x), (2, 3), (1, 3)))),
    (tl.AvgPool((3, 3), strides=1, padding=(1, 1, 1, 1)),
     lambda x: nhwc(F.avg_pool2d(nchw(x), 3, 1, padding=1, count_include_pad=True))),
    (tl.MaxPool((3, 3), strides=1, padding="SAME"),
     lambda x: nhwc(F.max_pool2d(nchw(x), 3, 1, padding=1))),
])
def test_pools(layer, fn):
    check_layer(layer, [((2, 7, 6, 3), "f64", 0)], lambda p, x: fn(x))


def test_flatten_and_sigmoid():
    check_layer(tl.Serial(tl.Flatten(), tl.Sigmoid()), [((2, 3, 4, 5), "f64", 0)],
                lambda p, x: torch.sigmoid(x.reshape(2, 60)))


def test_batch_norm_train_and_eval():
    """Mode 'train': y, the new running statistics (momentum 0.2) and the
    gradients of x, scale and bias; mode 'eval': y with the state, which
    the model does not return."""
    rng = np.random.default_rng(0)
    layer = tl.BatchNorm(epsilon=1e-3, momentum=0.2)
    x = rng.standard_normal((4, 3, 5, 6)) * 2 + 0.5
    scale, bias = rng.standard_normal(6), rng.standard_normal(6)
    mean, var = rng.standard_normal(6) * 0.1, np.abs(rng.standard_normal(6)) + 0.5
    c = rng.standard_normal(x.shape)

    model = tl.Model(layer, [tl.Input(x.shape, "f64")], dtype="f64")
    assert model.param_names == ["batch_norm_0.weight", "batch_norm_0.bias"]
    assert model.state_names == ["batch_norm_0.running_mean", "batch_norm_0.running_var"]
    y, new_mean, new_var = model([scale, bias], x, state=[mean, var])

    xt, st, bt = (torch.tensor(a, requires_grad=True) for a in (x, scale, bias))
    rm, rv = torch.tensor(mean), torch.tensor(var)
    yt = nhwc(F.batch_norm(nchw(xt), rm, rv, st, bt, training=True, momentum=0.2, eps=1e-3))
    close(y, yt.detach().numpy(), "y (train)")
    close(new_mean, rm.numpy(), "new running mean")
    close(new_var, rv.numpy(), "new running variance")

    def dot(b, y, c):
        return b.mean(b.binary("arith.mulf", y, c))

    loss = tl.Model(tl.Serial(tl.Parallel(layer, tl.Identity()), tl.Fn("dot", dot, n_in=2)),
                    [tl.Input(x.shape, "f64"), tl.Input(c.shape, "f64")], dtype="f64")
    (_, aux), grads = trellis.value_and_grad(loss, wrt="all")([scale, bias], x, c,
                                                               state=[mean, var])
    close(aux[0], rm.numpy(), "new running mean as aux of value_and_grad")
    (yt * torch.tensor(c)).mean().backward()
    for name, g, t in zip(("scale", "bias", "x"), grads, (st, bt, xt)):
        close(g, t.grad.numpy(), f"gradient of {name}")

    ev = tl.Model(layer, [tl.Input(x.shape, "f64")], dtype="f64", mode="eval")
    (ye,) = ev([scale, bias], x, state=[mean, var])
    want = nhwc(F.batch_norm(nchw(torch.tensor(x)), torch.tensor(mean), torch.tensor(var),
                             torch.tensor(scale), torch.tensor(bias), training=False, eps=1e-3))
    close(ye, want.numpy(), "y (eval)")


def test_bad_vision_layers_are_clear():
    with pytest.raises(ShapeError, match="expects NxHxWxC images"):
        tl.Model(tl.Conv(4, 3), [(2, 8, 8)])
    with pytest.raises(ShapeError, match="does not fit"):
        tl.Model(tl.Conv(4, 5), [(1, 3, 3, 1)])
    with pytest.raises(ShapeError, match="does not fit"):
        tl.Model(tl.MaxPool((4, 4)), [(1, 3, 8, 1)])
    with pytest.raises(ShapeError, match="at least 2 positions"):
        tl.Model(tl.BatchNorm(), [(1, 4)])
    with pytest.raises(ValueError, match="padding must be"):
        tl.Model(tl.Conv(4, 3, padding="FULL"), [(1, 8, 8, 1)])
    with pytest.raises(ValueError, match="momentum"):
        tl.BatchNorm(momentum=1.5)


def test_trainer_carries_the_state(tmp_path):
    """A small CNN with batch norm through trellis-train: the checkpoint's
    running statistics are the ones a replay of the batch statistics gives
    (one step whose batch is the whole data, learning rate 0 so that the
    weights stay)."""
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, (16, 6, 6, 1)).astype(np.float32)
    y = (x.mean(axis=(1, 2, 3)) > 0.5).astype(np.int32)
    model = tl.Serial(tl.Conv(3, 3, padding="SAME"), tl.BatchNorm(momentum=0.5), tl.Relu(),
                      tl.MaxPool(2), tl.Flatten(), tl.Dense(2))
    trainer = trellis.Trainer(model, tl.CrossEntropyLoss(), {"x": (6, 6, 1), "y": ((), "i32")},
                              batch_size=16, optimizer=trellis.optim.SGD(0.0))
    assert trainer.state_names == ["batch_norm_0.running_mean", "batch_norm_0.running_var"]
    result = trainer.fit({"x": x, "y": y}, steps=1, output_dir=str(tmp_path / "one"))
    p = result.params
    # lr 0: the weights stay, so the conv output is reproducible in NumPy.
    h = t_conv(torch.tensor(x, dtype=torch.float64), torch.tensor(p["conv_0.weight"], dtype=torch.float64),
               torch.tensor(p["conv_0.bias"], dtype=torch.float64), (1, 1), (1, 1, 1, 1), 1).numpy()
    flat = h.reshape(-1, 3)
    want_mean = 0.5 * 0 + 0.5 * flat.mean(0)
    want_var = 0.5 * 1 + 0.5 * flat.var(0, ddof=1)
    close(p["batch_norm_0.running_mean"], want_mean, "running mean after one step", rtol=1e-5, atol=1e-6)
    close(p["batch_norm_0.running_var"], want_var, "running variance after one step", rtol=1e-5, atol=1e-6)


def test_revnet_blocks_with_batch_norm():
    """ReversibleSerial of two conv/batch norm/relu half-residuals (RevNet):
    the blocks return their running statistics as state (one momentum update
    per step, although the backward pass recomputes each block); the loss'
    gradients and the new state match PyTorch's stored-activation network."""
    rng = np.random.default_rng(2)

    def block():
        return tl.ReversibleHalfResidual(tl.Conv(3, 3, padding="SAME"),
                                         tl.BatchNorm(epsilon=1e-3, momentum=0.3), tl.Relu())

    net = tl.ReversibleSerial(block(), tl.ReversibleSwap(), block(), tl.ReversibleSwap())

    def dot(b, y1, y2, c1, c2):
        s = b.binary("arith.addf", b.binary("arith.mulf", y1, c1), b.binary("arith.mulf", y2, c2))
        return b.mean(s)

    shape = (2, 5, 5, 3)
    loss = tl.Model(tl.Serial(tl.Parallel(net, tl.Identity(), tl.Identity()),
                              tl.Fn("dot", dot, n_in=4)),
                    [tl.Input(shape, "f64")] * 4, dtype="f64")
    assert loss.state_names == [f"batch_norm_{i}.running_{s}" for i in (0, 1)
                                for s in ("mean", "var")]
    params = loss.init(seed=3)
    state = [rng.standard_normal(3) * 0.1, np.abs(rng.standard_normal(3)) + 0.5,
             rng.standard_normal(3) * 0.1, np.abs(rng.standard_normal(3)) + 0.5]
    x1, x2, c1, c2 = (rng.standard_normal(shape) for _ in range(4))
    (_, new_state), grads = trellis.value_and_grad(loss, wrt="all")(
        params, x1, x2, c1, c2, state=state)

    names = loss.param_names
    pt = {n: torch.tensor(p, requires_grad=True) for n, p in zip(names, params)}
    rs = [torch.tensor(s) for s in state]
    xt = [torch.tensor(x, requires_grad=True) for x in (x1, x2)]

    def f(k, x):
        h = t_conv(x, pt[f"conv_{k}.weight"], pt[f"conv_{k}.bias"], (1, 1), (1, 1, 1, 1), 1)
        y = F.batch_norm(nchw(h), rs[2 * k], rs[2 * k + 1], pt[f"batch_norm_{k}.weight"],
                         pt[f"batch_norm_{k}.bias"], training=True, momentum=0.3, eps=1e-3)
        return torch.relu(nhwc(y))

    y1 = xt[0] + f(0, xt[1])
    y2 = xt[1] + f(1, y1)
    (y1 * torch.tensor(c1) + y2 * torch.tensor(c2)).mean().backward()
    for k, (got, want) in enumerate(zip(new_state, rs)):
        close(got, want.numpy(), f"state {loss.state_names[k]}")
    for n, g in zip(names, grads):
        close(g, pt[n].grad.numpy(), f"gradient of {n}", atol=1e-12)
    close(grads[len(names)], xt[0].grad.numpy(), "gradient of x1")
    close(grads[len(names) + 1], xt[1].grad.numpy(), "gradient of x2")
