//===- Pipelines.h - Trellis pass pipelines ---------------------*- C++ -*-===//

#ifndef TRELLIS_PIPELINES_PIPELINES_H
#define TRELLIS_PIPELINES_PIPELINES_H

#include "trellis/Pipelines/CompileOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace trellis {

/// Appends to `pm` (anchored on builtin.module) the lowering from Trellis and
/// upstream tensor-level IR to the LLVM dialect, configured by the MLIR part
/// of `options` (`options.pipeline` is not read: it replaces this pipeline):
/// the training-step transformations that `options` asks for (gradient
/// reduction, rematerialisation), differentiation, nn → linalg, bufferization
/// with buffer deallocation, loops, LLVM. Allocations call the generic hooks
/// `_mlir_memref_to_llvm_alloc`/`_mlir_memref_to_llvm_free`, which the host
/// (trellis-run's runtime) provides to count live tensor bytes.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const CompileOptions &options = {});

/// Registers `trellis-lower-to-llvm` with the pass registry.
void registerPipelines();

} // namespace trellis

#endif // TRELLIS_PIPELINES_PIPELINES_H
