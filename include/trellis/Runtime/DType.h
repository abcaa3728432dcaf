//===- DType.h - Element types the runtime exchanges ------------*- C++ -*-===//
//
// The element types that cross the host/JIT boundary and the NumPy .npy
// files that hold them, with their NumPy and MLIR spellings. Every fact about
// them is a row of DType.def.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_DTYPE_H
#define TRELLIS_RUNTIME_DTYPE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

namespace mlir {
class MLIRContext;
class Type;
} // namespace mlir

namespace trellis::runtime {

/// An element type of host arrays: little-endian, fixed width.
enum class DType {
#define TRELLIS_DTYPE(NAME, ...) NAME,
#include "trellis/Runtime/DType.def"
};

/// Calls `fn` with a value-initialized element of `dtype`'s C type (0, of
/// type float, double, int32_t, ...) and returns its result: code written
/// once for every element type, e.g.
///   visitElementType(dtype, [&](auto zero) { return sizeof(zero); })
template <typename Fn> decltype(auto) visitElementType(DType dtype, Fn &&fn) {
  switch (dtype) {
#define TRELLIS_DTYPE(NAME, C_TYPE, ...)                                       \
  case DType::NAME:                                                            \
    return fn(C_TYPE{});
#include "trellis/Runtime/DType.def"
  }
  llvm_unreachable("unknown DType");
}

/// Returns the size of one element in bytes.
size_t getByteWidth(DType dtype);

/// Returns true for the floating-point types.
bool isFloat(DType dtype);

/// Returns the short name, e.g. "f32".
llvm::StringRef getShortName(DType dtype);

/// Returns the NumPy array-protocol descriptor, e.g. "<f4".
llvm::StringRef getNpyDescr(DType dtype);

/// Returns the NumPy dtype name, e.g. "float32".
llvm::StringRef getNumpyName(DType dtype);

/// Parses a little-endian (or native, '=', on little-endian hosts) NumPy
/// descriptor; returns std::nullopt for any other.
std::optional<DType> parseNpyDescr(llvm::StringRef descr);

/// Returns the tensor-level MLIR element type of `dtype` (f32, f64, i32,
/// i64, ui32).
mlir::Type getMLIRType(mlir::MLIRContext *ctx, DType dtype);

/// Maps an MLIR element type (f32, f64, i32/si32, i64/si64, ui32) to a DType.
std::optional<DType> getDTypeOf(mlir::Type type);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_DTYPE_H
