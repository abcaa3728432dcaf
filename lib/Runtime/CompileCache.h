//===- CompileCache.h - Object code kept across runs ------------*- C++ -*-===//
//
// The persistent compile cache of the JIT (CompileOptions::cacheDir,
// docs/compile-cache.md). A compile is named by a SHA-256 key of everything
// that decides its machine code: the cache format, the Trellis build and its
// LLVM, the host CPU, the options, the entry names and the module as parsed.
// A miss compiles as always and keeps the object code of its partitions
// (CodeGen.h) as an ar archive DIR/<key>.a with a manifest DIR/<key>.json
// (the libraries the code needs, whether it communicates, the archive's
// size and SHA-256); a hit links those objects (CompiledCode.h) without
// lowering anything.
//
// Nothing read from the directory is trusted: an entry that cannot be read,
// does not parse or does not match its checksum is reported in one line on
// stderr and compiled anew, which overwrites it. Entries are written under
// temporary names in DIR and renamed into place, so that processes that
// miss the same key at once (MPI ranks) each leave a whole entry.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_RUNTIME_COMPILECACHE_H
#define TRELLIS_LIB_RUNTIME_COMPILECACHE_H

#include "trellis/Pipelines/CompileOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace trellis::runtime {

/// What a hit needs besides the object code and cannot know without
/// lowering the module.
struct CachedCodeInfo {
  /// The shared libraries the code calls into, in the order the JIT loaded
  /// them (appendRuntimeLibraries', the options', vector math).
  std::vector<std::string> libraries;
  /// The code calls MPI or the collectives runtime (communicates()).
  bool communicates = false;
};

/// The object code of a hit, and what it needs.
struct CachedCode {
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  CachedCodeInfo info;
};

/// Returns the host CPU's features as LLVM detects them, sorted,
/// "+avx2,+avx512f,-amx-tile,...": part of every key of code or measurements
/// that depend on the CPU.
std::string getHostCPUFeatures();

/// Returns true if compiles with `options` go through the cache: it has a
/// directory, and neither the profiler (whose site table is built from the
/// lowered module) nor an LLVM IR dump (a hit has no IR) is asked for, and
/// a GEMM shape chooser, if any, has an id.
bool usesCompileCache(const CompileOptions &options);

/// Returns the SHA-256 key, in hex, of compiling `module` (as parsed, before
/// lowering) for `entryNames` with `options`. It covers a format version, the
/// Trellis build (its version and commit from CMake and the build ID of the
/// binary this code is linked into), the LLVM version, the host's triple, CPU
/// and CPU features, every option that affects the code (all but cacheDir
/// and dumpLLVMIR), the vector math library, the entry names and the module's
/// generic form without locations.
std::string computeCompileCacheKey(mlir::ModuleOp module,
                                   llvm::ArrayRef<std::string> entryNames,
                                   const CompileOptions &options);

/// The entry of one compile in a cache directory.
class CompileCacheEntry {
public:
  CompileCacheEntry(llvm::StringRef directory, llvm::StringRef key)
      : directory(directory.str()), key(key.str()) {}

  /// Returns DIR/<key> (the entry's files add `.a` and `.json`).
  std::string getPath() const;

  /// Reads the entry. Returns nullopt if there is none, or, after a one-line
  /// warning (warnIgnored), if it cannot be trusted: unreadable, malformed,
  /// of another key or format, an archive whose size or SHA-256 is not the
  /// manifest's or that does not parse, a library that is gone.
  std::optional<CachedCode> load() const;

  /// Keeps `objects`, the object code of a compile, and `info` as this
  /// entry, replacing what is there. Code a hit could not run as a compile
  /// does is not kept: an object with sections of constructors or
  /// destructors (.init_array, .ctors, ...). (The IR's global constructors
  /// become a function that both run, lowerGlobalConstructors.) A directory
  /// that cannot be created or written is reported in one line; the compile
  /// goes on.
  void store(llvm::ArrayRef<std::unique_ptr<llvm::MemoryBuffer>> objects,
             const CachedCodeInfo &info) const;

  /// Prints "trellis: cache entry DIR/<key> ignored: <reason>" on stderr.
  void warnIgnored(const llvm::Twine &reason) const;

private:
  std::string directory, key;
};

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_COMPILECACHE_H
