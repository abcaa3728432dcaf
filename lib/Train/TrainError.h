//===- TrainError.h - Error helper of the training driver -------*- C++ -*-===//

#ifndef TRELLIS_LIB_TRAIN_TRAINERROR_H
#define TRELLIS_LIB_TRAIN_TRAINERROR_H

#include "trellis/Utils/Error.h"

namespace trellis::train {
/// The training driver's errors are plain string errors.
inline constexpr auto &fail = trellis::makeError;
} // namespace trellis::train

#endif // TRELLIS_LIB_TRAIN_TRAINERROR_H
