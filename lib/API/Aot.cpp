//===- Aot.cpp - Ahead-of-time compilation to an object file --------------===//

#include "Aot.h"

#include "APIError.h"
#include "CHeader.h"

#include "trellis/Runtime/Jit.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

using namespace trellis;

/// Creates the machine code generator for `cpu` ("host": this machine with
/// all its features) on the host's triple. Position-independent, so that the
/// object links into PIE executables and shared libraries.
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(llvm::StringRef cpu, unsigned optLevel) {
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string message;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target)
    return api::makeError("no code generator for " + triple.str() + ": " +
                          message);
  std::string cpuName = cpu.str();
  llvm::SubtargetFeatures features;
  if (cpu == "host") {
    cpuName = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature.getKey(), feature.getValue());
  }
  // An unknown CPU would make LLVM warn, then abort in code generation.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!subtarget || !subtarget->isCPUStringValid(cpuName))
    return api::makeError("unknown CPU '" + cpuName + "' for " + triple.str());
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpuName, features.getString(), llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt,
      static_cast<llvm::CodeGenOptLevel>(optLevel)));
  if (!machine)
    return api::makeError("cannot generate code for CPU '" + cpuName + "'");
  return machine;
}

/// Returns the functions `module` calls without defining them, except the
/// allocation hooks: what the object needs from other libraries.
static std::vector<std::string> getExternalCallees(mlir::ModuleOp module) {
  std::vector<std::string> names;
  for (auto func : module.getOps<mlir::LLVM::LLVMFuncOp>()) {
    llvm::StringRef name = func.getSymName();
    if (func.isExternal() && !name.starts_with("_mlir_memref_to_llvm_") &&
        !mlir::SymbolTable::symbolKnownUseEmpty(func, module))
      names.push_back(name.str());
  }
  return names;
}

/// Returns an include guard made from the header's file name.
static std::string getIncludeGuard(llvm::StringRef headerPath) {
  std::string guard = "TRELLIS_AOT_";
  for (char c : llvm::sys::path::filename(headerPath))
    guard += llvm::isAlnum(c) ? llvm::toUpper(c) : '_';
  return guard;
}

static llvm::Error
writeFile(llvm::StringRef path,
          llvm::function_ref<void(llvm::raw_fd_ostream &)> write) {
  std::error_code error;
  llvm::ToolOutputFile file(path, error, llvm::sys::fs::OF_None);
  if (error)
    return api::makeError("cannot write " + path + ": " + error.message());
  write(file.os());
  file.os().flush();
  if (file.os().has_error())
    return api::makeError("cannot write " + path + ": " +
                          file.os().error().message());
  file.keep();
  return llvm::Error::success();
}

llvm::Error trellis::api::emitObjectAndHeader(mlir::ModuleOp module,
                                              const CompileOptions &options,
                                              const AotOptions &aot) {
  if (aot.functions.empty())
    return makeError("no function to compile ahead of time");
  if (aot.objectPath.empty())
    return makeError("no object file to write");
  if (options.optLevel > 3)
    return makeError("the optimization level must be 0, 1, 2 or 3");

  // Record the signatures while the tensor types are there, and ask the
  // lowering for the C interface `_mlir_ciface_<f>`.
  llvm::SmallVector<runtime::EntrySignature> signatures;
  for (const std::string &name : aot.functions) {
    llvm::Expected<mlir::func::FuncOp> func =
        runtime::lookupEntryFunction(module, name);
    if (!func)
      return func.takeError();
    if (!isCIdentifier(name))
      return makeError("@" + name + " is not a C identifier");
    if (!func->isPublic())
      return makeError("@" + name +
                       " is private; only public functions "
                       "can be exported");
    llvm::Expected<runtime::EntrySignature> signature =
        runtime::getEntrySignature(*func);
    if (!signature)
      return signature.takeError();
    signatures.push_back(std::move(*signature));
    (*func)->setAttr(mlir::LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                     mlir::UnitAttr::get(module.getContext()));
  }

  if (llvm::Error err = runtime::lowerToLLVMDialect(module, options))
    return err;
  for (const runtime::EntrySignature &signature : signatures) {
    std::string wrapper = "_mlir_ciface_" + signature.name;
    auto func = module.lookupSymbol<mlir::LLVM::LLVMFuncOp>(wrapper);
    if (!func || func.isExternal())
      return makeError("the lowering made no C interface @" + wrapper +
                       " (does the pipeline convert func to llvm?)");
  }
  std::vector<std::string> externals = getExternalCallees(module);
  llvm::SmallVector<std::string> libraries;
  if (llvm::Error err = runtime::appendRuntimeLibraries(module, options,
                                                        libraries))
    return err;

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return makeError("translation to LLVM IR failed");
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      createTargetMachine(aot.cpu, options.optLevel);
  if (!machine)
    return machine.takeError();
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  if (llvm::Error err = mlir::makeOptimizingTransformer(
          options.optLevel, /*sizeLevel=*/0, machine->get())(llvmModule.get()))
    return makeError("LLVM optimization failed: " +
                     llvm::toString(std::move(err)));

  bool emitFailed = false;
  if (llvm::Error err =
          writeFile(aot.objectPath, [&](llvm::raw_fd_ostream &os) {
            llvm::legacy::PassManager codegen;
            emitFailed = (*machine)->addPassesToEmitFile(
                codegen, os, nullptr, llvm::CodeGenFileType::ObjectFile);
            if (!emitFailed)
              codegen.run(*llvmModule);
          }))
    return err;
  if (emitFailed)
    return makeError("the target cannot emit object files");

  if (aot.headerPath.empty())
    return llvm::Error::success();
  std::string header = generateCHeader(signatures, externals, libraries,
                                       getIncludeGuard(aot.headerPath));
  return writeFile(aot.headerPath,
                   [&](llvm::raw_fd_ostream &os) { os << header; });
}
