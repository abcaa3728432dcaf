//===- Passes.h - Passes of the ad dialect ----------------------*- C++ -*-===//

#ifndef TRELLIS_DIALECT_AD_TRANSFORMS_PASSES_H
#define TRELLIS_DIALECT_AD_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace trellis::ad {

/// What ad-remat stores for the backward pass (its `policy` option).
enum class RematPolicy {
  /// Every activation (the pass changes nothing).
  Store,
  /// Only the outputs of segments of `every` layers.
  Every,
  /// The schedule of least recomputation within `budget` bytes.
  Budget,
};

#define GEN_PASS_DECL
#include "trellis/Dialect/AD/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "trellis/Dialect/AD/Transforms/Passes.h.inc"

} // namespace trellis::ad

#endif // TRELLIS_DIALECT_AD_TRANSFORMS_PASSES_H
