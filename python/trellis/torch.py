"""PyTorch import: a torch.nn.Module as `nn` IR, through torch.fx.

    text = trellis.torch.export(module, (x,))       # func.func @forward
    params = trellis.torch.parameters(module)       # NumPy, named_parameters() order
    f = trellis.compile(text, "forward"); out = f(*params, x.numpy())

@forward's arguments are the module's parameters in named_parameters()
order, then the example arguments (integer tensors become int32: ids and
labels), then, if a Dropout runs in training mode, `rng` (2xint32). Its
results are the module's outputs. Supported: nn.Linear, Conv2d (groups 1,
zero padding), MaxPool2d, AvgPool2d, BatchNorm2d (eval mode: the running
statistics are constants), ReLU, GELU, Tanh,
Sigmoid, LayerNorm (over the last dimension), Embedding, Dropout, MultiheadAttention
(to nn.attention; causal when attn_mask is the causal mask), Softmax /
LogSoftmax (last dimension), CrossEntropyLoss (mean), Flatten, Identity, and
add, sub, mul, div, relu, gelu, tanh, sigmoid, softmax, log_softmax,
cross_entropy, mean / sum (of the whole tensor), reshape / view / flatten /
unsqueeze / squeeze, transpose / permute, matmul / bmm / @, masked_fill (a
constant mask), slicing (ints, slices, ..., None), narrow, chunk, split,
cat, stack as functions or methods. Hand-written softmax(q·kᵀ/sqrt(Dh)) · v
(causally masked or not) becomes nn.attention; near misses go op by op.
Whatever only numbers, sizes and constant tensors reach is computed by
PyTorch while exporting.
Anything else is one ExportError naming it and its source line.
"""

import builtins
import dis
import inspect
import math
import operator
import re

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
    # Buffers become get_attr nodes, as parameters do: indexing one by a
    # traced size (nanoGPT's `self.bias[:, :, :T, :T]`) is then a node the
    # exporter folds to a constant once T is known, not a Python error
    # inside tracing.
    proxy_buffer_attributes = True

    def iter(self, obj):
        """`a, b = proxy` (`B, L, D = x.shape`, `q, k, v = y.split(d, -1)`):
        torch 1.13 finds the UNPACK_SEQUENCE by f_lasti // 2, which is not
        the instruction's index under Python 3.11's inline caches; find it
        by its offset instead."""
        frame = inspect.currentframe().f_back.f_back  # Proxy.__iter__'s caller
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti and inst.opname == "UNPACK_SEQUENCE":
                return (obj[i] for i in range(inst.argval))
        return super().iter(obj)


class _State:
    """Layer state met while tracing (BatchNorm2d in training mode: its
    running statistics): the values standing for the buffers, their names,
    and the values they are updated to."""

    def __init__(self, dtype, stateful=False, inference=False):
        self.dtype, self.names, self.values, self.new = dtype, [], [], []
        self.stateful, self.inference = stateful, inference

    def read(self, name, buffer):
        v = ir.Value(f"%s{len(self.values)}", tuple(buffer.shape), self.dtype)
        self.names.append(name)
        self.values.append(v)
        self.new.append(v)
        return v

    def update(self, value, new):
        self.new[self.values.index(value)] = new


class Exported:
    """An exported module: `text` (MLIR with @forward), `args` (the
    function's arguments: parameters, layer state, inputs, rng),
    `param_names`, `state` (a _State; with state, @forward returns the new
    state after the outputs, and `outputs` ends with it)."""

    def __init__(self, text, args, param_names, n_inputs, outputs, rng, state):
        self.text, self.args, self.param_names = text, args, param_names
        self.n_inputs, self.outputs, self.rng, self.state = n_inputs, outputs, rng, state

    def require_stateless(self, what):
        if self.state.names:
            raise ExportError(
                f"{what} of a module with BatchNorm2d in training mode: its running "
                f"statistics ({', '.join(self.state.names)}) are layer state, which "
                "@forward's contract (parameters and inputs in, outputs out) has no place "
                "for; export the module in eval mode, or import it with "
                "trellis.torch.layer, whose Trainer carries the state")


