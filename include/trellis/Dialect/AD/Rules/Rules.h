//===- Rules.h - Reverse-mode rules of upstream ops -------------*- C++ -*-===//
//
// External models of ReverseModeOpInterface for the upstream ops models use
// (arith, math, tensor, linalg), and small type-generic helpers the rules
// share: arith ops work elementwise on tensors as well as on scalars, so one
// rule serves a scalar op in a linalg body and the same op on tensors.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_DIALECT_AD_RULES_RULES_H
#define TRELLIS_DIALECT_AD_RULES_RULES_H

#include "trellis/Dialect/AD/IR/ADInterfaces.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace trellis::ad {

/// Attaches the reverse-mode rules to arith, math, tensor and linalg ops.
void registerUpstreamReverseModeModels(mlir::DialectRegistry &registry);

/// The external model of a reverse-mode rule written as a free function
/// `Rule(op, builder, ctx, resultCotangents, operandCotangents)`; the
/// operand cotangents arrive pre-sized and null.
template <typename OpTy>
using RuleFn = llvm::LogicalResult (*)(OpTy, mlir::OpBuilder &, ReverseContext &,
                                       mlir::ValueRange,
                                       llvm::SmallVectorImpl<mlir::Value> &);
template <typename OpTy, RuleFn<OpTy> Rule>
struct RuleModel
    : ReverseModeOpInterface::ExternalModel<RuleModel<OpTy, Rule>, OpTy> {
  llvm::LogicalResult
  buildReverse(mlir::Operation *op, mlir::OpBuilder &b, ReverseContext &ctx,
               mlir::ValueRange resultCotangents,
               llvm::SmallVectorImpl<mlir::Value> &operandCotangents) const {
    operandCotangents.assign(op->getNumOperands(), mlir::Value());
    return Rule(llvm::cast<OpTy>(op), b, ctx, resultCotangents,
                operandCotangents);
  }
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
/// The same with the trip count `count` (an index) known at run time only.
ReverseLoop buildReverseLoop(mlir::OpBuilder &builder, mlir::Location loc,
                             mlir::Value count, mlir::Value lb,
                             mlir::Value step, mlir::ValueRange inits);

namespace rules {
/// True for a float scalar or a tensor of floats (values that get
/// cotangents).
bool isFloatValue(mlir::Value v);

mlir::Value add(mlir::OpBuilder &b, mlir::Value x, mlir::Value y);
mlir::Value sub(mlir::OpBuilder &b, mlir::Value x, mlir::Value y);
mlir::Value mul(mlir::OpBuilder &b, mlir::Value x, mlir::Value y);
mlir::Value div(mlir::OpBuilder &b, mlir::Value x, mlir::Value y);
mlir::Value neg(mlir::OpBuilder &b, mlir::Value x);
/// A constant shaped like `like` (scalar or splat tensor).
mlir::Value constant(mlir::OpBuilder &b, mlir::Value like, double value);
/// `cond ? x : 0` and `cond ? 0 : x`, elementwise.
mlir::Value keepWhere(mlir::OpBuilder &b, mlir::Value cond, mlir::Value x);
mlir::Value dropWhere(mlir::OpBuilder &b, mlir::Value cond, mlir::Value x);
} // namespace rules

} // namespace trellis::ad

#endif // TRELLIS_DIALECT_AD_RULES_RULES_H
