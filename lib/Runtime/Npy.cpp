//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Format: magic "\x93NUMPY", major and minor version bytes, the header length
// (uint16 little-endian in 1.0, uint32 in 2.0 and 3.0), an ASCII (UTF-8 in
// 3.0) Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': ...}
// padded with spaces and ended by '\n', then the raw data.
//
//===----------------------------------------------------------------------===//

#include "trellis/Runtime/Npy.h"

#include "RuntimeError.h"
#include "trellis/Runtime/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace trellis::runtime;
using llvm::StringRef;

static constexpr StringRef kMagic("\x93NUMPY", 6);
/// NumPy's NPY_MAXDIMS; also bounds what a malformed header can make us
/// allocate.
static constexpr size_t kMaxRank = 64;

namespace {

/// The three fields of a .npy header.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  llvm::SmallVector<int64_t, 4> shape;
};

/// Parses the subset of Python literal syntax that .npy headers use. Every
/// method checks bounds; nothing is trusted.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : rest(text) {}

  llvm::Expected<NpyHeader> parse();

private:
  void skipSpace() { rest = rest.ltrim(" \t\r\n"); }
  bool consume(char c) {
    skipSpace();
    return rest.consume_front(StringRef(&c, 1));
  }
  llvm::Error expect(char c, StringRef what) {
    if (consume(c))
      return llvm::Error::success();
    return makeError("malformed .npy header: expected '" + StringRef(&c, 1) +
                     "' " + what);
  }
  llvm::Expected<std::string> parseString();
  llvm::Expected<bool> parseBool();
  llvm::Expected<llvm::SmallVector<int64_t, 4>> parseShape();

  StringRef rest;
};

} // namespace

llvm::Expected<std::string> HeaderParser::parseString() {
  skipSpace();
  if (rest.empty() || (rest.front() != '\'' && rest.front() != '"'))
    return makeError("malformed .npy header: expected a quoted string");
  char quote = rest.front();
  size_t end = rest.find(quote, 1);
  if (end == StringRef::npos)
    return makeError("malformed .npy header: unterminated string");
  std::string value = rest.slice(1, end).str();
  rest = rest.drop_front(end + 1);
  return value;
}

llvm::Expected<bool> HeaderParser::parseBool() {
  skipSpace();
  if (rest.consume_front("True"))
    return true;
  if (rest.consume_front("False"))
    return false;
  return makeError("malformed .npy header: fortran_order is not True/False");
}

llvm::Expected<llvm::SmallVector<int64_t, 4>> HeaderParser::parseShape() {
  if (llvm::Error err = expect('(', "to open the shape"))
    return std::move(err);
  llvm::SmallVector<int64_t, 4> shape;
  while (!consume(')')) {
    skipSpace();
    size_t digits = 0;
    while (digits < rest.size() && llvm::isDigit(rest[digits]))
      ++digits;
    int64_t dim;
    if (digits == 0 || rest.take_front(digits).getAsInteger(10, dim))
      return makeError("malformed .npy header: bad shape dimension");
    rest = rest.drop_front(digits);
    rest.consume_front("L"); // Python 2 longs, as in "(3L,)".
    if (shape.size() == kMaxRank)
      return makeError("malformed .npy header: more than " +
                       llvm::Twine(kMaxRank) + " dimensions");
    shape.push_back(dim);
    if (consume(','))
      continue;
    if (llvm::Error err = expect(')', "to close the shape"))
      return std::move(err);
    break;
  }
  return shape;
}

