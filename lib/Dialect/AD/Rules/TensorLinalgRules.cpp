//===- TensorLinalgRules.cpp - Reverse-mode rules of tensor and linalg ----===//

#include "trellis/Dialect/AD/Rules/Rules.h"
#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace trellis;
using namespace trellis::ad;
using namespace trellis::builders;
using trellis::ad::rules::isFloatValue;

namespace {

/// The cotangent `d` of `operand`, in the operand's element type: a
/// mixed-precision contraction (f16 inputs, f32 accumulator) computes its
/// adjoints in the accumulator's type. Null for a non-float operand, which
/// gets no cotangent.
Value cotangentFor(OpBuilder &b, Location loc, Value operand, Value d) {
  if (!isFloatValue(operand))
    return Value();
  auto from = cast<FloatType>(getElementTypeOrSelf(d.getType()));
  auto to = cast<FloatType>(getElementTypeOrSelf(operand.getType()));
  if (from == to)
    return d;
  Type type = cast<RankedTensorType>(d.getType()).clone(to);
  if (to.getWidth() < from.getWidth())
    return arith::TruncFOp::create(b, loc, type, d);
  return arith::ExtFOp::create(b, loc, type, d);
}

//===----------------------------------------------------------------------===//
// tensor
//===----------------------------------------------------------------------===//

LogicalResult rule(tensor::EmptyOp, OpBuilder &, ReverseContext &, ValueRange,
                   SmallVectorImpl<Value> &) {
  return success();
}

LogicalResult rule(tensor::ExtractOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Value zeros = zerosLike(b, op.getLoc(), op.getTensor().getType());
  d[0] = tensor::InsertOp::create(b, op.getLoc(), dres[0], zeros,
                                  op.getIndices());
  return success();
}

LogicalResult rule(tensor::InsertOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Value dc = dres[0];
  d[0] = tensor::ExtractOp::create(b, op.getLoc(), dc, op.getIndices());
  Value zero = rules::constant(b, op.getScalar(), 0.0);
  d[1] = tensor::InsertOp::create(b, op.getLoc(), zero, dc, op.getIndices());
  return success();
}

LogicalResult rule(tensor::ExtractSliceOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Value zeros = zerosLike(b, op.getLoc(), op.getSource().getType());
  d[0] = tensor::InsertSliceOp::create(
      b, op.getLoc(), dres[0], zeros, op.getMixedOffsets(),
      op.getMixedSizes(), op.getMixedStrides());
  return success();
}

LogicalResult rule(tensor::InsertSliceOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Value dc = dres[0];
  d[0] = tensor::ExtractSliceOp::create(
      b, op.getLoc(), cast<RankedTensorType>(op.getSource().getType()), dc,
      op.getMixedOffsets(), op.getMixedSizes(), op.getMixedStrides());
  Value zeros = zerosLike(b, op.getLoc(), op.getSource().getType());
  d[1] = tensor::InsertSliceOp::create(b, op.getLoc(), zeros, dc,
                                       op.getMixedOffsets(), op.getMixedSizes(),
                                       op.getMixedStrides());
  return success();
}

LogicalResult rule(tensor::ExpandShapeOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  d[0] = tensor::CollapseShapeOp::create(b, op.getLoc(), op.getSrcType(),
                                         dres[0],
                                         op.getReassociationIndices());
  return success();
}

LogicalResult rule(tensor::CollapseShapeOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  d[0] = tensor::ExpandShapeOp::create(b, op.getLoc(), op.getSrcType(),
                                       dres[0], op.getReassociationIndices());
  return success();
}

LogicalResult rule(tensor::ConcatOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  int64_t dim = op.getDim(), offset = 0;
  auto resultType = op.getResultType();
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<OpFoldResult> offsets(resultType.getRank(), b.getIndexAttr(0));
    offsets[dim] = b.getIndexAttr(offset);
    SmallVector<OpFoldResult> sizes, strides(resultType.getRank(),
                                             b.getIndexAttr(1));
    for (int64_t s : type.getShape())
      sizes.push_back(b.getIndexAttr(s));
    d[i] = tensor::ExtractSliceOp::create(b, op.getLoc(), type, dres[0],
                                          offsets, sizes, strides);
    offset += type.getDimSize(dim);
  }
  return success();
}

LogicalResult rule(tensor::SplatOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Value total = buildScaledTotal(b, op.getLoc(), dres[0], 1.0);
  d[0] = tensor::ExtractOp::create(b, op.getLoc(), total, ValueRange{});
  return success();
}

//===----------------------------------------------------------------------===//
// linalg
//===----------------------------------------------------------------------===//

LogicalResult rule(linalg::FillOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  // The init is overwritten; the scalar reaches every element.
  Value value = op.getInputs()[0];
  if (!isFloatValue(value))
    return success();
  Value total = buildScaledTotal(b, op.getLoc(), dres[0], 1.0);
  d[0] = tensor::ExtractOp::create(b, op.getLoc(), total, ValueRange{});
  return success();
}

