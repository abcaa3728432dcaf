"""PyTorch import: a torch.nn.Module as `nn` IR, through torch.fx.

    text = trellis.torch.export(module, (x,))       # func.func @forward
    params = trellis.torch.parameters(module)       # NumPy, named_parameters() order
    f = trellis.compile(text, "forward"); out = f(*params, x.numpy())

@forward's arguments are the module's parameters in named_parameters()
order, then the example arguments (integer tensors become int32: ids and
labels), then, if a Dropout runs in training mode, `rng` (2xint32). Its
results are the module's outputs. Supported: nn.Linear, ReLU, GELU, Tanh,
Sigmoid, LayerNorm (over the last dimension), Embedding, Dropout, MultiheadAttention
(to nn.attention; causal when attn_mask is the causal mask), Softmax /
LogSoftmax (last dimension), CrossEntropyLoss (mean), Flatten, Identity, and
add, sub, mul, div, relu, gelu, tanh, sigmoid, softmax, log_softmax,
cross_entropy, mean / sum (of the whole tensor), reshape / view / flatten,
transpose / permute as functions or methods.
Anything else is one ExportError naming it and its source line.
"""

import math
import operator

import numpy as np
import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.passes.shape_prop import ShapeProp

from . import ir


class ExportError(ValueError):
    """A module or function export does not support, with its source line."""


_DTYPES = {torch.float32: "f32", torch.float64: "f64", torch.int32: "i32", torch.int64: "i32"}


def _where(node):
    trace = getattr(node, "stack_trace", None) or ""
    # Innermost frame first: the first one outside torch itself.
    torch_dir = torch.__file__.rsplit("/", 1)[0]
    lines = [l.strip() for l in trace.splitlines() if l.strip().startswith("File ")
             and torch_dir not in l]
    if lines:
        # File "x.py", line 12, in forward
        parts = lines[0].split(",")
        path = parts[0][len("File "):].strip().strip('"')
        line = parts[1].strip().split()[-1] if len(parts) > 1 else "?"
        return f"{path}:{line}"
    return "unknown source line"


class _Tracer(torch.fx.Tracer):
    record_stack_traces = True


class Exported:
    """An exported module: `text` (MLIR with @forward), `args` (the
    function's arguments: parameters, inputs, rng), `param_names`."""

    def __init__(self, text, args, param_names, n_inputs, outputs, rng):
        self.text, self.args, self.param_names = text, args, param_names
        self.n_inputs, self.outputs, self.rng = n_inputs, outputs, rng


def _last_dim(dim, rank, what, node):
    if dim is None:
        raise ExportError(f"{what} without dim at {_where(node)}: give dim=-1")
    if dim not in (-1, rank - 1):
        raise ExportError(f"{what} over dim {dim} of a rank-{rank} tensor at {_where(node)}: "
                          "only the last dimension is supported")


