//===- RuntimeError.h - Error helper of the runtime -------------*- C++ -*-===//

#ifndef TRELLIS_LIB_RUNTIME_RUNTIMEERROR_H
#define TRELLIS_LIB_RUNTIME_RUNTIMEERROR_H

#include "llvm/Support/Error.h"

namespace trellis::runtime {

/// Returns a string error. Unlike createStringError(const char *, ...), the
/// message is never read as a format string.
inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_RUNTIMEERROR_H
