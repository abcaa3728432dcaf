//===- CollToMPI.cpp - Lower coll collectives to MPI ----------------------===//
//
// Each collective becomes: its operand's buffer (bufferization.to_buffer), a
// fresh result buffer, both viewed as 1-D, the communication, and the result
// buffer back as a tensor (bufferization.to_tensor restrict). One-shot
// bufferization then removes the casts; the buffers take part in buffer
// deallocation like any other.
//
// Every communicating collective calls the Trellis collectives runtime
// (include/trellis/ExecutionEngine/CollectivesRuntime.h), by the names of
// the runtime's table (RuntimeSymbols.def), with its source location: the
// runtime's calls are nonblocking and bounded by the collective timeout,
// which upstream's blocking `mpi.allreduce` cannot be. Upstream `mpi` ops
// serve axis_index (comm_rank), and with `upstream-allreduce` psum and pmean
// without groups (allreduce on MPI_COMM_WORLD).
//
// MPI counts are 32-bit ints, and the upstream lowering truncates a memref's
// size to one: the runtime gets `max-count` and splits its calls into pieces
// of at most that many elements; an upstream allreduce of more elements runs
// in pieces too (an scf.for over subviews). The return code of every
// upstream call goes to the runtime's check, which ends the job naming the
// collective on an error (the runtime sets MPI_ERRORS_RETURN, so nothing
// else would notice).
//
// With `check-agreement`, each communicating collective is preceded by a call
// to `trellis_coll_check` with a description of the collective and its
// location, both built here at compile time: every rank compiles the same
// module, so the descriptions differ only where ranks take different paths.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/CollToMPI/CollToMPI.h"

#include "trellis/Dialect/Coll/IR/Coll.h"
#include "trellis/ExecutionEngine/RuntimeSymbols.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

namespace trellis {
#define GEN_PASS_DEF_CONVERTCOLLTOMPI
#define GEN_PASS_DEF_FIXOPENMPISYMBOLS
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;
using namespace trellis;
using namespace trellis::coll;

namespace {

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

/// A buffer and its 1-D view (the mpi ops and the runtime see 1-D buffers).
struct FlatBuffer {
  Value buffer;
  Value flat;
};

Value flatten(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 1)
    return buffer;
  auto flatType =
      MemRefType::get({type.getNumElements()}, type.getElementType());
  if (type.getRank() == 0)
    return memref::ExpandShapeOp::create(b, loc, flatType, buffer,
                                         ArrayRef<ReassociationIndices>{});
  ReassociationIndices all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  return memref::CollapseShapeOp::create(b, loc, buffer,
                                         ArrayRef<ReassociationIndices>{all});
}

MemRefType bufferType(RankedTensorType type) {
  return MemRefType::get(type.getShape(), type.getElementType());
}

/// The operand's buffer, read only.
FlatBuffer readBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value buffer = bufferization::ToBufferOp::create(b, loc, bufferType(type),
                                                   tensor, /*read_only=*/true);
  return {buffer, flatten(b, loc, buffer)};
}

/// A fresh buffer for a result.
FlatBuffer newBuffer(OpBuilder &b, Location loc, RankedTensorType type) {
  Value buffer = memref::AllocOp::create(b, loc, bufferType(type));
  return {buffer, flatten(b, loc, buffer)};
}

Value toTensor(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get(type.getShape(), type.getElementType()),
      buffer, b.getUnitAttr(), b.getUnitAttr());
}

/// A 1-D i64 buffer holding `values` (groups, pairs), read only.
Value constantBuffer(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getI64Type());
  Value tensor = arith::ConstantOp::create(
      b, loc, DenseIntElementsAttr::get(type, values));
  return readBuffer(b, loc, tensor).buffer;
}

//===----------------------------------------------------------------------===//
// Runtime calls
//===----------------------------------------------------------------------===//

/// Casts a static 1-D buffer to the dynamic type runtime functions take.
Value dynamic(OpBuilder &b, Location loc, Value flat) {
  auto type = cast<MemRefType>(flat.getType());
  auto dynamicType =
      MemRefType::get({ShapedType::kDynamic}, type.getElementType());
  return memref::CastOp::create(b, loc, dynamicType, flat);
}

