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

#include "PeakSimulation.h"
#include "Remat.h"
#include "RematBound.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

namespace trellis::ad {
#define GEN_PASS_DEF_ADREMAT
#include "trellis/Dialect/AD/Transforms/Passes.h.inc"
} // namespace trellis::ad

using namespace mlir;
using namespace trellis::ad;

namespace {

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
  return std::max({resultElements * contraction, operandElements, int64_t(1)});
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
      layerIndex[&op] = layers.size();
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
    }
  }

  int64_t size() const { return layers.size(); }
  Operation *layer(int64_t i) const { return layers[i]; }

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

  /// recomputeCost() of layer `i`.
  int64_t cost(int64_t i) const { return costPrefix[i + 1] - costPrefix[i]; }

  /// For each layer i, the bytes of the gradients of `differentiated` (values
  /// of the body's block) whose last use is at or after layer i: they exist
  /// while layer i is reversed, whatever the schedule.
  SmallVector<int64_t> gradientBytes(ArrayRef<Value> differentiated) const {
    int64_t n = size();
    SmallVector<int64_t> bytes(n + 1, 0);
    for (Value value : differentiated) {
      int64_t last = -1;
      for (Operation *user : value.getUsers())
        if (auto it = layerIndex.find(
                layers.front()->getBlock()->findAncestorOpInBlock(*user));
            it != layerIndex.end())
          last = std::max(last, it->second);
      if (last >= 0)
        bytes[last] += floatTensorBytes(value.getType());
    }
    for (int64_t i = n - 1; i >= 0; --i)
      bytes[i] += bytes[i + 1];
    bytes.pop_back();
    return bytes;
  }

  /// The smallest estimated activation peak of any schedule (without the
  /// workspace), by G(a) = min_b max(I(a,b), S(a,b) + G(b+1)) in O(n²).
  int64_t minimalPeak() const {
    int64_t n = size();
    SmallVector<int64_t> best(n + 1, 0);
    for (int64_t a = n - 1; a >= 0; --a) {
      best[a] = std::numeric_limits<int64_t>::max();
      for (int64_t b = a; b < n; ++b)
        best[a] = std::min(best[a], std::max(internalBytes(a, b),
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
  /// The index in `layers` of each layer.
  DenseMap<Operation *, int64_t> layerIndex;
  SmallVector<int64_t> layerPosition;
  SmallVector<int64_t> bytesPrefix{0}, costPrefix{0};
  /// Per layer, per result: (bytes, position of the last use in the block).
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> resultUses;
};

/// The single-level schedule of a partition into segments.
Schedule fromSegments(ArrayRef<Segment> segments) {
  Schedule schedule;
  for (Segment s : segments)
    if (s.first != s.last)
      schedule.push_back({s.first, s.last, {}});
  return schedule;
}

/// The schedules of nested checkpoints of least recomputation under the
/// chain model, for every activation limit at once (dynamic programming in
/// the manner of Griewank and Walther's Revolve and of Rotor's
/// heterogeneous chains, over ChainModel's bytes and costs):
///
///   L(a, b, m) = min( L(a+1, b, m - S(a, a))          layer a stored,
///                     min_{a<k<b} C(a, k) + L(a, k, m)
///                                 + L(k+1, b, m - S(a, k)) )
///
/// the least cost of reversing the layers [a, b] (its first element, then
/// the rest) within `m` bytes of activations: the rest is reversed while
/// the first element's stored results S are held; then the first element,
/// a stored layer holding I(a, a) or a checkpoint recomputed (its cost C)
/// and reversed under a schedule of its own within the whole `m`. The
/// model's peak of a schedule is what the recursion charges: at each point
/// of the backward sweep, what the elements before it store, plus what the
/// element being reversed holds, a stored layer's with the gradients that
/// exist by then (the later layers' weights'). Bytes are rounded up to
/// `units` of the chain's store-all bytes, so the table's schedules are
/// optimal for the rounded model and within its limit unrounded. O(n³·units)
/// time, O(n²·units) memory.
class NestedPlanner {
public:
  /// Whether a chain of `n` layers is small enough to plan.
  static bool applies(int64_t n) { return n >= 2 && n <= kMaxLayers; }

  /// `gradientBytes[i]`: the bytes of the gradients that exist while layer
  /// i is reversed whatever the schedule (those of the differentiated
  /// arguments whose last use is at or after layer i).
  NestedPlanner(const ChainModel &chain, ArrayRef<int64_t> gradientBytes)
      : chain(chain), n(chain.size()),
        units(std::clamp<int64_t>(kMaxEntries / (n * n), 16, 1000)),
        unitBytes(std::max<int64_t>(
            1, llvm::divideCeil(chain.internalBytes(0, n - 1), units))),
        cost(n * n * (units + 1), kInfeasible),
        firstEnd(n * n * (units + 1), -1) {
    for (int64_t length = 1; length <= n; ++length)
      for (int64_t a = 0; a + length <= n; ++a) {
        int64_t b = a + length - 1;
        // The first element ends at k: layer a stored (k = a) or a
        // checkpoint [a, k]. The last element of a level is never a
        // checkpoint: reversed right after its forward, it would be
        // recomputed for the peak its body has stored.
        for (int64_t k = a; k == a || k < b; ++k) {
          int64_t stored = storedUnits(a, k);
          int64_t held =
              k == a ? inUnits(chain.internalBytes(a, a) + gradientBytes[a])
                     : 0;
          int64_t recompute = chain.segmentCost(a, k);
          for (int64_t m = std::max(held, stored); m <= units; ++m) {
            int64_t inner = k == a ? 0 : cost[index(a, k, m)];
            int64_t after = k == b ? 0 : cost[index(k + 1, b, m - stored)];
            if (inner == kInfeasible || after == kInfeasible)
              continue;
            int64_t total = recompute + inner + after;
            if (total < cost[index(a, b, m)]) {
              cost[index(a, b, m)] = total;
              firstEnd[index(a, b, m)] = k;
            }
          }
        }
      }
  }

  /// The least recomputation cost within `limit` bytes, or failure.
  FailureOr<int64_t> leastCost(int64_t limit) const {
    int64_t m = std::min(units, limit / unitBytes);
    if (m < 0 || cost[index(0, n - 1, m)] == kInfeasible)
      return failure();
    return cost[index(0, n - 1, m)];
  }

  /// The schedule of leastCost(limit), or failure if nothing fits.
  FailureOr<Schedule> schedule(int64_t limit) const {
    if (failed(leastCost(limit)))
      return failure();
    return build(0, n - 1, std::min(units, limit / unitBytes));
  }

  /// The range of useful limits: from the smallest within which the model
  /// has a schedule to the store-all bytes (multiples of the unit).
  int64_t smallestLimit() const {
    int64_t m = 0;
    while (m < units && cost[index(0, n - 1, m)] == kInfeasible)
      ++m;
    return m * unitBytes;
  }
  int64_t largestLimit() const { return units * unitBytes; }

private:
  static constexpr int64_t kMaxLayers = 400;
  static constexpr int64_t kMaxEntries = 4'000'000;
  static constexpr int64_t kInfeasible = std::numeric_limits<int64_t>::max();

  int64_t index(int64_t a, int64_t b, int64_t m) const {
    return (a * n + b) * (units + 1) + m;
  }
  int64_t inUnits(int64_t bytes) const {
    return llvm::divideCeil(bytes, unitBytes);
  }
  int64_t storedUnits(int64_t a, int64_t k) const {
    return inUnits(chain.storedBytes(a, k));
  }

  /// The schedule of the level [a, b] within m units (its table entries).
  Schedule build(int64_t a, int64_t b, int64_t m) const {
    Schedule result;
    while (a <= b) {
      int64_t k = firstEnd[index(a, b, m)];
      assert(k >= a && "no schedule within the limit");
      if (k > a)
        result.push_back({a, k, build(a, k, m)});
      m -= storedUnits(a, k);
      a = k + 1;
    }
    return result;
  }

  const ChainModel &chain;
  int64_t n, units, unitBytes;
  std::vector<int64_t> cost;
  std::vector<int32_t> firstEnd;
};

/// Segments of `length` layers covering [first, last] (the every policy).
SmallVector<Segment> uniformSegments(int64_t first, int64_t last,
                                     int64_t length) {
  SmallVector<Segment> segments;
  for (int64_t start = first; start <= last; start += length)
    segments.push_back({start, std::min(last, start + length - 1)});
  return segments;
}

/// [first, last] split recursively into `parts` near-equal checkpointed
/// pieces until they are at most `leaf` layers long.
Schedule recursiveSplit(int64_t first, int64_t last, int64_t parts,
                        int64_t leaf) {
  Schedule schedule;
  int64_t length = last - first + 1;
  for (int64_t p = 0; p < parts; ++p) {
    int64_t a = first + length * p / parts,
            b = first + length * (p + 1) / parts - 1;
    if (b <= a)
      continue;
    Checkpoint piece{a, b, {}};
    if (b - a + 1 > leaf)
      piece.inner = recursiveSplit(a, b, parts, leaf);
    schedule.push_back(std::move(piece));
  }
  return schedule;
}

/// Every schedule of nested checkpoints over the layers [first, last]: each
/// layer is stored or in a checkpointed segment of two or more, whose body
/// has a schedule of its own. `body`: [first, last] is a checkpoint's body,
/// which is not checkpointed whole once more (that recomputes it again for
/// nothing).
SmallVector<Schedule> allSchedules(int64_t first, int64_t last, bool body) {
  SmallVector<Schedule> result;
  if (first > last) {
    result.emplace_back();
    return result;
  }
  for (Schedule &rest : allSchedules(first + 1, last, false))
    result.push_back(std::move(rest));
  for (int64_t end = first + 1; end <= last; ++end) {
    if (body && end == last)
      continue;
    SmallVector<Schedule> inners = allSchedules(first, end, true),
                          rests = allSchedules(end + 1, last, false);
    for (const Schedule &inner : inners)
      for (const Schedule &rest : rests) {
        Schedule schedule{Checkpoint{first, end, inner}};
        schedule.insert(schedule.end(), rest.begin(), rest.end());
        result.push_back(std::move(schedule));
      }
  }
  return result;
}

/// The schedules one step from `schedule` over `n` layers: a top-level
/// checkpoint without nested ones with one end or both moved by a layer
/// (keeping two or more layers, not overlapping its neighbours), or left
/// out.
SmallVector<Schedule> neighbours(const Schedule &schedule, int64_t n) {
  SmallVector<Schedule> result;
  for (size_t k = 0; k < schedule.size(); ++k) {
    Schedule dropped = schedule;
    dropped.erase(dropped.begin() + k);
    result.push_back(std::move(dropped));
    const Checkpoint &c = schedule[k];
    if (!c.inner.empty())
      continue;
    int64_t lowest = k ? schedule[k - 1].last + 1 : 0;
    int64_t highest =
        k + 1 < schedule.size() ? schedule[k + 1].first - 1 : n - 1;
    for (auto [first, last] :
         {std::pair(c.first - 1, c.last), std::pair(c.first + 1, c.last),
          std::pair(c.first, c.last - 1), std::pair(c.first, c.last + 1),
          std::pair(c.first - 1, c.last - 1),
          std::pair(c.first + 1, c.last + 1)}) {
      if (first < lowest || last > highest || last - first < 1)
        continue;
      Schedule moved = schedule;
      moved[k] = Checkpoint{first, last, {}};
      result.push_back(std::move(moved));
    }
  }
  return result;
}

/// Prints a schedule as its checkpointed layer ranges with the nested ones
/// inside, e.g. "[0-3] [6-13 [6-9] [10-13]]"; "none" if it stores all.
void describe(ArrayRef<Checkpoint> schedule, std::string &text) {
  for (const Checkpoint &c : schedule) {
    text += (text.empty() ? "[" : " [") + std::to_string(c.first) + "-" +
            std::to_string(c.last);
    describe(c.inner, text);
    text += "]";
  }
}
std::string describe(ArrayRef<Checkpoint> schedule) {
  std::string text;
  describe(schedule, text);
  return text.empty() ? "none" : text;
}

/// Recomputations of a schedule: every layer is recomputed once per
/// checkpoint around it. Adds to `layers` and `cost` (the chain's
/// recomputeCost() per recomputation).
void recomputation(ArrayRef<Checkpoint> schedule, ArrayRef<int64_t> layerCost,
                   int64_t &layers, int64_t &cost) {
  for (const Checkpoint &c : schedule) {
    for (int64_t i = c.first; i <= c.last; ++i)
      cost += layerCost[i];
    layers += c.last - c.first + 1;
    recomputation(c.inner, layerCost, layers, cost);
  }
}

/// Wraps the checkpoints of `schedule` (outer ones first, so that the
/// nested ones are wrapped inside their bodies) around `layers`.
void applySchedule(ArrayRef<Checkpoint> schedule,
                   ArrayRef<Operation *> layers) {
  for (const Checkpoint &c : schedule) {
    wrapSegment(layers[c.first], layers[c.last]);
    applySchedule(c.inner, layers);
  }
}

/// A schedule with its figures: the peak the lowered code will reach
/// (PeakSimulation.h) and its recomputation.
struct Candidate {
  Schedule schedule;
  int64_t peak = 0, layers = 0, cost = 0;
};

struct ADRematPass : trellis::ad::impl::ADRematBase<ADRematPass> {
  using Base::Base;

  void runOnOperation() override {
    if (policy == RematPolicy::Store)
      return;
    if (policy == RematPolicy::Every && every < 1) {
      getOperation().emitError("ad-remat: every must be at least 1");
      return signalPassFailure();
    }
    if (attentionChunk < 0) {
      getOperation().emitError("ad-remat: attention-chunk must not be "
                               "negative");
      return signalPassFailure();
    }
    SymbolTable symbols(getOperation());
    llvm::SetVector<func::FuncOp> callees;
    // The functions that take each derivative: the budget bounds their
    // peak.
    llvm::DenseMap<func::FuncOp, llvm::SetVector<StringRef>> callers;
    // The arguments each function is differentiated with respect to.
    llvm::DenseMap<func::FuncOp, llvm::SetVector<int64_t>> differentiated;
    getOperation().walk([&](DerivativeOpInterface op) {
      auto fn = symbols.lookup<func::FuncOp>(op.getCalleeAttr().getValue());
      if (!fn)
        return;
      callees.insert(fn);
      for (int64_t index : op.getDiffArgIndices())
        differentiated[fn].insert(index);
      if (auto caller = op->getParentOfType<func::FuncOp>())
        callers[fn].insert(caller.getSymName());
    });
    for (func::FuncOp fn : callees)
      if (!fn.isExternal() && fn.getBody().hasOneBlock())
        if (failed(rematerialize(fn, callers[fn].getArrayRef(),
                                 differentiated[fn].getArrayRef())))
          return signalPassFailure();
  }

  LogicalResult rematerialize(func::FuncOp fn, ArrayRef<StringRef> entries,
                              ArrayRef<int64_t> differentiated) {
    ChainModel chain(fn.getBody().front());
    int64_t n = chain.size();
    if (n < 2)
      return success();
    Schedule schedule;
    if (policy == RematPolicy::Every) {
      if (every <= 1)
        return success();
      schedule = fromSegments(uniformSegments(0, n - 1, every));
    } else {
      FailureOr<Schedule> chosen =
          scheduleForBudget(fn, chain, entries, differentiated);
      if (failed(chosen))
        return failure();
      schedule = std::move(*chosen);
    }
    SmallVector<Operation *> layers;
    for (int64_t i = 0; i < n; ++i)
      layers.push_back(chain.layer(i));
    applySchedule(schedule, layers);
    return success();
  }

  /// The peak of the module's lowered code with `schedule` applied to `fn`,
  /// over the functions `entries` (memoised by schedule).
  FailureOr<int64_t> predictPeak(func::FuncOp fn, ArrayRef<StringRef> entries,
                                 const Schedule &schedule) {
    std::string key = describe(schedule);
    if (auto it = predicted.find(key); it != predicted.end())
      return it->second;
    OwningOpRef<ModuleOp> copy = getOperation().clone();
    applyScheduleTo(*copy, fn.getSymName(), schedule);
    SmallVector<std::string> names(entries.begin(), entries.end());
    std::string whyNot;
    FailureOr<PeakBytes> peak =
        predictPeakBytes(*copy, names, attentionChunk, whyNot);
    if (failed(peak))
      return fn.emitError("ad-remat: cannot predict the peak tensor memory "
                          "of the lowered code: ")
             << whyNot;
    remember(key, *peak);
    return peak->bytes;
  }

  /// Predicts the schedules of `schedules` not predicted yet, on one thread
  /// per core (unless the context runs single-threaded), each with an
  /// MLIRContext of its own holding a copy of the module parsed from its
  /// text: the lowering's passes install diagnostic handlers on their
  /// context, which threads cannot share. Each prediction is the one
  /// predictPeak makes; predictPeak then finds them memoised.
  LogicalResult predictAll(func::FuncOp fn, ArrayRef<StringRef> entries,
                           ArrayRef<Schedule> schedules) {
    SmallVector<const Schedule *> todo;
    SmallVector<std::string> keys;
    llvm::StringSet<> seen;
    for (const Schedule &schedule : schedules) {
      std::string key = describe(schedule);
      if (!predicted.contains(key) && seen.insert(key).second) {
        todo.push_back(&schedule);
        keys.push_back(std::move(key));
      }
    }
    unsigned threads = getContext().isMultithreadingEnabled()
                           ? llvm::hardware_concurrency().compute_thread_count()
                           : 1;
    threads = std::min<size_t>(threads, todo.size());
    if (threads < 2)
      return success();
    // The module does not change while one function is planned: its text
    // is printed once, for every batch.
    if (moduleText.empty()) {
      llvm::raw_string_ostream os(moduleText);
      getOperation()->print(os, OpPrintingFlags().printGenericOpForm());
    }
    const std::string &text = moduleText;
    const DialectRegistry &registry = getContext().getDialectRegistry();
    SmallVector<std::string> names(entries.begin(), entries.end());
    std::string name = fn.getSymName().str();
    struct Prediction {
      FailureOr<PeakBytes> peak = failure();
      std::string whyNot = "the module did not parse in a context of its own";
    };
    std::vector<Prediction> results(todo.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
      MLIRContext context(registry, MLIRContext::Threading::DISABLED);
      ParserConfig config(&context);
      OwningOpRef<ModuleOp> source = parseSourceString<ModuleOp>(text, config);
      if (!source)
        return;
      for (size_t i; (i = next++) < todo.size();) {
        OwningOpRef<ModuleOp> copy = source->clone();
        applyScheduleTo(*copy, name, *todo[i]);
        results[i].whyNot.clear();
        results[i].peak =
            predictPeakBytes(*copy, names, attentionChunk, results[i].whyNot);
      }
    };
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back(work);
    for (std::thread &worker : workers)
      worker.join();
    for (auto [key, result] : llvm::zip_equal(keys, results)) {
      if (failed(result.peak))
        return fn.emitError("ad-remat: cannot predict the peak tensor memory "
                            "of the lowered code: ")
               << result.whyNot;
      remember(key, *result.peak);
    }
    return success();
  }

  /// Applies `schedule` to the chain of `module`'s function `name`.
  static void applyScheduleTo(ModuleOp module, StringRef name,
                              const Schedule &schedule) {
    auto copiedFn = module.lookupSymbol<func::FuncOp>(name);
    ChainModel copiedChain(copiedFn.getBody().front());
    SmallVector<Operation *> layers;
    for (int64_t i = 0; i < copiedChain.size(); ++i)
      layers.push_back(copiedChain.layer(i));
    applySchedule(schedule, layers);
  }

  void remember(StringRef key, PeakBytes peak) {
    predicted[key] = peak.bytes;
    if (!peak.exact)
      upperBounds.insert(key);
  }

  /// "predicted peak" of `schedule`, with "at most" if it is an upper bound.
  std::string predictedPeak(const Schedule &schedule) const {
    return upperBounds.contains(describe(schedule)) ? "predicted peak at most "
                                                    : "predicted peak ";
  }

  /// The schedules the budget policy chooses from, whatever the budget:
  /// the model's single-level schedules of least recomputation under a
  /// sweep of activation limits (from its smallest peak to storing
  /// everything), uniform segments, and recursive splits into 2–4 nested
  /// pieces (schedules that recompute some layers more than once, for
  /// budgets below the single-level minimum).
  SmallVector<Schedule> candidateSchedules(const ChainModel &chain,
                                           ArrayRef<NestedPlanner> planners) {
    int64_t n = chain.size();
    SmallVector<Schedule> candidates;
    int64_t lowest = chain.minimalPeak(),
            highest = chain.internalBytes(0, n - 1);
    constexpr int64_t kLimits = 16;
    for (int64_t step = 0; step <= kLimits; ++step) {
      int64_t limit = lowest + (highest - lowest) * step / kLimits;
      if (FailureOr<SmallVector<Segment>> segments =
              chain.cheapestSchedule(limit);
          succeeded(segments))
        candidates.push_back(fromSegments(*segments));
    }
    // The model's optimal nested schedules, for limits from its smallest
    // feasible one to storing everything.
    for (const NestedPlanner &nested : planners) {
      int64_t low = nested.smallestLimit(), high = nested.largestLimit();
      for (int64_t step = 0; step <= kLimits; ++step)
        if (FailureOr<Schedule> schedule =
                nested.schedule(low + (high - low) * step / kLimits);
            succeeded(schedule))
          candidates.push_back(std::move(*schedule));
    }
    for (int64_t length = 2; length <= n; ++length)
      if (length <= 8 || length * length <= 4 * n)
        candidates.push_back(fromSegments(uniformSegments(0, n - 1, length)));
    for (int64_t parts = 2; parts <= 4; ++parts)
      for (int64_t leaf = 2; leaf <= 4; ++leaf)
        candidates.push_back(recursiveSplit(0, n - 1, parts, leaf));
    // Two levels: sqrt-sized outer segments, inner segments of 2 or 3.
    for (int64_t outer = 4; outer * 2 <= n; outer *= 2)
      for (int64_t innerLength = 2; innerLength <= 3; ++innerLength) {
        Schedule schedule;
        for (Segment s : uniformSegments(0, n - 1, outer)) {
          if (s.first == s.last)
            continue;
          Checkpoint c{s.first, s.last, {}};
          if (s.last - s.first + 1 > innerLength)
            c.inner =
                fromSegments(uniformSegments(s.first, s.last, innerLength));
          schedule.push_back(std::move(c));
        }
        candidates.push_back(std::move(schedule));
      }
    return candidates;
  }

  /// The budget policy: store everything if that fits; else the candidate
  /// of least recomputation whose predicted peak fits, among
  /// candidateSchedules() and the model's schedules for limits bisected
  /// towards the budget. The candidates do not depend on the budget, so
  /// every budget at or above the smallest peak among them is met.
  FailureOr<Schedule> scheduleForBudget(func::FuncOp fn,
                                        const ChainModel &chain,
                                        ArrayRef<StringRef> entries,
                                        ArrayRef<int64_t> differentiated) {
    int64_t n = chain.size();
    predicted.clear();
    moduleText.clear();
    upperBounds.clear();
    SmallVector<int64_t> layerCost;
    int64_t forwardCost = 0;
    for (int64_t i = 0; i < n; ++i) {
      layerCost.push_back(chain.cost(i));
      forwardCost += chain.cost(i);
    }
    // The lower bound (built below, once storing everything is known not to
    // fit), checked against every prediction: a model peak above a
    // predicted one would void its claims.
    FailureOr<RematLowerBound> bound = failure();
    std::string noBound;
    std::optional<std::string> boundViolated;
    llvm::StringSet<> printed;
    auto evaluate = [&](Schedule schedule) -> FailureOr<Candidate> {
      // Once per schedule: candidates and the searches meet the same ones.
      bool known = !printed.insert(describe(schedule)).second;
      FailureOr<int64_t> peak = predictPeak(fn, entries, schedule);
      if (failed(peak))
        return failure();
      Candidate c{std::move(schedule), *peak, 0, 0};
      recomputation(c.schedule, layerCost, c.layers, c.cost);
      int64_t modelPeak = succeeded(bound) ? bound->peak(c.schedule) : 0;
      if (succeeded(bound) && modelPeak > c.peak && !boundViolated)
        boundViolated = describe(c.schedule) + " (model " +
                        std::to_string(modelPeak) + " > predicted " +
                        std::to_string(c.peak) + ")";
      if (printPredictions && !known) {
        InFlightDiagnostic remark =
            mlir::emitRemark(fn.getLoc(), "ad-remat: schedule ")
            << describe(c.schedule) << ": " << predictedPeak(c.schedule)
            << c.peak << " bytes, recomputation cost " << c.cost;
        if (succeeded(bound))
          remark << ", lower-bound model " << modelPeak << " bytes";
      }
      return c;
    };
    FailureOr<int64_t> storedPeak = predictPeak(fn, entries, {});
    if (failed(storedPeak))
      return failure();
    if (*storedPeak <= budget) {
      mlir::emitRemark(fn.getLoc(), "ad-remat: ")
          << predictedPeak({}) << "with every activation stored ("
          << *storedPeak << " bytes) fits in the budget of "
          << budget.getValue() << " bytes; all stored";
      return Schedule{};
    }
    SmallVector<Operation *> chainLayers;
    for (int64_t i = 0; i < n; ++i)
      chainLayers.push_back(chain.layer(i));
    bound = RematLowerBound::analyze(getOperation(), fn, chainLayers, layerCost,
                                     attentionChunk, noBound);
    // Predicted already: checked against the bound and printed now.
    FailureOr<Candidate> allStored = evaluate({});
    if (failed(allStored))
      return failure();
    std::optional<Candidate> best, lowest, uniform;
    int64_t uniformLength = 0;
    // Short chains: every schedule, so that the choice is the optimum.
    bool exhaustive = n <= exactLimit;
    // The nested program twice: with the gradients that exist while each
    // layer is reversed, and without (unless there are none). Neither is the
    // lowered code's peak, and on the benchmark chains each gives the
    // cheaper fitting schedule for some budgets (docs/reversible.md).
    std::vector<NestedPlanner> planners;
    if (!exhaustive && NestedPlanner::applies(n)) {
      SmallVector<Value> arguments;
      for (int64_t index : differentiated)
        arguments.push_back(fn.getArgument(index));
      SmallVector<int64_t> gradients = chain.gradientBytes(arguments);
      planners.reserve(2);
      planners.emplace_back(chain, gradients);
      if (llvm::any_of(gradients, [](int64_t bytes) { return bytes != 0; }))
        planners.emplace_back(chain, SmallVector<int64_t>(n, 0));
    }
    SmallVector<Schedule> schedules = exhaustive
                                          ? allSchedules(0, n - 1, false)
                                          : candidateSchedules(chain, planners);
    // Whether `c` is the new best.
    SmallVector<Candidate> fitting;
    auto consider = [&](const Candidate &c) {
      if (c.peak > budget)
        return;
      fitting.push_back(c);
      if (!best || std::tie(c.cost, c.peak) < std::tie(best->cost, best->peak))
        best = c;
    };
    if (failed(predictAll(fn, entries, schedules)))
      return failure();
    for (Schedule &schedule : schedules) {
      FailureOr<Candidate> c = evaluate(std::move(schedule));
      if (failed(c))
        return failure();
      consider(*c);
      if (!lowest ||
          std::tie(c->peak, c->cost) < std::tie(lowest->peak, lowest->cost))
        lowest = *c;
    }
    if (!best) {
      InFlightDiagnostic error =
          fn.emitError("ad-remat: budget of ")
          << budget.getValue()
          << " bytes is infeasible: the smallest predicted peak of any "
             "checkpointing schedule is "
          << lowest->peak << " bytes (all stored: " << allStored->peak
          << "; schedule " << describe(lowest->schedule) << ")";
      // The stronger of the two floors: the results' bytes, and the lower
      // bound's smallest peak.
      int64_t floor = resultBytes(entries);
      if (succeeded(bound) && !boundViolated &&
          bound->smallestPeak() > std::max<int64_t>(budget, floor))
        error << "; no schedule of nested checkpoints goes below "
              << bound->smallestPeak()
              << " bytes (the lower bound's model, checked against "
              << predicted.size() << " predictions)";
      else if (budget < floor)
        error << "; no schedule goes below " << floor
              << " bytes, what the results take";
      return error;
    }
    // The model's cheapest schedule for the largest activation limit whose
    // prediction fits: the model over-counts what is stored, so limits
    // above the budget can fit.
    int64_t low = chain.minimalPeak(), high = chain.internalBytes(0, n - 1);
    for (int step = 0; !exhaustive && step < 10 && low < high; ++step) {
      int64_t limit = low + (high - low + 1) / 2;
      FailureOr<SmallVector<Segment>> segments = chain.cheapestSchedule(limit);
      if (failed(segments)) {
        low = limit;
        continue;
      }
      FailureOr<Candidate> c = evaluate(fromSegments(*segments));
      if (failed(c))
        return failure();
      consider(*c);
      if (c->peak <= budget)
        low = limit;
      else
        high = limit - 1;
    }
    // Bisects [low, high] for the largest limit whose schedule (from
    // `scheduleAt`, nullopt if none) has a prediction that fits, predicting
    // each schedule met on the way (a fitting one is kept as the limit
    // grows).
    auto bisect =
        [&](int64_t low, int64_t high,
            llvm::function_ref<std::optional<Schedule>(int64_t)> scheduleAt)
        -> LogicalResult {
      for (int step = 0; step < 12 && low < high; ++step) {
        int64_t limit = low + (high - low + 1) / 2;
        std::optional<Schedule> schedule = scheduleAt(limit);
        if (!schedule) {
          low = limit;
          continue;
        }
        FailureOr<Candidate> c = evaluate(std::move(*schedule));
        if (failed(c))
          return failure();
        consider(*c);
        if (c->peak <= budget)
          low = limit;
        else
          high = limit - 1;
      }
      return success();
    };
    // The same for the model's nested schedules.
    for (const NestedPlanner &nested : planners)
      if (failed(bisect(nested.smallestLimit(), nested.largestLimit(),
                        [&](int64_t limit) -> std::optional<Schedule> {
                          FailureOr<Schedule> schedule = nested.schedule(limit);
                          if (failed(schedule))
                            return std::nullopt;
                          return std::move(*schedule);
                        })))
        return failure();
    // The lower bound's optimal schedules: its schedule for the budget
    // itself, which is optimal if its prediction fits; else, since the
    // model counts less than the lowered code holds, the largest limit
    // below the budget whose schedule's prediction fits (the bisection
    // alone can miss the budget's schedule: a smaller limit's may not fit
    // where the budget's does).
    if (succeeded(bound) && !exhaustive) {
      if (std::optional<Schedule> schedule = bound->schedule(budget)) {
        FailureOr<Candidate> c = evaluate(std::move(*schedule));
        if (failed(c))
          return failure();
        consider(*c);
      }
      if (failed(bisect(bound->smallestPeak(), budget,
                        [&](int64_t limit) { return bound->schedule(limit); })))
        return failure();
    }
    // Local search from the cheapest fitting candidates, each in turn: move
    // one end of a checkpoint without nested ones by a layer, or drop one;
    // keep what fits at a lower cost, until nothing does (the candidates
    // miss schedules such as a single short segment, and a search from the
    // cheapest alone can end in a worse local optimum than from another).
    constexpr size_t kStarts = 8;
    SmallVector<Candidate> starts;
    for (const Candidate &c : fitting)
      if (llvm::none_of(starts, [&](const Candidate &s) {
            return s.schedule == c.schedule;
          }))
        starts.push_back(c);
    llvm::stable_sort(starts, [](const Candidate &x, const Candidate &y) {
      return x.cost < y.cost;
    });
    // Nothing to search for once the best costs the lower bound's least
    // cost within the budget (-1: none): it is optimal (unless a prediction
    // voided the bound).
    int64_t least = -1;
    if (succeeded(bound))
      least = bound->leastCost(budget).value_or(-1);
    bool provedOptimal =
        best && least >= 0 && !boundViolated && best->cost == least;
    starts.truncate(
        exhaustive || provedOptimal ? 0 : std::min(kStarts, starts.size()));
    for (Candidate current : starts)
      for (bool improved = true; improved;) {
        improved = false;
        SmallVector<Schedule> next = neighbours(current.schedule, n);
        if (failed(predictAll(fn, entries, next)))
          return failure();
        for (Schedule &schedule : next) {
          FailureOr<Candidate> c = evaluate(std::move(schedule));
          if (failed(c))
            return failure();
          consider(*c);
          if (c->peak <= budget && c->cost < current.cost) {
            current = *c;
            improved = true;
          }
        }
      }
    // The best uniform segment length, for comparison.
    for (int64_t length = 2; length <= n; ++length) {
      std::string key =
          describe(fromSegments(uniformSegments(0, n - 1, length)));
      auto it = predicted.find(key);
      if (it == predicted.end() || it->second > budget)
        continue;
      Candidate c{fromSegments(uniformSegments(0, n - 1, length)), it->second,
                  0, 0};
      recomputation(c.schedule, layerCost, c.layers, c.cost);
      if (!uniform || c.cost < uniform->cost) {
        uniform = c;
        uniformLength = length;
      }
    }
    InFlightDiagnostic remark = mlir::emitRemark(fn.getLoc());
    remark << "ad-remat: checkpointing layers " << describe(best->schedule)
           << " of " << n << "; " << predictedPeak(best->schedule) << best->peak
           << " bytes within the budget of " << budget.getValue()
           << " (all stored: " << allStored->peak << "); recomputes "
           << best->layers << " layers, cost " << best->cost << " ("
           << llvm::formatv("{0:F2}", double(best->cost) / forwardCost).str()
           << " forward passes), the least of " << predicted.size()
           << " schedules predicted; best uniform segments: ";
    if (uniform)
      remark << "every " << uniformLength << ", " << uniform->layers
             << " layers, cost " << uniform->cost;
    else
      remark << "none fits";
    if (exhaustive)
      remark << "; optimal: the exhaustive search predicted every schedule "
                "of nested checkpoints";
    if (failed(bound)) {
      remark << "; no lower bound (" << noBound << ")";
    } else if (boundViolated) {
      remark << "; no lower bound (its model exceeds the prediction of "
             << *boundViolated << ")";
    } else if (least >= 0) {
      if (least > 0)
        remark << "; every schedule within the budget recomputes at least "
               << least << " (this one "
               << llvm::formatv("{0:F3}", double(best->cost) / least).str()
               << " x that lower bound)";
      else
        remark << "; the lower bound is 0 (its model fits the budget with "
                  "every activation stored)";
      remark << ", checked against " << predicted.size() << " predictions";
    }
    return best->schedule;
  }

  /// A floor of every schedule's peak: the bytes of the distinct float
  /// tensors the functions `entries` return, which all exist when they
  /// return (without the allocation padding, so a bound whatever the
  /// runtime adds).
  int64_t resultBytes(ArrayRef<StringRef> entries) {
    int64_t most = 0;
    for (StringRef name : entries) {
      auto entry = getOperation().lookupSymbol<func::FuncOp>(name);
      if (!entry || entry.isExternal())
        continue;
      llvm::SmallPtrSet<Value, 8> seen;
      int64_t bytes = 0;
      entry.walk([&](func::ReturnOp ret) {
        if (ret->getParentOp() != entry)
          return;
        for (Value v : ret.getOperands())
          if (int64_t b = floatTensorBytes(v.getType());
              b && seen.insert(v).second)
            bytes += b - kAllocationPadding;
      });
      most = std::max(most, bytes);
    }
    return most;
  }

  /// Predicted peaks by schedule, for one function's planning.
  llvm::StringMap<int64_t> predicted;
  /// The schedules whose prediction is an upper bound (PeakBytes::exact).
  llvm::StringSet<> upperBounds;
  /// The module's generic text, which predictAll's threads parse (printed
  /// once per function planned).
  std::string moduleText;
};

} // namespace
