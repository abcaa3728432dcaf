//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reading and writing the NumPy .npy format (versions 1.0, 2.0 and 3.0 are
// read; 1.0 is written, in C order) for the DTypes of the runtime.
// The reader validates everything and never trusts sizes from the header,
// so malformed files produce an error, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_NPY_H
#define TRELLIS_RUNTIME_NPY_H

#include "trellis/Runtime/HostArray.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace trellis::runtime {

/// Decodes the bytes of a .npy file. Errors name the problem: bad magic,
/// unsupported version, truncated header or data, malformed header,
/// fortran_order True (for rank >= 2), big-endian or unsupported dtype,
/// data size not matching the shape.
llvm::Expected<HostArray> parseNpy(llvm::StringRef bytes);

/// What a .npy header says: the dtype and shape of the array, and where its
/// data starts.
struct NpyLayout {
  DType dtype;
  llvm::SmallVector<int64_t, 4> shape;
  size_t dataOffset;
};

/// Returns the size of the header (magic to the end of the dict) of a .npy
/// file from its first 10 bytes (`prefix` may be longer), or std::nullopt if
/// they do not start one (parseNpyHeader then names the problem).
std::optional<size_t> getNpyHeaderSize(llvm::StringRef prefix);

/// Decodes the header of a .npy file of `fileSize` bytes from `header`, its
/// first bytes (at least getNpyHeaderSize's, or the whole file), with
/// parseNpy's checks and errors, the data size against the shape included;
/// for readers that place the data themselves.
llvm::Expected<NpyLayout> parseNpyHeader(llvm::StringRef header,
                                         uint64_t fileSize);

/// Reads and decodes the .npy file at `path` (see parseNpy); a missing or
/// unreadable file is an error too.
llvm::Expected<HostArray> readNpy(llvm::StringRef path);

/// Encodes `array` as a version 1.0 .npy file.
void encodeNpy(llvm::raw_ostream &os, const HostArray &array);

/// Writes `array` to `path` as a version 1.0 .npy file.
llvm::Error writeNpy(llvm::StringRef path, const HostArray &array);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_NPY_H
