//===- DType.cpp - Element types the runtime exchanges --------------------===//

#include "trellis/Runtime/DType.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/ErrorHandling.h"

using namespace trellis::runtime;

size_t trellis::runtime::getByteWidth(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  }
  llvm_unreachable("unknown DType");
}

llvm::StringRef trellis::runtime::getNpyDescr(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::U32:
    return "<u4";
  }
  llvm_unreachable("unknown DType");
}

llvm::StringRef trellis::runtime::getNumpyName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "float32";
  case DType::F64:
    return "float64";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  case DType::U32:
    return "uint32";
  }
  llvm_unreachable("unknown DType");
}

std::optional<DType> trellis::runtime::parseNpyDescr(llvm::StringRef descr) {
  // '=' is native order, which is little-endian on every host we JIT for;
  // refuse it elsewhere rather than misread the data.
  if (descr.consume_front("=")) {
    if (llvm::endianness::native != llvm::endianness::little)
      return std::nullopt;
  } else if (!descr.consume_front("<")) {
    return std::nullopt;
  }
  return llvm::StringSwitch<std::optional<DType>>(descr)
      .Case("f4", DType::F32)
      .Case("f8", DType::F64)
      .Case("i4", DType::I32)
      .Case("i8", DType::I64)
      .Case("u4", DType::U32)
      .Default(std::nullopt);
}

std::optional<DType> trellis::runtime::getDTypeOf(mlir::Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  auto intType = llvm::dyn_cast<mlir::IntegerType>(type);
  if (!intType)
    return std::nullopt;
  if (intType.isUnsigned())
    return intType.getWidth() == 32 ? std::optional(DType::U32) : std::nullopt;
  switch (intType.getWidth()) {
  case 32:
    return DType::I32;
  case 64:
    return DType::I64;
  default:
    return std::nullopt;
  }
}
