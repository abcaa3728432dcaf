//===- Jit.cpp - Lower, JIT-compile and call an entry function ------------===//

#include "trellis/Runtime/Jit.h"

#include "CodeGen.h"
#include "CompileCache.h"
#include "CompiledCode.h"
#include "GemmChoice.h"
#include "Optimizer.h"
#include "PackedCall.h"
#include "RuntimeError.h"
#include "RuntimeLibraries.h"
#include "trellis/Conversion/Profile/ProfileOps.h"
#include "trellis/ExecutionEngine/CollectivesRuntime.h"
#include "trellis/InitAll.h"
#include "trellis/Pipelines/Pipelines.h"
#include "trellis/Runtime/AllocHooks.h"
#include "trellis/Runtime/Profiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <cstdlib>
#include <dlfcn.h>

using namespace trellis::runtime;

/// Returns the first operation the lowering left outside the LLVM dialect.
static mlir::Operation *findUnconvertedOp(mlir::ModuleOp module) {
  mlir::Operation *found = nullptr;
  module.walk([&](mlir::Operation *op) {
    // OpenMP ops are translated with the LLVM dialect (OpenMPIRBuilder).
    if (op == module.getOperation() ||
        llvm::isa<mlir::LLVM::LLVMDialect, mlir::omp::OpenMPDialect>(
            op->getDialect()))
      return mlir::WalkResult::advance();
    found = op;
    return mlir::WalkResult::interrupt();
  });
  return found;
}

/// Returns the name of a function the lowered module calls (or takes the
/// address of) without defining it, that is neither an allocation or
/// profiler hook nor found in the process or the libraries the JIT loaded;
/// an empty string if there is none. (ORC would only say that it failed to
/// materialize the entry.)
static std::string findUnresolvedFunction(mlir::ModuleOp module) {
  // The process's own symbols (the collectives runtime) count, as they do
  // for the JIT's generator of process symbols.
  llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr);
  for (auto func : module.getOps<mlir::LLVM::LLVMFuncOp>()) {
    llvm::StringRef name = func.getSymName();
    if (!func.isExternal() || name.starts_with("_mlir_memref_to_llvm_") ||
        name == trellis::kProfileBeginFunction ||
        name == trellis::kProfileEndFunction ||
        mlir::SymbolTable::symbolKnownUseEmpty(func, module))
      continue;
    if (!llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name.str()))
      return name.str();
  }
  return "";
}

