//===- StructuredBuilders.h - Building linalg code on tensors ---*- C++ -*-===//
//
// Small builders for destination-style tensor code, shared by the nn
// lowering and the reverse-mode rules (nn, coll and the upstream ops' rules)
// so that all of them express layers the same way. Builders that only one
// lowering needs live with it (attention's heads and contractions are in
// lib/Conversion/NNToLinalg/Attention.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_UTILS_STRUCTUREDBUILDERS_H
#define TRELLIS_UTILS_STRUCTUREDBUILDERS_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace trellis::builders {

/// Computes one scalar from the block arguments of a linalg.generic body.
using ScalarFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

/// Float arithmetic (on scalars in linalg.generic bodies, or elementwise on
/// tensors).
mlir::Value addF(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 mlir::Value y);
mlir::Value subF(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 mlir::Value y);
mlir::Value mulF(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 mlir::Value y);

/// A float constant of scalar type `type`.
mlir::Value floatConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                       double value);
/// An i32 constant with the bits of `value`.
mlir::Value i32Const(mlir::OpBuilder &b, mlir::Location loc, uint32_t value);
/// An index constant.
mlir::Value indexConst(mlir::OpBuilder &b, mlir::Location loc, int64_t value);
/// A float constant of `type`: a scalar, or a splat for a tensor type.
mlir::Value constantLike(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Type type, double value);
/// A float constant of the type of `like`.
mlir::Value constantLike(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value like, double value);
/// Zeros of `type` (a filled tensor, or a scalar constant).
mlir::Value zerosLike(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type);

/// The signed integer `x` clamped to [lo, hi].
mlir::Value clampSigned(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        int64_t lo, int64_t hi);
/// In a linalg.generic body: whether the index of loop `dim` equals the
/// integer `value` (a label, say).
mlir::Value loopIndexEquals(mlir::OpBuilder &b, mlir::Location loc,
                            unsigned dim, mlir::Value value);

/// Bodies for the builders below: `a[0] + a[1]` (the step of a sum, or an
/// elementwise sum) and `a[0]·a[1] + a[2]` (the step of a contraction).
mlir::Value sumStep(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange a);
mlir::Value mulAddStep(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::ValueRange a);

//===----------------------------------------------------------------------===//
// Indexing maps
//===----------------------------------------------------------------------===//

/// (d0, ..., d{rank-1}) -> (d{i} for i in `dims`).
mlir::AffineMap selectDims(mlir::MLIRContext *ctx, unsigned rank,
                           llvm::ArrayRef<unsigned> dims);
mlir::AffineMap identity(mlir::MLIRContext *ctx, unsigned rank);
/// Drops the last loop: the map of a per-row value in a row-wise loop nest.
mlir::AffineMap dropLast(mlir::MLIRContext *ctx, unsigned rank);
/// Keeps only the last loop: the map of a per-column parameter vector.
mlir::AffineMap lastOnly(mlir::MLIRContext *ctx, unsigned rank);

//===----------------------------------------------------------------------===//
// Tensors and generics
//===----------------------------------------------------------------------===//

/// A tensor of `shape` filled with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                         double value);

/// The transpose of the last two dims of a rank-3 tensor (linalg.transpose).
mlir::Value transposeLast2(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value m);

/// lhs·rhs per batch entry of rank-3 tensors (linalg.batch_matmul into
/// zeros), in lhs's element type.
mlir::Value batchMatmul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                        mlir::Value rhs);

/// A linalg.generic writing into `init` through `initMap`; the body gets the
/// input elements followed by the current output element.
mlir::Value buildGeneric(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::ValueRange inputs,
                         llvm::ArrayRef<mlir::AffineMap> inputMaps,
                         mlir::Value init, mlir::AffineMap initMap,
                         llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                         ScalarFn body);
/// An elementwise generic producing `type`; inputs are read through `maps`
/// (identity for same-shaped operands, projections for broadcasts).
mlir::Value buildMap(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::RankedTensorType type, mlir::ValueRange inputs,
                     llvm::ArrayRef<mlir::AffineMap> maps, ScalarFn body);
/// An elementwise generic over operands that all have the type of the
/// first, producing that type.
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::ValueRange inputs, ScalarFn body);
/// An elementwise generic over `elements` (all of the type of the first,
/// which it produces) and per-row values `rows` (that type without its last
/// dimension); the body gets the elements, then the row values.
mlir::Value buildRowwiseMap(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::ValueRange elements, mlir::ValueRange rows,
                            ScalarFn body);
