"""A small text emitter for trellis-train modules (docs/training.md), shared
by the generators of examples/digits, examples/transformer and
examples/reformer. It writes plain MLIR text: a model's forward pass is a
Python function that emits ops through a `Fn` builder; `module()` wraps it
into

  @loss(params..., batch...)          -> tensor<f32>      (cross-entropy)
  @train_step(params..., opt..., batch...) -> (new params..., new opt..., loss)
  @eval(params..., opt..., batch...)  -> (accuracy, loss)

The update rule is SGD or Adam written in IR: Adam's moments and the powers
β1^t, β2^t are extra parameters (initialized to zeros / ones) that
@train_step returns updated, so they are checkpointed with the weights.

Layer state (batch norm's running statistics, docs/vision.md) is a list of
`Param`s given to `module(state=...)`: @loss then takes it after the
parameters and returns the new state after the loss, @train_step
differentiates with `has_aux = true` and returns the new state in the
state's places (not touched by the optimizer), and @eval calls the
forward with `training=False`.
"""


def ty(shape, dt="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


class V:
    """An SSA value with its static shape and element type."""

    def __init__(self, name, shape, dt="f32"):
        self.name, self.shape, self.dt = name, tuple(shape), dt

    @property
    def t(self):
        return ty(self.shape, self.dt)

    def __str__(self):
        return self.name


class Fn:
    """Emits the ops of one function body, with fresh SSA names."""

    def __init__(self, indent="  "):
        self.lines, self.n, self.indent = [], 0, indent

    def fresh(self, hint):
        self.n += 1
        return f"%{hint}_{self.n}"

    def emit(self, text):
        self.lines.append(self.indent + text)

    # -- nn layers -----------------------------------------------------------
    def dense(self, x, w, b, hint="d"):
        r = V(self.fresh(hint), x.shape[:-1] + (w.shape[1],))
        self.emit(f"{r} = nn.dense {x}, {w}, {b} : ({x.t}, {w.t}, {b.t}) -> {r.t}")
        return r

    def unary(self, op, x, hint, attrs=""):
        r = V(self.fresh(hint), x.shape)
        self.emit(f"{r} = nn.{op} {x}{attrs} : {x.t}")
        return r

    def relu(self, x):
        return self.unary("relu", x, "relu")

    def gelu(self, x):
        return self.unary("gelu", x, "gelu")

    def layer_norm(self, x, s, o, hint="ln"):
        r = V(self.fresh(hint), x.shape)
        self.emit(f"{r} = nn.layer_norm {x}, {s}, {o} : ({x.t}, {s.t}, {o.t}) -> {r.t}")
        return r

    def embedding(self, ids, table, hint="emb"):
        r = V(self.fresh(hint), ids.shape + (table.shape[1],))
        self.emit(f"{r} = nn.embedding {ids}, {table} : ({ids.t}, {table.t}) -> {r.t}")
        return r

    def attention(self, q, k, v, heads, causal, hint="att"):
        r = V(self.fresh(hint), q.shape)
        c = "true" if causal else "false"
        self.emit(f"{r} = nn.attention {q}, {k}, {v} {{num_heads = {heads} : i64, causal = {c}}}"
                  f" : ({q.t}, {k.t}, {v.t}) -> {r.t}")
        return r

    def add(self, a, b, hint="add"):
        r = V(self.fresh(hint), a.shape)
        self.emit(f"{r} = arith.addf {a}, {b} : {a.t}")
        return r

    def conv2d(self, x, w, b, padding=(0, 0, 0, 0), strides=(1, 1), hint="conv"):
        """NHWC x, KHxKWxCxF w."""
        n, h, wd, _ = x.shape
        kh, kw, _, f = w.shape
        top, bottom, left, right = padding
        shape = (n, (h + top + bottom - kh) // strides[0] + 1,
                 (wd + left + right - kw) // strides[1] + 1, f)
        r = V(self.fresh(hint), shape)
        attrs = []
        if any(padding):
            attrs.append(f"padding = array<i64: {', '.join(map(str, padding))}>")
        if strides != (1, 1):
            attrs.append(f"strides = array<i64: {', '.join(map(str, strides))}>")
        a = f" {{{', '.join(attrs)}}}" if attrs else ""
        self.emit(f"{r} = nn.conv2d {x}, {w}, {b}{a} : ({x.t}, {w.t}, {b.t}) -> {r.t}")
        return r

    def max_pool2d(self, x, window, hint="pool"):
        """Non-overlapping windows (strides = window), no padding."""
        n, h, w, c = x.shape
        r = V(self.fresh(hint), (n, h // window[0], w // window[1], c))
        self.emit(f"{r} = nn.max_pool2d {x} {{window = array<i64: {window[0]}, {window[1]}>}}"
                  f" : ({x.t}) -> {r.t}")
        return r

    def batch_norm(self, x, scale, bias, mean, var, training, hint="bn"):
        """Returns (y, new_mean, new_var); in inference the state passes through."""
        y = V(self.fresh(hint), x.shape)
        nm, nv = V(self.fresh(hint + "_mean"), mean.shape), V(self.fresh(hint + "_var"), var.shape)
        a = "" if training else " {training = false}"
        self.emit(f"{y}, {nm}, {nv} = nn.batch_norm {x}, {scale}, {bias}, {mean}, {var}{a}"
                  f" : ({x.t}, {scale.t}, {bias.t}, {mean.t}, {var.t}) -> ({y.t}, {nm.t}, {nv.t})")
        return y, nm, nv

    def flatten(self, x, hint="flat"):
        """Nx... -> NxM, row-major (nn.flatten)."""
        m = 1
        for d in x.shape[1:]:
            m *= d
        r = V(self.fresh(hint), (x.shape[0], m))
        self.emit(f"{r} = nn.flatten {x} : ({x.t}) -> {r.t}")
        return r

    def expand_last(self, x, hint="nhwc"):
        """Appends a dimension of 1: NxHxW -> NxHxWx1."""
        r = V(self.fresh(hint), x.shape + (1,), x.dt)
        groups = ", ".join(f"[{i}]" for i in range(len(x.shape) - 1))
        groups += f", [{len(x.shape) - 1}, {len(x.shape)}]"
        sizes = ", ".join(str(d) for d in r.shape)
        self.emit(f"{r} = tensor.expand_shape {x} [{groups}] output_shape [{sizes}] : {x.t} into {r.t}")
        return r

    def cross_entropy(self, logits, labels):
        r = V(self.fresh("xent"), ())
        self.emit(f"{r} = nn.cross_entropy {logits}, {labels} : ({logits.t}, {labels.t}) -> {r.t}")
        return r

    # -- reversible layers ---------------------------------------------------
    def _region(self, op, hint, operands, arg_like, arg_hints, body):
        """Emits `op` of `operands` with one region whose block arguments are
        fresh values typed like `arg_like`, named `arg_hints` (made after the
        op's name): `body(args)` emits the region and returns the values to
        yield, or (values, [layer state...]); the state is yielded after
        them. The op returns as many values as it takes, typed like its
        operands, then the state: returns (results, state results)."""
        r = self.fresh(hint)
        head = len(self.lines)
        self.emit("")  # the op's line, once its number of results is known
        args = [V(self.fresh(h), x.shape, x.dt) for h, x in zip(arg_hints, arg_like)]
        self.emit(f"^bb0({', '.join(f'{a}: {a.t}' for a in args)}):")
        outer = self.indent
        self.indent += "  "
        out = body(args)
        out, state = out if isinstance(out, tuple) else (out, [])
        values = list(out) + list(state)
        self.emit(f"nn.yield {', '.join(map(str, values))} : {', '.join(v.t for v in values)}")
        self.indent = outer
        self.emit("}")
        n = len(operands) + len(state)
        self.lines[head] = (f"{self.indent}{r}:{n} = {op} {', '.join(map(str, operands))} : "
                            f"{', '.join(x.t for x in operands)} {{")
        results = [V(f"{r}#{i}", v.shape, v.dt) for i, v in enumerate(list(operands) + list(state))]
        return results[:len(operands)], results[len(operands):]

    def half_residual(self, acc, ctx, body, hint):
        """nn.reversible_half_residual: acc' = acc + body(ctx); returns
        (acc', ctx). `body(u)` emits the residual of the block argument u;
        a body with layer state (batch norm's running statistics) returns
        (residual, [new state...]), which the op returns after ctx:
        then the result is (acc', ctx, [new state...])."""
        def region(args):
            y = body(args[0])
            y, state = y if isinstance(y, tuple) else (y, [])
            return [y], state
        (a, c), state = self._region("nn.reversible_half_residual", hint, [acc, ctx], [ctx],
                                     ["u"], region)
        return (a, c, state) if state else (a, c)

    def serial(self, inputs, body, hint, arg_hints):
        """nn.reversible_serial of `inputs`: `body(args)` emits the chain on
        the block arguments (named `arg_hints`) and returns its outputs, or
        (outputs, [layer state...]). Returns (outputs, state results)."""
        return self._region("nn.reversible_serial", hint, inputs, inputs, arg_hints, body)

    def swap(self, a, b):
        """nn.reversible_swap: (a, b) -> (b, a)."""
        r = self.fresh("swap")
        self.emit(f"{r}:2 = nn.reversible_swap {a}, {b} : {a.t}, {b.t}")
        return V(f"{r}#0", b.shape), V(f"{r}#1", a.shape)

    # -- tensor plumbing -----------------------------------------------------
    def slice_dim1(self, x, start, size, hint="sl"):
        """x[:, start:start+size, ...]"""
        shape = (x.shape[0], size) + x.shape[2:]
        r = V(self.fresh(hint), shape, x.dt)
        offs = ", ".join(["0", str(start)] + ["0"] * (len(x.shape) - 2))
        sizes = ", ".join(str(d) for d in shape)
        ones = ", ".join(["1"] * len(shape))
        self.emit(f"{r} = tensor.extract_slice {x}[{offs}] [{sizes}] [{ones}] : {x.t} to {r.t}")
        return r

    def flatten2(self, x, hint="flat"):
        """Merges the first two dimensions: BxLx... -> (B*L)x..."""
        shape = (x.shape[0] * x.shape[1],) + x.shape[2:]
        r = V(self.fresh(hint), shape, x.dt)
        groups = "[0, 1]" + "".join(f", [{i}]" for i in range(2, len(x.shape)))
        self.emit(f"{r} = tensor.collapse_shape {x} [{groups}] : {x.t} into {r.t}")
        return r


class Param:
    def __init__(self, name, shape, init):
        self.name, self.shape, self.init = name, tuple(shape), init

    def v(self):
        return V("%" + self.name, self.shape)


class Batch:
    """A batch argument: `shape` excludes the batch dimension."""

    def __init__(self, name, shape, dt):
        self.name, self.shape, self.dt = name, tuple(shape), dt

    def v(self, b):
        return V("%" + self.name, (b,) + self.shape, self.dt)


def _sig(vals, attrs=None):
    attrs = attrs or [""] * len(vals)
    return ",\n    ".join(f"{v}: {v.t}{a}" for v, a in zip(vals, attrs))


def _accuracy(f, logits, labels):
    """Share of rows whose label's logit is the row maximum (not differentiated)."""
    n, c = logits.shape
    f.emit("%ninf = arith.constant 0xFF800000 : f32")
    f.emit(f"%rows = tensor.empty() : {ty((n,))}")
    f.emit(f"%maxinit = linalg.fill ins(%ninf : f32) outs(%rows : {ty((n,))}) -> {ty((n,))}")
    f.emit(f"%rowmax = linalg.reduce ins({logits} : {logits.t}) outs(%maxinit : {ty((n,))}) dimensions = [1]")
    f.emit("    (%_v: f32, %_acc: f32) {")
    f.emit("      %_m = arith.maximumf %_v, %_acc : f32")
    f.emit("      linalg.yield %_m : f32")
    f.emit("    }")
    f.emit("%hit = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, "
           "affine_map<(i) -> (i)>], iterator_types = [\"parallel\"]}")
    f.emit(f"    ins({labels}, %rowmax : {labels.t}, {ty((n,))}) outs(%rows : {ty((n,))}) {{")
    f.emit("  ^bb0(%_label: i32, %_mx: f32, %_out: f32):")
    f.emit("    %_i = linalg.index 0 : index")
    f.emit("    %_j = arith.index_cast %_label : i32 to index")
    f.emit(f"    %_picked = tensor.extract {logits}[%_i, %_j] : {logits.t}")
    f.emit("    %_ok = arith.cmpf oge, %_picked, %_mx : f32")
    f.emit("    %_one = arith.constant 1.0 : f32")
    f.emit("    %_zero = arith.constant 0.0 : f32")
    f.emit("    %_r = arith.select %_ok, %_one, %_zero : f32")
    f.emit("    linalg.yield %_r : f32")
    f.emit(f"}} -> {ty((n,))}")
    f.emit(f"%accuracy = nn.mean %hit : ({ty((n,))}) -> tensor<f32>")


def _ident_map(rank):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({dims})>"


# The updates are written over the gradient (`outs(%g)`, read in the body):
# the gradient dies there, so bufferization computes the new parameter in its
# buffer instead of allocating one. (An init the body does not read would be
# replaced by a tensor.empty by linalg-fuse-elementwise-ops. Writing into the
# parameter's own buffer is no better: the deallocation pass clones every
# returned function argument.)

def _sgd_update(f, p, g, k):
    """One linalg.generic: p' = p - lr·g, over g's buffer."""
    t = ty(p.shape)
    rank = len(p.shape)
    maps = ", ".join([_ident_map(rank)] * 2)
    its = ", ".join(['"parallel"'] * rank)
    f.emit(f"%np{k} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}}")
    f.emit(f"    ins(%{p.name} : {t}) outs({g} : {t}) {{")
    f.emit("  ^bb0(%_p: f32, %_g: f32):")
    f.emit("    %_s = arith.mulf %_g, %lr : f32")
    f.emit("    %_pn = arith.subf %_p, %_s : f32")
    f.emit("    linalg.yield %_pn : f32")
    f.emit(f"}} -> {t}")


def _adam_update(f, p, g, m, v, k):
    """One linalg.generic: p' = p - lr_t·m'/(sqrt(v')+eps) (over g's buffer)
    with the moments (new buffers)."""
    t = ty(p.shape)
    rank = len(p.shape)
    f.emit(f"%e{k} = tensor.empty() : {t}")
    maps = ", ".join([_ident_map(rank)] * 6)
    its = ", ".join(['"parallel"'] * rank)
    f.emit(f"%np{k}, %nm{k}, %nv{k} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}}")
    f.emit(f"    ins(%{p.name}, %{m}, %{v} : {t}, {t}, {t}) outs({g}, %e{k}, %e{k} : {t}, {t}, {t}) {{")
    f.emit("  ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):")
    f.emit("    %_m1 = arith.mulf %b1, %_m : f32")
    f.emit("    %_m2 = arith.mulf %c1, %_g : f32")
    f.emit("    %_mn = arith.addf %_m1, %_m2 : f32")
    f.emit("    %_v1 = arith.mulf %b2, %_v : f32")
    f.emit("    %_gg = arith.mulf %_g, %_g : f32")
    f.emit("    %_v2 = arith.mulf %c2, %_gg : f32")
    f.emit("    %_vn = arith.addf %_v1, %_v2 : f32")
    f.emit("    %_sq = math.sqrt %_vn : f32")
    f.emit("    %_den = arith.addf %_sq, %eps : f32")
    f.emit("    %_q = arith.divf %_mn, %_den : f32")
    f.emit("    %_st = arith.mulf %lrt, %_q : f32")
    f.emit("    %_pn = arith.subf %_p, %_st : f32")
    f.emit("    linalg.yield %_pn, %_mn, %_vn : f32, f32, f32")
    f.emit(f"}} -> ({t}, {t}, {t})")


def module(header, params, batch, forward, train_batch, eval_batch,
           optimizer="adam", lr=1e-3, b1=0.9, b2=0.98, eps=1e-9, state=()):
    """forward(fn, params: dict name->V, batch: dict name->V) -> (logits NxC, labels N).
    With `state` (a list of Param): forward(fn, params, batch, state: dict
    name->V, training: bool) -> (logits, labels, new state in `state`'s order).

    optimizer: "sgd" (lr) or "adam" (lr, b1, b2, eps)."""
    out = [header.rstrip() + "\n"]
    pv = [p.v() for p in params]
    pdict = {p.name: p.v() for p in params}
    sv = [p.v() for p in state]
    sdict = {p.name: p.v() for p in state}
    state = list(state)
    opt = []
    if optimizer == "adam":
        opt = ([Param("m_" + p.name, p.shape, "zeros") for p in params] +
               [Param("v_" + p.name, p.shape, "zeros") for p in params] +
               [Param("beta1_pow", (), "ones"), Param("beta2_pow", (), "ones")])
    ov = [p.v() for p in opt]

    def body(b, training):
        f = Fn()
        bd = {x.name: x.v(b) for x in batch}
        if state:
            logits, labels, new_state = forward(f, pdict, bd, sdict, training)
        else:
            (logits, labels), new_state = forward(f, pdict, bd), []
        return f, [x.v(b) for x in batch], logits, labels, new_state

    # @loss
    f, bv, logits, labels, new_state = body(train_batch, True)
    loss = f.cross_entropy(logits, labels)
    ltypes = ", ".join(["tensor<f32>"] + [v.t for v in new_state])
    f.emit(f"return {', '.join(str(v) for v in [loss] + new_state)} : {ltypes}")
    if state:
        out.append(f"// The mean cross-entropy of a batch of {train_batch}, then the new layer state.")
        out.append(f"func.func private @loss({_sig(pv + sv + bv)}) -> ({ltypes}) {{")
    else:
        out.append(f"// The mean cross-entropy of a batch of {train_batch}.")
        out.append(f"func.func private @loss({_sig(pv + bv)}) -> tensor<f32> {{")
    out += f.lines + ["}\n"]

    # @train_step
    attrs = [f' {{trellis.init = "{p.init}"}}' for p in params + state + opt]
    battrs = [f' {{trellis.batch = "{x.name}"}}' for x in batch]
    all_p = pv + sv + ov
    rtypes = ", ".join([v.t for v in all_p] + ["tensor<f32>"])
    if optimizer == "adam":
        out.append(f"// One Adam step (lr {lr}, beta1 {b1}, beta2 {b2}, eps {eps}): the new parameters,")
        out.append("// moments and powers of beta, then the loss.")
    else:
        out.append(f"// One SGD step (learning rate {lr}): the new parameters, then the loss.")
    out.append(f"func.func @train_step({_sig(all_p + bv, attrs + battrs)})\n    -> ({rtypes}) {{")
    f = Fn()
    n = len(params)
    gs = [f"%g{i}" for i in range(n)]
    argnums = ", ".join(str(i) for i in range(n))
    ns = [f"%ns{i}" for i in range(len(state))]
    aux = ", has_aux = true" if state else ""
    f.emit(f"%loss, {', '.join(ns + gs)} = ad.value_and_grad @loss({', '.join(str(v) for v in pv + sv + bv)})")
    f.emit(f"    {{argnums = array<i64: {argnums}>{aux}}}")
    f.emit(f"    : ({', '.join(v.t for v in pv + sv + bv)})")
    f.emit(f"    -> (tensor<f32>, {', '.join([v.t for v in sv] + [v.t for v in pv])})")
    results = []
    if optimizer == "sgd":
        f.emit(f"%lr = arith.constant {lr:.6e} : f32")
        for i, p in enumerate(params):
            _sgd_update(f, p, gs[i], i)
    else:
        f.emit(f"%b1 = arith.constant {b1:.6e} : f32")
        f.emit(f"%b2 = arith.constant {b2:.6e} : f32")
        f.emit(f"%c1 = arith.constant {1 - b1:.6e} : f32")
        f.emit(f"%c2 = arith.constant {1 - b2:.6e} : f32")
        f.emit(f"%eps = arith.constant {eps:.6e} : f32")
        f.emit(f"%lr = arith.constant {lr:.6e} : f32")
        f.emit("%fone = arith.constant 1.0 : f32")
        f.emit("%b1p = tensor.extract %beta1_pow[] : tensor<f32>")
        f.emit("%b2p = tensor.extract %beta2_pow[] : tensor<f32>")
        f.emit("%b1t = arith.mulf %b1p, %b1 : f32")
        f.emit("%b2t = arith.mulf %b2p, %b2 : f32")
        f.emit("// lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)")
        f.emit("%bc2 = arith.subf %fone, %b2t : f32")
        f.emit("%bc2s = math.sqrt %bc2 : f32")
        f.emit("%bc1 = arith.subf %fone, %b1t : f32")
        f.emit("%lrbc = arith.divf %bc2s, %bc1 : f32")
        f.emit("%lrt = arith.mulf %lr, %lrbc : f32")
        for i, p in enumerate(params):
            _adam_update(f, p, gs[i], "m_" + p.name, "v_" + p.name, i)
        f.emit("%s0 = tensor.empty() : tensor<f32>")
        f.emit("%nb1 = linalg.fill ins(%b1t : f32) outs(%s0 : tensor<f32>) -> tensor<f32>")
        f.emit("%nb2 = linalg.fill ins(%b2t : f32) outs(%s0 : tensor<f32>) -> tensor<f32>")
        results = ([f"%nm{i}" for i in range(n)] + [f"%nv{i}" for i in range(n)] +
                   ["%nb1", "%nb2"])
    results = [f"%np{i}" for i in range(n)] + ns + results
    f.emit(f"return {', '.join(results + ['%loss'])}")
    f.emit(f"    : {rtypes}")
    out += f.lines + ["}\n"]

    # @eval
    f, bv, logits, labels, _ = body(eval_batch, False)
    loss = f.cross_entropy(logits, labels)
    _accuracy(f, logits, labels)
    f.emit(f"return %accuracy, {loss} : tensor<f32>, tensor<f32>")
    out.append(f"// Held-out metrics on a batch of {eval_batch}: the share of rows whose label's logit")
    out.append("// is the row maximum, and the cross-entropy.")
    out.append(f"func.func @eval({_sig(all_p + bv, [''] * len(all_p) + battrs)})\n"
               "    -> (tensor<f32> {trellis.name = \"accuracy\"}, tensor<f32> {trellis.name = \"loss\"}) {")
    out += f.lines + ["}"]
    return "\n".join(out) + "\n"
