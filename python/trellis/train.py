"""Training as a library: a model, a loss and an optimizer become a module
that follows trellis-train's convention (docs/training.md), and `Trainer`
drives trellis-train on it, so checkpoints, resume, metrics, the loss curve
and data parallelism under `mpirun` are the C++ trainer's.

The emitted `@train_step(params..., slots..., step, batch...)`:
  s = step (0-based), t = s + 1
  loss, grads = ad.value_and_grad @loss(params, batch[, rng key (seed, s)])
  grads *= min(1, clip_norm / (‖grads‖₂ + 1e-6))          (if clip_norm)
  lr = schedule(s); params, slots = optimizer rule (one linalg.generic each)
  return params, slots, step + 1, loss
Optimizer slots (Adam's moments, SGD's momentum) and the step counter are
parameters initialized to zeros, so they are checkpointed with the weights.
"""

import json
import os
import subprocess
import sys

import numpy as np

from . import ir
from . import layers as tl
from .optim import Scalars


def _ident_map(rank):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({dims})>"


def _accuracy(b, logits, labels):
    """The share of rows whose label's logit is the row maximum."""
    n, _ = logits.shape
    ft = logits.dtype
    rows = ir.ty((n,), ft)
    names = {k: b.fresh(k) for k in ("ninf", "rows", "maxinit", "rowmax", "hit")}
    ninf = "0xFF800000" if ft == "f32" else "0xFFF0000000000000"
    b.emit(f"{names['ninf']} = arith.constant {ninf} : {ft}")
    b.emit(f"{names['rows']} = tensor.empty() : {rows}")
    b.emit(f"{names['maxinit']} = linalg.fill ins({names['ninf']} : {ft}) outs({names['rows']} : {rows}) -> {rows}")
    v, a, m = b.fresh("v"), b.fresh("acc"), b.fresh("m")
    b.emit(f"{names['rowmax']} = linalg.reduce ins({logits} : {logits.type}) outs({names['maxinit']} : {rows}) dimensions = [1]")
    b.emit(f"    ({v}: {ft}, {a}: {ft}) {{")
    b.emit(f"      {m} = arith.maximumf {v}, {a} : {ft}")
    b.emit(f"      linalg.yield {m} : {ft}")
    b.emit("    }")
    lab, mx, out = b.fresh("label"), b.fresh("mx"), b.fresh("out")
    i, j, picked, ok = b.fresh("i"), b.fresh("j"), b.fresh("picked"), b.fresh("ok")
    one, zero, r = b.fresh("one"), b.fresh("zero"), b.fresh("r")
    maps = ", ".join([_ident_map(1)] * 3)
    b.emit(f"{names['hit']} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [\"parallel\"]}}")
    b.emit(f"    ins({labels}, {names['rowmax']} : {labels.type}, {rows}) outs({names['rows']} : {rows}) {{")
    b.emit(f"  ^bb0({lab}: i32, {mx}: {ft}, {out}: {ft}):")
    b.emit(f"    {i} = linalg.index 0 : index")
    b.emit(f"    {j} = arith.index_cast {lab} : i32 to index")
    b.emit(f"    {picked} = tensor.extract {logits}[{i}, {j}] : {logits.type}")
    b.emit(f"    {ok} = arith.cmpf oge, {picked}, {mx} : {ft}")
    b.emit(f"    {one} = arith.constant 1.0 : {ft}")
    b.emit(f"    {zero} = arith.constant 0.0 : {ft}")
    b.emit(f"    {r} = arith.select {ok}, {one}, {zero} : {ft}")
    b.emit(f"    linalg.yield {r} : {ft}")
    b.emit(f"}} -> {rows}")
    hit = ir.Value(names["hit"], (n,), ft)
    return b.mean(hit)


def Accuracy():
    """(logits BxC, int32 labels B) -> accuracy, a scalar (not differentiable)."""
    return tl.Fn("Accuracy", _accuracy, n_in=2)


def _specs(inputs, batch, dtype):
    out = []
    for name, spec in inputs.items():
        shape, dt = (spec, None) if not (isinstance(spec, tuple) and len(spec) == 2
                                         and isinstance(spec[1], str)) else spec
        out.append((name, tl.Input((batch,) + tuple(shape), dt or dtype)))
    return out


