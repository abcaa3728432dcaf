//===- RematBound.cpp - A floor under ad-remat's recomputation ------------===//
//
// The model (docs/reversible.md, "A lower bound"). Every schedule runs the
// layers' reverse-rule ops in the same order, recomputation only inserted
// between them; layer i's moment is the rule op of layer i at which the
// derivative with every activation stored has the most live, and at it the
// lowered code of any schedule holds at once, each in a buffer of its own:
//
//  * the reverse sweep's values live there (cotangents on their way,
//    gradients computed), leaving out what the lowering may fold away
//    (transposes, which GEMM calls read through, and element-wise results,
//    fills and broadcasts included, that only fused consumers read);
//  * what the moment's op allocates: a fresh destination (a GEMM's result
//    unless it may accumulate into the value it is added to, an
//    element-wise result that needs a buffer unless it may overwrite an
//    operand read last there), or an nn op's own allocations replayed alone
//    beside the operands it reads last;
//  * layer i's own results that its rule still reads;
//  * for every level of checkpoints around i and every boundary of that
//    level before i's element, the values crossing it that the elements
//    around it still need: results of the layer before the boundary read
//    by that layer's rule (if stored) or the next layer's (if stored) or
//    needed to recompute the next element (if a checkpoint), and values
//    first read by the next layer's rule further on (kept after a
//    checkpoint when that layer is inside it);
//  * for every checkpoint of those levels after i's element, the values
//    from further before it that a layer inside computes from (a residual
//    stream), unless an element before it at its level holds them already.
//
// Each value is counted at one boundary only, so the sum is at most what
// the lowered code holds: its peak (the pass checks this against every
// prediction). The least-cost search over schedules is a dynamic program
// over (suffix of a level, what precedes it, whether it is a level's whole,
// which tracked values the level holds, bytes left) in the manner of
// Revolve for heterogeneous chains, with bytes rounded down to units,
// which keeps it a lower bound.
//
//===----------------------------------------------------------------------===//

#include "RematBound.h"

#include "PeakSimulation.h"

#include "trellis/Conversion/LinalgToBlas/LinalgToBlas.h"
#include "trellis/Dialect/AD/IR/AD.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace trellis::ad;

namespace {

constexpr llvm::StringLiteral kLayerAttr = "trellis.remat_layer";
constexpr llvm::StringLiteral kLayerLocPrefix = "trellis.remat_layer.";
constexpr int64_t kInfeasible = std::numeric_limits<int64_t>::max();
constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
/// The table's size: entries over all suffixes, flags and units.
constexpr int64_t kMaxEntries = 6'000'000;

/// The layer a location names ("trellis.remat_layer.<i>" anywhere in it),
/// or -1 if it names none or several.
int64_t layerOfLocation(Location loc) {
  int64_t found = -1;
  bool several = false;
  loc->walk([&](Location l) {
    if (auto name = dyn_cast<NameLoc>(l)) {
      StringRef text = name.getName().strref();
      int64_t index;
      if (text.consume_front(kLayerLocPrefix) &&
          !text.getAsInteger(10, index)) {
        several |= found >= 0 && found != index;
        found = index;
      }
    }
    return WalkResult::advance();
  });
  return several ? -1 : found;
}

/// Ops whose results may share their operands' buffers (views, casts,
/// barriers) or need none of their own (constants, empty tensors): their
/// results are not counted.
bool ownsNoBuffer(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return isa<ViewLikeOpInterface, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp, tensor::ExtractSliceOp, tensor::CastOp,
             tensor::ReshapeOp, tensor::EmptyOp, BarrierOp>(op) ||
         op->hasTrait<OpTrait::ConstantLike>() || name == "nn.flatten" ||
         name == "nn.reversible_swap";
}

/// True if `init`, a linalg op's destination, is a new tensor (empty, or a
/// fill of one) rather than a value the op updates in place.
bool freshDestination(Value init) {
  Operation *def = init.getDefiningOp();
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(def))
    def = fill.getOutputs().front().getDefiningOp();
  return isa_and_nonnull<tensor::EmptyOp>(def);
}

/// Bytes the buffer of a value takes (a statically shaped float tensor's),
/// else 0.
int64_t tensorBytes(Value v) { return floatTensorBytes(v.getType()); }

