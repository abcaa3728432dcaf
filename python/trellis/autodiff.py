"""trellis.grad / trellis.value_and_grad over a Model: the model becomes a
private `@loss` function and the entry calls `ad.grad` / `ad.value_and_grad`
on it (docs/autodiff.md), so Trellis differentiates it, with the reversible
schedules and remat policies of the compiler."""

from . import ir


def _wrt(model, wrt):
    """Argument numbers of the differentiated arguments."""
    n = len(model.params)
    first_input = n + len(model.state)  # the state is never differentiated
    if wrt == "params":
        return list(range(n))
    if wrt == "all":  # parameters and float inputs
        return list(range(n)) + [first_input + i for i, v in enumerate(model.input_values)
                                 if v.dtype in ("f32", "f64")]
    if wrt == "inputs":
        return [first_input + i for i, v in enumerate(model.input_values)
                if v.dtype in ("f32", "f64")]
    return list(wrt)


def gradient_module(model, kind="value_and_grad", wrt="params", entry=None):
    """MLIR text: `@loss` (the model) and `@<entry>` calling ad.<kind> on it.
    The model's first output must be a scalar (the value); further outputs,
    and the new layer state, are auxiliary (has_aux)."""
    if kind not in ("grad", "value_and_grad"):
        raise ValueError(f"kind must be 'grad' or 'value_and_grad', got {kind!r}")
    if not model.outputs or model.outputs[0].shape != ():
        raise ir.ShapeError("the model's first output must be a scalar loss, got " +
                            (model.outputs[0].type if model.outputs else "no output"))
    entry = entry or kind
    argnums = _wrt(model, wrt)
    args = model.args
    aux = model.results[1:]
    grads = [ir.Value(f"%g{i}", args[a].shape, args[a].dtype) for i, a in enumerate(argnums)]
    value = ir.Value("%value", (), model.outputs[0].dtype)
    auxv = [ir.Value(f"%aux{i}", v.shape, v.dtype) for i, v in enumerate(aux)]
    results = (grads + auxv) if kind == "grad" else ([value] + auxv + grads)
    attrs = [f"argnums = array<i64: {', '.join(map(str, argnums))}>"]
    if aux:
        attrs.append("has_aux = true")
    names = ", ".join(map(str, results))
    body = [f"  {names} = ad.{kind} @loss({', '.join(map(str, args))}) {{{', '.join(attrs)}}}",
            f"      : ({', '.join(v.type for v in args)})",
            f"      -> ({', '.join(v.type for v in results)})"]
    return (model.function("loss", private=True) + "\n" +
            ir.function(entry, args, results, body))


class _Gradient:
    def __init__(self, model, kind, wrt, options):
        from . import compile as _compile
        self.model, self.kind = model, kind
        self.text = gradient_module(model, kind, wrt)
        self.fn = _compile(self.text, kind, **options)
        self.n_grads = len(_wrt(model, wrt))
        self.n_aux = len(model.results) - 1

    def __call__(self, params, *inputs, rng=None, state=None):
        extra = []
        if self.model.rng is not None:
            import numpy as np
            extra = [np.asarray(rng if rng is not None else (0, 0), np.int32)]
        state = self.model.init_state() if state is None else list(state)
        out = self.fn(*params, *state, *inputs, *extra)
        if self.kind == "grad":
            grads, aux = list(out[:self.n_grads]), out[self.n_grads:]
            return (grads, aux) if self.n_aux else grads
        value, aux, grads = out[0], out[1:1 + self.n_aux], list(out[1 + self.n_aux:])
        return ((value, aux) if self.n_aux else value), grads


def grad(model, wrt="params", **options):
    """A callable g(params, *inputs) -> list of gradients of the model's
    scalar first output w.r.t. `wrt` ('params', 'inputs', 'all' or argument
    numbers); with auxiliary outputs, (grads, aux)."""
    return _Gradient(model, "grad", wrt, options)


def value_and_grad(model, wrt="params", **options):
    """Like grad, returning (value, grads); with auxiliary outputs,
    ((value, aux), grads)."""
    return _Gradient(model, "value_and_grad", wrt, options)