/// The runtime's f32 or f64 variant of a collective.
RuntimeFunction byElementType(Type elementType, RuntimeFunction f32,
                              RuntimeFunction f64) {
  return elementType.isF32() ? f32 : f64;
}

/// Calls the runtime function `function`, declaring it (with the C
/// interface for memref arguments) on first use.
void callRuntime(OpBuilder &b, Location loc, ModuleOp module,
                 RuntimeFunction function, ValueRange args,
                 TypeRange results = {},
                 SmallVectorImpl<Value> *resultValues = nullptr) {
  const RuntimeFunctionInfo &info = getRuntimeFunction(function);
  StringRef name = info.name;
  auto fn = module.lookupSymbol<func::FuncOp>(name);
  if (!fn) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    fn = func::FuncOp::create(
        b, loc, name, b.getFunctionType(ValueRange(args).getTypes(), results));
    fn.setPrivate();
    bool takesMemrefs = llvm::any_of(
        args, [](Value v) { return isa<MemRefType>(v.getType()); });
    assert(takesMemrefs == (info.symbol != info.name) &&
           "RuntimeSymbols.def links exactly the functions that take memrefs "
           "through their C interface");
    if (takesMemrefs)
      fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  b.getUnitAttr());
  }
  auto call = func::CallOp::create(b, loc, fn, args);
  if (resultValues)
    resultValues->assign(call.getResults().begin(), call.getResults().end());
}

SmallVector<int64_t> flatGroups(std::optional<DenseIntElementsAttr> groups) {
  if (!groups)
    return {};
  return SmallVector<int64_t>(groups->getValues<int64_t>());
}

int64_t groupSize(std::optional<DenseIntElementsAttr> groups) {
  return groups ? cast<ShapedType>(groups->getType()).getDimSize(1) : 0;
}

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), value);
}

/// A 1-D i8 buffer (memref<?xi8>) holding the bytes of `text`, read only.
Value textBuffer(OpBuilder &b, Location loc, StringRef text) {
  SmallVector<int8_t> bytes(text.begin(), text.end());
  auto type = RankedTensorType::get({static_cast<int64_t>(bytes.size())},
                                    b.getI8Type());
  Value tensor = arith::ConstantOp::create(
      b, loc, DenseIntElementsAttr::get(type, ArrayRef<int8_t>(bytes)));
  return dynamic(b, loc, readBuffer(b, loc, tensor).buffer);
}

//===----------------------------------------------------------------------===//
// Agreement checks (check-agreement)
//===----------------------------------------------------------------------===//

/// `f32[4x8]`; `f32[]` for a scalar.
void printTensor(llvm::raw_ostream &os, RankedTensorType type) {
  os << type.getElementType() << '[';
  llvm::interleave(type.getShape(), os, "x");
  os << ']';
}

/// `[[0,1],[2,3]]` for a 2-D groups or pairs attribute.
void printRows(llvm::raw_ostream &os, DenseIntElementsAttr rows) {
  int64_t width = cast<ShapedType>(rows.getType()).getDimSize(1);
  SmallVector<int64_t> values(rows.getValues<int64_t>());
  os << '[';
  for (int64_t i = 0, e = values.size(); i < e; i += width) {
    os << (i ? ",[" : "[");
    llvm::interleave(ArrayRef<int64_t>(values).slice(i, width), os, ",");
    os << ']';
  }
  os << ']';
}

/// What all ranks must agree on about a collective: the op, its operand's
/// dtype and shape (every tensor of a bucket's start), and whatever else
/// changes the communication (the result of all_gather, groups, pairs),
/// e.g. `coll.psum f32[4x8] groups=[[0,1]]`, `coll.pmean_start f32[4],f32[]`.
std::string describeCollective(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << ' ';
  llvm::interleave(
      op->getOperandTypes(), os,
      [&](Type type) { printTensor(os, cast<RankedTensorType>(type)); }, ",");
  if (auto gather = dyn_cast<AllGatherOp>(op)) {
    os << " -> ";
    printTensor(os, gather.getResult().getType());
    os << " dim=" << gather.getDim();
  }
  if (auto scatter = dyn_cast<PsumScatterOp>(op)) {
    os << " -> ";
    printTensor(os, scatter.getResult().getType());
    os << " dim=" << scatter.getDim();
  }
  if (auto groups = op->getAttrOfType<DenseIntElementsAttr>("groups")) {
    os << " groups=";
    printRows(os, groups);
  }
  if (auto pairs = op->getAttrOfType<DenseIntElementsAttr>("pairs")) {
    os << " pairs=";
    printRows(os, pairs);
  }
  return text;
}

