//===- NNDialect.cpp - The nn dialect -------------------------------------===//

#include "trellis/Dialect/NN/IR/NN.h"

#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace trellis::nn;

#include "trellis/Dialect/NN/IR/NNDialect.cpp.inc"

namespace {
/// nn ops are pure functions of their operands: any of them may be inlined
/// (the differentiation pass inlines calls before its reverse sweep).
struct NNInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void NNDialect::initialize() {
  addInterfaces<NNInlinerInterface>();
  addOperations<
#define GET_OP_LIST
#include "trellis/Dialect/NN/IR/NNOps.cpp.inc"
      >();
}
