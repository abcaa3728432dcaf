//===- ControlFlowRules.cpp - Reverse-mode rules of calls and scf ---------===//
//
// func.call: the callee's VJP function (generated once per callee), called in
// the reverse sweep. scf.if: a reverse scf.if on the same condition that
// recomputes the taken branch and returns the cotangents of the values the
// branches capture. scf.for (constant trip count): the forward loop is
// rebuilt to record its carried values once per iteration, and a reverse
// loop walks the iterations backwards, recomputing each body from its
// recorded inputs — unless the body is an invertible step (a reversible
// stack), in which case each iteration's state is reconstructed from the
// next one's and nothing is recorded.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/AD/Rules/Rules.h"
#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace trellis;
using namespace trellis::ad;
using namespace trellis::builders;
using trellis::ad::rules::isFloatValue;

namespace {

Value orZeros(OpBuilder &b, Location loc, Value cotangent, Type type) {
  return cotangent ? cotangent : zerosLike(b, loc, type);
}

/// Float values defined above `regions` and used inside them: their
/// cotangents leave a region op as extra results.
SmallVector<Value> capturedFloats(MutableArrayRef<Region> regions) {
  llvm::SetVector<Value> captured;
  for (Region &region : regions)
    getUsedValuesDefinedAbove(region, captured);
  SmallVector<Value> floats;
  for (Value v : captured)
    if (isFloatValue(v))
      floats.push_back(v);
  return floats;
}

//===----------------------------------------------------------------------===//
// func.call
//===----------------------------------------------------------------------===//

LogicalResult rule(func::CallOp op, OpBuilder &b, ReverseContext &ctx,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Location loc = op.getLoc();
  auto callee =
      SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(op, op.getCalleeAttr());
  if (!callee || callee.isExternal())
    return op.emitOpError("cannot be differentiated: its callee has no body");
  FailureOr<func::FuncOp> vjp = ctx.getOrBuildVJPFunction(
      callee, (callee.getSymName() + "__call_vjp").str());
  if (failed(vjp))
    return failure();
  SmallVector<Value> args(op.getOperands());
  for (auto [result, cotangent] : llvm::zip(op.getResults(), dres))
    args.push_back(orZeros(b, loc, cotangent, result.getType()));
  auto call = func::CallOp::create(b, loc, *vjp, args);
  for (unsigned i = 0; i < op.getNumOperands(); ++i)
    if (isFloatValue(op.getOperand(i)))
      d[i] = call.getResult(op.getNumResults() + i);
  return success();
}

//===----------------------------------------------------------------------===//
// scf.if
//===----------------------------------------------------------------------===//

LogicalResult rule(scf::IfOp op, OpBuilder &b, ReverseContext &ctx,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Location loc = op.getLoc();
  SmallVector<Value> captured = capturedFloats(op->getRegions());
  auto reverseIf = scf::IfOp::create(b, loc, ValueRange(captured).getTypes(),
                                     op.getCondition(), /*withElse=*/true);
  for (auto [forward, reverse] :
       {std::pair(&op.getThenRegion(), &reverseIf.getThenRegion()),
        std::pair(&op.getElseRegion(), &reverseIf.getElseRegion())}) {
    OpBuilder rb = OpBuilder::atBlockEnd(&reverse->front());
    std::unique_ptr<ReverseContext> branch = ctx.createNested();
    if (!forward->empty() &&
        failed(branch->recomputeAndReverse(rb, forward->front(), ValueRange{},
                                           dres)))
      return failure();
    SmallVector<Value> yields;
    for (Value v : captured)
      yields.push_back(orZeros(rb, loc, branch->lookup(v), v.getType()));
    scf::YieldOp::create(rb, loc, yields);
  }
  for (auto [v, cotangent] : llvm::zip(captured, reverseIf.getResults()))
    ctx.accumulate(v, cotangent);
  return success();
}

//===----------------------------------------------------------------------===//
// scf.for
//===----------------------------------------------------------------------===//

/// A stack of `count` values of `type`: a tensor with a leading dimension.
RankedTensorType stackType(Type type, int64_t count) {
  SmallVector<int64_t> shape{count};
  Type element = type;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    llvm::append_range(shape, tensor.getShape());
    element = tensor.getElementType();
  }
  return RankedTensorType::get(shape, element);
}

