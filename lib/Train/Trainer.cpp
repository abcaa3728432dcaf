//===- Trainer.cpp - The training driver behind trellis-train -------------===//
//
// The loop: compile @train_step (and @eval), start from fresh or saved
// parameters, then step through the data order, reporting and saving as
// asked. The convention, the data order, the report and the checkpoints are
// in files of their own; MPI is reached only through the collectives
// runtime.
//
//===----------------------------------------------------------------------===//

#include "trellis/Train/Trainer.h"

#include "TrainError.h"
#include "trellis/Dialect/AD/IR/ADInterfaces.h"
#include "trellis/Dialect/Coll/Transforms/Passes.h"
#include "trellis/ExecutionEngine/CollectivesRuntime.h"
#include "trellis/ExecutionEngine/HostCollectives.h"
#include "trellis/InitAll.h"
#include "trellis/Runtime/Jit.h"
#include "trellis/Runtime/Npz.h"
#include "trellis/Runtime/Profiler.h"
#include "trellis/Tools/ModuleFile.h"
#include "trellis/Train/Checkpoint.h"
#include "trellis/Train/Convention.h"
#include "trellis/Train/DataOrder.h"
#include "trellis/Train/Random.h"
#include "trellis/Train/Report.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <numeric>

using namespace trellis;
using namespace trellis::runtime;
using namespace trellis::train;
using llvm::Twine;

namespace {
class Trainer {
public:
  Trainer(const TrainOptions &options, llvm::raw_ostream &out)
      : options(options), out(out) {}
  llvm::Error run();

private:
  llvm::Error compile();
  llvm::Error initializeOrResume();
  llvm::Error saveCheckpoint(int64_t step);
  llvm::Expected<std::vector<double>> evaluate();
  double meanOverRanks(double value) const;

  const TrainOptions &options;
  llvm::raw_ostream &out;
  int rank = 0, ranks = 1;
  bool leader = true;
  mlir::MLIRContext context{[] {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }()};
  StepFunction trainStep, evalStep;
  std::unique_ptr<JitModule> jit;
  bool hasEval = false;
  NamedArrays trainData, evalData;
  Dataset trainSet, evalSet;
  llvm::SmallVector<HostArray> params;
  int64_t startStep = 0;
  std::string metricName;
  std::string metricsPath, checkpointPath, curvePath;
  /// Wall time of the JIT compile.
  double compileMs = 0;
};
} // namespace

llvm::Error Trainer::compile() {
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> module =
      tools::loadModule(options.modulePath, context, sourceMgr);
  if (!module)
    return module.takeError();
  llvm::Expected<StepFunction> step =
      readStepFunction(**module, "train_step", /*isTrainStep=*/true);
  if (!step)
    return step.takeError();
  trainStep = std::move(*step);
  hasEval = !options.evalDataPath.empty() &&
            (*module)->lookupSymbol<mlir::func::FuncOp>("eval") != nullptr;
  if (hasEval) {
    llvm::Expected<StepFunction> eval =
        readStepFunction(**module, "eval", /*isTrainStep=*/false);
    if (!eval)
      return eval.takeError();
    evalStep = std::move(*eval);
    if (evalStep.params.size() != trainStep.params.size())
      return fail("@eval takes " + Twine(evalStep.params.size()) +
                  " parameters but @train_step " +
                  Twine(trainStep.params.size()));
  }
  CompileOptions compileOptions = options.compile;
  if (ranks > 1) {
    // Data parallelism: reduce the gradients of the ad ops across ranks.
    // @eval has none, so it is unchanged.
    bool hasGradients = false;
    (*module)->walk([&](ad::DerivativeOpInterface op) {
      hasGradients |= op.getDerivativeKind() != ad::DerivativeKind::VJP;
    });
    if (!hasGradients)
      return fail("'" + options.modulePath +
                  "' has no ad.grad or "
                  "ad.value_and_grad whose gradients could be reduced "
                  "across the " +
                  Twine(ranks) + " ranks");
    compileOptions.gradientReduction.emplace();
    compileOptions.gradientReduction->reduce = options.reduce;
  }
  // One compilation serves @train_step and @eval.
  auto compileStart = std::chrono::steady_clock::now();
  llvm::Expected<std::unique_ptr<JitModule>> compiled =
      JitModule::compileModule(**module, compileOptions);
  if (!compiled)
    return compiled.takeError();
  compileMs = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - compileStart)
                  .count();
  jit = std::move(*compiled);
  for (llvm::StringRef name : {"train_step", "eval"})
    if ((name == "train_step" || hasEval) && !jit->lookupSignature(name))
      return fail("@" + name +
                  " cannot be called: " + jit->getSkipReason(name));
  return llvm::Error::success();
}

