//===- ADDialect.td - The ad dialect: reverse-mode autodiff -*- tablegen -*-===//

#ifndef TRELLIS_AD_DIALECT
#define TRELLIS_AD_DIALECT

include "mlir/IR/OpBase.td"

def AD_Dialect : Dialect {
  let name = "ad";
  let cppNamespace = "::trellis::ad";
  let summary = "Reverse-mode automatic differentiation";
  let description = [{
    The `ad` dialect asks for derivatives of functions: `ad.grad` and
    `ad.value_and_grad` (JAX's `grad`/`value_and_grad`, with `argnums` and
    `has_aux`), `ad.vjp` (a vector-Jacobian product for every result), and
    `ad.checkpoint` (a region whose internals the backward pass recomputes
    instead of storing).

    `ad-differentiate` replaces every `ad` op by a call to a generated
    function that runs the forward sweep and then the reverse sweep. Each op
    says how to propagate cotangents through the
    `ReverseModeOpInterface`: Trellis's own ops implement it, upstream ops
    (arith, math, tensor, linalg, func) get it as external models.
  }];
}

class AD_Op<string mnemonic, list<Trait> traits = []>
    : Op<AD_Dialect, mnemonic, traits>;

#endif // TRELLIS_AD_DIALECT
