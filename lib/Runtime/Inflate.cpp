//===- Inflate.cpp - Streaming inflation of deflate and gzip data ---------===//

#include "Inflate.h"

#include <algorithm>

using namespace trellis::runtime;

InflateStream::~InflateStream() {
  if (initialized)
    inflateEnd(&stream);
}

std::optional<size_t> InflateStream::read(char *out, size_t size) {
  if (failure != Failure::None)
    return std::nullopt;
  if (!initialized) {
    stream.next_in =
        reinterpret_cast<Bytef *>(const_cast<char *>(input.data()));
    stream.avail_in = static_cast<uInt>(input.size());
    // -MAX_WBITS: no header; 16 + MAX_WBITS: a gzip header and trailer.
    int bits = format == Format::RawDeflate ? -MAX_WBITS : 16 + MAX_WBITS;
    if (inflateInit2(&stream, bits) != Z_OK) {
      failure = Failure::Init;
      return std::nullopt;
    }
    initialized = true;
  }
  size_t got = 0;
  while (got < size && !ended) {
    // zlib counts in uInt: at most 1 GiB per call.
    uInt piece = static_cast<uInt>(std::min<size_t>(size - got, 1u << 30));
    stream.next_out = reinterpret_cast<Bytef *>(out + got);
    stream.avail_out = piece;
    int rc = inflate(&stream, Z_NO_FLUSH);
    got += piece - stream.avail_out;
    if (rc == Z_STREAM_END) {
      ended = true;
    } else if (rc == Z_BUF_ERROR ||
               (rc == Z_OK && stream.avail_in == 0 && stream.avail_out != 0)) {
      // The input ran out before the stream's end.
      failure = Failure::Truncated;
      return std::nullopt;
    } else if (rc != Z_OK) {
      failure = Failure::Corrupt;
      message = stream.msg ? stream.msg : "zlib error " + std::to_string(rc);
      return std::nullopt;
    }
  }
  return got;
}
