//===- ProfileOps.h - Time the work of lowered code -------------*- C++ -*-===//
//
// trellis-profile-ops brackets each piece of work of bufferized code (a
// library GEMM call, a linalg op, a copy, an allocation) with calls of the
// profiler hooks, and records what each bracket (a "site") is in a module
// attribute. The JIT's profiler (Runtime/Profiler.h) times the brackets and
// reports them per source op and per class (docs/profiling.md).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_CONVERSION_PROFILE_PROFILEOPS_H
#define TRELLIS_CONVERSION_PROFILE_PROFILEOPS_H

#include "mlir/Pass/Pass.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace trellis {

#define GEN_PASS_DECL_TRELLISPROFILEOPS
#include "trellis/Conversion/Passes.h.inc"

/// What kind of work a profiled site does.
enum class ProfileClass {
  /// A call of a GEMM library (convert-linalg-to-blas).
  Gemm,
  /// A collective (mpi ops, the collectives runtime).
  Collective,
  /// A contraction left to loops (not GEMM-shaped, or not addressable).
  LoopContraction,
  /// A linalg op with a reduction loop (row sums, maxima, column sums).
  Reduction,
  /// A linalg op whose loops are all parallel.
  Elementwise,
  /// A linalg.fill.
  Fill,
  /// memref.copy, linalg.copy, linalg.transpose.
  Copy,
  /// memref.alloc, memref.realloc, memref.dealloc.
  Allocation,
};

/// The name of `kind` in the profile and the site table ("gemm", ...).
llvm::StringRef stringifyProfileClass(ProfileClass kind);
/// The inverse of stringifyProfileClass.
std::optional<ProfileClass> symbolizeProfileClass(llvm::StringRef name);

/// The module attribute listing the sites: an array whose i-th element is
/// [class name, location] of site i.
inline constexpr llvm::StringLiteral kProfileSitesAttrName =
    "trellis.profile_sites";
/// The hooks the instrumented code calls with a site's index (i64) before
/// and after its work (the JIT defines them, Runtime/Profiler.h).
inline constexpr llvm::StringLiteral kProfileBeginFunction =
    "trellis_profile_begin";
inline constexpr llvm::StringLiteral kProfileEndFunction =
    "trellis_profile_end";

} // namespace trellis

#endif // TRELLIS_CONVERSION_PROFILE_PROFILEOPS_H
