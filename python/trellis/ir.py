"""Emits MLIR text for the `nn`, `ad` and upstream ops the layers use.

A `Builder` collects the lines of one function body. Layers call it while a
model is traced (trellis.layers.Model); parameters become the function's
leading arguments, the inputs follow. The op syntax is the `nn` dialect's
(SPEC.md's op catalogue, test/Dialect/NN/ops.mlir).
"""

import math

# Element type names: MLIR <-> NumPy.
NUMPY_OF = {"f32": "float32", "f64": "float64", "i32": "int32",
            "i64": "int64", "ui32": "uint32"}


def ty(shape, dtype="f32"):
    """The MLIR tensor type of `shape` and `dtype`: ty((2, 3)) is tensor<2x3xf32>."""
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def float_attr(x):
    """An F32Attr literal."""
    if math.isinf(x) or math.isnan(x):
        raise ValueError(f"attribute value {x} is not finite")
    return f"{float(x):.9e} : f32"


def i64_array(values):
    return f"array<i64: {', '.join(str(int(v)) for v in values)}>"


class Value:
    """An SSA value with its static shape and element type."""

    def __init__(self, name, shape, dtype="f32"):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype

    @property
    def type(self):
        return ty(self.shape, self.dtype)

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"Value({self.name}: {self.type})"


class Param:
    """A trainable parameter: its name, shape, element type and initializer
    (trellis.init: glorot_uniform, he_normal, zeros, ones or
    normal:<stddev>)."""

    def __init__(self, name, shape, dtype, init, value):
        self.name, self.shape, self.dtype, self.init = name, tuple(shape), dtype, init
        self.value = value

    def __repr__(self):
        return f"Param({self.name}: {ty(self.shape, self.dtype)}, init={self.init})"


class ShapeError(ValueError):
    """A layer got inputs it cannot take (raised while tracing a model)."""


