//===- AllocHooks.cpp - Counting allocator for JIT code -------------------===//

#include "trellis/Runtime/AllocHooks.h"

#include "OutOfMemory.h"
#include "trellis/Runtime/RuntimeConfig.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

using namespace trellis::runtime;

namespace {

/// The live blocks of JIT code and the byte counts. JIT code may allocate
/// from several threads, so every access takes the lock.
struct AllocationTable {
  std::mutex mutex;
  llvm::DenseMap<void *, size_t> sizes;
  uint64_t liveBytes = 0;
  uint64_t peakBytes = 0;
  /// Freed large blocks kept for reuse, by exact size (training steps
  /// allocate the same sizes every step). Fresh pages cost a page fault and
  /// zeroing each (~1 ms per 16 MiB), as much as the work on them.
  std::multimap<size_t, void *> cache;
  uint64_t cachedBytes = 0;

  /// Frees the cached blocks at exit: this table holds the only pointers to
  /// them.
  ~AllocationTable() {
    for (auto &entry : cache)
      std::free(entry.second);
  }
};

/// Blocks at least this large are cached; malloc reuses smaller ones well.
constexpr size_t kCacheMinBytes = 64 << 10;
constexpr size_t kCacheAlignment = 64;

} // namespace

static AllocationTable &getTable() {
  static AllocationTable table;
  return table;
}

/// configureAllocator's settings: the bound of the cached bytes, and whether
/// every allocation and free is printed with the live total to stderr (the
/// way to see what makes up peak_tensor_bytes).
static std::atomic<uint64_t> cacheCapacity{RuntimeConfig().allocCacheBytes};
static std::atomic<bool> traceAllocations{RuntimeConfig().traceAllocations};

void trellis::runtime::configureAllocator(const RuntimeConfig &config) {
  cacheCapacity.store(config.allocCacheBytes);
  traceAllocations.store(config.traceAllocations);
  configureMemoryLimit(config);
}

/// Frees the cached blocks (memory held but not live).
static void releaseCache() {
  std::vector<void *> blocks;
  {
    AllocationTable &table = getTable();
    std::lock_guard<std::mutex> lock(table.mutex);
    for (auto &entry : table.cache)
      blocks.push_back(entry.second);
    table.cache.clear();
    table.cachedBytes = 0;
  }
  for (void *block : blocks)
    std::free(block);
}

static void recordAllocation(void *ptr, size_t size) {
  AllocationTable &table = getTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.sizes[ptr] = size;
  table.liveBytes += size;
  table.peakBytes = std::max(table.peakBytes, table.liveBytes);
  if (traceAllocations.load(std::memory_order_relaxed))
    std::fprintf(stderr, "alloc %zu live %llu\n", size,
                 static_cast<unsigned long long>(table.liveBytes));
}

/// A cached block of exactly `size` bytes, or null.
static void *takeCached(size_t size) {
  AllocationTable &table = getTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.cache.find(size);
  if (it == table.cache.end())
    return nullptr;
  void *ptr = it->second;
  table.cache.erase(it);
  table.cachedBytes -= size;
  return ptr;
}

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  if (size >= kCacheMinBytes)
    return _mlir_memref_to_llvm_aligned_alloc(kCacheAlignment, size);
  checkMemoryLimit(size);
  void *ptr = std::malloc(std::max<size_t>(size, 1));
  if (!ptr)
    reportOutOfMemory(size, "malloc failed");
  recordAllocation(ptr, size);
  return ptr;
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  // posix_memalign wants a power of two that is a multiple of sizeof(void *).
  alignment = std::max(alignment, sizeof(void *));
  if (!llvm::isPowerOf2_64(alignment))
    alignment = llvm::NextPowerOf2(alignment);
  checkMemoryLimit(size);
  void *ptr = nullptr;
  bool cacheable = size >= kCacheMinBytes && alignment <= kCacheAlignment;
  if (cacheable)
    ptr = takeCached(size);
  if (!ptr) {
    checkMemoryAvailable(size, releaseCache);
    if (posix_memalign(&ptr, cacheable ? kCacheAlignment : alignment,
                       std::max<size_t>(size, 1)) != 0)
      reportOutOfMemory(size, "malloc failed");
  }
  recordAllocation(ptr, size);
  return ptr;
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  {
    AllocationTable &table = getTable();
    std::lock_guard<std::mutex> lock(table.mutex);
    auto it = table.sizes.find(ptr);
    // Not ours: never hand a host buffer or a global's sentinel to free().
    if (it == table.sizes.end())
      return;
    table.liveBytes -= it->second;
    if (traceAllocations.load(std::memory_order_relaxed))
      std::fprintf(stderr, "free %zu live %llu\n", it->second,
                   static_cast<unsigned long long>(table.liveBytes));
    size_t size = it->second;
    table.sizes.erase(it);
    if (size >= kCacheMinBytes &&
        table.cachedBytes + size <=
            cacheCapacity.load(std::memory_order_relaxed)) {
      table.cache.emplace(size, ptr);
      table.cachedBytes += size;
      return;
    }
  }
  std::free(ptr);
}

/// The hooks' addresses under their names, as `interner` mangles them.
static llvm::orc::SymbolMap
getAllocHookSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](llvm::StringRef name, auto *function) {
    symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                               llvm::JITSymbolFlags::Exported};
  };
  add("_mlir_memref_to_llvm_alloc", &_mlir_memref_to_llvm_alloc);
  add("_mlir_memref_to_llvm_aligned_alloc",
      &_mlir_memref_to_llvm_aligned_alloc);
  add("_mlir_memref_to_llvm_free", &_mlir_memref_to_llvm_free);
  return symbols;
}

void trellis::runtime::registerAllocHooks(llvm::orc::LLJIT &jit) {
  llvm::orc::JITDylib &main = jit.getMainJITDylib();
  llvm::cantFail(main.define(llvm::orc::absoluteSymbols(getAllocHookSymbols(
      llvm::orc::MangleAndInterner(jit.getExecutionSession(),
                                   jit.getDataLayout())))));
}

uint64_t trellis::runtime::getLiveBytes() {
  AllocationTable &table = getTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  return table.liveBytes;
}

uint64_t trellis::runtime::getPeakBytes() {
  AllocationTable &table = getTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  return table.peakBytes;
}

void trellis::runtime::resetPeakBytes() {
  AllocationTable &table = getTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.peakBytes = table.liveBytes;
}

bool trellis::runtime::isLiveAllocation(void *ptr) {
  AllocationTable &table = getTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  return table.sizes.count(ptr);
}