/// Unit offsets/sizes/strides selecting entry `index` of a stack.
void entrySlice(OpBuilder &b, RankedTensorType stack, Value index,
                SmallVectorImpl<OpFoldResult> &offsets,
                SmallVectorImpl<OpFoldResult> &sizes,
                SmallVectorImpl<OpFoldResult> &strides) {
  offsets.assign(stack.getRank(), b.getIndexAttr(0));
  offsets[0] = index;
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t s : stack.getShape().drop_front())
    sizes.push_back(b.getIndexAttr(s));
  strides.assign(stack.getRank(), b.getIndexAttr(1));
}

Value push(OpBuilder &b, Location loc, Value stack, Value value, Value index) {
  auto type = cast<RankedTensorType>(stack.getType());
  if (!isa<RankedTensorType>(value.getType()))
    return tensor::InsertOp::create(b, loc, value, stack, index);
  SmallVector<OpFoldResult> offsets, sizes, strides;
  entrySlice(b, type, index, offsets, sizes, strides);
  return tensor::InsertSliceOp::create(b, loc, value, stack, offsets, sizes,
                                       strides);
}

Value peek(OpBuilder &b, Location loc, Value stack, Type type, Value index) {
  auto stackTy = cast<RankedTensorType>(stack.getType());
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return tensor::ExtractOp::create(b, loc, stack, index);
  SmallVector<OpFoldResult> offsets, sizes, strides;
  entrySlice(b, stackTy, index, offsets, sizes, strides);
  return tensor::ExtractSliceOp::create(b, loc, tensorType, stack, offsets,
                                        sizes, strides);
}

/// The invertible op of a loop whose every iteration maps the carried
/// values through it (and computes nothing else from them): such a loop is
/// reversed by reconstruction, without a tape.
InvertibleOpInterface getInvertibleStep(scf::ForOp op) {
  Block &body = *op.getBody();
  InvertibleOpInterface step;
  for (Operation &inner : body.without_terminator()) {
    if (auto inv = dyn_cast<InvertibleOpInterface>(inner)) {
      if (step)
        return nullptr;
      step = inv;
    }
  }
  if (!step || step->getOperands() != ValueRange(op.getRegionIterArgs()) ||
      body.getTerminator()->getOperands() != ValueRange(step->getResults()))
    return nullptr;
  for (BlockArgument arg : op.getRegionIterArgs())
    if (!arg.hasOneUse() || !isFloatValue(arg))
      return nullptr;
  return step;
}

