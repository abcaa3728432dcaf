//===- DataSource.cpp - Where a training run's examples come from ---------===//

#include "trellis/Train/DataSource.h"

#include "TrainError.h"
#include "trellis/Runtime/Idx.h"

using namespace trellis;
using namespace trellis::train;

llvm::Expected<runtime::NamedArrays>
trellis::train::readDataSource(llvm::StringRef spec) {
  llvm::StringRef idx = spec;
  if (!idx.consume_front("idx:"))
    return runtime::readNpz(spec);
  auto [images, labels] = idx.split(',');
  if (images.empty() || labels.empty() || labels.contains(','))
    return fail("'" + spec + "': an IDX data source is idx:IMAGES,LABELS " +
                "(two files)");
  return runtime::readIdxDataset(images, labels);
}
