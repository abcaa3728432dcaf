"""The emitted training step against PyTorch's optimizers in f64: SGD
(momentum, Nesterov, weight decay), Adam, AdamW, the warm-up and cosine
schedules and global-norm gradient clipping (torch.nn.utils.clip_grad_norm_),
five steps on changing batches; parameters, optimizer state and losses agree
to 1e-9 relative."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import trellis
from trellis import layers as tl, optim

from conftest import close

B, K, H, C = 4, 5, 6, 3
STEPS = 5


def make_step(optimizer, clip_norm):
    text = trellis.step_module(tl.Serial(tl.Dense(H), tl.Tanh(), tl.Dense(C)), tl.CrossEntropyLoss(),
                               {"x": (K,), "y": ((), "i32")}, B, optimizer, clip_norm, dtype="f64")
    return trellis.compile(text, "train_step"), trellis.compile(text, "eval")


def torch_forward(p, x):
    return torch.tanh(x @ p[0] + p[1]) @ p[2] + p[3]


CASES = [
    ("sgd", lambda: optim.SGD(0.1), lambda p, lr: torch.optim.SGD(p, lr=lr), None),
    ("sgd-momentum-nesterov-wd-clip", lambda: optim.SGD(0.05, momentum=0.9, nesterov=True, weight_decay=1e-2),
     lambda p, lr: torch.optim.SGD(p, lr=lr, momentum=0.9, nesterov=True, weight_decay=1e-2), 0.3),
    ("adam-warmup", lambda: optim.Adam(optim.Warmup(1e-2, 3), b1=0.8, b2=0.95, eps=1e-6, weight_decay=1e-3),
     lambda p, lr: torch.optim.Adam(p, lr=lr, betas=(0.8, 0.95), eps=1e-6, weight_decay=1e-3), None),
    ("adamw-warmup-cosine-clip", lambda: optim.AdamW(optim.WarmupCosine(2e-2, 2, 5, end=1e-3), weight_decay=0.1),
     lambda p, lr: torch.optim.AdamW(p, lr=lr, weight_decay=0.1), 0.5),
]


@pytest.mark.parametrize("name,ours,theirs,clip", CASES, ids=[c[0] for c in CASES])
def test_steps_match_pytorch(name, ours, theirs, clip):
    opt = ours()
    step_fn, eval_fn = make_step(opt, clip)
    rng = np.random.default_rng(1)
    params = [rng.standard_normal(s) * 0.7 for s in ((K, H), (H,), (H, C), (C,))]
    slots = [np.zeros_like(p) for _ in opt.state for p in params]
    step = np.zeros((), np.float64)

    tp = [torch.tensor(p, requires_grad=True) for p in params]
    topt = theirs(tp, opt.schedule(0))
    clipped = 0
    for s in range(STEPS):
        x = rng.standard_normal((B, K)) * 2
        y = rng.integers(0, C, B).astype(np.int32)
        out = step_fn(*params, *slots, step, x, y)
        n = len(params)
        params, slots, step, loss = (list(out[:n]), list(out[n:len(out) - 2]),
                                     out[-2], out[-1])
        tloss = F.cross_entropy(torch_forward(tp, torch.tensor(x)), torch.tensor(y).long())
        topt.zero_grad()
        tloss.backward()
        if clip is not None:
            norm = torch.nn.utils.clip_grad_norm_(tp, clip)
            clipped += float(norm) > clip
        for group in topt.param_groups:
            group["lr"] = opt.schedule(s)
        topt.step()
        close(loss, tloss.item(), f"{name} loss at step {s}")
        assert float(step) == s + 1
        for i, (a, t) in enumerate(zip(params, tp)):
            close(a, t.detach().numpy(), f"{name} parameter {i} after step {s}")
        state_keys = {"momentum_buffer": "momentum_buffer", "exp_avg": "exp_avg",
                      "exp_avg_sq": "exp_avg_sq"}
        for j, slot_name in enumerate(opt.state):
            for i, t in enumerate(tp):
                close(slots[j * n + i], topt.state[t][state_keys[slot_name]].numpy(),
                      f"{name} {slot_name} of parameter {i} after step {s}")
    if clip is not None:
        assert clipped > 0, "the clipping threshold never bit: the test would not see it"

    # @eval: the loss and the accuracy on a batch, against NumPy.
    x = rng.standard_normal((B, K))
    y = rng.integers(0, C, B).astype(np.int32)
    loss, acc = eval_fn(*params, *slots, step, x, y)
    logits = torch_forward([torch.tensor(p) for p in params], torch.tensor(x)).numpy()
    close(loss, F.cross_entropy(torch.tensor(logits), torch.tensor(y).long()).item(), "eval loss")
    assert float(acc) == np.mean(np.argmax(logits, 1) == y)


def test_schedules():
    s = optim.WarmupCosine(1.0, 4, 14, end=0.1)
    assert [s(i) for i in range(4)] == [0.25, 0.5, 0.75, 1.0]
    assert s(9) == pytest.approx(0.55)          # half way: (peak + end) / 2
    assert s(14) == pytest.approx(0.1) and s(100) == pytest.approx(0.1)
    assert optim.Cosine(2.0, 10)(0) == 2.0
    w = optim.Warmup(3.0, 3)
    assert [w(i) for i in range(5)] == [1.0, 2.0, 3.0, 3.0, 3.0]
    with pytest.raises(ValueError):
        optim.WarmupCosine(1.0, 5, 3)


def test_emitted_schedule_matches_its_definition():
    """The schedule IR (through an SGD step of mean(x·w + b) on x = 1, whose
    bias gradient is 1, so the bias moves by the learning rate) against the Python formula, over 20 steps."""
    sched = optim.WarmupCosine(0.5, 5, 15, end=0.05)
    text = trellis.step_module(tl.Serial(tl.Dense(1), tl.Mean()), tl.Fn("id", lambda b, x: x),
                               {"x": (1,)}, 1, optim.SGD(sched), dtype="f64", accuracy=False)
    f = trellis.compile(text, "train_step")
    w, b, step = np.zeros((1, 1)), np.zeros(1), np.zeros(())
    for s in range(20):
        w2, b2, step, _ = f(w, b, step, np.ones((1, 1)))
        close(b - b2, [sched(s)], f"learning rate at step {s}", rtol=1e-12)
        w, b = w2, b2
