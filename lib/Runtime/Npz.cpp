//===- Npz.cpp - NumPy .npz archives --------------------------------------===//
//
// The zip subset NumPy writes: the end-of-central-directory record (ZIP64
// not supported: archives up to 4 GiB), central directory entries, local
// headers, members stored (method 0) or deflated (method 8, raw deflate
// through zlib). Every offset and size is checked against the buffer, the
// members' bytes against each other's, before anything is inflated. (readNpz,
// which checks what they inflate to against the memory limit, is in
// NpzFile.cpp: this file is compiled into the fuzzer without the limit.)
//
//===----------------------------------------------------------------------===//

#include "trellis/Runtime/Npz.h"

#include "Inflate.h"

#include "RuntimeError.h"
#include "trellis/Runtime/Npy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

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

namespace {

/// One member as the central directory and its local header describe it.
struct Member {
  std::string name;
  uint16_t method;
  uint32_t crc;
  uint32_t packed, size;
  /// Where its local header starts and its data starts, in the archive.
  uint64_t local, data;
};

} // namespace

/// Inflates the deflated member `raw` of `size` bytes (its .npy file) into
/// the array it holds: the header first, then the data straight into the
/// array, so the member costs its size and not twice that. Errors come in
/// the order of a reader that inflated the whole member first: deflate
/// errors, then a CRC mismatch, then what is wrong with the .npy. (`size`
/// is one `raw` can inflate to: parseNpz checks the ratio.)
static llvm::Expected<HostArray> inflateNpy(StringRef raw, uint32_t size,
                                            uint32_t crc) {
  InflateStream inflater(raw, InflateStream::Format::RawDeflate);
  uint32_t sum = 0;
  // Exactly `bytes` bytes, else the member is corrupt.
  auto read = [&](char *out, size_t bytes) -> llvm::Error {
    std::optional<size_t> got = inflater.read(out, bytes);
    if (!got || *got != bytes)
      return makeError(inflater.getFailure() == InflateStream::Failure::Init
                           ? "zlib initialization failed"
                           : "corrupt deflated member");
    sum = llvm::crc32(sum,
                      llvm::ArrayRef(reinterpret_cast<uint8_t *>(out), bytes));
    return llvm::Error::success();
  };

  // The fixed prefix says how long the header is.
  std::string header(std::min<size_t>(size, 10), '\0');
  if (llvm::Error err = read(header.data(), header.size()))
    return std::move(err);
  if (std::optional<size_t> headerSize = getNpyHeaderSize(header)) {
    size_t have = header.size();
    header.resize(std::min<size_t>(*headerSize, size));
    if (llvm::Error err = read(header.data() + have, header.size() - have))
      return std::move(err);
  }
  llvm::Expected<NpyLayout> layout = parseNpyHeader(header, size);
  llvm::Expected<HostArray> array =
      layout ? HostArray::create(layout->dtype, layout->shape)
             : llvm::Expected<HostArray>(layout.takeError());
  if (array) {
    if (llvm::Error err = read(array->getData(), array->getByteSize()))
      return std::move(err);
  } else {
    // The rest is still inflated (and dropped), for deflate and CRC errors
    // to come first.
    std::string scratch(std::min<size_t>(size - header.size(), 1 << 16), '\0');
    for (size_t rest = size - header.size(); rest;) {
      size_t piece = std::min(rest, scratch.size());
      if (llvm::Error err = read(scratch.data(), piece)) {
        llvm::consumeError(array.takeError());
        return std::move(err);
      }
      rest -= piece;
    }
  }
  // The stream ends here, with no byte more.
  char extra;
  std::optional<size_t> more = inflater.read(&extra, 1);
  if (!more || *more || !inflater.atEnd()) {
    if (!array)
      llvm::consumeError(array.takeError());
    return makeError("corrupt deflated member");
  }
  if (sum != crc) {
    if (!array)
      llvm::consumeError(array.takeError());
    return makeError("CRC mismatch");
  }
  return array;
}

