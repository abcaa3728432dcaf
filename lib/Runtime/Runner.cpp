//===- Runner.cpp - The trellis-run driver --------------------------------===//

#include "trellis/Runtime/Runner.h"

#include "RuntimeError.h"
#include "trellis/ExecutionEngine/CollectivesRuntime.h"
#include "trellis/InitAll.h"
#include "trellis/Runtime/AllocHooks.h"
#include "trellis/Runtime/Jit.h"
#include "trellis/Runtime/Npy.h"
#include "trellis/Runtime/Rank.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace trellis::runtime;

namespace {
/// Milliseconds since construction.
class Stopwatch {
public:
  double elapsedMs() const {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
        .count();
  }

private:
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
};
} // namespace

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
trellis::runtime::loadModule(llvm::StringRef filename,
                             mlir::MLIRContext &context,
                             llvm::SourceMgr &sourceMgr) {
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(filename, &message);
  if (!file)
    return makeError("cannot open '" + filename + "': " + message);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  if (!module)
    return makeError("cannot parse '" + filename + "'");
  if (mlir::failed(mlir::verify(*module)))
    return makeError("'" + filename + "' failed verification");
  return module;
}

/// Reads the inputs and checks them against the entry's arguments.
static llvm::Expected<llvm::SmallVector<HostArray>>
loadInputs(llvm::ArrayRef<std::string> paths, const EntrySignature &signature,
           unsigned rank) {
  if (paths.size() != signature.args.size())
    return makeError("@" + signature.name + " takes " +
                     llvm::Twine(signature.args.size()) + " argument(s) but " +
                     llvm::Twine(paths.size()) + " --input file(s) were given");
  llvm::SmallVector<HostArray> inputs;
  for (auto [index, pattern] : llvm::enumerate(paths)) {
    std::string path = substituteRank(pattern, rank);
    auto fail = [&](llvm::Error err) {
      return makeError("input " + llvm::Twine(index) + " ('" + path +
                       "'): " + llvm::toString(std::move(err)));
    };
    llvm::Expected<HostArray> array = readNpy(path);
    if (!array)
      return fail(array.takeError());
    if (llvm::Error err = checkBinding(signature.args[index], *array))
      return fail(std::move(err));
    inputs.push_back(std::move(*array));
  }
  return inputs;
}

/// Writes result i to `<dir>/result<i>.npy`, creating `dir` if needed.
static llvm::Error writeResults(llvm::StringRef dir,
                                llvm::ArrayRef<HostArray> results) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return makeError("cannot create output directory '" + dir +
                     "': " + ec.message());
  for (auto [index, result] : llvm::enumerate(results)) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, "result" + llvm::Twine(index) + ".npy");
    if (llvm::Error err = writeNpy(path, result))
      return err;
  }
  return llvm::Error::success();
}

static double getMedian(llvm::SmallVectorImpl<double> &values) {
  llvm::sort(values);
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

llvm::Error trellis::runtime::runTrellisRun(const RunnerOptions &options,
                                            llvm::raw_ostream &out) {
  if (options.repeat == 0)
    return makeError("--repeat must be at least 1");
  if (llvm::Error err =
          setMemoryLimitFromFlagOrEnvironment(options.memoryLimit))
    return err;
  unsigned rank = getMpiRankFromEnvironment();

  mlir::DialectRegistry registry;
  trellis::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> module =
      loadModule(options.inputFilename, context, sourceMgr);
  if (!module)
    return module.takeError();
  // Check the inputs before spending time on compilation.
  llvm::Expected<mlir::func::FuncOp> entry =
      lookupEntryFunction(**module, options.entry);
  if (!entry)
    return entry.takeError();
  llvm::Expected<EntrySignature> signature = getEntrySignature(*entry);
  if (!signature)
    return signature.takeError();
  llvm::Expected<llvm::SmallVector<HostArray>> inputs =
      loadInputs(options.inputPaths, *signature, rank);
  if (!inputs)
    return inputs.takeError();

  Stopwatch compileTime;
  JitOptions jitOptions;
  jitOptions.optLevel = options.optLevel;
  jitOptions.lowering = options.lowering;
  jitOptions.dumpLLVMIR = options.dumpLLVMIR;
  jitOptions.vectorMath = options.vectorMath;
  jitOptions.outlineLoops = options.outlineLoops;
  llvm::Expected<std::unique_ptr<JitModule>> jit =
      JitModule::compile(**module, options.entry, jitOptions);
  if (!jit)
    return jit.takeError();
  double compileMs = compileTime.elapsedMs();

  llvm::SmallVector<double> runMs;
  uint64_t peakBytes = 0;
  llvm::SmallVector<HostArray> results;
  for (unsigned i = 0; i < options.repeat; ++i) {
    CallStats stats;
    llvm::Expected<llvm::SmallVector<HostArray>> callResults =
        (*jit)->call(*inputs, &stats);
    if (!callResults)
      return callResults.takeError();
    results = std::move(*callResults);
    runMs.push_back(stats.runMs);
    peakBytes = std::max(peakBytes, stats.peakBytes);
  }

  if (!options.outputDir.empty()) {
    if (llvm::Error err =
            writeResults(substituteRank(options.outputDir, rank), results))
      return err;
  } else {
    for (auto [index, result] : llvm::enumerate(results)) {
      out << "result" << index << ": ";
      result.printSummary(out);
      out << '\n';
    }
  }
  if (options.printStats)
    out << llvm::format("{\"compile_ms\": %.3f, \"run_ms\": %.6f, "
                        "\"peak_tensor_bytes\": %llu}\n",
                        compileMs, getMedian(runMs),
                        static_cast<unsigned long long>(peakBytes));
  out.flush();
  return llvm::Error::success();
}

void trellis::runtime::endMpiJob(bool failed) {
  if (failed)
    trellis_coll_abort_if_initialized(1);
  else
    trellis_coll_finalize();
}

int trellis::runtime::finishTool(llvm::StringRef tool, llvm::Error err) {
  if (!err) {
    endMpiJob(/*failed=*/false);
    return 0;
  }
  std::string message = llvm::toString(std::move(err));
  std::replace(message.begin(), message.end(), '\n', ' ');
  llvm::outs().flush();
  llvm::errs() << tool << ": error: " << llvm::StringRef(message).trim()
               << '\n';
  llvm::errs().flush();
  endMpiJob(/*failed=*/true);
  return 1;
}
