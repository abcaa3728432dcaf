//===- PackedCall.cpp - Calling the ExecutionEngine's packed wrapper ------===//

#include "PackedCall.h"

#include "RuntimeError.h"

#include "trellis/Runtime/AllocHooks.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace trellis::runtime;

//===----------------------------------------------------------------------===//
// Lowered types and layout
//===----------------------------------------------------------------------===//

/// Returns the LLVM-dialect type of a scalar of `dtype`: its MLIR type,
/// with integers signless.
static mlir::Type getLoweredScalarType(mlir::MLIRContext *ctx, DType dtype) {
  mlir::Type type = getMLIRType(ctx, dtype);
  if (auto intType = llvm::dyn_cast<mlir::IntegerType>(type))
    return mlir::IntegerType::get(ctx, intType.getWidth());
  return type;
}

/// Appends the lowered parameter types of `value`.
static void appendLoweredParams(mlir::MLIRContext *ctx,
                                const BoundaryValue &value,
                                llvm::SmallVectorImpl<mlir::Type> &params) {
  if (value.isScalar) {
    params.push_back(getLoweredScalarType(ctx, value.dtype));
    return;
  }
  auto ptr = mlir::LLVM::LLVMPointerType::get(ctx);
  auto i64 = mlir::IntegerType::get(ctx, 64);
  params.append({ptr, ptr, i64});
  params.append(2 * value.getRank(), i64);
}

/// Returns the lowered type of `value` as a return value.
static mlir::Type getLoweredResultType(mlir::MLIRContext *ctx,
                                       const BoundaryValue &value) {
  if (value.isScalar)
    return getLoweredScalarType(ctx, value.dtype);
  auto ptr = mlir::LLVM::LLVMPointerType::get(ctx);
  auto i64 = mlir::IntegerType::get(ctx, 64);
  llvm::SmallVector<mlir::Type> fields = {ptr, ptr, i64};
  if (value.getRank() > 0) {
    auto array = mlir::LLVM::LLVMArrayType::get(i64, value.getRank());
    fields.append({array, array});
  }
  return mlir::LLVM::LLVMStructType::getLiteral(ctx, fields);
}

static unsigned getNumLoweredParams(const BoundaryValue &value) {
  return value.isScalar ? 1 : 3 + 2 * value.getRank();
}

/// Size and alignment of `value` as a return value (x86-64 and AArch64
/// natural alignment: pointers and i64 8 bytes, f32/i32 4).
static std::pair<size_t, size_t>
getResultSizeAndAlign(const BoundaryValue &value) {
  if (value.isScalar) {
    size_t width = getByteWidth(value.dtype);
    return {width, width};
  }
  return {8 * (3 + 2 * value.getRank()), 8};
}

llvm::Error
trellis::runtime::verifyLoweredSignature(mlir::LLVM::LLVMFuncOp func,
                                         const EntrySignature &signature) {
  mlir::MLIRContext *ctx = func.getContext();
  llvm::SmallVector<mlir::Type> params;
  for (const BoundaryValue &arg : signature.args)
    appendLoweredParams(ctx, arg, params);
  mlir::Type result;
  if (signature.results.empty()) {
    result = mlir::LLVM::LLVMVoidType::get(ctx);
  } else if (signature.results.size() == 1) {
    result = getLoweredResultType(ctx, signature.results.front());
  } else {
    llvm::SmallVector<mlir::Type> fields;
    for (const BoundaryValue &value : signature.results)
      fields.push_back(getLoweredResultType(ctx, value));
    result = mlir::LLVM::LLVMStructType::getLiteral(ctx, fields);
  }
  mlir::LLVM::LLVMFunctionType type = func.getFunctionType();
  if (type.isVarArg() || type.getParams() != llvm::ArrayRef(params) ||
      type.getReturnType() != result) {
    std::string actual;
    llvm::raw_string_ostream os(actual);
    os << type;
    return makeError("lowered @" + signature.name +
                     " has an unexpected calling convention: " + actual);
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// PackedCall
//===----------------------------------------------------------------------===//

PackedCall::PackedCall(const EntrySignature &signature,
                       llvm::MutableArrayRef<HostArray> args)
    : signature(signature), args(args) {
  unsigned numParams = 0;
  for (const BoundaryValue &arg : signature.args)
    numParams += getNumLoweredParams(arg);
  // Slots are addressed by pointer below: size them once.
  paramSlots.assign(numParams, 0);
  uint64_t *slot = paramSlots.data();
  auto push = [&](const void *value, size_t size) {
    std::memcpy(slot++, value, size);
  };
  for (auto [value, array] : llvm::zip_equal(signature.args, args)) {
    if (value.isScalar) {
      push(array.getData(), getByteWidth(value.dtype));
      continue;
    }
    // A dense row-major descriptor of the host buffer.
    char *data = array.getData();
    int64_t offset = 0;
    push(&data, sizeof(data));
    push(&data, sizeof(data));
    push(&offset, sizeof(offset));
    llvm::ArrayRef<int64_t> shape = array.getShape();
    for (int64_t size : shape)
      push(&size, sizeof(size));
    llvm::SmallVector<int64_t, 4> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * shape[i + 1];
    for (int64_t stride : strides)
      push(&stride, sizeof(stride));
  }

  // One result is returned as itself, several as a struct.
  size_t offset = 0, maxAlign = 8;
  for (const BoundaryValue &value : signature.results) {
    auto [size, align] = getResultSizeAndAlign(value);
    offset = llvm::alignTo(offset, align);
    resultOffsets.push_back(offset);
    offset += size;
    maxAlign = std::max(maxAlign, align);
  }
  resultStorage.assign(llvm::alignTo(std::max<size_t>(offset, 8), maxAlign) /
                           sizeof(uint64_t),
                       0);

  for (uint64_t &param : paramSlots)
    packedArgs.push_back(&param);
  packedArgs.push_back(resultStorage.data());
}

namespace {
/// A memref descriptor read back from the return value.
struct Descriptor {
  void *allocated;
  const char *aligned;
  int64_t offset;
  llvm::SmallVector<int64_t, 4> sizes;
  llvm::SmallVector<int64_t, 4> strides;
};
} // namespace

static Descriptor readDescriptor(const char *base, int64_t rank) {
  Descriptor desc;
  std::memcpy(&desc.allocated, base, 8);
  std::memcpy(&desc.aligned, base + 8, 8);
  std::memcpy(&desc.offset, base + 16, 8);
  desc.sizes.resize(rank);
  desc.strides.resize(rank);
  if (rank > 0) {
    std::memcpy(desc.sizes.data(), base + 24, 8 * rank);
    std::memcpy(desc.strides.data(), base + 24 + 8 * rank, 8 * rank);
  }
  return desc;
}

/// Copies the strided elements of `desc` into the dense `array`.
static void copyOut(const Descriptor &desc, HostArray &array) {
  int64_t rank = desc.sizes.size();
  size_t width = getByteWidth(array.getDType());
  if (array.getNumElements() == 0)
    return;
  const char *source = desc.aligned + desc.offset * static_cast<int64_t>(width);
  // Dense row-major (ignoring unit dimensions): one memcpy.
  bool dense = true;
  int64_t expectedStride = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (desc.sizes[i] != 1 && desc.strides[i] != expectedStride)
      dense = false;
    expectedStride *= desc.sizes[i];
  }
  if (dense) {
    std::memcpy(array.getData(), source, array.getByteSize());
    return;
  }
  llvm::SmallVector<int64_t, 4> index(rank, 0);
  char *dest = array.getData();
  for (int64_t n = 0; n < array.getNumElements(); ++n) {
    int64_t elementOffset = 0;
    for (int64_t i = 0; i < rank; ++i)
      elementOffset += index[i] * desc.strides[i];
    std::memcpy(dest + n * width, source + elementOffset * width, width);
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++index[i] < desc.sizes[i])
        break;
      index[i] = 0;
    }
  }
}

