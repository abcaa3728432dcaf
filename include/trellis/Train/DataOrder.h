//===- DataOrder.h - Which examples each step trains on ---------*- C++ -*-===//
//
// The data order is a pure function of (seed, step): epoch e visits the
// examples in the Fisher–Yates permutation drawn from splitmix64(seed, e),
// global batch k of the epoch is positions [k·G, (k+1)·G) of it (G = ranks ×
// batch, the remainder of an epoch is dropped) and rank r takes the r-th
// slice. A resumed run therefore sees exactly the batches the uninterrupted
// run would have seen, and reproduces its losses bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TRAIN_DATAORDER_H
#define TRELLIS_TRAIN_DATAORDER_H

#include "trellis/Runtime/HostArray.h"
#include "trellis/Runtime/Npz.h"
#include "trellis/Train/Convention.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace trellis::train {

/// The arrays of a dataset that a function's batch arguments bind to, in
/// the order of the arguments.
struct Dataset {
  std::vector<const runtime::HostArray *> arrays;
  /// The number of examples (the arrays' common first dimension).
  int64_t size = 0;
};

/// Binds the batch arguments of `step` to the arrays of `data` they name;
/// an error names the array of `path` that is missing or does not have the
/// argument's rows, or the first label (of an argument with numClasses)
/// outside the classes, with its index.
llvm::Expected<Dataset> bindDataset(const runtime::NamedArrays &data,
                                    const StepFunction &step,
                                    llvm::StringRef path);

/// Returns the examples `rows` of every array of `dataset`, as the tensors
/// of `step`'s batch arguments.
llvm::Expected<llvm::SmallVector<runtime::HostArray>>
gatherBatch(const Dataset &dataset, const StepFunction &step,
            llvm::ArrayRef<int64_t> rows);

/// Returns the order in which epoch `epoch` visits `n` examples.
std::vector<int64_t> getEpochPermutation(uint64_t seed, int64_t epoch,
                                         int64_t n);

/// The examples of this rank's batch at every step.
class BatchOrder {
public:
  BatchOrder(uint64_t seed, int64_t numExamples, int64_t batchSize, int rank,
             int ranks)
      : seed(seed), numExamples(numExamples), batchSize(batchSize), rank(rank),
        globalBatch(batchSize * ranks) {}

  /// Returns the number of global batches per epoch (0 if the dataset is
  /// smaller than one).
  int64_t getBatchesPerEpoch() const { return numExamples / globalBatch; }

  /// Returns the rows of this rank's batch for step `step` (counted from 0).
  /// Needs getBatchesPerEpoch() > 0; the rows stay valid until the next call.
  llvm::ArrayRef<int64_t> getRows(int64_t step);

private:
  uint64_t seed;
  int64_t numExamples, batchSize;
  int rank;
  int64_t globalBatch;
  /// The permutation of epoch `cachedEpoch`.
  int64_t cachedEpoch = -1;
  std::vector<int64_t> order;
};

} // namespace trellis::train

#endif // TRELLIS_TRAIN_DATAORDER_H
