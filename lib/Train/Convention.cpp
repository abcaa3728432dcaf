//===- Convention.cpp - The training convention of a module ---------------===//

#include "trellis/Train/Convention.h"

#include "TrainError.h"
#include "trellis/Dialect/NN/IR/NN.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace trellis;
using namespace trellis::runtime;
using namespace trellis::train;
using llvm::Twine;

/// Returns `loc` as "file.mlir:LINE:COL" (the file's name alone).
static std::string describeLocation(mlir::Location loc) {
  if (auto file = loc->findInstanceOf<mlir::FileLineColLoc>())
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            Twine(file.getLine()) + ":" + Twine(file.getColumn()))
        .str();
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

/// Records in `arg` the fewest classes of the nn.cross_entropy ops whose
/// labels `value` reaches: directly, through reshapes (tensor.collapse_shape,
/// expand_shape, reshape, cast) or as an argument of a callee (func.call
/// and the ad ops, whose leading operands are the callee's arguments).
static void findLabelClasses(mlir::Value value, mlir::ModuleOp module,
                             llvm::DenseSet<mlir::Value> &seen, Argument &arg) {
  if (!seen.insert(value).second)
    return;
  for (mlir::OpOperand &use : value.getUses()) {
    mlir::Operation *user = use.getOwner();
    if (auto xent = llvm::dyn_cast<nn::CrossEntropyOp>(user)) {
      if (use.get() != xent.getLabels())
        continue;
      auto logits =
          llvm::cast<mlir::RankedTensorType>(xent.getLogits().getType());
      int64_t classes = logits.getShape().back();
      if (arg.numClasses && arg.numClasses <= classes)
        continue;
      arg.numClasses = classes;
      std::string type;
      llvm::raw_string_ostream os(type);
      os << logits;
      arg.classesOrigin = "nn.cross_entropy's logits " + type + " (" +
                          describeLocation(xent.getLoc()) + ")";
      continue;
    }
    if (llvm::isa<mlir::tensor::CollapseShapeOp, mlir::tensor::ExpandShapeOp,
                  mlir::tensor::ReshapeOp, mlir::tensor::CastOp>(user)) {
      if (use.getOperandNumber() == 0)
        findLabelClasses(user->getResult(0), module, seen, arg);
      continue;
    }
    auto callee = user->getAttrOfType<mlir::FlatSymbolRefAttr>("callee");
    if (!callee)
      continue;
    auto func = module.lookupSymbol<mlir::func::FuncOp>(callee);
    if (!func || func.isExternal() ||
        use.getOperandNumber() >= func.getNumArguments())
      continue;
    findLabelClasses(func.getArgument(use.getOperandNumber()), module, seen,
                     arg);
  }
}

llvm::Expected<StepFunction>
trellis::train::readStepFunction(mlir::ModuleOp module, llvm::StringRef name,
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
    if (auto batch =
            func->getArgAttrOfType<mlir::StringAttr>(i, "trellis.batch"))
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
        return fail("@" + name + ": batch argument " + Twine(i) + " ('" +
                    arg.batchName + "') has no batch dimension");
      int64_t size = arg.value.shape[0];
      if (step.batchSize && size != step.batchSize)
        return fail("@" + name +
                    ": batch arguments disagree on the batch "
                    "size (" +
                    Twine(step.batchSize) + " and " + Twine(size) + ")");
      step.batchSize = size;
      if (arg.value.dtype == DType::I32) {
        llvm::DenseSet<mlir::Value> seen;
        findLabelClasses(func->getArgument(i), module, seen, arg);
      }
      step.batch.push_back(arg);
    }
  }
  if (step.batch.empty())
    return fail("@" + name +
                " has no batch argument (mark the data "
                "arguments with {trellis.batch = \"<array name>\"})");
  auto scalarFloat = [](const BoundaryValue &v) {
    return v.getRank() == 0 && (v.dtype == DType::F32 || v.dtype == DType::F64);
  };
  if (isTrainStep) {
    size_t p = step.params.size();
    if (signature->results.size() < p + 1)
      return fail("@" + name + " returns " + Twine(signature->results.size()) +
                  " values; the convention "
                  "is the " +
                  Twine(p) + " new parameters, then the loss");
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
    if (signature->results.empty())
      return fail("@" + name + " returns no metrics (scalar tensor<f32> or " +
                  "tensor<f64> results)");
    for (auto [i, result] : llvm::enumerate(signature->results)) {
      if (!scalarFloat(result))
        return fail("@" + name + ": result " + Twine(i) +
                    " must be a metric, " + "tensor<f32> or tensor<f64>, got " +
                    result.typeName);
      auto attr =
          func->getResultAttrOfType<mlir::StringAttr>(i, "trellis.name");
      step.resultNames.push_back(attr ? attr.str()
                                      : ("metric" + Twine(i)).str());
    }
  }
  return step;
}

double trellis::train::getScalarValue(const HostArray &a) {
  return a.getDType() == DType::F64
             ? *reinterpret_cast<const double *>(a.getData())
             : *reinterpret_cast<const float *>(a.getData());
}

llvm::Expected<HostArray>
trellis::train::initializeParameter(const Argument &param, SplitMix64 &rng) {
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
  } else if (init == "he_normal") {
    // Kaiming normal (fan-in, ReLU gain): stddev sqrt(2 / fan_in), fan_in
    // the product of all dimensions but the last (dense KxN: K; conv2d
    // KHxKWxCxF: KH·KW·C).
    if (v.getRank() < 2)
      return fail("he_normal needs a parameter of rank >= 2, got " +
                  v.typeName);
    double fanIn = 1;
    for (int64_t d : llvm::ArrayRef<int64_t>(v.shape).drop_back())
      fanIn *= static_cast<double>(d);
    double stddev = std::sqrt(2.0 / fanIn);
    for (double &x : values)
      x = stddev * rng.normal();
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
                "' (glorot_uniform, he_normal, zeros, ones or normal:<stddev>)");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (v.dtype == DType::F32)
      reinterpret_cast<float *>(array->getData())[i] = values[i];
    else
      reinterpret_cast<double *>(array->getData())[i] = values[i];
  }
  return array;
}
