//===- Signature.h - The host-visible signature of an entry -----*- C++ -*-===//
//
// What the host needs to know about the arguments and results of the entry
// function, recorded from its tensor-level type before lowering erases it.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_SIGNATURE_H
#define TRELLIS_RUNTIME_SIGNATURE_H

#include "trellis/Runtime/DType.h"
#include "trellis/Runtime/HostArray.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
class ModuleOp;
class Type;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace trellis::runtime {

/// One argument or result of an entry function: a scalar (f32, f64, i32,
/// i64, ui32) passed by value, or a ranked tensor/memref of those with the
/// identity layout, passed as a strided memref descriptor.
struct BoundaryValue {
  /// True for a scalar, false for a tensor or memref.
  bool isScalar = false;
  DType dtype = DType::F32;
  /// Dimension sizes; mlir::ShapedType::kDynamic for '?'. Empty for scalars
  /// and rank-0 tensors.
  llvm::SmallVector<int64_t, 4> shape;
  /// The MLIR type as written, e.g. "tensor<2x3xf32>", for messages.
  std::string typeName;

  int64_t getRank() const { return shape.size(); }

  /// Returns true if `array` has this value's dtype and a shape that matches
  /// (dynamic dimensions match any size; scalars take rank-0 arrays).
  bool accepts(const HostArray &array) const;
};

/// The signature of an entry function.
struct EntrySignature {
  std::string name;
  llvm::SmallVector<BoundaryValue> args;
  llvm::SmallVector<BoundaryValue> results;
};

/// Returns the func.func named `entry` in `module`; fails if there is none
/// (listing the functions there are) or if it is only a declaration.
llvm::Expected<mlir::func::FuncOp> lookupEntryFunction(mlir::ModuleOp module,
                                                       llvm::StringRef entry);

/// Describes `type` as a BoundaryValue; fails with a message naming the type
/// if the host cannot pass it.
llvm::Expected<BoundaryValue> getBoundaryValue(mlir::Type type);

/// Records the signature of `func`; fails if an argument or result has a
/// type the host cannot pass.
llvm::Expected<EntrySignature> getEntrySignature(mlir::func::FuncOp func);

/// Returns success if `array` can bind to `value`, else an error
/// "expected <type>, got <dtype> array of shape <shape>".
llvm::Error checkBinding(const BoundaryValue &value, const HostArray &array);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_SIGNATURE_H