/// What an nn op's lowering allocates at once when the op runs alone,
/// beyond the operands it reads last (`dying`, one flag per operand): a
/// function of that op returning the results read in context, each dying
/// operand a buffer of the function's own (so that a lowering writing a
/// result in place of one shows it), lowered with `attentionChunk` up to
/// deallocation and replayed, less the dying operands' bytes; memoised in
/// `memo` by the op's attributes, types and flags. 0 for other ops.
int64_t isolatedPeak(Operation *op, ArrayRef<bool> dying,
                     int64_t attentionChunk, llvm::StringMap<int64_t> &memo) {
  if (op->getName().getDialectNamespace() != "nn" || op->getNumRegions() ||
      ownsNoBuffer(op))
    return 0;
  // Ops of one kind, attributes and types allocate alike.
  std::string key;
  llvm::raw_string_ostream keyStream(key);
  keyStream << op->getName() << " " << op->getAttrDictionary() << " "
            << op->getOperandTypes() << " -> " << op->getResultTypes();
  for (bool last : dying)
    keyStream << (last ? " dying" : " kept");
  // Results nothing reads may not be computed in context: the function
  // returns only those read.
  SmallVector<Value> used;
  for (Value result : op->getResults()) {
    keyStream << (result.use_empty() ? " unused" : " used");
    if (!result.use_empty())
      used.push_back(result);
  }
  if (auto it = memo.find(key); it != memo.end())
    return it->second;
  Location loc = op->getLoc();
  OwningOpRef<ModuleOp> probe = ModuleOp::create(loc);
  OpBuilder pb(probe->getBodyRegion());
  auto probeFn = func::FuncOp::create(
      pb, loc, "probe",
      pb.getFunctionType(op->getOperandTypes(), ValueRange(used).getTypes()));
  Block *entry = probeFn.addEntryBlock();
  pb.setInsertionPointToStart(entry);
  IRMapping mapping;
  int64_t dyingBytes = 0;
  for (auto [operand, arg, last] :
       llvm::zip(op->getOperands(), entry->getArguments(), dying)) {
    if (mapping.contains(operand))
      continue;
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!last || !type || !tensorBytes(operand)) {
      mapping.map(operand, arg);
      continue;
    }
    mapping.map(operand, bufferization::AllocTensorOp::create(
                             pb, loc, type, ValueRange(), /*copy=*/arg)
                             .getResult());
    dyingBytes += tensorBytes(operand);
  }
  Operation *clone = pb.clone(*op, mapping);
  SmallVector<Value> returned;
  for (Value result : used)
    returned.push_back(
        clone->getResult(cast<OpResult>(result).getResultNumber()));
  func::ReturnOp::create(pb, loc, returned);
  std::string ignored;
  std::string names[] = {"probe"};
  FailureOr<PeakBytes> peak =
      predictPeakBytes(*probe, names, attentionChunk, ignored);
  // An upper bound (or no prediction) proves nothing: count the results,
  // which may take the dying operands' place.
  int64_t bytes = -dyingBytes;
  if (succeeded(peak) && peak->exact)
    bytes += peak->bytes;
  else
    for (Value result : used)
      bytes += tensorBytes(result);
  memo[key] = std::max<int64_t>(bytes, 0);
  return memo[key];
}

} // namespace

