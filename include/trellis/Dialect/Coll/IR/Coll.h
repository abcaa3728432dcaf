//===- Coll.h - The coll dialect --------------------------------*- C++ -*-===//
//
// Public header of the coll dialect: the dialect class, its types and ops.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_DIALECT_COLL_IR_COLL_H
#define TRELLIS_DIALECT_COLL_IR_COLL_H

#include "trellis/Dialect/AD/IR/ADInterfaces.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "trellis/Dialect/Coll/IR/CollDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "trellis/Dialect/Coll/IR/CollTypes.h.inc"

#define GET_OP_CLASSES
#include "trellis/Dialect/Coll/IR/CollOps.h.inc"

namespace trellis::coll {

/// The axis every rank of the job belongs to (MPI_COMM_WORLD).
inline constexpr llvm::StringLiteral kBatchAxis = "batch";

/// Rank lists of a `groups` attribute, one per group.
llvm::SmallVector<llvm::SmallVector<int64_t>>
getRankGroups(mlir::DenseIntElementsAttr groups);

/// `[source, destination]` pairs of a `pairs` attribute.
llvm::SmallVector<std::pair<int64_t, int64_t>>
getSendPairs(mlir::DenseIntElementsAttr pairs);

/// This rank's position in its group of `groups` (the order its row lists
/// the ranks), its rank on `axis` without groups: the index of its slice
/// in a grouped all_gather's result.
mlir::Value buildGroupPosition(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::StringAttr axis,
                               mlir::DenseIntElementsAttr groups);

} // namespace trellis::coll

#endif // TRELLIS_DIALECT_COLL_IR_COLL_H
