//===- HostArray.h - A dense array owned by the host ------------*- C++ -*-===//
//
// The value type of the runtime: a dense, C-ordered, 64-byte aligned array
// of one DType. Inputs read from .npy files, buffers handed to JIT code and
// results copied back out are all HostArrays.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_HOSTARRAY_H
#define TRELLIS_RUNTIME_HOSTARRAY_H

#include "trellis/Runtime/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace trellis::runtime {

/// A dense C-ordered array. A rank-0 array (empty shape) holds one element.
/// The storage is 64-byte aligned so that it can be passed to vectorized JIT
/// code as is.
class HostArray {
public:
  /// Creates a zero-filled array. Fails when the byte size overflows or the
  /// memory cannot be allocated ("out of memory: allocating 381.5 MiB for
  /// a float32 array of shape (100000000,)").
  static llvm::Expected<HostArray> create(DType dtype,
                                          llvm::ArrayRef<int64_t> shape);

  HostArray(HostArray &&other) noexcept;
  HostArray &operator=(HostArray &&other) noexcept;
  HostArray(const HostArray &) = delete;
  HostArray &operator=(const HostArray &) = delete;
  ~HostArray();

  /// Returns a deep copy, or create()'s error.
  llvm::Expected<HostArray> tryClone() const;
  /// Returns a deep copy; a copy that cannot be allocated is a fatal error
  /// (for arrays the host already holds several of; tryClone otherwise).
  HostArray clone() const;

  DType getDType() const { return dtype; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getRank() const { return shape.size(); }
  /// Returns the number of elements (1 for rank 0).
  int64_t getNumElements() const { return numElements; }
  /// Returns the size of the data in bytes.
  size_t getByteSize() const { return numElements * getByteWidth(dtype); }

  char *getData() { return data; }
  const char *getData() const { return data; }

  /// Prints "float32 array of shape (3, 2)".
  void printTypeAndShape(llvm::raw_ostream &os) const;
  /// Prints "float32 (3, 2) [v0, v1, ...]" with at most `maxValues` values.
  void printSummary(llvm::raw_ostream &os, unsigned maxValues = 8) const;

private:
  HostArray(DType dtype, llvm::ArrayRef<int64_t> shape, int64_t numElements);

  DType dtype;
  llvm::SmallVector<int64_t, 4> shape;
  int64_t numElements;
  char *data = nullptr;
};

/// Formats a shape the way NumPy does: "()", "(3,)", "(2, 3)".
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Returns the number of elements of `shape` times `elementBytes`, or
/// std::nullopt if a dimension is negative or the product overflows.
std::optional<uint64_t> getCheckedByteSize(llvm::ArrayRef<int64_t> shape,
                                           uint64_t elementBytes);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_HOSTARRAY_H
