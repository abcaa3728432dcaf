//===- Inflate.h - Streaming inflation of deflate and gzip data -*- C++ -*-===//
//
// The readers of compressed data (.npz members: raw deflate; IDX files:
// gzip) inflate piece by piece into memory of their own, so that a tensor
// is inflated straight into its array and costs its size once. Each reader
// words its own errors; this says what went wrong.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_RUNTIME_INFLATE_H
#define TRELLIS_LIB_RUNTIME_INFLATE_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>
#include <string>

#include <zlib.h>

namespace trellis::runtime {

/// A deflate stream over `input` (which must outlive it), inflated as it is
/// read.
class InflateStream {
public:
  enum class Format { RawDeflate, Gzip };
  enum class Failure { None, Init, Truncated, Corrupt };

  InflateStream(llvm::StringRef input, Format format)
      : input(input), format(format) {}
  InflateStream(const InflateStream &) = delete;
  InflateStream &operator=(const InflateStream &) = delete;
  ~InflateStream();

  /// Inflates up to `size` bytes to `out` and returns how many; fewer only
  /// where the stream ends. std::nullopt if the stream cannot be inflated
  /// (getFailure, getMessage say why); it stays failed.
  std::optional<size_t> read(char *out, size_t size);

  /// Whether the stream's end has been inflated.
  bool atEnd() const { return ended; }
  /// The input bytes after the stream's end (0 before it).
  size_t getTrailingInput() const { return ended ? stream.avail_in : 0; }

  Failure getFailure() const { return failure; }
  /// zlib's description of a Corrupt stream ("zlib error N" without one).
  llvm::StringRef getMessage() const { return message; }

private:
  llvm::StringRef input;
  Format format;
  z_stream stream{};
  bool initialized = false, ended = false;
  Failure failure = Failure::None;
  std::string message;
};

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_INFLATE_H