/// `model.mlir:5:8`: the first file location in `loc` (inlined code carries
/// call-site locations), the file name without its directories.
std::string describeLocation(Location loc) {
  std::string text = "unknown location";
  loc->walk([&](Location nested) {
    auto file = dyn_cast<FileLineColLoc>(nested);
    if (!file)
      return WalkResult::advance();
    text = (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            Twine(file.getLine()) + ":" + Twine(file.getColumn()))
               .str();
    return WalkResult::interrupt();
  });
  return text;
}

/// True for the collectives that communicate (not axis_size, axis_index).
bool communicates(Operation *op) {
  return isa<PsumOp, PmeanOp, PpermuteOp, AllGatherOp, PsumScatterOp, AdasumOp,
             PsumStartOp, PmeanStartOp>(op);
}

//===----------------------------------------------------------------------===//
// The lowering of each op
//===----------------------------------------------------------------------===//

class Lowering {
public:
  Lowering(ModuleOp module, bool checkAgreement, bool upstreamAllreduce,
           int64_t maxCount)
      : module(module), b(module.getContext()), checkAgreement(checkAgreement),
        upstreamAllreduce(upstreamAllreduce), maxCount(maxCount) {}

  LogicalResult lower(Operation *op) {
    b.setInsertionPoint(op);
    if (auto axis = op->getAttrOfType<StringAttr>("axis");
        axis && axis.getValue() != kBatchAxis)
      return op->emitOpError("uses the axis '")
             << axis.getValue() << "', but only '" << kBatchAxis
             << "' (all ranks) is defined";
    if (checkAgreement && communicates(op))
      emitAgreementCheck(op);
    if (isa<PsumStartOp, PmeanStartOp>(op)) {
      reductionStart(op);
      return success();
    }
    if (auto wait = dyn_cast<WaitOp>(op)) {
      reductionWait(wait);
      return success();
    }
    Value result =
        llvm::TypeSwitch<Operation *, Value>(op)
            .Case([&](PsumOp op) { return psum(op); })
            .Case([&](PmeanOp op) { return pmean(op); })
            .Case([&](PpermuteOp op) { return ppermute(op); })
            .Case([&](AllGatherOp op) { return allGather(op); })
            .Case([&](PsumScatterOp op) { return psumScatter(op); })
            .Case([&](AdasumOp op) { return adasum(op); })
            .Case([&](AxisSizeOp op) { return axisSize(op.getLoc()); })
            .Case([&](AxisIndexOp op) { return axisIndex(op.getLoc()); })
            .Default([](Operation *) { return Value(); });
    if (!result)
      return op->emitOpError("has no lowering to MPI");
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    return success();
  }

private:
  /// trellis_coll_check(what, where): the first thing every rank does for
  /// the collective, so that all ranks meet in the runtime's check whatever
  /// collective each is about to run.
  void emitAgreementCheck(Operation *op) {
    Location loc = op->getLoc();
    callRuntime(b, loc, module, RuntimeFunction::CollCheck,
                {textBuffer(b, loc, describeCollective(op)),
                 textBuffer(b, loc, describeLocation(loc))});
  }

  /// Upstream: MPI_Allreduce on MPI_COMM_WORLD, for the collective `op`.
  Value psumWorld(Operation *op, Value x) {
    Location loc = op->getLoc();
    auto type = cast<RankedTensorType>(x.getType());
    FlatBuffer in = readBuffer(b, loc, x), out = newBuffer(b, loc, type);
    allReduceWorld(op, in.flat, out.flat, type.getNumElements());
    return toTensor(b, loc, out.buffer);
  }