def step_module(model, loss, inputs, batch_size, optimizer, clip_norm=None,
                dtype="f32", eval_batch_size=None, accuracy=True, dropout_seed=0):
    """The MLIR text of a trellis-train module: @loss, @train_step and @eval.

    model: a layer taking the leading inputs; loss: a layer taking the
    model's outputs and the remaining inputs to a scalar (e.g.
    CrossEntropyLoss). inputs: {array name: per-example shape or (shape,
    dtype)}, in the model's order; these name the .npz arrays."""
    specs = _specs(inputs, batch_size, dtype)
    full = tl.Serial(model, loss)
    lm = tl.Model(full, [s for _, s in specs], dtype=dtype, mode="train")
    if not lm.outputs or lm.outputs[0].shape != ():
        raise ir.ShapeError("the loss must leave a scalar first, got " +
                            (lm.outputs[0].type if lm.outputs else "nothing"))
    ft = dtype
    text = [lm.function("loss", private=True)]

    b = ir.Builder(dtype)
    sc = Scalars(b, ft)
    params = [p.value for p in lm.params]
    # Layer state (BatchNorm's running statistics) follows the parameters:
    # @loss returns its new value as auxiliary results, which @train_step
    # returns in the state's places (not touched by the optimizer).
    state = [p.value for p in lm.state]
    slots = [[ir.Value(f"%slot{j}_{i}", p.shape, p.dtype) for i, p in enumerate(lm.params)]
             for j in range(len(optimizer.state))]
    step = ir.Value("%step", (), ft)
    batch = [ir.Value(f"%x{i}", s.shape, s.dtype) for i, (_, s) in enumerate(specs)]
    args = params + state + [v for slot in slots for v in slot] + [step] + batch
    attrs = ([f' {{trellis.init = "{p.init}"}}' for p in lm.params + lm.state] +
             [' {trellis.init = "zeros"}'] * (len(args) - len(params) - len(state) - len(batch)) +
             [f' {{trellis.batch = "{name}"}}' for name, _ in specs])

    s0 = b.fresh("s")
    b.emit(f"{s0} = tensor.extract %step[] : tensor<{ft}>")
    t = sc.add(s0, sc.const(1.0))
    call_args = params + state + batch
    if lm.rng is not None:
        si, seed, key = b.fresh("si"), b.fresh("seed"), b.fresh("key")
        b.emit(f"{si} = arith.fptosi {s0} : {ft} to i32")
        b.emit(f"{seed} = arith.constant {int(dropout_seed)} : i32")
        b.emit(f"{key} = tensor.from_elements {seed}, {si} : tensor<2xi32>")
        call_args = call_args + [ir.Value(key, (2,), "i32")]
    grads = [ir.Value(f"%g{i}", p.shape, p.dtype) for i, p in enumerate(params)]
    value = ir.Value("%value", (), ft)
    aux = [ir.Value(f"%aux{i}", v.shape, v.dtype) for i, v in enumerate(lm.results[1:])]
    new_state = aux[len(aux) - len(state):] if state else []
    results = [value] + aux + grads
    extra = ", has_aux = true" if aux else ""
    b.emit(f"{', '.join(map(str, results))} = ad.value_and_grad @loss("
           f"{', '.join(map(str, call_args))}) {{argnums = array<i64: "
           f"{', '.join(str(i) for i in range(len(params)))}>{extra}}}")
    b.emit(f"    : ({', '.join(v.type for v in call_args)}) -> ({', '.join(v.type for v in results)})")

    coef = None
    if clip_norm is not None:
        total = None
        for g in grads:
            sq = b.binary("arith.mulf", g, g)
            m = b.mean(sq)
            e = b.fresh("e")
            b.emit(f"{e} = tensor.extract {m}[] : {m.type}")
            part = sc.mul(e, sc.const(int(np.prod(g.shape, dtype=np.int64))))
            total = part if total is None else sc.add(total, part)
        norm = sc.op("math.sqrt", total)
        coef = sc.min(sc.const(1.0), sc.div(sc.const(clip_norm), sc.add(norm, sc.const(1e-6))))

    k = optimizer.prepare(sc, s0, t)
    new_params, new_slots = [], [[] for _ in optimizer.state]
    for i, (p, g) in enumerate(zip(params, grads)):
        rank = len(p.shape)
        n_slots = len(optimizer.state)
        maps = ", ".join([_ident_map(rank)] * (2 + 2 * n_slots))
        its = ", ".join(['"parallel"'] * rank)
        empty = None
        if n_slots:
            empty = b.fresh("empty")
            b.emit(f"{empty} = tensor.empty() : {p.type}")
        base = b.fresh("upd")
        head = f"{base}:{1 + n_slots}" if n_slots else base
        ins = [p] + [slots[j][i] for j in range(n_slots)]
        outs = [str(g)] + [empty] * n_slots
        b.emit(f"{head} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}}")
        b.emit(f"    ins({', '.join(map(str, ins))} : {', '.join(v.type for v in ins)})"
               f" outs({', '.join(outs)} : {', '.join([p.type] * len(outs))}) {{")
        bp = b.fresh("bp")
        bs = [b.fresh("bs") for _ in range(n_slots)]
        bg = b.fresh("bg")
        bo = [b.fresh("bo") for _ in range(n_slots)]
        b.emit(f"  ^bb0({', '.join(f'{n}: {ft}' for n in [bp] + bs + [bg] + bo)}):")
        gv = sc.mul(bg, coef) if coef is not None else bg
        np_, ns = optimizer.update(sc, k, bp, gv, bs)
        b.emit(f"  linalg.yield {', '.join([np_] + ns)} : {', '.join([ft] * (1 + n_slots))}")
        b.emit(f"}} -> ({', '.join([p.type] * (1 + n_slots))})")
        if n_slots:
            new_params.append(ir.Value(f"{base}#0", p.shape, p.dtype))
            for j in range(n_slots):
                new_slots[j].append(ir.Value(f"{base}#{j + 1}", p.shape, p.dtype))
        else:
            new_params.append(ir.Value(base, p.shape, p.dtype))
    nstep = ir.Value(b.fresh("nstep"), (), ft)
    b.emit(f"{nstep} = tensor.from_elements {t} : tensor<{ft}>")
    outs = new_params + new_state + [v for slot in new_slots for v in slot] + [nstep, value]
    text.append(ir.function("train_step", args, outs, b.lines, arg_attrs=attrs))

    # @eval: the loss (and the accuracy) on a held-out batch, dropout off.
    eb = eval_batch_size or batch_size
    especs = _specs(inputs, eb, dtype)
    heads = [loss] + ([Accuracy()] if accuracy else [])
    em = tl.Model(tl.Serial(model, tl.Branch(*heads)), [s for _, s in especs], dtype=dtype, mode="eval")
    ebatch = [ir.Value(f"%x{i}", s.shape, s.dtype) for i, (_, s) in enumerate(especs)]
    if ([p.shape for p in em.params + em.state] !=
            [p.shape for p in lm.params + lm.state]):
        raise ir.ShapeError("the eval model's parameters differ from the training model's")
    # @eval takes every parameter of @train_step (slots and step unused);
    # both traces name the parameters %p<i> and the state %state<i> in the same
    # order. In mode 'eval' BatchNorm normalizes with the state.
    body, eouts = em.body, em.outputs
    eargs = params + state + [v for slot in slots for v in slot] + [step] + ebatch
    eattrs = [""] * (len(eargs) - len(ebatch)) + [f' {{trellis.batch = "{n}"}}' for n, _ in especs]
    names = ["loss", "accuracy"][:len(heads)]
    text.append(ir.function("eval", eargs, eouts, body, arg_attrs=eattrs,
                            result_attrs=[f' {{trellis.name = "{n}"}}' for n in names]))
    return "\n".join(text)


