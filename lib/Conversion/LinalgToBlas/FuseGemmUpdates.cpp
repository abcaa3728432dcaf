//===- FuseGemmUpdates.cpp - Parameter updates folded into their GEMM -----===//
//
// A training step's SGD update `p - lr · g` of a weight whose gradient `g`
// only that update reads and a GEMM computes is the GEMM itself,
// accumulated into `p`: `p += (-lr) · A·B`, BLAS's alpha = -lr, beta = 1.
// The gradient is then never written out and read back, and where `p` dies
// at the update (a step's own parameter) bufferization updates its buffer in
// place.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/LinalgToBlas/LinalgToBlas.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace trellis {
#define GEN_PASS_DEF_TRELLISFUSEGEMMUPDATES
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;

namespace {

/// An element-wise update `p ± c · g` (or `p ± g`) of the GEMM result `g`.
struct Update {
  linalg::GenericOp op;
  linalg::LinalgOp gemm;
  /// The updated value's operand.
  OpOperand *param;
  /// The factor of `g`: null for 1, else a float defined outside the op or
  /// (`scaleOperand`) the block argument of a rank-0 input.
  Value scale;
  OpOperand *scaleOperand = nullptr;
  bool negate = false;
};

/// True if `value` is the result of a zero `linalg.fill`.
bool isZeroFill(Value value) {
  auto fill = value.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getDpsInputs()[0], m_AnyZeroFloat());
}

/// The GEMM on tensors with a zero init whose only use is `use`, if `use`'s
/// value is one.
linalg::LinalgOp getGemmOnlyFeeding(OpOperand &use) {
  auto gemm = use.get().getDefiningOp<linalg::LinalgOp>();
  if (!gemm || !gemm.hasPureTensorSemantics() || !gemm->hasOneUse() ||
      failed(trellis::matchGemm(gemm)) || !isZeroFill(gemm.getDpsInits()[0]))
    return nullptr;
  return gemm;
}

/// Matches `op` as an update of a GEMM's result: identity maps but for
/// rank-0 inputs, all loops parallel, one result of the operands' type, and
/// a body `yield(p ± c * g)` / `yield(p ± g)` (commutative operands in either
/// order) over the operands `p` and `g`; an init that is neither is not
/// read.
std::optional<Update> matchUpdate(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return std::nullopt;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Block &body = *op.getBlock();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *combine = yield.getOperand(0).getDefiningOp();
  if (!combine || combine->getBlock() != &body || !combine->hasOneUse())
    return std::nullopt;
  bool isSub = isa<arith::SubFOp>(combine);
  if (!isSub && !isa<arith::AddFOp>(combine))
    return std::nullopt;
  Value lhs = combine->getOperand(0), rhs = combine->getOperand(1);

  // Which block argument is which operand's.
  auto operandOf = [&](Value v) -> OpOperand * {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &body)
      return nullptr;
    OpOperand *operand = op.getMatchingOpOperand(arg);
    if (operand->get().getType() != resultType ||
        !op.getMatchingIndexingMap(operand).isIdentity())
      return nullptr;
    return operand;
  };
  // The term: g, or g * c, c from above or a rank-0 input.
  auto matchTerm = [&](Value term, Update &update) -> OpOperand * {
    if (OpOperand *g = operandOf(term))
      return g;
    auto mul = term.getDefiningOp<arith::MulFOp>();
    if (!mul || mul->getBlock() != &body || !mul->hasOneUse())
      return nullptr;
    for (auto [g, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())}) {
      OpOperand *gOperand = operandOf(g);
      if (!gOperand)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(c);
          arg && arg.getOwner() == &body) {
        OpOperand *scalar = op.getMatchingOpOperand(arg);
        auto type = dyn_cast<RankedTensorType>(scalar->get().getType());
        if (!type || type.getRank() != 0 || !op.isDpsInput(scalar))
          continue;
        update.scaleOperand = scalar;
      } else if (c.getParentBlock() == &body) {
        continue;
      }
      update.scale = c;
      return gOperand;
    }
    return nullptr;
  };

  Update update;
  update.op = op;
  update.negate = isSub;
  OpOperand *g = nullptr;
  for (auto [p, term] : {std::pair(lhs, rhs), std::pair(rhs, lhs)}) {
    // p - term only, not term - p.
    if (isSub && p != lhs)
      break;
    update.scale = {};
    update.scaleOperand = nullptr;
    OpOperand *param = operandOf(p);
    if (!param || !(g = matchTerm(term, update)) || g == param)
      continue;
    if (!(update.gemm = getGemmOnlyFeeding(*g)))
      continue;
    update.param = param;
    break;
  }
  if (!update.gemm)
    return std::nullopt;
  // The body holds only the update; every other operand is an unread init
  // or the scale's.
  size_t bodyOps = update.scale ? 3 : 2;
  if (!llvm::hasNItems(body, bodyOps))
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (&operand != update.param && &operand != g &&
        &operand != update.scaleOperand &&
        (op.isDpsInput(&operand) || op.payloadUsesValueFromOperand(&operand)))
      return std::nullopt;
  if (update.gemm.getDpsInits()[0].getType() != resultType)
    return std::nullopt;
  return update;
}