FailureOr<RematLowerBound> RematLowerBound::analyze(
    ModuleOp module, func::FuncOp fn, ArrayRef<Operation *> layers,
    ArrayRef<int64_t> layerCost, int64_t attentionChunk, std::string &whyNot) {
  MLIRContext *context = module.getContext();
  // A copy with each layer tagged: its forward op by an attribute, the ops
  // its rule builds by the location they inherit from it.
  OwningOpRef<ModuleOp> copy = module.clone();
  Block &original = fn.getBody().front();
  auto copiedFn = copy->lookupSymbol<func::FuncOp>(fn.getSymName());
  SmallVector<Operation *> copiedOps;
  for (Operation &op : copiedFn.getBody().front())
    copiedOps.push_back(&op);
  Builder b(context);
  for (auto [index, layer] : llvm::enumerate(layers)) {
    int64_t position = std::distance(original.begin(), layer->getIterator());
    Operation *copied = copiedOps[position];
    copied->setAttr(kLayerAttr, b.getI64IntegerAttr(index));
    copied->setLoc(
        NameLoc::get(b.getStringAttr(kLayerLocPrefix + std::to_string(index)),
                     copied->getLoc()));
  }
  PassManager pm(context, ModuleOp::getOperationName());
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePassPipeline("ad-differentiate", pm, errorStream))) {
    whyNot = "ad-differentiate is not registered";
    return failure();
  }
  if (std::string firstError; failed(runQuietly(pm, *copy, firstError))) {
    whyNot = "differentiating a copy failed: " + firstError;
    return failure();
  }
  // The derivative: the function other than `fn` holding tagged ops.
  func::FuncOp derivative;
  copy->walk([&](func::FuncOp f) {
    if (derivative || f.getSymName() == fn.getSymName())
      return;
    if (f.walk([](Operation *op) {
           return op->hasAttr(kLayerAttr) ? WalkResult::interrupt()
                                          : WalkResult::advance();
         }).wasInterrupted())
      derivative = f;
  });
  if (!derivative || !derivative.getBody().hasOneBlock()) {
    whyNot = "no derivative of one block holds the chain";
    return failure();
  }
  Block &body = derivative.getBody().front();
  DenseMap<Operation *, int64_t> position;
  for (auto [index, op] : llvm::enumerate(body))
    position[&op] = index;

  RematLowerBound bound;
  int64_t n = layers.size();
  bound.n = n;
  for (int64_t c : layerCost)
    bound.costPrefix.push_back(bound.costPrefix.back() + c);

  // The forward sweep ends where the first rule op stands (constants and
  // empty tensors aside, which canonicalization hoists).
  auto ruleLayer = [&](Operation *op) -> int64_t {
    if (op->hasTrait<OpTrait::ConstantLike>() || isa<tensor::EmptyOp>(op))
      return -1;
    return layerOfLocation(op->getLoc());
  };
  int64_t forwardEnd = kNever;
  for (Operation &op : body)
    if (!op.hasAttr(kLayerAttr))
      if (int64_t layer = ruleLayer(&op); layer >= 0 && layer < n)
        forwardEnd = std::min(forwardEnd, position[&op]);
  // The forward ops of the layers, before every rule op.
  std::vector<Operation *> forwardOp(n, nullptr);
  for (Operation &op : body)
    if (auto attr = op.getAttrOfType<IntegerAttr>(kLayerAttr);
        attr && position[&op] < forwardEnd && attr.getInt() < n)
      forwardOp[attr.getInt()] = &op;
  auto forwardLayer = [&](Value v) -> int64_t {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &body || position[def] >= forwardEnd)
      return -1;
    auto attr = def->getAttrOfType<IntegerAttr>(kLayerAttr);
    return attr ? attr.getInt() : -1;
  };

  // What each layer's rule reads of the forward values, and the last
  // position it reads each at.
  std::vector<DenseMap<Value, int64_t>> reads(n);
  // Each layer's rule ops (their positions): the moments its reversal may
  // be taken at.
  std::vector<SmallVector<int64_t>> ruleOps(n);
  // Where an op reads its operands: a transpose or a view is read through
  // by its consumers, so at their last position.
  std::function<int64_t(Operation *)> readsAt = [&](Operation *op) {
    Operation *top = body.findAncestorOpInBlock(*op);
    if (top != op || !(isa<linalg::TransposeOp>(op) || ownsNoBuffer(op)))
      return position[top];
    int64_t last = position[top];
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        last = std::max(last, readsAt(user));
    return last;
  };
  derivative.walk([&](Operation *op) {
    Operation *top = body.findAncestorOpInBlock(*op);
    if (!top || position[top] < forwardEnd)
      return;
    int64_t layer = layerOfLocation(op->getLoc());
    if (layer < 0 || layer >= n)
      return;
    if (op == top && ruleLayer(op) == layer)
      ruleOps[layer].push_back(position[top]);
    for (Value operand : op->getOperands())
      if (forwardLayer(operand) >= 0) {
        int64_t &last = reads[layer].try_emplace(operand, -1).first->second;
        last = std::max(last, readsAt(op));
      }
  });

  llvm::StringMap<int64_t> isolated;

  // Until where a value of the reverse sweep certainly has a buffer: its
  // last read (through views and transposes, which GEMM calls read
  // through) if an op that is not element-wise computes it; if an
  // element-wise op does, fusion could move it into an element-wise
  // consumer, so only its last read by an op that needs it in a buffer (a
  // GEMM, an op outside linalg, the return).
  std::function<int64_t(Value, bool)> lastRead = [&](Value v,
                                                     bool materialized) {
    int64_t last = -1;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      Operation *top = body.findAncestorOpInBlock(*user);
      if (!top)
        continue;
      if (top == user &&
          (isa<linalg::TransposeOp>(user) || ownsNoBuffer(user))) {
        for (Value result : user->getResults())
          last = std::max(last, lastRead(result, materialized));
        continue;
      }
      auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
      if (!materialized || !linalgOp ||
          (top == user && linalgOp.isDpsInput(&use) &&
           isa<linalg::ContractionOpInterface>(user)))
        last = std::max(last, position[top]);
    }
    return last;
  };
  auto elementwise = [](Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    return linalgOp && linalgOp.getNumParallelLoops() == linalgOp.getNumLoops();
  };
  // The reverse sweep's values that have buffers of their own: (defined at,
  // held until, bytes). Transposes may be folded into the GEMMs that read
  // them and are left out; fills and broadcasts are element-wise (a GEMM's
  // zero init is absorbed by it: a read that does not count).
  struct Held {
    int64_t from, until, bytes;
  };
  // A GEMM's result (from a filled init) read only by an addition or
  // subtraction of another value of its type that dies there:
  // trellis-fuse-gemm-updates has the GEMM accumulate into that value's
  // buffer instead (a cotangent gathering a residual branch's input
  // gradient, a shared weight's second gradient), so it needs no buffer of
  // its own. As that pass pairs them: the second operand is the term, the
  // first only if the second is not such a GEMM itself.
  auto feedsOnly = [](Value v) {
    auto gemm = v.getDefiningOp<linalg::LinalgOp>();
    return gemm && isa<linalg::ContractionOpInterface>(*gemm) &&
           gemm->getNumResults() == 1 && v.hasOneUse() &&
           gemm.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  };
  auto mayAccumulate = [&](Operation *op) {
    if (op->getNumResults() != 1 || !feedsOnly(op->getResult(0)))
      return false;
    Value result = op->getResult(0);
    Operation *user = *result.getUsers().begin();
    if (!isa<arith::AddFOp, arith::SubFOp>(user) || user->getBlock() != &body)
      return false;
    Value lhs = user->getOperand(0), rhs = user->getOperand(1), other;
    if (rhs == result && lhs != result)
      other = lhs;
    else if (lhs == result && isa<arith::AddFOp>(user) && !feedsOnly(rhs))
      other = rhs;
    else
      return false;
    if (other.getType() != result.getType() ||
        lastRead(other, false) > position[user])
      return false;
    // Unless trellis-fuse-elementwise, which runs first, fuses the
    // addition into its one element-wise consumer (a tanh's gradient): the
    // GEMM's result is then that fused op's input, in a buffer of its own.
    Value sum = user->getResult(0);
    if (!sum.hasOneUse())
      return true;
    Operation *consumer = *sum.getUsers().begin();
    if (consumer->getBlock() != &body || !elementwise(consumer) ||
        isa<linalg::ContractionOpInterface>(consumer))
      return true;
    // The addition is then a linalg.generic of the arith op and its yield
    // (convert-elementwise-to-linalg).
    constexpr size_t kAdditionBodyOps = 2;
    return !trellis::fusedBodyFits(
        kAdditionBodyOps,
        cast<linalg::LinalgOp>(consumer).getBlock()->getOperations().size());
  };
  SmallVector<Held> reverseValues;
  for (Operation &op : body) {
    if (position[&op] < forwardEnd || ownsNoBuffer(&op) ||
        isa<linalg::TransposeOp>(op) || mayAccumulate(&op))
      continue;
    bool fusible = elementwise(&op) && !isa<linalg::ContractionOpInterface>(op);
    for (Value result : op.getResults())
      if (int64_t bytes = tensorBytes(result)) {
        // Once in a buffer, until its last read of any kind: a producer
        // with several uses is fused into none (trellis-fuse-elementwise).
        int64_t until = lastRead(result, fusible);
        if (fusible && until >= 0)
          until = lastRead(result, false);
        reverseValues.push_back({position[&op], until, bytes});
      }
  }

  // Each layer's moment: the rule op at which the most is certainly live
  // (what the reverse sweep holds, including a GEMM's fresh result, and the
  // layer's forward values its rule still reads).
  bound.hasMoment.assign(n, false);
  bound.held.assign(n, 0);
  bound.heldAfterStored.assign(n, 0);
  std::vector<int64_t> moment(n, kNever), momentAfterStored(n, kNever);
  for (int64_t i = 0; i < n; ++i) {
    if (ruleOps[i].empty())
      continue;
    bound.hasMoment[i] = true;
    int64_t best = -1, bestAfterStored = -1;
    for (int64_t at : ruleOps[i]) {
      int64_t live = 0;
      for (const Held &h : reverseValues)
        if (h.from < at && h.until >= at)
          live += h.bytes;
      // A GEMM's result is a fresh buffer beside its operands, and so is
      // any other linalg op's whose destination is a new tensor (not a
      // value it updates in place) if its result needs a buffer at all; an
      // nn op (attention_grad, say) holds what its own lowering allocates
      // at once, results and workspace, beside the operands it reads last.
      Operation *op = &*std::next(body.begin(), at);
      if (isa<linalg::ContractionOpInterface>(op)) {
        // Unless it accumulates into the value it is added to.
        if (!mayAccumulate(op))
          for (Value result : op->getResults())
            live += tensorBytes(result);
      } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
                 linalgOp && !isa<linalg::TransposeOp>(op)) {
        // An element-wise op may write over an operand of the result's
        // type that it reads last (trellis-choose-destinations).
        bool fusible = elementwise(op);
        bool mayReuse =
            fusible && llvm::any_of(linalgOp.getDpsInputs(), [&](Value in) {
              return llvm::is_contained(op->getResultTypes(), in.getType()) &&
                     lastRead(in, false) <= at;
            });
        for (OpResult result : op->getResults())
          if (!mayReuse &&
              freshDestination(
                  linalgOp.getDpsInitOperand(result.getResultNumber())
                      ->get()) &&
              lastRead(result, fusible) > at)
            live += tensorBytes(result);
      } else {
        SmallVector<bool> dying;
        for (Value operand : op->getOperands())
          dying.push_back(lastRead(operand, false) <= at);
        live += isolatedPeak(op, dying, attentionChunk, isolated);
      }
      // `previous`: layer i-1's results that layer i's rule reads from
      // here on; those layer i-1's rule does not read too, the part not
      // held anyway when layer i-1 is stored.
      int64_t own = 0, previous = 0, previousUnheld = 0;
      for (auto [value, last] : reads[i])
        if (last >= at) {
          int64_t layer = forwardLayer(value);
          if (layer == i && !ownsNoBuffer(forwardOp[i])) {
            own += tensorBytes(value);
          } else if (layer == i - 1 && !ownsNoBuffer(forwardOp[i - 1])) {
            previous += tensorBytes(value);
            if (!reads[i - 1].contains(value))
              previousUnheld += tensorBytes(value);
          }
        }
      if (live + own + previous > best) {
        best = live + own + previous;
        moment[i] = at;
        bound.held[i] = live + own;
      }
      if (live + own + previousUnheld > bestAfterStored) {
        bestAfterStored = live + own + previousUnheld;
        momentAfterStored[i] = at;
        bound.heldAfterStored[i] = live + own;
      }
    }
  }

  // Calls `f(q, v, bytes)` for each float tensor v that layer q's forward
  // op makes in a buffer of its own.
  auto forEachLayerResult = [&](auto f) {
    for (int64_t q = 0; q < n; ++q)
      if (Operation *producer = forwardOp[q];
          producer && !ownsNoBuffer(producer))
        for (Value v : producer->getResults())
          if (int64_t bytes = tensorBytes(v))
            f(q, v, bytes);
  };

  // The values layers beyond the next one compute from, and which of them
  // each boundary tracks (the largest first).
  DenseMap<Value, int> reachOf;
  SmallVector<Value> reachValues;
  {
    // Per layer r: the first layer k >= r whose rule reads r's result.
    std::vector<int64_t> firstRuleRead(n, kNever);
    for (int64_t k = 0; k < n; ++k)
      for (auto [read, last] : reads[k])
        if (int64_t r = forwardLayer(read); r >= 0 && r <= k)
          firstRuleRead[r] = std::min(firstRuleRead[r], k);
    forEachLayerResult([&](int64_t q, Value v, int64_t bytes) {
      Reach reach{bytes, q + 1, {}};
      for (int64_t r = q + 2; r < n; ++r) {
        if (!forwardOp[r] || firstRuleRead[r] == kNever)
          continue;
        bool computesFrom =
            forwardOp[r]
                ->walk([&](Operation *inner) {
                  return llvm::is_contained(inner->getOperands(), v)
                             ? WalkResult::interrupt()
                             : WalkResult::advance();
                })
                .wasInterrupted();
        // A reader whose rule reads v too needs it beside its own
        // crossings already (a value first read further on).
        if (computesFrom && !reads[r].contains(v))
          reach.readers.push_back({r, firstRuleRead[r]});
      }
      if (!reach.readers.empty()) {
        reachOf[v] = bound.reaches.size();
        reachValues.push_back(v);
        bound.reaches.push_back(std::move(reach));
      }
    });
    SmallVector<int> order(bound.reaches.size());
    std::iota(order.begin(), order.end(), 0);
    llvm::stable_sort(order, [&](int x, int y) {
      return bound.reaches[x].bytes > bound.reaches[y].bytes;
    });
    bound.tracked.assign(n, {});
    for (int index : order) {
      const Reach &reach = bound.reaches[index];
      int64_t from = reach.producedAt + 1, to = reach.readers.back().first;
      bool room = true;
      for (int64_t a = from; a <= to; ++a)
        room &= bound.tracked[a].size() < kMaxTracked;
      if (!room) {
        reachOf.erase(reachValues[index]);
        continue;
      }
      for (int64_t a = from; a <= to; ++a)
        bound.tracked[a].push_back(index);
    }
  }

  // The boundaries: what crosses from layer a-1 to layer a.
  bound.crossings.assign(n, {});
  SmallVector<std::pair<int64_t, Crossing>> farCrossings;
  forEachLayerResult([&](int64_t q, Value v, int64_t bytes) {
    int64_t a = q + 1;
    if (a >= n)
      return;
    Operation *producer = forwardOp[q];
    // The layers from a on whose forward values depend on v.
    llvm::SmallPtrSet<Value, 32> tainted;
    tainted.insert(v);
    std::vector<bool> depends(n, false);
    for (Operation &op : body) {
      int64_t at = position[&op];
      if (at <= position[producer] || at >= forwardEnd)
        continue;
      bool uses = false;
      op.walk([&](Operation *inner) {
        for (Value operand : inner->getOperands())
          uses |= tainted.contains(operand);
      });
      if (!uses)
        continue;
      for (Value result : op.getResults())
        tainted.insert(result);
      if (auto attr = op.getAttrOfType<IntegerAttr>(kLayerAttr);
          attr && attr.getInt() >= a && attr.getInt() < n)
        depends[attr.getInt()] = true;
    }
    int64_t firstNeed = kNever;
    for (int64_t k = a; k < n && firstNeed == kNever; ++k)
      for (auto [read, last] : reads[k]) {
        int64_t from = forwardLayer(read);
        if (read == v || (from >= a && from <= k && depends[from])) {
          firstNeed = k;
          break;
        }
      }
    auto next = reads[a].find(v);
    bool readByNext = next != reads[a].end();
    bool readAtMoment = readByNext && next->second >= moment[a];
    bool readAtMomentAfterStored =
        readByNext && next->second >= momentAfterStored[a];
    int reach = reachOf.lookup_or(v, -1);
    bound.crossings[a].push_back({bytes, reads[a - 1].contains(v), readAtMoment,
                                  readAtMomentAfterStored, readByNext,
                                  firstNeed, a, reach});
    // A value read first by a later layer's rule (attention's queries and
    // keys, say), and needed by nothing before it, crosses at that
    // layer's boundary instead: live from there on whatever precedes.
    if (firstNeed != kNever && firstNeed > a && !reads[a - 1].contains(v))
      if (auto far = reads[firstNeed].find(v); far != reads[firstNeed].end())
        farCrossings.push_back(
            {firstNeed, Crossing{bytes, false, far->second >= moment[firstNeed],
                                 far->second >= momentAfterStored[firstNeed],
                                 true, firstNeed, a, reach}});
  });
  for (auto &[a, crossing] : farCrossings)
    bound.crossings[a].push_back(crossing);
  bound.solve();
  return bound;
}