def _last_dim(dim, rank, what, node):
    if dim is None:
        raise ExportError(f"{what} without dim at {_where(node)}: give dim=-1")
    if dim not in (-1, rank - 1):
        raise ExportError(f"{what} over dim {dim} of a rank-{rank} tensor at {_where(node)}: "
                          "only the last dimension is supported")


_NUMPY = {"f32": np.float32, "f64": np.float64, "i32": np.int32}
# The largest buffer or constant tensor written into the IR as a literal.
_MAX_CONSTANT = 1 << 16


class _Emitter:
    def __init__(self, gm, dtype):
        self.gm, self.b, self.dtype = gm, ir.Builder(dtype), dtype
        self.values = {}
        # How a value was made from another (a transpose or a reshape), so
        # that a transpose of a transpose or a reshape of a reshape starts
        # from the original value instead of stacking ops.
        self.origin = {}

    def const(self, value, shape, dtype):
        r = ir.Value(self.b.fresh("cst"), shape, dtype)
        if dtype.startswith("f"):
            # A hex literal is exact and also spells inf and nan.
            lit = '"0x' + np.array([value], _NUMPY[dtype]).tobytes().hex().upper() + '"'
        else:
            lit = str(int(value))
        self.b.emit(f"{r} = arith.constant dense<{lit}> : {r.type}")
        return r

    def tensor_const(self, t, node):
        """A buffer or constant tensor as an arith.constant: floats in the
        model's element type, bools as i1, integers as i32."""
        if t.numel() > _MAX_CONSTANT:
            raise ExportError(f"a constant tensor of {t.numel()} elements used by "
                              f"{node.format_node()} at {_where(node)}: at most {_MAX_CONSTANT}")
        a = t.detach().cpu().numpy()
        if a.dtype == np.bool_:
            r = ir.Value(self.b.fresh("mask"), a.shape, "i1")
            lit = np.array2string(a, separator=", ", threshold=a.size + 1,
                                  max_line_width=1 << 30).replace(
                "True", "true").replace("False", "false") if a.ndim else str(bool(a)).lower()
        else:
            dtype = self.dtype if a.dtype.kind == "f" else "i32"
            r = ir.Value(self.b.fresh("const"), a.shape, dtype)
            lit = '"0x' + np.ascontiguousarray(a, _NUMPY[dtype]).tobytes().hex().upper() + '"'
        self.b.emit(f"{r} = arith.constant dense<{lit}> : {r.type}")
        return r

    def transpose(self, x, perm):
        perm = [p % len(x.shape) for p in perm]
        how = self.origin.get(x.name)
        if how is not None and how[0] == "transpose":
            x, perm = how[1], [how[2][p] for p in perm]
        if perm == list(range(len(x.shape))):
            return x
        shape = tuple(x.shape[p] for p in perm)
        e = self.b.fresh("empty")
        r = ir.Value(self.b.fresh("tr"), shape, x.dtype)
        self.b.emit(f"{e} = tensor.empty() : {ir.ty(shape, x.dtype)}")
        self.b.emit(f"{r} = linalg.transpose ins({x} : {x.type}) outs({e} : {r.type}) "
                    f"permutation = [{', '.join(map(str, perm))}]")
        self.origin[r.name] = ("transpose", x, perm)
        return r

    def reshape(self, x, shape):
        shape = ir.resolve_shape(shape, x)
        how = self.origin.get(x.name)
        if how is not None and how[0] == "reshape":
            x = how[1]
        if shape == x.shape:
            return x
        r = self.b.reshape(x, shape)
        self.origin[r.name] = ("reshape", x)
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

    def zeros(self, shape, dtype):
        e, z, r = self.b.fresh("empty"), self.b.fresh("zero"), ir.Value(self.b.fresh("zeros"), shape, dtype)
        self.b.emit(f"{z} = arith.constant 0.0 : {dtype}")
        self.b.emit(f"{e} = tensor.empty() : {r.type}")
        self.b.emit(f"{r} = linalg.fill ins({z} : {dtype}) outs({e} : {r.type}) -> {r.type}")
        return r

    def matmul(self, a, c, node):
        """torch.matmul of operands of rank >= 2: linalg.matmul when the
        right one is a matrix (the left one's leading dimensions collapsed
        into its rows), else linalg.batch_matmul over the broadcast batch."""
        where = _where(node)
        if len(a.shape) < 2 or len(c.shape) < 2:
            raise ExportError(f"matmul of a rank-{len(a.shape)} and a rank-{len(c.shape)} tensor "
                              f"at {where}: both operands need rank 2 or more")
        if a.shape[-1] != c.shape[-2]:
            raise ExportError(f"matmul of {a.type} and {c.type} at {where}: inner sizes differ")
        shape = _meta_shape(node)
        m, k, n = a.shape[-2], a.shape[-1], c.shape[-1]
        if len(c.shape) == 2:
            rows = int(np.prod(a.shape[:-1], dtype=np.int64))
            a2 = self.reshape(a, (rows, k))
            r = ir.Value(self.b.fresh("mm"), (rows, n), a.dtype)
            self.b.emit(f"{r} = linalg.matmul ins({a2}, {c} : {a2.type}, {c.type}) "
                        f"outs({self.zeros(r.shape, a.dtype)} : {r.type}) -> {r.type}")
            return self.reshape(r, shape)
        batch = tuple(shape[:-2])
        nb = int(np.prod(batch, dtype=np.int64))
        a3 = self.reshape(self.broadcast_to(a, batch + (m, k), node), (nb, m, k))
        c3 = self.reshape(self.broadcast_to(c, batch + (k, n), node), (nb, k, n))
        r = ir.Value(self.b.fresh("bmm"), (nb, m, n), a.dtype)
        self.b.emit(f"{r} = linalg.batch_matmul ins({a3}, {c3} : {a3.type}, {c3.type}) "
                    f"outs({self.zeros(r.shape, a.dtype)} : {r.type}) -> {r.type}")
        return self.reshape(r, shape)

    def masked_fill(self, x, mask, value, node):
        """x.masked_fill(mask, value) with a constant mask: arith.select."""
        if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
            raise ExportError(f"masked_fill at {_where(node)}: the mask must be a constant bool "
                              "tensor (a buffer, or computed from constants)")
        if not isinstance(value, (int, float)):
            raise ExportError(f"masked_fill at {_where(node)}: the value must be a number")
        m = self.broadcast_to(self.tensor_const(mask, node), x.shape, node)
        fill = self.broadcast_to(self.const(value, (), x.dtype), x.shape, node)
        r = ir.Value(self.b.fresh("fill"), x.shape, x.dtype)
        self.b.emit(f"{r} = arith.select {m}, {fill}, {x} : {m.type}, {x.type}")
        return r

    def narrow(self, x, dim, start, length):
        dim %= len(x.shape)
        offsets, sizes = [0] * len(x.shape), list(x.shape)
        offsets[dim], sizes[dim] = start, length
        return self.b.slice(x, offsets, sizes)

    def index(self, x, index, node):
        """x[index] for ints, slices (with steps), Ellipsis and None:
        tensor.extract_slice, then a reshape that drops the int dimensions
        and adds the None ones."""
        where = _where(node)
        items = list(index) if isinstance(index, tuple) else [index]
        for it in items:
            if not (it is None or it is Ellipsis or isinstance(it, (int, slice))) or isinstance(it, bool):
                raise ExportError(f"indexing with {type(it).__name__} (only ints, slices, ... "
                                  f"and None are supported) at {where}")
        if items.count(Ellipsis) > 1:
            raise ExportError(f"an index with two ... at {where}")
        used = sum(1 for it in items if it is not None and it is not Ellipsis)
        if used > len(x.shape):
            raise ExportError(f"too many indices for a rank-{len(x.shape)} tensor at {where}")
        if Ellipsis not in items:
            items.append(Ellipsis)
        i = items.index(Ellipsis)
        items[i:i + 1] = [slice(None)] * (len(x.shape) - used)
        offsets, sizes, strides, d = [], [], [], 0
        for it in items:
            if it is None:
                continue
            n = x.shape[d]
            if isinstance(it, slice):
                start, stop, step = it.indices(n)
                size = len(range(start, stop, step))
                if size == 0:
                    raise ExportError(f"an empty slice at {where}")
            else:
                if not -n <= it < n:
                    raise ExportError(f"index {it} out of range for size {n} at {where}")
                start, size, step = it % n, 1, 1
            offsets.append(start), sizes.append(size), strides.append(step)
            d += 1
        return self.reshape(self.b.slice(x, offsets, sizes, strides), _meta_shape(node))

    def concat(self, xs, dim, shape):
        if len(xs) == 1:
            return xs[0]
        dim %= len(shape)
        r = ir.Value(self.b.fresh("cat"), shape, xs[0].dtype)
        self.b.emit(f"{r} = tensor.concat dim({dim}) {', '.join(map(str, xs))} : "
                    f"({', '.join(x.type for x in xs)}) -> {r.type}")
        return r

    def sigmoid(self, x):
        # 1 / (1 + e^-x) as (1 + tanh(x / 2)) / 2: no nn.sigmoid yet.
        half = self.const(0.5, x.shape, x.dtype)
        one = self.const(1.0, x.shape, x.dtype)
        t = self.b.unary("nn.tanh", self.b.binary("arith.mulf", x, half))
        return self.b.binary("arith.mulf", self.b.binary("arith.addf", t, one), half)


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _vision_module(em, mod, x, p, where, dtype, state, name):
    """Conv2d, MaxPool2d, AvgPool2d and BatchNorm2d on NCHW x: transposed to
    the nn ops' NHWC and back (consecutive transposes fold). BatchNorm2d in
    training mode reads and updates its running statistics as layer state
    (`state`, under the module's qualified `name`)."""
    if len(x.shape) != 4:
        raise ExportError(f"{type(mod).__name__} at {where} expects an NCHW tensor, got {x.type}")
    b = em.b
    nhwc = em.transpose(x, [0, 2, 3, 1])
    if isinstance(mod, nn.Conv2d):
        if mod.groups != 1 or mod.padding_mode != "zeros":
            raise ExportError(f"Conv2d with groups {mod.groups} or padding_mode "
                              f"'{mod.padding_mode}' at {where}: only groups=1 with zero padding")
        kh, kw = mod.kernel_size
        if isinstance(mod.padding, str):  # 'valid' or 'same' (stride 1)
            pads = [0, 0, 0, 0]
            if mod.padding == "same":
                for i, k in enumerate((kh, kw)):
                    total = mod.dilation[i] * (k - 1)
                    pads[2 * i], pads[2 * i + 1] = total // 2, total - total // 2
        else:
            ph, pw = mod.padding
            pads = [ph, ph, pw, pw]
        w = em.transpose(p(mod.weight), [2, 3, 1, 0])  # OIHW -> HWCF
        bias = p(mod.bias) if mod.bias is not None else em.const(0.0, (mod.out_channels,), dtype)
        y = b.conv2d(nhwc, w, bias, mod.stride, pads, mod.dilation)
    elif isinstance(mod, (nn.MaxPool2d, nn.AvgPool2d)):
        window = _pair(mod.kernel_size)
        strides = _pair(mod.stride if mod.stride is not None else mod.kernel_size)
        ph, pw = _pair(mod.padding)
        unsupported = mod.ceil_mode or (isinstance(mod, nn.MaxPool2d) and (
            _pair(mod.dilation) != (1, 1) or mod.return_indices)) or (
            isinstance(mod, nn.AvgPool2d) and (not mod.count_include_pad or mod.divisor_override))
        if unsupported:
            raise ExportError(f"{type(mod).__name__} with ceil_mode, dilation, return_indices, "
                              f"count_include_pad=False or divisor_override at {where}")
        op = "max_pool2d" if isinstance(mod, nn.MaxPool2d) else "avg_pool2d"
        y = b.pool2d(op, nhwc, window, strides, (ph, ph, pw, pw))
    else:
        if not mod.track_running_stats or (mod.training and mod.momentum is None):
            raise ExportError(f"BatchNorm2d with track_running_stats=False or momentum=None (a "
                              f"cumulative average) at {where}: nn.batch_norm keeps running "
                              "statistics with a momentum")
        c = (mod.num_features,)
        scale = p(mod.weight) if mod.affine else em.const(1.0, c, dtype)
        shift = p(mod.bias) if mod.affine else em.const(0.0, c, dtype)
        if mod.training or state.stateful:
            mean = state.read(f"{name}.running_mean", mod.running_mean)
            var = state.read(f"{name}.running_var", mod.running_var)
            training = mod.training and not state.inference
            y, new_mean, new_var = b.batch_norm(nhwc, scale, shift, mean, var, mod.eps,
                                                mod.momentum if training else 0.1, training)
            state.update(mean, new_mean)
            state.update(var, new_var)
        else:
            mean = em.tensor_const(mod.running_mean, None)
            var = em.tensor_const(mod.running_var, None)
            y, _, _ = b.batch_norm(nhwc, scale, shift, mean, var, mod.eps, 0.1, False)
    return em.transpose(y, [0, 3, 1, 2])


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


