//===- CollDialect.cpp - The coll dialect ---------------------------------===//

#include "trellis/Dialect/Coll/IR/Coll.h"

#include "trellis/Utils/Inlining.h"

using namespace mlir;
using namespace trellis::coll;

#include "trellis/Dialect/Coll/IR/CollDialect.cpp.inc"

void CollDialect::initialize() {
  addInterfaces<trellis::AlwaysInlinableInterface>();
  addOperations<
#define GET_OP_LIST
#include "trellis/Dialect/Coll/IR/CollOps.cpp.inc"
      >();
}
