//===- AllocHooks.h - Counting allocator for JIT code -----------*- C++ -*-===//
//
// Lowered Trellis code allocates and frees every buffer through the generic
// hooks of `finalize-memref-to-llvm{use-generic-functions=true}`. The host
// defines them here and counts live bytes and their high-water mark, which
// is what `trellis-run --stats` reports as peak_tensor_bytes. Freed blocks of
// 64 KiB and more are kept for reuse by size (up to
// RuntimeConfig::allocCacheBytes, TRELLIS_ALLOC_CACHE_MB): they no longer
// count as live, and a later allocation of the same size gets them without
// fresh pages to fault in.
//
// Before allocating, the hooks check the memory limits (MemoryLimit.h): an
// allocation that would not fit ends the process with one line instead of a
// crash or the OOM killer.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_ALLOCHOOKS_H
#define TRELLIS_RUNTIME_ALLOCHOOKS_H

#include <cstddef>
#include <cstdint>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

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

struct RuntimeConfig;

/// Takes the process-wide settings of the hooks from `config`: the cache's
/// capacity, allocation tracing, the memory limit (which setMemoryLimit
/// overrides) and the launcher's rank for out-of-memory messages. Until it
/// is called the hooks run with RuntimeConfig's defaults.
void configureAllocator(const RuntimeConfig &config);

/// Makes the three hooks above resolve, in code linked by `jit` (in its main
/// JITDylib, CompiledCode.h), to the definitions in this library.
void registerAllocHooks(llvm::orc::LLJIT &jit);

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

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_ALLOCHOOKS_H
