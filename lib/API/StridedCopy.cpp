//===- StridedCopy.cpp - Tensor views to dense host arrays ----------------===//

#include "StridedCopy.h"

#include "APIError.h"

#include "llvm/ADT/SmallVector.h"

#include <cstring>

using namespace trellis;

/// Returns true if `strides` describe the dense row-major layout of `shape`
/// (unit dimensions may have any stride).
static bool isDenseRowMajor(llvm::ArrayRef<int64_t> shape,
                            llvm::ArrayRef<int64_t> strides) {
  int64_t expected = 1;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    if (shape[i] != 1 && strides[i] != expected)
      return false;
    expected *= shape[i];
  }
  return true;
}

llvm::Expected<runtime::HostArray>
trellis::api::copyToDense(const TensorView &view,
                          const runtime::BoundaryValue &expected) {
  int64_t rank = view.shape.size();
  if (!view.strides.empty() &&
      static_cast<int64_t>(view.strides.size()) != rank)
    return makeError("a view of rank " + llvm::Twine(rank) + " has " +
                     llvm::Twine(view.strides.size()) + " strides");
  for (int64_t size : view.shape)
    if (size < 0)
      return makeError("a view has the negative dimension " +
                       llvm::Twine(size));
  llvm::Expected<runtime::HostArray> array =
      runtime::HostArray::create(view.dtype, view.shape);
  if (!array)
    return array.takeError();
  if (llvm::Error err = runtime::checkBinding(expected, *array))
    return std::move(err);
  if (array->getNumElements() == 0)
    return array;
  if (!view.data)
    return makeError("a view of " + runtime::formatShape(view.shape) +
                     " elements has no data");

  const char *source = static_cast<const char *>(view.data);
  if (view.strides.empty() || isDenseRowMajor(view.shape, view.strides)) {
    std::memcpy(array->getData(), source, array->getByteSize());
    return array;
  }
  // Odometer over the row-major index; the innermost dimension is copied
  // element by element with its stride.
  int64_t width = runtime::getByteWidth(view.dtype);
  llvm::SmallVector<int64_t, 4> index(rank, 0);
  char *dest = array->getData();
  int64_t inner = view.shape[rank - 1];
  int64_t innerStride = view.strides[rank - 1] * width;
  for (int64_t done = 0; done < array->getNumElements(); done += inner) {
    int64_t offset = 0;
    for (int64_t i = 0; i < rank - 1; ++i)
      offset += index[i] * view.strides[i];
    const char *row = source + offset * width;
    for (int64_t j = 0; j < inner; ++j, dest += width)
      std::memcpy(dest, row + j * innerStride, width);
    for (int64_t i = rank - 2; i >= 0; --i) {
      if (++index[i] < view.shape[i])
        break;
      index[i] = 0;
    }
  }
  return array;
}
