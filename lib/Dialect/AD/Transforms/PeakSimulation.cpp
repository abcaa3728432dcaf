//===- PeakSimulation.cpp - Peak tensor bytes of lowered code -------------===//
//
// See PeakSimulation.h. The replay follows what the runtime's hooks see: a
// memref.alloc of N bytes with `alignment = A` becomes a hook call for N + A
// bytes (finalize-memref-to-llvm over-allocates to align by hand), and
// memref.dealloc of any view of it frees it.
//
//===----------------------------------------------------------------------===//

#include "PeakSimulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using trellis::ad::PeakBytes;

namespace {

/// Replays the allocations of a function on buffers. Buffers are tracked
/// by SSA value (views map to the allocation they view); integers that
/// decide control flow (loop bounds, branch conditions) are evaluated where
/// they are constants or simple arithmetic on them.
class AllocationReplay {
public:
  AllocationReplay(ModuleOp module, std::string &whyNot)
      : symbols(module), whyNot(whyNot) {}

  FailureOr<PeakBytes> run(func::FuncOp fn) {
    if (fn.isExternal())
      return fail(fn, "has no body");
    if (failed(runRegion(fn.getBody())))
      return failure();
    return PeakBytes{peak, exact};
  }

private:
  LogicalResult fail(Operation *op, const Twine &reason) {
    whyNot = ("'" + op->getName().getStringRef() + "' " + reason).str();
    return failure();
  }

  /// Runs the entry block of `region` (the ops here have one block each).
  LogicalResult runRegion(Region &region) {
    if (!region.hasOneBlock())
      return fail(region.getParentOp(), "has a region of several blocks");
    for (Operation &op : region.front())
      if (failed(runOp(op)))
        return failure();
    return success();
  }