/// Reverses a loop of invertible steps: state_{j} is reconstructed from
/// state_{j+1}, starting from the loop's results, so nothing per iteration
/// is stored. The other ops of the body (those preparing the step's
/// parameters from the induction variable and captured values, e.g.
/// slicing stacked weights) are recomputed per iteration and differentiated.
LogicalResult reverseInvertibleLoop(scf::ForOp op, InvertibleOpInterface step,
                                    int64_t count, OpBuilder &b,
                                    ReverseContext &ctx, ValueRange dres,
                                    SmallVectorImpl<Value> &d) {
  Location loc = op.getLoc();
  Block &body = *op.getBody();
  unsigned numCarried = op.getNumRegionIterArgs();
  SmallVector<Value> captured = capturedFloats(op->getRegions());
  SmallVector<Value> inits(op.getResults());
  for (auto [result, cotangent] : llvm::zip(op.getResults(), dres))
    inits.push_back(orZeros(b, loc, cotangent, result.getType()));
  for (Value v : captured)
    inits.push_back(zerosLike(b, loc, v.getType()));
  ReverseLoop rl = buildReverseLoop(b, loc, count, op.getLowerBound(),
                                    op.getStep(), inits);
  scf::ForOp reverse = rl.loop;
  OpBuilder &nb = rl.body;
  Value iv = rl.iv;
  ValueRange iter = reverse.getRegionIterArgs();

  IRMapping mapping;
  mapping.map(op.getInductionVar(), iv);
  SmallVector<Operation *> prepared;
  for (Operation &inner : body.without_terminator())
    if (&inner != step.getOperation())
      prepared.push_back(nb.clone(inner, mapping));
  std::unique_ptr<ReverseContext> nested = ctx.createNested();
  ReverseContext &sweep = *nested;
  SmallVector<Value> inputs, inputCots;
  if (failed(step.reverseFromOutputs(nb, sweep, iter.take_front(numCarried),
                                     iter.slice(numCarried, numCarried),
                                     &mapping, inputs, inputCots)))
    return failure();

  // A layer's slice of a stacked parameter gets its cotangent added into
  // that slice of the accumulator (O(slice), in place), instead of through
  // extract_slice's rule, which would build and add a whole zero stack per
  // iteration.
  SmallVector<Value> accumulators(
      iter.drop_front(2 * numCarried).begin(), iter.end());
  SmallVector<Operation *> others;
  for (Operation *clone : prepared) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(clone);
    auto pos = slice ? llvm::find(captured, slice.getSource()) : captured.end();
    Value cotangent = slice ? sweep.lookup(slice.getResult()) : Value();
    if (pos == captured.end() || !cotangent) {
      others.push_back(clone);
      continue;
    }
    Value &acc = accumulators[pos - captured.begin()];
    acc = addIntoSlice(nb, loc, acc, cotangent, slice.getMixedOffsets(),
                       slice.getMixedSizes(), slice.getMixedStrides());
  }
  if (failed(sweep.reverse(nb, others)))
    return failure();
  SmallVector<Value> yields(inputs);
  for (auto [i, c] : llvm::enumerate(inputCots))
    yields.push_back(orZeros(nb, loc, c, inputs[i].getType()));
  for (auto [c, v] : llvm::enumerate(captured)) {
    Value add = sweep.lookup(v);
    yields.push_back(add ? arith::AddFOp::create(nb, loc, accumulators[c], add)
                               .getResult()
                         : accumulators[c]);
  }
  scf::YieldOp::create(nb, loc, yields);
  for (unsigned i = 0; i < numCarried; ++i)
    d[3 + i] = reverse.getResult(numCarried + i);
  for (auto [c, v] : llvm::enumerate(captured))
    ctx.accumulate(v, reverse.getResult(2 * numCarried + c));
  return success();
}

