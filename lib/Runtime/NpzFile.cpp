//===- NpzFile.cpp - Reading .npz files under the memory limit ------------===//
//
// Apart from Npz.cpp, which the fuzzer compiles without the memory limit:
// what the archive's members inflate to is checked as the allocation hooks
// check a tensor (--memory-limit, TRELLIS_MEMORY_LIMIT, else the memory
// available), before anything is inflated, so an archive that cannot fit
// ends the run with the same one line.
//
//===----------------------------------------------------------------------===//

#include "trellis/Runtime/Npz.h"

#include "OutOfMemory.h"
#include "RuntimeError.h"
#include "trellis/Runtime/Files.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace trellis::runtime;

llvm::Expected<NamedArrays> trellis::runtime::readNpz(llvm::StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(path);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + llvm::toString(buffer.takeError()));
  llvm::Expected<NamedArrays> arrays =
      parseNpz((*buffer)->getBuffer(), [](uint64_t inflatedBytes) {
        checkMemoryLimit(inflatedBytes);
        // The allocator's cache (AllocHooks.cpp's) is not released first:
        // archives are read before the program runs and fills it.
        checkMemoryAvailable(inflatedBytes, [] {});
      });
  if (!arrays)
    return makeError("'" + path + "': " + llvm::toString(arrays.takeError()));
  return arrays;
}
