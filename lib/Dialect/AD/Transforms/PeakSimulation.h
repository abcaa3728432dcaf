//===- PeakSimulation.h - Peak tensor bytes of lowered code -----*- C++ -*-===//
//
// ad-remat's budget is a bound on what `trellis-run --stats` measures as
// peak_tensor_bytes: the high-water mark of the bytes the lowered code has
// allocated through the runtime's hooks and not freed. These helpers obtain
// that figure without running anything: a copy of the module goes through
// the Trellis lowering up to its deallocation decisions
// (convert-bufferization-to-memref), and the allocations and deallocations
// of the resulting buffer code are replayed in program order.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_DIALECT_AD_TRANSFORMS_PEAKSIMULATION_H
#define TRELLIS_LIB_DIALECT_AD_TRANSFORMS_PEAKSIMULATION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace trellis::ad {

/// A predicted peak: exact, or an upper bound where the replay met
/// deallocations under conditions it does not evaluate.
struct PeakBytes {
  int64_t bytes = 0;
  bool exact = true;
};

/// The peak of the bytes `fn`, a function on buffers after deallocation,
/// allocates and has not freed at once while it runs, counted as the
/// runtime's hooks count them (a memref.alloc's bytes plus its alignment,
/// which the LLVM lowering adds; allocas and buffers the caller owns do not
/// count). Handles straight-line code, calls of functions in the module,
/// scf.for with constant bounds and scf.if with constant conditions (an
/// scf.if under another condition that only frees is taken as not freeing:
/// an upper bound); fails with a reason in `whyNot` on anything else that
/// allocates.
mlir::FailureOr<PeakBytes> simulatePeakBytes(mlir::func::FuncOp fn,
                                             std::string &whyNot);

/// Runs `pm` on `module` without printing its diagnostics (they are not the
/// user's): the first error's text goes to `firstError`.
mlir::LogicalResult runQuietly(mlir::PassManager &pm, mlir::ModuleOp module,
                               std::string &firstError);

/// Lowers a copy of `module` with trellis-lower-to-llvm (the given attention
/// chunk, the other options at their defaults) up to deallocation and
/// returns the largest simulatePeakBytes of the functions named `entries`
/// (exact if all of them are).
/// `module` itself is not changed.
mlir::FailureOr<PeakBytes> predictPeakBytes(mlir::ModuleOp module,
                                            llvm::ArrayRef<std::string> entries,
                                            int64_t attentionChunk,
                                            std::string &whyNot);

} // namespace trellis::ad

#endif // TRELLIS_LIB_DIALECT_AD_TRANSFORMS_PEAKSIMULATION_H
