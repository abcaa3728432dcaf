//===- Npz.h - NumPy .npz archives ------------------------------*- C++ -*-===//
//
// A .npz file is a zip archive of .npy members (`np.savez` stores them,
// `np.savez_compressed` deflates them). Both are read; archives are written
// stored, to a temporary file renamed over the target, so a reader (or a
// process killed mid-write) never sees a partial archive.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_NPZ_H
#define TRELLIS_RUNTIME_NPZ_H

#include "trellis/Runtime/HostArray.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace trellis::runtime {

/// The arrays of an archive, in archive order, named without ".npy".
using NamedArrays = std::vector<std::pair<std::string, HostArray>>;

/// Decodes the bytes of a .npz archive. Malformed archives (bad or missing
/// records, sizes past the end, members whose bytes overlap, unsupported
/// compression, CRC mismatch, a member that is not a valid .npy) are errors,
/// never crashes. `beforeInflating`, if given, is called with the bytes all
/// members inflate to once the records are checked, before anything is
/// inflated. A deflated member is inflated straight into its array.
llvm::Expected<NamedArrays>
parseNpz(llvm::StringRef bytes,
         llvm::function_ref<void(uint64_t)> beforeInflating = {});

/// Reads the .npz archive at `path` (see parseNpz). Members that would
/// inflate past the memory limit (MemoryLimit.h: --memory-limit, else the
/// memory available) end the process with the allocator's out-of-memory
/// line before they are inflated.
llvm::Expected<NamedArrays> readNpz(llvm::StringRef path);

/// Writes `arrays` as a stored .npz archive: to `path`.tmp.<pid>, flushed and
/// closed, then renamed over `path`.
llvm::Error writeNpzAtomically(llvm::StringRef path,
                               const std::vector<std::pair<std::string, const HostArray *>> &arrays);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_NPZ_H
