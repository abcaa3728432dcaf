//===- Aot.h - Ahead-of-time compilation to an object file ------*- C++ -*-===//

#ifndef TRELLIS_LIB_API_AOT_H
#define TRELLIS_LIB_API_AOT_H

#include "trellis/API/Compiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace trellis::api {

/// Lowers `module` in place (with `options.pipeline`), marking each of
/// `aot.functions` `llvm.emit_c_interface` first, translates it to LLVM IR,
/// optimizes it at `options.optLevel` and writes the object file and, if
/// asked, the C header (generateCHeader) that `aot` names.
llvm::Error emitObjectAndHeader(mlir::ModuleOp module,
                                const CompileOptions &options,
                                const AotOptions &aot);

} // namespace trellis::api

#endif // TRELLIS_LIB_API_AOT_H
