//===- Signature.cpp - The host-visible signature of an entry -------------===//

#include "trellis/Runtime/Signature.h"

#include "RuntimeError.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace trellis::runtime;

static std::string printType(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

llvm::Expected<mlir::func::FuncOp>
trellis::runtime::lookupEntryFunction(mlir::ModuleOp module,
                                      llvm::StringRef entry) {
  auto func = module.lookupSymbol<mlir::func::FuncOp>(entry);
  if (func && !func.isExternal())
    return func;
  if (func)
    return makeError("entry @" + entry +
                     " is a declaration; it needs a body to run");
  std::string available;
  llvm::raw_string_ostream os(available);
  llvm::interleaveComma(
      module.getOps<mlir::func::FuncOp>(), os,
      [&](mlir::func::FuncOp f) { os << '@' << f.getSymName(); });
  std::string message =
      ("no func.func named @" + entry + " in the module").str();
  if (!available.empty())
    message += " (functions: " + available + ")";
  return makeError(message);
}

llvm::Expected<BoundaryValue>
trellis::runtime::getBoundaryValue(mlir::Type type) {
  BoundaryValue value;
  value.typeName = printType(type);
  mlir::Type elementType = type;
  if (auto tensorType = llvm::dyn_cast<mlir::RankedTensorType>(type)) {
    elementType = tensorType.getElementType();
    value.shape.assign(tensorType.getShape().begin(),
                       tensorType.getShape().end());
  } else if (auto memrefType = llvm::dyn_cast<mlir::MemRefType>(type)) {
    // The host passes dense row-major buffers in the default memory space.
    if (!memrefType.getLayout().isIdentity() || memrefType.getMemorySpace())
      return makeError("unsupported type " + value.typeName +
                       " (only identity layouts in the default memory space)");
    elementType = memrefType.getElementType();
    value.shape.assign(memrefType.getShape().begin(),
                       memrefType.getShape().end());
  } else {
    value.isScalar = true;
  }
  // `index` is 64 bits wide in the lowered code (the LLVM lowering's
  // default for 64-bit targets): the host sees int64.
  if (elementType.isIndex())
    elementType = mlir::IntegerType::get(type.getContext(), 64);
  std::optional<DType> dtype = getDTypeOf(elementType);
  if (!dtype)
    return makeError("unsupported type " + value.typeName +
                     " (supported: f32, f64, i32, i64, ui32 scalars and ranked "
                     "tensors or memrefs of them)");
  value.dtype = *dtype;
  return value;
}

llvm::Expected<EntrySignature>
trellis::runtime::getEntrySignature(mlir::func::FuncOp func) {
  EntrySignature signature;
  signature.name = func.getSymName().str();
  auto describe =
      [&](llvm::StringRef kind, unsigned index, mlir::Type type,
          llvm::SmallVectorImpl<BoundaryValue> &values) -> llvm::Error {
    llvm::Expected<BoundaryValue> value = getBoundaryValue(type);
    if (!value)
      return makeError(kind + " " + llvm::Twine(index) + " of @" +
                       signature.name + ": " +
                       llvm::toString(value.takeError()));
    values.push_back(std::move(*value));
    return llvm::Error::success();
  };
  for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
    if (llvm::Error err = describe("argument", index, type, signature.args))
      return std::move(err);
  for (auto [index, type] : llvm::enumerate(func.getResultTypes()))
    if (llvm::Error err = describe("result", index, type, signature.results))
      return std::move(err);
  return signature;
}

bool BoundaryValue::accepts(const HostArray &array) const {
  if (array.getDType() != dtype || array.getRank() != getRank())
    return false;
  for (auto [expected, actual] : llvm::zip_equal(shape, array.getShape()))
    if (expected != mlir::ShapedType::kDynamic && expected != actual)
      return false;
  return true;
}

llvm::Error trellis::runtime::checkBinding(const BoundaryValue &value,
                                           const HostArray &array) {
  if (value.accepts(array))
    return llvm::Error::success();
  std::string got;
  llvm::raw_string_ostream os(got);
  array.printTypeAndShape(os);
  return makeError("expected " + value.typeName + ", got " + got);
}
