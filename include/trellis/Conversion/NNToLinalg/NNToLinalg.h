//===- NNToLinalg.h - Lower nn to linalg on tensors -------------*- C++ -*-===//

#ifndef TRELLIS_CONVERSION_NNTOLINALG_NNTOLINALG_H
#define TRELLIS_CONVERSION_NNTOLINALG_NNTOLINALG_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace trellis {

#define GEN_PASS_DECL_CONVERTNNTOLINALG
#include "trellis/Conversion/Passes.h.inc"

/// Adds the patterns that lower every nn op to linalg/tensor/arith/math.
void populateNNToLinalgPatterns(mlir::RewritePatternSet &patterns);

} // namespace trellis

#endif // TRELLIS_CONVERSION_NNTOLINALG_NNTOLINALG_H
