//===- LinalgToBlas.cpp - GEMM-shaped linalg ops to CBLAS calls -----------===//
//
// After bufferization, every contraction matchGemm accepts whose operands a
// BLAS can address becomes a call of cblas_sgemm / cblas_dgemm (in scf.for
// loops over its batch dimensions). The call is told the layout through the
// CBLAS arguments instead of copying: an operand stored transposed is passed
// with Trans, an init stored column-major makes the call column-major.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/LinalgToBlas/LinalgToBlas.h"

#include "trellis/ExecutionEngine/RuntimeSymbols.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

namespace trellis {
#define GEN_PASS_DEF_CONVERTLINALGTOBLAS
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;
using trellis::GemmLibrary;

namespace {

// CBLAS enum values (cblas.h).
constexpr int32_t kRowMajor = 101, kColMajor = 102;
constexpr int32_t kNoTrans = 111, kTrans = 112;

/// One operand of the GEMM as the BLAS sees it: a matrix of `rows` x `cols`
/// (after the batch indices are fixed), with its memref strides.
struct MatrixView {
  int64_t rows, rowStride, cols, colStride;
};

/// The leading dimension of `view` read as a row-major matrix, if it is one:
/// unit stride along a row (or rows of length one) and rows that do not
/// overlap. BLAS requires ld >= max(1, cols) even where it is irrelevant.
std::optional<int64_t> rowMajorLd(MatrixView view) {
  int64_t minLd = std::max<int64_t>(1, view.cols);
  if (view.colStride != 1 && view.cols > 1)
    return std::nullopt;
  if (view.rows <= 1)
    return minLd;
  if (view.rowStride < minLd)
    return std::nullopt;
  return view.rowStride;
}

MatrixView transposed(MatrixView view) {
  return {view.cols, view.colStride, view.rows, view.rowStride};
}

/// How a BLAS call reads one input: transposed or not, and its leading dim.
struct InputLayout {
  bool trans;
  int64_t ld;
};

/// The layout of an input that is logically `view` (rows x cols) in a call
/// of the given order; prefers NoTrans.
std::optional<InputLayout> inputLayout(MatrixView view, bool rowMajor) {
  MatrixView asStored = rowMajor ? view : transposed(view);
  if (std::optional<int64_t> ld = rowMajorLd(asStored))
    return InputLayout{false, *ld};
  if (std::optional<int64_t> ld = rowMajorLd(transposed(asStored)))
    return InputLayout{true, *ld};
  return std::nullopt;
}

/// Everything the call needs, decided from static types.
struct GemmPlan {
  trellis::GemmDims dims;
  FloatType elementType;
  bool rowMajor;
  InputLayout a, b;
  int64_t ldc;
  int64_t m, n, k;
  /// Per operand (A, B, C), the memref stride of each batch loop.
  SmallVector<SmallVector<int64_t, 2>, 3> batchStrides;
  SmallVector<int64_t, 2> batchSizes;
};

/// Static strides of a memref with a static shape, or failure.
FailureOr<SmallVector<int64_t>> getStaticStrides(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return failure();
  return strides;
}

/// Plans the BLAS call for `op`, or fails if the op is not a GEMM a BLAS can
/// compute in place (types, layouts, sizes).
FailureOr<GemmPlan> planGemm(linalg::LinalgOp op) {
  FailureOr<trellis::GemmDims> dims =
      trellis::matchGemm(op, trellis::GemmBody::Scaled);
  if (failed(dims) || !op.hasPureBufferSemantics())
    return failure();
  GemmPlan plan;
  plan.dims = *dims;

  SmallVector<Value, 3> operands = {op.getDpsInputs()[0], op.getDpsInputs()[1],
                                    op.getDpsInits()[0]};
  SmallVector<SmallVector<int64_t>, 3> strides;
  for (Value operand : operands) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type)
      return failure();
    FailureOr<SmallVector<int64_t>> s = getStaticStrides(type);
    if (failed(s))
      return failure();
    strides.push_back(*s);
  }
  auto elementType = dyn_cast<FloatType>(
      cast<MemRefType>(operands[0].getType()).getElementType());
  if (!elementType || !(elementType.isF32() || elementType.isF64()) ||
      llvm::any_of(operands, [&](Value v) {
        return cast<MemRefType>(v.getType()).getElementType() != elementType;
      }))
    return failure();
  plan.elementType = elementType;

