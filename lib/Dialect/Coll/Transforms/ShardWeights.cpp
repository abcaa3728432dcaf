//===- ShardWeights.cpp - Parameters kept as shards between steps ---------===//
//
// Each sharded parameter of a training-convention function becomes this
// rank's shard: gathered inside the functions its derivatives differentiate
// (and at the entry for other uses), its gradient reduce-scattered, its new
// value returned as the shard (pass description in dialects/Coll/Passes.td).
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/Coll/Transforms/Passes.h"

#include "trellis/Dialect/AD/IR/AD.h"
#include "trellis/Dialect/Coll/IR/Coll.h"
#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace trellis::coll {
#define GEN_PASS_DEF_COLLSHARDWEIGHTS
#include "trellis/Dialect/Coll/Transforms/Passes.h.inc"
} // namespace trellis::coll

using namespace mlir;
using namespace trellis;
using namespace trellis::coll;

bool trellis::coll::isShardedParameter(Type type, int64_t shards) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return shards > 1 && tensor && tensor.hasStaticShape() &&
         tensor.getRank() >= 1 && isa<FloatType>(tensor.getElementType()) &&
         tensor.getDimSize(0) > 0 && tensor.getDimSize(0) % shards == 0;
}

/// `rows` groups of `columns` ranks, rank `at(row, column)` in each place.
static DenseIntElementsAttr
groupsAttr(MLIRContext *ctx, int64_t rows, int64_t columns,
           llvm::function_ref<int64_t(int64_t, int64_t)> at) {
  SmallVector<int64_t> flat;
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t column = 0; column < columns; ++column)
      flat.push_back(at(row, column));
  return DenseIntElementsAttr::get(
      RankedTensorType::get({rows, columns}, IntegerType::get(ctx, 64)), flat);
}

DenseIntElementsAttr trellis::coll::getShardGroupsAttr(MLIRContext *ctx,
                                                       int64_t shards,
                                                       int64_t ranks) {
  return groupsAttr(ctx, ranks / shards, shards,
                    [&](int64_t i, int64_t d) { return shards * i + d; });
}

DenseIntElementsAttr trellis::coll::getReplicaGroupsAttr(MLIRContext *ctx,
                                                         int64_t shards,
                                                         int64_t ranks) {
  return groupsAttr(ctx, shards, ranks / shards,
                    [&](int64_t d, int64_t i) { return shards * i + d; });
}

namespace {

/// This rank's shard (rows along dimension 0) of values of the function
/// that `returnOp` ends, built right before it. Elementwise computations
/// (the optimizer's update) are recomputed on shards of their operands
/// instead of being sliced after the fact, down to the gathered parameters,
/// whose shards are the arguments: the update runs on 1/S of the elements
/// and the moments it alone reads need no gather.
class Slicer {
public:
  Slicer(func::ReturnOp returnOp, int64_t shards, StringAttr axis,
         DenseIntElementsAttr groups)
      : b(returnOp), loc(returnOp.getLoc()), shards(shards), axis(axis),
        groups(groups) {}

  RankedTensorType shardType(RankedTensorType full) const {
    SmallVector<int64_t> shape(full.getShape());
    shape[0] /= shards;
    return RankedTensorType::get(shape, full.getElementType());
  }

  Value shardOf(Value v) {
    if (Value known = this->known.lookup(v))
      return known;
    auto full = cast<RankedTensorType>(v.getType());
    Value shard;
    Operation *def = v.getDefiningOp();
    if (isa_and_present<tensor::EmptyOp>(def)) {
      shard = tensor::EmptyOp::create(b, loc, shardType(full).getShape(),
                                      full.getElementType());
    } else if (def && isElementwise(def, full.getShape())) {
      // One clone for all its results.
      IRMapping mapping;
      for (Value operand : def->getOperands())
        mapping.map(operand, shardOf(operand));
      Operation *clone = b.clone(*def, mapping);
      for (auto [result, cloned] :
           llvm::zip(def->getResults(), clone->getResults())) {
        cloned.setType(shardType(cast<RankedTensorType>(result.getType())));
        this->known[result] = cloned;
      }
      return this->known.lookup(v);
    } else {
      shard = trellis::builders::extractAlong(b, loc, v, 0, getOffset(full),
                                              shardType(full).getDimSize(0));
    }
    this->known[v] = shard;
    return shard;
  }

