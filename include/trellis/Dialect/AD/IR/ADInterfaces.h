//===- ADInterfaces.h - Reverse-mode rules ----------------------*- C++ -*-===//
//
// The ReverseModeOpInterface (ODS: dialects/AD/ADInterfaces.td) and the
// context a rule gets from the differentiation engine.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_DIALECT_AD_IR_ADINTERFACES_H
#define TRELLIS_DIALECT_AD_IR_ADINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpDefinition.h"

namespace trellis::ad {

/// What the differentiation engine offers to reverse-mode rules of ops with
/// regions.
class ReverseContext {
public:
  virtual ~ReverseContext() = default;

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
  /// cotangents then accumulate on the replacements.
  virtual llvm::FailureOr<llvm::SmallVector<mlir::Value>>
  recomputeAndReverse(mlir::OpBuilder &builder, mlir::Block &body,
                      mlir::ValueRange args, mlir::ValueRange yieldCotangents,
                      llvm::SmallVectorImpl<mlir::Value> *yielded = nullptr,
                      const mlir::IRMapping *captures = nullptr) = 0;
};

} // namespace trellis::ad

#include "trellis/Dialect/AD/IR/ADInterfaces.h.inc"

#endif // TRELLIS_DIALECT_AD_IR_ADINTERFACES_H
