//===- Optimizer.h - The LLVM pipeline of JIT-compiled code -----*- C++ -*-===//

#ifndef TRELLIS_LIB_RUNTIME_OPTIMIZER_H
#define TRELLIS_LIB_RUNTIME_OPTIMIZER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace trellis::runtime {

/// The JIT's LLVM optimizer, in two stages: prepareForOptimization on the
/// whole module, then optimizeModule on it or, for parallel compilation, on
/// each part the code generator splits it into (CodeGen.h): the parts'
/// optimizers run on threads of their own, like their code generation.
///
/// prepareForOptimization at `optLevel` 0 marks every function `optnone`,
/// so that code generation runs at -O0 too (MLIR's ExecutionEngine ignores
/// its code-generation level). At 1-3: with `outlineLoops`, functions with
/// more than kMaxLoopsPerFunction loops have their loops outlined
/// (outlineLoopsOfLargeFunctions), and LLVM's MergeFunctions keeps one of
/// each set of identical functions: the same loop of every layer of a deep
/// model, which takes its buffers as arguments, is then optimized and
/// compiled once (the 4-layer Transformer LM step: LLVM time 3.2 s -> 1.2 s
/// without parallel loops, 4.7 s -> 2.7 s with them); then every function
/// the engine calls through a packed wrapper `_mlir_<name>` becomes internal
/// and is inlined into the wrapper, so that its code is generated once.
/// Both need the whole module, hence the first stage.
void prepareForOptimization(llvm::Module &module, unsigned optLevel,
                            bool outlineLoops);

/// The second stage: LLVM's default pipeline at `optLevel` (0-3) with the
/// loop and SLP vectorizers (and the vectorizer's interleaving) on and the
/// loop unroller off, for the cost models of `targetMachine`; then large
/// functions without loops are marked for -O0 code generation
/// (markLargeStraightLineFunctions).
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
llvm::Error optimizeModule(llvm::Module &module, unsigned optLevel,
                           llvm::TargetMachine &targetMachine, bool vectorMath);

/// Above this many loops (at any depth) in one function, the optimizer first
/// gives its loops functions of their own (outlineLoopsOfLargeFunctions).
inline constexpr unsigned kMaxLoopsPerFunction = 128;

/// Moves the loops of each function of `module` that has more than
/// `maxLoops` loops into new `noinline` functions (LLVM's CodeExtractor):
/// its top-level loops, or, if it is one loop, that loop's children; then
/// the same for every new function. Returns how many loops it moved.
///
/// Why: scalar evolution's loop-guard queries walk from a loop's preheader
/// back through every earlier loop of the function (each loop header's
/// predecessor is the previous loop's exit), so IndVarSimplify and the
/// passes around it take time quadratic in the number of sequential loops.
/// A differentiated model inlined into one entry function has hundreds
/// (the Transformer stack of bench/long_attention.py at depth 4: 346 top-level
/// loops, and 10 of `opt -O3`'s 14 s in IndVarSimplify; 2 s once outlined,
/// docs/performance.md). Outlined, each loop is optimized alone; the call
/// costs little next to a loop nest, and little is lost across loops: LLVM
/// does not fuse loops, and the buffers come from opaque allocation calls
/// either way.
unsigned outlineLoopsOfLargeFunctions(llvm::Module &module, unsigned maxLoops);

/// Functions without loops of at least this many instructions, after the
/// optimizer, are generated as at -O0 (markLargeStraightLineFunctions).
inline constexpr unsigned kMinStraightLineInstructions = 1024;

/// The longest block markLargeStraightLineFunctions leaves in a function it
/// marks.
inline constexpr unsigned kMaxStraightLineBlock = 256;

/// Marks each optimized function of `module` that has no loop and at least
/// `minInstructions` instructions `optnone` (and `noinline`, which optnone
/// needs), so that code generation treats it as at -O0: fast instruction
/// selection, no DAG combining, no scheduling. Returns how many it marked.
/// Run after the IR optimizer, so the IR itself stays optimized.
///
/// Why: such a function is the glue of a large entry once its loops are
/// outlined (outlineLoopsOfLargeFunctions): unpacking hundreds of arguments,
/// allocations, library and loop calls, storing the results, run once per
/// call. Its basic blocks are thousands of instructions long, and the
/// SelectionDAG combiner's store merging is quadratic in a block's memory
/// operations: the packed wrapper of the 4-layer Transformer LM step of
/// bench/transformer_lm.py (215 arguments, 215 results) took 20.9 s of
/// `llc -O3` alone, 1.3 s marked (docs/performance.md).
///
/// Its blocks are then split into blocks of at most kMaxStraightLineBlock
/// instructions (the entry block's static allocas moved to its start
/// first, so that they stay fixed stack slots). Fast instruction selection
/// cannot lower aggregates (the memref descriptors passed to outlined
/// loops) and hands the rest of the block to SelectionDAG: short blocks keep
/// that fallback short. The LM step's 20,361-instruction wrapper, one block:
/// 0.9 s of code generation; split: 0.48 s.
unsigned markLargeStraightLineFunctions(llvm::Module &module,
                                        unsigned minInstructions);

/// The path of the shared library of vector math functions for this host
/// ("" if there is none): glibc's libmvec on x86-64, resolved once.
llvm::StringRef vectorMathLibraryPath();

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_OPTIMIZER_H
