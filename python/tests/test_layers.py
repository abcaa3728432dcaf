"""Forward passes and gradients of every layer and combinator against
PyTorch in f64 (conftest.check_layer: tolerance 1e-9 relative)."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import trellis
from trellis import layers as tl
from trellis.ir import ShapeError

from conftest import check_layer, close

B, L, D = 3, 5, 8


def t_dense(x, w, b):
    return x @ w + b


def t_attention(x, p, heads, causal):
    wq, bq, wk, bk, wv, bv, wo, bo = p
    q, k, v = (t_dense(x, w, b) for w, b in ((wq, bq), (wk, bk), (wv, bv)))
    bsz, n, d = x.shape
    dh = d // heads
    split = lambda t: t.reshape(bsz, n, heads, dh).transpose(1, 2)
    s = split(q) @ split(k).transpose(-1, -2) / math.sqrt(dh)
    if causal:
        s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
    a = (torch.softmax(s, -1) @ split(v)).transpose(1, 2).reshape(bsz, n, d)
    return t_dense(a, wo, bo)


def test_dense_3d():
    check_layer(tl.Dense(4), [((B, L, D), "f64", 0)], lambda p, x: t_dense(x, *p))


@pytest.mark.parametrize("layer,fn", [
    (tl.Relu(), torch.relu),
    (tl.Tanh(), torch.tanh),
    (tl.Gelu(), lambda x: F.gelu(x)),
    (tl.Gelu(approximate=True), lambda x: F.gelu(x, approximate="tanh")),
    (tl.Softmax(), lambda x: torch.softmax(x, -1)),
    (tl.LogSoftmax(), lambda x: torch.log_softmax(x, -1)),
])
def test_elementwise_and_normalizing(layer, fn):
    check_layer(layer, [((B, D), "f64", 0)], lambda p, x: fn(x))


def test_layer_norm():
    check_layer(tl.LayerNorm(epsilon=1e-5), [((B, L, D), "f64", 0)],
                lambda p, x: F.layer_norm(x, (D,), p[0], p[1], eps=1e-5))


def test_layer_norm_default_epsilon_is_trax():
    m = tl.Model(tl.LayerNorm(), [(2, 4)])
    assert "epsilon = 1.000000000e-06 : f32" in m.function()


def test_embedding():
    check_layer(tl.Embedding(11, D), [((B, L), "i32", 11)],
                lambda p, ids: F.embedding(ids.long(), p[0]))


@pytest.mark.parametrize("causal", [False, True])
def test_attention(causal):
    check_layer(tl.Attention(n_heads=2, causal=causal), [((B, L, D), "f64", 0)],
                lambda p, x: t_attention(x, p, 2, causal))


def test_cross_entropy_and_mean():
    check_layer(tl.CrossEntropyLoss(), [((B, 4), "f64", 0), ((B,), "i32", 4)],
                lambda p, x, y: F.cross_entropy(x, y.long()))
    check_layer(tl.Mean(), [((B, D), "f64", 0)], lambda p, x: x.mean())


def test_serial_branch_parallel_residual():
    layer = tl.Serial(
        tl.Dense(D), tl.Residual(tl.LayerNorm(), tl.Dense(D), tl.Relu()),
        tl.Branch(tl.Dense(6), tl.Serial(tl.Dense(6), tl.Tanh())),
        tl.Parallel(tl.Gelu(), None), tl.Multiply())

    def ref(p, x):
        h = t_dense(x, p[0], p[1])
        h = h + torch.relu(t_dense(F.layer_norm(h, (D,), p[2], p[3], eps=1e-6), p[4], p[5]))
        a, c = t_dense(h, p[6], p[7]), torch.tanh(t_dense(h, p[8], p[9]))
        return F.gelu(a) * c

    model, *_ = check_layer(layer, [((B, D), "f64", 0)], ref)
    assert model.param_names == [
        "dense_0.weight", "dense_0.bias", "layer_norm_0.weight", "layer_norm_0.bias",
        "dense_1.weight", "dense_1.bias", "dense_2.weight", "dense_2.bias",
        "dense_3.weight", "dense_3.bias"]
    assert [p.init for p in model.params][:4] == ["glorot_uniform", "zeros", "ones", "zeros"]


def test_select_and_several_outputs():
    layer = tl.Serial(tl.Dup(), tl.Parallel(tl.Dense(3), tl.Tanh()), tl.Select([1, 0, 1]))
    check_layer(layer, [((B, D), "f64", 0)],
                lambda p, x: [torch.tanh(x), t_dense(x, *p), torch.tanh(x)])


def test_shared_weights():
    d = tl.Dense(D)
    model, *_ = check_layer(tl.Serial(d, tl.Tanh(), d), [((B, D), "f64", 0)],
                            lambda p, x: t_dense(torch.tanh(t_dense(x, *p)), *p))
    assert len(model.params) == 2


def _ffn(p0):
    return lambda p, x: t_dense(F.gelu(t_dense(F.layer_norm(x, (D,), p[p0], p[p0 + 1], eps=1e-6),
                                               p[p0 + 2], p[p0 + 3])), p[p0 + 4], p[p0 + 5])


def test_reversible():
    def block():
        return tl.Serial(tl.LayerNorm(), tl.Dense(2 * D), tl.Gelu(), tl.Dense(D))

    layer = tl.ReversibleSerial(
        tl.ReversibleHalfResidual(block()), tl.ReversibleSwap(),
        tl.ReversibleHalfResidual(block()), tl.ReversibleSwap())

    def ref(p, x1, x2):
        f, g = _ffn(0), _ffn(6)
        y1 = x1 + f(p, x2)
        y2 = x2 + g(p, y1)
        return [y1, y2]

    model, *_ = check_layer(layer, [((B, D), "f64", 0), ((B, D), "f64", 0)], ref)
    text = model.function()
    assert text.count("nn.reversible_half_residual") == 2
    assert "nn.reversible_serial" in text and "nn.reversible_swap" in text


def test_reversible_attention_half_residual():
    layer = tl.ReversibleSerial(
        tl.ReversibleHalfResidual(tl.LayerNorm(), tl.CausalAttention(n_heads=2)),
        tl.ReversibleSwap())

    def ref(p, x1, x2):
        n = F.layer_norm(x2, (D,), p[0], p[1], eps=1e-6)
        return [x2, x1 + t_attention(n, p[2:], 2, True)]

    check_layer(layer, [((B, L, D), "f64", 0), ((B, L, D), "f64", 0)], ref)


def _threefry_keep(shape, key, rate):
    from trellis_testing.reference import dropout_keep
    return dropout_keep(shape, key, rate)


def test_dropout_mask_is_threefry():
    """The masks of two dropout layers follow the op's definition (an
    independent NumPy Threefry-2x32) under keys rng and rng + [1, 0]."""
    key = np.array([7, 11], np.int32)
    rate = 0.25
    model = tl.Model(tl.Serial(tl.Dropout(rate), tl.Tanh(), tl.Dropout(rate)), [(4, 64)], dtype="f64")
    x = np.random.default_rng(0).standard_normal((4, 64))
    (y,) = model([], x, rng=key)
    keep1 = _threefry_keep(x.shape, key, rate)
    keep2 = _threefry_keep(x.shape, key + np.array([1, 0], np.int32), rate)
    ref = np.where(keep2, np.tanh(np.where(keep1, x / (1 - rate), 0.0)) / (1 - rate), 0.0)
    close(y, ref, "dropout")
    assert 0.4 < keep1.mean() < 0.95 and (keep1 != keep2).any()

    def torch_ref(p, x):
        return torch.tensor(keep2) * torch.tanh(torch.tensor(keep1) * x / (1 - rate)) / (1 - rate)

    check_layer(tl.Serial(tl.Dropout(rate), tl.Tanh(), tl.Dropout(rate)),
                [((4, 64), "f64", 0)], torch_ref, rng_key=key)


def test_dropout_eval_mode_is_identity():
    model = tl.Model(tl.Dropout(0.5), [(2, 3)], mode="eval")
    assert "nn.dropout" not in model.function() and model.rng is None


def test_shape_errors_are_clear():
    with pytest.raises(ShapeError, match="Attention expects BxLxD, got tensor<2x8xf32>"):
        tl.Model(tl.Attention(), [(2, 8)])
    with pytest.raises(ShapeError, match="2 heads do not divide D = 5"):
        tl.Model(tl.Attention(n_heads=2), [(2, 3, 5)])
    with pytest.raises(ShapeError, match="Embedding expects int32 ids"):
        tl.Model(tl.Embedding(4, 2), [(2, 3)])
    with pytest.raises(ShapeError, match="takes 2 inputs, the model declares 1"):
        tl.Model(tl.Add(), [(2, 3)])
    with pytest.raises(ShapeError, match="first output must be a scalar loss"):
        trellis.grad(tl.Model(tl.Dense(2), [(2, 3)]))
    with pytest.raises(ValueError, match="Dropout rate must be in"):
        tl.Dropout(1.0)


def test_reversible_example_model():
    """The shape of examples/reversible/model.mlir (two streams, F/G
    half-residuals with swaps, the streams' sum, a classifier), as in
    docs/python.md, with smaller sizes."""
    def block():
        return [tl.LayerNorm(), tl.Dense(2 * D), tl.Gelu(), tl.Dense(D)]

    layer = tl.Serial(
        tl.Branch(tl.Dense(D), tl.Dense(D)),
        tl.ReversibleSerial(*[x for _ in range(4)
                              for x in (tl.ReversibleHalfResidual(*block()), tl.ReversibleSwap())]),
        tl.Add(), tl.Dense(4))

    def ref(p, x):
        a, c = t_dense(x, p[0], p[1]), t_dense(x, p[2], p[3])
        for k in range(4):
            a, c = c, a + _ffn(4 + 6 * k)(p, c)
        return t_dense(a + c, p[28], p[29])

    model, *_ = check_layer(layer, [((B, 6), "f64", 0)], ref)
    assert len(model.params) == 30 and model.function().count("nn.reversible_half_residual") == 4


def test_slice_and_reshape():
    """Slice along an axis and Reshape (batch included, one -1), forward and
    gradient against PyTorch; bad ranges and sizes are clear errors."""
    check_layer(tl.Serial(tl.Slice(1, 4), tl.Reshape(-1, D)), [((B, L, D), "f64", 0)],
                lambda p, x: x[:, 1:4].reshape(-1, D))
    check_layer(tl.Slice(2, 7, axis=-1), [((B, L, D), "f64", 0)], lambda p, x: x[..., 2:7])
    with pytest.raises(ShapeError, match=r"\[3:9\] is not a non-empty range of dimension 1"):
        tl.Model(tl.Slice(3, 9), [(B, L, D)])
    with pytest.raises(ShapeError, match="no axis 3"):
        tl.Model(tl.Slice(0, 1, axis=3), [(B, L, D)])
    with pytest.raises(ShapeError, match=r"Reshape\(7, -1\): cannot reshape tensor<3x5x8xf32> \(120 elements\) to \(7, -1\)"):
        tl.Model(tl.Reshape(7, -1), [(B, L, D)])
    with pytest.raises(ValueError, match="at most one -1"):
        tl.Reshape(-1, -1)
