//===- DType.h - Element types the runtime exchanges ------------*- C++ -*-===//
//
// The element types that cross the host/JIT boundary and the NumPy .npy
// files that hold them, with their NumPy and MLIR spellings.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_DTYPE_H
#define TRELLIS_RUNTIME_DTYPE_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>

namespace mlir {
class Type;
} // namespace mlir

namespace trellis::runtime {

/// An element type of host arrays: little-endian, fixed width.
enum class DType { F32, F64, I32, I64, U32 };

/// Returns the size of one element in bytes.
size_t getByteWidth(DType dtype);

/// Returns the NumPy array-protocol descriptor, e.g. "<f4".
llvm::StringRef getNpyDescr(DType dtype);

/// Returns the NumPy dtype name, e.g. "float32".
llvm::StringRef getNumpyName(DType dtype);

/// Parses a little-endian (or native, '=', on little-endian hosts) NumPy
/// descriptor; returns std::nullopt for any other.
std::optional<DType> parseNpyDescr(llvm::StringRef descr);

/// Maps an MLIR element type (f32, f64, i32/si32, i64/si64, ui32) to a DType.
std::optional<DType> getDTypeOf(mlir::Type type);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_DTYPE_H
