"""Optimizers, learning-rate schedules and gradient clipping, written once
and emitted into a training step's IR (trellis.train.step_module).

Hyper-parameters are arguments of these constructors; the emitted step
computes the schedule from its own step counter, so nothing is baked into a
hand-written file. The update rules follow PyTorch's torch.optim (SGD with
momentum and optional Nesterov, Adam with L2 weight decay, AdamW with
decoupled weight decay) and torch.nn.utils.clip_grad_norm_, so that a step
of either agrees (python/tests/test_optim.py).
"""

import math


class Scalars:
    """Emits scalar arithmetic of element type `ft` (f32 or f64) into a
    Builder's current body; values are SSA names (strings)."""

    def __init__(self, b, ft):
        self.b, self.ft = b, ft

    def const(self, x):
        name = self.b.fresh("c")
        self.b.emit(f"{name} = arith.constant {float(x):.17e} : {self.ft}")
        return name

    def op(self, op, *args):
        name = self.b.fresh(op.split(".")[-1])
        self.b.emit(f"{name} = {op} {', '.join(args)} : {self.ft}")
        return name

    def add(self, a, c):
        return self.op("arith.addf", a, c)

    def sub(self, a, c):
        return self.op("arith.subf", a, c)

    def mul(self, a, c):
        return self.op("arith.mulf", a, c)

    def div(self, a, c):
        return self.op("arith.divf", a, c)

    def min(self, a, c):
        return self.op("arith.minimumf", a, c)

    def max(self, a, c):
        return self.op("arith.maximumf", a, c)

    def select_lt(self, a, c, if_less, otherwise):
        cond = self.b.fresh("lt")
        self.b.emit(f"{cond} = arith.cmpf olt, {a}, {c} : {self.ft}")
        name = self.b.fresh("sel")
        self.b.emit(f"{name} = arith.select {cond}, {if_less}, {otherwise} : {self.ft}")
        return name


# -- schedules ------------------------------------------------------------

class Schedule:
    """A learning rate as a function of the 0-based step s."""

    def __call__(self, s):
        raise NotImplementedError

    def emit(self, sc, s):
        """Emits the rate at step `s` (an SSA scalar); returns its name."""
        raise NotImplementedError


class Constant(Schedule):
    def __init__(self, value):
        self.value = float(value)

    def __call__(self, s):
        return self.value

    def emit(self, sc, s):
        return sc.const(self.value)


class WarmupCosine(Schedule):
    """Linear warm-up to `peak` over `warmup_steps` (step s gets
    peak·(s+1)/warmup_steps), then a cosine decay to `end` at `total_steps`:
    end + (peak − end)·(1 + cos(π·p))/2 with p = min(1, (s − warmup)/(total − warmup))."""

    def __init__(self, peak, warmup_steps, total_steps, end=0.0):
        if warmup_steps < 0 or total_steps < warmup_steps:
            raise ValueError("WarmupCosine needs 0 <= warmup_steps <= total_steps")
        self.peak, self.warmup, self.total, self.end = float(peak), int(warmup_steps), int(total_steps), float(end)

    def __call__(self, s):
        if s < self.warmup:
            return self.peak * (s + 1) / self.warmup
        p = min(1.0, (s - self.warmup) / max(1, self.total - self.warmup))
        return self.end + (self.peak - self.end) * 0.5 * (1.0 + math.cos(math.pi * p))

    def emit(self, sc, s):
        one = sc.const(1.0)
        decay_p = sc.min(one, sc.div(sc.sub(s, sc.const(self.warmup)),
                                     sc.const(max(1, self.total - self.warmup))))
        cosv = sc.op("math.cos", sc.mul(sc.const(math.pi), decay_p))
        decay = sc.add(sc.const(self.end),
                       sc.mul(sc.const(0.5 * (self.peak - self.end)), sc.add(one, cosv)))
        if self.warmup == 0:
            return decay
        warm = sc.mul(sc.const(self.peak / self.warmup), sc.add(s, one))
        return sc.select_lt(s, sc.const(self.warmup), warm, decay)


class Warmup(Schedule):
    """Linear warm-up to `peak` over `warmup_steps`, then constant."""

    def __init__(self, peak, warmup_steps):
        self.peak, self.warmup = float(peak), int(warmup_steps)

    def __call__(self, s):
        return self.peak * min(1.0, (s + 1) / self.warmup)

    def emit(self, sc, s):
        return sc.mul(sc.const(self.peak),
                      sc.min(sc.const(1.0), sc.div(sc.add(s, sc.const(1.0)), sc.const(self.warmup))))


