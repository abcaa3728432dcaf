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
#include "trellis/Train/DataSource.h"
#include "trellis/Train/OutputDirectory.h"
#include "trellis/Train/Random.h"
#include "trellis/Train/RankAgreement.h"
#include "trellis/Train/Report.h"
#include "trellis/Train/StopSignals.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
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
  /// Returns the exit code: 0, or 128 + the signal that stopped the run.
  llvm::Expected<int> run();

private:
  llvm::Error loadModule();
  llvm::Error compile();
  llvm::Error initializeOrResume();
  llvm::Error checkRanksAgreeOnOptions() const;
  llvm::Error checkRanksAgreeOnStart() const;
  int failOnEveryRank(llvm::Error err) const;
  llvm::Error saveCheckpoint(int64_t step);
  llvm::Error shardParameters();
  llvm::Expected<llvm::SmallVector<HostArray>> wholeParameters() const;
  llvm::Error checkLoss(int64_t step, double loss,
                        const HostArray &lossArray) const;
  std::string describeKeptCheckpoint() const;
  llvm::Expected<std::vector<double>> evaluate();
  llvm::Expected<std::vector<double>>
  evaluateBatch(llvm::ArrayRef<int64_t> rows);
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
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics{sourceMgr, &context};
  mlir::OwningOpRef<mlir::ModuleOp> module;
  StepFunction trainStep, evalStep;
  std::unique_ptr<JitModule> jit;
  bool hasEval = false;
  NamedArrays trainData, evalData;
  Dataset trainSet, evalSet;
  llvm::SmallVector<HostArray> params;
  /// With --weight-shards: which parameters `params` holds as this rank's
  /// shard (coll::isShardedParameter), and their whole shapes.
  llvm::SmallVector<bool> sharded;
  llvm::SmallVector<llvm::SmallVector<int64_t>> wholeShapes;
  int64_t startStep = 0;
  /// The step of the checkpoint on disk that this run wrote or resumed
  /// from (-1: none).
  int64_t savedStep = -1;
  OutputDirectoryLock directoryLock;
  std::string metricName;
  std::string metricsPath, checkpointPath, curvePath;
  /// Wall time of the JIT compile.
  double compileMs = 0;
};
} // namespace

llvm::Error Trainer::loadModule() {
  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> loaded =
      tools::loadModule(options.modulePath, context, sourceMgr);
  if (!loaded)
    return loaded.takeError();
  module = std::move(*loaded);
  llvm::Expected<StepFunction> step =
      readStepFunction(*module, "train_step", /*isTrainStep=*/true);
  if (!step)
    return step.takeError();
  trainStep = std::move(*step);
  if (options.evalDataPath.empty())
    return llvm::Error::success();
  hasEval = module->lookupSymbol<mlir::func::FuncOp>("eval") != nullptr;
  if (!hasEval)
    return fail("--eval-data is given but '" + options.modulePath +
                "' has no @eval to run on it");
  llvm::Expected<StepFunction> eval =
      readStepFunction(*module, "eval", /*isTrainStep=*/false);
  if (!eval)
    return eval.takeError();
  evalStep = std::move(*eval);
  // @eval takes the parameters @train_step returns.
  if (evalStep.params.size() != trainStep.params.size())
    return fail("@eval takes " + Twine(evalStep.params.size()) +
                " parameters but @train_step " +
                Twine(trainStep.params.size()));
  for (auto [i, evalParam, trainParam] :
       llvm::enumerate(evalStep.params, trainStep.params))
    if (evalParam.value.typeName != trainParam.value.typeName)
      return fail("@eval: parameter " + Twine(i) + " has type " +
                  evalParam.value.typeName + " but @train_step's parameter " +
                  Twine(i) + " has type " + trainParam.value.typeName);
  return llvm::Error::success();
}