  /// Values whose shard is known: the gathered parameters' (their
  /// arguments) and those built so far.
  DenseMap<Value, Value> known;

private:
  /// An op that maps elements to elements at the same index, all of whose
  /// operands and results are tensors of `shape`: arith/math ops on tensors
  /// and elementwise linalg.generic (upstream's isElementwise: parallel
  /// loops, a body of scalar elementwise ops) with identity maps that does
  /// not read its iteration index (linalg.index, which upstream allows:
  /// on a shard it would count from 0 on every rank).
  static bool isElementwise(Operation *op, ArrayRef<int64_t> shape) {
    auto sameShape = [&](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      return tensor && tensor.getShape() == shape;
    };
    if (!llvm::all_of(op->getOperandTypes(), sameShape) ||
        !llvm::all_of(op->getResultTypes(), sameShape))
      return false;
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      return linalg::isElementwise(generic) &&
             linalg::hasOnlyScalarElementwiseOp(generic.getRegion()) &&
             !generic.hasIndexSemantics() &&
             llvm::all_of(generic.getIndexingMapsArray(),
                          [](AffineMap map) { return map.isIdentity(); });
    return op->hasTrait<OpTrait::Elementwise>() && op->getNumRegions() == 0 &&
           isMemoryEffectFree(op);
  }

  /// The first row of this rank's shard of a tensor of type `full`.
  Value getOffset(RankedTensorType full) {
    if (!position)
      position = buildGroupPosition(b, loc, axis, groups);
    return arith::MulIOp::create(
        b, loc, position,
        arith::ConstantIndexOp::create(b, loc, shardType(full).getDimSize(0)));
  }