  SmallVector<int64_t> loopSizes = op.getStaticLoopRanges();
  if (llvm::any_of(loopSizes, ShapedType::isDynamic))
    return failure();
  constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // The stride of loop `d` in operand `i`.
  auto strideOf = [&](unsigned i, unsigned d) {
    std::optional<unsigned> pos =
        maps[i].getResultPosition(getAffineDimExpr(d, op.getContext()));
    return strides[i][*pos];
  };
  auto view = [&](unsigned i, unsigned rowDim, unsigned colDim) {
    return MatrixView{loopSizes[rowDim], strideOf(i, rowDim),
                      loopSizes[colDim], strideOf(i, colDim)};
  };
  plan.m = loopSizes[dims->m];
  plan.n = loopSizes[dims->n];
  plan.k = loopSizes[dims->k];
  // Empty products are left to the loops (which do nothing, or keep the
  // init): dnnl_sgemm with K = 0 and beta = 0 leaves C unwritten.
  if (plan.m > kIntMax || plan.n > kIntMax || plan.k > kIntMax ||
      plan.m == 0 || plan.n == 0 || plan.k == 0)
    return failure();

  // The init decides the call's order: row-major if C's rows are contiguous,
  // column-major (the same call on transposed storage) if its columns are.
  MatrixView c = view(2, dims->m, dims->n);
  if (std::optional<int64_t> ld = rowMajorLd(c)) {
    plan.rowMajor = true;
    plan.ldc = *ld;
  } else if (std::optional<int64_t> ld = rowMajorLd(transposed(c))) {
    plan.rowMajor = false;
    plan.ldc = *ld;
  } else {
    return failure();
  }
  std::optional<InputLayout> a =
      inputLayout(view(0, dims->m, dims->k), plan.rowMajor);
  std::optional<InputLayout> b =
      inputLayout(view(1, dims->k, dims->n), plan.rowMajor);
  if (!a || !b || a->ld > kIntMax || b->ld > kIntMax || plan.ldc > kIntMax)
    return failure();
  plan.a = *a;
  plan.b = *b;

  plan.batchStrides.resize(3);
  for (unsigned d : dims->batch) {
    plan.batchSizes.push_back(loopSizes[d]);
    for (unsigned i = 0; i < 3; ++i)
      plan.batchStrides[i].push_back(strideOf(i, d));
  }
  return plan;
}

/// If the nearest op before `op` that touches memory is a zero fill of
/// `init`, returns it: the call can overwrite instead of accumulate.
linalg::FillOp findZeroFillOf(Operation *op, Value init) {
  Operation *prev = op->getPrevNode();
  while (prev && (isMemoryEffectFree(prev) || isa<memref::AllocOp>(prev)))
    prev = prev->getPrevNode();
  auto fill = dyn_cast_or_null<linalg::FillOp>(prev);
  if (!fill || fill.getDpsInits()[0] != init ||
      !matchPattern(fill.getDpsInputs()[0], m_AnyZeroFloat()))
    return nullptr;
  return fill;
}

/// Returns the declaration of `name` with `type`, adding it to the module if
/// absent; fails if the module has a different symbol of that name.
FailureOr<func::FuncOp> getOrDeclare(ModuleOp module, StringRef name,
                                     FunctionType type) {
  if (Operation *existing = module.lookupSymbol(name)) {
    auto func = dyn_cast<func::FuncOp>(existing);
    if (!func || func.getFunctionType() != type) {
      existing->emitError() << "'" << name
                            << "' is declared with an unexpected type; "
                               "convert-linalg-to-blas calls it as "
                            << type;
      return failure();
    }
    return func;
  }
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), name, type);
  func.setPrivate();
  return func;
}

