//===- NNToLinalg.h - Lower nn to linalg on tensors -------------*- C++ -*-===//

#ifndef TRELLIS_CONVERSION_NNTOLINALG_NNTOLINALG_H
#define TRELLIS_CONVERSION_NNTOLINALG_NNTOLINALG_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace trellis {

#define GEN_PASS_DECL_CONVERTNNTOLINALG
#define GEN_PASS_DECL_TRELLISCHECKTENSORSIZES
#define GEN_PASS_DECL_TRELLISFILLSPLATS
#define GEN_PASS_DECL_TRELLISCHOOSEDESTINATIONS
#define GEN_PASS_DECL_TRELLISEARLYRESULTS
#define GEN_PASS_DECL_TRELLISRETURNARGUMENTS
#include "trellis/Conversion/Passes.h.inc"

/// The default rows per chunk of the attention lowering (docs/attention.md).
inline constexpr int64_t kDefaultAttentionChunk = 128;

/// Adds the patterns that lower every nn op to linalg/tensor/arith/math.
/// Attention over sequences longer than `attentionChunk` is lowered in
/// chunks of that many rows; 0 lowers it whole.
void populateNNToLinalgPatterns(
    mlir::RewritePatternSet &patterns,
    int64_t attentionChunk = kDefaultAttentionChunk);

} // namespace trellis

#endif // TRELLIS_CONVERSION_NNTOLINALG_NNTOLINALG_H