llvm::Error Trainer::initializeOrResume() {
  if (options.resume && llvm::sys::fs::exists(checkpointPath)) {
    llvm::Expected<Checkpoint> checkpoint =
        readCheckpoint(checkpointPath, options.seed, trainStep);
    if (!checkpoint)
      return checkpoint.takeError();
    startStep = checkpoint->step;
    params = std::move(checkpoint->params);
    if (leader)
      out << "resuming from " << checkpointPath << " at step " << startStep
          << "\n";
    return llvm::Error::success();
  }
  SplitMix64 rng{options.seed ^ 0x5eed5eed5eedull};
  for (const Argument &param : trainStep.params) {
    llvm::Expected<HostArray> array = initializeParameter(param, rng);
    if (!array)
      return array.takeError();
    params.push_back(std::move(*array));
  }
  return llvm::Error::success();
}

llvm::Error Trainer::saveCheckpoint(int64_t step) {
  if (!leader)
    return llvm::Error::success();
  return writeCheckpoint(checkpointPath, step, options.seed, params);
}

double Trainer::meanOverRanks(double value) const {
  if (ranks == 1)
    return value;
  return collectives::sumOverRanks(
             value, "the loss's mean over the ranks (trellis-train)") /
         ranks;
}

llvm::Expected<std::vector<double>> Trainer::evaluate() {
  std::vector<double> sums(evalStep.resultNames.size(), 0.0);
  int64_t b = evalStep.batchSize, batches = evalSet.size / b;
  if (batches == 0)
    return fail("the eval data has " + Twine(evalSet.size) +
                " examples, fewer than @eval's batch of " + Twine(b));
  for (int64_t k = 0; k < batches; ++k) {
    std::vector<int64_t> rows(b);
    std::iota(rows.begin(), rows.end(), k * b);
    llvm::Expected<llvm::SmallVector<HostArray>> batch =
        gatherBatch(evalSet, evalStep, rows);
    if (!batch)
      return batch.takeError();
    llvm::SmallVector<HostArray> inputs;
    for (const HostArray &p : params)
      inputs.push_back(p.clone());
    for (HostArray &x : *batch)
      inputs.push_back(std::move(x));
    llvm::Expected<llvm::SmallVector<HostArray>> results =
        jit->callInPlace("eval", inputs);
    if (!results)
      return results.takeError();
    for (size_t i = 0; i < sums.size(); ++i)
      sums[i] += getScalarValue((*results)[i]);
  }
  for (double &s : sums)
    s /= batches;
  return sums;
}

