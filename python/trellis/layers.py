"""Layers in Trax's style that build `nn` IR.

A layer takes `n_in` values from the top of a stack and puts `n_out` back
(Trax's data-stack convention); combinators (Serial, Branch, Parallel,
Residual, the reversible ones) compose layers. Shapes are not declared but
inferred when a `Model` traces the layer on its input shapes; parameters are
created then, with their initializers, and become the leading arguments of
the emitted function.

    model = Model(Serial(Dense(64), Relu(), Dense(10)), inputs=[(32, 16)])
    print(model.function("forward"))       # func.func @forward(%p0, ..., %x0)
    params = model.init(seed=0)            # NumPy arrays, model.param_names
    logits, = model(params, x)             # JIT-compiled once
"""

import math

import numpy as np

from . import ir
from .ir import ShapeError


class Layer:
    """Base class: `forward(b, xs)` emits the layer's ops with Builder `b`
    on its `n_in` input values and returns its `n_out` outputs."""

    kind = "layer"
    n_in, n_out = 1, 1

    def forward(self, b, xs):
        raise NotImplementedError

    @property
    def name(self):
        return type(self).__name__

    def __repr__(self):
        return type(self).__name__

    # Shape-only evaluation, for users who want to know a layer's outputs.
    def output_shapes(self, *inputs, dtype="f32"):
        return [v.shape for v in Model(self, list(inputs), dtype=dtype).outputs]


def _layer(x):
    if x is None:
        return Identity()
    if isinstance(x, (list, tuple)):
        return Serial(*x)
    if not isinstance(x, Layer):
        raise TypeError(f"{x!r} is not a layer")
    return x


def _serial_arity(layers):
    need, have = 0, 0
    for layer in layers:
        if layer.n_in > have:
            need += layer.n_in - have
            have = layer.n_in
        have += layer.n_out - layer.n_in
    return need, have


def _run_serial(b, layers, xs):
    stack = list(xs)
    for layer in layers:
        args, stack = stack[:layer.n_in], stack[layer.n_in:]
        outs = layer.forward(b, args)
        if len(outs) != layer.n_out:
            raise ShapeError(f"{layer!r} returned {len(outs)} values, declared {layer.n_out}")
        stack = list(outs) + stack
    return stack


# -- combinators ----------------------------------------------------------

class Serial(Layer):
    """Runs layers one after the other on the stack."""

    def __init__(self, *layers):
        flat = []
        for x in layers:
            if isinstance(x, (list, tuple)):
                flat += [_layer(y) for y in x]
            elif x is not None:
                flat.append(_layer(x))
        self.layers = flat
        self.n_in, self.n_out = _serial_arity(flat)

    def forward(self, b, xs):
        return _run_serial(b, self.layers, xs)

    def __repr__(self):
        return f"Serial({', '.join(map(repr, self.layers))})"


class Identity(Layer):
    def __init__(self, n=1):
        self.n_in = self.n_out = n

    def forward(self, b, xs):
        return list(xs)


class Select(Layer):
    """Trax's Select: outputs inputs[indices[0]], inputs[indices[1]], ..."""

    def __init__(self, indices, n_in=None):
        self.indices = list(indices)
        self.n_in = n_in if n_in is not None else max(self.indices) + 1
        self.n_out = len(self.indices)

    def forward(self, b, xs):
        return [xs[i] for i in self.indices]


def Dup():
    return Select([0, 0])


def Swap():
    return Select([1, 0])


class Branch(Layer):
    """Each layer sees (copies of) the same inputs; outputs are concatenated."""

    def __init__(self, *layers):
        self.layers = [_layer(x) for x in layers]
        self.n_in = max(layer.n_in for layer in self.layers)
        self.n_out = sum(layer.n_out for layer in self.layers)

    def forward(self, b, xs):
        outs = []
        for layer in self.layers:
            outs += layer.forward(b, xs[:layer.n_in])
        return outs


class Parallel(Layer):
    """Layer i takes its own n_in inputs, in order."""

    def __init__(self, *layers):
        self.layers = [_layer(x) for x in layers]
        self.n_in = sum(layer.n_in for layer in self.layers)
        self.n_out = sum(layer.n_out for layer in self.layers)

    def forward(self, b, xs):
        outs, k = [], 0
        for layer in self.layers:
            outs += layer.forward(b, xs[k:k + layer.n_in])
            k += layer.n_in
        return outs