/// Copies result `index` (described by `value`) from `base` into a HostArray.
static llvm::Expected<HostArray>
readResult(unsigned index, const BoundaryValue &value, const char *base) {
  if (value.isScalar) {
    llvm::Expected<HostArray> array = HostArray::create(value.dtype, {});
    if (array)
      std::memcpy(array->getData(), base, getByteWidth(value.dtype));
    return array;
  }
  Descriptor desc = readDescriptor(base, value.getRank());
  llvm::Expected<HostArray> array = HostArray::create(value.dtype, desc.sizes);
  if (!array)
    return makeError("result " + llvm::Twine(index) + " of type " +
                     value.typeName + ": " + llvm::toString(array.takeError()));
  if (!value.accepts(*array))
    return makeError("result " + llvm::Twine(index) + " of type " +
                     value.typeName + " came back with sizes " +
                     formatShape(desc.sizes));
  copyOut(desc, *array);
  return array;
}

HostArray *PackedCall::findReturnedArgument(const BoundaryValue &value,
                                            const char *base) {
  if (value.isScalar)
    return nullptr;
  Descriptor desc = readDescriptor(base, value.getRank());
  for (HostArray &arg : args) {
    // A moved-from argument (an earlier result took it) holds no data; a
    // second result of the same buffer is copied from the first.
    if (arg.getNumElements() == 0 || arg.getData() != desc.aligned ||
        desc.offset != 0 || arg.getDType() != value.dtype ||
        arg.getShape() != llvm::ArrayRef<int64_t>(desc.sizes))
      continue;
    // Dense row-major, as the arguments are passed.
    int64_t stride = 1;
    for (int64_t i = value.getRank() - 1; i >= 0; --i) {
      if (desc.sizes[i] != 1 && desc.strides[i] != stride)
        return nullptr;
      stride *= desc.sizes[i];
    }
    return &arg;
  }
  return nullptr;
}

llvm::Expected<llvm::SmallVector<HostArray>> PackedCall::takeResults() {
  const char *storage = reinterpret_cast<const char *>(resultStorage.data());
  // Results may alias each other or an argument: free each buffer the
  // program allocated exactly once, and only after every copy is made.
  llvm::SmallPtrSet<void *, 4> programBuffers;
  for (auto [value, offset] :
       llvm::zip_equal(signature.results, resultOffsets)) {
    if (value.isScalar)
      continue;
    void *allocated = readDescriptor(storage + offset, 0).allocated;
    if (isLiveAllocation(allocated))
      programBuffers.insert(allocated);
  }
  llvm::scope_exit freeProgramBuffers([&] {
    for (void *buffer : programBuffers)
      _mlir_memref_to_llvm_free(buffer);
  });

  llvm::SmallVector<HostArray> results;
  for (auto [index, value, offset] :
       llvm::enumerate(signature.results, resultOffsets)) {
    if (HostArray *arg = findReturnedArgument(value, storage + offset)) {
      results.push_back(std::move(*arg));
      continue;
    }
    llvm::Expected<HostArray> array =
        readResult(index, value, storage + offset);
    if (!array)
      return array.takeError();
    results.push_back(std::move(*array));
  }
  return results;
}
