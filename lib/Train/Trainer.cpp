//===- Trainer.cpp - The training driver behind trellis-train -------------===//
//
// Data order is a pure function of (seed, step): epoch e visits the examples
// in the Fisher–Yates permutation drawn from splitmix64(seed, e), global
// batch k of the epoch is positions [k·G, (k+1)·G) of it (G = ranks × batch,
// the remainder of an epoch is dropped) and rank r takes the r-th slice. A
// resumed run therefore sees exactly the batches the uninterrupted run would
// have seen, and reproduces its losses bit for bit.
//
//===----------------------------------------------------------------------===//

#include "trellis/Train/Trainer.h"

#include "trellis/Dialect/Coll/Transforms/Passes.h"
#include "trellis/ExecutionEngine/CollectivesRuntime.h"
#include "trellis/InitAll.h"
#include "trellis/Runtime/Jit.h"
#include "trellis/Runtime/Npz.h"
#include "trellis/Runtime/Rank.h"
#include "trellis/Runtime/Runner.h"
#include "trellis/Runtime/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

using namespace trellis;
using namespace trellis::runtime;
using llvm::Twine;

static llvm::Error fail(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Random numbers (identical on every platform and rank)
//===----------------------------------------------------------------------===//

namespace {
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return (next() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n).
  uint64_t below(uint64_t n) { return next() % n; }
  double normal() {
    double u = uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(1.0 - u)) * std::cos(2 * M_PI * v);
  }
};
} // namespace

static std::vector<int64_t> permutation(uint64_t seed, int64_t epoch,
                                        int64_t n) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  SplitMix64 rng{seed * 0x100000001b3ull + static_cast<uint64_t>(epoch)};
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(order[i], order[rng.below(i + 1)]);
  return order;
}

//===----------------------------------------------------------------------===//
// The convention
//===----------------------------------------------------------------------===//

namespace {
struct Argument {
  BoundaryValue value;
  std::string batchName; // empty for a parameter
  std::string init;      // trellis.init of a parameter
};

struct StepFunction {
  std::vector<Argument> params, batch;
  std::vector<std::string> resultNames;
  int64_t batchSize = 0;
};
} // namespace

static llvm::Expected<StepFunction> readConvention(mlir::ModuleOp module,
                                                   llvm::StringRef name,
                                                   bool isTrainStep) {
  llvm::Expected<mlir::func::FuncOp> func = lookupEntryFunction(module, name);
  if (!func)
    return func.takeError();
  llvm::Expected<EntrySignature> signature = getEntrySignature(*func);
  if (!signature)
    return signature.takeError();
  StepFunction step;
  for (unsigned i = 0; i < func->getNumArguments(); ++i) {
    Argument arg{signature->args[i], "", ""};
    if (auto batch = func->getArgAttrOfType<mlir::StringAttr>(i, "trellis.batch"))
      arg.batchName = batch.str();
    if (auto init = func->getArgAttrOfType<mlir::StringAttr>(i, "trellis.init"))
      arg.init = init.str();
    if (arg.value.isScalar)
      return fail("@" + name + ": argument " + Twine(i) +
                  " is a scalar; the convention passes tensors only");
    if (arg.batchName.empty()) {
      if (!step.batch.empty())
        return fail("@" + name + ": parameter argument " + Twine(i) +
                    " follows a batch argument; parameters come first");
      step.params.push_back(arg);
    } else {
      if (arg.value.getRank() == 0)
        return fail("@" + name + ": batch argument " + Twine(i) +
                    " ('" + arg.batchName + "') has no batch dimension");
      int64_t size = arg.value.shape[0];
      if (step.batchSize && size != step.batchSize)
        return fail("@" + name + ": batch arguments disagree on the batch "
                    "size (" + Twine(step.batchSize) + " and " + Twine(size) +
                    ")");
      step.batchSize = size;
      step.batch.push_back(arg);
    }
  }
  if (step.batch.empty())
    return fail("@" + name + " has no batch argument (mark the data "
                "arguments with {trellis.batch = \"<array name>\"})");
  auto scalarFloat = [](const BoundaryValue &v) {
    return v.getRank() == 0 && (v.dtype == DType::F32 || v.dtype == DType::F64);
  };
  if (isTrainStep) {
    size_t p = step.params.size();
    if (signature->results.size() < p + 1)
      return fail("@" + name + " returns " +
                  Twine(signature->results.size()) + " values; the convention "
                  "is the " + Twine(p) + " new parameters, then the loss");
    for (size_t i = 0; i < p; ++i)
      if (signature->results[i].typeName != step.params[i].value.typeName)
        return fail("@" + name + ": result " + Twine(i) + " has type " +
                    signature->results[i].typeName + " but parameter " +
                    Twine(i) + " has type " + step.params[i].value.typeName);
    if (!scalarFloat(signature->results[p]))
      return fail("@" + name + ": result " + Twine(p) + " (the loss) must be " +
                  "tensor<f32> or tensor<f64>, got " +
                  signature->results[p].typeName);
  } else {
    for (auto [i, result] : llvm::enumerate(signature->results)) {
      if (!scalarFloat(result))
        return fail("@" + name + ": result " + Twine(i) + " must be a metric, " +
                    "tensor<f32> or tensor<f64>, got " + result.typeName);
      auto attr = func->getResultAttrOfType<mlir::StringAttr>(i, "trellis.name");
      step.resultNames.push_back(attr ? attr.str() : ("metric" + Twine(i)).str());
    }
  }
  return step;
}

