//===- CollToMPI.h - Lower coll to MPI --------------------------*- C++ -*-===//

#ifndef TRELLIS_CONVERSION_COLLTOMPI_COLLTOMPI_H
#define TRELLIS_CONVERSION_COLLTOMPI_COLLTOMPI_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace trellis {

#define GEN_PASS_DECL_CONVERTCOLLTOMPI
#define GEN_PASS_DECL_FIXOPENMPISYMBOLS
#include "trellis/Conversion/Passes.h.inc"

/// Declares the memory effects of the upstream mpi ops Trellis emits (LLVM 22
/// declares none, and buffer deallocation rejects ops with unknown effects).
void registerMPIMemoryEffectModels(mlir::DialectRegistry &registry);

} // namespace trellis

#endif // TRELLIS_CONVERSION_COLLTOMPI_COLLTOMPI_H
