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
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::scf::SCFDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::tensor::TensorDialect"
  ];
}

#endif // TRELLIS_AD_PASSES