/// Registers the passes the pipeline text names (it is parsed against the
/// pass registry) and the native target of the JIT, once per process.
static void initializeOnce() {
  static bool initialized = [] {
    trellis::registerAllPasses();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
}

llvm::Error
trellis::runtime::lowerToLLVMDialect(mlir::ModuleOp module,
                                     const CompileOptions &options) {
  initializeOnce();
  mlir::PassManager pm(module.getContext(), mlir::ModuleOp::getOperationName());
  // Every pass's output verified names the pass that produced invalid IR;
  // otherwise the lowering's result is verified once, below.
  pm.enableVerifier(options.verifyEachPass);
  if (options.pipeline.empty()) {
    trellis::buildLowerToLLVMPipeline(pm, options);
  } else {
    // The lowering options (checkCollectives among them, on by default) do
    // not apply to a pipeline of one's own.
    std::string message;
    llvm::raw_string_ostream os(message);
    if (mlir::failed(mlir::parsePassPipeline(options.pipeline, pm, os)))
      return makeError("invalid pass pipeline '" + options.pipeline +
                       "': " + llvm::StringRef(message).trim());
  }
  if (mlir::failed(pm.run(module)))
    return makeError("lowering to the LLVM dialect failed");
  if (!options.verifyEachPass && mlir::failed(mlir::verify(module)))
    return makeError("the lowering produced invalid IR (--verify-each names "
                     "the pass)");
  // convert-to-llvm leaves what it cannot lower without a word.
  if (mlir::Operation *op = findUnconvertedOp(module)) {
    mlir::emitError(op->getLoc())
        << "'" << op->getName() << "' was not lowered to the LLVM dialect";
    return makeError("lowering left '" + op->getName().getStringRef() +
                     "' outside the LLVM dialect");
  }
  return llvm::Error::success();
}

llvm::Error trellis::runtime::appendRuntimeLibraries(
    mlir::ModuleOp module, const CompileOptions &options,
    llvm::SmallVectorImpl<std::string> &libraries) {
  // Shared libraries the lowered code may call: memrefCopy & co, then those
  // of the runtime symbols it uses (MPI, the GEMM libraries).
  if (llvm::sys::fs::exists(TRELLIS_C_RUNNER_UTILS_PATH))
    libraries.push_back(TRELLIS_C_RUNNER_UTILS_PATH);
  return appendRuntimeSymbolLibraries(module, options, libraries);
}

JitModule::JitModule(llvm::SmallVector<Entry> entries,
                     std::unique_ptr<CompiledCode> code)
    : entries(std::move(entries)), code(std::move(code)) {}

llvm::StringRef trellis::runtime::stringifyCache(CompileStats::Cache cache) {
  switch (cache) {
  case CompileStats::Cache::Off:
    return "off";
  case CompileStats::Cache::Hit:
    return "hit";
  case CompileStats::Cache::Miss:
    return "miss";
  }
  llvm_unreachable("unknown cache outcome");
}

/// Milliseconds since `start`.
static double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

JitModule::~JitModule() = default;

llvm::Expected<std::unique_ptr<JitModule>>
JitModule::compile(mlir::ModuleOp module, llvm::StringRef entry,
                   const CompileOptions &options) {
  llvm::Expected<mlir::func::FuncOp> func = lookupEntryFunction(module, entry);
  if (!func)
    return func.takeError();
  // Record the signature while the tensor types are still there.
  llvm::Expected<EntrySignature> signature = getEntrySignature(*func);
  if (!signature)
    return signature.takeError();
  // Only the entry is called: the other public functions become private, so
  // that the lowering drops those the entry does not use (the loss function a
  // differentiated step was derived from would be compiled a second time,
  // on its own: a fifth of a Transformer step's compile time).
  for (auto other : module.getOps<mlir::func::FuncOp>())
    if (other != *func && !other.isExternal())
      other.setPrivate();
  llvm::SmallVector<Entry> entries(1);
  entries.front().signature = std::move(*signature);
  return compileEntries(module, std::move(entries), options);
}

llvm::Expected<std::unique_ptr<JitModule>>
JitModule::compileModule(mlir::ModuleOp module, const CompileOptions &options) {
  llvm::SmallVector<Entry> entries;
  llvm::SmallVector<std::pair<std::string, std::string>> skipped;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (func.isExternal() || !func.isPublic())
      continue;
    llvm::Expected<EntrySignature> signature = getEntrySignature(func);
    if (!signature) {
      skipped.emplace_back(func.getSymName().str(),
                           llvm::toString(signature.takeError()));
      continue;
    }
    entries.emplace_back();
    entries.back().signature = std::move(*signature);
  }
  if (entries.empty())
    return makeError("the module has no public function with a body that "
                     "the host can call");
  llvm::Expected<std::unique_ptr<JitModule>> jit =
      compileEntries(module, std::move(entries), options);
  if (jit)
    (*jit)->skipped = std::move(skipped);
  return jit;
}

/// Initializes MPI, once per process, before the first collective, and the
/// collective checks if `options` ask for them.
static void startCollectives(const trellis::CompileOptions &options) {
  trellis_coll_init();
  // Every rank compiles: a point where all of them are, for the checks'
  // communicator to be created. (A pipeline of one's own has no checks.)
  if (options.checkCollectives && options.pipeline.empty())
    trellis_coll_enable_checks();
}

/// Writes `module` as text to `path`.
static llvm::Error dumpModule(const llvm::Module &module,
                              const std::string &path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return makeError("cannot write '" + path + "': " + ec.message());
  module.print(os, nullptr);
  return llvm::Error::success();
}

llvm::Error JitModule::lowerEntries(mlir::ModuleOp module,
                                    llvm::ArrayRef<Entry> entries,
                                    const CompileOptions &options) {
  if (llvm::Error err = lowerToLLVMDialect(module, options))
    return err;
  for (const Entry &entry : entries) {
    const std::string &name = entry.signature.name;
    auto llvmFunc = module.lookupSymbol<mlir::LLVM::LLVMFuncOp>(name);
    if (!llvmFunc)
      return makeError("lowering removed the entry @" + name);
    if (llvm::Error err = verifyLoweredSignature(llvmFunc, entry.signature))
      return err;
  }
  return llvm::Error::success();
}

/// Returns true if the vectorizer may call vector math: asked for, and the
/// library is there (it is part of glibc; without it loops keep scalar libm
/// calls).
static bool usesVectorMath(const trellis::CompileOptions &options) {
  return options.vectorMath && !vectorMathLibraryPath().empty();
}