static double scalarValue(const HostArray &a) {
  return a.getDType() == DType::F64
             ? *reinterpret_cast<const double *>(a.getData())
             : *reinterpret_cast<const float *>(a.getData());
}

/// Fills a new parameter per its `trellis.init`: glorot_uniform (default
/// for rank >= 2; fans from the last two dimensions), zeros (default
/// otherwise), ones, or normal:<stddev>.
static llvm::Expected<HostArray> initialize(const Argument &param,
                                            SplitMix64 &rng) {
  const BoundaryValue &v = param.value;
  if (v.dtype != DType::F32 && v.dtype != DType::F64)
    return fail("parameter " + v.typeName + " is not a float tensor");
  llvm::Expected<HostArray> array = HostArray::create(v.dtype, v.shape);
  if (!array)
    return array.takeError();
  std::string init = param.init.empty()
                         ? (v.getRank() >= 2 ? "glorot_uniform" : "zeros")
                         : param.init;
  int64_t n = array->getNumElements();
  std::vector<double> values(n, 0.0);
  if (init == "glorot_uniform") {
    if (v.getRank() < 2)
      return fail("glorot_uniform needs a parameter of rank >= 2, got " +
                  v.typeName);
    double fanIn = v.shape[v.getRank() - 2], fanOut = v.shape.back();
    double limit = std::sqrt(6.0 / (fanIn + fanOut));
    for (double &x : values)
      x = (2 * rng.uniform() - 1) * limit;
  } else if (init == "ones") {
    std::fill(values.begin(), values.end(), 1.0);
  } else if (llvm::StringRef(init).starts_with("normal:")) {
    double stddev;
    if (llvm::StringRef(init).drop_front(7).getAsDouble(stddev))
      return fail("bad trellis.init '" + init + "' (expected normal:<stddev>)");
    for (double &x : values)
      x = stddev * rng.normal();
  } else if (init != "zeros") {
    return fail("unknown trellis.init '" + init +
                "' (glorot_uniform, zeros, ones or normal:<stddev>)");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (v.dtype == DType::F32)
      reinterpret_cast<float *>(array->getData())[i] = values[i];
    else
      reinterpret_cast<double *>(array->getData())[i] = values[i];
  }
  return array;
}

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

namespace {
/// The dataset's arrays a function's batch arguments bind to.
struct Dataset {
  std::vector<const HostArray *> arrays;
  int64_t size = 0;
};
} // namespace

static llvm::Expected<Dataset> bindDataset(const NamedArrays &data,
                                           const StepFunction &step,
                                           llvm::StringRef path) {
  Dataset dataset;
  for (const Argument &arg : step.batch) {
    auto it = llvm::find_if(data, [&](const auto &named) {
      return named.first == arg.batchName;
    });
    if (it == data.end())
      return fail("'" + path + "' has no array '" + arg.batchName + "'");
    const HostArray &array = it->second;
    llvm::ArrayRef<int64_t> want = arg.value.shape, got = array.getShape();
    if (array.getDType() != arg.value.dtype || got.size() != want.size() ||
        got.drop_front() != want.drop_front())
      return fail("array '" + arg.batchName + "' of '" + path + "' must be " +
                  "N examples of " + arg.value.typeName +
                  "'s rows, got a " + [&] {
                    std::string s;
                    llvm::raw_string_ostream os(s);
                    array.printTypeAndShape(os);
                    return s;
                  }());
    if (dataset.size && got[0] != dataset.size)
      return fail("arrays of '" + path + "' disagree on the number of examples");
    dataset.size = got[0];
    dataset.arrays.push_back(&array);
  }
  return dataset;
}