  /// True if `op` or anything nested in it allocates, frees or calls.
  static bool touchesBuffers(Operation *op) {
    return op
        ->walk([](Operation *inner) {
          return isa<memref::AllocOp, memref::DeallocOp, memref::ReallocOp,
                     func::CallOp>(inner)
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  }

  std::optional<int64_t> integer(Value v) const {
    auto it = integers.find(v);
    if (it == integers.end())
      return std::nullopt;
    return it->second;
  }

  /// Carries what is known of `from` (its allocation, its integer) to `to`.
  void forward(Value from, Value to) {
    if (auto it = buffers.find(from); it != buffers.end())
      buffers[to] = it->second;
    else
      buffers.erase(to);
    if (auto it = integers.find(from); it != integers.end())
      integers[to] = it->second;
    else
      integers.erase(to);
  }

  LogicalResult allocate(memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    Type element = type.getElementType();
    int64_t elementBytes;
    if (element.isIndex())
      elementBytes = 8;
    else if (element.isIntOrFloat())
      elementBytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
    else
      return fail(alloc, "allocates elements of unknown size");
    int64_t elements = 1;
    unsigned dynamic = 0;
    for (int64_t size : type.getShape()) {
      if (ShapedType::isDynamic(size)) {
        std::optional<int64_t> known =
            integer(alloc.getDynamicSizes()[dynamic++]);
        if (!known)
          return fail(alloc, "has a size not known before it runs");
        size = *known;
      }
      elements *= size;
    }
    int64_t bytes = elements * elementBytes + alloc.getAlignment().value_or(0);
    buffers[alloc.getResult()] = sizes.size();
    sizes.push_back(bytes);
    freed.push_back(false);
    // Small integer buffers hold the deallocation pipeline's pointer lists
    // and ownership flags: their contents are tracked.
    contents.emplace_back();
    if (!isa<FloatType>(element) && elements <= kMaxTrackedElements)
      contents.back().assign(elements, std::nullopt);
    liveBytes += bytes;
    peak = std::max(peak, liveBytes);
    return success();
  }

  void deallocate(Value buffer) {
    auto it = buffers.find(buffer);
    // Not allocated by the function (an argument, a global): the hooks
    // ignore what they did not allocate.
    if (it == buffers.end() || freed[it->second])
      return;
    freed[it->second] = true;
    liveBytes -= sizes[it->second];
  }

  void evaluateArith(Operation &op) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto value = dyn_cast<IntegerAttr>(constant.getValue()))
        integers[constant.getResult()] = value.getType().isInteger(1)
                                             ? value.getValue().getZExtValue()
                                             : value.getValue().getSExtValue();
      return;
    }
    if (auto cast = dyn_cast<arith::IndexCastOp>(op))
      return forward(cast.getIn(), cast.getResult());
    if (op.getNumResults() != 1 || op.getNumOperands() != 2)
      return;
    std::optional<int64_t> a = integer(op.getOperand(0)),
                           b = integer(op.getOperand(1));
    if (!a || !b)
      return;
    std::optional<int64_t> r;
    if (isa<arith::AddIOp>(op))
      r = *a + *b;
    else if (isa<arith::SubIOp>(op))
      r = *a - *b;
    else if (isa<arith::MulIOp>(op))
      r = *a * *b;
    else if (isa<arith::AndIOp>(op))
      r = *a & *b;
    else if (isa<arith::OrIOp>(op))
      r = *a | *b;
    else if (isa<arith::XOrIOp>(op))
      r = *a ^ *b;
    else if (isa<arith::MinSIOp>(op))
      r = std::min(*a, *b);
    else if (isa<arith::MaxSIOp>(op))
      r = std::max(*a, *b);
    else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      switch (cmp.getPredicate()) {
      case arith::CmpIPredicate::eq:
        r = *a == *b;
        break;
      case arith::CmpIPredicate::ne:
        r = *a != *b;
        break;
      case arith::CmpIPredicate::slt:
        r = *a < *b;
        break;
      case arith::CmpIPredicate::sle:
        r = *a <= *b;
        break;
      case arith::CmpIPredicate::sgt:
        r = *a > *b;
        break;
      case arith::CmpIPredicate::sge:
        r = *a >= *b;
        break;
      default:
        break;
      }
    }
    if (r)
      integers[op.getResult(0)] = *r;
  }

  LogicalResult runFor(scf::ForOp loop) {
    Block &body = *loop.getBody();
    if (!touchesBuffers(loop)) {
      // Nothing allocated or freed: the results are the inits, or values
      // the body computes (never buffers of ours).
      for (auto [init, result] :
           llvm::zip(loop.getInitArgs(), loop.getResults()))
        if (isa<BaseMemRefType>(init.getType()))
          forward(init, result);
      return success();
    }
    std::optional<int64_t> lower = integer(loop.getLowerBound()),
                           upper = integer(loop.getUpperBound()),
                           step = integer(loop.getStep());
    if (!lower || !upper || !step || *step <= 0)
      return fail(loop, "allocates in a loop whose trip count is not known");
    for (auto [init, arg] :
         llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs()))
      forward(init, arg);
    for (int64_t i = *lower; i < *upper; i += *step) {
      if (++iterations > kMaxIterations)
        return fail(loop, "runs too many iterations to replay");
      integers[loop.getInductionVar()] = i;
      if (failed(runRegion(loop.getRegion())))
        return failure();
      auto yield = cast<scf::YieldOp>(body.getTerminator());
      for (auto [value, arg] :
           llvm::zip(yield.getOperands(), loop.getRegionIterArgs()))
        forward(value, arg);
    }
    for (auto [arg, result] :
         llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
      forward(arg, result);
    return success();
  }

  LogicalResult runIf(scf::IfOp branch) {
    std::optional<int64_t> condition = integer(branch.getCondition());
    if (!condition) {
      // Deallocations under ownership flags the replay does not evaluate
      // (the deallocation pipeline's runtime alias checks) are taken as not
      // happening: the peak is then an upper bound.
      bool allocates =
          branch
              ->walk([](Operation *inner) {
                return isa<memref::AllocOp, memref::ReallocOp, func::CallOp>(
                           inner)
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              })
              .wasInterrupted();
      if (allocates)
        return fail(branch, "allocates under a condition not known before it "
                            "runs");
      if (touchesBuffers(branch))
        exact = false;
      return success();
    }
    Region &taken =
        *condition ? branch.getThenRegion() : branch.getElseRegion();
    if (taken.empty())
      return success();
    if (failed(runRegion(taken)))
      return failure();
    auto yield = cast<scf::YieldOp>(taken.front().getTerminator());
    for (auto [value, result] :
         llvm::zip(yield.getOperands(), branch.getResults()))
      forward(value, result);
    return success();
  }

  /// The element `indices` of the tracked buffer of `memref`, or null.
  std::optional<int64_t> *element(Value memref, ValueRange indices) {
    auto it = buffers.find(memref);
    if (it == buffers.end() || indices.size() > 1)
      return nullptr;
    std::optional<int64_t> index =
        indices.empty() ? std::optional<int64_t>(0) : integer(indices[0]);
    auto &cells = contents[it->second];
    if (!index || *index < 0 || *index >= int64_t(cells.size()))
      return nullptr;
    return &cells[*index];
  }

  /// The elements of a tracked 1-d buffer (all known), or failure.
  FailureOr<SmallVector<int64_t>> elements(Value memref) {
    auto it = buffers.find(memref);
    if (it == buffers.end())
      return failure();
    SmallVector<int64_t> values;
    for (const std::optional<int64_t> &cell : contents[it->second]) {
      if (!cell)
        return failure();
      values.push_back(*cell);
    }
    return values;
  }

  /// bufferization.dealloc's library function (its lowering's
  /// `dealloc_helper(deallocPointers, retainPointers, conditions,
  /// deallocOut, ownershipOut)`): a buffer is freed if its condition holds
  /// and it is neither retained nor freed earlier in the list; a retained
  /// buffer is owned if some freed-candidate with a true condition is it.
  LogicalResult emulateDeallocHelper(func::CallOp call) {
    if (call.getNumOperands() != 5)
      return fail(call, "is not the deallocation helper expected");
    FailureOr<SmallVector<int64_t>> dealloc = elements(call.getOperand(0)),
                                    retain = elements(call.getOperand(1)),
                                    conditions = elements(call.getOperand(2));
    auto out = buffers.find(call.getOperand(3)),
         owned = buffers.find(call.getOperand(4));
    if (failed(dealloc) || failed(retain) || failed(conditions) ||
        out == buffers.end() || owned == buffers.end() ||
        contents[out->second].size() != dealloc->size() ||
        contents[owned->second].size() != retain->size())
      return fail(call, "has arguments the replay does not know");
    auto &outCells = contents[out->second];
    auto &ownedCells = contents[owned->second];
    for (auto &cell : ownedCells)
      cell = 0;
    for (auto [i, pointer] : llvm::enumerate(*dealloc)) {
      bool retained = false;
      for (auto [r, kept] : llvm::enumerate(*retain))
        if (kept == pointer) {
          retained = true;
          if ((*conditions)[i])
            ownedCells[r] = 1;
        }
      bool earlier = false;
      for (size_t j = 0; j < i; ++j)
        earlier |= (*dealloc)[j] == pointer && (*conditions)[j];
      outCells[i] = (*conditions)[i] && !retained && !earlier;
    }
    return success();
  }

  LogicalResult runCall(func::CallOp call) {
    if (call.getCallee().starts_with("dealloc_helper"))
      return emulateDeallocHelper(call);
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    // External functions (BLAS, the runtime) do not allocate through the
    // hooks.
    if (!callee || callee.isExternal())
      return success();
    if (++depth > kMaxDepth)
      return fail(call, "recurses too deeply to replay");
    for (auto [operand, arg] :
         llvm::zip(call.getOperands(), callee.getArguments()))
      forward(operand, arg);
    if (failed(runRegion(callee.getBody())))
      return failure();
    auto ret = cast<func::ReturnOp>(callee.getBody().front().getTerminator());
    for (auto [value, result] : llvm::zip(ret.getOperands(), call.getResults()))
      forward(value, result);
    --depth;
    return success();
  }

  LogicalResult runOp(Operation &op) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      return allocate(alloc);
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      deallocate(dealloc.getMemref());
      return success();
    }
    if (isa<memref::ReallocOp>(op))
      return fail(&op, "is not replayed");
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return runFor(loop);
    if (auto branch = dyn_cast<scf::IfOp>(op))
      return runIf(branch);
    if (auto call = dyn_cast<func::CallOp>(op))
      return runCall(call);
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (std::optional<int64_t> *cell =
              element(store.getMemref(), store.getIndices()))
        *cell = integer(store.getValueToStore());
      return success();
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      std::optional<int64_t> *cell =
          element(load.getMemref(), load.getIndices());
      if (cell && *cell)
        integers[load.getResult()] = **cell;
      else
        integers.erase(load.getResult());
      return success();
    }
    if (auto pointer = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op)) {
      // Buffers of ours are told apart by allocation; others by value.
      auto it = buffers.find(pointer.getSource());
      integers[pointer.getResult()] =
          it != buffers.end()
              ? it->second
              : -1 - int64_t(foreignPointers
                                 .insert({pointer.getSource(),
                                          foreignPointers.size()})
                                 .first->second);
      return success();
    }
    if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(op)) {
      forward(metadata.getSource(), metadata.getBaseBuffer());
      return success();
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(op)) {
      for (Value result : op.getResults())
        if (isa<BaseMemRefType>(result.getType()))
          forward(view.getViewSource(), result);
      return success();
    }
    if (op.getDialect() && isa<arith::ArithDialect>(op.getDialect())) {
      evaluateArith(op);
      return success();
    }
    if (op.getNumRegions() && touchesBuffers(&op))
      return fail(&op, "allocates or frees in a region that is not replayed");
    return success();
  }

  static constexpr int64_t kMaxIterations = 1 << 20;
  static constexpr int64_t kMaxDepth = 64;

  SymbolTable symbols;
  std::string &whyNot;
  static constexpr int64_t kMaxTrackedElements = 1 << 12;

  DenseMap<Value, int64_t> buffers, integers, foreignPointers;
  SmallVector<SmallVector<std::optional<int64_t>, 0>> contents;
  SmallVector<int64_t> sizes;
  SmallVector<bool> freed;
  int64_t liveBytes = 0, peak = 0, iterations = 0, depth = 0;
  bool exact = true;
};

