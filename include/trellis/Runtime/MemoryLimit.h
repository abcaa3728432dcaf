//===- MemoryLimit.h - When JIT code is out of memory -----------*- C++ -*-===//
//
// The allocation hooks (AllocHooks.h) enforce memory limits: an allocation
// that would take the live bytes past the cap (setMemoryLimit,
// `--memory-limit`, TRELLIS_MEMORY_LIMIT), or a fresh block of 16 MiB or
// more larger than the memory the system has available (MemAvailable, the
// cgroup's limit, RLIMIT_AS), or one that malloc refuses, ends the process
// (the whole MPI job under MPI) with one line:
//
//   trellis: out of memory: allocating 37.3 GiB for a tensor with 1.2 GiB
//   live (21.9 GiB available)
//
// The check comes before malloc because Linux overcommits: a huge malloc may
// succeed and the process be killed later, when the pages are touched.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_MEMORYLIMIT_H
#define TRELLIS_RUNTIME_MEMORYLIMIT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace trellis::runtime {

/// Caps the bytes live through the hooks at `bytes` (0: no cap beyond the
/// memory the system has). Overrides the configured limit
/// (RuntimeConfig::memoryLimit, TRELLIS_MEMORY_LIMIT).
void setMemoryLimit(uint64_t bytes);

/// Returns the cap: setMemoryLimit's, else the configured one, else 0.
uint64_t getMemoryLimit();

/// Sets the cap from a tool's `--memory-limit` value, if it is not empty
/// (else the configured limit stays); an invalid size is an error naming
/// the flag.
llvm::Error setMemoryLimitFromFlag(llvm::StringRef flag);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_MEMORYLIMIT_H
