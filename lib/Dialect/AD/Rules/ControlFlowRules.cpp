//===- ControlFlowRules.cpp - Reverse-mode rules of calls and scf ---------===//
//
// func.call: the callee's VJP function (generated once per callee), called in
// the reverse sweep. scf.if: a reverse scf.if on the same condition that
// recomputes the taken branch and returns the cotangents of the values the
// branches capture. scf.for: the forward loop is rebuilt to record its
// carried values once per iteration (on a tape sized by the trip count, a
// constant or computed at run time from the bounds), and a reverse loop
// walks the iterations backwards, recomputing each body from its recorded
// inputs — unless the body is an invertible step (a reversible stack), in
// which case each iteration's state is reconstructed from the next one's
// and nothing is recorded. scf.while: the same, with a tape grown by
// doubling and the evaluations counted as the loop runs.
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

/// A stack of `count` values of `type` (kDynamic: sized at run time): a
/// tensor with a leading dimension.
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
                                    Value count, OpBuilder &b,
                                    ReverseContext &ctx, ValueRange dres,
                                    SmallVectorImpl<Value> &d) {
  Location loc = op.getLoc();
  remarkOnReconstructionDrift(op);
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
  // (One range: the begin of a drop_front and the end of `iter` are
  // iterators of two ranges, which an assertion build rejects.)
  SmallVector<Value> accumulators(iter.drop_front(2 * numCarried));
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

/// The trip count of `op` as an index value: a constant when it is known,
/// otherwise computed before the loop from its bounds (0 when lb ≥ ub).
FailureOr<Value> tripCount(scf::ForOp op) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  if (std::optional<APInt> trips = op.getStaticTripCount())
    return indexConst(b, loc, trips->getSExtValue());
  if (!op.getInductionVar().getType().isIndex())
    return op.emitOpError("cannot be differentiated: a trip count known at "
                          "run time only needs index bounds");
  bool isUnsigned = op.getUnsignedCmp();
  Value lb = op.getLowerBound(), ub = op.getUpperBound();
  Value runs = arith::CmpIOp::create(b, loc,
                                     isUnsigned ? arith::CmpIPredicate::ugt
                                                : arith::CmpIPredicate::sgt,
                                     ub, lb);
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value count =
      isUnsigned
          ? arith::CeilDivUIOp::create(b, loc, span, op.getStep()).getResult()
          : arith::CeilDivSIOp::create(b, loc, span, op.getStep()).getResult();
  return arith::SelectOp::create(b, loc, runs, count, indexConst(b, loc, 0))
      .getResult();
}