/// cblas_?gemm(order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta,
/// C, ldc) with 32-bit ints; dnnl_sgemm(transA, transB, M, N, K, alpha, A,
/// lda, B, ldb, beta, C, ldc) with chars and 64-bit dims, row-major only,
/// returning a status.
FunctionType getGemmType(MLIRContext *ctx, GemmLibrary library,
                         FloatType elementType) {
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  if (library == GemmLibrary::Dnnl) {
    Type i8 = IntegerType::get(ctx, 8), i64 = IntegerType::get(ctx, 64);
    return FunctionType::get(ctx,
                             {i8, i8, i64, i64, i64, elementType, ptr, i64, ptr,
                              i64, elementType, ptr, i64},
                             {IntegerType::get(ctx, 32)});
  }
  Type i32 = IntegerType::get(ctx, 32);
  return FunctionType::get(ctx,
                           {i32, i32, i32, i32, i32, i32, elementType, ptr, i32,
                            ptr, i32, elementType, ptr, i32},
                           {});
}

/// The runtime's name of the call (RuntimeSymbols.def).
StringRef getGemmName(GemmLibrary library, FloatType elementType) {
  using trellis::RuntimeFunction;
  RuntimeFunction function = library == GemmLibrary::Dnnl
                                 ? RuntimeFunction::DnnlSgemm
                             : elementType.isF32() ? RuntimeFunction::CblasSgemm
                                                   : RuntimeFunction::CblasDgemm;
  return trellis::getRuntimeFunction(function).name;
}

/// The number of GEMMs of `plan`'s batch.
int64_t batchEntries(const GemmPlan &plan) {
  int64_t entries = 1;
  for (int64_t size : plan.batchSizes)
    entries *= size;
  return entries;
}

