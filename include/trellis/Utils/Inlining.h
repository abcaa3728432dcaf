//===- Inlining.h - Inliner interface of value-semantics dialects -*- C++ -*-===//

#ifndef TRELLIS_UTILS_INLINING_H
#define TRELLIS_UTILS_INLINING_H

#include "mlir/Transforms/InliningUtils.h"

namespace trellis {

/// For dialects whose ops are pure functions of their operands (nn) or
/// only annotate such computations (ad): any of their ops may be inlined,
/// which the differentiation pass does before its reverse sweep.
struct AlwaysInlinableInterface : mlir::DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(mlir::Operation *, mlir::Region *, bool,
                       mlir::IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(mlir::Region *, mlir::Region *, bool,
                       mlir::IRMapping &) const final {
    return true;
  }
};

} // namespace trellis

#endif // TRELLIS_UTILS_INLINING_H
