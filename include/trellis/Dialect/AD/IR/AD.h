//===- AD.h - The ad dialect ------------------------------------*- C++ -*-===//

#ifndef TRELLIS_DIALECT_AD_IR_AD_H
#define TRELLIS_DIALECT_AD_IR_AD_H

#include "trellis/Dialect/AD/IR/ADInterfaces.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "trellis/Dialect/AD/IR/ADDialect.h.inc"

#define GET_OP_CLASSES
#include "trellis/Dialect/AD/IR/ADOps.h.inc"

#endif // TRELLIS_DIALECT_AD_IR_AD_H
