//===- ADInterfaces.cpp - Helpers of the reverse-mode interfaces ---------===//
//
// What every user of InvertibleOpInterface reports the same way: the drift
// of a deep f32 reconstruction (ad-differentiate's reverse rules and
// ad-build-inverse).
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/AD/IR/AD.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

std::optional<int64_t> trellis::ad::countResidualBlocks(Operation *stack) {
  int64_t blocks = 0;
  stack->walk([&](InvertibleOpInterface step) {
    if (step->getNumRegions() == 0)
      return;
    WalkResult nested = step->walk([&](InvertibleOpInterface inner) {
      return inner == step ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (!nested.wasInterrupted())
      ++blocks;
  });
  if (auto loop = dyn_cast<scf::ForOp>(stack)) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips)
      return std::nullopt;
    blocks *= trips->getSExtValue();
  }
  return blocks;
}

void trellis::ad::remarkOnReconstructionDrift(Operation *stack) {
  bool f32 = llvm::any_of(stack->getResultTypes(), [](Type t) {
    return getElementTypeOrSelf(t).isF32();
  });
  std::optional<int64_t> depth = countResidualBlocks(stack);
  if (!f32 || !depth || *depth <= kF32DriftDepth)
    return;
  // At the location, not the op: a diagnostic on an op prints the op (the
  // whole stack) with it.
  emitRemark(stack->getLoc())
      << "f32 reversible stack of " << *depth << " residual blocks (more than "
      << kF32DriftDepth
      << "): reconstruction drifts (1.4e-4 relative gradient error at 128 "
         "blocks); use f64 or store the activations (docs/reversible.md)";
}