bool RematLowerBound::recomputesFrom(const Reach &reach, int64_t a,
                                     int64_t k) const {
  if (reach.producedAt >= a)
    return false;
  return llvm::any_of(reach.readers, [&](std::pair<int64_t, int64_t> r) {
    return r.first >= a && r.first <= k && r.second <= k;
  });
}

RematLowerBound::Charge RematLowerBound::charge(int64_t a, int64_t flag,
                                                int64_t k,
                                                unsigned held) const {
  Charge c;
  // The tracked values held at this level: those of `held`, and those this
  // element holds after itself. A held value is counted once, already.
  SmallVector<int, 2 * kMaxTracked> holding;
  for (auto [bit, reach] : llvm::enumerate(tracked[a]))
    if (held >> bit & 1)
      holding.push_back(reach);
  auto isHeld = [&](int reach) {
    return reach >= 0 && llvm::is_contained(holding, reach);
  };
  auto keep = [&](int64_t bytes, int reach) {
    c.after += bytes;
    if (reach >= 0 && !isHeld(reach))
      holding.push_back(reach);
  };
  if (flag != kFirst) {
    for (const Crossing &x : crossings[a]) {
      if (isHeld(x.reach))
        continue;
      bool byPrevious = flag == kAfterStored && x.readByProducer;
      bool atMoment =
          flag == kAfterStored ? x.readAtMomentAfterStored : x.readAtMoment;
      if (k == a) {
        if (byPrevious || atMoment)
          c.now += x.bytes;
        if (byPrevious || x.readByNext)
          keep(x.bytes, x.reach);
      } else if (byPrevious || x.firstNeed <= k) {
        // While the checkpoint itself is reversed, its body's first element
        // holds what crosses.
        keep(x.bytes, x.reach);
      }
    }
    // A checkpoint [a, k] also keeps, for its recomputation, the values from
    // before it that a layer inside reads first: they cross a boundary
    // within it.
    for (int64_t b = a + 1; b <= k; ++b)
      for (const Crossing &x : crossings[b])
        if (x.producedAt < a && !isHeld(x.reach))
          keep(x.bytes, x.reach);
    // And those a layer inside computes from, produced further before it,
    // unless this level holds them already.
    if (k > a)
      for (int reach : tracked[a])
        if (!isHeld(reach) && recomputesFrom(reaches[reach], a, k))
          keep(reaches[reach].bytes, reach);
  }
  c.moment = flag == kAfterStored ? heldAfterStored[a] : this->held[a];
  if (k + 1 < n)
    for (auto [bit, reach] : llvm::enumerate(tracked[k + 1]))
      if (isHeld(reach))
        c.next |= 1u << bit;
  return c;
}