llvm::Expected<NpyHeader> HeaderParser::parse() {
  NpyHeader header;
  bool seenDescr = false, seenFortran = false, seenShape = false;
  if (llvm::Error err = expect('{', "at the start of the header"))
    return std::move(err);
  while (!consume('}')) {
    llvm::Expected<std::string> key = parseString();
    if (!key)
      return key.takeError();
    if (llvm::Error err = expect(':', "after a key"))
      return std::move(err);
    if (*key == "descr" && !seenDescr) {
      seenDescr = true;
      skipSpace();
      if (rest.starts_with("["))
        return makeError("unsupported dtype: structured arrays are not "
                         "supported");
      llvm::Expected<std::string> descr = parseString();
      if (!descr)
        return descr.takeError();
      header.descr = std::move(*descr);
    } else if (*key == "fortran_order" && !seenFortran) {
      seenFortran = true;
      llvm::Expected<bool> fortran = parseBool();
      if (!fortran)
        return fortran.takeError();
      header.fortranOrder = *fortran;
    } else if (*key == "shape" && !seenShape) {
      seenShape = true;
      llvm::Expected<llvm::SmallVector<int64_t, 4>> shape = parseShape();
      if (!shape)
        return shape.takeError();
      header.shape = std::move(*shape);
    } else {
      return makeError("malformed .npy header: unexpected or repeated key '" +
                       *key + "'");
    }
    if (consume(','))
      continue;
    if (llvm::Error err = expect('}', "to close the header"))
      return std::move(err);
    break;
  }
  skipSpace();
  if (!rest.empty())
    return makeError("malformed .npy header: trailing characters");
  if (!seenDescr || !seenFortran || !seenShape)
    return makeError("malformed .npy header: missing 'descr', "
                     "'fortran_order' or 'shape'");
  return header;
}

std::optional<size_t> trellis::runtime::getNpyHeaderSize(StringRef prefix) {
  if (!prefix.starts_with(kMagic) || prefix.size() < kMagic.size() + 2)
    return std::nullopt;
  uint8_t major = prefix[kMagic.size()];
  if (major < 1 || major > 3)
    return std::nullopt;
  // Version 1.0 stores the header length in 16 bits, 2.0 and 3.0 in 32.
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t headerStart = kMagic.size() + 2 + lengthBytes;
  if (prefix.size() < headerStart)
    return std::nullopt;
  const char *lengthField = prefix.data() + kMagic.size() + 2;
  uint64_t headerLength = lengthBytes == 2
                              ? llvm::support::endian::read16le(lengthField)
                              : llvm::support::endian::read32le(lengthField);
  return headerStart + headerLength;
}

llvm::Expected<NpyLayout> trellis::runtime::parseNpyHeader(StringRef bytes,
                                                           uint64_t fileSize) {
  if (!bytes.starts_with(kMagic))
    return makeError("not a NumPy .npy file (bad magic)");
  if (bytes.size() < kMagic.size() + 2)
    return makeError("truncated .npy header");
  uint8_t major = bytes[kMagic.size()];
  uint8_t minor = bytes[kMagic.size() + 1];
  size_t lengthBytes;
  if (major == 1)
    lengthBytes = 2;
  else if (major == 2 || major == 3)
    lengthBytes = 4;
  else
    return makeError("unsupported .npy format version " +
                     llvm::Twine(unsigned(major)) + "." +
                     llvm::Twine(unsigned(minor)));
  size_t headerStart = kMagic.size() + 2 + lengthBytes;
  if (bytes.size() < headerStart)
    return makeError("truncated .npy header");
  uint64_t headerLength = *getNpyHeaderSize(bytes) - headerStart;
  if (headerLength > fileSize - headerStart)
    return makeError("truncated .npy header: it claims " +
                     llvm::Twine(headerLength) + " bytes, the file has " +
                     llvm::Twine(fileSize - headerStart));
  if (headerLength > bytes.size() - headerStart)
    return makeError("truncated .npy header");

  llvm::Expected<NpyHeader> header =
      HeaderParser(bytes.substr(headerStart, headerLength)).parse();
  if (!header)
    return header.takeError();

  std::optional<DType> dtype = parseNpyDescr(header->descr);
  if (!dtype) {
    if (StringRef(header->descr).starts_with(">"))
      return makeError("big-endian dtype '" + header->descr +
                       "' is not supported (use little-endian)");
    return makeError("unsupported dtype '" + header->descr +
                     "' (supported: <f4, <f8, <i4, <i8, <u4)");
  }
  // A Fortran-ordered array of rank <= 1 has the same bytes as in C order.
  if (header->fortranOrder && header->shape.size() > 1)
    return makeError("fortran_order arrays are not supported (save in C "
                     "order)");

  std::optional<uint64_t> dataBytes =
      getCheckedByteSize(header->shape, getByteWidth(*dtype));
  if (!dataBytes)
    return makeError("shape " + formatShape(header->shape) + " is too large");
  size_t dataOffset = headerStart + headerLength;
  uint64_t fileDataBytes = fileSize - dataOffset;
  if (fileDataBytes != *dataBytes)
    return makeError(
        llvm::Twine(fileDataBytes < *dataBytes ? "truncated data"
                                               : "data size mismatch") +
        ": shape " + formatShape(header->shape) + " of " +
        getNumpyName(*dtype) + " needs " + llvm::Twine(*dataBytes) +
        " bytes, the file has " + llvm::Twine(fileDataBytes));
  return NpyLayout{*dtype, std::move(header->shape), dataOffset};
}

