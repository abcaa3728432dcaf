//===- Passes.h - Passes of the coll dialect --------------------*- C++ -*-===//

#ifndef TRELLIS_DIALECT_COLL_TRANSFORMS_PASSES_H
#define TRELLIS_DIALECT_COLL_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace trellis::coll {

#define GEN_PASS_DECL
#include "trellis/Dialect/Coll/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "trellis/Dialect/Coll/Transforms/Passes.h.inc"

} // namespace trellis::coll

#endif // TRELLIS_DIALECT_COLL_TRANSFORMS_PASSES_H
