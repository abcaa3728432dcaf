//===- CollDialect.cpp - The coll dialect ---------------------------------===//

#include "trellis/Dialect/Coll/IR/Coll.h"

#include "trellis/Utils/Inlining.h"

using namespace mlir;
using namespace trellis::coll;

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include "trellis/Dialect/Coll/IR/CollDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "trellis/Dialect/Coll/IR/CollTypes.cpp.inc"

void CollDialect::initialize() {
  addInterfaces<trellis::AlwaysInlinableInterface>();
  addTypes<
#define GET_TYPEDEF_LIST
#include "trellis/Dialect/Coll/IR/CollTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "trellis/Dialect/Coll/IR/CollOps.cpp.inc"
      >();
}