/// After convert-bufferization-to-memref, replays the entries and then
/// empties the module: the rest of the lowering does not change what is
/// allocated, and has no work left.
struct ReplayAfterDeallocation : PassInstrumentation {
  ReplayAfterDeallocation(ArrayRef<std::string> entries, std::string &whyNot)
      : entries(entries), whyNot(whyNot) {}

  void runAfterPass(Pass *pass, Operation *op) override {
    auto module = dyn_cast<ModuleOp>(op);
    if (done || !module ||
        pass->getArgument() != "convert-bufferization-to-memref")
      return;
    done = true;
    PeakBytes largest;
    for (const std::string &name : entries) {
      auto fn = module.lookupSymbol<func::FuncOp>(name);
      if (!fn) {
        whyNot = "the lowering removed @" + name;
        return;
      }
      FailureOr<PeakBytes> bytes = AllocationReplay(module, whyNot).run(fn);
      if (failed(bytes))
        return;
      largest.bytes = std::max(largest.bytes, bytes->bytes);
      largest.exact &= bytes->exact;
    }
    peak = largest;
    module.getBody()->clear();
  }

  ArrayRef<std::string> entries;
  std::string &whyNot;
  bool done = false;
  std::optional<PeakBytes> peak;
};

} // namespace

FailureOr<PeakBytes> trellis::ad::simulatePeakBytes(func::FuncOp fn,
                                                    std::string &whyNot) {
  return AllocationReplay(fn->getParentOfType<ModuleOp>(), whyNot).run(fn);
}

