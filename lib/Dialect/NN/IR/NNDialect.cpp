//===- NNDialect.cpp - The nn dialect -------------------------------------===//

#include "trellis/Dialect/NN/IR/NN.h"

#include "trellis/Dialect/Coll/IR/Coll.h"
#include "trellis/Utils/Inlining.h"

using namespace mlir;
using namespace trellis::nn;

#include "trellis/Dialect/NN/IR/NNDialect.cpp.inc"

void NNDialect::initialize() {
  addInterfaces<trellis::AlwaysInlinableInterface>();
  addOperations<
#define GET_OP_LIST
#include "trellis/Dialect/NN/IR/NNOps.cpp.inc"
      >();
}