class _Emitter:
    def __init__(self, gm, dtype):
        self.gm, self.b, self.dtype = gm, ir.Builder(dtype), dtype
        self.values = {}

    def const(self, value, shape, dtype):
        r = ir.Value(self.b.fresh("cst"), shape, dtype)
        lit = repr(float(value)) if dtype.startswith("f") else str(int(value))
        self.b.emit(f"{r} = arith.constant dense<{lit}> : {r.type}")
        return r

    def transpose(self, x, perm):
        perm = [p % len(x.shape) for p in perm]
        if perm == list(range(len(x.shape))):
            return x
        shape = tuple(x.shape[p] for p in perm)
        e = self.b.fresh("empty")
        r = ir.Value(self.b.fresh("tr"), shape, x.dtype)
        self.b.emit(f"{e} = tensor.empty() : {ir.ty(shape, x.dtype)}")
        self.b.emit(f"{r} = linalg.transpose ins({x} : {x.type}) outs({e} : {r.type}) "
                    f"permutation = [{', '.join(map(str, perm))}]")
        return r

    def reshape(self, x, shape):
        shape = tuple(shape)
        n = int(np.prod(x.shape, dtype=np.int64))
        if -1 in shape:
            known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
            shape = tuple(n // known if d == -1 else d for d in shape)
        if shape == x.shape:
            return x
        flat = x
        if len(x.shape) != 1:
            flat = ir.Value(self.b.fresh("flat"), (n,), x.dtype)
            groups = "[" + ", ".join(map(str, range(len(x.shape)))) + "]"
            self.b.emit(f"{flat} = tensor.collapse_shape {x} [{groups}] : {x.type} into {flat.type}")
        if len(shape) == 1:
            return flat
        r = ir.Value(self.b.fresh("resh"), shape, x.dtype)
        groups = "[" + ", ".join(map(str, range(len(shape)))) + "]"
        self.b.emit(f"{r} = tensor.expand_shape {flat} [{groups}] output_shape "
                    f"[{', '.join(map(str, shape))}] : {flat.type} into {r.type}")
        return r

    def broadcast_to(self, x, shape, node):
        """NumPy broadcasting of `x` to `shape` (linalg.broadcast)."""
        shape = tuple(shape)
        if x.shape == shape:
            return x
        lead = len(shape) - len(x.shape)
        # Drop x's size-1 dimensions that are broadcast, then add them back.
        keep = [i for i, d in enumerate(x.shape) if d == shape[lead + i]]
        for i, d in enumerate(x.shape):
            if d != shape[lead + i] and d != 1:
                raise ExportError(f"cannot broadcast {x.type} to {shape} at {_where(node)}")
        squeezed = self.reshape(x, tuple(x.shape[i] for i in keep)) if len(keep) != len(x.shape) else x
        added = [d for d in range(len(shape)) if d - lead not in keep]
        if not squeezed.shape:  # a scalar: a filled tensor
            e = self.b.fresh("empty")
            v = self.b.fresh("elt")
            r = ir.Value(self.b.fresh("bc"), shape, x.dtype)
            self.b.emit(f"{v} = tensor.extract {squeezed}[] : {squeezed.type}")
            self.b.emit(f"{e} = tensor.empty() : {r.type}")
            self.b.emit(f"{r} = linalg.fill ins({v} : {x.dtype}) outs({e} : {r.type}) -> {r.type}")
            return r
        e = self.b.fresh("empty")
        r = ir.Value(self.b.fresh("bc"), shape, x.dtype)
        self.b.emit(f"{e} = tensor.empty() : {r.type}")
        self.b.emit(f"{r} = linalg.broadcast ins({squeezed} : {squeezed.type}) outs({e} : {r.type}) "
                    f"dimensions = [{', '.join(map(str, added))}]")
        return r

    def binary(self, op, a, c, node):
        shape = _meta_shape(node)
        if not isinstance(a, ir.Value):
            a = self.const(a, (), self.dtype)
        if not isinstance(c, ir.Value):
            c = self.const(c, (), self.dtype)
        a, c = self.broadcast_to(a, shape, node), self.broadcast_to(c, shape, node)
        return self.b.binary(op, a, c)

    def sigmoid(self, x):
        # 1 / (1 + e^-x) as (1 + tanh(x / 2)) / 2: no nn.sigmoid yet.
        half = self.const(0.5, x.shape, x.dtype)
        one = self.const(1.0, x.shape, x.dtype)
        t = self.b.unary("nn.tanh", self.b.binary("arith.mulf", x, half))
        return self.b.binary("arith.mulf", self.b.binary("arith.addf", t, one), half)


def _is_causal_mask(mask, n):
    upper = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    if tuple(mask.shape) != (n, n):
        return False
    if mask.dtype == torch.bool:
        return bool(torch.equal(mask, upper))
    return bool(torch.all(torch.isneginf(mask) == upper)) and bool(torch.all(mask[~upper] == 0))


def _multihead_attention(em, mod, node, args, kwargs, p, gm):
    """nn.MultiheadAttention (self- or cross-attention, no attention
    weights) as three projections, nn.attention and the output projection;
    an attn_mask is accepted when it is the causal mask (a module buffer or
    constant tensor), which becomes causal = true."""
    where = _where(node)
    names = ["query", "key", "value", "key_padding_mask", "need_weights", "attn_mask"]
    bound = dict(zip(names, args))
    bound.update(kwargs)
    if bound.get("key_padding_mask") is not None:
        raise ExportError(f"MultiheadAttention with key_padding_mask at {where}")
    if not mod._qkv_same_embed_dim or mod.bias_k is not None or mod.add_zero_attn:
        raise ExportError(f"MultiheadAttention with kdim/vdim, add_bias_kv or add_zero_attn at {where}")
    if mod.training and mod.dropout > 0:
        raise ExportError(f"MultiheadAttention with dropout in training mode at {where}")
    q, k, vv = bound["query"], bound["key"], bound["value"]
    if not mod.batch_first:  # LxBxD -> BxLxD
        q, k, vv = (em.transpose(t, [1, 0, 2]) for t in (q, k, vv))
    causal = False
    mask = bound.get("attn_mask")
    if mask is not None:
        tensor = None
        if isinstance(mask, torch.fx.Node) and mask.op == "get_attr":
            tensor = gm
            for part in mask.target.split("."):
                tensor = getattr(tensor, part)
        elif isinstance(mask, torch.Tensor):
            tensor = mask
        if tensor is None or not _is_causal_mask(tensor, q.shape[1]) or q.shape[1] != k.shape[1]:
            raise ExportError(f"MultiheadAttention attn_mask at {where}: only the causal mask "
                              "(True or -inf above the diagonal, a buffer or constant) is supported")
        causal = True
    b, d = em.b, mod.embed_dim
    w, bias = p(mod.in_proj_weight), (p(mod.in_proj_bias) if mod.in_proj_bias is not None else None)
    proj = []
    for i, x in enumerate((q, k, vv)):
        wi = ir.Value(b.fresh("w"), (d, d), w.dtype)
        b.emit(f"{wi} = tensor.extract_slice {w}[{i * d}, 0] [{d}, {d}] [1, 1] : {w.type} to {wi.type}")
        if bias is not None:
            bi = ir.Value(b.fresh("b"), (d,), w.dtype)
            b.emit(f"{bi} = tensor.extract_slice {bias}[{i * d}] [{d}] [1] : {bias.type} to {bi.type}")
        else:
            bi = em.const(0.0, (d,), w.dtype)
        proj.append(b.dense(x, em.transpose(wi, [1, 0]), bi))
    a = b.attention(*proj, mod.num_heads, causal)
    ob = p(mod.out_proj.bias) if mod.out_proj.bias is not None else em.const(0.0, (d,), w.dtype)
    out = b.dense(a, em.transpose(p(mod.out_proj.weight), [1, 0]), ob)
    if not mod.batch_first:
        out = em.transpose(out, [1, 0, 2])
    return (out, None)


def _meta_shape(node):
    meta = node.meta.get("tensor_meta")
    if meta is None or not hasattr(meta, "shape"):
        raise ExportError(f"{node.format_node()} at {_where(node)}: no tensor result")
    return tuple(meta.shape)


_BINARY = {operator.add: "arith.addf", torch.add: "arith.addf", operator.sub: "arith.subf",
           torch.sub: "arith.subf", operator.mul: "arith.mulf", torch.mul: "arith.mulf",
           operator.truediv: "arith.divf", torch.div: "arith.divf"}
_UNARY_FN = {F.relu: "relu", torch.relu: "relu", torch.tanh: "tanh", F.tanh: "tanh",
             torch.sigmoid: "sigmoid", F.sigmoid: "sigmoid", F.gelu: "gelu"}
_METHOD_BINARY = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "div": "arith.divf"}


