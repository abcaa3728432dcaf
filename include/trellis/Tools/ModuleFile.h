//===- ModuleFile.h - Reading the module a tool works on --------*- C++ -*-===//
//
// Parsing and verifying a .mlir file with every Trellis dialect; MLIR's
// diagnostics (with source locations) go to stderr.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TOOLS_MODULEFILE_H
#define TRELLIS_TOOLS_MODULEFILE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>

namespace trellis::tools {

/// Parses and verifies the module in `filename` ("-" for stdin). MLIR's
/// diagnostics (with source locations) go to stderr through `sourceMgr`'s
/// handler. Errors: "cannot open", "cannot parse", "failed verification",
/// naming the file.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
loadModule(llvm::StringRef filename, mlir::MLIRContext &context,
           llvm::SourceMgr &sourceMgr);

/// A module read from a file (loadModule) with a context of its own, in
/// which every Trellis dialect is registered.
class ModuleFile {
public:
  static llvm::Expected<std::unique_ptr<ModuleFile>>
  load(llvm::StringRef filename);

  mlir::ModuleOp get() { return *module; }
  mlir::MLIRContext &getContext() { return context; }

private:
  ModuleFile();

  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

} // namespace trellis::tools

#endif // TRELLIS_TOOLS_MODULEFILE_H
