//===- Differentiator.h - The reverse-mode engine ---------------*- C++ -*-===//
//
// Builds derivative functions: the forward sweep (the function's body,
// cloned) followed by the reverse sweep, which walks the ops backwards and
// calls each op's ReverseModeOpInterface rule.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_DIALECT_AD_TRANSFORMS_DIFFERENTIATOR_H
#define TRELLIS_DIALECT_AD_TRANSFORMS_DIFFERENTIATOR_H

#include "trellis/Dialect/AD/IR/ADInterfaces.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"

namespace trellis::ad {

/// What a generated derivative function returns.
enum class DerivativeKind {
  /// (grads..., aux...) of the first result, a scalar loss.
  Grad,
  /// (loss, aux..., grads...).
  ValueAndGrad,
  /// Takes (primals..., cotangents...), returns (results..., cotangents...).
  VJP,
};

/// Cotangent bookkeeping and the reverse sweep over a sequence of ops.
class ReverseSweep : public ReverseContext {
public:
  void accumulate(mlir::Value value, mlir::Value cotangent) override;
  llvm::FailureOr<llvm::SmallVector<mlir::Value>>
  recomputeAndReverse(mlir::OpBuilder &builder, mlir::Block &body,
                      mlir::ValueRange args, mlir::ValueRange yieldCotangents,
                      llvm::SmallVectorImpl<mlir::Value> *yielded = nullptr,
                      const mlir::IRMapping *captures = nullptr) override;

  /// The accumulated cotangent of `value`, or null if it has none.
  mlir::Value lookup(mlir::Value value) const {
    return cotangents.lookup(value);
  }

  /// Adds `cotangent` to `value`'s, emitting any sum with `builder`.
  void seed(mlir::OpBuilder &builder, mlir::Value value, mlir::Value cotangent);

  /// Emits, at the builder's insertion point, the reverse sweep of `ops`
  /// (which must be in program order).
  llvm::LogicalResult reverse(mlir::OpBuilder &builder,
                              llvm::ArrayRef<mlir::Operation *> ops);

private:
  llvm::DenseMap<mlir::Value, mlir::Value> cotangents;
  mlir::OpBuilder *builder = nullptr;
};

/// A loop that visits the iterations of a forward `scf.for` (constant
/// trip count `count`, bounds `lb`/`step`) backwards, carrying `inits`.
/// `body` builds at the end of its (terminator-less) body; `iv` is the
/// forward induction variable of the iteration being visited and `index`
/// its position (0 for the first forward iteration). The loop is
/// created before its body is filled, so ops cloned into it are already
/// attached to the module (rules of calls look up symbols).
struct ReverseLoop {
  mlir::scf::ForOp loop;
  mlir::OpBuilder body;
  mlir::Value iv;
  mlir::Value index;
};
ReverseLoop buildReverseLoop(mlir::OpBuilder &builder, mlir::Location loc,
                             int64_t count, mlir::Value lb, mlir::Value step,
                             mlir::ValueRange inits);

/// Replaces every ad.barrier under `root` by its operand, once the passes
/// that must not merge recomputations with forward code have run.
void removeBarriers(mlir::Operation *root);

/// Generates, next to `callee`, a private function computing the derivative
/// `kind` of `callee` with respect to the arguments `argnums` (ignored for
/// VJP); the callee's results after the loss are passed through as aux. With `inlineCallees`, calls in the body are inlined first (no
/// recomputation); otherwise each call is differentiated through its
/// callee's VJP function. Fails with a diagnostic on IR it cannot
/// differentiate.
llvm::FailureOr<mlir::func::FuncOp>
buildDerivativeFunction(mlir::func::FuncOp callee, DerivativeKind kind,
                        llvm::ArrayRef<int64_t> argnums, llvm::StringRef name,
                        bool inlineCallees = true);

} // namespace trellis::ad

#endif // TRELLIS_DIALECT_AD_TRANSFORMS_DIFFERENTIATOR_H
