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
#include "trellis/Dialect/AD/Rules/Rules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"

namespace trellis::ad {

/// Cotangent bookkeeping and the reverse sweep over a sequence of ops.
class ReverseSweep : public ReverseContext {
public:
  std::unique_ptr<ReverseContext> createNested() override {
    return std::make_unique<ReverseSweep>();
  }
  llvm::FailureOr<mlir::func::FuncOp>
  getOrBuildVJPFunction(mlir::func::FuncOp callee,
                        llvm::StringRef name) override;
  void accumulate(mlir::Value value, mlir::Value cotangent) override;
  llvm::FailureOr<llvm::SmallVector<mlir::Value>>
  recomputeAndReverse(mlir::OpBuilder &builder, mlir::Block &body,
                      mlir::ValueRange args, mlir::ValueRange yieldCotangents,
                      llvm::SmallVectorImpl<mlir::Value> *yielded = nullptr,
                      const mlir::IRMapping *captures = nullptr,
                      const mlir::IRMapping *saved = nullptr) override;

  mlir::Value lookup(mlir::Value value) const override {
    return cotangents.lookup(value);
  }
  void seed(mlir::OpBuilder &builder, mlir::Value value,
            mlir::Value cotangent) override;
  llvm::LogicalResult reverse(mlir::OpBuilder &builder,
                              llvm::ArrayRef<mlir::Operation *> ops) override;

private:
  llvm::DenseMap<mlir::Value, mlir::Value> cotangents;
  mlir::OpBuilder *builder = nullptr;
};

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