/// Returns every library the JIT loads for the lowered `module`, in order:
/// appendRuntimeLibraries', the options' own, vector math.
static llvm::Expected<llvm::SmallVector<std::string>>
getJitLibraries(mlir::ModuleOp module, const trellis::CompileOptions &options) {
  llvm::SmallVector<std::string> libraries;
  if (llvm::Error err = appendRuntimeLibraries(module, options, libraries))
    return std::move(err);
  libraries.append(options.sharedLibPaths.begin(),
                   options.sharedLibPaths.end());
  if (usesVectorMath(options))
    libraries.push_back(vectorMathLibraryPath().str());
  return libraries;
}

/// Returns the threads of code generation `options` ask for: one per core
/// the process may run on for 0.
static unsigned getCompileThreads(const trellis::CompileOptions &options) {
  if (options.compileThreads)
    return options.compileThreads;
  return llvm::hardware_concurrency().compute_thread_count();
}

llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
JitModule::compileObjects(mlir::ModuleOp module,
                          llvm::ArrayRef<std::string> libraries,
                          const CompileOptions &options) {
  if (llvm::Error err = loadLibrariesForever(libraries))
    return std::move(err);
  // The calls the JIT cannot resolve, before compiling anything.
  std::string unresolved = findUnresolvedFunction(module);
  if (!unresolved.empty())
    return makeError("JIT compilation failed: @" + unresolved +
                     " is called but defined nowhere (not in the module, the "
                     "process or its libraries)");
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> tmBuilder =
      getTargetMachineBuilder(options.targetCpu);
  if (!tmBuilder)
    return makeError(llvm::toString(tmBuilder.takeError()));
  // A target machine for the data layout; code generation makes its own,
  // one per part.
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      tmBuilder->createTargetMachine();
  if (!machine)
    return machine.takeError();

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return makeError("JIT compilation failed: the module does not translate "
                     "to LLVM IR");
  mlir::ExecutionEngine::setupTargetTripleAndDataLayout(llvmModule.get(),
                                                        machine->get());
  addPackedWrappers(*llvmModule);
  lowerGlobalConstructors(*llvmModule);
  prepareForOptimization(*llvmModule, options.optLevel, options.outlineLoops);
  // The optimizer runs on each part, on the part's thread; to dump what
  // code generation gets, on the whole module first.
  bool vectorMath = usesVectorMath(options);
  PartTransform optimize = [&](llvm::Module &part,
                               llvm::TargetMachine &partMachine) {
    return optimizeModule(part, options.optLevel, partMachine, vectorMath);
  };
  if (!options.dumpLLVMIR.empty()) {
    llvm::Error err = optimize(*llvmModule, **machine);
    if (!err)
      err = dumpModule(*llvmModule, options.dumpLLVMIR);
    if (err)
      return makeError("JIT compilation failed: " +
                       llvm::toString(std::move(err)));
    optimize = nullptr;
  }
  llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>> objects =
      generateObjects(std::move(llvmModule), *tmBuilder,
                      getCompileThreads(options), optimize);
  if (!objects)
    return makeError("JIT compilation failed: " +
                     llvm::toString(objects.takeError()));
  return objects;
}

