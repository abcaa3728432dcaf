//===- DataOrder.cpp - Which examples each step trains on -----------------===//

#include "trellis/Train/DataOrder.h"

#include "TrainError.h"
#include "trellis/Train/Random.h"

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
