//===- ParallelizeLinalg.h - Large linalg ops to parallel loops -*- C++ -*-===//
//
// trellis-parallelize-linalg lowers the linalg ops with enough work to loop
// nests whose leading parallel loops are one scf.parallel, which
// convert-scf-to-openmp turns into an OpenMP worksharing loop; the others
// are left to upstream's convert-linalg-to-loops (docs/performance.md,
// "Threads"). trellis-strided-copies-to-linalg turns the copies with a
// strided side into linalg.copy first.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_CONVERSION_LINALGTOLOOPS_PARALLELIZELINALG_H
#define TRELLIS_CONVERSION_LINALGTOLOOPS_PARALLELIZELINALG_H

#include "mlir/Pass/Pass.h"

#include <cstdint>

namespace trellis {

/// The default `min-iterations` of trellis-parallelize-linalg: below this
/// many iterations of its loop body (about as many nanoseconds of work), an
/// op is not worth waking a second thread for.
inline constexpr int64_t kMinParallelIterations = 1 << 15;

#define GEN_PASS_DECL_TRELLISPARALLELIZELINALG
#define GEN_PASS_DECL_TRELLISINLINEALLOCASCOPES
#define GEN_PASS_DECL_TRELLISSTRIDEDCOPIESTOLINALG
#define GEN_PASS_DECL_TRELLISOUTLINEPARALLELREGIONS
#include "trellis/Conversion/Passes.h.inc"

} // namespace trellis

#endif // TRELLIS_CONVERSION_LINALGTOLOOPS_PARALLELIZELINALG_H