llvm::Expected<HostArray> trellis::runtime::parseNpy(StringRef bytes) {
  llvm::Expected<NpyLayout> layout = parseNpyHeader(bytes, bytes.size());
  if (!layout)
    return layout.takeError();
  llvm::Expected<HostArray> array =
      HostArray::create(layout->dtype, layout->shape);
  if (!array)
    return array.takeError();
  StringRef data = bytes.drop_front(layout->dataOffset);
  if (!data.empty())
    std::memcpy(array->getData(), data.data(), data.size());
  return array;
}

llvm::Expected<HostArray> trellis::runtime::readNpy(StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(path);
  if (!buffer)
    return buffer.takeError();
  return parseNpy((*buffer)->getBuffer());
}

/// Returns the header dict of `array`, unpadded.
static std::string getHeaderDict(const HostArray &array) {
  return ("{'descr': '" + getNpyDescr(array.getDType()) +
          "', 'fortran_order': False, 'shape': " +
          formatShape(array.getShape()) + ", }")
      .str();
}

void trellis::runtime::encodeNpy(llvm::raw_ostream &os,
                                 const HostArray &array) {
  std::string header = getHeaderDict(array);
  // Pad with spaces and a final '\n' so that the data starts 64-byte
  // aligned. Version 1.0 stores the header length in 16 bits; 2.0 in 32.
  auto getPaddedEnd = [&](size_t prefix) {
    return llvm::alignTo(prefix + header.size() + 1, 64);
  };
  bool version1 =
      getPaddedEnd(kMagic.size() + 4) - (kMagic.size() + 4) <= 0xffff;
  size_t prefix = kMagic.size() + 2 + (version1 ? 2 : 4);
  size_t total = getPaddedEnd(prefix);
  header.append(total - prefix - header.size() - 1, ' ');
  header.push_back('\n');

  os << kMagic;
  os << static_cast<char>(version1 ? 1 : 2) << static_cast<char>(0);
  char length[4];
  if (version1) {
    llvm::support::endian::write16le(length, header.size());
    os.write(length, 2);
  } else {
    llvm::support::endian::write32le(length, header.size());
    os.write(length, 4);
  }
  os << header;
  os.write(array.getData(), array.getByteSize());
}

llvm::Error trellis::runtime::writeNpy(StringRef path, const HostArray &array) {
  // Through a temporary file renamed into place (writeFile): a symbolic link
  // planted at `path` is replaced, not written through.
  if (llvm::Error err = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        encodeNpy(os, array);
        return llvm::Error::success();
      }))
    return makeError("cannot write '" + path +
                     "': " + llvm::toString(std::move(err)));
  return llvm::Error::success();
}