/// C' = C + A·B of a (batch) matmul, with `product` and `transpose` its own
/// product and transpose of the last two dims: dA = dC·Bᵀ, dB = Aᵀ·dC, dC
/// passes through. A product takes its left factor's element type: with an
/// integer A, dB is computed as (dCᵀ·A)ᵀ so that it is a float.
template <typename OpTy>
LogicalResult contractionRule(
    OpTy op, OpBuilder &b, ValueRange dres, SmallVectorImpl<Value> &d,
    llvm::function_ref<Value(OpBuilder &, Location, Value, Value)> product,
    llvm::function_ref<Value(OpBuilder &, Location, Value)> transpose) {
  if (op.hasUserDefinedMaps())
    return op.emitOpError("with user-defined indexing maps cannot be "
                          "differentiated yet");
  Location loc = op.getLoc();
  Value a = op.getInputs()[0], bm = op.getInputs()[1], dc = dres[0];
  if (isFloatValue(a))
    d[0] = cotangentFor(b, loc, a, product(b, loc, dc, transpose(b, loc, bm)));
  if (isFloatValue(bm))
    d[1] = cotangentFor(
        b, loc, bm,
        isFloatValue(a)
            ? product(b, loc, transpose(b, loc, a), dc)
            : transpose(b, loc, product(b, loc, transpose(b, loc, dc), a)));
  d[2] = dc;
  return success();
}

LogicalResult rule(linalg::MatmulOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  return contractionRule(op, b, dres, d, matmul, transpose2D);
}

LogicalResult rule(linalg::BatchMatmulOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  return contractionRule(op, b, dres, d, batchMatmul, transposeLast2);
}

LogicalResult rule(linalg::TransposeOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  ArrayRef<int64_t> perm = op.getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  Value init = tensor::EmptyOp::create(b, op.getLoc(), inType.getShape(),
                                       inType.getElementType());
  d[0] = linalg::TransposeOp::create(b, op.getLoc(), dres[0], init, inverse)
             .getResult()
             .front();
  return success();
}

LogicalResult rule(linalg::BroadcastOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  // Sum the cotangent over the broadcast dimensions.
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  Value init = zerosLike(b, op.getLoc(), inType);
  d[0] = linalg::ReduceOp::create(
             b, op.getLoc(), ValueRange{dres[0]}, ValueRange{init},
             op.getDimensions(),
             [](OpBuilder &nb, Location nl, ValueRange args) {
               Value sum = arith::AddFOp::create(nb, nl, args[0], args[1]);
               linalg::YieldOp::create(nb, nl, sum);
             })
             .getResult(0);
  return success();
}

LogicalResult rule(linalg::ReduceOp op, OpBuilder &b, ReverseContext &,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Block &body = op.getCombiner().front();
  if (op.getInputs().size() != 1 || !isa<arith::AddFOp>(body.front()) ||
      &body.front() != body.getTerminator()->getPrevNode())
    return op.emitOpError("cannot be differentiated: only single-input sum "
                          "reductions are supported");
  auto inType = cast<RankedTensorType>(op.getInputs()[0].getType());
  Value init = tensor::EmptyOp::create(b, op.getLoc(), inType.getShape(),
                                       inType.getElementType());
  d[0] = linalg::BroadcastOp::create(b, op.getLoc(), dres[0], init,
                                     op.getDimensions())
             .getResult()
             .front();
  d[1] = dres[0];
  return success();
}

/// The combiner of a reduction generic: `out ⊕ f(ins)`.
enum class Combiner { None, Add, Max, Min };

/// Classifies a reduction body: the yielded value must combine the output
/// block argument with a value computed from the inputs alone.
Combiner classifyReduction(Block &body, BlockArgument out, Value &term) {
  Operation *yield = body.getTerminator();
  Operation *def = yield->getOperand(0).getDefiningOp();
  if (!def || def->getNumOperands() != 2 || !out.hasOneUse())
    return Combiner::None;
  unsigned outPos = def->getOperand(0) == out ? 0 : 1;
  if (def->getOperand(outPos) != out)
    return Combiner::None;
  term = def->getOperand(1 - outPos);
  if (isa<arith::AddFOp>(def))
    return Combiner::Add;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(def))
    return Combiner::Max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(def))
    return Combiner::Min;
  return Combiner::None;
}