/// `acc` with `update` added into its slice at `offsets`/`sizes`/`strides`
/// (update has the slice's type): the slice is the output of a generic that
/// reads it, so bufferization adds in place into the accumulator's buffer
/// (an addf on the extracted slice would get a buffer of its own and be
/// copied back).
mlir::Value addIntoSlice(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value acc, mlir::Value update,
                         llvm::ArrayRef<mlir::OpFoldResult> offsets,
                         llvm::ArrayRef<mlir::OpFoldResult> sizes,
                         llvm::ArrayRef<mlir::OpFoldResult> strides);
/// `size` elements of `x` from `offset` along `dim`, the other dims whole.
mlir::Value extractAlong(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                         unsigned dim, mlir::OpFoldResult offset, int64_t size);
/// `part` written into `whole` from `offset` along `dim` (the one dim in
/// which they differ).
mlir::Value insertAlong(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value part, mlir::Value whole, unsigned dim,
                        mlir::OpFoldResult offset);

//===----------------------------------------------------------------------===//
// Row reductions
//===----------------------------------------------------------------------===//

/// Reduces the last dimension of a loop nest shaped like `type`, starting
/// from `init`; `combine` gets the input elements and the accumulator. The
/// body's floating-point ops are marked `fastmath<reassoc,contract>`, so
/// that LLVM may sum a row in vector lanes (the order of the sum is not
/// fixed).
mlir::Value buildRowReduce(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::RankedTensorType type, mlir::ValueRange inputs,
                           llvm::ArrayRef<mlir::AffineMap> maps, double init,
                           ScalarFn combine);
/// Row sums (over the last dim) of the product of same-shaped tensors.
mlir::Value rowSumOfProduct(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::ValueRange factors);
/// Row sums Σx and Σ(x − mean)² over the last dimension of `x`, mean being
/// Σx/K: the two passes of a variance that stays accurate for large means.
std::pair<mlir::Value, mlir::Value>
buildRowMoments(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
/// Column means and Σ(x − mean)² over the rows of an `MxC` matrix (two
/// passes, as buildRowMoments; nn.batch_norm's batch statistics).
std::pair<mlir::Value, mlir::Value>
buildColumnMoments(mlir::OpBuilder &b, mlir::Location loc, mlir::Value m);
/// Row maximum and Σ exp(x − max) over the last dimension of `x`.
std::pair<mlir::Value, mlir::Value>
buildStableExpSum(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
/// softmax (or log-softmax) over the last dimension of `x`.
mlir::Value buildSoftmax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                         bool log);
/// Sums all elements of `x` into a 0-d tensor (reassociable, as in
/// buildRowReduce) and multiplies by `scale`.
mlir::Value buildScaledTotal(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value x, double scale);

//===----------------------------------------------------------------------===//
// Matrices
//===----------------------------------------------------------------------===//

/// Reassociation that merges all dimensions but the last: `...xK` -> `MxK`.
llvm::SmallVector<mlir::ReassociationIndices> mergeLeading(unsigned rank);

/// `x : ...xK` as an `MxK` matrix (leading dims merged, a unit row added
/// for rank 1), and back to `type`.
mlir::Value toMatrix(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
mlir::Value fromMatrix(mlir::OpBuilder &b, mlir::Location loc, mlir::Value m,
                       mlir::RankedTensorType type);
/// `x : Nx...` as an `NxM` matrix (trailing dims merged, a unit column
/// added for rank 1: nn.flatten), and back to `type`.
mlir::Value flattenTrailing(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x);
mlir::Value unflattenTrailing(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value m, mlir::RankedTensorType type);
/// The transpose of a matrix (linalg.transpose).
mlir::Value transpose2D(mlir::OpBuilder &b, mlir::Location loc, mlir::Value m);
/// a·b for matrices (linalg.matmul into zeros).
mlir::Value matmul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                   mlir::Value rhs);
/// Sums an `MxN` matrix over its rows: the `N` column totals
/// (buildColumnSum of the elements).
mlir::Value sumRows(mlir::OpBuilder &b, mlir::Location loc, mlir::Value m);
/// Σ over the rows i of `term(matrices[k][i, c]..., columns[j][c]...)` for
/// `MxC` matrices and length-`C` vectors: the `C` column totals. With many
/// rows the rows are split into up to 64 chunks whose partial sums a loop
/// nest with a parallel chunk loop first computes (so that
/// trellis-parallelize-linalg shares it among threads; a plain column sum
/// has the reduction first and stays on one thread), then summed.
mlir::Value buildColumnSum(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::ValueRange matrices, mlir::ValueRange columns,
                           ScalarFn term);

} // namespace trellis::builders

#endif // TRELLIS_UTILS_STRUCTUREDBUILDERS_H
