//===- Passes.h - Passes of the ad dialect ----------------------*- C++ -*-===//

#ifndef TRELLIS_DIALECT_AD_TRANSFORMS_PASSES_H
#define TRELLIS_DIALECT_AD_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
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

/// The spellings of RematPolicy, for every option that takes one (ad-remat's
/// `policy`, the tools' `--remat`).
inline llvm::cl::ValuesClass rematPolicyValues() {
  return llvm::cl::values(
      clEnumValN(RematPolicy::Store, "store",
                 "Store every activation (nothing changes)"),
      clEnumValN(RematPolicy::Every, "every",
                 "Checkpoint segments of `every` layers"),
      clEnumValN(RematPolicy::Budget, "budget",
                 "Least recomputation within `budget` bytes"));
}

#define GEN_PASS_DECL
#include "trellis/Dialect/AD/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "trellis/Dialect/AD/Transforms/Passes.h.inc"

} // namespace trellis::ad

#endif // TRELLIS_DIALECT_AD_TRANSFORMS_PASSES_H