def _rank():
    for var in ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"):
        if var in os.environ:
            return int(os.environ[var])
    return 0


def _tool():
    exe = os.environ.get("TRELLIS_TRAIN")
    if exe:
        return exe
    from . import _build_config
    return os.path.join(_build_config.TOOLS_DIR, "trellis-train")


class Result:
    """What a run left: `metrics` (the lines of metrics.jsonl), `params`
    ({name: array} from the final checkpoint, layer state included, also
    written as params.npz), `output_dir`. On ranks other than 0 (which write no files) both are None."""

    def __init__(self, output_dir, metrics, params):
        self.output_dir, self.metrics, self.params = output_dir, metrics, params

    @property
    def losses(self):
        return [m["loss"] for m in self.metrics or [] if "loss" in m]

    @property
    def evals(self):
        return [m["eval"] for m in self.metrics or [] if "eval" in m]


class Trainer:
    """Trains `model` with `loss` and `optimizer` through trellis-train.

        trainer = Trainer(Serial(Dense(64), Relu(), Dense(4)), CrossEntropyLoss(),
                          inputs={"x": (16,), "y": ((), "i32")}, batch_size=32,
                          optimizer=optim.AdamW(optim.WarmupCosine(1e-2, 50, 1000)))
        result = trainer.fit({"x": X, "y": Y}, steps=1000, output_dir="run")

    Under `mpirun -np N python3 train.py` every rank runs this; trellis-train
    gives each rank its shard of every global batch (N × batch_size) and
    reduces the gradients (`reduce`: mean, adasum or adasum-approx)."""

    def __init__(self, model, loss, inputs, batch_size, optimizer, clip_norm=None,
                 dtype="f32", eval_batch_size=None, accuracy=True, dropout_seed=0):
        self.inputs = dict(inputs)
        self.batch_size = batch_size
        self.text = step_module(model, loss, self.inputs, batch_size, optimizer,
                                clip_norm, dtype, eval_batch_size, accuracy, dropout_seed)
        traced = tl.Model(tl.Serial(model, loss),
                          [s for _, s in _specs(self.inputs, batch_size, dtype)], dtype=dtype)
        self.param_names, self.param_shapes = traced.param_names, traced.param_shapes
        # The checkpoint holds the parameters, then the layer state.
        self.state_names = traced.state_names
        self.initial_state = traced.init_state()
        self.n_slots = len(optimizer.state)
        self.slot_names = [f"{p}.{s}" for s in optimizer.state for p in self.param_names]
        self.dtype = dtype

    def _write_data(self, path, data):
        arrays = {}
        for name, spec in _specs(self.inputs, 1, self.dtype):
            if name not in data:
                raise KeyError(f"the data has no array {name!r} (the model's inputs: "
                               f"{', '.join(self.inputs)})")
            want = ir.NUMPY_OF[spec.dtype]
            arrays[name] = np.ascontiguousarray(data[name], dtype=want)
        np.savez(path, **arrays)

    def _write_initial_checkpoint(self, output_dir, initial_params, seed, rank):
        initial_state = list(self.initial_state)
        if isinstance(initial_params, dict):
            # Layer state named there (an imported BatchNorm2d's buffers)
            # replaces its initial value.
            for i, name in enumerate(self.state_names):
                if name in initial_params:
                    a = np.asarray(initial_params[name], ir.NUMPY_OF[self.dtype])
                    if a.shape != initial_state[i].shape:
                        raise ValueError(f"initial_params {name}: shape {a.shape}, the "
                                         f"model's {initial_state[i].shape}")
                    initial_state[i] = a
            missing = [n for n in self.param_names if n not in initial_params]
            if missing:
                raise KeyError(f"initial_params has no {missing[0]!r}")
            initial_params = [initial_params[n] for n in self.param_names]
        if len(initial_params) != len(self.param_names):
            raise ValueError(f"initial_params has {len(initial_params)} arrays, the model "
                             f"{len(self.param_names)} parameters")
        np_dtype = ir.NUMPY_OF[self.dtype]
        arrays = {}
        for i, (name, a, shape) in enumerate(zip(self.param_names, initial_params, self.param_shapes)):
            a = np.asarray(a, np_dtype)
            if a.shape != tuple(shape):
                raise ValueError(f"initial_params {name}: shape {a.shape}, the model's {tuple(shape)}")
            arrays[f"param{i}"] = a
        for a in initial_state:
            arrays[f"param{len(arrays)}"] = a
        k = len(arrays)
        for _ in range(self.n_slots):
            for shape in self.param_shapes:
                arrays[f"param{k}"] = np.zeros(shape, np_dtype)
                k += 1
        arrays[f"param{k}"] = np.zeros((), np_dtype)  # the step counter
        arrays["step"] = np.array(0, np.int64)
        arrays["seed"] = np.array(seed, np.int64)
        path = os.path.join(output_dir, "checkpoint.npz")
        if os.path.exists(path):
            raise ValueError(f"{path} exists: resume it (resume=True) or use a new output_dir")
        # Every rank writes the same bytes; each rename is atomic.
        tmp = os.path.join(output_dir, f".initial-checkpoint-rank{rank}.npz")
        np.savez(tmp, **arrays)
        os.replace(tmp, path)

    def fit(self, data, steps, output_dir, eval_data=None, eval_every=0,
            checkpoint_every=0, resume=False, reduce="mean", seed=0,
            log_every=0, extra_flags=(), initial_params=None, remat=None,
            remat_every=None, attention_chunk=None, collective_timeout=None):
        """Runs trellis-train for `steps` steps; returns a Result. `data` and
        `eval_data` map the input names to arrays (examples first); `seed`
        seeds the data order and the initial parameters. `initial_params`
        (a list in param_names order, or {name: array}) starts from those
        weights instead of the initializers: they are written as a step-0
        checkpoint (optimizer slots and step zero) that the run resumes.
        `remat`, `remat_every`, `attention_chunk`, `collective_timeout` and
        `extra_flags` (any other flags) go to trellis-train."""
        rank = _rank()
        work = os.path.join(output_dir, "inputs", f"rank{rank}")
        os.makedirs(work, exist_ok=True)
        model_path = os.path.join(work, "model.mlir")
        with open(model_path, "w") as f:
            f.write(self.text)
        train_path = os.path.join(work, "train.npz")
        self._write_data(train_path, data)
        if initial_params is not None:
            if resume:
                raise ValueError("initial_params and resume=True exclude each other")
            self._write_initial_checkpoint(output_dir, initial_params, seed, rank)
            resume = True
        cmd = [_tool(), model_path, f"--data={train_path}", f"--steps={steps}",
               f"--output-dir={output_dir}", f"--seed={seed}", f"--reduce={reduce}"]
        if eval_data is not None:
            eval_path = os.path.join(work, "eval.npz")
            self._write_data(eval_path, eval_data)
            cmd.append(f"--eval-data={eval_path}")
        if eval_every:
            cmd.append(f"--eval-every={eval_every}")
        if checkpoint_every:
            cmd.append(f"--checkpoint-every={checkpoint_every}")
        if log_every:
            cmd.append(f"--log-every={log_every}")
        if resume:
            cmd.append("--resume")
        for flag, value in (("remat", remat), ("remat-every", remat_every),
                            ("attention-chunk", attention_chunk),
                            ("collective-timeout", collective_timeout)):
            if value is not None:
                cmd.append(f"--{flag}={value}")
        cmd += list(extra_flags)
        sys.stdout.flush()
        proc = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
        if proc.stderr:
            sys.stderr.write(proc.stderr)
        if proc.returncode != 0:
            from . import Error
            lines = [l for l in proc.stderr.splitlines() if l.strip()]
            raise Error(lines[-1] if lines else f"trellis-train exited with {proc.returncode}")
        if rank != 0:
            return Result(output_dir, None, None)
        with open(os.path.join(output_dir, "metrics.jsonl")) as f:
            metrics = [json.loads(line) for line in f if line.strip()]
        ckpt = np.load(os.path.join(output_dir, "checkpoint.npz"))
        params = {name: ckpt[f"param{i}"]
                  for i, name in enumerate(self.param_names + self.state_names)}
        np.savez(os.path.join(output_dir, "params.npz"), **params)
        return Result(output_dir, metrics, params)
