//===- Remat.cpp - Rematerialisation policies for layer chains -----------===//
//
// Wraps segments of a differentiated function's layer chain in ad.checkpoint
// regions, so that ad-differentiate stores only segment outputs and
// recomputes the rest (see dialects/AD/Passes.td for the policies, and
// docs/reversible.md for the budget policy's cost model and schedule).
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/AD/IR/AD.h"
#include "trellis/Dialect/AD/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

namespace trellis::ad {
#define GEN_PASS_DEF_ADREMAT
#include "trellis/Dialect/AD/Transforms/Passes.h.inc"
} // namespace trellis::ad

using namespace mlir;
using namespace trellis::ad;

namespace {

/// What the runtime's aligned allocation adds to every buffer
/// (peak_tensor_bytes counts it).
constexpr int64_t kAllocationPadding = 64;

/// Bytes a buffer for `t` takes if `t` is a statically shaped float tensor,
/// else 0.
int64_t floatTensorBytes(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  if (!tensor || !isa<FloatType>(tensor.getElementType()) ||
      !tensor.hasStaticShape())
    return 0;
  return tensor.getNumElements() *
             tensor.getElementType().getIntOrFloatBitWidth() / 8 +
         kAllocationPadding;
}

/// Elements of `t` if it is a statically shaped ranked tensor, else 0.
int64_t numElements(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.hasStaticShape() ? tensor.getNumElements() : 0;
}

/// Bytes of the float tensors `op` produces; 0 for what is not a layer.
int64_t layerBytes(Operation &op) {
  if (isa<arith::ConstantOp, tensor::EmptyOp, linalg::FillOp>(op) ||
      op.hasTrait<OpTrait::IsTerminator>())
    return 0;
  int64_t bytes = 0;
  for (Type t : op.getResultTypes())
    bytes += floatTensorBytes(t);
  return bytes;
}

/// Estimated cost (multiply-adds or element operations) of recomputing
/// `op`. A linalg op with static loops costs its iteration count. Other ops
/// cost the larger of their result elements and their operand elements,
/// except that a rank-2 operand `KxN` whose N is the result's last
/// dimension and whose K is another operand's last dimension (a dense
/// layer's weight) multiplies the result elements by K.
int64_t recomputeCost(Operation &op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    int64_t iterations = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges())
      if (!ShapedType::isDynamic(range))
        iterations *= range;
    return std::max<int64_t>(iterations, 1);
  }
  int64_t resultElements = 0;
  ArrayRef<int64_t> resultShape;
  for (Type t : op.getResultTypes())
    if (int64_t elements = numElements(t); elements > resultElements) {
      resultElements = elements;
      resultShape = cast<RankedTensorType>(t).getShape();
    }
  int64_t operandElements = 0, contraction = 1;
  for (Value operand : op.getOperands()) {
    operandElements += numElements(operand.getType());
    auto weight = dyn_cast<RankedTensorType>(operand.getType());
    if (!weight || weight.getRank() != 2 || !weight.hasStaticShape() ||
        resultShape.empty() || weight.getDimSize(1) != resultShape.back())
      continue;
    for (Value other : op.getOperands()) {
      auto data = dyn_cast<RankedTensorType>(other.getType());
      if (other != operand && data && data.getRank() >= 1 &&
          data.getShape().back() == weight.getDimSize(0))
        contraction = std::max(contraction, weight.getDimSize(0));
    }
  }
  return std::max({resultElements * contraction, operandElements,
                   int64_t(1)});
}

