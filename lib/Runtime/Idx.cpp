//===- Idx.cpp - IDX files (MNIST's format) -------------------------------===//
//
// The file is read through one stream, raw or inflating, so that header and
// data are checked the same way in both: the header first (whose dimensions
// fix the data's size before anything is allocated), then the data in
// chunks converted into the array, then nothing may follow.
//
//===----------------------------------------------------------------------===//

#include "trellis/Runtime/Idx.h"

#include "Inflate.h"
#include "OutOfMemory.h"
#include "RuntimeError.h"
#include "trellis/Runtime/Files.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace trellis::runtime;
using llvm::StringRef;

namespace {
/// The bytes of an IDX file, inflated as they are read if it is gzipped.
class IdxStream {
public:
  explicit IdxStream(StringRef bytes) : bytes(bytes) {
    if (bytes.starts_with("\x1f\x8b"))
      gzip.emplace(bytes, InflateStream::Format::Gzip);
  }

  /// Reads up to `n` bytes into `dst`; fewer only at the end of the data.
  llvm::Expected<size_t> read(char *dst, size_t n) {
    if (!gzip) {
      size_t got = std::min(n, bytes.size() - offset);
      std::memcpy(dst, bytes.data() + offset, got);
      offset += got;
      return got;
    }
    if (std::optional<size_t> got = gzip->read(dst, n))
      return *got;
    switch (gzip->getFailure()) {
    case InflateStream::Failure::Init:
      return makeError("cannot start inflating the gzip stream");
    case InflateStream::Failure::Truncated:
      return makeError("truncated gzip stream");
    default:
      return makeError("corrupt gzip stream (" + gzip->getMessage() + ")");
    }
  }

  /// Returns whether bytes follow what was read (after the gzip stream's
  /// end, bytes of another stream or garbage count too).
  llvm::Expected<bool> hasMore() {
    if (gzip && gzip->atEnd())
      return gzip->getTrailingInput() != 0;
    char byte;
    llvm::Expected<size_t> got = read(&byte, 1);
    if (!got)
      return got.takeError();
    return *got != 0 || (gzip && gzip->getTrailingInput() != 0);
  }

private:
  StringRef bytes;
  size_t offset = 0;
  std::optional<InflateStream> gzip;
};

/// The element type codes of the IDX format.
StringRef getIdxTypeName(uint8_t code) {
  switch (code) {
  case 0x08:
    return "unsigned byte";
  case 0x09:
    return "signed byte";
  case 0x0B:
    return "short";
  case 0x0C:
    return "int";
  case 0x0D:
    return "float";
  case 0x0E:
    return "double";
  default:
    return "";
  }
}

std::string hex(uint64_t value, unsigned digits) {
  return "0x" + llvm::utohexstr(value, /*LowerCase=*/false, digits);
}
} // namespace

