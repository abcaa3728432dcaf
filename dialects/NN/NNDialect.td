//===- NNDialect.td - The nn dialect: neural-network layers -*- tablegen -*-===//
//
// Layers on tensors. Operand order and attribute names follow docs/spec.md
// so that IR in generic form keeps working whatever the assembly format.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_NN_DIALECT
#define TRELLIS_NN_DIALECT

include "mlir/IR/OpBase.td"

def NN_Dialect : Dialect {
  let name = "nn";
  let cppNamespace = "::trellis::nn";
  let summary = "Neural-network layers on tensors";
  let description = [{
    The `nn` dialect holds the layers a training graph is built from: dense
    layers, activations, normalisation, softmax and losses, embeddings,
    multi-head attention, counter-based dropout, and Trax's reversible residual
    layers (`reversible_half_residual`, `reversible_swap`, `reversible_serial`).

    Ops work on statically shaped tensors of `f32` or `f64`. Regions of the
    reversible ops are not isolated from above: weights are captured from the
    enclosing function and receive gradients like any other operand.

    `convert-nn-to-linalg` gives every op its meaning in terms of `linalg`,
    `tensor`, `arith` and `math` (and `coll` for a synchronized batch norm).
  }];
  // nn.batch_norm {axis_name} lowers (and differentiates) to coll.pmean.
  let dependentDialects = ["::trellis::coll::CollDialect"];
}

class NN_Op<string mnemonic, list<Trait> traits = []>
    : Op<NN_Dialect, mnemonic, traits>;

// Element types the layers compute in: f32 everywhere, f64 for gradient checks.
def NN_Float : AnyTypeOf<[F32, F64], "32- or 64-bit float">;
def NN_FloatTensor : StaticShapeTensorOf<[F32, F64]>;
def NN_ScalarFloatTensor
    : 0DTensorOf<[F32, F64]>;
def NN_IndexTensor : StaticShapeTensorOf<[I32]>;
def NN_KeyTensor : 1DTensorOf<[UI32, I32]>;

#endif // TRELLIS_NN_DIALECT