int64_t RematLowerBound::levelPeak(const Schedule &schedule, int64_t first,
                                   int64_t last, int64_t heldAbove,
                                   int64_t flag, unsigned held) const {
  int64_t peak = 0, holding = heldAbove;
  size_t next = 0;
  for (int64_t a = first; a <= last;) {
    bool checkpointed = next < schedule.size() && schedule[next].first == a;
    int64_t k = checkpointed ? schedule[next].last : a;
    Charge c = charge(a, flag, k, held);
    if (checkpointed)
      peak = std::max(
          peak, levelPeak(schedule[next].inner, a, k, holding, flag, held));
    else if (hasMoment[a])
      peak = std::max(peak, holding + c.now + c.moment);
    holding += c.after;
    held = c.next;
    flag = checkpointed ? kAfterCheckpoint : kAfterStored;
    next += checkpointed;
    a = k + 1;
  }
  return peak;
}

int64_t RematLowerBound::peak(const Schedule &schedule) const {
  return levelPeak(schedule, 0, n - 1, 0, kFirst, 0);
}

int64_t RematLowerBound::entry(int64_t a, int64_t b, int64_t flag,
                               bool levelStart, unsigned held) const {
  // The chain's first layer has one state (nothing before it, the level's
  // start); any other, four (after a checkpoint or a stored layer, at a
  // level's start or not), each times the subsets of the values tracked.
  int64_t state = a == 0 ? 0 : (flag - kAfterCheckpoint) * 2 + levelStart;
  return (offsets[b * (b + 1) / 2 + a] + (state << tracked[a].size()) + held) *
         (units + 1);
}

