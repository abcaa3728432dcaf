//===- RuntimeSymbols.h - What compiled code calls at run time --*- C++ -*-===//
//
// The runtime functions the lowering passes emit calls to, by name, and the
// library each needs (the table is RuntimeSymbols.def). The passes call
// them by RuntimeFunction; the JIT loads the libraries of the symbols a
// lowered module uses (lookupRuntimeLibrary). Plain C++, no LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_EXECUTIONENGINE_RUNTIMESYMBOLS_H
#define TRELLIS_EXECUTIONENGINE_RUNTIMESYMBOLS_H

#include <cstddef>
#include <optional>
#include <string_view>

namespace trellis {

/// The libraries that define runtime functions.
enum class RuntimeLibrary {
  /// The Trellis collectives runtime (libTrellisCollectivesRuntime), which
  /// every JIT host links; it calls MPI, which the host initializes.
  Collectives,
  /// The MPI library (Open MPI).
  Mpi,
  /// A CBLAS (OpenBLAS unless TRELLIS_BLAS_LIBRARY says otherwise).
  Cblas,
  /// oneDNN.
  Dnnl,
};

/// A runtime function the passes emit calls to.
enum class RuntimeFunction {
#define TRELLIS_COLL_FUNCTION(ID, NAME, PREFIX) ID,
#define TRELLIS_GEMM_FUNCTION(ID, NAME, LIBRARY) ID,
#include "trellis/ExecutionEngine/RuntimeSymbols.def"
};

/// What the table says about a RuntimeFunction.
struct RuntimeFunctionInfo {
  /// The callee's name in the IR the passes emit.
  std::string_view name;
  /// The symbol the lowered code links against: `name`, or its C-interface
  /// wrapper `_mlir_ciface_<name>` for functions that take memrefs.
  std::string_view symbol;
  RuntimeLibrary library;
};

/// The table, indexed by RuntimeFunction.
inline constexpr RuntimeFunctionInfo kRuntimeFunctions[] = {
#define TRELLIS_COLL_FUNCTION(ID, NAME, PREFIX)                                \
  {#NAME, #PREFIX #NAME, RuntimeLibrary::Collectives},
#define TRELLIS_GEMM_FUNCTION(ID, NAME, LIBRARY)                               \
  {#NAME, #NAME, RuntimeLibrary::LIBRARY},
#include "trellis/ExecutionEngine/RuntimeSymbols.def"
};

/// Returns the table's entry of `function`.
constexpr const RuntimeFunctionInfo &
getRuntimeFunction(RuntimeFunction function) {
  return kRuntimeFunctions[static_cast<size_t>(function)];
}

/// Returns the library that defines `symbol`, an external function or
/// global of a lowered module: a RuntimeFunction's symbol, or a name with
/// one of the table's library prefixes. nullopt if none does.
constexpr std::optional<RuntimeLibrary>
lookupRuntimeLibrary(std::string_view symbol) {
  for (const RuntimeFunctionInfo &function : kRuntimeFunctions)
    if (symbol == function.symbol)
      return function.library;
#define TRELLIS_LIBRARY_PREFIX(LIBRARY, PREFIX)                                \
  if (symbol.substr(0, sizeof(#PREFIX) - 1) == #PREFIX)                        \
    return RuntimeLibrary::LIBRARY;
#include "trellis/ExecutionEngine/RuntimeSymbols.def"
  return std::nullopt;
}

} // namespace trellis

#endif // TRELLIS_EXECUTIONENGINE_RUNTIMESYMBOLS_H