def trace(module, example_args):
    """Traces `module` on `example_args`; returns an Exported."""
    if not isinstance(example_args, (tuple, list)):
        example_args = (example_args,)
    params = list(module.named_parameters())
    dtypes = {p.dtype for _, p in params}
    dtypes |= {a.dtype for a in example_args if torch.is_floating_point(a)}
    if len(dtypes) > 1:
        raise ExportError(f"the parameters and inputs mix element types {sorted(map(str, dtypes))}")
    fdt = dtypes.pop() if dtypes else torch.float32
    if fdt not in (torch.float32, torch.float64):
        raise ExportError(f"element type {fdt} is not supported (float32, float64)")
    dtype = _DTYPES[fdt]
    graph = _Tracer().trace(module)
    gm = torch.fx.GraphModule(module, graph)
    ShapeProp(gm).propagate(*example_args)
    em = _Emitter(gm, dtype)
    b = em.b
    param_values = [ir.Value(f"%p{i}", tuple(p.shape), dtype) for i, (_, p) in enumerate(params)]
    by_id = {id(p): v for (_, p), v in zip(params, param_values)}
    inputs = []
    v = em.values
    outputs = None
    rng = None

    def arg(a):
        if isinstance(a, torch.fx.Node):
            return v[a]
        return a

    def value(a, node):
        """An operand that must be an IR value (not a buffer)."""
        if isinstance(a, torch.Tensor):
            raise ExportError(f"a tensor attribute (buffer or constant) used by {node.format_node()} "
                              f"at {_where(node)}: only parameters are exported")
        return a

    for node in gm.graph.nodes:
        where = _where(node)
        if node.op == "placeholder":
            ex = example_args[len(inputs)]
            if ex.dtype not in _DTYPES:
                raise ExportError(f"input {node.name} has element type {ex.dtype}")
            val = ir.Value(f"%x{len(inputs)}", tuple(ex.shape), _DTYPES[ex.dtype])
            inputs.append(val)
            v[node] = val
        elif node.op == "get_attr":
            obj = gm
            for part in node.target.split("."):
                obj = getattr(obj, part)
            # A buffer or constant stays a torch.Tensor: only the layers that
            # read it as an attribute (MultiheadAttention's mask) accept one.
            v[node] = by_id.get(id(obj), obj)
        elif node.op == "call_module":
            mod = gm.get_submodule(node.target)
            x = arg(node.args[0]) if node.args else None

            def p(t):
                return by_id[id(t)]

            if isinstance(mod, nn.Linear):
                w = em.transpose(p(mod.weight), [1, 0])
                bias = p(mod.bias) if mod.bias is not None else em.const(0.0, (mod.out_features,), dtype)
                v[node] = b.dense(x, w, bias)
            elif isinstance(mod, nn.ReLU):
                v[node] = b.unary("nn.relu", x)
            elif isinstance(mod, nn.Tanh):
                v[node] = b.unary("nn.tanh", x)
            elif isinstance(mod, nn.GELU):
                v[node] = b.unary("nn.gelu", x, " {approximate = true}" if mod.approximate == "tanh" else "")
            elif isinstance(mod, nn.Sigmoid):
                v[node] = em.sigmoid(x)
            elif isinstance(mod, nn.LayerNorm):
                if len(mod.normalized_shape) != 1:
                    raise ExportError(f"LayerNorm over {tuple(mod.normalized_shape)} at {where}: "
                                      "only the last dimension is supported")
                d = mod.normalized_shape[0]
                scale = p(mod.weight) if mod.elementwise_affine else em.const(1.0, (d,), dtype)
                bias = p(mod.bias) if mod.elementwise_affine else em.const(0.0, (d,), dtype)
                v[node] = b.layer_norm(x, scale, bias, mod.eps)
            elif isinstance(mod, nn.Embedding):
                if mod.padding_idx is not None or mod.max_norm is not None:
                    raise ExportError(f"Embedding with padding_idx or max_norm at {where}")
                v[node] = b.embedding(x, p(mod.weight))
            elif isinstance(mod, nn.Dropout):
                if mod.training and mod.p > 0:
                    if rng is None:
                        rng = b.rng = ir.Value("%rng", (2,), "i32")
                    v[node] = b.dropout(x, b.dropout_key(), mod.p)
                else:
                    v[node] = x
            elif isinstance(mod, (nn.Softmax, nn.LogSoftmax)):
                _last_dim(mod.dim, len(x.shape), type(mod).__name__, node)
                v[node] = b.unary("nn.softmax" if isinstance(mod, nn.Softmax) else "nn.log_softmax", x)
            elif isinstance(mod, nn.CrossEntropyLoss):
                if (mod.weight is not None or mod.reduction != "mean" or mod.label_smoothing != 0.0):
                    raise ExportError(f"CrossEntropyLoss with weight, reduction != 'mean' or "
                                      f"label smoothing at {where}")
                v[node] = b.cross_entropy(x, arg(node.args[1]))
            elif isinstance(mod, nn.Flatten):
                shape = _meta_shape(node)
                v[node] = em.reshape(x, shape)
            elif isinstance(mod, nn.MultiheadAttention):
                v[node] = _multihead_attention(em, mod, node, [arg(a) for a in node.args],
                                               {k: arg(a) for k, a in node.kwargs.items()}, p, gm)
            elif isinstance(mod, nn.Identity):
                v[node] = x
            else:
                raise ExportError(f"unsupported module {node.target} ({type(mod).__module__}."
                                  f"{type(mod).__name__}) at {where}")
        elif node.op in ("call_function", "call_method"):
            t = node.target
            args = [arg(a) for a in node.args]
            kw = {k: arg(a) for k, a in node.kwargs.items()}
            if node.op == "call_function" and t in _BINARY:
                v[node] = em.binary(_BINARY[t], value(args[0], node), value(args[1], node), node)
            elif node.op == "call_method" and t in _METHOD_BINARY:
                v[node] = em.binary(_METHOD_BINARY[t], value(args[0], node), value(args[1], node), node)
            elif (node.op == "call_function" and t in _UNARY_FN) or (
                    node.op == "call_method" and t in ("relu", "tanh", "sigmoid")):
                kind = _UNARY_FN.get(t, t)
                x = args[0]
                if kind == "sigmoid":
                    v[node] = em.sigmoid(x)
                elif kind == "gelu":
                    approx = kw.get("approximate", "none") == "tanh"
                    v[node] = b.unary("nn.gelu", x, " {approximate = true}" if approx else "")
                else:
                    v[node] = b.unary(f"nn.{kind}", x)
            elif t in (F.softmax, F.log_softmax, torch.softmax, torch.log_softmax, "softmax", "log_softmax"):
                x = args[0]
                dim = kw.get("dim", args[1] if len(args) > 1 else None)
                name = t if isinstance(t, str) else t.__name__
                _last_dim(dim, len(x.shape), name, node)
                v[node] = b.unary("nn.log_softmax" if "log" in name else "nn.softmax", x)
            elif t is F.cross_entropy:
                v[node] = b.cross_entropy(args[0], args[1])
            elif t in (torch.reshape, "reshape", "view", torch.flatten, "flatten"):
                v[node] = em.reshape(args[0], _meta_shape(node))
            elif t in (torch.transpose, "transpose"):
                x = args[0]
                d0, d1 = (a % len(x.shape) for a in args[1:3])
                perm = list(range(len(x.shape)))
                perm[d0], perm[d1] = perm[d1], perm[d0]
                v[node] = em.transpose(x, perm)
            elif t in (torch.permute, "permute"):
                x = args[0]
                perm = args[1] if isinstance(args[1], (list, tuple)) else args[1:]
                v[node] = em.transpose(x, list(perm))
            elif t in (torch.mean, "mean", torch.sum, "sum"):
                x = args[0]
                if len(args) > 1 or kw:
                    raise ExportError(f"{t if isinstance(t, str) else t.__name__} over some "
                                      f"dimensions at {where}: only the whole tensor is supported")
                m = b.mean(x)
                if t in (torch.sum, "sum"):
                    m = b.binary("arith.mulf", m, em.const(float(np.prod(x.shape)), (), x.dtype))
                v[node] = m
            elif t is operator.getitem and isinstance(args[0], tuple):
                item = args[0][args[1]]
                if item is None:
                    raise ExportError(f"{node.args[0]}[{args[1]}] (attention weights) at {where}: "
                                      "not exported; use output [0] or need_weights=False")
                v[node] = item
            elif t == "contiguous":
                v[node] = args[0]
            else:
                name = t if isinstance(t, str) else (
                    f"{getattr(t, '__module__', None) or 'torch'}.{getattr(t, '__name__', t)}")
                kind = "method" if node.op == "call_method" else "function"
                raise ExportError(f"unsupported {kind} {name} at {where}")
        elif node.op == "output":
            out = node.args[0]
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            outputs = [arg(o) for o in outs]
            if not all(isinstance(o, ir.Value) for o in outputs):
                raise ExportError("the module's outputs must be tensors")
    args = param_values + inputs + ([rng] if rng is not None else [])
    text = ir.function("forward", args, outputs, b.lines)
    return Exported(text, args, [n for n, _ in params], len(inputs), outputs, rng)


