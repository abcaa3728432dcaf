//===- Convention.h - The training convention of a module -------*- C++ -*-===//
//
// What the driver reads from @train_step and @eval (docs/training.md):
// which arguments are parameters and which are batches (`trellis.batch`),
// how parameters start (`trellis.init`), what the results are (new
// parameters and the loss; `trellis.name`d metrics).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TRAIN_CONVENTION_H
#define TRELLIS_TRAIN_CONVENTION_H

#include "trellis/Runtime/HostArray.h"
#include "trellis/Runtime/Signature.h"
#include "trellis/Train/Random.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace trellis::train {

/// An argument of @train_step or @eval.
struct Argument {
  runtime::BoundaryValue value;
  /// The dataset array it binds to (`trellis.batch`); empty for a parameter.
  std::string batchName;
  /// `trellis.init` of a parameter (empty: the default).
  std::string init;
  /// For an i32 batch argument that reaches the labels of an
  /// nn.cross_entropy (through calls, ad ops and reshapes): the number of
  /// classes, the logits' last dimension (the smallest, if it reaches
  /// several); 0 otherwise. Its data must lie in [0, numClasses).
  int64_t numClasses = 0;
  /// Where numClasses comes from, for errors: "nn.cross_entropy's logits
  /// tensor<32x4xf32> (model.mlir:118:8)".
  std::string classesOrigin;
};

/// A function of the convention: its parameters (the leading arguments),
/// its batch arguments and, for @eval, the names of its metrics.
struct StepFunction {
  std::vector<Argument> params, batch;
  /// `trellis.name` of each result of @eval ("metric<i>" without one).
  std::vector<std::string> resultNames;
  /// The first dimension of the batch arguments (the per-rank batch).
  int64_t batchSize = 0;
};

/// Reads @`name` of `module` as @train_step (`isTrainStep`: returns the new
/// parameters, then a scalar float loss) or as @eval (returns scalar float
/// metrics). A violation is an error naming the function, the argument or
/// result and what was expected.
llvm::Expected<StepFunction>
readStepFunction(mlir::ModuleOp module, llvm::StringRef name, bool isTrainStep);

/// Returns the value of a rank-0 f32 or f64 array (a loss or a metric).
double getScalarValue(const runtime::HostArray &array);

/// Creates a parameter filled per its `trellis.init`: glorot_uniform
/// (default for rank >= 2; fans from the last two dimensions), zeros
/// (default otherwise), ones, or normal:<stddev>, drawing from `rng`.
llvm::Expected<runtime::HostArray> initializeParameter(const Argument &param,
                                                       SplitMix64 &rng);

} // namespace trellis::train

#endif // TRELLIS_TRAIN_CONVENTION_H