def _is_matmul(n):
    return isinstance(n, torch.fx.Node) and (
        (n.op == "call_function" and n.target in (operator.matmul, torch.matmul, torch.bmm))
        or (n.op == "call_method" and n.target in ("matmul", "bmm")))


def _softmax_dim(n, gm):
    """The dim of a softmax node (function, method or nn.Softmax), else None."""
    if n.op == "call_module":
        mod = gm.get_submodule(n.target)
        return mod.dim if type(mod) is nn.Softmax else None
    if (n.op == "call_function" and n.target in (F.softmax, torch.softmax)) or (
            n.op == "call_method" and n.target == "softmax"):
        return n.kwargs.get("dim", n.args[1] if len(n.args) > 1 else None)
    return None


def _is_identity(n, gm):
    """contiguous(), or a Dropout that is off (eval mode or p = 0)."""
    if n.op == "call_method" and n.target == "contiguous":
        return True
    if n.op == "call_module":
        mod = gm.get_submodule(n.target)
        return isinstance(mod, nn.Dropout) and (not mod.training or mod.p == 0)
    return False


def _score_step(n, val):
    """One op between q·kᵀ and the softmax: ("scale", c) for a product with
    the number c (a division by c is the product with 1/c), ("mask", m) for
    masked_fill(m, -inf) with a constant bool m or the sum with a constant
    float m; with the node of the scores it applies to. Else None."""
    t = n.target
    f = n.op == "call_function"
    m = n.op == "call_method"
    a = list(n.args)
    num = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)
    node_arg = lambda x: isinstance(x, torch.fx.Node) and isinstance(val(x), ir.Value)
    if len(a) != 2 and not (m and t == "masked_fill") and not (f and t is torch.masked_fill):
        return None
    if (f and t in (operator.mul, torch.mul)) or (m and t == "mul"):
        for x, c in ((a[0], a[1]), (a[1], a[0])):
            if node_arg(x) and num(val(c)):
                return "scale", float(val(c)), x
    if (f and t in (operator.truediv, torch.div)) or (m and t == "div"):
        if node_arg(a[0]) and num(val(a[1])) and val(a[1]) != 0:
            return "scale", 1.0 / float(val(a[1])), a[0]
    if (f and t in (operator.add, torch.add)) or (m and t == "add"):
        for x, c in ((a[0], a[1]), (a[1], a[0])):
            mask = val(c)
            if node_arg(x) and isinstance(mask, torch.Tensor) and mask.is_floating_point():
                return "mask", mask, x
    if ((m and t == "masked_fill") or (f and t is torch.masked_fill)) and len(a) == 3:
        mask, value = val(a[1]), val(a[2])
        if (node_arg(a[0]) and isinstance(mask, torch.Tensor) and mask.dtype == torch.bool
                and num(value) and math.isinf(value) and value < 0):
            return "mask", mask, a[0]
    return None