  OpBuilder b;
  Location loc;
  int64_t shards;
  StringAttr axis;
  DenseIntElementsAttr groups;
  Value position;
};

struct CollShardWeightsPass
    : trellis::coll::impl::CollShardWeightsBase<CollShardWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t s = shards, n = ranks;
    if (s < 1 || (s > 1 && (n < 1 || n % s != 0))) {
      emitError(getOperation().getLoc(), "coll-shard-weights: shards=")
          << s << " must be at least 1 and divide ranks=" << n;
      return signalPassFailure();
    }
    if (s == 1)
      return;
    DenseIntElementsAttr groups = getShardGroupsAttr(&getContext(), s, n),
                         replicas = getReplicaGroupsAttr(&getContext(), s, n);
    SymbolTable symbols(getOperation());
    SmallVector<std::string> names(functions.begin(), functions.end());
    if (names.empty())
      names = {"train_step", "eval"};
    for (const std::string &name : names)
      if (auto func = symbols.lookup<func::FuncOp>(name);
          func && !func.isExternal())
        if (failed(shard(func, groups, replicas, symbols)))
          return signalPassFailure();
  }

  /// Makes `op` differentiate with respect to the shards of the gathered
  /// parameters it takes: it calls a wrapper of its function that gathers
  /// them (in an ad.checkpoint: the backward pass gathers again instead of
  /// keeping the whole parameter), so that the derivative of the gather,
  /// a reduce-scatter within the shard group, gives each rank the sum of
  /// its group's gradients for its rows; divided by S, their mean. The old
  /// whole gradient is the gather of the new one, which the update's
  /// shards read directly.
  LogicalResult differentiateShards(ad::DerivativeOpInterface op,
                                    Slicer &slicer, DenseIntElementsAttr groups,
                                    SymbolTable &symbols) {
    OperandRange operands = op.getDerivativeOperands();
    SmallVector<Value> shardArgs(operands.size());
    bool any = false;
    for (auto [j, operand] : llvm::enumerate(operands))
      if (Value shard = slicer.known.lookup(operand);
          shard && isa<BlockArgument>(shard)) {
        shardArgs[j] = shard;
        any = true;
      }
    if (!any)
      return success();
    auto callee = symbols.lookup<func::FuncOp>(op.getCalleeAttr().getValue());
    if (!callee)
      return op->emitOpError("coll-shard-weights: no function ")
             << op.getCalleeAttr();

    // @f.weight_shards(shards and the other operands) gathers, calls @f.
    OpBuilder b(callee);
    Location loc = op.getLoc();
    SmallVector<Type> inputs;
    for (auto [j, operand] : llvm::enumerate(operands))
      inputs.push_back(shardArgs[j] ? shardArgs[j].getType()
                                    : operand.getType());
    auto wrapper = func::FuncOp::create(
        b, loc, (callee.getSymName() + ".weight_shards").str(),
        b.getFunctionType(inputs, callee.getResultTypes()));
    wrapper.setPrivate();
    symbols.insert(wrapper);
    Block *body = wrapper.addEntryBlock();
    b.setInsertionPointToStart(body);
    SmallVector<Value> args(body->getArguments());
    StringAttr axisAttr = b.getStringAttr(axis);
    for (auto [j, arg] : llvm::enumerate(args)) {
      if (!shardArgs[j])
        continue;
      Type full = operands[j].getType();
      auto checkpoint = ad::CheckpointOp::create(b, loc, TypeRange{full},
                                                 ValueRange{}, StringAttr());
      OpBuilder cb =
          OpBuilder::atBlockBegin(b.createBlock(&checkpoint.getBody()));
      Value gathered = AllGatherOp::create(cb, loc, full, arg, axisAttr,
                                           cb.getI64IntegerAttr(0), groups);
      ad::YieldOp::create(cb, loc, gathered);
      b.setInsertionPointAfter(checkpoint);
      arg = checkpoint.getResult(0);
    }
    auto call = func::CallOp::create(b, loc, callee, args);
    func::ReturnOp::create(b, loc, call.getResults());

    // The derivative of the wrapper, the shards' gradients shard-typed.
    b.setInsertionPoint(op);
    Operation *clone = b.clone(*op);
    clone->setAttr("callee", FlatSymbolRefAttr::get(wrapper));
    unsigned first = operands.getBeginOperandIndex();
    for (auto [j, shard] : llvm::enumerate(shardArgs))
      if (shard)
        clone->setOperand(first + j, shard);
    auto derivative = cast<ad::DerivativeOpInterface>(clone);
    SmallVector<int64_t> argnums = op.getDiffArgIndices();
    DenseSet<Value> sharded;
    for (auto [k, g] : llvm::enumerate(derivative.getGradientResults()))
      if (shardArgs[argnums[k]]) {
        g.setType(shardArgs[argnums[k]].getType());
        sharded.insert(g);
      }
    b.setInsertionPointAfter(clone);
    for (auto [old, now] : llvm::zip(op->getResults(), clone->getResults())) {
      if (!sharded.contains(now)) {
        old.replaceAllUsesWith(now);
        continue;
      }
      auto type = cast<RankedTensorType>(now.getType());
      Value inverse = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(
              type,
              b.getFloatAttr(type.getElementType(),
                             1.0 / static_cast<double>(int64_t(shards)))));
      Value mean = arith::MulFOp::create(b, loc, now, inverse);
      Value whole = AllGatherOp::create(b, loc, old.getType(), mean, axisAttr,
                                        b.getI64IntegerAttr(0), groups);
      old.replaceAllUsesWith(whole);
      slicer.known[whole] = mean;
    }
    op->erase();
    return success();
  }

  LogicalResult shard(func::FuncOp func, DenseIntElementsAttr groups,
                      DenseIntElementsAttr replicas, SymbolTable &symbols) {
    OpBuilder b = OpBuilder::atBlockBegin(&func.front());
    StringAttr axisAttr = b.getStringAttr(axis);
    auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
    SmallVector<Type> argTypes(func.getArgumentTypes());
    SmallVector<Type> resultTypes(func.getResultTypes());
    Slicer slicer(returnOp, shards, axisAttr, groups);
    SmallVector<unsigned> returned;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      if (func.getArgAttr(i, "trellis.batch"))
        break; // The parameters are the leading arguments.
      BlockArgument arg = func.getArgument(i);
      if (!isShardedParameter(arg.getType(), shards))
        continue;
      auto full = cast<RankedTensorType>(arg.getType());
      RankedTensorType shardType = slicer.shardType(full);
      arg.setType(shardType);
      argTypes[i] = shardType;
      auto gather = AllGatherOp::create(b, arg.getLoc(), full, arg, axisAttr,
                                        b.getI64IntegerAttr(0), groups);
      arg.replaceAllUsesExcept(gather.getResult(), gather);
      slicer.known[gather.getResult()] = arg;
      func.setArgAttr(i, kReplicaGroupsAttr, replicas);
      // The new value of the parameter, if the function returns it; its
      // shard is built once every parameter's is known.
      if (i < returnOp.getNumOperands() && resultTypes[i] == full) {
        returned.push_back(i);
        resultTypes[i] = shardType;
      }
    }
    SmallVector<ad::DerivativeOpInterface> derivatives;
    func.walk([&](ad::DerivativeOpInterface op) {
      if (op.getDerivativeKind() != ad::DerivativeKind::VJP)
        derivatives.push_back(op);
    });
    for (ad::DerivativeOpInterface op : derivatives)
      if (failed(differentiateShards(op, slicer, groups, symbols)))
        return failure();
    for (unsigned i : returned)
      returnOp.setOperand(i, slicer.shardOf(returnOp.getOperand(i)));
    func.setFunctionType(b.getFunctionType(argTypes, resultTypes));
    // The whole values only the shards needed (the optimizer's moments, the
    // full update) are gone now.
    SmallVector<Operation *> ops;
    for (Operation &op : func.front().without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops))
      if (isOpTriviallyDead(op))
        op->erase();
    return success();
  }
};

} // namespace