llvm::Expected<std::unique_ptr<JitModule>>
JitModule::compileEntries(mlir::ModuleOp module,
                          llvm::SmallVector<Entry> entries,
                          const CompileOptions &given) {
  if (given.optLevel > 3)
    return makeError("the optimization level must be 0, 1, 2 or 3");
  // The f32 GEMM libraries the host's measurement chose (GemmChoice.h),
  // before the cache key, which covers them.
  CompileOptions options = given;
  CompileStats stats;
  // The time the shape chooser spends, inside the lowering.
  auto shapeTuningMs = std::make_shared<double>(0);
  if (options.measureGemmLibraries && options.pipeline.empty()) {
    auto start = std::chrono::steady_clock::now();
    HostGemmTuning tuning = getHostGemmTuning(options);
    options.sgemm = tuning.choice;
    options.sgemmShapes = std::move(tuning.shapes);
    if (options.sgemmShapes)
      options.sgemmShapes.choose =
          [choose = std::move(options.sgemmShapes.choose),
           shapeTuningMs](llvm::ArrayRef<GemmShape> shapes,
                          llvm::ArrayRef<GemmLibrary> classLibraries) {
            auto start = std::chrono::steady_clock::now();
            llvm::SmallVector<GemmLibrary> libraries =
                choose(shapes, classLibraries);
            *shapeTuningMs += millisecondsSince(start);
            return libraries;
          };
    stats.tuningMs = millisecondsSince(start);
  }

  // The compile cache: a hit links the object code a compile with the same
  // key kept, without lowering; an entry that fails to link is compiled
  // anew (and overwritten).
  std::optional<CompileCacheEntry> cacheEntry;
  if (usesCompileCache(options)) {
    auto start = std::chrono::steady_clock::now();
    llvm::SmallVector<std::string> names;
    for (const Entry &entry : entries)
      names.push_back(entry.signature.name);
    cacheEntry.emplace(options.cacheDir,
                       computeCompileCacheKey(module, names, options));
    if (std::optional<CachedCode> cached = cacheEntry->load()) {
      llvm::Expected<std::unique_ptr<JitModule>> jit =
          linkCached(std::move(*cached), entries, options);
      if (jit) {
        (*jit)->compileStats.cache = CompileStats::Cache::Hit;
        (*jit)->compileStats.cacheMs = millisecondsSince(start);
        (*jit)->compileStats.tuningMs = stats.tuningMs;
        return jit;
      }
      cacheEntry->warnIgnored(llvm::toString(jit.takeError()));
    }
    stats.cache = CompileStats::Cache::Miss;
    stats.cacheMs = millisecondsSince(start);
  }

  // The names of the source ops, before lowering replaces them.
  std::optional<SourceOps> sources;
  if (options.profile)
    sources = SourceOps::collect(module);
  auto loweringStart = std::chrono::steady_clock::now();
  if (llvm::Error err = lowerEntries(module, entries, options))
    return std::move(err);
  stats.mlirMs = millisecondsSince(loweringStart) - *shapeTuningMs;
  stats.tuningMs += *shapeTuningMs;
  std::optional<Profile> sites;
  if (sources) {
    llvm::Expected<Profile> fromModule = Profile::fromModule(module, *sources);
    if (!fromModule)
      return fromModule.takeError();
    sites = std::move(*fromModule);
  }
  auto llvmStart = std::chrono::steady_clock::now();
  llvm::Expected<llvm::SmallVector<std::string>> libraries =
      getJitLibraries(module, options);
  if (!libraries)
    return libraries.takeError();
  llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>> objects =
      compileObjects(module, *libraries, options);
  if (!objects)
    return objects.takeError();
  // The cache keeps copies: the JIT owns the objects it links.
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> kept;
  if (cacheEntry)
    for (const std::unique_ptr<llvm::MemoryBuffer> &object : *objects)
      kept.push_back(llvm::MemoryBuffer::getMemBufferCopy(
          object->getBuffer(), object->getBufferIdentifier()));
  llvm::Expected<std::unique_ptr<CompiledCode>> code =
      linkObjects(std::move(*objects), *libraries, options.profile);
  if (!code)
    return code.takeError();
  if (llvm::Error err = linkEntries(**code, entries))
    return std::move(err);
  stats.llvmMs = millisecondsSince(llvmStart);
  bool communicates = trellis::runtime::communicates(module);
  if (cacheEntry) {
    auto storeStart = std::chrono::steady_clock::now();
    CachedCodeInfo info;
    info.libraries.assign(libraries->begin(), libraries->end());
    info.communicates = communicates;
    cacheEntry->store(kept, info);
    stats.cacheMs += millisecondsSince(storeStart);
  }
  std::unique_ptr<JitModule> jit(
      new JitModule(std::move(entries), std::move(*code)));
  jit->compileStats = stats;
  if (sites)
    for (const Entry &entry : jit->entries)
      jit->profiles[entry.signature.name] = std::make_unique<Profile>(*sites);
  jit->communicates = communicates;
  if (communicates)
    startCollectives(options);
  return jit;
}

llvm::Error JitModule::linkEntries(CompiledCode &code,
                                   llvm::MutableArrayRef<Entry> entries) {
  // Look the wrappers up now, so that code generation is not timed as a run.
  for (Entry &entry : entries) {
    llvm::Expected<void (*)(void **)> packedEntry =
        code.lookupPacked(entry.signature.name);
    if (!packedEntry)
      return makeError("JIT compilation failed: " +
                       llvm::toString(packedEntry.takeError()));
    entry.packedEntry = *packedEntry;
  }
  return code.initialize();
}