/// Where the fused GEMM goes: right after the GEMM, the other readers of
/// the parameter before the update, and the definitions of the parameter
/// and the scale, whichever is last; none if the parameter is read after
/// the update (writing it in place there would make bufferization copy it)
/// or outside the update's block.
Operation *getFusedPosition(Update &update) {
  Block *block = update.op->getBlock();
  if (update.gemm->getBlock() != block)
    return nullptr;
  Operation *last = update.gemm;
  auto after = [&](Operation *op) {
    if (Operation *inBlock = block->findAncestorOpInBlock(*op);
        inBlock && last->isBeforeInBlock(inBlock))
      last = inBlock;
  };
  Value param = update.param->get();
  for (Operation *user : param.getUsers()) {
    if (user == update.op)
      continue;
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (!inBlock || update.op->isBeforeInBlock(inBlock))
      return nullptr;
    after(inBlock);
  }
  Value scale = update.scaleOperand ? update.scaleOperand->get() : update.scale;
  for (Value value : {param, scale})
    if (Operation *def = value ? value.getDefiningOp() : nullptr)
      after(def);
  return last;
}

/// Replaces `update` and its GEMM by the GEMM accumulating into the
/// parameter, right after `position`.
void fuse(RewriterBase &rewriter, Update update, Operation *position) {
  linalg::LinalgOp gemm = update.gemm;
  Location loc = update.op.getLoc();
  rewriter.setInsertionPointAfter(position);
  Value scale = update.scale;
  if (update.scaleOperand)
    scale = tensor::ExtractOp::create(rewriter, loc, update.scaleOperand->get(),
                                      ValueRange{});
  Value param = update.param->get();
  auto fused = linalg::GenericOp::create(
      rewriter, loc, param.getType(), gemm.getDpsInputs(), ValueRange{param},
      gemm.getIndexingMapsArray(), gemm.getIteratorTypesArray(),
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        Value term = arith::MulFOp::create(b, bodyLoc, args[0], args[1]);
        if (scale)
          term = arith::MulFOp::create(b, bodyLoc, term, scale);
        Value result =
            update.negate
                ? arith::SubFOp::create(b, bodyLoc, args[2], term).getResult()
                : arith::AddFOp::create(b, bodyLoc, args[2], term).getResult();
        linalg::YieldOp::create(b, bodyLoc, result);
      });
  // The GEMM's zero fill and the update's unread empty init die with them:
  // the empties first, as the chain from the fill may erase one of them.
  Operation *fill = gemm.getDpsInits()[0].getDefiningOp();
  SmallVector<Operation *> empties;
  for (Value init : update.op.getDpsInits())
    if (auto empty = init.getDefiningOp<tensor::EmptyOp>())
      empties.push_back(empty);
  rewriter.replaceOp(update.op, fused->getResults());
  rewriter.eraseOp(gemm);
  for (Operation *empty : empties)
    trellis::eraseWithDeadFillChain(rewriter, empty);
  if (fill)
    trellis::eraseWithDeadFillChain(rewriter, fill);
}

struct TrellisFuseGemmUpdatesPass
    : trellis::impl::TrellisFuseGemmUpdatesBase<TrellisFuseGemmUpdatesPass> {
  void runOnOperation() override {
    SmallVector<Update> updates;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (std::optional<Update> update = matchUpdate(op))
        updates.push_back(*update);
    });
    IRRewriter rewriter(&getContext());
    for (Update &update : updates)
      if (Operation *position = getFusedPosition(update))
        fuse(rewriter, update, position);
  }
};

} // namespace