def resolve_shape(shape, x):
    """`shape` for the elements of `x` (a Value), its one -1 (if any)
    standing for the rest; a ShapeError if the element counts differ."""
    shape = tuple(int(d) for d in shape)
    n, known = math.prod(x.shape), math.prod(d for d in shape if d != -1)
    if shape.count(-1) == 1 and known and n % known == 0:
        shape = tuple(n // known if d == -1 else d for d in shape)
    if math.prod(shape) != n or any(d < 0 for d in shape):
        raise ShapeError(f"cannot reshape {x.type} ({n} elements) to {shape}")
    return shape


class Builder:
    """The lines of one function body, with fresh SSA names."""

    def __init__(self, dtype="f32", mode="train"):
        if dtype not in ("f32", "f64"):
            raise ValueError(f"model dtype must be 'f32' or 'f64', got {dtype!r}")
        self.dtype, self.mode = dtype, mode
        self.lines, self.counter, self.depth = [], 0, 1
        self.params, self._param_of = [], {}
        # Layer state (batch norm's running statistics): non-trainable
        # arguments after the parameters, and their new values in mode
        # 'train' (Trax's pure_fn(x, weights, state) -> (y, new_state)).
        self.states, self.new_states = [], {}
        self._names, self._scopes = {}, {}
        self.rng, self._keys = None, 0

    # -- names and lines -------------------------------------------------
    def fresh(self, hint="v"):
        self.counter += 1
        return f"%{hint}{self.counter}"

    def emit(self, text):
        self.lines.append("  " * self.depth + text)

    def unique_name(self, kind):
        """layer names: dense_0, dense_1, layer_norm_0, ..."""
        k = self._names.get(kind, 0)
        self._names[kind] = k + 1
        return f"{kind}_{k}"

    def param(self, layer, local, shape, init):
        """The parameter `local` of `layer` (one per layer object: a layer used
        twice shares its weights, as in Trax)."""
        key = (id(layer), local)
        if key in self._param_of:
            p = self._param_of[key]
            if p.shape != tuple(shape):
                raise ShapeError(f"{layer.name}: shared parameter {p.name} has shape "
                                 f"{p.shape}, the second use needs {tuple(shape)}")
            return p.value
        if layer.kind and id(layer) not in self._scopes:
            self._scopes[id(layer)] = self.unique_name(layer.kind)
        # A layer without a kind (an imported module) names its parameters.
        name = f"{self._scopes[id(layer)]}.{local}" if layer.kind else local
        v = Value(f"%p{len(self.params)}", shape, self.dtype)
        p = Param(name, shape, self.dtype, init, v)
        self.params.append(p)
        self._param_of[key] = p
        return v

    def state(self, layer, local, shape, init):
        """The state `local` of `layer` (not trained; named like parameters)."""
        key = (id(layer), "state", local)
        if key in self._param_of:
            return self._param_of[key].value
        if layer.kind and id(layer) not in self._scopes:
            self._scopes[id(layer)] = self.unique_name(layer.kind)
        name = f"{self._scopes[id(layer)]}.{local}" if layer.kind else local
        v = Value(f"%state{len(self.states)}", shape, self.dtype)
        p = Param(name, shape, self.dtype, init, v)
        self.states.append(p)
        self._param_of[key] = p
        return v

    def set_state(self, state, new):
        """`new` is the value of `state` (a Value from state()) after the call."""
        if state.name in self.new_states:
            raise ShapeError(f"the state {state} is updated twice: a stateful layer "
                             "used twice in one model is not supported")
        self.new_states[state.name] = new

    def dropout_key(self):
        """A distinct tensor<2xi32> key per dropout layer, from the model's
        `rng` argument: rng + [k, 0] for the k-th dropout."""
        if self.rng is None:
            self.rng = Value("%rng", (2,), "i32")
        k, self._keys = self._keys, self._keys + 1
        if k == 0:
            return self.rng
        c = Value(self.fresh("kc"), (2,), "i32")
        self.emit(f"{c} = arith.constant dense<[{k}, 0]> : {c.type}")
        r = Value(self.fresh("key"), (2,), "i32")
        self.emit(f"{r} = arith.addi {self.rng}, {c} : {r.type}")
        return r

    # -- checks ----------------------------------------------------------
    def require_float(self, layer, x):
        if x.dtype not in ("f32", "f64"):
            raise ShapeError(f"{layer} expects a float tensor, got {x.type}")

    # -- ops -------------------------------------------------------------
    def dense(self, x, w, b):
        r = Value(self.fresh("dense"), x.shape[:-1] + (w.shape[1],), x.dtype)
        self.emit(f"{r} = nn.dense {x}, {w}, {b} : ({x.type}, {w.type}, {b.type}) -> {r.type}")
        return r

    def unary(self, op, x, attrs=""):
        r = Value(self.fresh(op.split(".")[-1]), x.shape, x.dtype)
        self.emit(f"{r} = {op} {x}{attrs} : {x.type}")
        return r

    def binary(self, op, a, b):
        r = Value(self.fresh(op.split(".")[-1]), a.shape, a.dtype)
        self.emit(f"{r} = {op} {a}, {b} : {a.type}")
        return r

    def layer_norm(self, x, scale, bias, epsilon):
        r = Value(self.fresh("ln"), x.shape, x.dtype)
        self.emit(f"{r} = nn.layer_norm {x}, {scale}, {bias} {{epsilon = {float_attr(epsilon)}}}"
                  f" : ({x.type}, {scale.type}, {bias.type}) -> {r.type}")
        return r

    def embedding(self, ids, table):
        r = Value(self.fresh("emb"), ids.shape + (table.shape[1],), table.dtype)
        self.emit(f"{r} = nn.embedding {ids}, {table} : ({ids.type}, {table.type}) -> {r.type}")
        return r

    def attention(self, q, k, v, num_heads, causal):
        r = Value(self.fresh("att"), q.shape, q.dtype)
        c = "true" if causal else "false"
        self.emit(f"{r} = nn.attention {q}, {k}, {v} {{num_heads = {num_heads} : i64, causal = {c}}}"
                  f" : ({q.type}, {k.type}, {v.type}) -> {r.type}")
        return r

    def dropout(self, x, key, rate):
        r = Value(self.fresh("drop"), x.shape, x.dtype)
        self.emit(f"{r} = nn.dropout {x}, {key} {{rate = {float_attr(rate)}}}"
                  f" : ({x.type}, {key.type}) -> {r.type}")
        return r

    def conv2d(self, x, w, bias, strides, padding, dilations):
        n, h, wd, _ = x.shape
        kh, kw, _, f = w.shape
        oh = (h + padding[0] + padding[1] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
        ow = (wd + padding[2] + padding[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
        r = Value(self.fresh("conv"), (n, oh, ow, f), x.dtype)
        self.emit(f"{r} = nn.conv2d {x}, {w}, {bias} {{strides = {i64_array(strides)}, "
                  f"padding = {i64_array(padding)}, dilations = {i64_array(dilations)}}}"
                  f" : ({x.type}, {w.type}, {bias.type}) -> {r.type}")
        return r

    def pool2d(self, op, x, window, strides, padding):
        n, h, w, c = x.shape
        oh = (h + padding[0] + padding[1] - window[0]) // strides[0] + 1
        ow = (w + padding[2] + padding[3] - window[1]) // strides[1] + 1
        r = Value(self.fresh("pool"), (n, oh, ow, c), x.dtype)
        self.emit(f"{r} = nn.{op} {x} {{window = {i64_array(window)}, strides = {i64_array(strides)}, "
                  f"padding = {i64_array(padding)}}} : ({x.type}) -> {r.type}")
        return r

    def batch_norm(self, x, scale, bias, mean, var, epsilon, momentum, training):
        """Returns (y, new_mean, new_var)."""
        base = self.fresh("bn")
        c = (x.shape[-1],)
        self.emit(f"{base}:3 = nn.batch_norm {x}, {scale}, {bias}, {mean}, {var} "
                  f"{{epsilon = {float_attr(epsilon)}, momentum = {float_attr(momentum)}, "
                  f"training = {'true' if training else 'false'}}}"
                  f" : ({x.type}, {scale.type}, {bias.type}, {mean.type}, {var.type})"
                  f" -> ({x.type}, {mean.type}, {var.type})")
        return (Value(f"{base}#0", x.shape, x.dtype), Value(f"{base}#1", c, x.dtype),
                Value(f"{base}#2", c, x.dtype))

    def flatten(self, x):
        m = 1
        for d in x.shape[1:]:
            m *= d
        r = Value(self.fresh("flat"), (x.shape[0], m), x.dtype)
        self.emit(f"{r} = nn.flatten {x} : ({x.type}) -> {r.type}")
        return r

    def mean(self, x):
        r = Value(self.fresh("mean"), (), x.dtype)
        self.emit(f"{r} = nn.mean {x} : ({x.type}) -> {r.type}")
        return r

    def cross_entropy(self, logits, labels):
        r = Value(self.fresh("xent"), (), logits.dtype)
        self.emit(f"{r} = nn.cross_entropy {logits}, {labels}"
                  f" : ({logits.type}, {labels.type}) -> {r.type}")
        return r

    def reshape(self, x, shape):
        """`x` in the row-major `shape` of as many elements (one -1 stands
        for the rest): a collapse to 1-D and an expand, or just one of them."""
        shape = resolve_shape(shape, x)
        n = math.prod(x.shape)
        if shape == x.shape:
            return x
        if not shape or not x.shape:  # to or from a scalar: all other sizes are 1
            r = Value(self.fresh("resh"), shape, x.dtype)
            if not shape:
                self.emit(f"{r} = tensor.collapse_shape {x} [] : {x.type} into {r.type}")
            else:
                self.emit(f"{r} = tensor.expand_shape {x} [] output_shape "
                          f"[{', '.join(map(str, shape))}] : {x.type} into {r.type}")
            return r
        flat = x
        if len(x.shape) != 1:
            flat = Value(self.fresh("flat"), (n,), x.dtype)
            groups = "[" + ", ".join(map(str, range(len(x.shape)))) + "]"
            self.emit(f"{flat} = tensor.collapse_shape {x} [{groups}] : {x.type} into {flat.type}")
        if len(shape) == 1:
            return flat
        r = Value(self.fresh("resh"), shape, x.dtype)
        groups = "[" + ", ".join(map(str, range(len(shape)))) + "]"
        self.emit(f"{r} = tensor.expand_shape {flat} [{groups}] output_shape "
                  f"[{', '.join(map(str, shape))}] : {flat.type} into {r.type}")
        return r

    def slice(self, x, offsets, sizes, strides=None):
        """x[offsets : offsets + sizes·strides : strides] (tensor.extract_slice)."""
        strides = list(strides) if strides is not None else [1] * len(x.shape)
        if not len(offsets) == len(sizes) == len(strides) == len(x.shape):
            raise ShapeError(f"a slice of {x.type} needs {len(x.shape)} offsets, sizes and strides")
        for d, (o, z, st) in enumerate(zip(offsets, sizes, strides)):
            if o < 0 or z < 0 or st < 1 or (z and o + (z - 1) * st >= x.shape[d]):
                raise ShapeError(f"slice [{o}, size {z}, stride {st}] out of range for "
                                 f"dimension {d} of {x.type}")
        if list(sizes) == list(x.shape):
            return x
        r = Value(self.fresh("slice"), tuple(sizes), x.dtype)
        j = lambda xs: ", ".join(map(str, xs))
        self.emit(f"{r} = tensor.extract_slice {x}[{j(offsets)}] [{j(sizes)}] [{j(strides)}] "
                  f": {x.type} to {r.type}")
        return r

    def region_op(self, op, operands, block_args, body):
        """Emits `op` with one region: block arguments `block_args` (values
        whose names are fresh), `body()` returning the values to yield. The
        op returns as many values as it takes, of their types (the
        reversible ops), then the layer state the body updates (a BatchNorm
        in a RevNet block): it is yielded after the body's values, and the
        op's trailing results become the state's new values. Returns the
        op's leading results."""
        base = self.fresh(op.split(".")[-1])
        types = ", ".join(v.type for v in operands)
        head = len(self.lines)
        self.emit("")  # the op's line, once its number of results is known
        self.emit("^bb0(" + ", ".join(f"{a}: {a.type}" for a in block_args) + "):")
        self.depth += 1
        before = set(self.new_states)
        yielded = body()
        updated = [k for k in self.new_states if k not in before]
        out = list(yielded) + [self.new_states[k] for k in updated]
        self.emit(f"nn.yield {', '.join(map(str, out))} : "
                  f"{', '.join(v.type for v in out)}")
        self.depth -= 1
        self.emit("}")
        total = len(operands) + len(updated)
        results = f"{base}:{total}" if total > 1 else base
        self.lines[head] = ("  " * self.depth +
                            f"{results} = {op} {', '.join(map(str, operands))} : {types} {{")
        name = (lambda i: f"{base}#{i}") if total > 1 else (lambda i: base)
        for i, k in enumerate(updated):
            v = self.new_states[k]
            self.new_states[k] = Value(name(len(operands) + i), v.shape, v.dtype)
        return [Value(name(i), v.shape, v.dtype) for i, v in enumerate(operands)]

    def swap(self, a, b):
        base = self.fresh("swap")
        self.emit(f"{base}:2 = nn.reversible_swap {a}, {b} : {a.type}, {b.type}")
        return [Value(f"{base}#0", b.shape, b.dtype), Value(f"{base}#1", a.shape, a.dtype)]


def signature(values, attrs=None):
    attrs = attrs or [""] * len(values)
    return ",\n    ".join(f"{v}: {v.type}{a}" for v, a in zip(values, attrs))


def function(name, args, results, body_lines, private=False, arg_attrs=None,
             result_attrs=None):
    """The text of `func.func @name(args) -> (results)` around `body_lines`."""
    rtypes = [v.type + (result_attrs[i] if result_attrs else "")
              for i, v in enumerate(results)]
    vis = "private " if private else ""
    out = [f"func.func {vis}@{name}({signature(args, arg_attrs)})\n    -> ({', '.join(rtypes)}) {{"]
    out += body_lines
    out.append(f"  return {', '.join(map(str, results))} : {', '.join(v.type for v in results)}")
    out.append("}")
    return "\n".join(out) + "\n"