def export(module, example_args):
    """MLIR text of a module with `func.func @forward` (see the module doc)."""
    return trace(module, example_args).text


def parameters(module):
    """The module's parameters as NumPy arrays, in named_parameters() order."""
    return [p.detach().cpu().numpy() for _, p in module.named_parameters()]


def parameter_names(module):
    return [n for n, _ in module.named_parameters()]


def inputs(example_args):
    """Example arguments as NumPy arrays of @forward's types (integers as int32)."""
    if not isinstance(example_args, (tuple, list)):
        example_args = (example_args,)
    out = []
    for a in example_args:
        a = a.detach().cpu().numpy()
        out.append(a.astype(np.int32) if a.dtype == np.int64 else a)
    return out


def value_and_grad(module, example_args, **options):
    """A compiled f(params, *inputs) -> (value, grads) of the module's scalar
    first output, w.r.t. its parameters (ad.value_and_grad of @forward)."""
    from . import compile as _compile
    ex = trace(module, example_args)
    if ex.outputs[0].shape != ():
        raise ExportError(f"the module's first output must be a scalar loss, got {ex.outputs[0].type}")
    n = len(ex.param_names)
    aux = ex.outputs[1:]
    value = ir.Value("%value", (), ex.outputs[0].dtype)
    auxv = [ir.Value(f"%aux{i}", o.shape, o.dtype) for i, o in enumerate(aux)]
    grads = [ir.Value(f"%g{i}", a.shape, a.dtype) for i, a in enumerate(ex.args[:n])]
    results = [value] + auxv + grads
    attrs = f"argnums = array<i64: {', '.join(map(str, range(n)))}>" + (", has_aux = true" if aux else "")
    body = [f"  {', '.join(map(str, results))} = ad.value_and_grad @forward("
            f"{', '.join(map(str, ex.args))}) {{{attrs}}}",
            f"      : ({', '.join(a.type for a in ex.args)}) -> ({', '.join(r.type for r in results)})"]
    text = ex.text + "\n" + ir.function("value_and_grad", ex.args, results, body)
    fn = _compile(text, "value_and_grad", **options)

    def call(params, *inputs, rng=None):
        extra = [np.asarray(rng if rng is not None else (0, 0), np.int32)] if ex.rng is not None else []
        out = fn(*params, *inputs, *extra)
        return out[0], list(out[1 + len(aux):])

    call.text = text
    return call


