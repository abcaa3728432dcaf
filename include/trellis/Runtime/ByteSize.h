//===- ByteSize.h - Byte counts as people write them ------------*- C++ -*-===//

#ifndef TRELLIS_RUNTIME_BYTESIZE_H
#define TRELLIS_RUNTIME_BYTESIZE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace trellis::runtime {

/// Parses a byte count: an integer or decimal number with an optional unit
/// K, M, G, T (powers of 1024; `KiB`, `KB`, `k` and `B` suffixes accepted),
/// e.g. `4G`, `1.5GiB`, `512M`, `1000000`.
llvm::Expected<uint64_t> parseByteSize(llvm::StringRef text);

/// `8.0 GiB`, `512.0 MiB`, `100 bytes`.
std::string formatBytes(uint64_t bytes);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_BYTESIZE_H
