//===- HostArray.cpp - A dense array owned by the host --------------------===//

#include "trellis/Runtime/HostArray.h"

#include "RuntimeError.h"
#include "trellis/Runtime/ByteSize.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemAlloc.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace trellis::runtime;

/// Alignment of array storage: a cache line, and the widest vector load.
static constexpr size_t kAlignment = 64;

/// Rounds `bytes` up to a non-zero multiple of kAlignment, so every array
/// (even an empty one) has storage of its own.
static size_t getAllocationSize(size_t bytes) {
  return llvm::alignTo(std::max<size_t>(bytes, 1), kAlignment);
}

std::optional<uint64_t>
trellis::runtime::getCheckedByteSize(llvm::ArrayRef<int64_t> shape,
                                     uint64_t elementBytes) {
  uint64_t total = elementBytes;
  for (int64_t dim : shape) {
    if (dim < 0)
      return std::nullopt;
    uint64_t size = static_cast<uint64_t>(dim);
    if (size != 0 && total > UINT64_MAX / size)
      return std::nullopt;
    total *= size;
  }
  // Keep sizes representable as int64_t byte offsets and element counts.
  if (total > static_cast<uint64_t>(INT64_MAX) / 2)
    return std::nullopt;
  return total;
}

HostArray::HostArray(DType dtype, llvm::ArrayRef<int64_t> shape,
                     int64_t numElements)
    : dtype(dtype), shape(shape), numElements(numElements) {
  // Not llvm::allocate_buffer: a host out of memory (or under `ulimit -v`)
  // is an error of create(), not LLVM's fatal "out of memory".
  void *storage = nullptr;
  size_t size = getAllocationSize(getByteSize());
  if (::posix_memalign(&storage, kAlignment, size) != 0)
    return;
  data = static_cast<char *>(storage);
  std::memset(data, 0, size);
}

llvm::Expected<HostArray> HostArray::create(DType dtype,
                                            llvm::ArrayRef<int64_t> shape) {
  std::optional<uint64_t> bytes =
      getCheckedByteSize(shape, getByteWidth(dtype));
  if (!bytes)
    return makeError("invalid array shape " + formatShape(shape));
  HostArray array(dtype, shape, *bytes / getByteWidth(dtype));
  if (!array.data)
    return makeError("out of memory: allocating " + formatBytes(*bytes) +
                     " for a " + getNumpyName(dtype) + " array of shape " +
                     formatShape(shape));
  return array;
}

HostArray::HostArray(HostArray &&other) noexcept
    : dtype(other.dtype), shape(std::move(other.shape)),
      numElements(other.numElements), data(other.data) {
  other.data = nullptr;
  other.numElements = 0;
}

HostArray &HostArray::operator=(HostArray &&other) noexcept {
  if (this == &other)
    return *this;
  std::free(data);
  dtype = other.dtype;
  shape = std::move(other.shape);
  numElements = other.numElements;
  data = other.data;
  other.data = nullptr;
  other.numElements = 0;
  return *this;
}

HostArray::~HostArray() { std::free(data); }

llvm::Expected<HostArray> HostArray::tryClone() const {
  llvm::Expected<HostArray> copy = create(dtype, shape);
  if (!copy)
    return copy.takeError();
  std::memcpy(copy->data, data, getByteSize());
  return copy;
}

HostArray HostArray::clone() const {
  llvm::Expected<HostArray> copy = tryClone();
  if (!copy)
    llvm::report_fatal_error(llvm::Twine(llvm::toString(copy.takeError())));
  return std::move(*copy);
}

std::string trellis::runtime::formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, ", ");
  if (shape.size() == 1)
    os << ',';
  os << ')';
  return text;
}

void HostArray::printTypeAndShape(llvm::raw_ostream &os) const {
  os << getNumpyName(dtype) << " array of shape " << formatShape(shape);
}

/// Prints element `index` of `data`, read as `dtype`: floats like %g,
/// integers in full.
static void printElement(llvm::raw_ostream &os, DType dtype, const char *data,
                         int64_t index) {
  const char *element = data + index * getByteWidth(dtype);
  visitElementType(dtype, [&](auto value) {
    std::memcpy(&value, element, sizeof(value));
    if constexpr (std::is_floating_point_v<decltype(value)>)
      os << llvm::format("%g", static_cast<double>(value));
    else
      os << value;
  });
}

void HostArray::printSummary(llvm::raw_ostream &os, unsigned maxValues) const {
  os << getNumpyName(dtype) << ' ' << formatShape(shape) << " [";
  int64_t shown = std::min<int64_t>(numElements, maxValues);
  for (int64_t i = 0; i < shown; ++i) {
    if (i)
      os << ", ";
    printElement(os, dtype, data, i);
  }
  if (shown < numElements)
    os << ", ...";
  os << ']';
}