/// A generic's cotangent for input `k`: a new generic over the same loops
/// that recomputes the body per element, runs the reverse sweep of the
/// scalar body (with the same rules), and accumulates into a zero tensor of
/// input k's shape; loops missing from input k's map become reductions.
LogicalResult rule(linalg::GenericOp op, OpBuilder &b, ReverseContext &ctx,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Location loc = op.getLoc();
  if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return op.emitOpError("cannot be differentiated: only single-output "
                          "generics on tensors are supported");
  Block &body = op.getRegion().front();
  unsigned numInputs = op.getNumDpsInputs();
  BlockArgument outArg = body.getArgument(numInputs);
  bool reduces = op.getNumReductionLoops() > 0;
  Value term;
  Combiner combiner = Combiner::None;
  if (reduces) {
    combiner = classifyReduction(body, outArg, term);
    if (combiner == Combiner::None)
      return op.emitOpError("cannot be differentiated: a reduction must "
                            "combine the output with addf, maximumf or "
                            "minimumf");
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps.back();
  Value dc = dres[0], result = op.getResult(0), init = op.getDpsInits()[0];
  unsigned numLoops = op.getNumLoops();

  for (unsigned k = 0; k < numInputs; ++k) {
    Value input = op.getDpsInputs()[k];
    if (!isFloatValue(input))
      continue;
    AffineMap inMap = maps[k];
    if (!inMap.isProjectedPermutation())
      return op.emitOpError("cannot be differentiated: input #")
             << k << " has an indexing map that is not a projection";
    SmallVector<utils::IteratorType> iterators(numLoops,
                                               utils::IteratorType::reduction);
    for (AffineExpr e : inMap.getResults())
      iterators[cast<AffineDimExpr>(e).getPosition()] =
          utils::IteratorType::parallel;
    // When every loop indexes the input, each element is written once: the
    // body writes its contribution into an empty tensor instead of adding
    // to its output (which stays elementwise under later fusion and
    // differentiation).
    bool accumulates = llvm::is_contained(iterators,
                                          utils::IteratorType::reduction);

    // ins: the original inputs, the output's value seen by the body (the
    // init for elementwise generics, the final result for reductions), dc.
    SmallVector<Value> ins(op.getDpsInputs());
    ins.push_back(reduces ? result : init);
    ins.push_back(dc);
    SmallVector<AffineMap> insMaps(maps.begin(), maps.begin() + numInputs);
    insMaps.push_back(outMap);
    insMaps.push_back(outMap);
    auto inputType = cast<RankedTensorType>(input.getType());
    Value zeros = accumulates
                      ? zerosLike(b, loc, inputType)
                      : tensor::EmptyOp::create(b, loc, inputType.getShape(),
                                                inputType.getElementType())
                            .getResult();

    LogicalResult status = success();
    Value dInput = buildGeneric(
        b, loc, ins, insMaps, zeros, inMap, iterators,
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          IRMapping mapping;
          for (unsigned i = 0; i < numInputs; ++i)
            mapping.map(body.getArgument(i), args[i]);
          mapping.map(outArg, args[numInputs]);
          SmallVector<Operation *> clones;
          for (Operation &inner : body.without_terminator())
            clones.push_back(nb.clone(inner, mapping));
          Value dOut = args[numInputs + 1];
          std::unique_ptr<ReverseContext> nested = ctx.createNested();
          ReverseContext &sweep = *nested;
          if (!reduces) {
            sweep.seed(nb, mapping.lookup(body.getTerminator()->getOperand(0)),
                       dOut);
          } else {
            Value t = mapping.lookupOrDefault(term);
            Value seed = dOut;
            if (combiner != Combiner::Add) {
              Value hit = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                                t, args[numInputs]);
              seed = rules::keepWhere(nb, hit, dOut);
            }
            sweep.seed(nb, t, seed);
            // The combining op itself is not differentiated: drop it.
            Operation *combine =
                mapping.lookup(body.getTerminator()->getOperand(0))
                    .getDefiningOp();
            llvm::erase(clones, combine);
          }
          if (failed(sweep.reverse(nb, clones)))
            status = failure();
          Value contribution = sweep.lookup(args[k]);
          if (!contribution)
            contribution = rules::constant(nb, args[k], 0.0);
          if (!accumulates)
            return contribution;
          return arith::AddFOp::create(nb, nl, args.back(), contribution);
        });
    if (failed(status))
      return failure();
    d[k] = dInput;
  }
  // The init: an elementwise body may read it; an additive reduction adds it.
  if (isFloatValue(init) && !outArg.use_empty()) {
    if (!reduces)
      return op.emitOpError("cannot be differentiated: an elementwise body "
                            "reads its output operand");
    if (combiner == Combiner::Add) {
      d[numInputs] = dc;
    } else {
      // max/min: the init receives the cotangent where it is the result.
      Value isResult = arith::CmpFOp::create(
          b, loc, arith::CmpFPredicate::OEQ, init, result);
      d[numInputs] = rules::keepWhere(b, isResult, dc);
    }
  }
  return success();
}


template <typename... OpTys>
void attach(MLIRContext *ctx) {
  (OpTys::template attachInterface<RuleModel<OpTys, &rule>>(*ctx), ...);
}

} // namespace

namespace trellis::ad {
void registerArithMathReverseModels(DialectRegistry &registry);
void registerControlFlowReverseModels(DialectRegistry &registry);

void registerUpstreamReverseModeModels(DialectRegistry &registry) {
  registerArithMathReverseModels(registry);
  registerControlFlowReverseModels(registry);
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    attach<tensor::EmptyOp, tensor::ExtractOp, tensor::InsertOp,
           tensor::ExtractSliceOp, tensor::InsertSliceOp,
           tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ConcatOp,
           tensor::SplatOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attach<linalg::FillOp, linalg::MatmulOp, linalg::BatchMatmulOp,
           linalg::TransposeOp, linalg::BroadcastOp, linalg::ReduceOp,
           linalg::GenericOp>(ctx);
  });
}
} // namespace trellis::ad
