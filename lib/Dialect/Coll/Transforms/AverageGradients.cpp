//===- AverageGradients.cpp - Data-parallel gradient reduction ------------===//
//
// Rewrites the uses of every gradient an ad.grad / ad.value_and_grad yields
// (of the kinds `wrt` selects) to the gradient reduced over the batch axis
// (pass description in dialects/Coll/Passes.td). After ad-differentiate
// there is no ad op left to find, and the derivative code keeps no mark of
// which values are gradients: such a module is an error, so that the pass
// never silently leaves ranks to diverge.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/Coll/Transforms/Passes.h"

#include "trellis/Dialect/AD/IR/AD.h"
#include "trellis/Dialect/Coll/IR/Coll.h"
#include "trellis/Dialect/NN/IR/NN.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSwitch.h"

namespace trellis::coll {
#define GEN_PASS_DEF_COLLAVERAGEGRADIENTS
#include "trellis/Dialect/Coll/Transforms/Passes.h.inc"
} // namespace trellis::coll

using namespace mlir;
using namespace trellis;
using namespace trellis::coll;

llvm::StringRef
trellis::coll::stringifyGradientReduction(GradientReduction reduction) {
  switch (reduction) {
  case GradientReduction::Mean:
    return "mean";
  case GradientReduction::Adasum:
    return "adasum";
  case GradientReduction::AdasumApprox:
    return "adasum-approx";
  }
  llvm_unreachable("unknown gradient reduction");
}

llvm::StringRef
trellis::coll::stringifyBatchNormStatistics(BatchNormStatistics statistics) {
  switch (statistics) {
  case BatchNormStatistics::Local:
    return "local";
  case BatchNormStatistics::Sync:
    return "sync";
  }
  llvm_unreachable("unknown batch-norm statistics");
}

std::optional<GradientArgKind>
trellis::coll::parseGradientArgKind(llvm::StringRef text) {
  return llvm::StringSwitch<std::optional<GradientArgKind>>(text)
      .Case("parameter", GradientArgKind::Parameter)
      .Case("batch", GradientArgKind::Batch)
      .Case("other", GradientArgKind::Other)
      .Default(std::nullopt);
}

namespace {

/// The argument attribute of the training convention that marks data
/// (lib/Train/Convention.cpp, docs/training.md).
constexpr llvm::StringLiteral kBatchAttr = "trellis.batch";

/// Where the layer state `state` leaves the reversible layers around it: a
/// batch norm in a RevNet block yields its statistics through every
/// enclosing reversible op, which returns them as layer state. Reducing them
/// there keeps the collective out of the body, which the backward pass
/// recomputes (and whose recomputed state is dead).
Value outermostState(Value state) {
  while (state.hasOneUse()) {
    OpOperand &use = *state.use_begin();
    auto yield = dyn_cast<nn::YieldOp>(use.getOwner());
    auto layer = yield
                     ? dyn_cast<ad::InvertibleOpInterface>(yield->getParentOp())
                     : nullptr;
    if (!layer)
      break;
    unsigned numState = layer.getNumStateResults();
    unsigned firstState = yield->getNumOperands() - numState;
    if (use.getOperandNumber() < firstState)
      break;
    state = layer.getStateResults()[use.getOperandNumber() - firstState];
  }
  return state;
}

/// What `operand`, a differentiated operand, is: an argument of the
/// function around it, with or without `trellis.batch`, or another value.
GradientArgKind classifyOperand(Value operand) {
  auto arg = dyn_cast<BlockArgument>(operand);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (!func || arg.getOwner() != &func.getBody().front())
    return GradientArgKind::Other;
  return func.getArgAttr(arg.getArgNumber(), kBatchAttr)
             ? GradientArgKind::Batch
             : GradientArgKind::Parameter;
}

/// The replica groups coll-shard-weights put on the argument `operand` is,
/// if it is one of its shards (kReplicaGroupsAttr): its gradient is
/// reduced with the matching shards only.
DenseIntElementsAttr getReplicaGroups(Value operand) {
  auto arg = dyn_cast<BlockArgument>(operand);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (!func || arg.getOwner() != &func.getBody().front())
    return {};
  return func.getArgAttrOfType<DenseIntElementsAttr>(arg.getArgNumber(),
                                                     kReplicaGroupsAttr);
}

/// Builds the reduction of one gradient tensor.
class Reducer {
public:
  Reducer(OpBuilder &b, StringAttr axis, DenseIntElementsAttr groups,
          int64_t groupSize)
      : b(b), axis(axis), groups(groups), groupSize(groupSize) {}

