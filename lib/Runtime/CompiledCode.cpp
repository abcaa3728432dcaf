//===- CompiledCode.cpp - The machine code behind a JitModule -------------===//

#include "CompiledCode.h"

#include "RuntimeError.h"
#include "trellis/Runtime/AllocHooks.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace trellis::runtime;

CompiledCode::~CompiledCode() = default;

namespace {

/// The code of a compile: the ExecutionEngine's own.
class EngineCode final : public CompiledCode {
public:
  explicit EngineCode(std::unique_ptr<mlir::ExecutionEngine> engine)
      : engine(std::move(engine)) {}

  llvm::Expected<void (*)(void **)>
  lookupPacked(llvm::StringRef name) override {
    return engine->lookupPacked(name);
  }
  llvm::Expected<void *> lookup(llvm::StringRef name) override {
    return engine->lookup(name);
  }
  llvm::Error initialize() override {
    engine->initialize();
    return llvm::Error::success();
  }

private:
  std::unique_ptr<mlir::ExecutionEngine> engine;
};

/// The code of a cache hit: an object file linked by an LLJIT.
class ObjectCode final : public CompiledCode {
public:
  explicit ObjectCode(std::unique_ptr<llvm::orc::LLJIT> jit)
      : jit(std::move(jit)) {}

  ~ObjectCode() override {
    // As the ExecutionEngine does: the code's destructors, if it ran its
    // constructors.
    if (initialized)
      llvm::consumeError(jit->deinitialize(jit->getMainJITDylib()));
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
    if (llvm::Error err = jit->initialize(jit->getMainJITDylib()))
      return err;
    initialized = true;
    return llvm::Error::success();
  }

private:
  std::unique_ptr<llvm::orc::LLJIT> jit;
  bool initialized = false;
};

} // namespace

std::unique_ptr<CompiledCode> trellis::runtime::makeEngineCode(
    std::unique_ptr<mlir::ExecutionEngine> engine) {
  return std::make_unique<EngineCode>(std::move(engine));
}

/// Makes `library` (already loaded) global, so that the process's symbol
/// search finds its symbols: what ExecutionEngine::create does with
/// DynamicLibrary::getPermanentLibrary. Libraries with the engine's init and
/// destroy protocol are not supported (the cache stores no code that needs
/// one).
static llvm::Error makeGlobal(const std::string &library) {
  std::string message;
  llvm::sys::DynamicLibrary handle =
      llvm::sys::DynamicLibrary::getPermanentLibrary(library.c_str(), &message);
  if (!handle.isValid())
    return makeError("cannot load '" + library + "': " + message);
  if (handle.getAddressOfSymbol(mlir::ExecutionEngine::kLibraryInitFnName))
    return makeError("'" + library + "' has an ExecutionEngine init function");
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<CompiledCode>>
trellis::runtime::linkObject(std::unique_ptr<llvm::MemoryBuffer> object,
                             llvm::ArrayRef<std::string> libraries) {
  for (const std::string &library : libraries)
    if (llvm::Error err = makeGlobal(library))
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
  if (llvm::Error err = (*jit)->addObjectFile(std::move(object)))
    return std::move(err);
  return std::make_unique<ObjectCode>(std::move(*jit));
}