llvm::Expected<std::unique_ptr<JitModule>>
JitModule::linkCached(CachedCode cached, llvm::SmallVector<Entry> entries,
                      const CompileOptions &options) {
  initializeOnce();
  if (llvm::Error err = loadLibrariesForever(cached.info.libraries))
    return std::move(err);
  llvm::Expected<std::unique_ptr<CompiledCode>> code = linkObjects(
      std::move(cached.objects), cached.info.libraries, options.profile);
  if (!code)
    return code.takeError();
  if (llvm::Error err = linkEntries(**code, entries))
    return std::move(err);
  std::unique_ptr<JitModule> jit(
      new JitModule(std::move(entries), std::move(*code)));
  jit->communicates = cached.info.communicates;
  if (jit->communicates)
    startCollectives(options);
  return jit;
}

Profile *JitModule::getProfile(llvm::StringRef entry) const {
  auto it = profiles.find(entry);
  return it == profiles.end() ? nullptr : it->second.get();
}

const JitModule::Entry *JitModule::lookupEntry(llvm::StringRef name) const {
  for (const Entry &entry : entries)
    if (entry.signature.name == name)
      return &entry;
  return nullptr;
}

const EntrySignature *JitModule::lookupSignature(llvm::StringRef entry) const {
  const Entry *found = lookupEntry(entry);
  return found ? &found->signature : nullptr;
}

llvm::SmallVector<llvm::StringRef> JitModule::getEntryNames() const {
  llvm::SmallVector<llvm::StringRef> names;
  for (const Entry &entry : entries)
    names.push_back(entry.signature.name);
  return names;
}

llvm::StringRef JitModule::getSkipReason(llvm::StringRef name) const {
  for (const auto &[skippedName, reason] : skipped)
    if (skippedName == name)
      return reason;
  return "";
}

/// Checks the number of `args` and that each binds to its parameter.
static llvm::Error checkArguments(const EntrySignature &signature,
                                  llvm::ArrayRef<HostArray> args) {
  if (args.size() != signature.args.size())
    return makeError("@" + signature.name + " takes " +
                     llvm::Twine(signature.args.size()) + " arguments, got " +
                     llvm::Twine(args.size()));
  for (auto [index, arg] : llvm::enumerate(args))
    if (llvm::Error err = checkBinding(signature.args[index], arg))
      return makeError("argument " + llvm::Twine(index) + ": " +
                       llvm::toString(std::move(err)));
  return llvm::Error::success();
}

llvm::Expected<llvm::SmallVector<HostArray>>
JitModule::call(llvm::ArrayRef<HostArray> inputs, CallStats *stats) {
  return call(entries.front().signature.name, inputs, stats);
}

llvm::Expected<llvm::SmallVector<HostArray>>
JitModule::call(llvm::StringRef entryName, llvm::ArrayRef<HostArray> inputs,
                CallStats *stats) {
  const Entry *entry = lookupEntry(entryName);
  if (!entry)
    return makeError("@" + entryName + " is not a callable function");
  if (llvm::Error err = checkArguments(entry->signature, inputs))
    return std::move(err);
  // The program may write into its arguments: give it copies.
  llvm::SmallVector<HostArray> args;
  for (const HostArray &input : inputs) {
    llvm::Expected<HostArray> copy = input.tryClone();
    if (!copy)
      return copy.takeError();
    args.push_back(std::move(*copy));
  }
  return callEntry(*entry, args, stats);
}

llvm::Expected<llvm::SmallVector<HostArray>>
JitModule::callInPlace(llvm::StringRef entryName,
                       llvm::MutableArrayRef<HostArray> args,
                       CallStats *stats) {
  const Entry *entry = lookupEntry(entryName);
  if (!entry)
    return makeError("@" + entryName + " is not a callable function");
  if (llvm::Error err = checkArguments(entry->signature, args))
    return std::move(err);
  return callEntry(*entry, args, stats);
}

llvm::Expected<llvm::SmallVector<HostArray>>
JitModule::callEntry(const Entry &entry, llvm::MutableArrayRef<HostArray> args,
                     CallStats *stats) {
  PackedCall call(entry.signature, args);
  resetPeakBytes();
  uint64_t liveBefore = getLiveBytes();
  Profile *profile = getProfile(entry.signature.name);
  std::optional<ProfileScope> profiling;
  if (profile)
    profiling.emplace(*profile);
  auto start = std::chrono::steady_clock::now();
  entry.packedEntry(call.getPackedArgs());
  auto end = std::chrono::steady_clock::now();
  if (profile)
    profile->addCall(
        std::chrono::duration<double, std::nano>(end - start).count());
  llvm::Expected<llvm::SmallVector<HostArray>> results = call.takeResults();
  if (stats) {
    stats->runMs =
        std::chrono::duration<double, std::milli>(end - start).count();
    stats->peakBytes = getPeakBytes() - liveBefore;
  }
  return results;
}