llvm::Error Trainer::compile() {
  CompileOptions compileOptions = options.compile;
  if (ranks > 1) {
    // Data parallelism: reduce the gradients of the ad ops across ranks.
    // @eval has none, so it is unchanged.
    bool hasGradients = false;
    module->walk([&](ad::DerivativeOpInterface op) {
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
    compileOptions.gradientReduction->batchNorm = options.batchNorm;
    if (options.bucketBytes >= 0)
      compileOptions.gradientReduction->bucketBytes = options.bucketBytes;
  }
  // Weight shards change the functions' arguments and results, which the
  // JIT reads as the entries' signatures: they are applied to the module
  // itself, before it is compiled.
  if (options.weightShards > 1) {
    mlir::PassManager pm(&context);
    coll::CollShardWeightsOptions shard;
    shard.shards = options.weightShards;
    shard.ranks = ranks;
    pm.addPass(coll::createCollShardWeights(shard));
    if (mlir::failed(pm.run(*module)))
      return fail("coll-shard-weights failed on '" + options.modulePath + "'");
  }
  // One compilation serves @train_step and @eval.
  auto compileStart = std::chrono::steady_clock::now();
  llvm::Expected<std::unique_ptr<JitModule>> compiled =
      JitModule::compileModule(*module, compileOptions);
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
    // Never a rewrite of the checkpoint with fewer steps than it holds
    // (SPEC.md's trainer contract).
    if (options.steps <= startStep)
      return fail("'" + checkpointPath + "' holds step " + Twine(startStep) +
                  "; --resume needs --steps above it, got --steps=" +
                  Twine(options.steps));
    savedStep = startStep;
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

std::string Trainer::describeKeptCheckpoint() const {
  if (savedStep < 0)
    return "no checkpoint was written";
  return ("'" + checkpointPath + "' of step " + Twine(savedStep) + " is kept")
      .str();
}

/// The largest loss magnitude of a run that has not diverged: the square
/// root of the largest number of the loss's type (1.8e19 for f32, 1.3e154
/// for f64). Beyond it the square of the loss overflows, and so do the
/// squared errors, variances and squared gradient norms of the same scale
/// that a step computes: the next steps give infinities and NaNs.
static double getDivergenceBound(const HostArray &lossArray) {
  return lossArray.getDType() == DType::F64
             ? std::sqrt(std::numeric_limits<double>::max())
             : std::sqrt(double(std::numeric_limits<float>::max()));
}

llvm::Error Trainer::checkLoss(int64_t step, double loss,
                               const HostArray &lossArray) const {
  if (!std::isfinite(loss))
    return fail("the loss is " + Twine(std::isnan(loss) ? "NaN" : "infinite") +
                " at step " + Twine(step) + ": the training diverged; " +
                describeKeptCheckpoint());
  double bound = getDivergenceBound(lossArray);
  if (std::abs(loss) > bound)
    return fail("the loss is " + Twine(llvm::formatv("{0:e3}", loss).str()) +
                " at step " + Twine(step) + ", beyond " +
                llvm::formatv("{0:e1}", bound).str() +
                " (the square root of the largest " +
                (lossArray.getDType() == DType::F64 ? "f64" : "f32") +
                "): the training diverged; " + describeKeptCheckpoint());
  return llvm::Error::success();
}

/// Returns an error naming the first parameter (and its first element)
/// that is NaN or infinite after `step` steps, if any.
static llvm::Error checkFiniteParameters(llvm::ArrayRef<HostArray> params,
                                         const StepFunction &trainStep,
                                         int64_t step) {
  for (auto [i, p] : llvm::enumerate(params)) {
    if (p.getDType() != DType::F32 && p.getDType() != DType::F64)
      continue;
    int64_t n = p.getNumElements();
    for (int64_t k = 0; k < n; ++k) {
      double v = p.getDType() == DType::F64
                     ? reinterpret_cast<const double *>(p.getData())[k]
                     : reinterpret_cast<const float *>(p.getData())[k];
      if (!std::isfinite(v))
        return fail("parameter " + Twine(i) + " (" +
                    trainStep.params[i].value.typeName + ") is " +
                    (std::isnan(v) ? "NaN"
                     : v > 0       ? "+inf"
                                   : "-inf") +
                    " at element " + Twine(k) + " after step " + Twine(step));
    }
  }
  return llvm::Error::success();
}

/// Rank r keeps rows [(r mod S)·d0/S, (r mod S + 1)·d0/S) of each sharded
/// parameter: the slice coll-shard-weights returns (its groups are S
/// consecutive ranks).
llvm::Error Trainer::shardParameters() {
  int64_t shards = options.weightShards;
  if (shards == 1)
    return llvm::Error::success();
  auto func = module->lookupSymbol<mlir::func::FuncOp>("train_step");
  int64_t position = rank % shards;
  size_t kept = 0, whole = 0;
  for (auto [i, p] : llvm::enumerate(params)) {
    wholeShapes.emplace_back(p.getShape());
    sharded.push_back(
        coll::isShardedParameter(func.getArgumentTypes()[i], shards));
    whole += p.getByteSize();
    if (!sharded.back()) {
      kept += p.getByteSize();
      continue;
    }
    llvm::SmallVector<int64_t> shape(p.getShape());
    shape[0] /= shards;
    llvm::Expected<HostArray> shard = HostArray::create(p.getDType(), shape);
    if (!shard)
      return shard.takeError();
    size_t bytes = shard->getByteSize();
    std::memcpy(shard->getData(), p.getData() + position * bytes, bytes);
    p = std::move(*shard);
    kept += bytes;
  }
  if (leader)
    out << "weight shards: " << shards << " (groups of " << shards
        << " consecutive ranks); parameter bytes per rank " << kept << " of "
        << whole << "\n";
  return llvm::Error::success();
}

/// With weight shards, the whole parameters from the shards of this rank's
/// group (every rank takes part: a gather over all ranks).
llvm::Expected<llvm::SmallVector<HostArray>> Trainer::wholeParameters() const {
  llvm::SmallVector<HostArray> whole;
  int64_t shards = options.weightShards;
  int64_t first = rank - rank % shards;
  for (auto [i, p] : llvm::enumerate(params)) {
    if (!sharded[i]) {
      whole.push_back(p.clone());
      continue;
    }
    size_t bytes = p.getByteSize();
    std::vector<char> all(bytes * ranks);
    collectives::allGatherBytes(p.getData(), bytes, all.data(),
                                "the parameter shards for a checkpoint "
                                "(trellis-train)");
    llvm::Expected<HostArray> array =
        HostArray::create(p.getDType(), wholeShapes[i]);
    if (!array)
      return array.takeError();
    std::memcpy(array->getData(), all.data() + first * bytes, bytes * shards);
    whole.push_back(std::move(*array));
  }
  return whole;
}

llvm::Error Trainer::saveCheckpoint(int64_t step) {
  // Without shards the parameters are written as they are, not copied.
  llvm::SmallVector<HostArray> gathered;
  if (!sharded.empty()) {
    llvm::Expected<llvm::SmallVector<HostArray>> whole = wholeParameters();
    if (!whole)
      return whole.takeError();
    gathered = std::move(*whole);
  }
  llvm::ArrayRef<HostArray> whole = sharded.empty() ? params : gathered;
  // Every rank holds the same parameters: all of them stop alike.
  if (llvm::Error err = checkFiniteParameters(whole, trainStep, step))
    return fail(llvm::toString(std::move(err)) + ": the training diverged; " +
                describeKeptCheckpoint());
  if (leader)
    if (llvm::Error err =
            writeCheckpoint(checkpointPath, step, options.seed, whole))
      return err;
  savedStep = step;
  return llvm::Error::success();
}

double Trainer::meanOverRanks(double value) const {
  if (ranks == 1)
    return value;
  return collectives::sumOverRanks(
             value, "the loss's mean over the ranks (trellis-train)") /
         ranks;
}

llvm::Expected<std::vector<double>>
Trainer::evaluateBatch(llvm::ArrayRef<int64_t> rows) {
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
  std::vector<double> metrics;
  for (const HostArray &result : *results)
    metrics.push_back(getScalarValue(result));
  return metrics;
}

llvm::Expected<std::vector<double>> Trainer::evaluate() {
  // The metrics are means over a batch's examples: each batch's sums are
  // batch x its means, and the result is their total over the examples.
  std::vector<double> sums(evalStep.resultNames.size(), 0.0);
  int64_t b = evalStep.batchSize, n = evalSet.size;
  int64_t full = n / b, remainder = n % b;
  std::vector<int64_t> rows(b);
  for (int64_t k = 0; k < full; ++k) {
    std::iota(rows.begin(), rows.end(), k * b);
    llvm::Expected<std::vector<double>> means = evaluateBatch(rows);
    if (!means)
      return means.takeError();
    for (size_t i = 0; i < sums.size(); ++i)
      sums[i] += b * (*means)[i];
  }
  if (remainder) {
    // The last `remainder` examples, padded to a batch with copies of the
    // first of them, whose share is then taken out: b copies of it alone
    // give its own metrics.
    int64_t first = full * b;
    std::iota(rows.begin(), rows.begin() + remainder, first);
    std::fill(rows.begin() + remainder, rows.end(), first);
    llvm::Expected<std::vector<double>> padded = evaluateBatch(rows);
    if (!padded)
      return padded.takeError();
    std::fill(rows.begin(), rows.end(), first);
    llvm::Expected<std::vector<double>> copies = evaluateBatch(rows);
    if (!copies)
      return copies.takeError();
    for (size_t i = 0; i < sums.size(); ++i)
      sums[i] += b * (*padded)[i] - (b - remainder) * (*copies)[i];
  }
  for (double &s : sums)
    s /= n;
  return sums;
}

int Trainer::failOnEveryRank(llvm::Error err) const {
  // Every rank has the same error: each prints it, and none ends the job
  // (MPI_Abort) before the others have.
  // One write: the ranks' lines reach mpirun at the same moment.
  llvm::errs() << ("trellis-train: error: " + llvm::toString(std::move(err)) +
                   "\n");
  llvm::errs().flush();
  out.flush();
  collectives::barrier("a failure that every rank reports (trellis-train)");
  return 1;
}

llvm::Error Trainer::checkRanksAgreeOnOptions() const {
  auto showBool = [](uint64_t key) {
    return std::string(key ? "true" : "false");
  };
  AgreedSetting settings[] = {
      {"--steps", uint64_t(options.steps), showNumber},
      {"--seed", options.seed, showNumber},
      {"--reduce", uint64_t(options.reduce),
       [](uint64_t key) {
         return coll::stringifyGradientReduction(coll::GradientReduction(key))
             .str();
       }},
      {"--batch-norm", uint64_t(options.batchNorm),
       [](uint64_t key) {
         return coll::stringifyBatchNormStatistics(
                    coll::BatchNormStatistics(key))
             .str();
       }},
      {"--resume", options.resume, showBool},
      {"--weight-shards", uint64_t(options.weightShards), showNumber},
      {"--bucket-bytes", uint64_t(options.bucketBytes),
       [](uint64_t key) { return std::to_string(int64_t(key)); }},
      {"--check-collectives", options.compile.checkCollectives, showBool},
  };
  return checkRanksAgree(settings, rank, ranks);
}

llvm::Error Trainer::checkRanksAgreeOnStart() const {
  // One hash of every parameter's bytes: ranks resumed from different
  // checkpoints (each rank reads its own --output-dir) start apart.
  llvm::SmallVector<uint64_t> hashes;
  for (const HostArray &p : params)
    hashes.push_back(llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(p.getData()), p.getByteSize())));
  uint64_t hash = llvm::xxh3_64bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(hashes.data()),
                              hashes.size() * sizeof(uint64_t)));
  auto showHash = [](uint64_t key) {
    return llvm::formatv("{0:x16}", key).str();
  };
  AgreedSetting settings[] = {
      {"the number of training examples", uint64_t(trainSet.size), showNumber},
      {"the step they start from", uint64_t(startStep), showNumber},
      {"the parameters they start from (a hash of their bytes)", hash,
       showHash},
  };
  return checkRanksAgree(settings, rank, ranks);
}

