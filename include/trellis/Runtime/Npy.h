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

/// Reads and decodes the .npy file at `path` (see parseNpy); a missing or
/// unreadable file is an error too.
llvm::Expected<HostArray> readNpy(llvm::StringRef path);

/// Encodes `array` as a version 1.0 .npy file.
void encodeNpy(llvm::raw_ostream &os, const HostArray &array);

/// Writes `array` to `path` as a version 1.0 .npy file.
llvm::Error writeNpy(llvm::StringRef path, const HostArray &array);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_NPY_H