class Fn(Layer):
    """A layer from a function `f(builder, *xs) -> value or list of values`."""

    def __init__(self, name, f, n_in=1, n_out=1):
        self.kind, self.f, self.n_in, self.n_out = name, f, n_in, n_out

    def forward(self, b, xs):
        out = self.f(b, *xs)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def __repr__(self):
        return self.kind


def _same_shapes(name, a, c):
    if a.shape != c.shape or a.dtype != c.dtype:
        raise ShapeError(f"{name}: operands {a.type} and {c.type} differ")


def Add():
    def add(b, x, y):
        _same_shapes("Add", x, y)
        return b.binary("arith.addf", x, y)
    return Fn("Add", add, n_in=2)


def Multiply():
    def mul(b, x, y):
        _same_shapes("Multiply", x, y)
        return b.binary("arith.mulf", x, y)
    return Fn("Multiply", mul, n_in=2)


def Residual(*layers, shortcut=None):
    """x -> layers(x) + shortcut(x) (Trax's Residual)."""
    return Serial(Branch(Serial(*layers), shortcut), Add())


# -- layers with weights --------------------------------------------------

class Dense(Layer):
    """x·W + b over the last dimension (nn.dense): W is K×n_units."""

    kind = "dense"

    def __init__(self, n_units, kernel_init="glorot_uniform", bias_init="zeros"):
        self.n_units, self.kernel_init, self.bias_init = n_units, kernel_init, bias_init

    def forward(self, b, xs):
        (x,) = xs
        b.require_float(self, x)
        if not x.shape:
            raise ShapeError(f"Dense expects a tensor of rank >= 1, got {x.type}")
        w = b.param(self, "weight", (x.shape[-1], self.n_units), self.kernel_init)
        bias = b.param(self, "bias", (self.n_units,), self.bias_init)
        return [b.dense(x, w, bias)]

    def __repr__(self):
        return f"Dense({self.n_units})"


class LayerNorm(Layer):
    """Normalizes the last dimension; scale (ones) and bias (zeros)."""

    kind = "layer_norm"

    def __init__(self, epsilon=1e-6):
        self.epsilon = epsilon

    def forward(self, b, xs):
        (x,) = xs
        b.require_float(self, x)
        d = x.shape[-1]
        scale = b.param(self, "weight", (d,), "ones")
        bias = b.param(self, "bias", (d,), "zeros")
        return [b.layer_norm(x, scale, bias, self.epsilon)]


class Embedding(Layer):
    """Rows of a vocab_size×d_feature table, indexed by int32 ids."""

    kind = "embedding"

    def __init__(self, vocab_size, d_feature, init="normal:1.0"):
        self.vocab_size, self.d_feature, self.init = vocab_size, d_feature, init

    def forward(self, b, xs):
        (ids,) = xs
        if ids.dtype != "i32":
            raise ShapeError(f"Embedding expects int32 ids, got {ids.type}")
        table = b.param(self, "weight", (self.vocab_size, self.d_feature), self.init)
        return [b.embedding(ids, table)]

    def __repr__(self):
        return f"Embedding({self.vocab_size}, {self.d_feature})"


class Attention(Layer):
    """Self-attention over BxLxD: Q, K, V projections (Dense D->D), nn.attention
    with `n_heads` heads (causal or not), an output projection."""

    kind = "attention"

    def __init__(self, n_heads=1, causal=False):
        self.n_heads, self.causal = n_heads, causal

    def forward(self, b, xs):
        (x,) = xs
        b.require_float(self, x)
        if len(x.shape) != 3:
            raise ShapeError(f"Attention expects BxLxD, got {x.type}")
        d = x.shape[-1]
        if d % self.n_heads:
            raise ShapeError(f"Attention: {self.n_heads} heads do not divide D = {d}")
        proj = []
        for name in ("q", "k", "v"):
            w = b.param(self, f"{name}.weight", (d, d), "glorot_uniform")
            bias = b.param(self, f"{name}.bias", (d,), "zeros")
            proj.append(b.dense(x, w, bias))
        a = b.attention(*proj, self.n_heads, self.causal)
        wo = b.param(self, "out.weight", (d, d), "glorot_uniform")
        bo = b.param(self, "out.bias", (d,), "zeros")
        return [b.dense(a, wo, bo)]

    def __repr__(self):
        return f"Attention(n_heads={self.n_heads}, causal={self.causal})"