  /// mpi.allreduce (MPI_SUM on MPI_COMM_WORLD) of the `n`-element 1-D
  /// buffers `in` into `out`. The upstream lowering passes the count as a
  /// 32-bit int: more than `maxCount` elements go in pieces of at most
  /// `maxCount` (subviews in an scf.for). Every call's return code goes to
  /// the runtime, which ends the job naming `op` if it is an error.
  void allReduceWorld(Operation *op, Value in, Value out, int64_t n) {
    Location loc = op->getLoc();
    MLIRContext *ctx = b.getContext();
    Value world = mpi::CommWorldOp::create(b, loc, mpi::CommType::get(ctx));
    Value what = textBuffer(b, loc,
                            (op->getName().getStringRef() + " (" +
                             describeLocation(loc) + "): MPI_Allreduce")
                                .str());
    auto reduce = [&](Value inPiece, Value outPiece) {
      Value retval = mpi::AllReduceOp::create(
                         b, loc, mpi::RetvalType::get(ctx), inPiece, outPiece,
                         mpi::MPI_ReductionOpEnum::MPI_SUM, world)
                         .getRetval();
      // !mpi.retval is the call's int once lowered (the upstream lowering
      // replaces it by the i32 the call returns; the casts then cancel).
      Value code =
          UnrealizedConversionCastOp::create(b, loc, b.getI32Type(), retval)
              .getResult(0);
      callRuntime(b, loc, module, RuntimeFunction::CollCheckResult,
                  {code, what});
    };
    if (n <= maxCount)
      return reduce(in, out);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value end = arith::ConstantIndexOp::create(b, loc, n);
    Value step = arith::ConstantIndexOp::create(b, loc, maxCount);
    auto loop = scf::ForOp::create(b, loc, zero, end, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value offset = loop.getInductionVar();
    Value left = arith::SubIOp::create(b, loc, end, offset);
    Value size = arith::MinSIOp::create(b, loc, step, left);
    auto piece = [&](Value buffer) -> Value {
      return memref::SubViewOp::create(b, loc, buffer, {OpFoldResult(offset)},
                                       {OpFoldResult(size)},
                                       {OpFoldResult(b.getIndexAttr(1))});
    };
    Value inPiece = piece(in);
    Value outPiece = piece(out);
    reduce(inPiece, outPiece);
  }

  /// The runtime's psum, pmean or Adasum within `groups`, all ranks if none
  /// (`f32` and `f64` its variants).
  Value reduceGroups(Location loc, Value x,
                     std::optional<DenseIntElementsAttr> groups,
                     RuntimeFunction f32, RuntimeFunction f64) {
    auto type = cast<RankedTensorType>(x.getType());
    FlatBuffer in = readBuffer(b, loc, x), out = newBuffer(b, loc, type);
    callRuntime(b, loc, module, byElementType(type.getElementType(), f32, f64),
                {dynamic(b, loc, in.flat), dynamic(b, loc, out.flat),
                 dynamic(b, loc, constantBuffer(b, loc, flatGroups(groups))),
                 i64Constant(b, loc, groupSize(groups)), maxCountValue(loc),
                 whereValue(loc)});
    return toTensor(b, loc, out.buffer);
  }

  /// The next to last argument of every runtime collective: the most
  /// elements one of its MPI calls may move.
  Value maxCountValue(Location loc) { return i64Constant(b, loc, maxCount); }

  /// The last argument of every runtime collective: its source location,
  /// which the runtime's errors and timeouts name.
  Value whereValue(Location loc) {
    return textBuffer(b, loc, describeLocation(loc));
  }

  Value psum(PsumOp op) {
    if (!op.getGroups() && upstreamAllreduce)
      return psumWorld(op, op.getX());
    return reduceGroups(op.getLoc(), op.getX(), op.getGroups(),
                        RuntimeFunction::CollPsumGroupsF32,
                        RuntimeFunction::CollPsumGroupsF64);
  }

  /// The runtime divides by the size of the group, or of the job (its
  /// errors then name coll.pmean); after an upstream allreduce, the sum is
  /// divided by the axis size here.
  Value pmean(PmeanOp op) {
    Location loc = op.getLoc();
    if (op.getGroups() || !upstreamAllreduce)
      return reduceGroups(loc, op.getX(), op.getGroups(),
                          RuntimeFunction::CollPmeanGroupsF32,
                          RuntimeFunction::CollPmeanGroupsF64);
    Value sum = psumWorld(op, op.getX());
    auto type = cast<RankedTensorType>(sum.getType());
    Type elementType = type.getElementType();
    Value size =
        arith::IndexCastOp::create(b, loc, b.getI64Type(), axisSize(loc));
    Value count = arith::SIToFPOp::create(b, loc, elementType, size);
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), elementType);
    Value counts = linalg::FillOp::create(b, loc, count, empty).getResult(0);
    return arith::DivFOp::create(b, loc, sum, counts);
  }

  Value ppermute(PpermuteOp op) {
    Location loc = op.getLoc();
    auto type = op.getX().getType();
    FlatBuffer in = readBuffer(b, loc, op.getX()),
               out = newBuffer(b, loc, type);
    SmallVector<int64_t> pairs(op.getPairs().getValues<int64_t>());
    callRuntime(b, loc, module,
                byElementType(type.getElementType(),
                              RuntimeFunction::CollPpermuteF32,
                              RuntimeFunction::CollPpermuteF64),
                {dynamic(b, loc, in.flat), dynamic(b, loc, out.flat),
                 dynamic(b, loc, constantBuffer(b, loc, pairs)),
                 maxCountValue(loc), whereValue(loc)});
    return toTensor(b, loc, out.buffer);
  }

  /// MPI_Allgather yields the ranks' tensors stacked in front (n x shape);
  /// for dim > 0 the rank dimension is moved next to dim and merged into it.
  Value allGather(AllGatherOp op) {
    Location loc = op.getLoc();
    RankedTensorType xType = op.getX().getType();
    int64_t n = op.getNumRanks(), dim = op.getDim(), rank = xType.getRank();
    SmallVector<int64_t> stackedShape{n};
    llvm::append_range(stackedShape, xType.getShape());
    auto stackedType =
        RankedTensorType::get(stackedShape, xType.getElementType());
    Value stacked = callTiled(loc, op.getX(), stackedType, op.getGroups(), n,
                              RuntimeFunction::CollAllGatherF32,
                              RuntimeFunction::CollAllGatherF64);
    if (dim > 0) {
      SmallVector<int64_t> permutation;
      for (int64_t i = 0; i < dim; ++i)
        permutation.push_back(i + 1);
      permutation.push_back(0);
      for (int64_t i = dim; i < rank; ++i)
        permutation.push_back(i + 1);
      stacked = transpose(loc, stacked, permutation);
    }
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i < rank; ++i) {
      if (i < dim)
        groups.push_back({i});
      else if (i == dim)
        groups.push_back({i, i + 1});
      else
        groups.push_back({i + 1});
    }
    return tensor::CollapseShapeOp::create(b, loc, op.getResult().getType(),
                                           stacked, groups);
  }

  /// MPI_Reduce_scatter_block splits its buffer into the ranks' blocks in
  /// front: for dim > 0, dim is moved to the front first (x split as
  /// n x (dim / n)), and the result moved back.
  Value psumScatter(PsumScatterOp op) {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    int64_t dim = op.getDim(), rank = type.getRank();
    SmallVector<int64_t> permutation{dim}, shape{type.getDimSize(dim)};
    for (int64_t i = 0; i < rank; ++i)
      if (i != dim) {
        permutation.push_back(i);
        shape.push_back(type.getDimSize(i));
      }
    Value x = dim > 0 ? transpose(loc, op.getX(), permutation) : op.getX();
    Value result = callTiled(
        loc, x, RankedTensorType::get(shape, type.getElementType()),
        op.getGroups(), op.getNumRanks(), RuntimeFunction::CollPsumScatterF32,
        RuntimeFunction::CollPsumScatterF64);
    if (dim == 0)
      return result;
    SmallVector<int64_t> inverse(rank);
    for (int64_t i = 0; i < rank; ++i)
      inverse[permutation[i]] = i;
    return transpose(loc, result, inverse);
  }

  /// The runtime's all_gather or psum_scatter (`f32`, `f64` its variants)
  /// of `x` into a new tensor of `outType`, within `groups` (all ranks if
  /// none) of `n` ranks.
  Value callTiled(Location loc, Value x, RankedTensorType outType,
                  std::optional<DenseIntElementsAttr> groups, int64_t n,
                  RuntimeFunction f32, RuntimeFunction f64) {
    FlatBuffer in = readBuffer(b, loc, x), out = newBuffer(b, loc, outType);
    callRuntime(b, loc, module,
                byElementType(outType.getElementType(), f32, f64),
                {dynamic(b, loc, in.flat), dynamic(b, loc, out.flat),
                 dynamic(b, loc, constantBuffer(b, loc, flatGroups(groups))),
                 i64Constant(b, loc, groupSize(groups)), i64Constant(b, loc, n),
                 maxCountValue(loc), whereValue(loc)});
    return toTensor(b, loc, out.buffer);
  }

  /// `v` with its dimensions permuted: dim i of the result is `v`'s
  /// `permutation[i]`.
  Value transpose(Location loc, Value v, ArrayRef<int64_t> permutation) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    for (int64_t p : permutation)
      shape.push_back(type.getDimSize(p));
    Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
    return linalg::TransposeOp::create(b, loc, v, init, permutation)
        .getResult()[0];
  }

  Value adasum(AdasumOp op) {
    return reduceGroups(op.getLoc(), op.getX(), op.getGroups(),
                        RuntimeFunction::CollAdasumF32,
                        RuntimeFunction::CollAdasumF64);
  }

  /// A started bucket: its buffer and the runtime's request number.
  struct Started {
    Value bucket;
    Value request;
  };

  /// psum_start, pmean_start: the tensors copied end to end into a fresh
  /// buffer (the bucket), whose reduction the runtime starts in place. The
  /// start stays until its wait is lowered.
  void reductionStart(Operation *op) {
    Location loc = op->getLoc();
    auto elementType =
        cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
    int64_t total = 0;
    for (Type type : op->getOperandTypes())
      total += cast<RankedTensorType>(type).getNumElements();
    Value bucket =
        memref::AllocOp::create(b, loc, MemRefType::get({total}, elementType));
    int64_t offset = 0;
    for (Value x : op->getOperands()) {
      int64_t n = cast<RankedTensorType>(x.getType()).getNumElements();
      memref::CopyOp::create(b, loc, readBuffer(b, loc, x).flat,
                             piece(loc, bucket, offset, n));
      offset += n;
    }
    auto groups = op->getAttrOfType<DenseIntElementsAttr>("groups");
    std::optional<DenseIntElementsAttr> maybeGroups;
    if (groups)
      maybeGroups = groups;
    SmallVector<Value> results;
    callRuntime(
        b, loc, module,
        byElementType(elementType, RuntimeFunction::CollReduceStartF32,
                      RuntimeFunction::CollReduceStartF64),
        {dynamic(b, loc, bucket),
         dynamic(b, loc, constantBuffer(b, loc, flatGroups(maybeGroups))),
         i64Constant(b, loc, groupSize(maybeGroups)),
         i64Constant(b, loc, isa<PmeanStartOp>(op)), maxCountValue(loc),
         whereValue(loc)},
        {b.getI64Type()}, &results);
    started[op] = {bucket, results[0]};
  }

  /// coll.wait: the runtime completes the request (and divides a mean);
  /// each result is copied out of the bucket into a buffer of its own.
  void reductionWait(WaitOp wait) {
    Location loc = wait.getLoc();
    Operation *start = wait.getStart();
    Started bucket = started.lookup(start);
    auto elementType =
        cast<MemRefType>(bucket.bucket.getType()).getElementType();
    callRuntime(
        b, loc, module,
        byElementType(elementType, RuntimeFunction::CollReduceWaitF32,
                      RuntimeFunction::CollReduceWaitF64),
        {bucket.request, dynamic(b, loc, bucket.bucket), whereValue(loc)});
    int64_t offset = 0;
    for (Value result : wait.getResults()) {
      auto type = cast<RankedTensorType>(result.getType());
      int64_t n = type.getNumElements();
      FlatBuffer out = newBuffer(b, loc, type);
      memref::CopyOp::create(b, loc, piece(loc, bucket.bucket, offset, n),
                             out.flat);
      result.replaceAllUsesWith(toTensor(b, loc, out.buffer));
      offset += n;
    }
    wait.erase();
    start->erase();
    started.erase(start);
  }

  /// Elements [offset, offset + n) of the 1-D `buffer`.
  Value piece(Location loc, Value buffer, int64_t offset, int64_t n) {
    return memref::SubViewOp::create(b, loc, buffer, ArrayRef<int64_t>{offset},
                                     ArrayRef<int64_t>{n},
                                     ArrayRef<int64_t>{1});
  }

  /// MPI_Comm_size has no upstream lowering in LLVM 22.
  Value axisSize(Location loc) {
    SmallVector<Value> results;
    callRuntime(b, loc, module, RuntimeFunction::CollAxisSize, {},
                {b.getI64Type()}, &results);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), results[0]);
  }

  Value axisIndex(Location loc) {
    Value world =
        mpi::CommWorldOp::create(b, loc, mpi::CommType::get(b.getContext()));
    Value rank = mpi::CommRankOp::create(b, loc, Type(), b.getI32Type(), world)
                     .getRank();
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), rank);
  }

  ModuleOp module;
  OpBuilder b;
  /// Starts lowered whose wait is not yet.
  DenseMap<Operation *, Started> started;
  bool checkAgreement;
  bool upstreamAllreduce;
  int64_t maxCount;
};

