//===- ADOps.td - Operations of the ad dialect ------------*- tablegen -*-===//

#ifndef TRELLIS_AD_OPS
#define TRELLIS_AD_OPS

include "AD/ADDialect.td"
include "AD/ADInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class AD_GradientOp<string mnemonic> : AD_Op<mnemonic,
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
     DerivativeOpInterface]> {
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyType>:$args,
                       OptionalAttr<DenseI64ArrayAttr>:$argnums,
                       DefaultValuedAttr<BoolAttr, "false">:$has_aux);
  let assemblyFormat = [{
    $callee `(` $args `)` attr-dict `:` functional-type($args, results)
  }];
  let extraClassDeclaration = [{
    /// The differentiated argument positions (JAX's default: the first).
    ::llvm::SmallVector<int64_t> getDiffArgIndices() {
      if (auto nums = getArgnums())
        return ::llvm::SmallVector<int64_t>(*nums);
      return {0};
    }
    ::mlir::OperandRange getDerivativeOperands() { return getArgs(); }
    // DerivativeOpInterface, defined by each op.
    ::trellis::ad::DerivativeKind getDerivativeKind();
    ::mlir::ResultRange getGradientResults();
  }];
}

def AD_GradOp : AD_GradientOp<"grad"> {
  let summary = "gradient of a scalar-valued function";
  let description = [{
    Calls `callee` on `args` and returns the gradient of its first result (a
    scalar float, the loss) with respect to `args[argnums]` (default: the
    first argument), one gradient per entry of `argnums`, each of the type of
    its argument. With `has_aux = true` the callee's remaining results are
    passed through after the gradients (JAX `has_aux`).

    Example:
    ```mlir
    %gw, %gb = ad.grad @loss(%w, %b, %x) {argnums = array<i64: 0, 1>}
        : (tensor<4x3xf32>, tensor<3xf32>, tensor<8x4xf32>)
        -> (tensor<4x3xf32>, tensor<3xf32>)
    ```
  }];
  let results = (outs Variadic<AnyType>:$results);
  let extraClassDefinition = [{
    ::trellis::ad::DerivativeKind $cppClass::getDerivativeKind() {
      return ::trellis::ad::DerivativeKind::Grad;
    }
    /// (grads..., aux...).
    ::mlir::ResultRange $cppClass::getGradientResults() {
      return getResults().take_front(getDiffArgIndices().size());
    }
  }];
}

def AD_ValueAndGradOp : AD_GradientOp<"value_and_grad"> {
  let summary = "value and gradient of a scalar-valued function";
  let description = [{
    Like `ad.grad`, but returns the loss first, then (with `has_aux`) the
    auxiliary results, then the gradients — Trax's training step shape
    `(loss, aux), grads = value_and_grad(f, has_aux=True)(...)`.

    Example:
    ```mlir
    %loss, %state, %gw = ad.value_and_grad @step(%w, %x)
        {argnums = array<i64: 0>, has_aux = true}
        : (tensor<4x3xf32>, tensor<8x4xf32>)
        -> (tensor<f32>, tensor<8x3xf32>, tensor<4x3xf32>)
    ```
  }];
  let results = (outs Variadic<AnyType>:$results);
  let extraClassDefinition = [{
    ::trellis::ad::DerivativeKind $cppClass::getDerivativeKind() {
      return ::trellis::ad::DerivativeKind::ValueAndGrad;
    }
    /// (loss, aux..., grads...).
    ::mlir::ResultRange $cppClass::getGradientResults() {
      return getResults().take_back(getDiffArgIndices().size());
    }
  }];
}

def AD_VJPOp : AD_Op<"vjp", [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DerivativeOpInterface]> {
  let summary = "vector-Jacobian product of a function";
  let description = [{
    Takes the callee's `n` primal arguments followed by one cotangent per
    callee result (`m` of them) and returns the callee's `m` results followed
    by `n` cotangents, one per primal argument and of its type. Integer
    primals get a zero cotangent.

    Example:
    ```mlir
    %y, %dx = ad.vjp @f(%x, %dy) : (tensor<4xf32>, tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands);
  let results = (outs Variadic<AnyType>:$results);
  let extraClassDeclaration = [{
    // DerivativeOpInterface.
    ::trellis::ad::DerivativeKind getDerivativeKind() {
      return ::trellis::ad::DerivativeKind::VJP;
    }
    ::llvm::SmallVector<int64_t> getDiffArgIndices() { return {}; }
    ::mlir::OperandRange getDerivativeOperands() { return getOperands(); }
    ::mlir::ResultRange getGradientResults() {
      return getResults().take_front(0);
    }
  }];
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
}

def AD_CheckpointOp : AD_Op<"checkpoint", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<ReverseModeOpInterface>]> {
  let summary = "recompute a region in the backward pass (JAX checkpoint)";
  let description = [{
    Runs its body on `inputs` (block arguments) and returns what it yields:
    identity semantics. Differentiation does not keep the body's
    intermediate values: the reverse sweep recomputes the body from the
    inputs and differentiates the recomputation. `policy` (JAX's checkpoint
    policies) chooses what the forward pass keeps instead:
    `nothing_saveable` (the default; `remat`, written by `ad-remat`, means
    the same) keeps nothing, `dots_saveable` keeps the results of the
    body's matrix products (`nn.dense`, `linalg.matmul`,
    `linalg.batch_matmul`, `linalg.matvec`, `linalg.vecmat`,
    `linalg.batch_matvec`, `linalg.dot`), and `save:NAME[,NAME...]` keeps
    the results of the body's ops carrying `ad.name = "NAME"`. Kept values
    are read by the recomputation instead of being recomputed.

    Example:
    ```mlir
    %y = ad.checkpoint %x : tensor<8x16xf32> -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>):
      %t = nn.tanh %a : tensor<8x16xf32>
      ad.yield %t : tensor<8x16xf32>
    }
    ```

    Keeping a named product:
    ```mlir
    %y = ad.checkpoint %x {policy = "save:proj"}
        : tensor<8x16xf32> -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>):
      %p = linalg.matmul {ad.name = "proj"}
          ins(%a, %w : tensor<8x16xf32>, tensor<16x16xf32>)
          outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
      %t = nn.tanh %p : tensor<8x16xf32>
      ad.yield %t : tensor<8x16xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs, OptionalAttr<StrAttr>:$policy);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inputs attr-dict (`:` type($inputs)^)? `->` type($results) $body
  }];
  let hasRegionVerifier = 1;
}

def AD_BarrierOp : AD_Op<"barrier", [AllTypesMatch<["input", "result"]>,
    MemoryEffects<[MemWrite]>,
    DeclareOpInterfaceMethods<ReverseModeOpInterface>]> {
  let summary = "identity that optimizations do not look through";
  let description = [{
    Returns its operand. The reverse sweep feeds a recomputed region (a
    checkpoint, a reversible block) through barriers so that CSE, run on the
    derivative function, does not merge the recomputation with the forward
    computation it repeats — which would keep the forward values alive and
    undo the memory saving. `ad-differentiate` removes the barriers after
    its cleanup.

    A barrier is differentiable (its cotangent passes through unchanged),
    so a derivative function that a later `ad` op differentiates again
    (a Hessian-vector product, say) may still hold barriers when it is
    differentiated.

    Example:
    ```mlir
    %y = ad.barrier %x : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins AnyType:$input);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def AD_YieldOp : AD_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"CheckpointOp">]> {
  let summary = "terminator of ad regions";
  let description = [{
    Example:
    ```mlir
    ad.yield %t : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // TRELLIS_AD_OPS
