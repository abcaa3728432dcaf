//===- TrainError.h - Error helper of the training driver -------*- C++ -*-===//

#ifndef TRELLIS_LIB_TRAIN_TRAINERROR_H
#define TRELLIS_LIB_TRAIN_TRAINERROR_H

#include "llvm/Support/Error.h"

namespace trellis::train {

/// Returns a string error (never read as a format string).
inline llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace trellis::train

#endif // TRELLIS_LIB_TRAIN_TRAINERROR_H
