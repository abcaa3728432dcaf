//===- Passes.h - Trellis conversion passes ---------------------*- C++ -*-===//

#ifndef TRELLIS_CONVERSION_PASSES_H
#define TRELLIS_CONVERSION_PASSES_H

#include "trellis/Conversion/CollToMPI/CollToMPI.h"
#include "trellis/Conversion/LinalgToBlas/LinalgToBlas.h"
#include "trellis/Conversion/LinalgToLoops/ParallelizeLinalg.h"
#include "trellis/Conversion/NNToLinalg/NNToLinalg.h"
#include "trellis/Conversion/Profile/ProfileOps.h"

namespace trellis {

#define GEN_PASS_REGISTRATION
#include "trellis/Conversion/Passes.h.inc"

} // namespace trellis

#endif // TRELLIS_CONVERSION_PASSES_H