def _attention(em, node, val, gm):
    """nn.attention for the `node` P·V of softmax(Q·Kᵀ · 1/sqrt(Dh)
    [masked causally]) · V over BxHxLxDh (or BxLxDh: one head), or None
    when the graph is not exactly that. Q, K and V go back to BxLxD
    (heads side by side, as nn.attention splits D) and the result to
    BxHxLxDh; the transposes and reshapes that cancel the module's own
    head split and merge fold away, and the op-by-op scores become dead."""
    if not _is_matmul(node) or len(node.args) != 2 or node.kwargs:
        return None
    p, vnode = node.args
    while isinstance(p, torch.fx.Node) and len(p.users) == 1 and _is_identity(p, gm):
        p = p.args[0]
    if not isinstance(p, torch.fx.Node) or len(p.users) != 1 or _softmax_dim(p, gm) is None:
        return None
    scores = p.args[0] if p.op != "call_module" else p.args[0]
    scale, mask = [], []
    s = scores
    while isinstance(s, torch.fx.Node) and len(s.users) == 1 and not _is_matmul(s):
        step = _score_step(s, val)
        if step is None:
            return None
        (scale if step[0] == "scale" else mask).append(step[1])
        s = step[2]
    if not _is_matmul(s) or len(s.users) != 1 or len(scale) != 1 or len(mask) > 1:
        return None
    q, kt, v = (val(x) if isinstance(x, torch.fx.Node) else None for x in (*s.args, vnode))
    if not all(isinstance(x, ir.Value) for x in (q, kt, v)) or len(s.args) != 2:
        return None
    r = len(q.shape)
    if r not in (3, 4) or len(kt.shape) != r or len(v.shape) != r:
        return None
    batch, (lq, dh), lk = q.shape[:-2], q.shape[-2:], kt.shape[-1]
    if kt.shape != batch + (dh, lk) or v.shape != batch + (lk, dh):
        return None
    if _softmax_dim(p, gm) not in (-1, r - 1):
        return None
    if abs(scale[0] * math.sqrt(dh) - 1.0) > 1e-12:
        return None  # another scale: the op-by-op import keeps it
    causal = False
    if mask:
        m = mask[0]
        while m.dim() > 2 and m.shape[0] == 1:
            m = m[0]
        if lq != lk or not _is_causal_mask(m, lq):
            return None
        causal = True
    heads = q.shape[1] if r == 4 else 1

    def to_bld(x):
        if r == 3:
            return x
        return em.reshape(em.transpose(x, [0, 2, 1, 3]), (x.shape[0], x.shape[2], heads * dh))

    k = em.transpose(kt, list(range(r - 2)) + [r - 1, r - 2])
    out = em.b.attention(to_bld(q), to_bld(k), to_bld(v), heads, causal)
    if r == 3:
        return out
    return em.transpose(em.reshape(out, (q.shape[0], lq, heads, dh)), [0, 2, 1, 3])


