//===- StridedCopy.h - Tensor views to dense host arrays --------*- C++ -*-===//

#ifndef TRELLIS_LIB_API_STRIDEDCOPY_H
#define TRELLIS_LIB_API_STRIDEDCOPY_H

#include "trellis/API/Compiler.h"
#include "trellis/Runtime/HostArray.h"
#include "trellis/Runtime/Signature.h"

#include "llvm/Support/Error.h"

namespace trellis::api {

/// Gathers the elements of `view` (any strides, in elements) into a new
/// dense row-major HostArray. Fails on a negative dimension, a stride count
/// that is not the rank, a dtype or shape that does not bind to `expected`
/// (checked before any data is read: such a view may describe more bytes
/// than its buffer holds), or a null pointer to a non-empty tensor.
llvm::Expected<runtime::HostArray>
copyToDense(const TensorView &view, const runtime::BoundaryValue &expected);

} // namespace trellis::api

#endif // TRELLIS_LIB_API_STRIDEDCOPY_H
