//===- MemoryLimit.cpp - When JIT code is out of memory -------------------===//

#include "trellis/Runtime/MemoryLimit.h"

#include "OutOfMemory.h"
#include "RuntimeError.h"
#include "trellis/ExecutionEngine/CollectivesRuntime.h"
#include "trellis/Runtime/AllocHooks.h"
#include "trellis/Runtime/ByteSize.h"
#include "trellis/Runtime/RuntimeConfig.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/resource.h>
#include <unistd.h>

using namespace trellis::runtime;

/// Fresh blocks at least this large are checked against the memory the
/// system has available (reading /proc costs ~10 µs, faulting in 16 MiB
/// ~1 ms); smaller ones only against the cap and malloc's answer.
constexpr size_t kCheckAvailableMinBytes = 16 << 20;

/// setMemoryLimit's cap; -1 while unset.
static std::atomic<int64_t> limitOverride{-1};

/// configureAllocator's settings.
static std::atomic<uint64_t> configuredLimit{0};
static std::atomic<unsigned> launcherRank{0};
static std::atomic<unsigned> launcherWorldSize{1};

void trellis::runtime::configureMemoryLimit(const RuntimeConfig &config) {
  configuredLimit.store(config.memoryLimit);
  launcherRank.store(config.mpiRank);
  launcherWorldSize.store(config.mpiWorldSize);
}

void trellis::runtime::setMemoryLimit(uint64_t bytes) {
  limitOverride.store(static_cast<int64_t>(
      std::min<uint64_t>(bytes, static_cast<uint64_t>(INT64_MAX))));
}

uint64_t trellis::runtime::getMemoryLimit() {
  int64_t limit = limitOverride.load();
  return limit >= 0 ? static_cast<uint64_t>(limit) : configuredLimit.load();
}

llvm::Error trellis::runtime::setMemoryLimitFromFlag(llvm::StringRef flag) {
  if (flag.empty())
    return llvm::Error::success();
  llvm::Expected<uint64_t> bytes = parseByteSize(flag);
  if (!bytes)
    return makeError("--memory-limit: " + llvm::toString(bytes.takeError()));
  setMemoryLimit(*bytes);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The checks of the allocation hooks
//===----------------------------------------------------------------------===//

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
           readNumber("/sys/fs/cgroup/memory/memory.usage_in_bytes", "", used))
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

void trellis::runtime::reportOutOfMemory(size_t size, const std::string &why) {
  std::string message = "out of memory: allocating " + formatBytes(size) +
                        " for a tensor with " + formatBytes(getLiveBytes()) +
                        " live (" + why + ")";
  bool job = launcherWorldSize.load() > 1;
  if (job)
    std::fprintf(stderr, "trellis: rank %u: %s\n", launcherRank.load(),
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

void trellis::runtime::checkMemoryLimit(size_t size) {
  uint64_t limit = getMemoryLimit();
  if (limit && getLiveBytes() + size > limit)
    reportOutOfMemory(size, "limit " + formatBytes(limit));
}

void trellis::runtime::checkMemoryAvailable(
    size_t size, llvm::function_ref<void()> releaseCache) {
  if (size < kCheckAvailableMinBytes)
    return;
  uint64_t available = systemAvailableBytes();
  if (size <= available)
    return;
  releaseCache();
  available = systemAvailableBytes();
  if (size > available)
    reportOutOfMemory(size, formatBytes(available) + " available");
}