LogicalResult rule(scf::ForOp op, OpBuilder &b, ReverseContext &ctx,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Location loc = op.getLoc();
  std::optional<APInt> trips = op.getStaticTripCount();
  if (!trips)
    return op.emitOpError("cannot be differentiated: the trip count must be "
                          "a constant");
  int64_t count = trips->getSExtValue();
  if (InvertibleOpInterface step = getInvertibleStep(op))
    return reverseInvertibleLoop(op, step, count, b, ctx, dres, d);
  for (Value v : op.getInitArgs())
    if (!isa<RankedTensorType, FloatType, IntegerType, IndexType>(v.getType()))
      return op.emitOpError("cannot be differentiated: carried values must "
                            "be ranked tensors or scalars");

  // Rebuild the forward loop so that it also records the values it carries
  // into each iteration (the tape); the original becomes dead.
  unsigned numCarried = op.getNumRegionIterArgs();
  Block &body = *op.getBody();
  OpBuilder fb(op);
  SmallVector<Value> inits(op.getInitArgs());
  for (Value v : op.getInitArgs()) {
    RankedTensorType st = stackType(v.getType(), count);
    inits.push_back(
        tensor::EmptyOp::create(fb, loc, st.getShape(), st.getElementType()));
  }
  Value lb = op.getLowerBound(), step = op.getStep();
  auto taped = scf::ForOp::create(
      fb, loc, lb, op.getUpperBound(), step, inits,
      [&](OpBuilder &nb, Location nl, Value iv, ValueRange iter) {
        Value k = arith::DivUIOp::create(
            nb, nl, arith::SubIOp::create(nb, nl, iv, lb), step);
        IRMapping mapping;
        mapping.map(body.getArgument(0), iv);
        for (unsigned i = 0; i < numCarried; ++i)
          mapping.map(body.getArgument(1 + i), iter[i]);
        for (Operation &inner : body.without_terminator())
          nb.clone(inner, mapping);
        SmallVector<Value> yields;
        for (Value y : body.getTerminator()->getOperands())
          yields.push_back(mapping.lookupOrDefault(y));
        for (unsigned i = 0; i < numCarried; ++i)
          yields.push_back(push(nb, nl, iter[numCarried + i], iter[i], k));
        scf::YieldOp::create(nb, nl, yields);
      });
  op->replaceAllUsesWith(taped.getResults().take_front(numCarried));

  // The reverse loop: iteration j = count−1−k recomputes the body from its
  // recorded inputs and propagates the carried cotangents one step back;
  // cotangents of captured values are summed across iterations.
  SmallVector<Value> captured = capturedFloats(op->getRegions());
  SmallVector<Value> carriedInit;
  for (auto [result, cotangent] : llvm::zip(op.getResults(), dres))
    carriedInit.push_back(
        isFloatValue(result)
            ? orZeros(b, loc, cotangent, result.getType())
            : zerosLike(b, loc, result.getType()));
  for (Value v : captured)
    carriedInit.push_back(zerosLike(b, loc, v.getType()));
  ReverseLoop rl = buildReverseLoop(b, loc, count, lb, step, carriedInit);
  scf::ForOp reverse = rl.loop;
  {
    OpBuilder &nb = rl.body;
    Location nl = loc;
    Value iv = rl.iv, j = rl.index;
    ValueRange iter = reverse.getRegionIterArgs();
    SmallVector<Value> args{iv};
    for (unsigned i = 0; i < numCarried; ++i)
      args.push_back(peek(nb, nl, taped.getResult(numCarried + i),
                          op.getInitArgs()[i].getType(), j));
    SmallVector<Value> seeds;
    for (unsigned i = 0; i < numCarried; ++i)
      seeds.push_back(isFloatValue(args[1 + i]) ? iter[i] : Value());
    std::unique_ptr<ReverseContext> nested = ctx.createNested();
    ReverseContext &sweep = *nested;
    FailureOr<SmallVector<Value>> argCotangents =
        sweep.recomputeAndReverse(nb, body, args, seeds);
    if (failed(argCotangents))
      return failure();
    SmallVector<Value> yields;
    for (unsigned i = 0; i < numCarried; ++i)
      yields.push_back(isFloatValue(args[1 + i])
                           ? orZeros(nb, nl, (*argCotangents)[1 + i],
                                     args[1 + i].getType())
                           : iter[i]);
    for (auto [c, v] : llvm::enumerate(captured)) {
      Value acc = iter[numCarried + c];
      Value add = sweep.lookup(v);
      yields.push_back(add ? arith::AddFOp::create(nb, nl, acc, add).getResult()
                           : acc);
    }
    scf::YieldOp::create(nb, nl, yields);
  }
  // Operands: lb, ub, step, inits...
  for (unsigned i = 0; i < numCarried; ++i)
    if (isFloatValue(op.getInitArgs()[i]))
      d[3 + i] = reverse.getResult(i);
  for (auto [c, v] : llvm::enumerate(captured))
    ctx.accumulate(v, reverse.getResult(numCarried + c));
  return success();
}


} // namespace

namespace trellis::ad {
void registerControlFlowReverseModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, func::FuncDialect *) {
    func::CallOp::attachInterface<RuleModel<func::CallOp, &rule>>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, scf::SCFDialect *) {
    scf::IfOp::attachInterface<RuleModel<scf::IfOp, &rule>>(*ctx);
    scf::ForOp::attachInterface<RuleModel<scf::ForOp, &rule>>(*ctx);
  });
}
} // namespace trellis::ad
