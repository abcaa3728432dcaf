//===- DataSource.h - Where a training run's examples come from -*- C++ -*-===//
//
// `--data` and `--eval-data` name a .npz archive (its arrays by member
// name) or, as `idx:IMAGES,LABELS`, a pair of IDX files (MNIST's format,
// raw or gzipped): arrays `x` (the images, float32 in [0, 1]) and `y` (the
// labels, int32). docs/training.md, "IDX data".
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TRAIN_DATASOURCE_H
#define TRELLIS_TRAIN_DATASOURCE_H

#include "trellis/Runtime/Npz.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace trellis::train {

/// Reads the named arrays of the data source `spec`: `idx:IMAGES,LABELS`
/// (runtime::readIdxDataset), else the path of a .npz file.
llvm::Expected<runtime::NamedArrays> readDataSource(llvm::StringRef spec);

} // namespace trellis::train

#endif // TRELLIS_TRAIN_DATASOURCE_H
