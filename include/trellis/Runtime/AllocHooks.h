//===- AllocHooks.h - Counting allocator for JIT code -----------*- C++ -*-===//
//
// Lowered Trellis code allocates and frees every buffer through the generic
// hooks of `finalize-memref-to-llvm{use-generic-functions=true}`. The host
// defines them here and counts live bytes and their high-water mark, which
// is what `trellis-run --stats` reports as peak_tensor_bytes. Freed blocks of
// 64 KiB and more are kept for reuse by size (up to TRELLIS_ALLOC_CACHE_MB,
// default 1024): they no longer count as live, and a later allocation of the
// same size gets them without fresh pages to fault in.
//
// The hooks also enforce memory limits: an allocation that would take the
// live bytes past the limit (setMemoryLimit, `--memory-limit`,
// TRELLIS_MEMORY_LIMIT), or a fresh block of 16 MiB or more larger than the
// memory the system has available (MemAvailable, the cgroup's limit,
// RLIMIT_AS), or one that malloc refuses, ends the process (the whole MPI job
// under MPI) with one line instead of a crash or the OOM killer:
//
//   trellis: out of memory: allocating 37.3 GiB for a tensor with 1.2 GiB
//   live (21.9 GiB available)
//
// The check comes before malloc because Linux overcommits: a huge malloc may
// succeed and the process be killed later, when the pages are touched.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_ALLOCHOOKS_H
#define TRELLIS_RUNTIME_ALLOCHOOKS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

extern "C" {
/// `malloc` for JIT code; the block is recorded as live.
void *_mlir_memref_to_llvm_alloc(size_t size);
/// `aligned_alloc` for JIT code (`use-aligned-alloc`); recorded as live.
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
/// `free` for JIT code; unknown pointers (host-owned buffers, memref.global
/// sentinels) are ignored rather than passed to `free`.
void _mlir_memref_to_llvm_free(void *ptr);
}

namespace trellis::runtime {

/// Makes the three hooks above resolve, in code run by `engine`, to the
/// definitions in this library.
void registerAllocHooks(mlir::ExecutionEngine &engine);

/// Returns the bytes currently allocated through the hooks and not freed.
uint64_t getLiveBytes();

/// Returns the high-water mark of getLiveBytes() since the last
/// resetPeakBytes().
uint64_t getPeakBytes();

/// Restarts the high-water mark from the current live bytes.
void resetPeakBytes();

/// Returns true if `ptr` is a live block returned by one of the hooks, i.e.
/// owned by the program rather than by the host.
bool isLiveAllocation(void *ptr);

/// Caps the bytes live through the hooks at `bytes` (0: no cap beyond the
/// memory the system has). Overrides TRELLIS_MEMORY_LIMIT.
void setMemoryLimit(uint64_t bytes);

/// Returns the cap: setMemoryLimit's, else TRELLIS_MEMORY_LIMIT's, else 0.
uint64_t getMemoryLimit();

/// Parses a byte count: an integer or decimal number with an optional unit
/// K, M, G, T (powers of 1024; `KiB`, `KB`, `k` and `B` suffixes accepted),
/// e.g. `4G`, `1.5GiB`, `512M`, `1000000`.
llvm::Expected<uint64_t> parseByteSize(llvm::StringRef text);

/// Sets the cap from a tool's `--memory-limit` value, or, if `flag` is
/// empty, from TRELLIS_MEMORY_LIMIT; an error names the flag or variable.
llvm::Error setMemoryLimitFromFlagOrEnvironment(llvm::StringRef flag);

/// `8.0 GiB`, `512.0 MiB`, `100 bytes`.
std::string formatBytes(uint64_t bytes);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_ALLOCHOOKS_H
