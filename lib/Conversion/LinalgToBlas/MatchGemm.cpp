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

/// True if the body is `yield(addf(out, mulf(a, b)))`, operands of each in
/// either order, and nothing else.
static bool isMulAddBody(Block &body) {
  if (body.getNumArguments() != 3 || !llvm::hasNItems(body, 3))
    return false;
  auto mul = dyn_cast<arith::MulFOp>(&body.front());
  auto add =
      dyn_cast_or_null<arith::AddFOp>(mul ? mul->getNextNode() : nullptr);
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!mul || !add || !yield || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != add.getResult())
    return false;
  return isPair(mul.getLhs(), mul.getRhs(), body.getArgument(0),
                body.getArgument(1)) &&
         isPair(add.getLhs(), add.getRhs(), mul.getResult(),
                body.getArgument(2));
}

FailureOr<trellis::GemmDims> trellis::matchGemm(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1 || op->getRegion(0).empty() ||
      !isMulAddBody(*op.getBlock()))
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return failure();

  GemmDims dims;
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
