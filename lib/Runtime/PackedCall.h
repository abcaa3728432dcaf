//===- PackedCall.h - Calling the ExecutionEngine's packed wrapper -*- C++ -*-//
//
// The ExecutionEngine wraps every function `f` of the lowered module in
// `void _mlir_f(void **args)`: args[i] points at the i-th parameter of the
// lowered `f`, and args[numParams] at storage for its return value.
//
// With the default (non bare-pointer) calling convention, each memref
// parameter of rank r is expanded into 3 + 2r parameters: allocated pointer,
// aligned pointer, offset, sizes[r], strides[r]; a scalar stays one. One
// result is returned as itself (a memref as the descriptor struct
// {ptr, ptr, i64, [r x i64], [r x i64]}); several as a struct of those, laid
// out with natural alignment.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_RUNTIME_PACKEDCALL_H
#define TRELLIS_LIB_RUNTIME_PACKEDCALL_H

#include "trellis/Runtime/HostArray.h"
#include "trellis/Runtime/Signature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

namespace mlir::LLVM {
class LLVMFuncOp;
} // namespace mlir::LLVM

namespace trellis::runtime {

/// Checks that the lowered `func` has exactly the parameters and return type
/// that PackedCall assumes for `signature`.
llvm::Error verifyLoweredSignature(mlir::LLVM::LLVMFuncOp func,
                                   const EntrySignature &signature);

/// Argument and result storage for one call through the packed wrapper.
class PackedCall {
public:
  /// Prepares a call of `signature` on `args`, which must match it. The
  /// callee may write into `args`; they must outlive takeResults(), which
  /// moves an argument whose own buffer the callee returns into that result.
  PackedCall(const EntrySignature &signature,
             llvm::MutableArrayRef<HostArray> args);

  /// Returns the `void **` to pass to the wrapper.
  void **getPackedArgs() { return packedArgs.data(); }

  /// After the call: copies each result into a HostArray — or, for a result
  /// that is a whole argument's buffer (an update written in place and
  /// returned as it is), moves that argument into it, leaving the argument
  /// empty — then frees every distinct result buffer that the program
  /// allocated (never host buffers).
  llvm::Expected<llvm::SmallVector<HostArray>> takeResults();

private:
  /// The argument whose whole buffer the result `value` at `base` is, if
  /// any (not one an earlier result took).
  HostArray *findReturnedArgument(const BoundaryValue &value, const char *base);

  const EntrySignature &signature;
  llvm::MutableArrayRef<HostArray> args;
  /// One 8-byte slot per lowered parameter, holding its value.
  llvm::SmallVector<uint64_t> paramSlots;
  /// The return value, 8-byte aligned.
  llvm::SmallVector<uint64_t> resultStorage;
  /// Byte offset of each result in resultStorage.
  llvm::SmallVector<size_t> resultOffsets;
  llvm::SmallVector<void *> packedArgs;
};

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_PACKEDCALL_H