def layer(module, example_args):
    """The module as a Trax-style layer taking its example arguments' shapes
    (batch size included) and returning its outputs, with its parameters
    under their named_parameters() names: e.g. the model of a Trainer.
    Start a Trainer from the module's weights with
    `fit(..., initial_params=trellis.torch.parameters(module))`."""
    import re
    from . import layers as tl

    ex = trace(module, example_args)
    if ex.rng is not None:
        raise ExportError("a layer from a module with Dropout in training mode: "
                          "call module.eval() (or use trellis.layers.Dropout)")
    n = len(ex.param_names)

    class _Imported(tl.Layer):
        kind = ""
        n_in, n_out = ex.n_inputs, len(ex.outputs)

        def forward(self, b, xs):
            for x, a in zip(xs, ex.args[n:]):
                if x.shape != a.shape or x.dtype != a.dtype:
                    raise ir.ShapeError(f"{type(module).__name__} was exported for {a.type}, got {x.type}")
            rename = {}
            for name, a in zip(ex.param_names, ex.args[:n]):
                init = "glorot_uniform" if len(a.shape) >= 2 else "zeros"
                rename[a.name] = b.param(self, name, a.shape, init).name
            for x, a in zip(xs, ex.args[n:]):
                rename[a.name] = x.name
            tag = b.fresh("t")[1:]

            def sub(m):
                tok = m.group(0)
                return rename.get(tok) or f"%{tag}_{tok[1:]}"

            body = ex.text.split("{\n", 1)[1].rsplit("\n  return", 1)[0]
            for line in body.splitlines():
                b.emit(re.sub(r"%[A-Za-z_][A-Za-z0-9_]*", sub, line.strip()))
            return [ir.Value(rename.get(o.name) or f"%{tag}_{o.name[1:]}", o.shape, o.dtype)
                    for o in ex.outputs]

        def __repr__(self):
            return f"trellis.torch.layer({type(module).__name__})"

    return _Imported()
