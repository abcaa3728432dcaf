//===- MatchGemm.cpp - Recognize GEMM-shaped linalg contractions ----------===//
//
// One matcher for the passes of the BLAS path: the tensor-level preparation
// and the memref-level rewrite must agree on what is a GEMM. It is stricter
// than upstream's ContractionOpInterface check (which skips unary ops between
// the multiply and the add): the body must be exactly `out + a * b`, so the
// call computes what the loops would.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/LinalgToBlas/LinalgToBlas.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

/// True if `a, b` are `x, y` in either order.
static bool isPair(Value a, Value b, Value x, Value y) {
  return (a == x && b == y) || (a == y && b == x);
}

/// Matches the body `yield(out + a * b)`, operands of each in either order,
/// and nothing else; with `scaled`, also `out ± (a * b) * c` and
/// `out - a * b` for a float `c` defined outside the op. Returns false if the
/// body is none of these; else sets `dims`' scale.
static bool matchMulAddBody(Block &body, bool scaled, trellis::GemmDims &dims) {
  if (body.getNumArguments() != 3)
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  Value out = body.getArgument(2);
  Operation *combine = yield.getOperand(0).getDefiningOp();
  if (!combine || combine->getBlock() != &body)
    return false;
  // The accumulation: out + term (either order) or, scaled, out - term.
  Value term;
  if (auto add = dyn_cast<arith::AddFOp>(combine)) {
    term = add.getLhs() == out ? add.getRhs() : add.getLhs();
    if (!isPair(add.getLhs(), add.getRhs(), out, term))
      return false;
  } else if (auto sub = dyn_cast<arith::SubFOp>(combine);
             sub && scaled && sub.getLhs() == out) {
    term = sub.getRhs();
    dims.negate = true;
  } else {
    return false;
  }
  // The term: a * b, or, scaled, (a * b) * c.
  auto mul = term.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != &body)
    return false;
  size_t expectedOps = 3;
  if (scaled && !isPair(mul.getLhs(), mul.getRhs(), body.getArgument(0),
                        body.getArgument(1))) {
    auto isProduct = [&](Value v) {
      auto product = v.getDefiningOp<arith::MulFOp>();
      return product && product->getBlock() == &body &&
             isPair(product.getLhs(), product.getRhs(), body.getArgument(0),
                    body.getArgument(1));
    };
    Value factor = isProduct(mul.getLhs())   ? mul.getRhs()
                   : isProduct(mul.getRhs()) ? mul.getLhs()
                                             : Value();
    if (!factor || factor.getParentBlock() == &body ||
        body.getParentOp()->isAncestor(factor.getParentBlock()->getParentOp()))
      return false;
    dims.scale = factor;
    expectedOps = 4;
  } else if (!isPair(mul.getLhs(), mul.getRhs(), body.getArgument(0),
                     body.getArgument(1))) {
    return false;
  }
  // Every intermediate result is used once, by the next step, and the body
  // holds nothing else.
  return llvm::hasNItems(body, expectedOps) &&
         llvm::all_of(body.without_terminator(),
                      [](Operation &op) { return op.hasOneUse(); });
}

FailureOr<trellis::GemmDims> trellis::matchGemm(linalg::LinalgOp op,
                                                GemmBody body) {
  GemmDims dims;
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1 || op->getRegion(0).empty() ||
      !matchMulAddBody(*op.getBlock(), body == GemmBody::Scaled, dims))
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return failure();

  bool haveM = false, haveN = false, haveK = false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0, e = op.getNumLoops(); d < e; ++d) {
    // Which operands index with loop d: bit 0 A, bit 1 B, bit 2 C.
    unsigned in = 0;
    for (auto [i, map] : llvm::enumerate(maps))
      if (map.getResultPosition(getAffineDimExpr(d, op.getContext())))
        in |= 1u << i;
    bool parallel = iterators[d] == utils::IteratorType::parallel;
    bool &have = in == 0b101 ? haveM : in == 0b110 ? haveN : haveK;
    unsigned &slot = in == 0b101 ? dims.m : in == 0b110 ? dims.n : dims.k;
    if (in == 0b111 && parallel) {
      dims.batch.push_back(d);
      continue;
    }
    // m and n are parallel, k a reduction; each appears once. Any other
    // combination (a dim of one operand only, a broadcast) is not a GEMM.
    bool wantParallel = in != 0b011;
    if ((in != 0b101 && in != 0b110 && in != 0b011) ||
        parallel != wantParallel || have)
      return failure();
    have = true;
    slot = d;
  }
  if (!haveM || !haveN || !haveK)
    return failure();
  return dims;
}

void trellis::eraseWithDeadFillChain(RewriterBase &rewriter, Operation *op) {
  SmallVector<Operation *> worklist = {op};
  while (!worklist.empty()) {
    Operation *dead = worklist.pop_back_val();
    if (!dead->use_empty() ||
        !isa<linalg::FillOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::EmptyOp>(dead))
      continue;
    SmallVector<Value> operands(dead->getOperands());
    rewriter.eraseOp(dead);
    for (Value operand : operands)
      if (Operation *producer = operand.getDefiningOp())
        worklist.push_back(producer);
  }
}
