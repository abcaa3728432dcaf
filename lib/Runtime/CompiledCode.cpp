//===- CompiledCode.cpp - The machine code behind a JitModule -------------===//

#include "CompiledCode.h"

#include "CodeGen.h"
#include "RuntimeError.h"
#include "trellis/Runtime/AllocHooks.h"
#include "trellis/Runtime/Profiler.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace trellis::runtime;

CompiledCode::~CompiledCode() = default;

namespace {

/// Object code linked by an LLJIT.
class ObjectCode final : public CompiledCode {
public:
  ObjectCode(std::unique_ptr<llvm::orc::LLJIT> jit,
             llvm::SmallVector<mlir::ExecutionEngine::LibraryDestroyFn> destroy)
      : jit(std::move(jit)), destroy(std::move(destroy)) {}

  ~ObjectCode() override {
    // As the ExecutionEngine does: the code's destructors, if it ran its
    // constructors, then the libraries' destroy functions.
    if (initialized)
      callIfDefined(kFiniFunctionName);
    for (mlir::ExecutionEngine::LibraryDestroyFn fn : destroy)
      fn();
  }

  llvm::Expected<void (*)(void **)>
  lookupPacked(llvm::StringRef name) override {
    llvm::Expected<void *> address = lookup(("_mlir_" + name).str());
    if (!address)
      return address.takeError();
    return reinterpret_cast<void (*)(void **)>(*address);
  }

  llvm::Expected<void *> lookup(llvm::StringRef name) override {
    llvm::Expected<llvm::orc::ExecutorAddr> address = jit->lookup(name);
    // The error may refer to strings the JIT owns: keep its text only (as
    // ExecutionEngine::lookup does).
    if (!address)
      return makeError(llvm::toString(address.takeError()));
    if (!*address)
      return makeError("symbol '" + name + "' is null");
    return address->toPtr<void *>();
  }

  llvm::Error initialize() override {
    if (initialized)
      return llvm::Error::success();
    callIfDefined(kInitFunctionName);
    initialized = true;
    return llvm::Error::success();
  }

private:
  /// Calls the code's `void name()`, if it has one (lowerGlobalConstructors).
  void callIfDefined(llvm::StringRef name) {
    llvm::Expected<llvm::orc::ExecutorAddr> address = jit->lookup(name);
    if (!address) {
      llvm::consumeError(address.takeError());
      return;
    }
    address->toPtr<void (*)()>()();
  }

  std::unique_ptr<llvm::orc::LLJIT> jit;
  llvm::SmallVector<mlir::ExecutionEngine::LibraryDestroyFn> destroy;
  bool initialized = false;
};

} // namespace

/// Makes `library` (already loaded) global, so that the process's symbol
/// search finds its symbols, as ExecutionEngine::create does with
/// DynamicLibrary::getPermanentLibrary; or, if it has the engine's init and
/// destroy functions, calls the first to add its symbols to `exported` and
/// appends the second to `destroy`, as the engine does.
static llvm::Error openLibrary(
    const std::string &library, llvm::StringMap<void *> &exported,
    llvm::SmallVectorImpl<mlir::ExecutionEngine::LibraryDestroyFn> &destroy) {
  std::string message;
  llvm::sys::DynamicLibrary handle =
      llvm::sys::DynamicLibrary::getPermanentLibrary(library.c_str(), &message);
  if (!handle.isValid())
    return makeError("cannot load '" + library + "': " + message);
  void *init =
      handle.getAddressOfSymbol(mlir::ExecutionEngine::kLibraryInitFnName);
  void *fini =
      handle.getAddressOfSymbol(mlir::ExecutionEngine::kLibraryDestroyFnName);
  if (init && fini) {
    reinterpret_cast<mlir::ExecutionEngine::LibraryInitFn>(init)(exported);
    destroy.push_back(
        reinterpret_cast<mlir::ExecutionEngine::LibraryDestroyFn>(fini));
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<CompiledCode>> trellis::runtime::linkObjects(
    std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects,
    llvm::ArrayRef<std::string> libraries, bool profilerHooks) {
  llvm::StringMap<void *> exported;
  llvm::SmallVector<mlir::ExecutionEngine::LibraryDestroyFn> destroy;
  for (const std::string &library : libraries)
    if (llvm::Error err = openLibrary(library, exported, destroy))
      return std::move(err);

  llvm::Expected<llvm::orc::JITTargetMachineBuilder> tmBuilder =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder)
    return tmBuilder.takeError();
  llvm::Expected<llvm::DataLayout> dataLayout =
      tmBuilder->getDefaultDataLayoutForTarget();
  if (!dataLayout)
    return dataLayout.takeError();

  auto createObjectLayer = [](llvm::orc::ExecutionSession &session)
      -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
    auto layer = std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
        session, [](const llvm::MemoryBuffer &) {
          return std::make_unique<llvm::SectionMemoryManager>();
        });
    // The ExecutionEngine's default listeners: debuggers and perf see the
    // code as they see a compile's.
    if (llvm::JITEventListener *gdb =
            llvm::JITEventListener::createGDBRegistrationListener())
      layer->registerJITEventListener(*gdb);
    if (llvm::JITEventListener *perf =
            llvm::JITEventListener::createPerfJITEventListener())
      layer->registerJITEventListener(*perf);
    return layer;
  };
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(*tmBuilder))
          .setDataLayout(*dataLayout)
          .setObjectLinkingLayerCreator(createObjectLayer)
          .create();
  if (!jit)
    return jit.takeError();
  // Link errors (an undefined symbol) come back from the lookups; the
  // session would print them on stderr as well.
  (*jit)->getExecutionSession().setErrorReporter(
      [](llvm::Error err) { llvm::consumeError(std::move(err)); });

  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  llvm::Expected<std::unique_ptr<llvm::orc::DynamicLibrarySearchGenerator>>
      process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          dataLayout->getGlobalPrefix());
  if (!process)
    return process.takeError();
  main.addGenerator(std::move(*process));
  registerAllocHooks(**jit);
  if (profilerHooks)
    registerProfilerHooks(**jit);
  if (!exported.empty()) {
    llvm::orc::MangleAndInterner interner((*jit)->getExecutionSession(),
                                          (*jit)->getDataLayout());
    llvm::orc::SymbolMap symbols;
    for (const llvm::StringMapEntry<void *> &symbol : exported)
      symbols[interner(symbol.getKey())] = {
          llvm::orc::ExecutorAddr::fromPtr(symbol.getValue()),
          llvm::JITSymbolFlags::Exported};
    if (llvm::Error err = main.define(llvm::orc::absoluteSymbols(symbols)))
      return std::move(err);
  }
  for (std::unique_ptr<llvm::MemoryBuffer> &object : objects)
    if (llvm::Error err = (*jit)->addObjectFile(std::move(object)))
      return std::move(err);
  return std::make_unique<ObjectCode>(std::move(*jit), std::move(destroy));
}
