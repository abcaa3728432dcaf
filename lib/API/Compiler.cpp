//===- Compiler.cpp - Embedding Trellis as a compiler backend -------------===//

#include "trellis/API/Compiler.h"

#include "APIError.h"
#include "Aot.h"
#include "StridedCopy.h"

#include "trellis/InitAll.h"
#include "trellis/Runtime/Files.h"
#include "trellis/Runtime/Jit.h"
#include "trellis/Utils/Nesting.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace trellis;

//===----------------------------------------------------------------------===//
// Module, Function, CompiledModule
//===----------------------------------------------------------------------===//

std::string Module::print() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::ModuleOp op = get();
  op->print(os);
  return text;
}

llvm::Expected<std::vector<Tensor>>
Function::call(llvm::ArrayRef<TensorView> inputs) const {
  if (inputs.size() != signature->args.size())
    return api::makeError("@" + signature->name + " takes " +
                          llvm::Twine(signature->args.size()) +
                          " arguments, got " + llvm::Twine(inputs.size()));
  // The program may write into its arguments: it gets dense copies.
  llvm::SmallVector<runtime::HostArray> args;
  for (auto [index, view] : llvm::enumerate(inputs)) {
    llvm::Expected<runtime::HostArray> array =
        api::copyToDense(view, signature->args[index]);
    if (!array)
      return api::makeError("argument " + llvm::Twine(index) + ": " +
                            llvm::toString(array.takeError()));
    args.push_back(std::move(*array));
  }
  llvm::Expected<llvm::SmallVector<runtime::HostArray>> results =
      jit->callInPlace(signature->name, args);
  if (!results)
    return results.takeError();
  std::vector<Tensor> tensors;
  tensors.reserve(results->size());
  for (runtime::HostArray &array : *results)
    tensors.emplace_back(std::move(array));
  return tensors;
}

CompiledModule::CompiledModule(std::unique_ptr<runtime::JitModule> jit)
    : jit(std::move(jit)) {}
CompiledModule::CompiledModule(CompiledModule &&) noexcept = default;
CompiledModule &CompiledModule::operator=(CompiledModule &&) noexcept = default;
CompiledModule::~CompiledModule() = default;

llvm::Expected<Function> CompiledModule::lookup(llvm::StringRef name) const {
  if (const runtime::EntrySignature *signature = jit->lookupSignature(name))
    return Function(jit.get(), signature);
  llvm::StringRef reason = jit->getSkipReason(name);
  if (!reason.empty())
    return api::makeError("@" + name + " cannot be called: " + reason);
  std::string names;
  llvm::raw_string_ostream os(names);
  llvm::interleaveComma(jit->getEntryNames(), os,
                        [&](llvm::StringRef entry) { os << '@' << entry; });
  return api::makeError("no callable function @" + name +
                        " (callable: " + names + ")");
}

std::vector<std::string> CompiledModule::getFunctionNames() const {
  std::vector<std::string> names;
  for (llvm::StringRef name : jit->getEntryNames())
    names.push_back(name.str());
  return names;
}

//===----------------------------------------------------------------------===//
// Compiler
//===----------------------------------------------------------------------===//

Compiler::Compiler(CompileOptions options)
    : Compiler(std::move(options),
               runtime::RuntimeConfig::fromEnvironmentOrWarn()) {
  runtime::configureProcess(runtimeConfig);
}

Compiler::Compiler(CompileOptions options,
                   runtime::RuntimeConfig runtimeConfig)
    : options(std::move(options)), runtimeConfig(std::move(runtimeConfig)) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  context = std::make_unique<mlir::MLIRContext>(registry);
  // Parsing must not depend on which dialects happen to be loaded.
  context->loadAllAvailableDialects();
}

Compiler::~Compiler() = default;

mlir::MLIRContext &Compiler::getContext() { return *context; }

llvm::Expected<Module> Compiler::parseModule(llvm::StringRef text,
                                             llvm::StringRef bufferName) {
  if (llvm::Error err = checkNesting(text, bufferName))
    return api::makeError(llvm::toString(std::move(err)));
  api::DiagnosticCollector diagnostics(*context);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, bufferName), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, context.get());
  if (!module)
    return diagnostics.makeError("cannot parse " + bufferName);
  return Module(std::move(module));
}

llvm::Expected<Module> Compiler::loadModule(llvm::StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
      runtime::readRegularFile(path, /*isText=*/true, /*allowStdin=*/true);
  if (!file)
    return api::makeError("cannot read " + path + ": " +
                          llvm::toString(file.takeError()));
  return parseModule((*file)->getBuffer(), path);
}

llvm::Expected<Module>
Compiler::adoptModule(mlir::OwningOpRef<mlir::ModuleOp> module) {
  if (!module)
    return api::makeError("no module");
  if (module->getContext() != context.get())
    return api::makeError("the module was built in another context");
  api::DiagnosticCollector diagnostics(*context);
  if (mlir::failed(mlir::verify(*module)))
    return diagnostics.makeError("the module does not verify");
  return Module(std::move(module));
}

llvm::Expected<CompiledModule> Compiler::compile(const Module &module) {
  api::DiagnosticCollector diagnostics(*context);
  // Lowering works in place; the host keeps its module.
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.get().clone();
  CompileOptions jitOptions = options;
  runtimeConfig.applyTo(jitOptions);
  llvm::Expected<std::unique_ptr<runtime::JitModule>> jit =
      runtime::JitModule::compileModule(*copy, jitOptions);
  if (!jit)
    return diagnostics.addTo(jit.takeError());
  return CompiledModule(std::move(*jit));
}

llvm::Error Compiler::compileToObject(const Module &module,
                                      const AotOptions &aotOptions) {
  api::DiagnosticCollector diagnostics(*context);
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.get().clone();
  CompileOptions objectOptions = options;
  runtimeConfig.applyLibraryPaths(objectOptions);
  return diagnostics.addTo(
      api::emitObjectAndHeader(*copy, objectOptions, aotOptions));
}