def CausalAttention(n_heads=1):
    return Attention(n_heads, causal=True)


# -- layers without weights -----------------------------------------------

class _Unary(Layer):
    op, attrs = "", ""

    def forward(self, b, xs):
        (x,) = xs
        b.require_float(self, x)
        return [b.unary(self.op, x, self.attrs)]


class Relu(_Unary):
    op = "nn.relu"


class Tanh(_Unary):
    op = "nn.tanh"


class Gelu(_Unary):
    """GELU; approximate=True is the tanh form."""

    op = "nn.gelu"

    def __init__(self, approximate=False):
        self.attrs = " {approximate = true}" if approximate else ""


class Softmax(_Unary):
    op = "nn.softmax"


class LogSoftmax(_Unary):
    op = "nn.log_softmax"


class Dropout(Layer):
    """Inverted dropout (nn.dropout). Its mask comes from the model's `rng`
    argument (a 2xint32 key: a model with dropout takes it after its inputs);
    in mode 'eval' the layer is the identity."""

    def __init__(self, rate=0.0):
        if not 0.0 <= rate < 1.0:
            raise ValueError(f"Dropout rate must be in [0, 1), got {rate}")
        self.rate = rate

    def forward(self, b, xs):
        (x,) = xs
        if b.mode != "train":
            return [x]
        b.require_float(self, x)
        return [b.dropout(x, b.dropout_key(), self.rate)]

    def __repr__(self):
        return f"Dropout({self.rate})"


class Sigmoid(_Unary):
    op = "nn.sigmoid"


def _pair(v, what):
    if isinstance(v, int):
        return (v, v)
    t = tuple(int(a) for a in v)
    if len(t) != 2 or min(t) < 1:
        raise ValueError(f"{what} must be a positive int or a pair of them, got {v!r}")
    return t


