//===- Attention.h - Lowering of attention and its VJP ----------*- C++ -*-===//
//
// Private to the nn lowering. Two forms of each:
//
//  * whole: the probabilities of every query against every key as one
//    `BxHxLqxLk` tensor (the reference, and the fastest for short sequences);
//  * chunked: queries and keys in chunks of `chunk` rows; the forward keeps a
//    running row maximum and sum (online softmax), the VJP recomputes each
//    chunk's probabilities from per-row log-sum-exp statistics. Memory is
//    linear in the sequence length; no tensor has two sequence dimensions.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_CONVERSION_NNTOLINALG_ATTENTION_H
#define TRELLIS_LIB_CONVERSION_NNTOLINALG_ATTENTION_H

#include "mlir/IR/Builders.h"

#include <array>

namespace trellis {

/// How `nn.attention` and its VJP are lowered.
struct AttentionLoweringOptions {
  int64_t numHeads;
  bool causal;
  /// Rows per chunk; 0 lowers whole. Sequences no longer than one chunk are
  /// lowered whole too (the same memory, less code).
  int64_t chunk;

  /// True if sequences of `lq` queries and `lk` keys are chunked.
  bool isChunked(int64_t lq, int64_t lk) const {
    return chunk > 0 && (lq > chunk || lk > chunk);
  }
};

/// softmax(q·kᵀ/√Dh)·v per head for `q : BxLqxD`, `k, v : BxLkxD`.
mlir::Value buildAttention(mlir::OpBuilder &b, mlir::Location loc,
                           const AttentionLoweringOptions &how, mlir::Value q,
                           mlir::Value k, mlir::Value v);

/// The cotangents of q, k and v given the attention's result `out` and its
/// cotangent `dOut`.
std::array<mlir::Value, 3>
buildAttentionGrad(mlir::OpBuilder &b, mlir::Location loc,
                   const AttentionLoweringOptions &how, mlir::Value q,
                   mlir::Value k, mlir::Value v, mlir::Value out,
                   mlir::Value dOut);

} // namespace trellis

#endif // TRELLIS_LIB_CONVERSION_NNTOLINALG_ATTENTION_H
