//===- ByteSize.cpp - Byte counts as people write them --------------------===//

#include "trellis/Runtime/ByteSize.h"

#include "RuntimeError.h"

#include "llvm/ADT/StringExtras.h"

#include <cstdio>

llvm::Expected<uint64_t> trellis::runtime::parseByteSize(llvm::StringRef text) {
  auto invalid = [&] {
    return makeError("'" + text +
                     "' is not a size (e.g. 4G, 1.5GiB, 512M, 1000000)");
  };
  llvm::StringRef rest = text.trim();
  size_t digits = rest.find_first_not_of("0123456789.");
  llvm::StringRef number = rest.take_front(digits);
  llvm::StringRef unit = rest.drop_front(number.size()).trim();
  double value;
  if (number.empty() || number.getAsDouble(value) || value < 0)
    return invalid();
  unit.consume_back("B");
  unit.consume_back("b");
  unit.consume_back("i");
  double scale = 1;
  if (unit.size() > 1)
    return invalid();
  if (!unit.empty()) {
    size_t power = llvm::StringRef("KMGT").find(llvm::toUpper(unit[0]));
    if (power == llvm::StringRef::npos)
      return invalid();
    scale = static_cast<double>(uint64_t(1) << (10 * (power + 1)));
  }
  double bytes = value * scale;
  if (bytes >= 1.8e19)
    return invalid();
  return static_cast<uint64_t>(bytes);
}

std::string trellis::runtime::formatBytes(uint64_t bytes) {
  static constexpr const char *kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024)
    return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", value, kUnits[unit]);
  return text;
}
