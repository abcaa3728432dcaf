//===- ModuleFile.cpp - Reading the module a tool works on ----------------===//

#include "trellis/Tools/ModuleFile.h"

#include "trellis/InitAll.h"
#include "trellis/Runtime/Files.h"
#include "trellis/Utils/Nesting.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace trellis::tools;

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
trellis::tools::loadModule(llvm::StringRef filename, mlir::MLIRContext &context,
                           llvm::SourceMgr &sourceMgr) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> read =
      runtime::readRegularFile(filename, /*isText=*/true, /*allowStdin=*/true);
  if (!read)
    return llvm::createStringError("'" + filename +
                                   "': " + llvm::toString(read.takeError()));
  std::unique_ptr<llvm::MemoryBuffer> file = std::move(*read);
  if (llvm::Error err = trellis::checkNesting(file->getBuffer(), filename))
    return std::move(err);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  if (!module)
    return llvm::createStringError("cannot parse '" + filename + "'");
  if (mlir::failed(mlir::verify(*module)))
    return llvm::createStringError("'" + filename + "' failed verification");
  return module;
}

static mlir::DialectRegistry getTrellisDialects() {
  mlir::DialectRegistry registry;
  trellis::registerAllDialects(registry);
  return registry;
}

ModuleFile::ModuleFile()
    : context(getTrellisDialects()), diagnostics(sourceMgr, &context) {}

llvm::Expected<std::unique_ptr<ModuleFile>>
ModuleFile::load(llvm::StringRef filename) {
  std::unique_ptr<ModuleFile> file(new ModuleFile());
  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> module =
      loadModule(filename, file->context, file->sourceMgr);
  if (!module)
    return module.takeError();
  file->module = std::move(*module);
  return file;
}