def _padding(padding, hw, window, strides, dilations, what):
    """(top, bottom, left, right) from 'VALID', 'SAME' (Trax's and
    TensorFlow's: ceil(size / stride) outputs, the odd padding pixel at the
    bottom and right) or four explicit numbers."""
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return (0, 0, 0, 0)
        if mode == "SAME":
            out = []
            for size, k, st, d in zip(hw, window, strides, dilations):
                total = max((-(-size // st) - 1) * st + d * (k - 1) + 1 - size, 0)
                out += [total // 2, total - total // 2]
            return tuple(out)
    else:
        t = tuple(int(a) for a in padding)
        if len(t) == 4 and min(t) >= 0:
            return t
    raise ValueError(f"{what} padding must be 'VALID', 'SAME' or (top, bottom, left, "
                     f"right) >= 0, got {padding!r}")


def _require_nhwc(layer, x):
    if len(x.shape) != 4:
        raise ShapeError(f"{layer!r} expects NxHxWxC images, got {x.type}")


class Conv(Layer):
    """2-D convolution of NxHxWxC images (nn.conv2d, Trax's Conv): a
    KHxKWxCx`filters` kernel and a bias; `padding` 'VALID', 'SAME' or
    (top, bottom, left, right). The kernel's default initializer is
    he_normal (fan-in KH·KW·C)."""

    kind = "conv"

    def __init__(self, filters, kernel_size, strides=1, padding="VALID", dilation=1,
                 kernel_init="he_normal", bias_init="zeros"):
        self.filters = int(filters)
        self.kernel = _pair(kernel_size, "Conv kernel_size")
        self.strides = _pair(strides, "Conv strides")
        self.dilation = _pair(dilation, "Conv dilation")
        self.padding, self.kernel_init, self.bias_init = padding, kernel_init, bias_init

    def forward(self, b, xs):
        (x,) = xs
        b.require_float(self, x)
        _require_nhwc(self, x)
        pad = _padding(self.padding, x.shape[1:3], self.kernel, self.strides, self.dilation, "Conv")
        for i in range(2):
            span = self.dilation[i] * (self.kernel[i] - 1) + 1
            if x.shape[1 + i] + pad[2 * i] + pad[2 * i + 1] < span:
                raise ShapeError(f"{self!r}: the {span}-wide window does not fit {x.type} "
                                 f"padded by {pad}")
        w = b.param(self, "weight", self.kernel + (x.shape[3], self.filters), self.kernel_init)
        bias = b.param(self, "bias", (self.filters,), self.bias_init)
        return [b.conv2d(x, w, bias, self.strides, pad, self.dilation)]

    def __repr__(self):
        return f"Conv({self.filters}, {self.kernel})"


class _Pool(Layer):
    op = ""

    def __init__(self, pool_size=(2, 2), strides=None, padding="VALID"):
        self.window = _pair(pool_size, f"{type(self).__name__} pool_size")
        self.strides = self.window if strides is None else _pair(strides, "strides")
        self.padding = padding

    def forward(self, b, xs):
        (x,) = xs
        b.require_float(self, x)
        _require_nhwc(self, x)
        pad = _padding(self.padding, x.shape[1:3], self.window, self.strides, (1, 1),
                       type(self).__name__)
        for i in range(2):
            if x.shape[1 + i] + pad[2 * i] + pad[2 * i + 1] < self.window[i]:
                raise ShapeError(f"{self!r}: the window does not fit {x.type}")
        return [b.pool2d(self.op, x, self.window, self.strides, pad)]

    def __repr__(self):
        return f"{type(self).__name__}({self.window})"


class MaxPool(_Pool):
    """Window maximum over NxHxWxC (nn.max_pool2d); strides default to the
    window; padding never wins."""

    op = "max_pool2d"


class AvgPool(_Pool):
    """Window mean over NxHxWxC (nn.avg_pool2d); padded taps count as zeros
    (PyTorch's count_include_pad)."""

    op = "avg_pool2d"


class BatchNorm(Layer):
    """Batch normalization over all dimensions but the last (nn.batch_norm),
    with a scale (ones) and a bias (zeros). Its running mean (zeros) and
    variance (ones) are layer **state**: mode 'train' normalizes with the
    batch statistics and returns the state updated with `momentum` in
    PyTorch's convention (new = (1 − momentum)·old + momentum·batch, the
    unbiased batch variance; Trax's `momentum=0.999` is this 0.001); mode
    'eval' normalizes with the state and leaves it."""

    kind = "batch_norm"

    def __init__(self, epsilon=1e-5, momentum=0.1):
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"BatchNorm momentum must be in [0, 1], got {momentum}")
        if not epsilon > 0.0:
            raise ValueError(f"BatchNorm epsilon must be positive, got {epsilon}")
        self.epsilon, self.momentum = epsilon, momentum

    def forward(self, b, xs):
        (x,) = xs
        b.require_float(self, x)
        if not x.shape:
            raise ShapeError(f"BatchNorm expects a tensor of rank >= 1, got {x.type}")
        c = (x.shape[-1],)
        scale = b.param(self, "weight", c, "ones")
        bias = b.param(self, "bias", c, "zeros")
        mean = b.state(self, "running_mean", c, "zeros")
        var = b.state(self, "running_var", c, "ones")
        training = b.mode == "train"
        positions = int(np.prod(x.shape[:-1], dtype=np.int64))
        if training and positions < 2:
            raise ShapeError(f"BatchNorm in mode 'train' needs at least 2 positions per "
                             f"channel, {x.type} has {positions}")
        y, new_mean, new_var = b.batch_norm(x, scale, bias, mean, var, self.epsilon,
                                            self.momentum, training)
        if training:
            b.set_state(mean, new_mean)
            b.set_state(var, new_var)
        return [y]


class Flatten(Layer):
    """Nx... -> NxM, row-major (nn.flatten)."""

    def forward(self, b, xs):
        (x,) = xs
        b.require_float(self, x)
        if not x.shape:
            raise ShapeError(f"Flatten expects a tensor of rank >= 1, got {x.type}")
        return [b.flatten(x)]


class Slice(Layer):
    """x[..., start:stop, ...] along `axis` (tensor.extract_slice): e.g. the
    positions of a sequence whose next tokens are scored."""

    def __init__(self, start, stop, axis=1):
        self.start, self.stop, self.axis = int(start), int(stop), int(axis)

    def forward(self, b, xs):
        (x,) = xs
        if not -len(x.shape) <= self.axis < len(x.shape):
            raise ShapeError(f"{self!r}: no axis {self.axis} in {x.type}")
        axis = self.axis % len(x.shape)
        if not 0 <= self.start < self.stop <= x.shape[axis]:
            raise ShapeError(f"{self!r}: [{self.start}:{self.stop}] is not a non-empty "
                             f"range of dimension {axis} of {x.type}")
        offsets, sizes = [0] * len(x.shape), list(x.shape)
        offsets[axis], sizes[axis] = self.start, self.stop - self.start
        return [b.slice(x, offsets, sizes)]

    def __repr__(self):
        return f"Slice({self.start}, {self.stop}, axis={self.axis})"


class Reshape(Layer):
    """The row-major reshape to `shape`, batch dimension included (static,
    as every Trellis shape; one -1 stands for the rest): e.g. Reshape(-1, D)
    merges the batch and sequence dimensions of a BxLxD tensor."""

    def __init__(self, *shape):
        self.shape = tuple(int(d) for d in shape)
        if sum(d == -1 for d in self.shape) > 1 or any(d < -1 or d == 0 for d in self.shape):
            raise ValueError(f"Reshape{self.shape}: sizes must be positive, with at most one -1")

    def forward(self, b, xs):
        (x,) = xs
        try:
            return [b.reshape(x, self.shape)]
        except ShapeError as e:
            raise ShapeError(f"{self!r}: {e}") from None

    def __repr__(self):
        return f"Reshape{self.shape}"


class Mean(Layer):
    """The mean of all elements, a scalar."""

    def forward(self, b, xs):
        (x,) = xs
        b.require_float(self, x)
        return [b.mean(x)]


class CrossEntropyLoss(Layer):
    """(logits BxC, labels B int32) -> mean cross-entropy, a scalar."""

    n_in = 2

    def forward(self, b, xs):
        logits, labels = xs
        if len(logits.shape) != 2 or labels.dtype != "i32" or labels.shape != logits.shape[:1]:
            raise ShapeError(f"CrossEntropyLoss expects logits BxC and int32 labels B, "
                             f"got {logits.type} and {labels.type}")
        return [b.cross_entropy(logits, labels)]


# -- reversible layers ----------------------------------------------------

class ReversibleSwap(Layer):
    """(a, b) -> (b, a) (nn.reversible_swap)."""

    n_in = n_out = 2

    def forward(self, b, xs):
        return b.swap(*xs)


class ReversibleHalfResidual(Layer):
    """(acc, ctx...) -> (acc + residual(ctx...), ctx...)
    (nn.reversible_half_residual; Trax's ReversibleHalfResidual)."""

    def __init__(self, *residual_layers):
        self.residual = Serial(*residual_layers)
        if self.residual.n_out != 1:
            raise ValueError("ReversibleHalfResidual: the residual layers must "
                             f"leave one value, they leave {self.residual.n_out}")
        self.n_in = self.n_out = 1 + max(1, self.residual.n_in)

    def forward(self, b, xs):
        acc, ctx = xs[0], xs[1:]
        args = [ir.Value(b.fresh("c"), c.shape, c.dtype) for c in ctx]

        def body():
            (r,) = self.residual.forward(b, args[:self.residual.n_in])
            if r.shape != acc.shape or r.dtype != acc.dtype:
                raise ShapeError(f"ReversibleHalfResidual: the residual is {r.type}, "
                                 f"the accumulator {acc.type}")
            return [r]

        return b.region_op("nn.reversible_half_residual", xs, args, body)


class ReversibleSerial(Layer):
    """A stack of reversible layers (nn.reversible_serial): its backward
    pass reconstructs the activations instead of storing them."""

    def __init__(self, *layers):
        self.body = Serial(*layers)
        if self.body.n_in != self.body.n_out:
            raise ValueError("ReversibleSerial: the layers must keep the number of "
                             f"values, they take {self.body.n_in} and leave {self.body.n_out}")
        self.n_in = self.n_out = self.body.n_in

    def forward(self, b, xs):
        args = [ir.Value(b.fresh("r"), x.shape, x.dtype) for x in xs]
        return b.region_op("nn.reversible_serial", xs, args,
                           lambda: self.body.forward(b, args))


# -- models ---------------------------------------------------------------

def _input_spec(spec, dtype):
    if isinstance(spec, Input):
        return spec
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and isinstance(spec[1], str):
        return Input(spec[0], spec[1])
    return Input(tuple(spec), dtype)


class Input:
    """An input of a model: its shape (batch dimension included) and element
    type ('f32', 'f64', 'i32')."""

    def __init__(self, shape, dtype="f32"):
        self.shape, self.dtype = tuple(shape), dtype


def init_array(init, shape, dtype, rng):
    """A NumPy array drawn from `init` (trellis.init's names, docs/training.md)."""
    np_dtype = ir.NUMPY_OF[dtype]
    if init == "zeros":
        return np.zeros(shape, np_dtype)
    if init == "ones":
        return np.ones(shape, np_dtype)
    if init == "glorot_uniform":
        fan_in, fan_out = shape[-2], shape[-1]
        limit = math.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, shape).astype(np_dtype)
    if init == "he_normal":
        fan_in = math.prod(shape[:-1])
        return (math.sqrt(2.0 / fan_in) * rng.standard_normal(shape)).astype(np_dtype)
    if init.startswith("normal:"):
        return (float(init[7:]) * rng.standard_normal(shape)).astype(np_dtype)
    raise ValueError(f"unknown initializer {init!r} "
                     "(glorot_uniform, he_normal, zeros, ones or normal:<stddev>)")


class Model:
    """A layer traced on the shapes of its inputs.

    `params` (trellis.ir.Param: name, shape, dtype, init) are the emitted
    function's leading arguments, in the order the layers create them; the
    layer state (`state`, e.g. BatchNorm's running statistics) follows, then
    the inputs, then, if a Dropout runs (mode 'train'), `rng` (2xint32). In
    mode 'train' the function returns the outputs and then the new state
    (`results`).
    """

    def __init__(self, layer, inputs, dtype="f32", mode="train"):
        self.layer = _layer(layer)
        self.dtype, self.mode = dtype, mode
        self.inputs = [_input_spec(s, dtype) for s in inputs]
        if len(self.inputs) != self.layer.n_in:
            raise ShapeError(f"{self.layer!r} takes {self.layer.n_in} inputs, "
                             f"the model declares {len(self.inputs)}")
        b = ir.Builder(dtype, mode)
        self.input_values = [ir.Value(f"%x{i}", s.shape, s.dtype)
                             for i, s in enumerate(self.inputs)]
        self.outputs = self.layer.forward(b, self.input_values)
        self.params = b.params
        self.state = b.states
        self.new_state = ([b.new_states.get(p.value.name, p.value) for p in b.states]
                          if mode == "train" else [])
        self.rng = b.rng
        self.body = b.lines
        self._compiled = {}

    @property
    def param_names(self):
        return [p.name for p in self.params]

    @property
    def param_shapes(self):
        return [p.shape for p in self.params]

    @property
    def state_names(self):
        return [p.name for p in self.state]

    @property
    def args(self):
        """The emitted function's arguments: parameters, state, inputs, rng."""
        return ([p.value for p in self.params] + [p.value for p in self.state] +
                self.input_values + ([self.rng] if self.rng is not None else []))

    @property
    def results(self):
        """The emitted function's results: the outputs, then (mode 'train')
        the new state."""
        return self.outputs + self.new_state

    def function(self, name="forward", private=False, param_attrs=False):
        """The model as `func.func @name(params..., state..., inputs...[, rng])`."""
        attrs = None
        if param_attrs:
            attrs = ([f' {{trellis.init = "{p.init}"}}' for p in self.params + self.state] +
                     [""] * (len(self.args) - len(self.params) - len(self.state)))
        return ir.function(name, self.args, self.results, self.body, private,
                           arg_attrs=attrs)

    def init(self, seed=0):
        """Initial parameters as NumPy arrays (NumPy's generator seeded with
        `seed`; trellis-train draws its own from the same distributions)."""
        rng = np.random.default_rng(seed)
        return [init_array(p.init, p.shape, p.dtype, rng) for p in self.params]

    def init_state(self):
        """The initial layer state (zeros and ones: not random)."""
        return [init_array(p.init, p.shape, p.dtype, None) for p in self.state]

    def compile(self, **options):
        """The JIT-compiled @forward: f(*params, *inputs[, rng]) -> tuple."""
        from . import compile as _compile
        key = tuple(sorted(options.items()))
        if key not in self._compiled:
            self._compiled[key] = _compile(self.function("forward"), "forward", **options)
        return self._compiled[key]

    def __call__(self, params, *inputs, rng=None, state=None):
        """The outputs (and, in mode 'train', the new state) on `params`,
        `inputs` and `state` (default: the initial state)."""
        extra = []
        if self.rng is not None:
            extra = [np.asarray(rng if rng is not None else (0, 0), np.int32)]
        state = self.init_state() if state is None else list(state)
        return self.compile()(*params, *state, *inputs, *extra)
