//===- NN.h - The nn dialect ------------------------------------*- C++ -*-===//
//
// Public header of the nn dialect: the dialect class and its ops.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_DIALECT_NN_IR_NN_H
#define TRELLIS_DIALECT_NN_IR_NN_H

#include "trellis/Dialect/AD/IR/ADInterfaces.h"
#include "trellis/Utils/WindowBuilders.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "trellis/Dialect/NN/IR/NNDialect.h.inc"

#define GET_OP_CLASSES
#include "trellis/Dialect/NN/IR/NNOps.h.inc"

#endif // TRELLIS_DIALECT_NN_IR_NN_H
