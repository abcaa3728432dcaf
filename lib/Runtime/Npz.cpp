//===- Npz.cpp - NumPy .npz archives --------------------------------------===//
//
// The zip subset NumPy writes: the end-of-central-directory record (ZIP64
// not supported: archives up to 4 GiB), central directory entries, local
// headers, members stored (method 0) or deflated (method 8, raw deflate
// through zlib). Every offset and size is checked against the buffer.
//
//===----------------------------------------------------------------------===//

#include "trellis/Runtime/Npz.h"

#include "RuntimeError.h"
#include "trellis/Runtime/Files.h"
#include "trellis/Runtime/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>
#include <zlib.h>

using namespace trellis::runtime;
using llvm::StringRef;
namespace endian = llvm::support::endian;

static constexpr uint32_t kLocalMagic = 0x04034b50;
static constexpr uint32_t kCentralMagic = 0x02014b50;
static constexpr uint32_t kEndMagic = 0x06054b50;

static uint16_t u16(StringRef b, size_t at) {
  return endian::read16le(b.data() + at);
}
static uint32_t u32(StringRef b, size_t at) {
  return endian::read32le(b.data() + at);
}

/// Deflate expands its input at most 1032 times (a 258-byte match in two
/// bits).
static constexpr uint64_t kMaxDeflateRatio = 1032;

static llvm::Expected<std::string> inflateRaw(StringRef data, size_t size) {
  // A size the data cannot inflate to is corrupt, and must not make us
  // allocate it.
  if (size / kMaxDeflateRatio > data.size())
    return makeError("corrupt deflated member: " + llvm::Twine(data.size()) +
                     " bytes cannot inflate to " + llvm::Twine(size));
  std::string out(size, '\0');
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
    return makeError("zlib initialization failed");
  stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef *>(out.data());
  stream.avail_out = static_cast<uInt>(size);
  int rc = inflate(&stream, Z_FINISH);
  size_t produced = stream.total_out;
  inflateEnd(&stream);
  if (rc != Z_STREAM_END || produced != size)
    return makeError("corrupt deflated member");
  return out;
}

llvm::Expected<NamedArrays> trellis::runtime::parseNpz(StringRef bytes) {
  // The end record is the last 22 bytes unless there is a comment.
  if (bytes.size() < 22)
    return makeError("not a .npz archive: too short");
  size_t end = StringRef::npos;
  size_t lowest = bytes.size() >= 22 + 65535 ? bytes.size() - 22 - 65535 : 0;
  for (size_t at = bytes.size() - 22 + 1; at-- > lowest;)
    if (u32(bytes, at) == kEndMagic) {
      end = at;
      break;
    }
  if (end == StringRef::npos)
    return makeError("not a .npz archive: no end-of-central-directory record");
  uint16_t entries = u16(bytes, end + 10);
  uint32_t dirOffset = u32(bytes, end + 16);
  if (dirOffset == 0xffffffffu)
    return makeError("ZIP64 archives are not supported");
  NamedArrays arrays;
  llvm::StringSet<> names;
  size_t at = dirOffset;
  for (uint16_t i = 0; i < entries; ++i) {
    if (at + 46 > bytes.size() || u32(bytes, at) != kCentralMagic)
      return makeError("corrupt .npz archive: bad central directory entry");
    uint16_t method = u16(bytes, at + 10);
    uint32_t crc = u32(bytes, at + 16);
    uint32_t packed = u32(bytes, at + 20), size = u32(bytes, at + 24);
    uint16_t nameLength = u16(bytes, at + 28), extra = u16(bytes, at + 30),
             comment = u16(bytes, at + 32);
    // 64-bit: `local + 30` must not wrap around for offsets near 4 GiB.
    uint64_t local = u32(bytes, at + 42);
    if (at + 46 + nameLength > bytes.size())
      return makeError("corrupt .npz archive: name past the end");
    std::string name = bytes.substr(at + 46, nameLength).str();
    at += 46 + nameLength + extra + comment;
    if (local + 30 > bytes.size() || u32(bytes, local) != kLocalMagic)
      return makeError("corrupt .npz archive: bad local header of '" + name +
                       "'");
    size_t data = local + 30 + u16(bytes, local + 26) + u16(bytes, local + 28);
    if (data > bytes.size() || packed > bytes.size() - data)
      return makeError("corrupt .npz archive: member '" + name +
                       "' runs past the end");
    StringRef raw = bytes.substr(data, packed);
    std::string inflated;
    if (method == 8) {
      llvm::Expected<std::string> out = inflateRaw(raw, size);
      if (!out)
        return makeError("member '" + name +
                         "': " + llvm::toString(out.takeError()));
      inflated = std::move(*out);
      raw = inflated;
    } else if (method != 0) {
      return makeError("member '" + name + "': unsupported compression method " +
                       llvm::Twine(method));
    } else if (packed != size) {
      return makeError("corrupt .npz archive: stored member '" + name +
                       "' has two sizes");
    }
    if (llvm::crc32(llvm::arrayRefFromStringRef(raw)) != crc)
      return makeError("member '" + name + "': CRC mismatch");
    llvm::Expected<HostArray> array = parseNpy(raw);
    if (!array)
      return makeError("member '" + name +
                       "': " + llvm::toString(array.takeError()));
    StringRef base(name);
    base.consume_back(".npy");
    // NumPy's reader keeps the last of two members of one name, a first-
    // wins reader the first: neither is right, so neither is taken.
    if (!names.insert(base).second)
      return makeError("corrupt .npz archive: two members are named '" + base +
                       "'");
    arrays.emplace_back(base.str(), std::move(*array));
  }
  return arrays;
}