llvm::Error Trainer::run() {
  ranks = static_cast<int>(options.launchedRanks);
  if (ranks > 1) {
    trellis_coll_init();
    rank = collectives::getWorldRank();
    ranks = collectives::getWorldSize();
  }
  leader = rank == 0;
  if (options.steps < 0)
    return fail("--steps must not be negative");
  if (options.outputDir.empty())
    return fail("--output-dir is required (checkpoint, metrics, curve)");
  if (std::error_code ec = llvm::sys::fs::create_directories(options.outputDir))
    return fail("cannot create '" + options.outputDir + "': " + ec.message());
  checkpointPath = (options.outputDir + "/checkpoint.npz");
  metricsPath = (options.outputDir + "/metrics.jsonl");
  curvePath = (options.outputDir + "/curve.svg");

  llvm::Expected<NamedArrays> data = readNpz(options.dataPath);
  if (!data)
    return data.takeError();
  trainData = std::move(*data);
  if (llvm::Error err = compile())
    return err;
  llvm::Expected<Dataset> bound =
      bindDataset(trainData, trainStep, options.dataPath);
  if (!bound)
    return bound.takeError();
  trainSet = *bound;
  if (hasEval) {
    llvm::Expected<NamedArrays> eval = readNpz(options.evalDataPath);
    if (!eval)
      return eval.takeError();
    evalData = std::move(*eval);
    llvm::Expected<Dataset> evalBound =
        bindDataset(evalData, evalStep, options.evalDataPath);
    if (!evalBound)
      return evalBound.takeError();
    evalSet = *evalBound;
    metricName = evalStep.resultNames.empty() ? "" : evalStep.resultNames[0];
  }
  if (llvm::Error err = initializeOrResume())
    return err;

  BatchOrder order(options.seed, trainSet.size, trainStep.batchSize, rank,
                   ranks);
  if (order.getBatchesPerEpoch() == 0)
    return fail("'" + options.dataPath + "' has " + Twine(trainSet.size) +
                " examples, fewer than one global batch (" + Twine(ranks) +
                " ranks x " + Twine(trainStep.batchSize) + ")");

  TrainingReport report(out, leader, ranks, options.steps, options.logEvery);
  if (llvm::Error err = report.openMetrics(metricsPath, options.resume))
    return err;
  if (leader)
    out << "training @train_step of " << options.modulePath << ": "
        << trainStep.params.size() << " parameter tensors, batch "
        << trainStep.batchSize << " x " << ranks << " rank(s)"
        << (ranks > 1 ? (" (" +
                         coll::stringifyGradientReduction(options.reduce) + ")")
                            .str()
                      : std::string())
        << ", " << trainSet.size << " examples, steps " << startStep << ".."
        << options.steps << "\n";
  report.reportCompile(compileMs, jit->getCompileStats());

  // Ranks finish compiling at different times; time the steps only. The
  // others may still be compiling: wait for them as long again as this
  // rank's compile took, twice, beyond the collective timeout.
  if (ranks > 1)
    collectives::barrier("the start of training, after compiling "
                         "(trellis-train)",
                         2 * compileMs / 1000);
  report.startTiming(startStep);
  auto evalAndLog = [&](int64_t step) -> llvm::Error {
    llvm::Expected<std::vector<double>> values = evaluate();
    if (!values)
      return values.takeError();
    report.reportEval(step, evalStep.resultNames, *values);
    return llvm::Error::success();
  };

  double loss = 0;
  for (int64_t step = startStep; step < options.steps; ++step) {
    llvm::Expected<llvm::SmallVector<HostArray>> batch =
        gatherBatch(trainSet, trainStep, order.getRows(step));
    if (!batch)
      return batch.takeError();
    llvm::SmallVector<HostArray> inputs;
    for (HostArray &p : params)
      inputs.push_back(std::move(p));
    for (HostArray &x : *batch)
      inputs.push_back(std::move(x));
    // The inputs are ours: no copies (results come back as copies).
    llvm::Expected<llvm::SmallVector<HostArray>> results =
        jit->callInPlace("train_step", inputs);
    if (!results)
      return results.takeError();
    params.clear();
    for (size_t i = 0; i < trainStep.params.size(); ++i)
      params.push_back(std::move((*results)[i]));
    loss = meanOverRanks(getScalarValue((*results)[trainStep.params.size()]));
    if (!std::isfinite(loss))
      return fail("the loss is " +
                  Twine(std::isnan(loss) ? "NaN" : "infinite") + " at step " +
                  Twine(step + 1));
    report.reportLoss(step + 1, loss);
    if (options.checkpointEvery > 0 &&
        (step + 1) % options.checkpointEvery == 0)
      if (llvm::Error err = saveCheckpoint(step + 1))
        return err;
    if (hasEval && options.evalEvery > 0 &&
        (step + 1) % options.evalEvery == 0 && step + 1 != options.steps)
      if (llvm::Error err = evalAndLog(step + 1))
        return err;
  }
  if (hasEval)
    if (llvm::Error err = evalAndLog(options.steps))
      return err;
  // --profile: where the training steps' time went (the first rank's).
  if (Profile *profile = jit->getProfile("train_step"); profile && leader)
    profile->print(out, "train_step");
  bool savedLast = options.checkpointEvery > 0 && options.steps > startStep &&
                   options.steps % options.checkpointEvery == 0;
  if (!savedLast)
    if (llvm::Error err = saveCheckpoint(options.steps))
      return err;
  return report.finish(loss, checkpointPath, curvePath, metricName);
}

llvm::Error train::runTrellisTrain(const TrainOptions &options,
                                   llvm::raw_ostream &out) {
  Trainer trainer(options, out);
  return trainer.run();
}