/// The rows `rows` of every array, as the batch arguments' tensors.
static llvm::Expected<llvm::SmallVector<HostArray>>
gather(const Dataset &dataset, const StepFunction &step,
       llvm::ArrayRef<int64_t> rows) {
  llvm::SmallVector<HostArray> out;
  for (auto [arg, array] : llvm::zip(step.batch, dataset.arrays)) {
    llvm::Expected<HostArray> batch =
        HostArray::create(arg.value.dtype, arg.value.shape);
    if (!batch)
      return batch.takeError();
    size_t rowBytes = batch->getByteSize() / rows.size();
    for (auto [i, row] : llvm::enumerate(rows))
      std::memcpy(batch->getData() + i * rowBytes,
                  array->getData() + row * rowBytes, rowBytes);
    out.push_back(std::move(*batch));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Output: progress, metrics, curve
//===----------------------------------------------------------------------===//

static std::string formatDuration(double seconds) {
  int64_t s = static_cast<int64_t>(seconds + 0.5);
  return llvm::formatv("{0:2}:{1:2}:{2:2}", s / 3600, s / 60 % 60, s % 60).str();
}

/// A loss curve (and eval metrics in [0, 1] on a second axis) as SVG.
static llvm::Error writeCurve(llvm::StringRef path,
                              llvm::ArrayRef<std::pair<int64_t, double>> losses,
                              llvm::ArrayRef<std::pair<int64_t, double>> metric,
                              llvm::StringRef metricName) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return fail("cannot write '" + path + "': " + ec.message());
  const double W = 640, H = 400, L = 60, R = 60, T = 30, B = 40;
  double maxStep = 1, maxLoss = 1e-12, minLoss = 0;
  for (auto [s, l] : losses) {
    maxStep = std::max(maxStep, double(s));
    if (std::isfinite(l))
      maxLoss = std::max(maxLoss, l);
  }
  auto x = [&](double s) { return L + (W - L - R) * s / maxStep; };
  auto y = [&](double v, double lo, double hi) {
    return H - B - (H - T - B) * (v - lo) / (hi - lo);
  };
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
     << "\" height=\"" << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << llvm::format("<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
                     "stroke=\"black\"/>\n", L, H - B, W - R, H - B)
     << llvm::format("<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
                     "stroke=\"black\"/>\n", L, T, L, H - B)
     << llvm::format("<text x=\"%g\" y=\"%g\">step (0 … %lld)</text>\n",
                     W / 2 - 40, H - 10, static_cast<long long>(maxStep))
     << llvm::format("<text x=\"5\" y=\"%g\" fill=\"steelblue\">loss</text>\n",
                     T - 10)
     << llvm::format("<text x=\"5\" y=\"%g\">%.3g</text>\n", T + 4, maxLoss)
     << llvm::format("<text x=\"5\" y=\"%g\">0</text>\n", H - B);
  os << "<polyline fill=\"none\" stroke=\"steelblue\" stroke-width=\"1.5\" "
        "points=\"";
  for (auto [s, l] : losses)
    if (std::isfinite(l))
      os << llvm::format("%.1f,%.1f ", x(s), y(l, minLoss, maxLoss));
  os << "\"/>\n";
  if (!metric.empty()) {
    os << llvm::format("<text x=\"%g\" y=\"%g\" fill=\"darkorange\">%s "
                       "(0 … 1)</text>\n",
                       W - R - 60, T - 10, metricName.str().c_str());
    os << "<polyline fill=\"none\" stroke=\"darkorange\" stroke-width=\"1.5\" "
          "points=\"";
    for (auto [s, m] : metric)
      os << llvm::format("%.1f,%.1f ", x(s), y(m, 0, 1));
    os << "\"/>\n";
  }
  os << "</svg>\n";
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

namespace {
class Trainer {
public:
  Trainer(const train::TrainOptions &options, llvm::raw_ostream &out)
      : options(options), out(out) {}
  llvm::Error run();

private:
  llvm::Error compile();
  llvm::Error initializeOrResume();
  llvm::Error writeCheckpoint(int64_t step);
  llvm::Expected<std::vector<double>> evaluate();
  double meanOverRanks(double value) const;
  void progress(int64_t step, double loss, bool last);

  const train::TrainOptions &options;
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
  std::vector<std::pair<int64_t, double>> losses, metricCurve;
  std::string metricName;
  std::chrono::steady_clock::time_point started;
  std::string metricsPath, checkpointPath, curvePath;
};
} // namespace

llvm::Error Trainer::compile() {
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> module =
      loadModule(options.modulePath, context, sourceMgr);
  if (!module)
    return module.takeError();
  llvm::Expected<StepFunction> step =
      readConvention(**module, "train_step", /*isTrainStep=*/true);
  if (!step)
    return step.takeError();
  trainStep = std::move(*step);
  hasEval = !options.evalDataPath.empty() &&
            (*module)->lookupSymbol<mlir::func::FuncOp>("eval") != nullptr;
  if (hasEval) {
    llvm::Expected<StepFunction> eval =
        readConvention(**module, "eval", /*isTrainStep=*/false);
    if (!eval)
      return eval.takeError();
    evalStep = std::move(*eval);
    if (evalStep.params.size() != trainStep.params.size())
      return fail("@eval takes " + Twine(evalStep.params.size()) +
                  " parameters but @train_step " +
                  Twine(trainStep.params.size()));
  }
  if (ranks > 1) {
    // Data parallelism: reduce the gradients of the ad ops across ranks.
    // @eval has none, so it is unchanged.
    bool hasGradients = false;
    (*module)->walk([&](mlir::Operation *op) {
      hasGradients |= op->getName().getStringRef() == "ad.grad" ||
                      op->getName().getStringRef() == "ad.value_and_grad";
    });
    if (!hasGradients)
      return fail("'" + options.modulePath + "' has no ad.grad or "
                  "ad.value_and_grad whose gradients could be reduced "
                  "across the " + Twine(ranks) + " ranks");
    mlir::PassManager pm(&context);
    coll::CollAverageGradientsOptions reduceOptions;
    reduceOptions.reduce = options.reduce;
    pm.addPass(coll::createCollAverageGradients(reduceOptions));
    if (mlir::failed(pm.run(**module)))
      return fail("coll-average-gradients{reduce=" + options.reduce +
                  "} failed");
  }
  // One compilation serves @train_step and @eval.
  JitOptions jitOptions;
  jitOptions.optLevel = options.optLevel;
  jitOptions.lowering = options.lowering;
  llvm::Expected<std::unique_ptr<JitModule>> compiled =
      JitModule::compileModule(**module, jitOptions);
  if (!compiled)
    return compiled.takeError();
  jit = std::move(*compiled);
  for (llvm::StringRef name : {"train_step", "eval"})
    if ((name == "train_step" || hasEval) && !jit->lookupSignature(name))
      return fail("@" + name + " cannot be called: " +
                  jit->getSkipReason(name));
  return llvm::Error::success();
}

llvm::Error Trainer::initializeOrResume() {
  if (options.resume && llvm::sys::fs::exists(checkpointPath)) {
    llvm::Expected<NamedArrays> checkpoint = readNpz(checkpointPath);
    if (!checkpoint)
      return checkpoint.takeError();
    std::map<std::string, HostArray *> byName;
    for (auto &[name, array] : *checkpoint)
      byName[name] = &array;
    if (!byName.count("step") || byName["step"]->getDType() != DType::I64 ||
        !byName.count("seed") || byName["seed"]->getDType() != DType::I64)
      return fail("'" + checkpointPath + "' is not a trellis-train checkpoint "
                  "(no int64 'step' and 'seed')");
    startStep = *reinterpret_cast<int64_t *>(byName["step"]->getData());
    uint64_t seed = *reinterpret_cast<uint64_t *>(byName["seed"]->getData());
    if (seed != options.seed)
      return fail("'" + checkpointPath + "' was written with --seed=" +
                  Twine(seed) + "; resume with the same seed");
    for (auto [i, param] : llvm::enumerate(trainStep.params)) {
      std::string name = ("param" + Twine(i)).str();
      if (!byName.count(name))
        return fail("'" + checkpointPath + "' has no '" + name + "'");
      if (llvm::Error err = checkBinding(param.value, *byName[name]))
        return fail("'" + checkpointPath + "' " + name + ": " +
                    llvm::toString(std::move(err)));
      params.push_back(byName[name]->clone());
    }
    if (leader)
      out << "resuming from " << checkpointPath << " at step " << startStep
          << "\n";
    return llvm::Error::success();
  }
  SplitMix64 rng{options.seed ^ 0x5eed5eed5eedull};
  for (const Argument &param : trainStep.params) {
    llvm::Expected<HostArray> array = initialize(param, rng);
    if (!array)
      return array.takeError();
    params.push_back(std::move(*array));
  }
  return llvm::Error::success();
}

llvm::Error Trainer::writeCheckpoint(int64_t step) {
  if (!leader)
    return llvm::Error::success();
  llvm::Expected<HostArray> stepArray = HostArray::create(DType::I64, {});
  llvm::Expected<HostArray> seedArray = HostArray::create(DType::I64, {});
  if (!stepArray || !seedArray)
    return fail("out of memory");
  *reinterpret_cast<int64_t *>(stepArray->getData()) = step;
  *reinterpret_cast<uint64_t *>(seedArray->getData()) = options.seed;
  std::vector<std::string> names;
  for (size_t i = 0; i < params.size(); ++i)
    names.push_back(("param" + Twine(i)).str());
  std::vector<std::pair<std::string, const HostArray *>> arrays;
  for (size_t i = 0; i < params.size(); ++i)
    arrays.push_back({names[i], &params[i]});
  arrays.push_back({"step", &*stepArray});
  arrays.push_back({"seed", &*seedArray});
  return writeNpzAtomically(checkpointPath, arrays);
}

double Trainer::meanOverRanks(double value) const {
  if (ranks == 1)
    return value;
  double sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum / ranks;
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
        gather(evalSet, evalStep, rows);
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
      sums[i] += scalarValue((*results)[i]);
  }
  for (double &s : sums)
    s /= batches;
  return sums;
}

void Trainer::progress(int64_t step, double loss, bool last) {
  if (!leader)
    return;
  double elapsed = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - started)
                       .count();
  int64_t done = step - startStep;
  double rate = elapsed > 0 ? done / elapsed : 0;
  double eta = rate > 0 ? (options.steps - step) / rate : 0;
  // Under mpirun a rank's stdout may be a pseudo-terminal of the launcher
  // whatever the user's is: plain lines there.
  if (ranks == 1 && llvm::sys::Process::StandardOutIsDisplayed()) {
    int width = 30;
    int filled = static_cast<int>(width * step / std::max<int64_t>(1, options.steps));
    out << "\r[" << std::string(filled, '#') << std::string(width - filled, '.')
        << "] "
        << llvm::format("step %lld/%lld  %.2f steps/s  loss %.4f  ETA %s",
                        static_cast<long long>(step),
                        static_cast<long long>(options.steps), rate, loss,
                        formatDuration(eta).c_str());
    if (last)
      out << "\n";
    out.flush();
    return;
  }
  int64_t every = options.logEvery > 0
                      ? options.logEvery
                      : std::max<int64_t>(1, options.steps / 20);
  if (last || step % every == 0)
    out << llvm::format("step %lld/%lld  %.2f steps/s  loss %.4f  ETA %s\n",
                        static_cast<long long>(step),
                        static_cast<long long>(options.steps), rate, loss,
                        formatDuration(eta).c_str());
}

