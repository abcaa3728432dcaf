"""Gradient checks of the `ad` dialect against central finite differences.

A test script does

    gc = GradCheck.from_argv()               # argv: MODEL.mlir WORKDIR
    x, c = gc.randn(5, 4), gc.randn(5, 4)
    gc.check("tanh", "f_tanh", [x, c], argnums=[0], full=[0])
    h = gc.call("my_entry", [x], results=2)  # any entry of the model
    gc.run()                                 # ONE trellis-run for everything
    gc.close("my_entry.y", h.results[0], want)
    gc.finish()

`check(name, fn, inputs, argnums)` differentiates `@fn` (whose first result
is a 0-d float64 loss, `tensor<f64>`; further results are aux and are passed
through with `has_aux = true`) with `ad.grad` for `argnums` and compares each
gradient G_i with central finite differences of `@fn` itself:

  * K = 4 random directions v_k (standard normal per element) for every
    differentiated argument: the directional derivative <G_i, v_k> against
        fd_k = (f(.., x_i + eps·v_k, ..) − f(.., x_i − eps·v_k, ..)) / (2·eps)
    with eps = 1e-6 (each argument is perturbed on its own, so every
    gradient gets its own error);
  * with `full=[i, ...]`, additionally every basis vector e_j of argument i,
    i.e. the whole gradient element by element (catches an element-wise bug
    a random projection could average away).

Error measure, per row (direction) m of argument i:

    err_m = |<G_i, v_m> − fd_m| / max(|fd_m|, floor_i),
    floor_i = max(1e-2 · max_m' |fd_m'|, 1e-9)

where the max runs over the rows of the same kind (random directions, or
basis vectors) of argument i. So every entry at least 1% of the gradient's
largest is held to 1e-6 relative, and smaller ones to an absolute
1e-8·max|fd| (run.py's value checks floor at the full RMS; this is far
stricter). The floor exists because a central difference's error is
absolute (rounding ~ 2e-16·|f|/eps, about 1e-10..1e-9 here, plus
truncation ~ eps²·|f'''|/6): demanding 1e-6 relative accuracy of a
near-zero entry would test the finite difference, not the derivative (a
cross-entropy gradient entry of ~4e-4 next to entries of ~0.4 showed 9e-7
from FD rounding alone under a 1e-3 floor). An argument the loss does not
depend on has fd exactly 0 and must get a gradient within 1e-15 of 0.
Every error must be <= 1e-6 (RTOL). Inputs are float64 throughout.

Integer arguments listed in `argnums` are not perturbed; their gradient must
be all zeros (integers carry no cotangent). `ad.grad` rejects integer
argnums at verification, so this serves `grads_from` a call of `ad.vjp`,
which returns a (zero) cotangent for every primal.

How it runs: the model text gets one extra module tail appended, with per
check `@__gc<c>_grad` (the `ad.grad`) and per differentiated argument
`@__gc<c>_probe<i>(args..., dirs: tensor<M x shape>, eps: tensor<f64>)
-> tensor<Mx2xf64>` (an scf.for over the M stacked directions, computing
x_i ± eps·v with arith.mulf/addf/subf on tensors and two func.call @fn per
row), and one `@__gc_main` calling all of them and every `call()`. That is
ONE trellis-run (one JIT compile) per test script. If it fails, each check
is re-run in a module of its own, so the failing one is named.

Each gradient prints one line `PASS|FAIL <check>.<arg>: ...` with the worst
relative error; `finish()` exits 1 on any failure.

Name model functions unlike C library functions (`@tanh`, `@exp`, `@erf`,
...): the JIT resolves the libm calls of the math lowering to a module
function of the same name (a `func.func @tanh` makes every f64 math.tanh
call it, and crash).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

import numpy as np

from trellis_testing.run import Checker, trellis_run_path

EPS = 1e-6            # finite-difference step
RTOL = 1e-6           # relative error bound
FLOOR_REL = 1e-2      # floor, as a fraction of the largest |fd| of the group
FLOOR_ABS = 1e-9      # absolute floor (all-zero gradients)
NUM_DIRECTIONS = 4    # random directions per differentiated argument

_ELEMENT = {
    np.dtype(np.float64): "f64", np.dtype(np.float32): "f32",
    np.dtype(np.int32): "i32", np.dtype(np.int64): "i64",
    np.dtype(np.uint32): "ui32", np.dtype(np.bool_): "i1",
}


def tensor_type(shape, dtype):
    elem = _ELEMENT[np.dtype(dtype)]
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{elem}>"


# ---------------------------------------------------------------------------
# A minimal reader of func.func signatures (result types for the calls)
# ---------------------------------------------------------------------------

_OPEN = {"(": ")", "<": ">", "[": "]", "{": "}"}


def _balanced(text, start):
    """Index one past the bracket closing text[start]."""
    stack = []
    i = start
    while i < len(text):
        ch = text[i]
        if ch in _OPEN:
            stack.append(_OPEN[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    raise ValueError("unbalanced brackets in signature")


def _split_top(text):
    parts, depth, cur = [], 0, []
    for i, ch in enumerate(text):
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}" and not (ch == ">" and i and text[i - 1] == "-"):
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _strip_attrs(item):
    item = re.sub(r"\{.*\}\s*$", "", item.strip()).strip()
    if ":" in item and item.startswith("%"):
        item = item.split(":", 1)[1].strip()
    return item


def function_signature(text, name):
    """(argument types, result types) of `func.func @name` in `text`."""
    m = re.search(r"func\.func\s+(?:(?:private|public|nested)\s+)?@"
                  + re.escape(name) + r"\s*\(", text)
    if not m:
        raise KeyError(f"no func.func @{name} in the model")
    open_paren = m.end() - 1
    close = _balanced(text, open_paren)
    args = [_strip_attrs(a) for a in _split_top(text[open_paren + 1:close - 1])]
    rest = text[close:].lstrip()
    results = []
    if rest.startswith("->"):
        rest = rest[2:].lstrip()
        if rest.startswith("("):
            end = _balanced(rest, 0)
            results = [_strip_attrs(r) for r in _split_top(rest[1:end - 1])]
        else:  # a single type, e.g. tensor<f64>, up to the body's '{'
            depth, end = 0, 0
            while end < len(rest):
                ch = rest[end]
                if ch == "<":
                    depth += 1
                elif ch == ">":
                    depth -= 1
                elif depth == 0 and (ch.isspace() or ch == "{"):
                    break
                end += 1
            results = [rest[:end]]
    return args, results


# ---------------------------------------------------------------------------
# Checks and calls
# ---------------------------------------------------------------------------

class Call:
    """A call of a model entry, run within the combined module."""

    def __init__(self, entry, inputs, results, result_types):
        self.entry = entry
        self.inputs = [np.asarray(a) for a in inputs]
        self.num_results = results
        self.result_types = result_types
        self.results = None


class _Check:
    def __init__(self, name, fn, inputs, argnums, full, arg_names,
                 grads_from, rng):
        self.name = name
        self.fn = fn
        self.inputs = [np.asarray(a) for a in inputs]
        self.argnums = list(argnums)
        self.full = set(full)
        self.arg_names = arg_names
        self.grads_from = grads_from  # (Call, [result indices]) or None
        self.grads = None
        self.probes = {}    # argnum -> (dirs, num_random)
        self.probe_results = {}
        for i in self.argnums:
            a = self.inputs[i]
            if not np.issubdtype(a.dtype, np.floating):
                continue
            if a.dtype != np.float64:
                raise TypeError(f"{name}: argument {i} is {a.dtype}; "
                                "gradient checks are float64")
            rows = [rng.standard_normal(a.shape)
                    for _ in range(NUM_DIRECTIONS)]
            if i in self.full:
                for j in range(a.size):
                    e = np.zeros(a.size)
                    e[j] = 1.0
                    rows.append(e.reshape(a.shape))
            self.probes[i] = (np.stack(rows), NUM_DIRECTIONS)

    def arg_name(self, i):
        if self.arg_names and i < len(self.arg_names):
            return self.arg_names[i]
        return f"arg{i}"


class GradCheck(Checker):
    """Collects gradient checks and calls, runs them in one trellis-run."""

    def __init__(self, model, workdir, seed=0, opt_level=None,
                 run_args=()):
        """`run_args`: extra trellis-run arguments (e.g. a lowering
        option such as `--attention-chunk=4`)."""
        super().__init__(np.float64)
        self.model = model
        self.workdir = workdir
        self.rng = np.random.default_rng(seed)
        self.opt_level = opt_level
        self.run_args = list(run_args)
        with open(model) as f:
            self.text = f.read()
        self.checks = []
        self.calls = []
        self.command = None
        os.makedirs(workdir, exist_ok=True)

    @classmethod
    def from_argv(cls, seed=0):
        parser = argparse.ArgumentParser()
        parser.add_argument("model", help="the .mlir model (lit's %%s)")
        parser.add_argument("workdir", help="scratch directory (lit's %%t)")
        parser.add_argument("--opt-level", type=int, default=None)
        args = parser.parse_args()
        return cls(args.model, args.workdir, seed, args.opt_level)

    # -- inputs -------------------------------------------------------------

    def randn(self, *shape, scale=1.0, loc=0.0):
        return np.asarray(loc + scale * self.rng.standard_normal(shape),
                          dtype=np.float64)

    def uniform(self, low, high, *shape):
        return np.asarray(self.rng.uniform(low, high, size=shape),
                          dtype=np.float64)

    def away_from_zero(self, *shape, margin=0.2, scale=1.0):
        """Normal values with |x| >= margin (for kinks at 0)."""
        x = self.rng.standard_normal(shape) * scale
        return np.where(x >= 0, x + margin, x - margin).astype(np.float64)

    def randint(self, low, high, *shape, dtype=np.int32):
        return self.rng.integers(low, high, size=shape).astype(dtype)

    # -- registering --------------------------------------------------------

    def check(self, name, fn, inputs, argnums, full=(), arg_names=None,
              grads_from=None):
        """Gradient of @fn's first result w.r.t. inputs[argnums] against
        finite differences of @fn. `full`: argnums also checked element by
        element. `grads_from=(call, [indices])`: take the gradients from
        those results of a `call()` instead of a generated `ad.grad`."""
        c = _Check(name, fn, inputs, argnums, full, arg_names, grads_from,
                   self.rng)
        self.checks.append(c)
        return c

    def call(self, entry, inputs, results):
        _, result_types = function_signature(self.text, entry)
        if len(result_types) != results:
            raise ValueError(f"@{entry} has {len(result_types)} results, "
                             f"expected {results}")
        c = Call(entry, inputs, results, result_types)
        self.calls.append(c)
        return c

    # -- module generation --------------------------------------------------

    def _fn_call(self, fn, operands, arg_types, result_types, prefix):
        """A func.call of @fn; returns (text, first result name)."""
        ops = ", ".join(operands)
        ats = ", ".join(arg_types)
        if len(result_types) == 1:
            return (f"{prefix} = func.call @{fn}({ops}) : ({ats}) -> "
                    f"{result_types[0]}", prefix)
        rts = ", ".join(result_types)
        return (f"{prefix}:{len(result_types)} = func.call @{fn}({ops}) : "
                f"({ats}) -> ({rts})", f"{prefix}#0")

    def _grad_func(self, ci, c, arg_types, result_types):
        args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arg_types))
        grad_types = [arg_types[i] for i in c.argnums]
        aux = result_types[1:]
        outs = grad_types + aux
        names = [f"%g{j}" for j in range(len(outs))]
        lhs = ", ".join(names)
        attrs = "argnums = array<i64: " + ", ".join(map(str, c.argnums)) + ">"
        if aux:
            attrs += ", has_aux = true"
        operands = ", ".join(f"%a{i}" for i in range(len(arg_types)))
        rts = ", ".join(grad_types)
        return (
            f"func.func @__gc{ci}_grad({args}) -> ({rts}) {{\n"
            f"  {lhs} = ad.grad @{c.fn}({operands}) {{{attrs}}} : "
            f"({', '.join(arg_types)}) -> ({', '.join(outs)})\n"
            f"  return {', '.join(names[:len(grad_types)])} : {rts}\n"
            f"}}\n")

    def _probe_func(self, ci, c, i, arg_types, result_types):
        dirs, _ = c.probes[i]
        rows = dirs.shape[0]
        shape = c.inputs[i].shape
        t = arg_types[i]
        dirs_t = tensor_type(dirs.shape, np.float64)
        out_t = f"tensor<{rows}x2xf64>"
        args = ", ".join(f"%a{j}: {ty}" for j, ty in enumerate(arg_types))
        rank = len(shape)
        offs = ", ".join(["%m"] + ["0"] * rank)
        sizes = ", ".join(["1"] + [str(d) for d in shape])
        strides = ", ".join(["1"] * (rank + 1))
        plus = [f"%a{j}" if j != i else "%xp" for j in range(len(arg_types))]
        minus = [f"%a{j}" if j != i else "%xm" for j in range(len(arg_types))]
        call_p, fp = self._fn_call(c.fn, plus, arg_types, result_types, "%fp")
        call_m, fm = self._fn_call(c.fn, minus, arg_types, result_types, "%fm")
        loss_t = result_types[0]
        return f"""func.func @__gc{ci}_probe{i}({args}, %dirs: {dirs_t}, %eps: tensor<f64>) -> {out_t} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cm = arith.constant {rows} : index
  %e = tensor.extract %eps[] : tensor<f64>
  %empty = tensor.empty() : {t}
  %ev = linalg.fill ins(%e : f64) outs(%empty : {t}) -> {t}
  %init = tensor.empty() : {out_t}
  %r = scf.for %m = %c0 to %cm step %c1 iter_args(%acc = %init) -> ({out_t}) {{
    %v = tensor.extract_slice %dirs[{offs}] [{sizes}] [{strides}] : {dirs_t} to {t}
    %d = arith.mulf %ev, %v : {t}
    %xp = arith.addf %a{i}, %d : {t}
    %xm = arith.subf %a{i}, %d : {t}
    {call_p}
    {call_m}
    %sp = tensor.extract {fp}[] : {loss_t}
    %sm = tensor.extract {fm}[] : {loss_t}
    %acc1 = tensor.insert %sp into %acc[%m, %c0] : {out_t}
    %acc2 = tensor.insert %sm into %acc1[%m, %c1] : {out_t}
    scf.yield %acc2 : {out_t}
  }}
  return %r : {out_t}
}}
"""

    def _plan(self, checks, calls):
        """Module tail and the main's (inputs, outputs) bookkeeping."""
        funcs = []
        main_args = []      # (name, array)
        main_body = []
        main_results = []   # (name, type)
        sinks = []          # (kind, object, key) per main result
        eps = np.asarray(EPS, dtype=np.float64)
        main_args.append(("%eps", eps))

        def add_inputs(prefix, arrays):
            names = []
            for j, a in enumerate(arrays):
                n = f"%{prefix}_in{j}"
                main_args.append((n, a))
                names.append(n)
            return names

        for ki, call in enumerate(calls):
            arg_types = [tensor_type(a.shape, a.dtype) for a in call.inputs]
            names = add_inputs(f"call{ki}", call.inputs)
            text, _ = self._fn_call(call.entry, names, arg_types,
                                    call.result_types, f"%call{ki}_r")
            main_body.append(text)
            for j, rt in enumerate(call.result_types):
                ref = (f"%call{ki}_r" if len(call.result_types) == 1
                       else f"%call{ki}_r#{j}")
                main_results.append((ref, rt))
                sinks.append(("call", call, j))

        for ci, c in checks:
            arg_types = [tensor_type(a.shape, a.dtype) for a in c.inputs]
            sig_args, result_types = function_signature(self.text, c.fn)
            if len(sig_args) != len(arg_types):
                raise ValueError(f"{c.name}: @{c.fn} takes {len(sig_args)} "
                                 f"arguments, got {len(arg_types)} inputs")
            names = add_inputs(f"c{ci}", c.inputs)
            if c.grads_from is None:
                funcs.append(self._grad_func(ci, c, arg_types, result_types))
                grad_types = [arg_types[i] for i in c.argnums]
                text, _ = self._fn_call(f"__gc{ci}_grad", names, arg_types,
                                        grad_types, f"%c{ci}_g")
                main_body.append(text)
                for j, gt in enumerate(grad_types):
                    ref = (f"%c{ci}_g" if len(grad_types) == 1
                           else f"%c{ci}_g#{j}")
                    main_results.append((ref, gt))
                    sinks.append(("grad", c, j))
            for i in c.probes:
                funcs.append(self._probe_func(ci, c, i, arg_types,
                                              result_types))
                dirs, _ = c.probes[i]
                dn = f"%c{ci}_dirs{i}"
                main_args.append((dn, dirs))
                rows = dirs.shape[0]
                out_t = f"tensor<{rows}x2xf64>"
                ref = f"%c{ci}_p{i}"
                main_body.append(
                    f"{ref} = func.call @__gc{ci}_probe{i}({', '.join(names)}, "
                    f"{dn}, %eps) : ({', '.join(arg_types)}, "
                    f"{tensor_type(dirs.shape, np.float64)}, tensor<f64>) -> "
                    f"{out_t}")
                main_results.append((ref, out_t))
                sinks.append(("probe", c, i))

        margs = ", ".join(f"{n}: {tensor_type(a.shape, a.dtype)}"
                          for n, a in main_args)
        rts = ", ".join(t for _, t in main_results)
        body = "\n  ".join(main_body)
        rets = ", ".join(n for n, _ in main_results)
        funcs.append(f"func.func @__gc_main({margs}) -> ({rts}) {{\n"
                     f"  {body}\n  return {rets} : {rts}\n}}\n")
        return "".join(funcs), [a for _, a in main_args], sinks

    def _module_text(self, tail):
        text = self.text
        stripped = re.sub(r"//[^\n]*", "", text).strip()
        header = "\n// ---- generated by trellis_testing/gradcheck.py ----\n"
        if stripped.startswith("module"):
            end = text.rstrip().rfind("}")
            return text[:end] + header + tail + "}\n"
        return text + header + tail

    def _run_module(self, tag, checks, calls):
        tail, inputs, sinks = self._plan(checks, calls)
        d = os.path.join(self.workdir, tag)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        module = os.path.join(d, "module.mlir")
        with open(module, "w") as f:
            f.write(self._module_text(tail))
        out = os.path.join(d, "out")
        cmd = [trellis_run_path(), module, "--entry=__gc_main",
               f"--output-dir={out}"]
        if self.opt_level is not None:
            cmd.append(f"--opt-level={self.opt_level}")
        cmd += self.run_args
        for j, a in enumerate(inputs):
            p = os.path.join(d, f"in{j}.npy")
            np.save(p, np.array(a, order="C"))
            cmd.append(f"--input={p}")
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        if tag == "all":
            self.command = cmd
        if proc.returncode != 0:
            return None, cmd, proc
        results = []
        for j in range(len(sinks)):
            p = os.path.join(out, f"result{j}.npy")
            if not os.path.exists(p):
                return None, cmd, proc
            results.append(np.load(p))
        for (kind, obj, key), r in zip(sinks, results):
            if kind == "call":
                if obj.results is None:
                    obj.results = [None] * obj.num_results
                obj.results[key] = r
            elif kind == "grad":
                if obj.grads is None:
                    obj.grads = [None] * len(obj.argnums)
                obj.grads[key] = r
            else:
                obj.probe_results[key] = r
        return results, cmd, proc

    # -- running and comparing ----------------------------------------------

    def run(self):
        """Runs every check and call in one trellis-run, then compares."""
        checks = list(enumerate(self.checks))
        results, cmd, proc = self._run_module("all", checks, self.calls)
        if results is None and len(checks) + len(self.calls) == 1:
            item = checks[0][1].name if checks else self.calls[0].entry
            self._report(False, item, f"trellis-run failed:\n  command: "
                         f"{' '.join(cmd)}\n  stderr: {_head(proc.stderr)}")
        elif results is None:
            print(f"NOTE: the combined module failed (trellis-run exit "
                  f"{proc.returncode}); re-running each check alone\n"
                  f"  command: {' '.join(cmd)}\n"
                  f"  stderr: {_head(proc.stderr)}")
            for ki, call in enumerate(self.calls):
                r, cmd, proc = self._run_module(f"call{ki}", [], [call])
                if r is None:
                    self._report(False, f"{call.entry}",
                                 f"trellis-run failed:\n  command: "
                                 f"{' '.join(cmd)}\n  stderr: "
                                 f"{_head(proc.stderr)}")
            for ci, c in checks:
                r, cmd, proc = self._run_module(f"check{ci}", [(ci, c)], [])
                if r is None:
                    self._report(False, c.name,
                                 f"trellis-run failed:\n  command: "
                                 f"{' '.join(cmd)}\n  stderr: "
                                 f"{_head(proc.stderr)}")
        for ci, c in checks:
            self._compare(c)
        sys.stdout.flush()

    def finish(self):
        if self.failures and self.command:
            print("NOTE: the generated module and its inputs, to reproduce: "
                  + " ".join(self.command))
        super().finish()

    def _compare(self, c):
        if c.grads_from is not None:
            call, idx = c.grads_from
            if call.results is not None:
                c.grads = [call.results[j] for j in idx]
        if c.grads is None:
            return  # already reported as a failed run
        for j, i in enumerate(c.argnums):
            name = f"{c.name}.{c.arg_name(i)}"
            g = np.asarray(c.grads[j])
            a = c.inputs[i]
            if g.shape != a.shape or g.dtype != a.dtype:
                self._report(False, name, f"gradient is {g.dtype} {g.shape}, "
                             f"expected {a.dtype} {a.shape}")
                continue
            if i not in c.probes:  # integer argument
                nz = np.count_nonzero(g)
                self._report(nz == 0, name, f"integer argument: {nz} of "
                             f"{g.size} gradient entries nonzero (want 0)")
                continue
            if i not in c.probe_results:
                self._report(False, name, "no finite differences (run failed)")
                continue
            dirs, nrand = c.probes[i]
            p = c.probe_results[i]
            fd = (p[:, 0] - p[:, 1]) / (2.0 * EPS)
            ad = dirs.reshape(dirs.shape[0], -1) @ g.reshape(-1)
            parts, ok = [], True
            for label, sl in (("directional", slice(0, nrand)),
                              ("elementwise", slice(nrand, None))):
                f, d = fd[sl], ad[sl]
                if f.size == 0:
                    continue
                floor = max(FLOOR_REL * float(np.max(np.abs(f))), FLOOR_ABS)
                err = np.abs(d - f) / np.maximum(np.abs(f), floor)
                if not np.all(np.isfinite(err)):
                    err = np.where(np.isfinite(err), err, np.inf)
                w = int(np.argmax(err))
                worst = float(err[w])
                text = (f"{label} ({f.size}) max rel err {worst:.3g} "
                        f"(floor {floor:.3g})")
                if worst > RTOL or not np.isfinite(worst):
                    ok = False
                    where = (f"direction {w}" if label == "directional" else
                             f"element {np.unravel_index(w, a.shape)}")
                    text += f" at {where}: ad {d[w]!r}, fd {f[w]!r}"
                    if label == "elementwise":
                        bad = int(np.count_nonzero(err > RTOL))
                        text += f", {bad} of {f.size} elements off"
                parts.append(text)
            self._report(ok, name, "; ".join(parts) +
                         f" [eps {EPS:g}, rtol {RTOL:g}]")


def _head(text, lines=15):
    """The informative part of trellis-run's stderr: diagnostics, and of a
    crash's stack dump the frames in Trellis code."""
    ls = []
    for line in text.strip().splitlines():
        if (line.startswith("PLEASE submit") or line.startswith("Stack dump")
                or "Program arguments:" in line):
            continue
        if re.match(r"\s*#\d+ ", line):
            if "trellis" not in line:
                continue
            line = re.sub(r"\(/[^)]*\)$", "", line)[:200]
        ls.append(line)
    if not ls:
        ls = ["(crashed without a diagnostic)"]
    more = f"\n  ... ({len(ls) - lines} more lines)" if len(ls) > lines else ""
    return "\n  ".join(ls[:lines]) + more
