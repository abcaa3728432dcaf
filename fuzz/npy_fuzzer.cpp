//===- npy_fuzzer.cpp - libFuzzer target of the .npy/.npz readers ---------===//
//
// Every input goes to both parsers (lib/Runtime/Npy.cpp, Npz.cpp). Each must
// return arrays or an error: a crash, a sanitizer report, an allocation past
// libFuzzer's limit or a timeout is a bug. Arrays that decode must also
// survive a round trip through the writer: encodeNpy, then parseNpy, gives
// back the same dtype, shape and bytes.
//
//===----------------------------------------------------------------------===//

#include "trellis/Runtime/Npy.h"
#include "trellis/Runtime/Npz.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstring>
#include <string>

using namespace trellis::runtime;

/// Aborts (a libFuzzer crash) unless `array` re-encodes to a .npy file that
/// decodes to the same array.
static void checkRoundTrip(const HostArray &array) {
  std::string encoded;
  llvm::raw_string_ostream os(encoded);
  encodeNpy(os, array);
  os.flush();
  llvm::Expected<HostArray> decoded = parseNpy(encoded);
  if (!decoded)
    llvm::report_fatal_error("npy round trip: the writer's output does not "
                             "parse: " +
                             llvm::Twine(llvm::toString(decoded.takeError())));
  if (decoded->getDType() != array.getDType() ||
      decoded->getShape() != array.getShape() ||
      decoded->getByteSize() != array.getByteSize() ||
      std::memcmp(decoded->getData(), array.getData(), array.getByteSize()))
    llvm::report_fatal_error("npy round trip: a different array came back");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);

  llvm::Expected<HostArray> array = parseNpy(bytes);
  if (array)
    checkRoundTrip(*array);
  else
    llvm::consumeError(array.takeError());

  llvm::Expected<NamedArrays> arrays = parseNpz(bytes);
  if (arrays) {
    for (const auto &named : *arrays)
      checkRoundTrip(named.second);
  } else {
    llvm::consumeError(arrays.takeError());
  }
  return 0;
}