void RematLowerBound::solve() {
  int64_t storeAll = peak({});
  int64_t pairs = n * (n + 1) / 2;
  // Where each suffix's entries start (entry()).
  offsets.assign(pairs + 1, 0);
  for (int64_t b = 0, index = 0; b < n; ++b)
    for (int64_t a = 0; a <= b; ++a, ++index)
      offsets[index + 1] =
          offsets[index] + (a == 0 ? 1 : 4) * (int64_t(1) << tracked[a].size());
  int64_t target = std::clamp<int64_t>(kMaxEntries / offsets[pairs], 64, 4000);
  // Power-of-two units lose little of buffers that are powers of two plus
  // the allocator's alignment.
  unitBytes = 1;
  while (unitBytes * 2 * target <= storeAll)
    unitBytes *= 2;
  units = llvm::divideCeil(std::max<int64_t>(storeAll, 1), unitBytes);
  table.assign(offsets[pairs] * (units + 1), kInfeasible);
  choice.assign(table.size(), -1);
  // Whether any layer of [a, b] has a moment: a part without one fits any
  // budget.
  std::vector<int64_t> momentsPrefix{0};
  for (int64_t i = 0; i < n; ++i)
    momentsPrefix.push_back(momentsPrefix.back() + hasMoment[i]);
  auto anyMoment = [&](int64_t a, int64_t b) {
    return momentsPrefix[b + 1] > momentsPrefix[a];
  };
  auto lookup = [&](int64_t a, int64_t b, int64_t flag, bool levelStart,
                    unsigned held, int64_t m) {
    if (a > b)
      return int64_t(0);
    if (m < 0)
      return anyMoment(a, b) ? kInfeasible : 0;
    return table[entry(a, b, flag, levelStart, held) + std::min(m, units)];
  };
  auto inUnits = [&](int64_t bytes) { return bytes / unitBytes; };
  // Shorter suffixes first; for one suffix, a level's start before the
  // same suffix as a rest (a checkpoint [a, b] that is not a level's whole
  // reads its body's table).
  for (int64_t length = 1; length <= n; ++length)
    for (int64_t a = 0; a + length <= n; ++a) {
      int64_t b = a + length - 1;
      unsigned states = 1u << tracked[a].size();
      for (bool levelStart : {true, false})
        for (int64_t flag = 0; flag < 3; ++flag)
          for (unsigned held = 0; held < states; ++held) {
            // Only the chain's first layer has no boundary before it.
            if ((flag == kFirst) != (a == 0) || (a == 0 && !levelStart))
              continue;
            int64_t base = entry(a, b, flag, levelStart, held);
            for (int64_t k = a; k <= b; ++k) {
              // A level that is one checkpoint whole recomputes it for
              // nothing.
              if (k > a && levelStart && k == b)
                continue;
              Charge c = charge(a, flag, k, held);
              int64_t now = inUnits(c.now), after = inUnits(c.after);
              int64_t recompute =
                  k == a ? 0 : costPrefix[k + 1] - costPrefix[a];
              int64_t need =
                  k == a && hasMoment[a] ? now + inUnits(c.moment) : 0;
              int64_t restFlag = k == a ? kAfterStored : kAfterCheckpoint;
              for (int64_t m = need; m <= units; ++m) {
                int64_t inner = k == a ? 0 : lookup(a, k, flag, true, held, m);
                int64_t rest =
                    lookup(k + 1, b, restFlag, false, c.next, m - after);
                if (inner == kInfeasible || rest == kInfeasible)
                  continue;
                int64_t total = recompute + inner + rest;
                if (total < table[base + m]) {
                  table[base + m] = total;
                  choice[base + m] = static_cast<int16_t>(k);
                }
              }
            }
          }
    }
}

