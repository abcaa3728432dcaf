//===- DataOrder.cpp - Which examples each step trains on -----------------===//

#include "trellis/Train/DataOrder.h"

#include "TrainError.h"
#include "trellis/Train/Random.h"

#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <numeric>

using namespace trellis;
using namespace trellis::runtime;
using namespace trellis::train;

std::vector<int64_t>
trellis::train::getEpochPermutation(uint64_t seed, int64_t epoch, int64_t n) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  SplitMix64 rng{seed * 0x100000001b3ull + static_cast<uint64_t>(epoch)};
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(order[i], order[rng.below(i + 1)]);
  return order;
}

llvm::ArrayRef<int64_t> BatchOrder::getRows(int64_t step) {
  int64_t perEpoch = getBatchesPerEpoch();
  int64_t epoch = step / perEpoch, k = step % perEpoch;
  if (epoch != cachedEpoch) {
    order = getEpochPermutation(seed, epoch, numExamples);
    cachedEpoch = epoch;
  }
  return llvm::ArrayRef<int64_t>(
      order.data() + k * globalBatch + rank * batchSize, batchSize);
}

/// Returns an error naming the first element of `array` (the labels of
/// `arg`, of `path`) outside [0, arg.numClasses), if any.
static llvm::Error checkLabels(const HostArray &array, const Argument &arg,
                               llvm::StringRef path) {
  const auto *labels = reinterpret_cast<const int32_t *>(array.getData());
  int64_t n = array.getNumElements();
  for (int64_t k = 0; k < n; ++k) {
    if (labels[k] >= 0 && labels[k] < arg.numClasses)
      continue;
    // The element's index, as NumPy writes it: 17, or (17, 3).
    llvm::ArrayRef<int64_t> shape = array.getShape();
    llvm::SmallVector<int64_t> index(shape.size());
    for (int64_t d = shape.size() - 1, rest = k; d >= 0; --d) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    std::string where;
    llvm::raw_string_ostream os(where);
    if (index.size() == 1)
      os << index[0];
    else
      os << "(" << llvm::interleaved(index) << ")";
    return fail("'" + path + "': array '" + arg.batchName + "' holds label " +
                llvm::Twine(labels[k]) + " at index " + where +
                ", outside [0, " + llvm::Twine(arg.numClasses) +
                "), the classes of " + arg.classesOrigin);
  }
  return llvm::Error::success();
}

llvm::Expected<Dataset> trellis::train::bindDataset(const NamedArrays &data,
                                                    const StepFunction &step,
                                                    llvm::StringRef path) {
  Dataset dataset;
  for (const Argument &arg : step.batch) {
    auto it = llvm::find_if(
        data, [&](const auto &named) { return named.first == arg.batchName; });
    if (it == data.end())
      return fail("'" + path + "' has no array '" + arg.batchName + "'");
    const HostArray &array = it->second;
    llvm::ArrayRef<int64_t> want = arg.value.shape, got = array.getShape();
    if (array.getDType() != arg.value.dtype || got.size() != want.size() ||
        got.drop_front() != want.drop_front())
      return fail("array '" + arg.batchName + "' of '" + path + "' must be " +
                  "N examples of " + arg.value.typeName + "'s rows, got a " +
                  [&] {
                    std::string s;
                    llvm::raw_string_ostream os(s);
                    array.printTypeAndShape(os);
                    return s;
                  }());
    if (dataset.size && got[0] != dataset.size)
      return fail("arrays of '" + path +
                  "' disagree on the number of examples");
    if (arg.numClasses)
      if (llvm::Error err = checkLabels(array, arg, path))
        return std::move(err);
    dataset.size = got[0];
    dataset.arrays.push_back(&array);
  }
  return dataset;
}

llvm::Expected<llvm::SmallVector<HostArray>>
trellis::train::gatherBatch(const Dataset &dataset, const StepFunction &step,
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