struct ConvertCollToMPIPass
    : public trellis::impl::ConvertCollToMPIBase<ConvertCollToMPIPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<CollDialect>(op->getDialect()))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    int64_t limit = maxCount;
    if (limit < 1 || limit > std::numeric_limits<int32_t>::max()) {
      emitError(module.getLoc(),
                "convert-coll-to-mpi: max-count must lie in [1, ")
          << std::numeric_limits<int32_t>::max() << "], got " << limit;
      return signalPassFailure();
    }
    Lowering lowering(module, checkAgreement, upstreamAllreduce, limit);
    for (Operation *op : ops)
      if (failed(lowering.lower(op)))
        return signalPassFailure();
    // The upstream lowering picks the MPI ABI from this entry (default:
    // MPICH, whose handles are ints — wrong for OpenMPI).
    if (!module->hasAttr(DLTIDialect::kMapAttrName)) {
      MLIRContext *ctx = module.getContext();
      module->setAttr(
          DLTIDialect::kMapAttrName,
          MapAttr::get(ctx, {DataLayoutEntryAttr::get(
                                StringAttr::get(ctx, "MPI:Implementation"),
                                StringAttr::get(ctx, "OpenMPI"))}));
    }
  }
};

//===----------------------------------------------------------------------===//
// OpenMPI symbol names
//===----------------------------------------------------------------------===//

