//===- ADInterfaces.td - Reverse-mode rules as an interface -*- tablegen -*-===//

#ifndef TRELLIS_AD_INTERFACES
#define TRELLIS_AD_INTERFACES

include "mlir/IR/OpBase.td"

def ReverseModeOpInterface : OpInterface<"ReverseModeOpInterface"> {
  let cppNamespace = "::trellis::ad";
  let description = [{
    The reverse-mode rule of an op: given cotangents of its results, emit the
    code that computes the cotangents of its operands (the vector-Jacobian
    product). The differentiation pass calls it during the reverse sweep, with
    the op's operands and results still available (the forward sweep keeps
    them), so rules may use both.

    A null entry of `resultCotangents` means "zero" (the result does not
    reach the differentiated output). A rule sets an entry of
    `operandCotangents` to null when that operand gets no cotangent (it is
    an integer, a shape, or the contribution is zero). Ops with regions use
    `ctx` to differentiate their bodies; cotangents of values captured by a
    region flow through `ctx.accumulate`.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Emits the vector-Jacobian product of this op at the "
               "builder's insertion point.",
      /*retTy=*/"::llvm::LogicalResult",
      /*methodName=*/"buildReverse",
      /*args=*/(ins "::mlir::OpBuilder &":$builder,
                    "::trellis::ad::ReverseContext &":$ctx,
                    "::mlir::ValueRange":$resultCotangents,
                    "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents)
    >
  ];
}

def DerivativeOpInterface : OpInterface<"DerivativeOpInterface"> {
  let cppNamespace = "::trellis::ad";
  let description = [{
    An op that stands for a derivative of a function (`ad.grad`,
    `ad.value_and_grad`, `ad.vjp`): which function, which kind of derivative,
    with respect to which arguments, and which of its results are gradients.
    Passes that find, differentiate, reduce or rematerialize derivatives
    (ad-differentiate, ad-remat, coll-average-gradients, the trainer) go
    through it instead of enumerating the ops.
  }];
  let methods = [
    InterfaceMethod<"The differentiated function.",
      "::mlir::FlatSymbolRefAttr", "getCalleeAttr">,
    InterfaceMethod<"What the generated derivative function computes.",
      "::trellis::ad::DerivativeKind", "getDerivativeKind">,
    InterfaceMethod<"The argument positions differentiated (empty for a "
                    "VJP, which differentiates all).",
      "::llvm::SmallVector<int64_t>", "getDiffArgIndices">,
    InterfaceMethod<"The operands passed to the derivative function.",
      "::mlir::OperandRange", "getDerivativeOperands">,
    InterfaceMethod<"The results that are gradients of the loss, one per "
                    "differentiated argument (none for a VJP: its "
                    "cotangents are not gradients of a loss).",
      "::mlir::ResultRange", "getGradientResults">
  ];
}

def InvertibleOpInterface : OpInterface<"InvertibleOpInterface"> {
  let cppNamespace = "::trellis::ad";
  let description = [{
    An op whose inputs can be reconstructed from its outputs (a bijection,
    such as a reversible residual stack). Its reverse pass needs no stored
    inputs: given the outputs and their cotangents it emits the
    reconstruction of the inputs together with their cotangents. Loops whose
    body is such an op are differentiated without a tape: the reverse loop
    reconstructs each iteration's state from the next one's.

    Such an op may also return layer state after its chain values (batch
    norm's running statistics in a RevNet block): values the forward pass
    computes from the chain, which are neither inverted nor differentiated.
    `reverseFromOutputs` receives the chain results only; a recomputation
    drops the state it computes again, so the state is updated once per step.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Emits the reconstruction of the op's inputs from `outputs` "
               "and the cotangents of those inputs from `outputCotangents` "
               "(null = zero). `captures` replaces values the op's regions "
               "capture from above.",
      /*retTy=*/"::llvm::LogicalResult",
      /*methodName=*/"reverseFromOutputs",
      /*args=*/(ins "::mlir::OpBuilder &":$builder,
                    "::trellis::ad::ReverseContext &":$ctx,
                    "::mlir::ValueRange":$outputs,
                    "::mlir::ValueRange":$outputCotangents,
                    "const ::mlir::IRMapping *":$captures,
                    "::llvm::SmallVectorImpl<::mlir::Value> &":$inputs,
                    "::llvm::SmallVectorImpl<::mlir::Value> &":$inputCotangents)
    >,
    InterfaceMethod<
      /*desc=*/"The number of trailing results that are layer state, not "
               "chain values (0 unless the op's body returns state).",
      /*retTy=*/"unsigned",
      /*methodName=*/"getNumStateResults",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return 0;"
    >
  ];
  let extraClassDeclaration = [{
    /// The results that are chain values: those the op's inverse maps back
    /// to its inputs.
    ::mlir::ResultRange getChainResults() {
      return (*this)->getResults().drop_back(getNumStateResults());
    }
    /// The trailing results that are layer state.
    ::mlir::ResultRange getStateResults() {
      return (*this)->getResults().take_back(getNumStateResults());
    }
  }];
}

#endif // TRELLIS_AD_INTERFACES