llvm::Expected<HostArray> trellis::runtime::parseIdx(
    StringRef bytes, IdxElements as,
    llvm::function_ref<void(uint64_t)> beforeAllocating) {
  IdxStream stream(bytes);
  char magic[4];
  llvm::Expected<size_t> got = stream.read(magic, 4);
  if (!got)
    return got.takeError();
  if (*got < 4)
    return makeError("truncated IDX header: " + llvm::Twine(*got) +
                     " bytes, the magic alone is 4");
  uint32_t magicValue = llvm::support::endian::read32be(magic);
  if (magic[0] != 0 || magic[1] != 0)
    return makeError("not an IDX file: magic " + hex(magicValue, 8) +
                     " does not begin with two zero bytes");
  uint8_t type = magic[2], rank = magic[3];
  StringRef typeName = getIdxTypeName(type);
  if (typeName.empty())
    return makeError("not an IDX file: unknown element type " + hex(type, 2) +
                     " in magic " + hex(magicValue, 8));
  if (type != 0x08)
    return makeError("IDX element type " + hex(type, 2) + " (" + typeName +
                     ") is not supported, only 0x08 (unsigned byte)");
  if (rank == 0)
    return makeError("IDX file with no dimensions (magic " +
                     hex(magicValue, 8) + ")");
  char dimBytes[4 * 255];
  got = stream.read(dimBytes, 4 * rank);
  if (!got)
    return got.takeError();
  if (*got < 4u * rank)
    return makeError("truncated IDX header: " + llvm::Twine(unsigned(rank)) +
                     " dimensions need " + llvm::Twine(4 * rank) +
                     " bytes after the magic, the file has " +
                     llvm::Twine(*got));
  llvm::SmallVector<int64_t> shape;
  for (unsigned i = 0; i < rank; ++i)
    shape.push_back(llvm::support::endian::read32be(dimBytes + 4 * i));
  DType dtype = as == IdxElements::Scaled ? DType::F32 : DType::I32;
  std::optional<uint64_t> arrayBytes = getCheckedByteSize(shape, 4);
  if (!arrayBytes)
    return makeError("IDX dimensions " + formatShape(shape) +
                     " overflow: their product is too large");
  uint64_t numElements = *arrayBytes / 4;
  if (beforeAllocating)
    beforeAllocating(*arrayBytes);
  llvm::Expected<HostArray> array = HostArray::create(dtype, shape);
  if (!array)
    return array.takeError();

  // Convert chunk by chunk: the bytes are never held whole beside the array.
  constexpr size_t kChunk = 1 << 16;
  llvm::SmallVector<unsigned char> chunk(kChunk);
  auto *scaled = reinterpret_cast<float *>(array->getData());
  auto *integers = reinterpret_cast<int32_t *>(array->getData());
  for (uint64_t done = 0; done < numElements;) {
    size_t want = std::min<uint64_t>(kChunk, numElements - done);
    got = stream.read(reinterpret_cast<char *>(chunk.data()), want);
    if (!got)
      return got.takeError();
    for (size_t i = 0; i < *got; ++i) {
      if (as == IdxElements::Scaled)
        scaled[done + i] = chunk[i] / 255.0f;
      else
        integers[done + i] = chunk[i];
    }
    done += *got;
    if (*got < want)
      return makeError("truncated IDX data: dimensions " + formatShape(shape) +
                       " need " + llvm::Twine(numElements) +
                       " bytes of data, the file has " + llvm::Twine(done));
  }
  llvm::Expected<bool> more = stream.hasMore();
  if (!more)
    return more.takeError();
  if (*more)
    return makeError("bytes after the IDX data: dimensions " +
                     formatShape(shape) + " need " + llvm::Twine(numElements) +
                     " bytes of data, the file has more");
  return array;
}

llvm::Expected<HostArray> trellis::runtime::readIdx(StringRef path,
                                                    IdxElements as) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(path);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + llvm::toString(buffer.takeError()));
  llvm::Expected<HostArray> array =
      parseIdx((*buffer)->getBuffer(), as, [](uint64_t arrayBytes) {
        checkMemoryLimit(arrayBytes);
        checkMemoryAvailable(arrayBytes, [] {});
      });
  if (!array)
    return makeError("'" + path + "': " + llvm::toString(array.takeError()));
  return array;
}

llvm::Expected<NamedArrays>
trellis::runtime::readIdxDataset(StringRef imagesPath, StringRef labelsPath) {
  llvm::Expected<HostArray> images = readIdx(imagesPath, IdxElements::Scaled);
  if (!images)
    return images.takeError();
  if (images->getRank() < 2)
    return makeError("'" + imagesPath + "': IDX images need dimensions " +
                     "N x (at least one more), got " +
                     formatShape(images->getShape()));
  llvm::Expected<HostArray> labels = readIdx(labelsPath, IdxElements::Integers);
  if (!labels)
    return labels.takeError();
  if (labels->getRank() != 1)
    return makeError("'" + labelsPath + "': IDX labels need one dimension, " +
                     "got " + formatShape(labels->getShape()));
  int64_t numImages = images->getShape()[0], numLabels = labels->getShape()[0];
  if (numImages != numLabels)
    return makeError("'" + imagesPath + "' has " + llvm::Twine(numImages) +
                     " images but '" + labelsPath + "' has " +
                     llvm::Twine(numLabels) + " labels");
  NamedArrays arrays;
  arrays.emplace_back("x", std::move(*images));
  arrays.emplace_back("y", std::move(*labels));
  return arrays;
}
