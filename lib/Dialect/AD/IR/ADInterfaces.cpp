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

namespace {
/// Residual blocks an f32 reversible stack may run before its reconstruction
/// is reported to drift (docs/reversible.md, "Inverting a stack, and
/// drift": at 128 blocks the gradient's relative error reaches 1.4e-4, at 64
/// it stays near 1e-6).
constexpr int64_t kF32DriftDepth = 64;

/// The residual blocks `stack` runs: its invertible ops whose regions hold
/// no invertible op (a residual's body, not a serial of them; swaps add no
/// rounding), times the trip count when `stack` is an scf.for of invertible
/// steps. nullopt when that trip count is not static.
std::optional<int64_t> countResidualBlocks(Operation *stack) {
  using trellis::ad::InvertibleOpInterface;
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
} // namespace

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
