//===- OutOfMemory.h - The allocator's memory checks ------------*- C++ -*-===//
//
// What the allocation hooks (AllocHooks.cpp) ask of the memory limits
// (MemoryLimit.cpp) before they allocate. Each check that fails ends the
// process with one line (trellis/Runtime/MemoryLimit.h).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_RUNTIME_OUTOFMEMORY_H
#define TRELLIS_LIB_RUNTIME_OUTOFMEMORY_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>
#include <string>

namespace trellis::runtime {

struct RuntimeConfig;

/// Takes the memory limit and the launcher's rank and size (for the
/// message) from `config`; part of configureAllocator.
void configureMemoryLimit(const RuntimeConfig &config);

/// Ends the process if `size` more live bytes would exceed getMemoryLimit().
void checkMemoryLimit(size_t size);

/// Ends the process if a fresh block of `size` bytes cannot fit in the
/// memory the system has available, after `releaseCache` has given back the
/// blocks the allocator keeps. Blocks under 16 MiB are not checked.
void checkMemoryAvailable(size_t size, llvm::function_ref<void()> releaseCache);

/// Prints "out of memory: allocating <size> for a tensor with <live> live
/// (<why>)" and ends the process, or the whole job under MPI.
[[noreturn]] void reportOutOfMemory(size_t size, const std::string &why);

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_OUTOFMEMORY_H
