//===- AllocHooks.cpp - Counting allocator for JIT code -------------------===//

#include "trellis/Runtime/AllocHooks.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace {

/// The live blocks of JIT code and the byte counts. JIT code may allocate
/// from several threads, so every access takes the lock.
struct AllocationTable {
  std::mutex mutex;
  llvm::DenseMap<void *, size_t> sizes;
  uint64_t liveBytes = 0;
  uint64_t peakBytes = 0;
};

} // namespace

static AllocationTable &getTable() {
  static AllocationTable table;
  return table;
}

/// TRELLIS_TRACE_ALLOC=1 prints every allocation and free with the live
/// total to stderr: the way to see what makes up peak_tensor_bytes.
static bool traceAllocations() {
  static const bool enabled = std::getenv("TRELLIS_TRACE_ALLOC") != nullptr;
  return enabled;
}

static void recordAllocation(void *ptr, size_t size) {
  AllocationTable &table = getTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.sizes[ptr] = size;
  table.liveBytes += size;
  table.peakBytes = std::max(table.peakBytes, table.liveBytes);
  if (traceAllocations())
    std::fprintf(stderr, "alloc %zu live %llu\n", size,
                 static_cast<unsigned long long>(table.liveBytes));
}

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  void *ptr = std::malloc(std::max<size_t>(size, 1));
  if (ptr)
    recordAllocation(ptr, size);
  return ptr;
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  // posix_memalign wants a power of two that is a multiple of sizeof(void *).
  alignment = std::max(alignment, sizeof(void *));
  if (!llvm::isPowerOf2_64(alignment))
    alignment = llvm::NextPowerOf2(alignment);
  void *ptr = nullptr;
  if (posix_memalign(&ptr, alignment, std::max<size_t>(size, 1)) != 0)
    return nullptr;
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
    if (traceAllocations())
      std::fprintf(stderr, "free %zu live %llu\n", it->second,
                   static_cast<unsigned long long>(table.liveBytes));
    table.sizes.erase(it);
  }
  std::free(ptr);
}

void trellis::runtime::registerAllocHooks(mlir::ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
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
  });
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
