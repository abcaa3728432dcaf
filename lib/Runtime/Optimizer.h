//===- Optimizer.h - The LLVM pipeline of JIT-compiled code -----*- C++ -*-===//

#ifndef TRELLIS_LIB_RUNTIME_OPTIMIZER_H
#define TRELLIS_LIB_RUNTIME_OPTIMIZER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace trellis::runtime {

/// The module transformer of the JIT: LLVM's default pipeline at `optLevel`
/// (0-3) with the loop and SLP vectorizers (and the vectorizer's
/// interleaving) on and the loop unroller off. At 0 it also marks every
/// function `optnone`, so that code generation runs at -O0 too (MLIR's
/// ExecutionEngine ignores its code-generation level). `targetMachine` (the
/// host's) gives the cost models; it must outlive the function.
///
/// Why no unrolling: after convert-linalg-to-blas the remaining loops are
/// elementwise and reduction nests that the vectorizer already widens and
/// interleaves; unrolling them on top tripled the IR and took a third of the
/// optimizer's time and of code generation (a reversible stack step:
/// 1.55 s -> 1.0 s of LLVM, docs/performance.md) for no measurable speed.
///
/// With `vectorMath`, the vectorizer may turn calls of exp, log, tanh, erf,
/// erfc (f32 and f64) in loops into calls of their vector variants in glibc's
/// libmvec (`vectorMathLibraryPath()`, which the JIT must then load): softmax,
/// cross-entropy and GELU loops run 4-8 lanes at a time instead of one
/// scalar libm call per element (docs/performance.md).
std::function<llvm::Error(llvm::Module *)>
makeJitOptimizer(unsigned optLevel, llvm::TargetMachine *targetMachine,
                 bool vectorMath);

/// The path of the shared library of vector math functions for this host
/// ("" if there is none): glibc's libmvec on x86-64, resolved once.
llvm::StringRef vectorMathLibraryPath();

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_OPTIMIZER_H