/// Moves the ops [first, last] of a block into an ad.checkpoint that yields
/// the values used after it.
void wrapSegment(Operation *first, Operation *last) {
  Block *block = first->getBlock();
  SmallVector<Operation *> ops;
  for (auto it = first->getIterator();; ++it) {
    ops.push_back(&*it);
    if (&*it == last)
      break;
  }
  llvm::SmallPtrSet<Operation *, 16> inside(ops.begin(), ops.end());
  llvm::SetVector<Value> escaping;
  for (Operation *op : ops)
    for (Value v : op->getResults())
      for (Operation *user : v.getUsers())
        if (!inside.contains(block->findAncestorOpInBlock(*user))) {
          escaping.insert(v);
          break;
        }
  if (escaping.empty())
    return;
  OpBuilder b(first);
  auto checkpoint = CheckpointOp::create(
      b, first->getLoc(), ValueRange(escaping.getArrayRef()).getTypes(),
      ValueRange{}, b.getStringAttr("remat"));
  Block *body = b.createBlock(&checkpoint.getBody());
  for (Operation *op : ops)
    op->moveBefore(body, body->end());
  b.setInsertionPointToEnd(body);
  YieldOp::create(b, first->getLoc(), escaping.getArrayRef());
  for (auto [v, r] : llvm::zip(escaping, checkpoint.getResults()))
    Value(v).replaceUsesWithIf(r, [&](OpOperand &use) {
      return !checkpoint->isProperAncestor(use.getOwner());
    });
}

/// A segment of layers [first, last] (indices into the chain). A segment of
/// one layer is stored as is; longer ones become ad.checkpoint regions.
struct Segment {
  int64_t first, last;
};

/// What a schedule is estimated to cost.
struct ScheduleEstimate {
  int64_t peak = 0;            ///< bytes, including the fixed workspace
  int64_t recomputeCost = 0;   ///< recomputeCost() summed over the layers
  int64_t recomputedLayers = 0;
};

/// The layer chain of a function body with the per-layer figures the budget
/// policy's model uses (docs/reversible.md, "The budget policy's model").
class ChainModel {
public:
  explicit ChainModel(Block &body) {
    DenseMap<Operation *, int64_t> position;
    for (auto [index, op] : llvm::enumerate(body))
      position[&op] = index;
    for (Operation &op : body) {
      int64_t bytes = layerBytes(op);
      if (!bytes)
        continue;
      layers.push_back(&op);
      layerPosition.push_back(position[&op]);
      bytesPrefix.push_back(bytesPrefix.back() + bytes);
      costPrefix.push_back(costPrefix.back() + recomputeCost(op));
      // A result stays stored past the segment that produces it when
      // something after the segment uses it: remember its last use.
      SmallVector<std::pair<int64_t, int64_t>> uses;
      for (Value result : op.getResults()) {
        int64_t lastUse = -1;
        for (Operation *user : result.getUsers())
          if (Operation *ancestor = body.findAncestorOpInBlock(*user))
            lastUse = std::max(lastUse, position[ancestor]);
        uses.push_back({floatTensorBytes(result.getType()), lastUse});
      }
      resultUses.push_back(std::move(uses));
      largestLayer = std::max(largestLayer, bytes);
    }
  }

  int64_t size() const { return layers.size(); }
  Operation *layer(int64_t i) const { return layers[i]; }
  int64_t largest() const { return largestLayer; }

  /// Bytes of everything [first, last] produces: what its recomputation
  /// holds at once (or what it stores when not recomputed).
  int64_t internalBytes(int64_t first, int64_t last) const {
    return bytesPrefix[last + 1] - bytesPrefix[first];
  }

  /// Bytes the forward sweep keeps of segment [first, last]: the results
  /// used after its last layer.
  int64_t storedBytes(int64_t first, int64_t last) const {
    int64_t bytes = 0;
    for (int64_t i = first; i <= last; ++i)
      for (auto [resultBytes, lastUse] : resultUses[i])
        if (lastUse > layerPosition[last])
          bytes += resultBytes;
    return bytes;
  }

  /// Cost of recomputing segment [first, last]: nothing for one layer.
  int64_t segmentCost(int64_t first, int64_t last) const {
    return first == last ? 0 : costPrefix[last + 1] - costPrefix[first];
  }

  /// The estimated activation peak and recomputation of a schedule, plus
  /// `workspace`. While segment j is reversed, the stored outputs of the
  /// segments before it and all of segment j's recomputed values are live.
  ScheduleEstimate estimate(ArrayRef<Segment> schedule,
                            int64_t workspace) const {
    ScheduleEstimate e;
    int64_t stored = 0;
    for (Segment s : schedule) {
      e.peak = std::max(e.peak, stored + internalBytes(s.first, s.last));
      stored += storedBytes(s.first, s.last);
      e.recomputeCost += segmentCost(s.first, s.last);
      if (s.first != s.last)
        e.recomputedLayers += s.last - s.first + 1;
    }
    e.peak += workspace;
    return e;
  }