  /// The same reducer within other groups.
  Reducer within(DenseIntElementsAttr other) const {
    return Reducer(b, axis, other,
                   cast<ShapedType>(other.getType()).getDimSize(1));
  }

  Value reduce(Location loc, Value g, GradientReduction reduction) {
    switch (reduction) {
    case GradientReduction::Mean:
      return PmeanOp::create(b, loc, g, axis, groups);
    case GradientReduction::Adasum:
      return AdasumOp::create(b, loc, g, axis, groups);
    case GradientReduction::AdasumApprox:
      return adasumApprox(loc, g);
    }
    llvm_unreachable("unknown reduction");
  }

private:
  /// Trax's first version: psum(g · (1 − (g·Σg − ‖g‖²) / (n·‖g‖²))); a
  /// zero gradient keeps coefficient 1 instead of dividing by zero.
  Value adasumApprox(Location loc, Value g) {
    auto type = cast<RankedTensorType>(g.getType());
    Type elementType = type.getElementType();
    Value sum = PsumOp::create(b, loc, g, axis, groups);
    Value numerator = dot(loc, g, sum), norm = dot(loc, g, g);
    Value n;
    if (groups) {
      n = arith::ConstantOp::create(b, loc,
                                    b.getFloatAttr(elementType, groupSize));
    } else {
      Value size = AxisSizeOp::create(b, loc, b.getIndexType(), axis);
      n = arith::SIToFPOp::create(
          b, loc, elementType,
          arith::IndexCastOp::create(b, loc, b.getI64Type(), size));
    }
    Value one =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, 1));
    Value zero =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, 0));
    Value ratio = arith::DivFOp::create(
        b, loc, arith::SubFOp::create(b, loc, numerator, norm),
        arith::MulFOp::create(b, loc, n, norm));
    Value coefficient = arith::SubFOp::create(b, loc, one, ratio);
    Value isZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, norm, zero);
    coefficient = arith::SelectOp::create(b, loc, isZero, one, coefficient);
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), elementType);
    Value splat =
        linalg::FillOp::create(b, loc, coefficient, empty).getResult(0);
    Value scaled = arith::MulFOp::create(b, loc, g, splat);
    return PsumOp::create(b, loc, scaled, axis, groups);
  }

  /// Σ x·y over all elements, as a scalar.
  Value dot(Location loc, Value x, Value y) {
    auto type = cast<RankedTensorType>(x.getType());
    Type elementType = type.getElementType();
    auto flatType = RankedTensorType::get({type.getNumElements()}, elementType);
    auto flat = [&](Value v) -> Value {
      if (type.getRank() == 1)
        return v;
      ReassociationIndices all;
      for (int64_t i = 0; i < type.getRank(); ++i)
        all.push_back(i);
      if (type.getRank() == 0)
        return tensor::ExpandShapeOp::create(b, loc, flatType, v,
                                             ArrayRef<ReassociationIndices>{});
      return tensor::CollapseShapeOp::create(
          b, loc, flatType, v, ArrayRef<ReassociationIndices>{all});
    };
    auto scalarType = RankedTensorType::get({}, elementType);
    Value zero =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, 0));
    Value empty =
        tensor::EmptyOp::create(b, loc, scalarType.getShape(), elementType);
    Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
    Value result =
        linalg::DotOp::create(b, loc, ValueRange{flat(x), flat(y)}, init)
            .getResult(0);
    return tensor::ExtractOp::create(b, loc, result, ValueRange{});
  }

  OpBuilder &b;
  StringAttr axis;
  DenseIntElementsAttr groups;
  int64_t groupSize;
};

