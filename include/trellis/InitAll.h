//===- InitAll.h - Register what Trellis tools use --------------*- C++ -*-===//
//
// One place that registers, selectively, the Trellis dialects and passes and
// the upstream ones that models and the lowering pipeline use.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_INITALL_H
#define TRELLIS_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace trellis {

/// Adds the Trellis dialects, the upstream dialects models are written in or
/// lowered through, their interface models, and LLVM IR translations.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers Trellis passes and pipelines plus the upstream passes the
/// pipelines are made of (so each step can be run alone in trellis-opt).
void registerAllPasses();

} // namespace trellis

#endif // TRELLIS_INITALL_H