struct FixOpenMPISymbolsPass
    : public trellis::impl::FixOpenMPISymbolsBase<FixOpenMPISymbolsPass> {
  void runOnOperation() override {
    static constexpr StringLiteral kOps[] = {
        "sum", "max",  "min",  "prod",   "land",   "band",    "lor",
        "bor", "lxor", "bxor", "minloc", "maxloc", "replace", "no_op"};
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (StringRef op : kOps) {
      std::string wrong = ("ompi_mpi_" + op).str();
      std::string right = ("ompi_mpi_op_" + op).str();
      auto global = symbols.lookup<LLVM::GlobalOp>(wrong);
      if (!global)
        continue;
      if (symbols.lookup(right)) {
        if (failed(SymbolTable::replaceAllSymbolUses(
                global, StringAttr::get(&getContext(), right), module)))
          return signalPassFailure();
        symbols.erase(global);
        continue;
      }
      if (failed(symbols.rename(global, right)))
        return signalPassFailure();
    }
  }
};

//===----------------------------------------------------------------------===//
// Memory effects of mpi ops
//===----------------------------------------------------------------------===//

/// mpi.allreduce reads its send buffer and writes its receive buffer.
struct AllReduceEffects
    : public MemoryEffectOpInterface::ExternalModel<AllReduceEffects,
                                                    mpi::AllReduceOp> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    auto allreduce = cast<mpi::AllReduceOp>(op);
    effects.emplace_back(MemoryEffects::Read::get(),
                         &allreduce.getSendbufMutable());
    effects.emplace_back(MemoryEffects::Write::get(),
                         &allreduce.getRecvbufMutable());
  }
};

} // namespace

void trellis::registerMPIMemoryEffectModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, mpi::MPIDialect *) {
    mpi::AllReduceOp::attachInterface<AllReduceEffects>(*ctx);
  });
}