int64_t RematLowerBound::smallestPeak() const {
  int64_t m = 0, base = entry(0, n - 1, kFirst, true, 0);
  while (m < units && table[base + m] == kInfeasible)
    ++m;
  return m * unitBytes;
}

std::optional<int64_t> RematLowerBound::leastCost(int64_t budget) const {
  if (budget < 0)
    return std::nullopt;
  int64_t cost = table[entry(0, n - 1, kFirst, true, 0) +
                       std::min(units, budget / unitBytes)];
  if (cost == kInfeasible)
    return std::nullopt;
  return cost;
}

Schedule RematLowerBound::build(int64_t a, int64_t b, int64_t m, int64_t flag,
                                bool levelStart, unsigned held) const {
  Schedule result;
  while (a <= b && m >= 0) {
    int64_t k =
        choice[entry(a, b, flag, levelStart, held) + std::min(m, units)];
    if (k < 0)
      break;
    Charge c = charge(a, flag, k, held);
    if (k > a)
      result.push_back({a, k, build(a, k, m, flag, true, held)});
    m -= c.after / unitBytes;
    flag = k > a ? kAfterCheckpoint : kAfterStored;
    levelStart = false;
    held = c.next;
    a = k + 1;
  }
  return result;
}

std::optional<Schedule> RematLowerBound::schedule(int64_t budget) const {
  if (!leastCost(budget))
    return std::nullopt;
  return build(0, n - 1, std::min(units, budget / unitBytes), kFirst, true, 0);
}
