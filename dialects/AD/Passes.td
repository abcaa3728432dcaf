//===- Passes.td - Passes of the ad dialect ---------------*- tablegen -*-===//

#ifndef TRELLIS_AD_PASSES
#define TRELLIS_AD_PASSES

include "mlir/Pass/PassBase.td"

def ADDifferentiate : Pass<"ad-differentiate", "::mlir::ModuleOp"> {
  let summary = "Replace ad ops by calls to generated derivative functions";
  let description = [{
    For every `ad.grad`, `ad.value_and_grad` and `ad.vjp`, generates a
    private function that runs the callee's forward sweep, keeping every
    value the reverse sweep needs, and then the reverse sweep, which walks
    the ops backwards and calls each op's `ReverseModeOpInterface` rule,
    accumulating cotangents where a value fans out. The `ad` op becomes a
    `func.call` of that function.

    * Calls inside a differentiated function are inlined first, so nested
      differentiable calls need no recomputation (`inline-callees=false`
      keeps them as calls of generated VJP functions instead).
    * `scf.if` and `scf.for` (constant trip count) are differentiated
      structurally; a loop records its carried values once per iteration.
    * `ad` ops inside a callee are differentiated first (innermost first), so
      gradients of functions that take gradients work.
    * Integer values get no cotangent; unused results have zero cotangents;
      cotangents of values captured by regions reach their definitions.
    * `ad.checkpoint` regions are recomputed in the reverse sweep.

    Generated functions are named `<callee>__grad_<n>` / `__vjp`; dead
    adjoint code is removed by the canonicalizer run at the end.
  }];
  let options = [
    Option<"inlineCallees", "inline-callees", "bool", /*default=*/"true",
           "Inline calls before differentiating (no recomputation); when "
           "false, a call is differentiated through its callee's VJP "
           "function, which recomputes the callee's forward pass">
  ];
  let dependentDialects = [
    "::trellis::ad::ADDialect",
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect",
    "mlir::scf::SCFDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::tensor::TensorDialect"
  ];
}

def ADRemat : Pass<"ad-remat", "::mlir::ModuleOp"> {
  let summary = "Rematerialisation policies for differentiated layer chains";
  let description = [{
    Decides, for every function that an `ad.grad`, `ad.value_and_grad` or
    `ad.vjp` differentiates, which activations the backward pass stores and
    which it recomputes, by wrapping segments of the function's layer chain
    in `ad.checkpoint` regions (run it before `ad-differentiate`). A layer is
    a top-level op producing a float tensor (constants, `tensor.empty` and
    fills do not count).

    * `policy=store` (default): store every activation; nothing changes.
    * `policy=every every=K`: checkpoint every K layers: only each segment's
      outputs are stored, its internals are recomputed in the backward pass
      (a trailing segment of one layer is stored as is).
    * `policy=budget budget=BYTES`: the schedule of least recomputation
      whose peak tensor memory (what `trellis-run --stats` measures as
      `peak_tensor_bytes`) is at most BYTES. The peak of a schedule is
      predicted exactly, not estimated: a copy of the module with the
      schedule applied goes through the Trellis lowering
      (`trellis-lower-to-llvm{attention-chunk=...}`) up to its
      deallocation decisions, and the allocations of the functions taking
      the derivative are replayed (the schedules known at once are
      predicted on one thread per core, each with a context of its own,
      unless the context runs single-threaded). The schedules compared are the chain
      model's single-level schedules (dynamic programming over segment
      boundaries with each layer's bytes and cost), its optimal schedules
      of nested checkpoints (a second dynamic program, in the manner of
      Revolve for heterogeneous chains: layers recomputed more than once
      for budgets below the single-level minimum; run with and without the
      gradients that exist while each layer is reversed), uniform segments
      and recursive splits, and the lower bound's optimal schedules (below),
      followed by a local search from the eight cheapest fitting ones. If
      storing everything fits, nothing is recomputed. A remark reports the
      schedule, its predicted peak, its recomputation (also in forward
      passes) and the best uniform segment length's. A budget below the
      smallest predicted peak of the schedules compared is an error that
      names that peak; every budget at or above it is met. A chain of at
      most `exact-limit` layers is planned by exhaustive search instead:
      every schedule of nested checkpoints (394 for 6 layers, 1806 for 7)
      is predicted, and the remark says the schedule is the optimum; for
      longer chains it bounds the optimum from below instead: a model that
      counts, at each layer's reversal, only bytes the lowered code must
      hold then (checked against every prediction), and a dynamic program
      over nested schedules under it give the least recomputation any
      schedule within the budget can have; the remark reports the chosen
      schedule's cost over that bound (1.000: optimal), the bound's own
      schedules join the candidates, and a budget below the bound's
      smallest peak is an error saying no schedule goes below it. Model and
      measurements: docs/reversible.md.
  }];
  let options = [
    Option<"policy", "policy", "::trellis::ad::RematPolicy",
           /*default=*/"::trellis::ad::RematPolicy::Store",
           "Which activations the backward pass stores",
           [{::trellis::ad::rematPolicyValues()}]>,
    Option<"every", "every", "int64_t", /*default=*/"2",
           "Layers per checkpointed segment (policy=every)">,
    Option<"budget", "budget", "int64_t", /*default=*/"0",
           "Peak tensor memory budget in bytes (policy=budget)">,
    Option<"attentionChunk", "attention-chunk", "int64_t", /*default=*/"128",
           "The lowering's rows per attention chunk (convert-nn-to-linalg's "
           "attention-chunk), for predicting the peak (policy=budget)">,
    Option<"exactLimit", "exact-limit", "int64_t", /*default=*/"5",
           "Chains of at most this many layers are planned by exhaustive "
           "search over every schedule of nested checkpoints, each "
           "predicted: the optimum (policy=budget; 0: never)">,
    Option<"printPredictions", "print-predictions", "bool",
           /*default=*/"false",
           "A remark per schedule predicted: its peak and recomputation "
           "cost (policy=budget; for tests and for looking into a choice)">
  ];
  let dependentDialects = [
    "::trellis::ad::ADDialect", "::mlir::bufferization::BufferizationDialect"
  ];
}

def ADBuildInverse : Pass<"ad-build-inverse", "::mlir::ModuleOp"> {
  let summary = "Generate the inverse of functions made of an invertible op";
  let description = [{
    For each function `@f` whose results are exactly the results of one
    invertible op (`InvertibleOpInterface`, e.g. `nn.reversible_serial`) or
    of an `scf.for` whose body is one invertible step, and whose state
    operands are leading function arguments, generates `@f__inverse` with the
    same signature that maps the results back to those arguments, by the
    same reconstruction the reverse sweep performs. Used to measure
    reconstruction drift (`x_rec − x`) and to invert reversible networks.
  }];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
    "::trellis::ad::ADDialect"
  ];
}

#endif // TRELLIS_AD_PASSES