def Cosine(peak, total_steps, end=0.0):
    """Cosine decay from `peak` to `end` over `total_steps`."""
    return WarmupCosine(peak, 0, total_steps, end)


def _schedule(lr):
    return lr if isinstance(lr, Schedule) else Constant(lr)


# -- optimizers -----------------------------------------------------------

class Optimizer:
    """`state` names the per-parameter slots (zeros at the start); `prepare`
    emits the scalars of a step; `update` emits the element-wise rule inside
    a linalg.generic body, returning the new parameter and slots."""

    state = ()

    def __init__(self, lr):
        self.schedule = _schedule(lr)

    def prepare(self, sc, s, t):
        return {"lr": self.schedule.emit(sc, s)}

    def update(self, sc, k, p, g, slots):
        raise NotImplementedError


class SGD(Optimizer):
    """PyTorch's SGD: g += wd·p; buf = μ·buf + g; step along buf (or g + μ·buf
    with Nesterov); p −= lr·step."""

    def __init__(self, lr, momentum=0.0, nesterov=False, weight_decay=0.0):
        super().__init__(lr)
        if nesterov and momentum <= 0:
            raise ValueError("Nesterov momentum needs momentum > 0")
        self.momentum, self.nesterov, self.weight_decay = momentum, nesterov, weight_decay
        self.state = ("momentum_buffer",) if momentum else ()

    def update(self, sc, k, p, g, slots):
        if self.weight_decay:
            g = sc.add(g, sc.mul(k["wd"], p))
        new = []
        step = g
        if self.momentum:
            buf = sc.add(sc.mul(k["mu"], slots[0]), g)
            new = [buf]
            step = sc.add(g, sc.mul(k["mu"], buf)) if self.nesterov else buf
        return sc.sub(p, sc.mul(k["lr"], step)), new

    def prepare(self, sc, s, t):
        k = super().prepare(sc, s, t)
        k["mu"], k["wd"] = sc.const(self.momentum), sc.const(self.weight_decay)
        return k


class Adam(Optimizer):
    """PyTorch's Adam (weight_decay: L2, added to the gradient)."""

    state = ("exp_avg", "exp_avg_sq")
    decoupled = False

    def __init__(self, lr, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.0):
        super().__init__(lr)
        self.b1, self.b2, self.eps, self.weight_decay = b1, b2, eps, weight_decay

    def prepare(self, sc, s, t):
        k = super().prepare(sc, s, t)
        one = sc.const(1.0)
        # b^t as exp(t·ln b): t is the 1-based step.
        bc1 = sc.sub(one, sc.op("math.exp", sc.mul(t, sc.const(math.log(self.b1)))))
        bc2 = sc.sub(one, sc.op("math.exp", sc.mul(t, sc.const(math.log(self.b2)))))
        k["step_size"] = sc.div(k["lr"], bc1)
        k["sqrt_bc2"] = sc.op("math.sqrt", bc2)
        for name, v in (("b1", self.b1), ("b2", self.b2), ("c1", 1 - self.b1),
                        ("c2", 1 - self.b2), ("eps", self.eps), ("wd", self.weight_decay)):
            k[name] = sc.const(v)
        if self.decoupled:
            k["decay"] = sc.sub(one, sc.mul(k["lr"], k["wd"]))
        return k

    def update(self, sc, k, p, g, slots):
        m, v = slots
        if self.decoupled:
            p = sc.mul(p, k["decay"])
        elif self.weight_decay:
            g = sc.add(g, sc.mul(k["wd"], p))
        m = sc.add(sc.mul(k["b1"], m), sc.mul(k["c1"], g))
        v = sc.add(sc.mul(k["b2"], v), sc.mul(k["c2"], sc.mul(g, g)))
        denom = sc.add(sc.div(sc.op("math.sqrt", v), k["sqrt_bc2"]), k["eps"])
        return sc.sub(p, sc.mul(k["step_size"], sc.div(m, denom))), [m, v]


class AdamW(Adam):
    """PyTorch's AdamW: p ·= 1 − lr·wd before the Adam step."""

    decoupled = True

    def __init__(self, lr, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01):
        super().__init__(lr, b1, b2, eps, weight_decay)
