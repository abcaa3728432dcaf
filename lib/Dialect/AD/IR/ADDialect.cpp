//===- ADDialect.cpp - The ad dialect -------------------------------------===//

#include "trellis/Dialect/AD/IR/AD.h"

#include "trellis/Utils/Inlining.h"

using namespace mlir;
using namespace trellis::ad;

#include "trellis/Dialect/AD/IR/ADDialect.cpp.inc"
#include "trellis/Dialect/AD/IR/ADInterfaces.cpp.inc"

void ADDialect::initialize() {
  addInterfaces<trellis::AlwaysInlinableInterface>();
  addOperations<
#define GET_OP_LIST
#include "trellis/Dialect/AD/IR/ADOps.cpp.inc"
      >();
}