/// Fails if two members, or a member and the central directory
/// [`dirOffset`, `dirEnd`), share bytes: an archive whose directory points
/// several members at the same compressed data multiplies what a small file
/// inflates to, past every per-member check (Python's zipfile rejects such
/// "overlapped entries" too, since 3.12).
static llvm::Error checkNoOverlap(llvm::ArrayRef<Member> members,
                                  uint64_t dirOffset, uint64_t dirEnd) {
  struct Range {
    uint64_t begin, end;
    const Member *member; // null for the central directory
  };
  llvm::SmallVector<Range> ranges;
  for (const Member &member : members)
    ranges.push_back({member.local, member.data + member.packed, &member});
  ranges.push_back({dirOffset, dirEnd, nullptr});
  // Stable: of members at one offset, the first two in the directory are
  // named.
  llvm::stable_sort(
      ranges, [](const Range &a, const Range &b) { return a.begin < b.begin; });
  auto describe = [](const Range &range) {
    return range.member ? "member '" + range.member->name + "'"
                        : std::string("the central directory");
  };
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].begin < ranges[i - 1].end)
      return makeError("corrupt .npz archive: " + describe(ranges[i - 1]) +
                       " and " + describe(ranges[i]) +
                       " overlap (a zip bomb?)");
  return llvm::Error::success();
}

llvm::Expected<NamedArrays>
trellis::runtime::parseNpz(StringRef bytes,
                           llvm::function_ref<void(uint64_t)> beforeInflating) {
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

  // Every member's records and sizes are checked, and the members against
  // each other, before anything is inflated. (A reader that went member by
  // member found the same errors, but those of inflating, CRCs and .npy
  // contents came before those of later members' records.)
  llvm::SmallVector<Member> members;
  uint64_t totalSize = 0;
  size_t at = dirOffset;
  for (uint16_t i = 0; i < entries; ++i) {
    if (at + 46 > bytes.size() || u32(bytes, at) != kCentralMagic)
      return makeError("corrupt .npz archive: bad central directory entry");
    Member member;
    member.method = u16(bytes, at + 10);
    member.crc = u32(bytes, at + 16);
    member.packed = u32(bytes, at + 20);
    member.size = u32(bytes, at + 24);
    uint16_t nameLength = u16(bytes, at + 28), extra = u16(bytes, at + 30),
             comment = u16(bytes, at + 32);
    // 64-bit: `local + 30` must not wrap around for offsets near 4 GiB.
    member.local = u32(bytes, at + 42);
    if (at + 46 + nameLength > bytes.size())
      return makeError("corrupt .npz archive: name past the end");
    member.name = bytes.substr(at + 46, nameLength).str();
    at += 46 + nameLength + extra + comment;
    uint64_t local = member.local;
    if (local + 30 > bytes.size() || u32(bytes, local) != kLocalMagic)
      return makeError("corrupt .npz archive: bad local header of '" +
                       member.name + "'");
    member.data = local + 30 + u16(bytes, local + 26) + u16(bytes, local + 28);
    if (member.data > bytes.size() ||
        member.packed > bytes.size() - member.data)
      return makeError("corrupt .npz archive: member '" + member.name +
                       "' runs past the end");
    // A size the data cannot inflate to is corrupt, and must not make us
    // allocate it.
    if (member.method == 8 && member.size / kMaxDeflateRatio > member.packed)
      return makeError(
          "member '" + member.name +
          "': corrupt deflated member: " + llvm::Twine(member.packed) +
          " bytes cannot inflate to " + llvm::Twine(member.size));
    if (member.method != 8 && member.method != 0)
      return makeError("member '" + member.name +
                       "': unsupported compression method " +
                       llvm::Twine(member.method));
    if (member.method == 0 && member.packed != member.size)
      return makeError("corrupt .npz archive: stored member '" + member.name +
                       "' has two sizes");
    totalSize += member.size;
    members.push_back(std::move(member));
  }
  if (llvm::Error err = checkNoOverlap(members, dirOffset,
                                       std::min<uint64_t>(at, bytes.size())))
    return std::move(err);
  // What every member inflates to is held at once.
  if (beforeInflating)
    beforeInflating(totalSize);

  NamedArrays arrays;
  llvm::StringSet<> names;
  for (const Member &member : members) {
    StringRef raw = bytes.substr(member.data, member.packed);
    std::optional<HostArray> array;
    if (member.method == 8) {
      llvm::Expected<HostArray> inflated =
          inflateNpy(raw, member.size, member.crc);
      if (!inflated)
        return makeError("member '" + member.name +
                         "': " + llvm::toString(inflated.takeError()));
      array = std::move(*inflated);
    } else {
      if (llvm::crc32(llvm::arrayRefFromStringRef(raw)) != member.crc)
        return makeError("member '" + member.name + "': CRC mismatch");
      llvm::Expected<HostArray> parsed = parseNpy(raw);
      if (!parsed)
        return makeError("member '" + member.name +
                         "': " + llvm::toString(parsed.takeError()));
      array = std::move(*parsed);
    }
    StringRef base(member.name);
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