LogicalResult rule(scf::ForOp op, OpBuilder &b, ReverseContext &ctx,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Location loc = op.getLoc();
  FailureOr<Value> tripValue = tripCount(op);
  if (failed(tripValue))
    return failure();
  Value count = *tripValue;
  std::optional<APInt> trips = op.getStaticTripCount();
  int64_t tapeLength = trips ? trips->getSExtValue() : ShapedType::kDynamic;
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
    RankedTensorType st = stackType(v.getType(), tapeLength);
    inits.push_back(tensor::EmptyOp::create(
        fb, loc, st, trips ? ValueRange{} : ValueRange{count}));
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

//===----------------------------------------------------------------------===//
// scf.while
//===----------------------------------------------------------------------===//

/// `stack` with room for entry `index`: when it is full, a stack of twice
/// the capacity holding the same entries (amortised O(1) per push).
Value reserve(OpBuilder &b, Location loc, Value stack, Value index) {
  auto type = cast<RankedTensorType>(stack.getType());
  Value capacity = tensor::DimOp::create(b, loc, stack, 0);
  Value full =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index, capacity);
  auto grow = scf::IfOp::create(b, loc, TypeRange{type}, full,
                                /*withElse=*/true);
  OpBuilder tb = OpBuilder::atBlockEnd(&grow.getThenRegion().front());
  Value doubled =
      arith::MulIOp::create(tb, loc, capacity, indexConst(tb, loc, 2));
  Value grown = tensor::EmptyOp::create(tb, loc, type, ValueRange{doubled});
  SmallVector<OpFoldResult> offsets(type.getRank(), tb.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes{capacity};
  for (int64_t s : type.getShape().drop_front())
    sizes.push_back(tb.getIndexAttr(s));
  SmallVector<OpFoldResult> strides(type.getRank(), tb.getIndexAttr(1));
  Value copied = tensor::InsertSliceOp::create(tb, loc, stack, grown, offsets,
                                               sizes, strides);
  scf::YieldOp::create(tb, loc, copied);
  OpBuilder eb = OpBuilder::atBlockEnd(&grow.getElseRegion().front());
  scf::YieldOp::create(eb, loc, stack);
  return grow.getResult(0);
}

/// scf.while: the before region maps the carried values x to (condition,
/// y), the after region maps y to the next x. The forward loop is rebuilt to
/// record every x the before region sees on stacks grown by doubling, and to
/// count those evaluations (M: the trips plus the exit test). The reverse
/// sweep differentiates the exit evaluation (results = y of x_{M−1}), then
/// walks the trips backwards, recomputing before and after from each
/// recorded x.
LogicalResult rule(scf::WhileOp op, OpBuilder &b, ReverseContext &ctx,
                   ValueRange dres, SmallVectorImpl<Value> &d) {
  Location loc = op.getLoc();
  for (Type t :
       llvm::concat<const Type>(op.getOperandTypes(), op.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (tensor ? !tensor.hasStaticShape()
               : !isa<FloatType, IntegerType, IndexType>(t))
      return op.emitOpError("cannot be differentiated: carried values must "
                            "be statically shaped tensors or scalars");
  }
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  unsigned numX = op.getNumOperands(), numY = op.getNumResults();

  // The taped forward loop carries (x..., stacks..., evaluations so far).
  OpBuilder fb(op);
  SmallVector<Value> inits(op.getInits());
  SmallVector<Type> stackTypes;
  for (Value v : op.getInits()) {
    stackTypes.push_back(stackType(v.getType(), ShapedType::kDynamic));
    inits.push_back(tensor::EmptyOp::create(
        fb, loc, stackTypes.back(), ValueRange{indexConst(fb, loc, 8)}));
  }
  inits.push_back(indexConst(fb, loc, 0));
  SmallVector<Type> yTypes(op.getResultTypes());
  llvm::append_range(yTypes, stackTypes);
  yTypes.push_back(fb.getIndexType());
  auto taped = scf::WhileOp::create(fb, loc, yTypes, inits);
  {
    SmallVector<Location> locs(inits.size(), loc);
    Block *nbBefore = fb.createBlock(&taped.getBefore(), {},
                                     ValueRange(inits).getTypes(), locs);
    OpBuilder nb = OpBuilder::atBlockEnd(nbBefore);
    IRMapping mapping;
    mapping.map(before.getArguments(),
                nbBefore->getArguments().take_front(numX));
    for (Operation &inner : before.without_terminator())
      nb.clone(inner, mapping);
    Value n = nbBefore->getArgument(2 * numX);
    SmallVector<Value> forwarded;
    auto condition = cast<scf::ConditionOp>(before.getTerminator());
    for (Value y : condition.getArgs())
      forwarded.push_back(mapping.lookupOrDefault(y));
    for (unsigned i = 0; i < numX; ++i) {
      Value stack = reserve(nb, loc, nbBefore->getArgument(numX + i), n);
      forwarded.push_back(push(nb, loc, stack, nbBefore->getArgument(i), n));
    }
    forwarded.push_back(
        arith::AddIOp::create(nb, loc, n, indexConst(nb, loc, 1)));
    scf::ConditionOp::create(
        nb, loc, mapping.lookupOrDefault(condition.getCondition()), forwarded);

    Block *nbAfter = fb.createBlock(&taped.getAfter(), {}, yTypes,
                                    SmallVector<Location>(yTypes.size(), loc));
    OpBuilder ab = OpBuilder::atBlockEnd(nbAfter);
    IRMapping afterMapping;
    afterMapping.map(after.getArguments(),
                     nbAfter->getArguments().take_front(numY));
    for (Operation &inner : after.without_terminator())
      ab.clone(inner, afterMapping);
    SmallVector<Value> next;
    for (Value x : after.getTerminator()->getOperands())
      next.push_back(afterMapping.lookupOrDefault(x));
    llvm::append_range(next, nbAfter->getArguments().drop_front(numY));
    scf::YieldOp::create(ab, loc, next);
  }
  op->replaceAllUsesWith(taped.getResults().take_front(numY));
  ValueRange stacks = taped.getResults().slice(numY, numX);
  Value evaluations = taped.getResults().back();
  Value one = indexConst(b, loc, 1);
  SmallVector<Value> captured = capturedFloats(op->getRegions());
  auto recorded = [&](OpBuilder &nb, Value index) {
    SmallVector<Value> xs;
    for (auto [stack, init] : llvm::zip(stacks, op.getInits()))
      xs.push_back(peek(nb, loc, stack, init.getType(), index));
    return xs;
  };

  // The exit evaluation: the results are the y of the last x.
  SmallVector<Value> exitSeeds{Value()};
  llvm::append_range(exitSeeds, dres);
  std::unique_ptr<ReverseContext> exit = ctx.createNested();
  FailureOr<SmallVector<Value>> exitCotangents = exit->recomputeAndReverse(
      b, before, recorded(b, arith::SubIOp::create(b, loc, evaluations, one)),
      exitSeeds);
  if (failed(exitCotangents))
    return failure();
  for (Value v : captured)
    ctx.accumulate(v, exit->lookup(v));

  // The trips, last first: x_j → y_j (before) → x_{j+1} (after).
  SmallVector<Value> carriedInit;
  for (auto [x, cotangent] : llvm::zip(op.getInits(), *exitCotangents))
    carriedInit.push_back(orZeros(b, loc, cotangent, x.getType()));
  for (Value v : captured)
    carriedInit.push_back(zerosLike(b, loc, v.getType()));
  Value trips = arith::SubIOp::create(b, loc, evaluations, one);
  ReverseLoop rl =
      buildReverseLoop(b, loc, trips, indexConst(b, loc, 0), one, carriedInit);
  {
    OpBuilder &nb = rl.body;
    ValueRange iter = rl.loop.getRegionIterArgs();
    SmallVector<Value> xs = recorded(nb, rl.index);
    // y_j, recomputed to feed the after region's sweep.
    IRMapping mapping;
    mapping.map(before.getArguments(), xs);
    for (Operation &inner : before.without_terminator())
      nb.clone(inner, mapping);
    SmallVector<Value> ys;
    for (Value y : cast<scf::ConditionOp>(before.getTerminator()).getArgs())
      ys.push_back(mapping.lookupOrDefault(y));
    SmallVector<Value> nextSeeds;
    for (auto [i, x] : llvm::enumerate(op.getInits()))
      nextSeeds.push_back(isFloatValue(x) ? iter[i] : Value());
    std::unique_ptr<ReverseContext> sweep = ctx.createNested();
    FailureOr<SmallVector<Value>> yCotangents =
        sweep->recomputeAndReverse(nb, after, ys, nextSeeds);
    if (failed(yCotangents))
      return failure();
    SmallVector<Value> beforeSeeds{Value()};
    llvm::append_range(beforeSeeds, *yCotangents);
    FailureOr<SmallVector<Value>> xCotangents =
        sweep->recomputeAndReverse(nb, before, xs, beforeSeeds);
    if (failed(xCotangents))
      return failure();
    SmallVector<Value> yields;
    for (auto [i, x] : llvm::enumerate(op.getInits()))
      yields.push_back(isFloatValue(x)
                           ? orZeros(nb, loc, (*xCotangents)[i], x.getType())
                           : iter[i]);
    for (auto [c, v] : llvm::enumerate(captured)) {
      Value acc = iter[numX + c];
      Value add = sweep->lookup(v);
      yields.push_back(
          add ? arith::AddFOp::create(nb, loc, acc, add).getResult() : acc);
    }
    scf::YieldOp::create(nb, loc, yields);
  }
  for (auto [i, x] : llvm::enumerate(op.getInits()))
    if (isFloatValue(x))
      d[i] = rl.loop.getResult(i);
  for (auto [c, v] : llvm::enumerate(captured))
    ctx.accumulate(v, rl.loop.getResult(numX + c));
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
    scf::WhileOp::attachInterface<RuleModel<scf::WhileOp, &rule>>(*ctx);
  });
}
} // namespace trellis::ad
