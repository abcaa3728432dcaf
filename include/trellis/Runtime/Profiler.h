//===- Profiler.h - Where the time of a compiled call goes ------*- C++ -*-===//
//
// With CompileOptions::profile, trellis-profile-ops brackets every piece of
// work of the lowered code (a GEMM call, a linalg op, a copy, an
// allocation: a "site") with calls of trellis_profile_begin/end. The hooks
// here time each site on the calling thread; a Profile adds the times up
// over calls and prints them as torch.profiler does: per class and per
// source op (the `nn`/`ad` op a site was lowered from). docs/profiling.md.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_PROFILER_H
#define TRELLIS_RUNTIME_PROFILER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

extern "C" {
/// Called by instrumented code before the work of site `site`.
void trellis_profile_begin(int64_t site);
/// Called by instrumented code after the work of site `site`.
void trellis_profile_end(int64_t site);
}

namespace trellis::runtime {

/// The source ops of a module before lowering, by location: what a site's
/// location (after inlining, the callee of a callsite) names.
class SourceOps {
public:
  /// Records the name of every op of `module` with a file location.
  static SourceOps collect(mlir::ModuleOp module);
  /// The source op of a lowered op at `loc` and its location, as
  /// {"nn.dense", "model.mlir:12:8"}; {"?", "?"} if it has none.
  std::pair<std::string, std::string> lookup(mlir::Location loc) const;

private:
  llvm::DenseMap<mlir::Location, std::string> names;
};

/// One site of the lowered code: its class and where it comes from.
struct ProfileSite {
  /// The class: "gemm", "elementwise", ... (ProfileClass); "attention" for
  /// the non-GEMM work of an nn.attention.
  std::string kind;
  std::string sourceOp;
  std::string location;
};

/// The times of the sites of one compiled module, added up over calls.
class Profile {
public:
  /// The sites of `lowered` (its trellis.profile_sites attribute, set by
  /// trellis-profile-ops), named by `sources`.
  static llvm::Expected<Profile> fromModule(mlir::ModuleOp lowered,
                                            const SourceOps &sources);

  /// Records one call of `wallNs` whose sites ran while it was active.
  void addCall(double wallNs) {
    wallTotalNs += wallNs;
    ++calls;
  }
  /// Forgets the calls so far (trellis-run's --warmup calls).
  void reset() {
    for (SiteTime &time : times)
      time = SiteTime();
    wallTotalNs = 0;
    calls = 0;
  }
  /// Prints the tables of the calls so far (per call: the mean).
  void print(llvm::raw_ostream &os, llvm::StringRef entry) const;

private:
  struct SiteTime {
    double ns = 0;
    uint64_t runs = 0;
  };
  std::vector<ProfileSite> sites;
  std::vector<SiteTime> times;
  double wallTotalNs = 0;
  unsigned calls = 0;

  friend void ::trellis_profile_end(int64_t);
};

/// While it lives, the hooks called on this thread add to `profile`.
class ProfileScope {
public:
  explicit ProfileScope(Profile &profile);
  ~ProfileScope();
  ProfileScope(const ProfileScope &) = delete;
  ProfileScope &operator=(const ProfileScope &) = delete;

private:
  Profile *previous;
};

/// Defines the hooks for the code `jit` links (in its main JITDylib).
void registerProfilerHooks(llvm::orc::LLJIT &jit);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_PROFILER_H