def _dead_code_removed(lines, outputs):
    """The lines whose results reach `outputs` (the importer's lines each
    define one value): the op-by-op scores an nn.attention replaced go."""
    defs = [re.match(r"\s*(%[A-Za-z_][\w]*) = ", l) for l in lines]
    if not all(defs):
        return lines
    live = {o.name for o in outputs}
    keep = []
    for line, d in zip(reversed(lines), reversed(defs)):
        if d.group(1) in live:
            keep.append(line)
            live.update(re.findall(r"%[A-Za-z_][\w]*", line[d.end():]))
    return keep[::-1]


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


def trace(module, example_args, stateful=False, inference=False):
    """Traces `module` on `example_args`; returns an Exported. BatchNorm2d's
    running statistics are layer state (arguments and results of @forward)
    in training mode, constants in eval mode; with `stateful` (a layer of a
    Trainer) they are state in both, and `inference` normalizes with them
    (the Trainer's @eval)."""
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
    # ShapeProp runs the module: in training mode that would move the
    # running statistics of its batch norms (the user's module must not
    # change by being exported), so its buffers are restored afterwards.
    saved = {n: t.detach().clone() for n, t in module.named_buffers()}
    try:
        ShapeProp(gm).propagate(*example_args)
    finally:
        with torch.no_grad():  # only those that moved: a write bumps autograd's version
            for n, t in module.named_buffers():
                if not torch.equal(t, saved[n]):
                    t.copy_(saved[n])
    em = _Emitter(gm, dtype)
    state = _State(dtype, stateful, inference)
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
        """An operand as an IR value: a buffer or constant tensor becomes an
        arith.constant (numbers stay numbers)."""
        if isinstance(a, torch.Tensor):
            return em.tensor_const(a, node)
        return a

    def has_value(a):
        if isinstance(a, ir.Value):
            return True
        if isinstance(a, (tuple, list)):
            return any(has_value(x) for x in a)
        if isinstance(a, dict):
            return any(has_value(x) for x in a.values())
        return False

    def name_of(node):
        t = node.target
        if isinstance(t, str):
            return t
        return f"{getattr(t, '__module__', None) or 'torch'}.{getattr(t, '__name__', t)}"

    def dim_arg(args, kw, i, default=None):
        return kw.get("dim", args[i] if len(args) > i else default)

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
            elif isinstance(mod, (nn.Conv2d, nn.MaxPool2d, nn.AvgPool2d, nn.BatchNorm2d)):
                v[node] = _vision_module(em, mod, x, p, where, dtype, state, node.target)
            else:
                raise ExportError(f"unsupported module {node.target} ({type(mod).__module__}."
                                  f"{type(mod).__name__}) at {where}")
        elif node.op in ("call_function", "call_method"):
            t = node.target
            args = [torch.fx.node.map_arg(a, arg) for a in node.args]
            kw = {k: torch.fx.node.map_arg(a, arg) for k, a in node.kwargs.items()}
            kind = "method" if node.op == "call_method" else "function"
            if t in ("size", "dim") or (t is builtins.getattr and args[1] in ("shape", "device", "dtype")):
                x = args[0]
                if not isinstance(x, ir.Value):
                    pass  # a constant: folded below
                elif t == "dim":
                    v[node] = len(x.shape)
                    continue
                elif t == "size":
                    v[node] = torch.Size(x.shape) if len(args) == 1 and not kw else x.shape[dim_arg(args, kw, 1)]
                    continue
                else:
                    v[node] = {"shape": torch.Size(x.shape), "device": torch.device("cpu"),
                               "dtype": fdt if x.dtype.startswith("f") else torch.int64}[args[1]]
                    continue
            if not has_value(args) and not has_value(kw):
                # No traced value reaches it: sizes, masks, constants. PyTorch
                # computes it now, and it stays a number or a constant tensor.
                try:
                    v[node] = (t(*args, **kw) if node.op == "call_function"
                               else getattr(args[0], t)(*args[1:], **kw))
                except Exception as e:
                    raise ExportError(f"{kind} {name_of(node)} on constants at {where}: {e}") from None
                continue
            att = _attention(em, node, arg, gm) if _is_matmul(node) else None
            if att is not None:
                v[node] = att
            elif _is_matmul(node):
                v[node] = em.matmul(value(args[0], node), value(args[1], node), node)
            elif t in ("masked_fill", torch.masked_fill):
                v[node] = em.masked_fill(args[0], args[1], args[2], node)
            elif t is operator.getitem and isinstance(args[0], ir.Value):
                v[node] = em.index(args[0], args[1], node)
            elif t in (torch.narrow, "narrow"):
                x = args[0]
                d, start, length = (dim_arg(args, kw, 1), kw.get("start", args[2] if len(args) > 2 else None),
                                    kw.get("length", args[3] if len(args) > 3 else None))
                v[node] = em.narrow(x, d, start % x.shape[d], length)
            elif t in (torch.chunk, "chunk", torch.split, "split"):
                x = args[0]
                d = dim_arg(args, kw, 2, 0) % len(x.shape)
                n = x.shape[d]
                if t in (torch.chunk, "chunk"):
                    k = kw.get("chunks", args[1] if len(args) > 1 else None)
                    step = -(-n // k)
                    sizes = [min(step, n - i) for i in range(0, n, step)]
                else:
                    ss = kw.get("split_size_or_sections", kw.get("split_size", args[1] if len(args) > 1 else None))
                    sizes = list(ss) if isinstance(ss, (list, tuple)) else [min(ss, n - i) for i in range(0, n, ss)]
                if sum(sizes) != n:
                    raise ExportError(f"{name_of(node)} into {sizes} of a size-{n} dimension at {where}")
                starts = np.cumsum([0] + sizes[:-1])
                v[node] = tuple(em.narrow(x, d, int(o), z) for o, z in zip(starts, sizes))
            elif t in (torch.cat, torch.concat, torch.stack):
                xs = kw.get("tensors", args[0])
                d = dim_arg(args, kw, 1, 0)
                xs = [value(x, node) for x in xs]
                shape = _meta_shape(node)
                if t is torch.stack:
                    d %= len(shape)
                    xs = [em.reshape(x, x.shape[:d] + (1,) + x.shape[d:]) for x in xs]
                v[node] = em.concat(xs, d, shape)
            elif t in (torch.unsqueeze, "unsqueeze", torch.squeeze, "squeeze"):
                v[node] = em.reshape(args[0], _meta_shape(node))
            elif node.op == "call_function" and t in _BINARY:
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
                raise ExportError(f"unsupported {kind} {name_of(node)} at {where}")
        elif node.op == "output":
            out = node.args[0]
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            outputs = [arg(o) for o in outs]
            if not all(isinstance(o, ir.Value) for o in outputs):
                raise ExportError("the module's outputs must be tensors")
    args = param_values + state.values + inputs + ([rng] if rng is not None else [])
    outputs += state.new
    text = ir.function("forward", args, outputs, _dead_code_removed(b.lines, outputs))
    return Exported(text, args, [n for n, _ in params], len(inputs), outputs, rng, state)


def export(module, example_args):
    """MLIR text of a module with `func.func @forward` (see the module doc)."""
    ex = trace(module, example_args)
    ex.require_stateless("export")
    return ex.text


def parameters(module):
    """The module's parameters as NumPy arrays, in named_parameters() order."""
    return [p.detach().cpu().numpy() for _, p in module.named_parameters()]


def parameter_names(module):
    return [n for n, _ in module.named_parameters()]


def initial_params(module):
    """{name: array}: the module's parameters and the running statistics of
    its BatchNorm2d layers, under the names `layer(module)` gives them —
    what `Trainer.fit(initial_params=...)` takes to start from the module.
    Copies: training the module on afterwards does not change them."""
    out = {n: a.copy() for n, a in zip(parameter_names(module), parameters(module))}
    for name, m in module.named_modules():
        if isinstance(m, nn.BatchNorm2d) and m.track_running_stats:
            prefix = f"{name}." if name else ""
            out[prefix + "running_mean"] = m.running_mean.detach().cpu().numpy().copy()
            out[prefix + "running_var"] = m.running_var.detach().cpu().numpy().copy()
    return out


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
    ex.require_stateless("value_and_grad")
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

    ex = trace(module, example_args, stateful=True)
    if ex.rng is not None:
        raise ExportError("a layer from a module with Dropout in training mode: "
                          "call module.eval() (or use trellis.layers.Dropout)")
    n, k = len(ex.param_names), len(ex.state.names)
    n_results = len(ex.outputs) - k
    # Mode 'eval' (a Trainer's @eval) normalizes with the running statistics:
    # a second trace, needed only when the module has them.
    traces = {"train": ex}

    class _Imported(tl.Layer):
        kind = ""
        n_in, n_out = ex.n_inputs, n_results

        def forward(self, b, xs):
            if b.mode not in traces:
                traces[b.mode] = (trace(module, example_args, stateful=True,
                                        inference=True)
                                  if traces["train"].state.names else traces["train"])
            ex = traces[b.mode]
            for x, a in zip(xs, ex.args[n + k:]):
                if x.shape != a.shape or x.dtype != a.dtype:
                    raise ir.ShapeError(f"{type(module).__name__} was exported for {a.type}, got {x.type}")
            rename = {}
            for name, a in zip(ex.param_names, ex.args[:n]):
                init = "glorot_uniform" if len(a.shape) >= 2 else "zeros"
                rename[a.name] = b.param(self, name, a.shape, init).name
            # BatchNorm2d's running statistics (training mode): the model's
            # layer state, initially zeros and ones as in PyTorch (a Trainer
            # starts from the module's buffers with initial_params).
            states = []
            for name, a in zip(ex.state.names, ex.args[n:n + k]):
                init = "ones" if name.endswith("running_var") else "zeros"
                states.append(b.state(self, name, a.shape, init))
                rename[a.name] = states[-1].name
            for x, a in zip(xs, ex.args[n + k:]):
                rename[a.name] = x.name
            tag = b.fresh("t")[1:]

            def sub(m):
                tok = m.group(0)
                return rename.get(tok) or f"%{tag}_{tok[1:]}"

            body = ex.text.split("{\n", 1)[1].rsplit("\n  return", 1)[0]
            for line in body.splitlines():
                b.emit(re.sub(r"%[A-Za-z_][A-Za-z0-9_]*", sub, line.strip()))
            outs = [ir.Value(rename.get(o.name) or f"%{tag}_{o.name[1:]}", o.shape, o.dtype)
                    for o in ex.outputs]
            if b.mode == "train":
                for s, new in zip(states, outs[n_results:]):
                    b.set_state(s, new)
            return outs[:n_results]

        def __repr__(self):
            return f"trellis.torch.layer({type(module).__name__})"

    return _Imported()