  /// The smallest estimated activation peak of any schedule (without the
  /// workspace), by G(a) = min_b max(I(a,b), S(a,b) + G(b+1)) in O(n²).
  int64_t minimalPeak() const {
    int64_t n = size();
    SmallVector<int64_t> best(n + 1, 0);
    for (int64_t a = n - 1; a >= 0; --a) {
      best[a] = std::numeric_limits<int64_t>::max();
      for (int64_t b = a; b < n; ++b)
        best[a] = std::min(best[a],
                           std::max(internalBytes(a, b),
                                    storedBytes(a, b) + best[b + 1]));
    }
    return best[0];
  }

  /// The schedule of least recomputation cost whose estimated activation
  /// peak is at most `limit`, or failure if none is. Dynamic programming
  /// over segment boundaries: boundary a keeps the Pareto front of
  /// (bytes stored before a, cost so far) over feasible prefixes.
  FailureOr<SmallVector<Segment>> cheapestSchedule(int64_t limit) const {
    struct State {
      int64_t stored, cost, from, fromIndex;
    };
    int64_t n = size();
    SmallVector<SmallVector<State>> front(n + 1);
    front[0].push_back({0, 0, -1, -1});
    auto prune = [](SmallVector<State> &states) {
      llvm::sort(states, [](const State &x, const State &y) {
        return std::tie(x.stored, x.cost) < std::tie(y.stored, y.cost);
      });
      SmallVector<State> kept;
      for (const State &s : states)
        if (kept.empty() || s.cost < kept.back().cost)
          kept.push_back(s);
      states = std::move(kept);
    };
    for (int64_t a = 0; a < n; ++a) {
      prune(front[a]);
      for (auto [index, s] : llvm::enumerate(front[a]))
        for (int64_t b = a; b < n; ++b) {
          if (s.stored + internalBytes(a, b) > limit)
            break; // internalBytes grows with b
          front[b + 1].push_back({s.stored + storedBytes(a, b),
                                  s.cost + segmentCost(a, b), a,
                                  static_cast<int64_t>(index)});
        }
    }
    prune(front[n]);
    if (front[n].empty())
      return failure();
    // The front is sorted by stored bytes with falling cost: the last entry
    // is the cheapest.
    SmallVector<Segment> schedule;
    int64_t boundary = n, index = front[n].size() - 1;
    while (boundary > 0) {
      const State &s = front[boundary][index];
      schedule.push_back({s.from, boundary - 1});
      boundary = s.from;
      index = s.fromIndex;
    }
    std::reverse(schedule.begin(), schedule.end());
    return schedule;
  }

private:
  SmallVector<Operation *> layers;
  SmallVector<int64_t> layerPosition;
  SmallVector<int64_t> bytesPrefix{0}, costPrefix{0};
  /// Per layer, per result: (bytes, position of the last use in the block).
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> resultUses;
  int64_t largestLayer = 0;
};

/// Segments of `length` layers covering a chain of `n` (the every policy).
SmallVector<Segment> uniformSegments(int64_t n, int64_t length) {
  SmallVector<Segment> schedule;
  for (int64_t start = 0; start < n; start += length)
    schedule.push_back({start, std::min(n, start + length) - 1});
  return schedule;
}

/// Prints a schedule as its checkpointed layer ranges, e.g. "[0-3] [6-7]".
std::string describe(ArrayRef<Segment> schedule) {
  std::string text;
  for (Segment s : schedule)
    if (s.first != s.last)
      text += (text.empty() ? "[" : " [") + std::to_string(s.first) + "-" +
              std::to_string(s.last) + "]";
  return text.empty() ? "none" : text;
}

struct ADRematPass : trellis::ad::impl::ADRematBase<ADRematPass> {
  using Base::Base;

