//===- DType.cpp - Element types the runtime exchanges --------------------===//

#include "trellis/Runtime/DType.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"

using namespace trellis::runtime;

size_t trellis::runtime::getByteWidth(DType dtype) {
  return visitElementType(dtype, [](auto zero) { return sizeof(zero); });
}

bool trellis::runtime::isFloat(DType dtype) {
  return visitElementType(dtype, [](auto zero) {
    return std::is_floating_point_v<decltype(zero)>;
  });
}

llvm::StringRef trellis::runtime::getShortName(DType dtype) {
  switch (dtype) {
#define TRELLIS_DTYPE(NAME, C_TYPE, SHORT_NAME, ...)                           \
  case DType::NAME:                                                            \
    return SHORT_NAME;
#include "trellis/Runtime/DType.def"
  }
  llvm_unreachable("unknown DType");
}

llvm::StringRef trellis::runtime::getNpyDescr(DType dtype) {
  switch (dtype) {
#define TRELLIS_DTYPE(NAME, C_TYPE, SHORT_NAME, NUMPY_NAME, NPY_CODE, ...)     \
  case DType::NAME:                                                            \
    return "<" NPY_CODE;
#include "trellis/Runtime/DType.def"
  }
  llvm_unreachable("unknown DType");
}

llvm::StringRef trellis::runtime::getNumpyName(DType dtype) {
  switch (dtype) {
#define TRELLIS_DTYPE(NAME, C_TYPE, SHORT_NAME, NUMPY_NAME, ...)               \
  case DType::NAME:                                                            \
    return NUMPY_NAME;
#include "trellis/Runtime/DType.def"
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
#define TRELLIS_DTYPE(NAME, C_TYPE, SHORT_NAME, NUMPY_NAME, NPY_CODE, ...)     \
  .Case(NPY_CODE, DType::NAME)
#include "trellis/Runtime/DType.def"
      .Default(std::nullopt);
}

mlir::Type trellis::runtime::getMLIRType(mlir::MLIRContext *ctx, DType dtype) {
  switch (dtype) {
#define TRELLIS_DTYPE(NAME, C_TYPE, SHORT_NAME, NUMPY_NAME, NPY_CODE,          \
                      MLIR_TYPE, ...)                                          \
  case DType::NAME:                                                            \
    return MLIR_TYPE;
#include "trellis/Runtime/DType.def"
  }
  llvm_unreachable("unknown DType");
}

std::optional<DType> trellis::runtime::getDTypeOf(mlir::Type type) {
  // si32 and si64 hold the same values as i32 and i64.
  if (auto intType = llvm::dyn_cast<mlir::IntegerType>(type);
      intType && intType.isSigned())
    type = mlir::IntegerType::get(type.getContext(), intType.getWidth());
  mlir::MLIRContext *ctx = type.getContext();
#define TRELLIS_DTYPE(NAME, ...)                                               \
  if (type == getMLIRType(ctx, DType::NAME))                                   \
    return DType::NAME;
#include "trellis/Runtime/DType.def"
  return std::nullopt;
}