LogicalResult trellis::ad::runQuietly(PassManager &pm, ModuleOp module,
                                     std::string &firstError) {
  ScopedDiagnosticHandler quiet(module.getContext(),
                                [&](Diagnostic &diagnostic) {
                                  if (diagnostic.getSeverity() ==
                                          DiagnosticSeverity::Error &&
                                      firstError.empty())
                                    firstError = diagnostic.str();
                                  return success();
                                });
  return pm.run(module);
}

FailureOr<PeakBytes>
trellis::ad::predictPeakBytes(ModuleOp module, ArrayRef<std::string> entries,
                              int64_t attentionChunk, std::string &whyNot) {
  MLIRContext *context = module.getContext();
  PassManager pm(context, ModuleOp::getOperationName());
  std::string pipeline = "trellis-lower-to-llvm{attention-chunk=" +
                         std::to_string(attentionChunk) + "}";
  std::string parseErrors;
  llvm::raw_string_ostream errors(parseErrors);
  if (failed(parsePassPipeline(pipeline, pm, errors))) {
    whyNot =
        "the lowering (" + pipeline + ") is not registered: " + parseErrors;
    return failure();
  }
  auto replay = std::make_unique<ReplayAfterDeallocation>(entries, whyNot);
  ReplayAfterDeallocation &result = *replay;
  pm.addInstrumentation(std::move(replay));

  OwningOpRef<ModuleOp> copy = module.clone();
  // The lowering's own diagnostics are not the user's: keep the first
  // error as the reason, print nothing.
  std::string firstError;
  if (failed(runQuietly(pm, *copy, firstError)) && !result.peak) {
    whyNot = "the lowering failed: " + firstError;
    return failure();
  }
  if (!result.peak) {
    if (whyNot.empty())
      whyNot = "the lowering has no convert-bufferization-to-memref";
    return failure();
  }
  return *result.peak;
}
