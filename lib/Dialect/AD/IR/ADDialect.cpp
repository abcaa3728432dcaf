//===- ADDialect.cpp - The ad dialect -------------------------------------===//

#include "trellis/Dialect/AD/IR/AD.h"

#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace trellis::ad;

#include "trellis/Dialect/AD/IR/ADDialect.cpp.inc"
#include "trellis/Dialect/AD/IR/ADInterfaces.cpp.inc"

namespace {
struct ADInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void ADDialect::initialize() {
  addInterfaces<ADInlinerInterface>();
  addOperations<
#define GET_OP_LIST
#include "trellis/Dialect/AD/IR/ADOps.cpp.inc"
      >();
}
