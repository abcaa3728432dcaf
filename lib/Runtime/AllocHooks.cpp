//===- AllocHooks.cpp - Counting allocator for JIT code -------------------===//

#include "trellis/Runtime/AllocHooks.h"

#include "RuntimeError.h"
#include "trellis/ExecutionEngine/CollectivesRuntime.h"
#include "trellis/Runtime/Rank.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

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

/// TRELLIS_ALLOC_CACHE_MB bounds the cached bytes (default 1024, 0 = off).
uint64_t cacheCapacity() {
  static const uint64_t capacity = [] {
    const char *value = std::getenv("TRELLIS_ALLOC_CACHE_MB");
    return (value ? std::strtoull(value, nullptr, 10) : 1024ull) << 20;
  }();
  return capacity;
}

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

//===----------------------------------------------------------------------===//
// Memory limits
//===----------------------------------------------------------------------===//

/// Fresh blocks at least this large are checked against the memory the
/// system has available (reading /proc costs ~10 µs, faulting in 16 MiB
/// ~1 ms); smaller ones only against the cap and malloc's answer.
constexpr size_t kCheckAvailableMinBytes = 16 << 20;

/// setMemoryLimit's cap; -1 while unset.
static std::atomic<int64_t> limitOverride{-1};

/// TRELLIS_MEMORY_LIMIT, read once; an invalid value is reported and ignored
/// (the tools report it as an error before running anything).
static uint64_t environmentLimit() {
  static const uint64_t limit = [] {
    const char *value = std::getenv("TRELLIS_MEMORY_LIMIT");
    if (!value || !*value)
      return uint64_t(0);
    llvm::Expected<uint64_t> bytes = trellis::runtime::parseByteSize(value);
    if (!bytes) {
      std::fprintf(stderr, "trellis: warning: ignoring TRELLIS_MEMORY_LIMIT: %s\n",
                   llvm::toString(bytes.takeError()).c_str());
      return uint64_t(0);
    }
    return *bytes;
  }();
  return limit;
}

/// The first number in the line of `path` that starts with `key` (e.g.
/// "MemAvailable:"), or in the file's first line if `key` is empty; false if
/// there is none ("max" in a cgroup file is none).
static bool readNumber(const char *path, const char *key, uint64_t &number) {
  FILE *file = std::fopen(path, "r");
  if (!file)
    return false;
  char line[256];
  bool found = false;
  size_t keyLength = std::strlen(key);
  while (!found && std::fgets(line, sizeof(line), file)) {
    if (std::strncmp(line, key, keyLength) != 0)
      continue;
    unsigned long long value;
    found = std::sscanf(line + keyLength, " %llu", &value) == 1;
    if (found)
      number = value;
    if (!keyLength)
      break;
  }
  std::fclose(file);
  return found;
}

/// The bytes this process could still get: the least of MemAvailable, the
/// room left under the cgroup's memory limit (v2, then v1) and under
/// RLIMIT_AS. UINT64_MAX if nothing is known.
static uint64_t systemAvailableBytes() {
  uint64_t available = UINT64_MAX;
  uint64_t value, used;
  if (readNumber("/proc/meminfo", "MemAvailable:", value))
    available = std::min(available, value * 1024);
  if (readNumber("/sys/fs/cgroup/memory.max", "", value) &&
      readNumber("/sys/fs/cgroup/memory.current", "", used))
    available = std::min(available, value > used ? value - used : 0);
  else if (readNumber("/sys/fs/cgroup/memory/memory.limit_in_bytes", "",
                      value) &&
           readNumber("/sys/fs/cgroup/memory/memory.usage_in_bytes", "",
                      used))
    available = std::min(available, value > used ? value - used : 0);
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      readNumber("/proc/self/statm", "", value)) {
    uint64_t mapped = value * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    uint64_t cap = limit.rlim_cur;
    available = std::min(available, cap > mapped ? cap - mapped : 0);
  }
  return available;
}

/// Prints one line and ends the process, or the whole job under MPI.
[[noreturn]] static void outOfMemory(size_t size, const std::string &why) {
  std::string message = "out of memory: allocating " +
                        trellis::runtime::formatBytes(size) +
                        " for a tensor with " +
                        trellis::runtime::formatBytes(
                            trellis::runtime::getLiveBytes()) +
                        " live (" + why + ")";
  bool job = trellis::runtime::getMpiWorldSizeFromEnvironment() > 1;
  if (job)
    std::fprintf(stderr, "trellis: rank %u: %s\n",
                 trellis::runtime::getMpiRankFromEnvironment(),
                 message.c_str());
  else
    std::fprintf(stderr, "trellis: %s\n", message.c_str());
  std::fflush(stdout);
  std::fflush(stderr);
  // Ranks waiting for this one in a collective must not hang. (Alone,
  // MPI_Abort would only add Open MPI's banner.)
  if (job)
    trellis_coll_abort_if_initialized(1);
  std::exit(1);
}

