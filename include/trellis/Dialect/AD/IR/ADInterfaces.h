//===- ADInterfaces.h - Reverse-mode rules ----------------------*- C++ -*-===//
//
// The ReverseModeOpInterface (ODS: dialects/AD/ADInterfaces.td) and the
// context a rule gets from the differentiation engine.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_DIALECT_AD_IR_ADINTERFACES_H
#define TRELLIS_DIALECT_AD_IR_ADINTERFACES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpDefinition.h"

#include <memory>

namespace trellis::ad {

/// What a generated derivative function returns (DerivativeOpInterface).
enum class DerivativeKind {
  /// (grads..., aux...) of the first result, a scalar loss.
  Grad,
  /// (loss, aux..., grads...).
  ValueAndGrad,
  /// Takes (primals..., cotangents...), returns (results..., cotangents...).
  VJP,
};

/// What the differentiation engine offers to reverse-mode rules: cotangent
/// bookkeeping, the reverse sweep of nested code, and derivative functions
/// of callees. Rules see only this interface, so they depend on the ad
/// dialect, not on the engine that implements it (AD/Transforms).
class ReverseContext {
public:
  virtual ~ReverseContext() = default;

  /// Returns a new, empty context of the same engine, for a nested sweep
  /// with cotangents of its own (a branch, a loop body, a linalg body).
  virtual std::unique_ptr<ReverseContext> createNested() = 0;

  /// The accumulated cotangent of `value`, or null if it has none.
  virtual mlir::Value lookup(mlir::Value value) const = 0;

  /// Adds `cotangent` to `value`'s, emitting any sum with `builder`.
  virtual void seed(mlir::OpBuilder &builder, mlir::Value value,
                    mlir::Value cotangent) = 0;

  /// Emits, at the builder's insertion point, the reverse sweep of `ops`
  /// (which must be in program order).
  virtual llvm::LogicalResult reverse(mlir::OpBuilder &builder,
                                      llvm::ArrayRef<mlir::Operation *> ops) = 0;

  /// Returns the function named `name` next to `callee` that computes
  /// `callee`'s vector-Jacobian product (taking (primals..., cotangents...),
  /// returning (results..., cotangents...)), generating it if there is none.
  /// Calls in its body stay calls, differentiated the same way.
  virtual llvm::FailureOr<mlir::func::FuncOp>
  getOrBuildVJPFunction(mlir::func::FuncOp callee, llvm::StringRef name) = 0;

  /// Adds `cotangent` to the cotangent of `value`. Rules of region ops use it
  /// for values their bodies capture from above.
  virtual void accumulate(mlir::Value value, mlir::Value cotangent) = 0;

  /// Clones `body` at the builder's insertion point with its arguments bound
  /// to `args` (recomputing it), then emits the reverse sweep of the clone
  /// seeded with `yieldCotangents` (one per yielded value, null = zero).
  /// Returns the cotangent of each argument (null when zero); cotangents of
  /// values the body captures are accumulated. `yielded` receives the
  /// recomputed yielded values. `captures` replaces values the body captures
  /// from above (e.g. by their recomputation in a reverse loop); their
  /// cotangents then accumulate on the replacements. `saved` maps results of
  /// ops of `body` to stored values (a checkpoint policy's): the rest of the
  /// recomputation reads those instead, and the ops' rules still run.
  virtual llvm::FailureOr<llvm::SmallVector<mlir::Value>>
  recomputeAndReverse(mlir::OpBuilder &builder, mlir::Block &body,
                      mlir::ValueRange args, mlir::ValueRange yieldCotangents,
                      llvm::SmallVectorImpl<mlir::Value> *yielded = nullptr,
                      const mlir::IRMapping *captures = nullptr,
                      const mlir::IRMapping *saved = nullptr) = 0;
};

} // namespace trellis::ad

#include "trellis/Dialect/AD/IR/ADInterfaces.h.inc"

namespace trellis::ad {

/// Emits a remark on `stack` (an invertible op or a loop of invertible
/// steps whose reverse pass reconstructs instead of storing) when its values
/// are f32 and it runs more than 64 residual blocks: the reconstruction then
/// drifts measurably from the stored computation (docs/reversible.md).
void remarkOnReconstructionDrift(mlir::Operation *stack);

} // namespace trellis::ad

#endif // TRELLIS_DIALECT_AD_IR_ADINTERFACES_H
