//===- RuntimeError.h - Error helper of the runtime -------------*- C++ -*-===//

#ifndef TRELLIS_LIB_RUNTIME_RUNTIMEERROR_H
#define TRELLIS_LIB_RUNTIME_RUNTIMEERROR_H

#include "trellis/Utils/Error.h"

namespace trellis::runtime {
using trellis::makeError;
} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_RUNTIMEERROR_H