/// Replaces `op` by the planned call(s); their batch loop is an
/// scf.parallel if `parallelBatch`.
void emitGemm(OpBuilder &b, linalg::LinalgOp op, const GemmPlan &plan,
              GemmLibrary library, func::FuncOp callee, bool overwrite,
              bool parallelBatch) {
  Location loc = op.getLoc();
  SmallVector<Value, 3> operands = {op.getDpsInputs()[0], op.getDpsInputs()[1],
                                    op.getDpsInits()[0]};
  Type i64 = b.getI64Type();
  // One constant per value: the call reads M, N, K and the leading dims.
  llvm::SmallDenseMap<int64_t, Value> i32Consts;
  auto i32Const = [&](int64_t v) -> Value {
    Value &c = i32Consts[v];
    if (!c)
      c = arith::ConstantIntOp::create(b, loc, v, 32);
    return c;
  };
  auto indexConst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // Aligned base (bytes) and offset (elements) of each operand.
  SmallVector<Value, 3> bases, offsets;
  for (Value operand : operands) {
    bases.push_back(
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand));
    offsets.push_back(
        memref::ExtractStridedMetadataOp::create(b, loc, operand).getOffset());
  }
  Value elementBytes =
      indexConst(plan.elementType.getIntOrFloatBitWidth() / 8);
  // alpha: the body's factor of the product (an SGD update folded in by
  // trellis-fuse-gemm-updates), else 1.
  Value alpha = plan.dims.scale;
  if (!alpha)
    alpha = arith::ConstantFloatOp::create(
        b, loc, plan.elementType,
        APFloat(plan.elementType.getFloatSemantics(), 1));
  if (plan.dims.negate)
    alpha = arith::NegFOp::create(b, loc, alpha);
  Value beta = arith::ConstantFloatOp::create(
      b, loc, plan.elementType,
      APFloat(plan.elementType.getFloatSemantics(), overwrite ? 0 : 1));
  // The integer arguments, in the library's order and types.
  SmallVector<Value, 8> ints;
  if (library == GemmLibrary::Cblas) {
    for (int64_t v :
         {int64_t(plan.rowMajor ? kRowMajor : kColMajor),
          int64_t(plan.a.trans ? kTrans : kNoTrans),
          int64_t(plan.b.trans ? kTrans : kNoTrans), plan.m, plan.n, plan.k,
          plan.a.ld, plan.b.ld, plan.ldc})
      ints.push_back(i32Const(v));
  } else {
    // Row-major only: a column-major C = op(A)·op(B) is the row-major
    // Cᵀ = op(B)ᵀ·op(A)ᵀ on the same storage, A and B exchanged.
    bool swap = !plan.rowMajor;
    const InputLayout &first = swap ? plan.b : plan.a;
    const InputLayout &second = swap ? plan.a : plan.b;
    auto i8Const = [&](char c) -> Value {
      return arith::ConstantIntOp::create(b, loc, c, 8);
    };
    auto i64Const = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, v, 64);
    };
    ints = {i8Const(first.trans ? 'T' : 'N'), i8Const(second.trans ? 'T' : 'N'),
            i64Const(swap ? plan.n : plan.m), i64Const(swap ? plan.m : plan.n),
            i64Const(plan.k), i64Const(first.ld), i64Const(second.ld),
            i64Const(plan.ldc)};
  }

  // Loops over the batch dims, the call in the innermost body: one
  // scf.parallel over all of them if `parallelBatch`, else nested scf.for.
  SmallVector<Value, 2> ivs;
  OpBuilder::InsertionGuard guard(b);
  Value zero = indexConst(0), one = indexConst(1);
  if (parallelBatch && !plan.batchSizes.empty()) {
    SmallVector<Value, 2> lower(plan.batchSizes.size(), zero),
        steps(plan.batchSizes.size(), one), upper;
    for (int64_t size : plan.batchSizes)
      upper.push_back(indexConst(size));
    auto loop = scf::ParallelOp::create(b, loc, lower, upper, steps);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    llvm::append_range(ivs, loop.getInductionVars());
  } else {
    for (int64_t size : plan.batchSizes) {
      auto loop = scf::ForOp::create(b, loc, zero, indexConst(size), one);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      ivs.push_back(loop.getInductionVar());
    }
  }
  SmallVector<Value, 3> pointers;
  for (unsigned i = 0; i < 3; ++i) {
    Value element = offsets[i];
    for (auto [iv, stride] : llvm::zip(ivs, plan.batchStrides[i]))
      element = arith::AddIOp::create(
          b, loc, element,
          arith::MulIOp::create(b, loc, iv, indexConst(stride)));
    Value address = arith::AddIOp::create(
        b, loc, bases[i], arith::MulIOp::create(b, loc, element, elementBytes));
    Value asInt = arith::IndexCastOp::create(b, loc, i64, address);
    pointers.push_back(LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), asInt));
  }
  if (library == GemmLibrary::Cblas) {
    func::CallOp::create(b, loc, callee,
                         ValueRange{ints[0], ints[1], ints[2], ints[3], ints[4],
                                    ints[5], alpha, pointers[0], ints[6],
                                    pointers[1], ints[7], beta, pointers[2],
                                    ints[8]});
    return;
  }
  // dnnl_sgemm only fails on invalid arguments, which the plan excludes.
  bool swap = !plan.rowMajor;
  func::CallOp::create(
      b, loc, callee,
      ValueRange{ints[0], ints[1], ints[2], ints[3], ints[4], alpha,
                 pointers[swap ? 1 : 0], ints[5], pointers[swap ? 0 : 1],
                 ints[6], beta, pointers[2], ints[7]});
}

/// The row-major call `plan` makes (emitGemm): a column-major plan is the
/// row-major product of Cᵀ, A and B exchanged.
trellis::GemmShape getCallShape(const GemmPlan &plan) {
  if (plan.rowMajor)
    return {plan.m, plan.n, plan.k, plan.a.trans, plan.b.trans};
  return {plan.n, plan.m, plan.k, plan.b.trans, plan.a.trans};
}