/// Ends the process if `size` more live bytes would exceed the cap.
static void checkLimit(size_t size) {
  uint64_t limit = trellis::runtime::getMemoryLimit();
  if (limit && trellis::runtime::getLiveBytes() + size > limit)
    outOfMemory(size, "limit " + trellis::runtime::formatBytes(limit));
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

/// Ends the process if a fresh block of `size` bytes cannot fit in the
/// memory the system has available, after giving back the cache.
static void checkAvailable(size_t size) {
  if (size < kCheckAvailableMinBytes)
    return;
  uint64_t available = systemAvailableBytes();
  if (size <= available)
    return;
  releaseCache();
  available = systemAvailableBytes();
  if (size > available)
    outOfMemory(size, trellis::runtime::formatBytes(available) +
                          " available");
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
  checkLimit(size);
  void *ptr = std::malloc(std::max<size_t>(size, 1));
  if (!ptr)
    outOfMemory(size, "malloc failed");
  recordAllocation(ptr, size);
  return ptr;
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  // posix_memalign wants a power of two that is a multiple of sizeof(void *).
  alignment = std::max(alignment, sizeof(void *));
  if (!llvm::isPowerOf2_64(alignment))
    alignment = llvm::NextPowerOf2(alignment);
  checkLimit(size);
  void *ptr = nullptr;
  bool cacheable = size >= kCacheMinBytes && alignment <= kCacheAlignment;
  if (cacheable)
    ptr = takeCached(size);
  if (!ptr) {
    checkAvailable(size);
    if (posix_memalign(&ptr, cacheable ? kCacheAlignment : alignment,
                       std::max<size_t>(size, 1)) != 0)
      outOfMemory(size, "malloc failed");
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
    if (traceAllocations())
      std::fprintf(stderr, "free %zu live %llu\n", it->second,
                   static_cast<unsigned long long>(table.liveBytes));
    size_t size = it->second;
    table.sizes.erase(it);
    if (size >= kCacheMinBytes &&
        table.cachedBytes + size <= cacheCapacity()) {
      table.cache.emplace(size, ptr);
      table.cachedBytes += size;
      return;
    }
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

void trellis::runtime::setMemoryLimit(uint64_t bytes) {
  limitOverride.store(static_cast<int64_t>(
      std::min<uint64_t>(bytes, static_cast<uint64_t>(INT64_MAX))));
}

uint64_t trellis::runtime::getMemoryLimit() {
  int64_t limit = limitOverride.load();
  return limit >= 0 ? static_cast<uint64_t>(limit) : environmentLimit();
}

llvm::Expected<uint64_t> trellis::runtime::parseByteSize(llvm::StringRef text) {
  auto invalid = [&] {
    return makeError(
        "'" + text + "' is not a size (e.g. 4G, 1.5GiB, 512M, 1000000)");
  };
  llvm::StringRef rest = text.trim();
  size_t digits = rest.find_first_not_of("0123456789.");
  llvm::StringRef number = rest.take_front(digits);
  llvm::StringRef unit = rest.drop_front(number.size()).trim();
  double value;
  if (number.empty() || number.getAsDouble(value) || value < 0)
    return invalid();
  unit.consume_back("B");
  unit.consume_back("b");
  unit.consume_back("i");
  double scale = 1;
  if (unit.size() > 1)
    return invalid();
  if (!unit.empty()) {
    size_t power = llvm::StringRef("KMGT").find(llvm::toUpper(unit[0]));
    if (power == llvm::StringRef::npos)
      return invalid();
    scale = static_cast<double>(uint64_t(1) << (10 * (power + 1)));
  }
  double bytes = value * scale;
  if (bytes >= 1.8e19)
    return invalid();
  return static_cast<uint64_t>(bytes);
}

llvm::Error
trellis::runtime::setMemoryLimitFromFlagOrEnvironment(llvm::StringRef flag) {
  if (flag.empty()) {
    const char *value = std::getenv("TRELLIS_MEMORY_LIMIT");
    if (!value || !*value)
      return llvm::Error::success();
    llvm::Expected<uint64_t> bytes = parseByteSize(value);
    if (!bytes)
      return makeError("TRELLIS_MEMORY_LIMIT: " +
                                     llvm::toString(bytes.takeError()));
    setMemoryLimit(*bytes);
    return llvm::Error::success();
  }
  llvm::Expected<uint64_t> bytes = parseByteSize(flag);
  if (!bytes)
    return makeError("--memory-limit: " +
                                   llvm::toString(bytes.takeError()));
  setMemoryLimit(*bytes);
  return llvm::Error::success();
}

std::string trellis::runtime::formatBytes(uint64_t bytes) {
  static constexpr const char *kUnits[] = {"KiB", "MiB", "GiB", "TiB",
                                           "PiB"};
  if (bytes < 1024)
    return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", value, kUnits[unit]);
  return text;
}
