//===- Pipelines.h - Trellis pass pipelines ---------------------*- C++ -*-===//

#ifndef TRELLIS_PIPELINES_PIPELINES_H
#define TRELLIS_PIPELINES_PIPELINES_H

#include "llvm/Support/LogicalResult.h"

#include <cstdint>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace trellis {

/// The choices the lowering leaves to its user.
struct LowerToLLVMOptions {
  /// Rows per chunk of the attention lowering (convert-nn-to-linalg's
  /// `attention-chunk`); 0 lowers attention whole.
  int64_t attentionChunk = 128;
  /// Check before every collective that all ranks agree on it
  /// (convert-coll-to-mpi's `check-agreement`, docs/reliability-failures.md).
  bool checkCollectives = false;
};

/// Appends to `pm` (anchored on builtin.module) the lowering from Trellis and
/// upstream tensor-level IR to the LLVM dialect: nn → linalg, bufferization
/// with buffer deallocation, loops, LLVM. Allocations call the generic hooks
/// `_mlir_memref_to_llvm_alloc`/`_mlir_memref_to_llvm_free`, which the host
/// (trellis-run's runtime) provides to count live tensor bytes. Fails (with
/// a message on stderr) if a pass of the pipeline is not registered: call
/// trellis::registerAllPasses() first.
llvm::LogicalResult
buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                         const LowerToLLVMOptions &options = {});

/// Registers `trellis-lower-to-llvm` with the pass registry.
void registerPipelines();

} // namespace trellis

#endif // TRELLIS_PIPELINES_PIPELINES_H