llvm::Expected<int> Trainer::run() {
  ranks = static_cast<int>(options.launchedRanks);
  if (ranks > 1) {
    trellis_coll_init();
    rank = collectives::getWorldRank();
    ranks = collectives::getWorldSize();
  }
  leader = rank == 0;
  if (!options.commandLineError.empty() && ranks == 1)
    return fail(options.commandLineError);
  // Before anything else: the options of a rank whose command line did not
  // parse are the defaults.
  if (ranks > 1) {
    if (llvm::Error err =
            checkCommandLinesParsed(options.commandLineError, rank, ranks))
      return failOnEveryRank(std::move(err));
    if (llvm::Error err = checkRanksAgreeOnOptions())
      return failOnEveryRank(std::move(err));
  }
  // After MPI's own set-up, which must not replace them.
  installStopHandlers();
  if (options.steps < 0)
    return fail("--steps must not be negative");
  for (auto [flag, value] : {std::pair{"checkpoint-every",
                                       options.checkpointEvery},
                             {"eval-every", options.evalEvery},
                             {"log-every", options.logEvery}})
    if (value < 0)
      return fail("--" + Twine(flag) + " must not be negative, got " +
                  Twine(value));
  if (options.bucketBytes < -1)
    return fail("--bucket-bytes must be -1 (no buckets), 0 or positive, got " +
                Twine(options.bucketBytes));
  if (options.weightShards < 1 || ranks % options.weightShards != 0)
    return fail("--weight-shards=" + Twine(options.weightShards) +
                " must be at least 1 and divide the number of ranks (" +
                Twine(ranks) + ")");
  if (options.outputDir.empty())
    return fail("--output-dir is required (checkpoint, metrics, curve)");
  if (std::error_code ec = llvm::sys::fs::create_directories(options.outputDir))
    return fail("cannot create '" + options.outputDir + "': " + ec.message());
  // Only rank 0 writes (and locks): the ranks of one job share the
  // directory, another job's rank 0 or another trainer is turned away.
  if (leader) {
    if (llvm::Error err = directoryLock.lock(options.outputDir))
      return std::move(err);
    if (int removed = removeStaleTemporaries(options.outputDir))
      out << "removed " << removed << " temporary file"
          << (removed == 1 ? "" : "s") << " of an interrupted run from '"
          << options.outputDir << "'\n";
  }
  checkpointPath = (options.outputDir + "/checkpoint.npz");
  metricsPath = (options.outputDir + "/metrics.jsonl");
  curvePath = (options.outputDir + "/curve.svg");

  llvm::Expected<NamedArrays> data = readDataSource(options.dataPath);
  if (!data)
    return data.takeError();
  trainData = std::move(*data);
  // The module, the data and the parameters are checked before the compile
  // (seconds for a large model), @eval's too: nothing is found only after
  // the run.
  if (llvm::Error err = loadModule())
    return std::move(err);
  llvm::Expected<Dataset> bound =
      bindDataset(trainData, trainStep, options.dataPath);
  if (!bound)
    return bound.takeError();
  trainSet = *bound;
  if (hasEval) {
    llvm::Expected<NamedArrays> eval = readDataSource(options.evalDataPath);
    if (!eval)
      return eval.takeError();
    evalData = std::move(*eval);
    llvm::Expected<Dataset> evalBound =
        bindDataset(evalData, evalStep, options.evalDataPath);
    if (!evalBound)
      return evalBound.takeError();
    evalSet = *evalBound;
    if (evalSet.size == 0)
      return fail("'" + options.evalDataPath + "' has no examples");
    metricName = evalStep.resultNames[0];
  }
  if (llvm::Error err = initializeOrResume())
    return std::move(err);
  if (ranks > 1)
    if (llvm::Error err = checkRanksAgreeOnStart())
      return failOnEveryRank(std::move(err));
  if (llvm::Error err = shardParameters())
    return std::move(err);
  if (llvm::Error err = compile())
    return std::move(err);

  BatchOrder order(options.seed, trainSet.size, trainStep.batchSize, rank,
                   ranks);
  if (order.getBatchesPerEpoch() == 0)
    return fail("'" + options.dataPath + "' has " + Twine(trainSet.size) +
                " examples, fewer than one global batch (" + Twine(ranks) +
                " ranks x " + Twine(trainStep.batchSize) + ")");

  TrainingReport report(out, leader, ranks, options.steps, options.logEvery);
  if (llvm::Error err = report.openMetrics(metricsPath, savedStep, metricName))
    return std::move(err);
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
    return report.reportEval(step, evalStep.resultNames, *values);
  };

  double loss = 0;
  int64_t lastStep = startStep;
  int stopSignal = 0;
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
    llvm::Expected<llvm::SmallVector<HostArray>> results = [&] {
      StopSignalsDeferred deferred;
      return jit->callInPlace("train_step", inputs);
    }();
    if (!results)
      return results.takeError();
    params.clear();
    for (size_t i = 0; i < trainStep.params.size(); ++i)
      params.push_back(std::move((*results)[i]));
    const HostArray &lossArray = (*results)[trainStep.params.size()];
    loss = meanOverRanks(getScalarValue(lossArray));
    if (llvm::Error err = checkLoss(step + 1, loss, lossArray))
      return std::move(err);
    // Every step, so that all ranks stop after the same one.
    stopSignal = agreeOnStopSignal(ranks);
    if (llvm::Error err = report.reportLoss(step + 1, loss))
      return std::move(err);
    lastStep = step + 1;
    if (stopSignal)
      break;
    if (options.checkpointEvery > 0 &&
        (step + 1) % options.checkpointEvery == 0)
      if (llvm::Error err = saveCheckpoint(step + 1))
        return std::move(err);
    if (hasEval && options.evalEvery > 0 &&
        (step + 1) % options.evalEvery == 0 && step + 1 != options.steps)
      if (llvm::Error err = evalAndLog(step + 1))
        return std::move(err);
  }
  // A run stopped by a signal ends soon: no final evaluation.
  if (hasEval && !stopSignal)
    if (llvm::Error err = evalAndLog(options.steps))
      return std::move(err);
  // --profile: where the training steps' time went (the first rank's).
  if (Profile *profile = jit->getProfile("train_step"); profile && leader)
    profile->print(out, "train_step");
  if (savedStep != lastStep)
    if (llvm::Error err = saveCheckpoint(lastStep))
      return std::move(err);
  if (stopSignal)
    report.reportStop(lastStep, getStopSignalName(stopSignal));
  if (llvm::Error err =
          report.finish(loss, checkpointPath, curvePath, metricName))
    return std::move(err);
  if (!stopSignal)
    return 0;
  // The caller ends the process without MPI_Finalize: not before rank 0
  // has written everything.
  out.flush();
  if (ranks > 1)
    collectives::barrier("the end of a run stopped by a signal "
                         "(trellis-train)");
  return 128 + stopSignal;
}

llvm::Expected<int> train::runTrellisTrain(const TrainOptions &options,
                                           llvm::raw_ostream &out) {
  Trainer trainer(options, out);
  return trainer.run();
}
