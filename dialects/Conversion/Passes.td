//===- Passes.td - Trellis conversion passes ---------------*- tablegen -*-===//

#ifndef TRELLIS_CONVERSION_PASSES
#define TRELLIS_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertNNToLinalg : Pass<"convert-nn-to-linalg"> {
  let summary = "Lower nn layers to linalg, tensor, arith and math on tensors";
  let description = [{
    Gives every `nn` op its meaning as destination-style tensor code:

    * `dense` becomes `linalg.matmul` on the batch-flattened input plus a
      broadcast bias add, so a later BLAS rewrite sees the matmul;
    * activations, softmax, log-softmax, layer_norm, mean and cross-entropy
      become `linalg.generic` ops, in numerically careful forms: the row
      maximum is subtracted before `exp`, cross-entropy is
      `logsumexp − picked logit`, layer_norm adds `epsilon` to the variance;
    * `embedding` becomes a gather in a `linalg.generic` body (ids clamped);
    * `attention` splits heads with `tensor.expand_shape` and contracts with
      `linalg.generic` (scores, masked max-subtracted softmax, weighted sum);
    * `dropout` computes Threefry-2x32 of each element's linear index under
      the key inside the body, so the mask depends on nothing else;
    * the reversible ops are given their forward meaning: the bodies are
      inlined, `reversible_half_residual` adds the residual, `reversible_swap`
      exchanges its operands.

    After the pass no `nn` op is left; an op it cannot lower is an error.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::tensor::TensorDialect"
  ];
}

#endif // TRELLIS_CONVERSION_PASSES
