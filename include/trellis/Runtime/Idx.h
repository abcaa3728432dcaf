//===- Idx.h - IDX files (MNIST's format) -----------------------*- C++ -*-===//
//
// An IDX file (LeCun's format of MNIST, also Fashion-MNIST's) is a 4-byte
// magic — two zero bytes, an element type code, the number of dimensions —
// then each dimension as a big-endian uint32, then the elements in C order.
// Files may be gzip-compressed (Debian's dataset-fashion-mnist ships them
// so); they are inflated as they are read, straight into the array.
//
// Images and labels are unsigned bytes (type 0x08), the only element type
// read: images become float32 scaled to [0, 1] (byte / 255), labels int32.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_IDX_H
#define TRELLIS_RUNTIME_IDX_H

#include "trellis/Runtime/HostArray.h"
#include "trellis/Runtime/Npz.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace trellis::runtime {

/// What the bytes of an IDX file become.
enum class IdxElements {
  /// float32, byte / 255: pixels in [0, 1].
  Scaled,
  /// int32, the byte's value: class labels.
  Integers,
};

/// Decodes an IDX file of unsigned bytes (raw, or gzip-compressed: the
/// bytes begin 1f 8b) into an array of its dimensions. Errors, never
/// crashes: a wrong magic, an unknown or unsupported element type, no
/// dimensions, dimensions whose product overflows, data shorter or longer
/// than the dimensions say, a corrupt gzip stream. `beforeAllocating`, if
/// given, is called with the array's byte size before it is allocated.
llvm::Expected<HostArray>
parseIdx(llvm::StringRef bytes, IdxElements as,
         llvm::function_ref<void(uint64_t)> beforeAllocating = {});

/// Reads the IDX file at `path` (a regular file, see parseIdx); an array
/// past the memory limit ends the process with the allocator's
/// out-of-memory line. Errors name the path.
llvm::Expected<HostArray> readIdx(llvm::StringRef path, IdxElements as);

/// Reads an IDX dataset: `x`, the images of `imagesPath` (N x dims...,
/// float32 in [0, 1]), and `y`, the labels of `labelsPath` (N, int32). The
/// images need at least two dimensions, the labels exactly one, and both
/// the same N.
llvm::Expected<NamedArrays> readIdxDataset(llvm::StringRef imagesPath,
                                           llvm::StringRef labelsPath);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_IDX_H