struct CollAverageGradientsPass
    : public coll::impl::CollAverageGradientsBase<CollAverageGradientsPass> {
  using Base::Base;

  /// Checks the options once, before any IR is touched.
  LogicalResult initialize(MLIRContext *ctx) override {
    auto fail = [&](const Twine &message) {
      emitError(UnknownLoc::get(ctx)) << "coll-average-gradients: " << message;
      return failure();
    };
    int64_t shards = weightShards, jobRanks = ranks;
    if (shards < 1)
      return fail("weight-shards must be at least 1, got " + Twine(shards));
    if (shards > 1 && (jobRanks <= 0 || jobRanks % shards != 0))
      return fail("weight-shards=" + Twine(shards) +
                  " needs ranks=N, a positive multiple of it, to form the "
                  "shard groups");
    if (shards > 1 && batchNorm == BatchNormStatistics::Sync)
      return fail("batch-norm=sync averages the statistics over every rank "
                  "of the axis, which with weight-shards > 1 hold different "
                  "weights; use batch-norm=local");
    kinds.clear();
    for (const std::string &kind : wrt) {
      std::optional<GradientArgKind> parsed = parseGradientArgKind(kind);
      if (!parsed)
        return fail("wrt: '" + kind +
                    "' is not a kind of differentiated operand (parameter, "
                    "batch, other)");
      kinds.push_back(*parsed);
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(module.getContext());
    DenseIntElementsAttr groups;
    int64_t groupSize = 0;
    if (weightShards > 1) {
      // Rank r holds shard r mod S: group d is [d, S+d, 2S+d, …].
      groupSize = ranks / weightShards;
      groups = getReplicaGroupsAttr(module.getContext(), weightShards, ranks);
    }
    Reducer reducer(b, b.getStringAttr(axis), groups, groupSize);
    auto selected = [&](GradientArgKind kind) {
      return kinds.empty() || llvm::is_contained(kinds, kind);
    };

    bool hasGradients = false;
    WalkResult walk = module.walk([&](ad::DerivativeOpInterface op)
                                      -> WalkResult {
      ValueRange grads = op.getGradientResults();
      if (grads.empty())
        return WalkResult::advance();
      hasGradients = true;
      b.setInsertionPointAfter(op);
      SmallVector<int64_t> argnums = op.getDiffArgIndices();
      for (auto [i, g] : llvm::enumerate(grads)) {
        if (!selected(classifyOperand(op.getDerivativeOperands()[argnums[i]])))
          continue;
        auto type = dyn_cast<RankedTensorType>(g.getType());
        if (!type || !type.hasStaticShape() ||
            !isa<Float32Type, Float64Type>(type.getElementType())) {
          op->emitOpError("gradient #")
              << i << " has type " << g.getType()
              << "; coll-average-gradients reduces static f32/f64 tensors only";
          return WalkResult::interrupt();
        }
        // Only the uses that existed before: the reduction itself uses g.
        SmallVector<OpOperand *> uses;
        for (OpOperand &use : g.getUses())
          uses.push_back(&use);
        Value operand = op.getDerivativeOperands()[argnums[i]];
        DenseIntElementsAttr replicas = getReplicaGroups(operand);
        Value reduced = (replicas ? reducer.within(replicas) : reducer)
                            .reduce(op->getLoc(), g, reduce);
        for (OpOperand *use : uses)
          use->set(reduced);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    // Batch norm's statistics (docs/collectives.md, "Batch norm").
    module.walk([&](nn::BatchNormOp bn) {
      if (!bn.getTraining() || bn.getAxisName())
        return;
      if (batchNorm == BatchNormStatistics::Sync) {
        bn.setAxisNameAttr(b.getStringAttr(axis));
        return;
      }
      for (Value state : {bn.getNewMean(), bn.getNewVar()}) {
        state = outermostState(state);
        b.setInsertionPointAfter(state.getDefiningOp());
        SmallVector<OpOperand *> uses;
        for (OpOperand &use : state.getUses())
          uses.push_back(&use);
        if (uses.empty())
          continue;
        Value mean =
            reducer.reduce(bn.getLoc(), state, GradientReduction::Mean);
        for (OpOperand *use : uses)
          use->set(mean);
      }
    });
    if (!hasGradients) {
      emitError(module.getLoc())
          << "coll-average-gradients: the module has no ad.grad or "
             "ad.value_and_grad whose gradients could be reduced; run it "
             "before ad-differentiate, which replaces them by calls of "
             "derivative functions";
      signalPassFailure();
    }
  }

  /// `wrt`, parsed; empty: every kind.
  SmallVector<GradientArgKind> kinds;
};

} // namespace