struct ConvertLinalgToBlasPass
    : trellis::impl::ConvertLinalgToBlasBase<ConvertLinalgToBlasPass> {
  using Base::Base;
  ConvertLinalgToBlasPass(const trellis::ConvertLinalgToBlasOptions &options,
                          trellis::GemmShapeChooser chooser)
      : Base(options), chooser(std::move(chooser)) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, GemmPlan>, 4> gemms;
    module.walk([&](linalg::LinalgOp op) {
      if (FailureOr<GemmPlan> plan = planGemm(op); succeeded(plan))
        gemms.emplace_back(op, std::move(*plan));
    });
    if (gemms.empty())
      return;
    MLIRContext *ctx = &getContext();
    auto orDefault = [&](const auto &option) {
      return option.hasValue() ? GemmLibrary(option) : GemmLibrary(sgemm);
    };
    trellis::GemmChoice choice{orDefault(sgemmSmall), orDefault(sgemmMedium),
                               orDefault(sgemmLarge), orDefault(sgemmThin),
                               orDefault(sgemmShort), orDefault(sgemmNarrow)};
    // An f32 GEMM's library: its class's, or for a GEMM beyond the medium
    // class the chooser's, asked once for all distinct shapes.
    SmallVector<GemmLibrary> libraries;
    // Per GEMM, its shape's index in `shapes`, or -1 if not asked.
    SmallVector<int> asked;
    SmallVector<trellis::GemmShape> shapes;
    SmallVector<GemmLibrary> classLibraries;
    for (auto &[op, plan] : gemms) {
      trellis::GemmClass gemmClass =
          trellis::classifyGemm(plan.m, plan.n, plan.k);
      // oneDNN has no f64 GEMM: f64 always goes to CBLAS.
      libraries.push_back(plan.elementType.isF32() ? choice.get(gemmClass)
                                                   : GemmLibrary::Cblas);
      asked.push_back(-1);
      if (!chooser || !plan.elementType.isF32() ||
          gemmClass == trellis::GemmClass::Small ||
          gemmClass == trellis::GemmClass::Medium)
        continue;
      trellis::GemmShape shape = getCallShape(plan);
      const auto *known = llvm::find(shapes, shape);
      asked.back() = known - shapes.begin();
      if (known == shapes.end()) {
        shapes.push_back(shape);
        classLibraries.push_back(libraries.back());
      }
    }
    if (!shapes.empty()) {
      SmallVector<GemmLibrary> chosen = chooser.choose(shapes, classLibraries);
      if (chosen.size() != shapes.size()) {
        module.emitError() << "the GEMM library chooser answered "
                           << chosen.size() << " of " << shapes.size()
                           << " shapes";
        return signalPassFailure();
      }
      for (auto [library, index] : llvm::zip(libraries, asked))
        if (index >= 0)
          library = chosen[index];
    }
    for (auto [gemm, library] : llvm::zip(gemms, libraries)) {
      auto &[op, plan] = gemm;
      trellis::GemmClass gemmClass =
          trellis::classifyGemm(plan.m, plan.n, plan.k);
      FailureOr<func::FuncOp> callee =
          getOrDeclare(module, getGemmName(library, plan.elementType),
                       getGemmType(ctx, library, plan.elementType));
      if (failed(callee))
        return signalPassFailure();
      OpBuilder b(op);
      linalg::FillOp fill = findZeroFillOf(op, op.getDpsInits()[0]);
      // Batch entries write disjoint parts of C unless a C batch stride is
      // 0; a large (thin, short) GEMM keeps the library's own threads.
      bool parallelBatch = parallelBatches && library == GemmLibrary::Dnnl &&
                           (gemmClass == trellis::GemmClass::Small ||
                            gemmClass == trellis::GemmClass::Medium) &&
                           batchEntries(plan) >= 2 &&
                           !llvm::is_contained(plan.batchStrides[2], 0);
      emitGemm(b, op, plan, library, *callee, /*overwrite=*/fill != nullptr,
               parallelBatch);
      if (fill)
        fill.erase();
      op.erase();
    }
  }

  trellis::GemmShapeChooser chooser;
};

} // namespace

std::unique_ptr<Pass>
trellis::createConvertLinalgToBlas(const ConvertLinalgToBlasOptions &options,
                                   GemmShapeChooser chooser) {
  return std::make_unique<ConvertLinalgToBlasPass>(options, std::move(chooser));
}

std::string trellis::GemmShape::str() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
         ":" + (transA ? "t" : "n") + (transB ? "t" : "n");
}

llvm::StringRef trellis::stringifyGemmClass(GemmClass gemmClass) {
  switch (gemmClass) {
  case GemmClass::Small:
    return "small";
  case GemmClass::Medium:
    return "medium";
  case GemmClass::Large:
    return "large";
  case GemmClass::Thin:
    return "thin";
  case GemmClass::Short:
    return "short";
  case GemmClass::Narrow:
    return "narrow";
  }
  llvm_unreachable("unknown GEMM class");
}