llvm::Expected<NamedArrays> trellis::runtime::readNpz(StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(path);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + llvm::toString(buffer.takeError()));
  llvm::Expected<NamedArrays> arrays = parseNpz((*buffer)->getBuffer());
  if (!arrays)
    return makeError("'" + path + "': " + llvm::toString(arrays.takeError()));
  return arrays;
}

static void put16(std::string &s, uint16_t v) {
  char b[2];
  endian::write16le(b, v);
  s.append(b, 2);
}
static void put32(std::string &s, uint32_t v) {
  char b[4];
  endian::write32le(b, v);
  s.append(b, 4);
}

llvm::Error trellis::runtime::writeNpzAtomically(
    StringRef path,
    const std::vector<std::pair<std::string, const HostArray *>> &arrays) {
  std::string archive, directory;
  for (const auto &[name, array] : arrays) {
    std::string member;
    llvm::raw_string_ostream os(member);
    encodeNpy(os, *array);
    os.flush();
    if (member.size() >= 0xffffffffu || archive.size() >= 0xffffffffu)
      return makeError("'" + name + "' is too large for a .npz without ZIP64");
    std::string file = name + ".npy";
    uint32_t crc = llvm::crc32(llvm::arrayRefFromStringRef(member));
    uint32_t offset = static_cast<uint32_t>(archive.size());
    auto header = [&](std::string &s, bool central) {
      put32(s, central ? kCentralMagic : kLocalMagic);
      if (central)
        put16(s, 20); // version made by
      put16(s, 20);   // version needed
      put16(s, 0);    // flags
      put16(s, 0);    // stored
      put16(s, 0);    // time
      put16(s, 0x21); // date: 1980-01-01
      put32(s, crc);
      put32(s, static_cast<uint32_t>(member.size()));
      put32(s, static_cast<uint32_t>(member.size()));
      put16(s, static_cast<uint16_t>(file.size()));
      put16(s, 0); // extra
      if (central) {
        put16(s, 0); // comment
        put16(s, 0); // disk
        put16(s, 0); // internal attributes
        put32(s, 0); // external attributes
        put32(s, offset);
      }
      s += file;
    };
    header(archive, false);
    archive += member;
    header(directory, true);
  }
  uint32_t dirOffset = static_cast<uint32_t>(archive.size());
  archive += directory;
  put32(archive, kEndMagic);
  put16(archive, 0);
  put16(archive, 0);
  put16(archive, static_cast<uint16_t>(arrays.size()));
  put16(archive, static_cast<uint16_t>(arrays.size()));
  put32(archive, static_cast<uint32_t>(directory.size()));
  put32(archive, dirOffset);
  put16(archive, 0);

  // A temporary of a unique name, created exclusively (never through a
  // link planted at a predictable name), fsynced, then renamed over `path`.
  llvm::SmallString<256> temporary;
  {
    int fd;
    if (std::error_code ec = llvm::sys::fs::createUniqueFile(
            path + ".tmp-%%%%%%%%", fd, temporary))
      return makeError("cannot write a temporary file next to '" + path +
                       "': " + ec.message());
    bool failed;
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
      os << archive;
      os.flush();
      failed = os.has_error();
      if (failed)
        os.clear_error();
    }
    // The data is on disk before the rename makes it visible.
    failed |= ::fsync(fd) != 0;
    failed |= ::close(fd) != 0;
    if (failed) {
      llvm::sys::fs::remove(temporary);
      return makeError("cannot write '" + temporary + "'");
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return makeError("cannot rename '" + temporary + "' to '" + path +
                     "': " + ec.message());
  }
  return llvm::Error::success();
}
