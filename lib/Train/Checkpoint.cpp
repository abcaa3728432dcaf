//===- Checkpoint.cpp - Saving and resuming a training run ----------------===//

#include "trellis/Train/Checkpoint.h"

#include "TrainError.h"
#include "trellis/Runtime/Npz.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace trellis;
using namespace trellis::runtime;
using namespace trellis::train;
using llvm::Twine;

llvm::Expected<Checkpoint>
trellis::train::readCheckpoint(llvm::StringRef checkpointPath, uint64_t seed,
                               const StepFunction &trainStep) {
  llvm::Expected<NamedArrays> checkpoint = readNpz(checkpointPath);
  if (!checkpoint)
    return checkpoint.takeError();
  std::map<std::string, HostArray *> byName;
  for (auto &[name, array] : *checkpoint)
    byName[name] = &array;
  // `step` and `seed` are int64 scalars (rank 0, one element), as written.
  auto isScalarI64 = [&](const char *name) {
    auto it = byName.find(name);
    return it != byName.end() && it->second->getDType() == DType::I64 &&
           it->second->getRank() == 0 && it->second->getNumElements() == 1;
  };
  if (!isScalarI64("step") || !isScalarI64("seed"))
    return fail("'" + checkpointPath +
                "' is not a trellis-train checkpoint "
                "(no int64 scalars 'step' and 'seed')");
  Checkpoint result;
  result.step = *reinterpret_cast<int64_t *>(byName["step"]->getData());
  if (result.step < 0 || result.step > kMaxCheckpointStep)
    return fail("'" + checkpointPath + "' holds step " + Twine(result.step) +
                ", not a number of steps (0 to 2^53)");
  uint64_t savedSeed = *reinterpret_cast<uint64_t *>(byName["seed"]->getData());
  if (savedSeed != seed)
    return fail("'" + checkpointPath + "' was written with --seed=" +
                Twine(savedSeed) + "; resume with the same seed");
  for (auto [i, param] : llvm::enumerate(trainStep.params)) {
    std::string name = ("param" + Twine(i)).str();
    if (!byName.count(name))
      return fail("'" + checkpointPath + "' has no '" + name + "'");
    if (llvm::Error err = checkBinding(param.value, *byName[name]))
      return fail("'" + checkpointPath + "' " + name + ": " +
                  llvm::toString(std::move(err)));
    llvm::Expected<HostArray> copy = byName[name]->tryClone();
    if (!copy)
      return fail("'" + checkpointPath + "' " + name + ": " +
                  llvm::toString(copy.takeError()));
    result.params.push_back(std::move(*copy));
  }
  return result;
}

llvm::Error trellis::train::writeCheckpoint(llvm::StringRef checkpointPath,
                                            int64_t step, uint64_t seed,
                                            llvm::ArrayRef<HostArray> params) {
  llvm::Expected<HostArray> stepArray = HostArray::create(DType::I64, {});
  llvm::Expected<HostArray> seedArray = HostArray::create(DType::I64, {});
  if (!stepArray || !seedArray)
    return fail("out of memory");
  *reinterpret_cast<int64_t *>(stepArray->getData()) = step;
  *reinterpret_cast<uint64_t *>(seedArray->getData()) = seed;
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