llvm::Error Trainer::run() {
  ranks = static_cast<int>(getMpiWorldSizeFromEnvironment());
  if (ranks > 1) {
    trellis_coll_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ranks = size;
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

  int64_t global = trainStep.batchSize * ranks;
  int64_t perEpoch = trainSet.size / global;
  if (perEpoch == 0)
    return fail("'" + options.dataPath + "' has " + Twine(trainSet.size) +
                " examples, fewer than one global batch (" + Twine(ranks) +
                " ranks x " + Twine(trainStep.batchSize) + ")");

  std::error_code ec;
  llvm::raw_fd_ostream metrics(leader ? metricsPath : "/dev/null", ec,
                               options.resume ? llvm::sys::fs::OF_Append
                                              : llvm::sys::fs::OF_None);
  if (ec)
    return fail("cannot write '" + metricsPath + "': " + ec.message());
  if (leader)
    out << "training @train_step of " << options.modulePath << ": "
        << trainStep.params.size() << " parameter tensors, batch "
        << trainStep.batchSize << " x " << ranks << " rank(s)"
        << (ranks > 1 ? " (" + options.reduce + ")" : std::string()) << ", "
        << trainSet.size << " examples, steps " << startStep << ".."
        << options.steps << "\n";

  // Ranks finish compiling at different times; time the steps only.
  if (ranks > 1)
    MPI_Barrier(MPI_COMM_WORLD);
  started = std::chrono::steady_clock::now();
  int64_t cachedEpoch = -1;
  std::vector<int64_t> order;
  auto evalAndLog = [&](int64_t step) -> llvm::Error {
    llvm::Expected<std::vector<double>> values = evaluate();
    if (!values)
      return values.takeError();
    if (!values->empty())
      metricCurve.push_back({step, (*values)[0]});
    if (leader) {
      metrics << "{\"step\": " << step << ", \"eval\": {";
      out << "eval at step " << step << ":";
      for (auto [i, v] : llvm::enumerate(*values)) {
        metrics << (i ? ", " : "") << "\"" << evalStep.resultNames[i]
                << "\": " << llvm::format("%.6g", v);
        out << " " << evalStep.resultNames[i] << " "
            << llvm::format("%.4f", v);
      }
      metrics << "}}\n";
      metrics.flush();
      out << "\n";
    }
    return llvm::Error::success();
  };

  double loss = 0;
  for (int64_t step = startStep; step < options.steps; ++step) {
    int64_t epoch = step / perEpoch, k = step % perEpoch;
    if (epoch != cachedEpoch) {
      order = permutation(options.seed, epoch, trainSet.size);
      cachedEpoch = epoch;
    }
    llvm::ArrayRef<int64_t> rows(order.data() + k * global +
                                     rank * trainStep.batchSize,
                                 trainStep.batchSize);
    llvm::Expected<llvm::SmallVector<HostArray>> batch =
        gather(trainSet, trainStep, rows);
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
    loss = meanOverRanks(scalarValue((*results)[trainStep.params.size()]));
    if (!std::isfinite(loss))
      return fail("the loss is " + Twine(std::isnan(loss) ? "NaN" : "infinite") +
                  " at step " + Twine(step + 1));
    losses.push_back({step + 1, loss});
    if (leader) {
      metrics << "{\"step\": " << step + 1 << ", \"loss\": "
              << llvm::format("%.8g", loss) << "}\n";
      metrics.flush();
    }
    progress(step + 1, loss, step + 1 == options.steps);
    if (options.checkpointEvery > 0 && (step + 1) % options.checkpointEvery == 0)
      if (llvm::Error err = writeCheckpoint(step + 1))
        return err;
    if (hasEval && options.evalEvery > 0 && (step + 1) % options.evalEvery == 0 &&
        step + 1 != options.steps)
      if (llvm::Error err = evalAndLog(step + 1))
        return err;
  }
  if (hasEval)
    if (llvm::Error err = evalAndLog(options.steps))
      return err;
  bool savedLast = options.checkpointEvery > 0 && options.steps > startStep &&
                   options.steps % options.checkpointEvery == 0;
  if (!savedLast)
    if (llvm::Error err = writeCheckpoint(options.steps))
      return err;
  if (leader) {
    if (llvm::Error err = writeCurve(curvePath, losses, metricCurve, metricName))
      return err;
    out << "final loss " << llvm::format("%.4f", loss) << "\n"
        << "checkpoint: " << checkpointPath << "\nmetrics:    " << metricsPath
        << "\ncurve:      " << curvePath << "\n";
    out.flush();
  }
  return llvm::Error::success();
}

llvm::Error train::runTrellisTrain(const TrainOptions &options,
                                   llvm::raw_ostream &out) {
  Trainer trainer(options, out);
  return trainer.run();
}
