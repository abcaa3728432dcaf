//===- Error.h - The one string-error helper of Trellis ---------*- C++ -*-===//

#ifndef TRELLIS_UTILS_ERROR_H
#define TRELLIS_UTILS_ERROR_H

#include "llvm/Support/Error.h"

namespace trellis {

/// Returns a string error. Unlike createStringError(const char *, ...), the
/// message is never read as a format string.
inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace trellis

#endif // TRELLIS_UTILS_ERROR_H
