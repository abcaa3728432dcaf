"""trellis.torch.export: modules traced with torch.fx, run and
differentiated by Trellis, against PyTorch in f64 (1e-9 relative)."""

import inspect
import math

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import trellis
import trellis.torch as tt
from trellis import layers as tl

from conftest import close

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.norm = nn.LayerNorm(16)
        self.act = nn.GELU()
        self.drop = nn.Dropout(0.2)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(self.drop(self.act(self.norm(self.fc1(x)))))


class WithLoss(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net, self.loss = net, nn.CrossEntropyLoss()

    def forward(self, x, y):
        return self.loss(self.net(x), y)


def check(module, args):
    """Forward outputs, then the gradients of the module's scalar output."""
    text = tt.export(module, args)
    params = tt.parameters(module)
    assert len(params) == len(list(module.parameters()))
    (out,) = trellis.compile(text, "forward")(*params, *tt.inputs(args))
    ref = module(*args)
    close(out, ref.detach().numpy(), f"{type(module).__name__} forward")
    value, grads = tt.value_and_grad(module, args)(params, *tt.inputs(args))
    module.zero_grad()
    ref.backward()
    close(value, ref.item(), "value")
    for (name, p), g in zip(module.named_parameters(), grads):
        close(g, p.grad.numpy(), f"gradient of {name}")
    return text


def test_mlp_with_layer_norm_and_gelu():
    net = MLP().double().eval()
    x = torch.randn(8, 6, dtype=torch.float64)
    y = torch.randint(0, 3, (8,))
    text = check(WithLoss(net), (x, y))
    assert "nn.layer_norm" in text and "nn.gelu" in text and "nn.cross_entropy" in text
    assert "nn.dropout" not in text  # eval mode
    # @forward's arguments: the parameters in named_parameters() order.
    names = tt.parameter_names(WithLoss(net))
    assert names[:2] == ["net.fc1.weight", "net.fc1.bias"] and names[-1] == "net.fc2.bias"
    assert text.count("tensor<16x6xf64>") >= 1  # fc1.weight as PyTorch stores it


class Ops(nn.Module):
    """The tensor functions and methods around the layers."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.proj = nn.Linear(8, 8, bias=False)
        self.scale = nn.Parameter(torch.randn(8))
        self.flat = nn.Flatten()
        self.out = nn.Linear(24, 4)
        self.tanh = nn.Tanh()

    def forward(self, ids, c):
        h = self.emb(ids)                                 # 2x3x8
        h = torch.add(self.proj(h), self.scale) * 0.5     # broadcast, scalar
        h = F.relu(h) + torch.sigmoid(h) - h.tanh() / 3.0
        h = h.transpose(1, 2).permute(0, 2, 1).reshape(2, 3, 8).contiguous()
        h = self.tanh(F.softmax(h, dim=-1) * 4.0 + torch.log_softmax(h, -1).view(2, 3, 8))
        z = self.out(self.flat(h))                        # 2x4
        return (F.gelu(z, approximate="tanh") * c).mean() + z.sum() * 0.1


def test_tensor_ops():
    m = Ops().double()
    ids = torch.randint(0, 10, (2, 3))
    c = torch.randn(2, 4, dtype=torch.float64)
    text = check(m, (ids, c))
    assert "linalg.transpose" in text and "linalg.broadcast" in text and "tensor.expand_shape" in text


def test_dropout_in_training_mode_takes_a_key():
    m = nn.Sequential(nn.Linear(4, 64), nn.Dropout(0.5)).double()
    x = torch.randn(3, 4, dtype=torch.float64)
    ex = tt.trace(m, (x,))
    assert ex.args[-1].name == "%rng" and "nn.dropout" in ex.text
    (y,) = trellis.compile(ex.text, "forward")(*tt.parameters(m), x.numpy(), np.array([1, 2], np.int32))
    m.eval()
    full = m(x).detach().numpy()
    kept = y != 0
    close(y[kept], 2 * full[kept], "kept elements scaled by 1/(1-p)")
    assert 0.3 < kept.mean() < 0.7


def line_of(text):
    src, start = inspect.getsourcelines(Unsupported.forward)
    return start + next(i for i, l in enumerate(src) if text in l)


class Unsupported(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 2, 3)

    def forward(self, x):
        return self.conv(x)


class UnsupportedFn(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, 0)


def test_unsupported_module_names_it_and_its_line():
    with pytest.raises(tt.ExportError) as e:
        tt.export(Unsupported(), (torch.randn(1, 2, 5),))
    msg = str(e.value)
    assert msg.startswith("unsupported module conv (torch.nn.modules.conv.Conv1d) at ")
    assert msg.endswith(f"test_torch.py:{line_of('self.conv(x)')}"), msg
    assert "\n" not in msg
    with pytest.raises(tt.ExportError, match=r"unsupported function torch.cumsum at .*test_torch.py:\d+$"):
        tt.export(UnsupportedFn(), (torch.randn(3),))
    with pytest.raises(tt.ExportError, match="only the last dimension"):
        tt.export(nn.Softmax(dim=0), (torch.randn(3, 4),))


class TinyCausalLM(nn.Module):
    """A one-block causal Transformer language model."""

    def __init__(self, vocab=11, d=8, length=5, heads=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(0.1 * torch.randn(length, d))
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.head = nn.Linear(d, vocab)
        self.loss = nn.CrossEntropyLoss()
        self.register_buffer("mask", torch.triu(torch.ones(length, length, dtype=torch.bool), 1))
        self.vocab = vocab

    def forward(self, ids, targets):
        h = self.emb(ids) + self.pos
        n = self.ln1(h)
        h = h + self.attn(n, n, n, need_weights=False, attn_mask=self.mask)[0]
        h = h + self.mlp(self.ln2(h))
        logits = self.head(h)
        return self.loss(logits.reshape(-1, self.vocab), targets.reshape(-1))


def test_small_causal_transformer():
    m = TinyCausalLM().double()
    ids = torch.randint(0, 11, (3, 5))
    targets = torch.randint(0, 11, (3, 5))
    text = check(m, (ids, targets))
    assert "causal = true" in text and "num_heads = 2" in text
    assert list(tt.parameter_names(m))[:3] == ["pos", "emb.weight", "ln1.weight"]


def test_attention_mask_must_be_causal():
    m = TinyCausalLM().double()
    m.mask[0, 1] = False
    with pytest.raises(tt.ExportError, match="only the causal mask"):
        tt.export(m, (torch.randint(0, 11, (3, 5)), torch.randint(0, 11, (3, 5))))


def test_train_an_imported_module_and_take_the_weights_back(tmp_path):
    """An exported MLP trains with Trellis from PyTorch's own weights, and
    its trained weights load back into the PyTorch module by name."""
    from trellis import layers as tl, optim
    from test_trainer import blobs

    torch.manual_seed(3)
    net = nn.Sequential(nn.Linear(6, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 3)).double()
    x0 = torch.zeros(16, 6, dtype=torch.float64)
    layer = tt.layer(net, (x0,))
    ev = blobs(64, 2)

    def torch_eval(module):
        logits = module(torch.tensor(ev["x"]))
        loss = F.cross_entropy(logits, torch.tensor(ev["y"]).long()).item()
        return loss, (logits.argmax(1).numpy() == ev["y"]).mean()

    # One step at learning rate 0: the eval after it sees PyTorch's weights.
    frozen = trellis.Trainer(layer, tl.CrossEntropyLoss(), inputs={"x": (6,), "y": ((), "i32")},
                             batch_size=16, optimizer=optim.SGD(0.0), dtype="f64")
    assert frozen.param_names == ["0.weight", "0.bias", "1.weight", "1.bias", "3.weight", "3.bias"]
    r = frozen.fit(blobs(256, 1), steps=1, output_dir=str(tmp_path / "frozen"), eval_data=ev,
                   initial_params=tt.parameters(net))
    loss, acc = torch_eval(net)
    # metrics.jsonl keeps 6 significant digits: 1e-5 relative.
    assert r.evals[-1]["loss"] == pytest.approx(loss, rel=1e-5)
    assert r.evals[-1]["accuracy"] == pytest.approx(acc)

    trainer = trellis.Trainer(layer, tl.CrossEntropyLoss(), inputs={"x": (6,), "y": ((), "i32")},
                              batch_size=16, optimizer=optim.Adam(1e-2), dtype="f64")
    r = trainer.fit(blobs(256, 1), steps=100, output_dir=str(tmp_path / "run"), eval_data=ev,
                    initial_params=dict(zip(tt.parameter_names(net), tt.parameters(net))))
    assert r.evals[-1]["accuracy"] >= 0.95
    net.load_state_dict({k: torch.tensor(v) for k, v in r.params.items()})
    loss, acc = torch_eval(net)
    assert loss == pytest.approx(r.evals[-1]["loss"], rel=1e-5) and acc == r.evals[-1]["accuracy"]


class CausalSelfAttention(nn.Module):
    """Hand-written causal self-attention: one fused QKV projection split
    with `split`, heads by view/transpose, explicit matmuls, a masked_fill
    of a buffer, softmax, and the heads merged back. As in nanoGPT, the
    mask buffer is `block_size` long and sliced to the sequence
    (`mask[:, :, :L, :L]`, L a traced size)."""

    def __init__(self, d=8, heads=2, length=5, scale=None, block_size=None):
        super().__init__()
        self.qkv, self.proj, self.heads, self.scale = nn.Linear(d, 3 * d), nn.Linear(d, d), heads, scale
        n = block_size or length
        self.length = length
        self.register_buffer("mask", torch.tril(torch.ones(n, n)).view(1, 1, n, n))

    def forward(self, x):
        B, L, D = x.size()
        q, k, v = self.qkv(x).split(D, dim=2)
        q = q.view(B, L, self.heads, D // self.heads).transpose(1, 2)
        k = k.view(B, L, self.heads, D // self.heads).transpose(1, 2)
        v = v.view(B, L, self.heads, D // self.heads).transpose(1, 2)
        scale = self.scale if self.scale is not None else 1.0 / math.sqrt(k.size(-1))
        s = (q @ k.transpose(-2, -1)) * scale
        s = s.masked_fill(self.mask[:, :, :L, :L] == 0, float("-inf"))
        y = (F.softmax(s, dim=-1) @ v).transpose(1, 2).contiguous().view(B, L, D)
        return self.proj(y)


class PermuteAttention(nn.Module):
    """The other spelling: three projections, heads by reshape/permute,
    `/ sqrt(d)`, an additive -inf mask, torch.matmul."""

    def __init__(self, d=12, heads=3, length=4, mask=None):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.heads, self.dh, self.length = heads, d // heads, length
        m = torch.triu(torch.full((length, length), float("-inf")), 1) if mask is None else mask
        self.register_buffer("mask", m)

    def forward(self, x):
        B, L, D = x.shape
        q, k, v = (f(x).reshape(B, L, self.heads, self.dh).permute(0, 2, 1, 3)
                   for f in (self.q, self.k, self.v))
        s = torch.matmul(q, k.permute(0, 1, 3, 2)) / math.sqrt(self.dh) + self.mask
        return torch.matmul(torch.softmax(s, -1), v).permute(0, 2, 1, 3).reshape(B, L, D)


class Loss(nn.Module):
    """mean(module(x) * c): a scalar of every output element."""

    def __init__(self, net, c):
        super().__init__()
        self.net = net
        self.register_buffer("c", c)

    def forward(self, x):
        return (self.net(x) * self.c).mean()


def check_output_and_grads(net, x):
    """The module's output, then the parameter gradients of mean(y * c);
    returns the exported text of the module."""
    torch.manual_seed(1)
    text = tt.export(net, (x,))
    (out,) = trellis.compile(text, "forward")(*tt.parameters(net), x.numpy())
    close(out, net(x).detach().numpy(), f"{type(net).__name__} forward")
    check(Loss(net, torch.randn(net(x).shape, dtype=torch.float64)), (x,))
    return text


@pytest.mark.parametrize("make", [lambda: CausalSelfAttention(), lambda: PermuteAttention(),
                                  lambda: CausalSelfAttention(block_size=9)],
                         ids=["view-transpose-masked_fill", "reshape-permute-additive-mask",
                              "nanogpt-mask-sliced-to-the-sequence"])
def test_hand_written_causal_attention_becomes_nn_attention(make):
    net = make().double()
    x = torch.randn(3, net.length, net.proj.in_features if hasattr(net, "proj") else 12,
                    dtype=torch.float64)
    text = check_output_and_grads(net, x)
    assert "nn.attention" in text and "causal = true" in text and f"num_heads = {net.heads}" in text
    # The op-by-op scores it replaced are gone, and so are the head split
    # and merge (they cancel against nn.attention's own).
    assert "batch_matmul" not in text and "nn.softmax" not in text and "linalg.transpose" in text
    assert text.count("linalg.transpose") == text.count("nn.dense"), text


def test_attention_pattern_that_does_not_match_is_imported_op_by_op():
    """A different scale, or a mask that is not causal: matmuls, the
    masked_fill as arith.select, the softmax; the same numbers as PyTorch."""
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    text = check_output_and_grads(CausalSelfAttention(scale=0.3).double(), x)
    assert "nn.attention" not in text and "linalg.batch_matmul" in text and "arith.select" in text
    band = torch.triu(torch.full((4, 4), float("-inf")), 2)  # j > i + 1 masked: not causal
    text = check_output_and_grads(PermuteAttention(mask=band).double(), torch.randn(2, 4, 12, dtype=torch.float64))
    assert "nn.attention" not in text and "nn.softmax" in text


class Slicing(nn.Module):
    """Slices, narrow, chunk, split, cat, stack, unsqueeze/squeeze."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):                                  # 4x3x6
        h = self.fc(x)
        a, b = h.chunk(2, dim=-1)                          # 4x3x3 each
        c = torch.cat([h[:, 1:3], x[..., :4][:, :2].sum() * h[:, :2]], 1)   # 4x4x6
        d = torch.narrow(h, 2, 1, 4)                       # 4x3x4
        e, f = torch.split(h, [2, 4], dim=2)               # 4x3x2, 4x3x4
        g = torch.stack([a, b * e[..., :1]], dim=1)        # 4x2x3x3
        s = h[:, 0] + h[2, None].squeeze(0)[0] + h[:, 2, :].unsqueeze(1)[:, 0]   # 4x6
        t = torch.cat((h, x), dim=-1)[1:, ::2, 3::4]       # 3x2x3, strides 2 and 4
        return (c.mean() + (d * a[..., 1:2]).mean() + torch.cat([f, g[:, 1, :, :2]], 2).mean()
                + (s * s).mean() + (t * t[:, :1]).mean() * 3.0)


def test_slicing_and_cat():
    m = Slicing().double()
    text = check(m, (torch.randn(4, 3, 6, dtype=torch.float64),))
    assert "tensor.extract_slice" in text and "tensor.concat" in text
    # a strided slice keeps its stride
    assert "[1, 2, 4]" in text


class Gather(nn.Module):
    def forward(self, x):
        return x[torch.tensor([0, 2])]


def test_indexing_with_a_tensor_names_its_line():
    with pytest.raises(tt.ExportError, match=r"indexing with Tensor \(only ints.* at .*test_torch.py:\d+$"):
        tt.export(Gather(), (torch.randn(3, 2),))


class SmallCNN(nn.Module):
    """Conv (stride, dilation, 'same'), batch norm in eval mode, both pools."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.p1 = nn.MaxPool2d(2)
        self.c2 = nn.Conv2d(4, 3, (3, 2), stride=(2, 1), dilation=(1, 2), padding="valid", bias=False)
        self.c3 = nn.Conv2d(3, 3, 3, padding="same")
        self.p2 = nn.AvgPool2d(2, stride=1, padding=1)
        self.fc = nn.Linear(3 * 2 * 3, 5)

    def forward(self, x, y):
        h = self.p1(torch.relu(self.bn(self.c1(x))))
        h = self.p2(torch.tanh(self.c3(self.c2(h))))
        return F.cross_entropy(self.fc(torch.flatten(h, 1)), y)


def test_conv_pool_batch_norm_import():
    m = SmallCNN().double()
    with torch.no_grad():  # running statistics away from 0 and 1
        m.bn.running_mean.uniform_(-0.5, 0.5)
        m.bn.running_var.uniform_(0.5, 2.0)
    m.eval()
    x = torch.randn(3, 2, 9, 8, dtype=torch.float64)
    y = torch.randint(0, 5, (3,))
    text = check(m, (x, y))
    for op in ("nn.conv2d", "nn.max_pool2d", "nn.avg_pool2d", "nn.batch_norm"):
        assert op in text


def test_batch_norm_in_training_mode_is_refused():
    m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2)).double()
    with pytest.raises(tt.ExportError, match="BatchNorm2d in training mode"):
        tt.export(m, (torch.randn(2, 1, 5, 5, dtype=torch.float64),))


def test_batch_norm_in_training_mode_as_a_layer(tmp_path):
    """trellis.torch.layer of a module with BatchNorm2d in training mode:
    its running statistics are the layer's state — updated as PyTorch does
    in mode 'train' (momentum 0.3, unbiased variance), read in mode 'eval' —
    and the gradients equal PyTorch's; a Trainer starts from the module's
    buffers (initial_params) and carries them."""
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3, momentum=0.3), nn.ReLU(),
                        nn.Flatten(), nn.Linear(3 * 5 * 4, 4)).double()
    with torch.no_grad():
        net[1].running_mean.uniform_(-0.5, 0.5)
        net[1].running_var.uniform_(0.5, 2.0)
        net[1].weight.uniform_(0.5, 1.5)
    x = torch.randn(6, 2, 5, 4, dtype=torch.float64)
    start = tt.initial_params(net)
    layer = tt.layer(net, (x,))
    model = tl.Model(layer, [tl.Input(x.shape, "f64")], dtype="f64")
    assert model.state_names == ["1.running_mean", "1.running_var"]
    # Tracing ran the module in training mode; its buffers did not move.
    assert np.array_equal(net[1].running_mean.numpy(), start["1.running_mean"])
    assert int(net[1].num_batches_tracked) == 0
    params = [start[n] for n in model.param_names]
    state = [start[n] for n in model.state_names]
    y, new_mean, new_var = model(params, x.numpy(), state=state)
    ref = net(x)  # training mode: updates the buffers once
    close(y, ref.detach().numpy(), "output (train)")
    close(new_mean, net[1].running_mean.numpy(), "new running mean")
    close(new_var, net[1].running_var.numpy(), "new running variance")

    c = torch.randn(ref.shape, dtype=torch.float64)

    def dot(b, out, w):
        return b.mean(b.binary("arith.mulf", out, w))

    loss = tl.Model(tl.Serial(tl.Parallel(layer, tl.Identity()), tl.Fn("dot", dot, n_in=2)),
                    [tl.Input(x.shape, "f64"), tl.Input(c.shape, "f64")], dtype="f64")
    (_, aux), grads = trellis.value_and_grad(loss)(params, x.numpy(), c.numpy(), state=state)
    close(aux[0], net[1].running_mean.numpy(), "new running mean as aux of value_and_grad")
    net.zero_grad()
    (net(torch.tensor(x.numpy())) * c).mean().backward()
    for name, g in zip(model.param_names, grads):
        close(g, dict(net.named_parameters())[name].grad.numpy(), f"gradient of {name}")

    ev = tl.Model(layer, [tl.Input(x.shape, "f64")], dtype="f64", mode="eval")
    (ye,) = ev(params, x.numpy(), state=state)
    close(ye, copy_in_eval(net, start)(x).detach().numpy(), "output (eval, running statistics)")

    # A Trainer from the module's weights and buffers, learning rate 0: after
    # one step of the whole data the statistics moved once.
    yl = np.arange(6, dtype=np.int32) % 4
    trainer = trellis.Trainer(layer, tl.CrossEntropyLoss(),
                              {"x": ((2, 5, 4), "f64"), "y": ((), "i32")}, batch_size=6,
                              optimizer=trellis.optim.SGD(0.0), dtype="f64")
    r = trainer.fit({"x": x.numpy(), "y": yl}, steps=1, output_dir=str(tmp_path / "bn"),
                    initial_params=start)
    h = net[0](x).detach().permute(0, 2, 3, 1).reshape(-1, 3).numpy()
    close(r.params["1.running_mean"], 0.7 * start["1.running_mean"] + 0.3 * h.mean(0),
          "trained running mean", rtol=1e-9, atol=1e-12)
    close(r.params["1.running_var"], 0.7 * start["1.running_var"] + 0.3 * h.var(0, ddof=1),
          "trained running variance", rtol=1e-9, atol=1e-12)


def copy_in_eval(net, start):
    """A copy of `net` in eval mode with the running statistics of `start`."""
    import copy
    m = copy.deepcopy(net).eval()
    with torch.no_grad():
        m[1].running_mean.copy_(torch.tensor(start["1.running_mean"]))
        m[1].running_var.copy_(torch.tensor(start["1.running_var"]))
    return m