  void runOnOperation() override {
    if (policy == RematPolicy::Store)
      return;
    if (policy == RematPolicy::Every && every < 1) {
      getOperation().emitError("ad-remat: every must be at least 1");
      return signalPassFailure();
    }
    SymbolTable symbols(getOperation());
    llvm::SetVector<func::FuncOp> callees;
    getOperation().walk([&](DerivativeOpInterface op) {
      if (auto fn = symbols.lookup<func::FuncOp>(op.getCalleeAttr().getValue()))
        callees.insert(fn);
    });
    for (func::FuncOp fn : callees)
      if (!fn.isExternal() && fn.getBody().hasOneBlock())
        if (failed(rematerialize(fn)))
          return signalPassFailure();
  }

  LogicalResult rematerialize(func::FuncOp fn) {
    ChainModel chain(fn.getBody().front());
    int64_t n = chain.size();
    if (n < 2)
      return success();
    SmallVector<Segment> schedule;
    if (policy == RematPolicy::Every) {
      if (every <= 1)
        return success();
      schedule = uniformSegments(n, every);
    } else {
      FailureOr<SmallVector<Segment>> chosen = scheduleForBudget(fn, chain);
      if (failed(chosen))
        return failure();
      schedule = std::move(*chosen);
    }
    for (Segment s : schedule)
      if (s.first != s.last)
        wrapSegment(chain.layer(s.first), chain.layer(s.last));
    return success();
  }

  /// The budget policy: the cheapest schedule whose estimated peak fits.
  FailureOr<SmallVector<Segment>> scheduleForBudget(func::FuncOp fn,
                                                    const ChainModel &chain) {
    int64_t n = chain.size();
    // Live through the backward pass whatever the schedule: the gradients
    // (at most one per float argument), and what reversing a layer holds
    // besides its stored values: dy, dx and two temporaries (the transposed
    // x of a dense layer's dw = xᵀ·dy, an activation's mask), each at most
    // the largest layer, and the transposed w of dx = dy·wᵀ and dw before it
    // is added to the gradient, each at most the largest argument. Measured
    // peaks of dense/activation chains reach this (remat/budget.test).
    int64_t workspace = 4 * chain.largest(), largestArgument = 0;
    for (Type t : fn.getArgumentTypes()) {
      workspace += floatTensorBytes(t);
      largestArgument = std::max(largestArgument, floatTensorBytes(t));
    }
    workspace += 2 * largestArgument;
    SmallVector<Segment> allStored = uniformSegments(n, 1);
    ScheduleEstimate stored = chain.estimate(allStored, workspace);
    if (stored.peak <= budget) {
      mlir::emitRemark(fn.getLoc(), "ad-remat: estimated peak with every "
                                    "activation stored (")
          << stored.peak << " bytes) fits in the budget of "
          << budget.getValue() << " bytes; all stored";
      return allStored;
    }
    FailureOr<SmallVector<Segment>> schedule =
        chain.cheapestSchedule(budget - workspace);
    if (failed(schedule))
      return fn.emitError("ad-remat: budget of ")
             << budget.getValue()
             << " bytes is infeasible: the smallest estimated peak of any "
                "checkpointing schedule is "
             << chain.minimalPeak() + workspace << " bytes (all stored: "
             << stored.peak << ")";
    ScheduleEstimate chosen = chain.estimate(*schedule, workspace);
    // The best uniform segment length under the same model, for comparison.
    std::optional<std::pair<int64_t, ScheduleEstimate>> uniform;
    for (int64_t length = 2; length <= n; ++length) {
      ScheduleEstimate e =
          chain.estimate(uniformSegments(n, length), workspace);
      if (e.peak <= budget &&
          (!uniform || e.recomputeCost < uniform->second.recomputeCost))
        uniform = {length, e};
    }
    InFlightDiagnostic remark = mlir::emitRemark(fn.getLoc());
    remark << "ad-remat: checkpointing layers " << describe(*schedule)
           << " of " << n << "; estimated peak " << chosen.peak
           << " bytes within the budget of " << budget.getValue()
           << " (all stored: " << stored.peak << "); recomputes "
           << chosen.recomputedLayers << " layers, cost "
           << chosen.recomputeCost << "; best uniform segments: ";
    if (uniform)
      remark << "every " << uniform->first << ", "
             << uniform->second.recomputedLayers << " layers, cost "
             << uniform->second.recomputeCost;
    else
      remark << "none fits";
    return schedule;
  }
};

} // namespace
