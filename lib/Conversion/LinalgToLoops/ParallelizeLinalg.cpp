//===- ParallelizeLinalg.cpp - Large linalg ops to parallel loops ---------===//
//
// trellis-parallelize-linalg (dialects/Conversion/Passes.td): upstream's
// linalgOpToLoops, then the op's leading parallel loops become one
// scf.parallel. Everything the pass leaves is lowered by
// convert-linalg-to-loops as before.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/LinalgToLoops/ParallelizeLinalg.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

namespace trellis {
#define GEN_PASS_DEF_TRELLISPARALLELIZELINALG
#define GEN_PASS_DEF_TRELLISINLINEALLOCASCOPES
#define GEN_PASS_DEF_TRELLISOUTLINEPARALLELREGIONS
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;

/// How many leading loops of `op` to share among threads: its leading
/// parallel loops, but not its innermost loop if it has several (that one
/// is the one LLVM vectorizes; a collapsed OpenMP loop nest computes its
/// indices by division). 0 if the op stays sequential.
static unsigned getParallelBand(linalg::LinalgOp op, int64_t minIterations) {
  if (minIterations <= 0 || !op.hasPureBufferSemantics())
    return 0;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty() || llvm::any_of(ranges, ShapedType::isDynamic))
    return 0;
  // Saturated: only the comparison with minIterations matters.
  const int64_t saturated = int64_t(1) << 40;
  int64_t iterations = 1;
  for (int64_t range : ranges)
    iterations = range != 0 && iterations > saturated / range
                     ? saturated
                     : iterations * range;
  if (iterations < minIterations)
    return 0;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned band = 0;
  while (band < iterators.size() &&
         iterators[band] == utils::IteratorType::parallel)
    ++band;
  if (ranges.size() > 1)
    band = std::min<unsigned>(band, ranges.size() - 1);
  int64_t bandTrips = 1;
  for (unsigned i = 0; i < band; ++i)
    bandTrips *= ranges[i];
  return bandTrips > 1 ? band : 0;
}

/// Replaces the perfectly nested `loops` (outermost first, each the only
/// loop of its parent's body, bounds defined above the outermost) by one
/// scf.parallel with their bounds, whose body is the innermost's.
static LogicalResult makeParallel(RewriterBase &rewriter,
                                  ArrayRef<scf::ForOp> loops) {
  scf::ForOp outer = loops.front(), inner = loops.back();
  SmallVector<Value> lbs, ubs, steps;
  for (scf::ForOp loop : loops) {
    for (Value bound :
         {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      if (Operation *def = bound.getDefiningOp(); def && outer->isAncestor(def))
        return failure();
    if (loop.getNumRegionIterArgs() != 0)
      return failure();
    lbs.push_back(loop.getLowerBound());
    ubs.push_back(loop.getUpperBound());
    steps.push_back(loop.getStep());
  }
  rewriter.setInsertionPoint(outer);
  auto parallel =
      scf::ParallelOp::create(rewriter, outer.getLoc(), lbs, ubs, steps);
  // A copy: getInductionVars() returns a temporary vector.
  SmallVector<Value> ivs = parallel.getInductionVars();
  for (auto [i, iv] : llvm::enumerate(ArrayRef(ivs).drop_back()))
    rewriter.replaceAllUsesWith(scf::ForOp(loops[i]).getInductionVar(), iv);
  Block *body = inner.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, parallel.getBody()->getTerminator(),
                             ivs.back());
  rewriter.eraseOp(outer);
  return success();
}

namespace {
struct TrellisParallelizeLinalgPass
    : trellis::impl::TrellisParallelizeLinalgBase<
          TrellisParallelizeLinalgPass> {
  using TrellisParallelizeLinalgBase::TrellisParallelizeLinalgBase;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, unsigned>> work;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (unsigned band = getParallelBand(op, minIterations))
        work.emplace_back(op, band);
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, band] : work) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops) || loops->size() < band) {
        op.emitError("cannot lower to loops");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
      SmallVector<scf::ForOp> nest;
      for (Operation *loop : ArrayRef(*loops).take_front(band))
        nest.push_back(cast<scf::ForOp>(loop));
      // A nest the rewrite cannot take stays sequential.
      (void)makeParallel(rewriter, nest);
    }
  }
};

struct TrellisInlineAllocaScopesPass
    : trellis::impl::TrellisInlineAllocaScopesBase<
          TrellisInlineAllocaScopesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    memref::AllocaScopeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(
            getOperation(), std::move(patterns),
            GreedyRewriteConfig().enableFolding(false).enableConstantCSE(
                false))))
      signalPassFailure();
  }
};

/// Moves `region` into a new private function named after `func` and calls
/// it instead; the constants it uses are cloned into it first.
static LogicalResult outlineParallelRegion(IRRewriter &rewriter,
                                           omp::ParallelOp region,
                                           func::FuncOp func,
                                           SymbolTable &symbols,
                                           unsigned &counter) {
  Location loc = region.getLoc();
  rewriter.setInsertionPoint(region);
  auto wrapper = scf::ExecuteRegionOp::create(rewriter, loc, TypeRange{});
  Block *body = rewriter.createBlock(&wrapper.getRegion());
  rewriter.setInsertionPointToStart(body);
  scf::YieldOp::create(rewriter, loc);
  rewriter.moveOpBefore(region, body->getTerminator());

  // Constants stay constants inside: clone them next to their uses. The
  // region's own operands are rewritten, not the constants' use lists: a
  // constant of a large function has uses in every region, and walking
  // them per region made this pass quadratic in the regions (6.9 s of a
  // 32-block RevNet's compile).
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(wrapper.getRegion(), captured);
  rewriter.setInsertionPointToStart(body);
  DenseMap<Value, Value> clones;
  for (Value value : captured) {
    Operation *def = value.getDefiningOp();
    if (def && matchPattern(def, m_Constant()))
      clones[value] = rewriter.clone(*def)->getResult(0);
  }
  if (!clones.empty())
    wrapper.getRegion().walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands())
        if (Value clone = clones.lookup(operand.get()))
          rewriter.modifyOpInPlace(op, [&] { operand.set(clone); });
    });

  std::string name;
  do
    name = (func.getSymName() + ".omp." + Twine(counter++)).str();
  while (symbols.lookup(name));
  func::CallOp call;
  FailureOr<func::FuncOp> outlined =
      outlineSingleBlockRegion(rewriter, loc, wrapper.getRegion(), name, &call);
  if (failed(outlined))
    return failure();
  outlined->setPrivate();
  // Internal in LLVM too (a private func.func is external there): no
  // packed wrapper, and LLVM may inline it or drop it.
  (*outlined)->setAttr(
      "llvm.linkage",
      LLVM::LinkageAttr::get(rewriter.getContext(), LLVM::Linkage::Internal));
  symbols.insert(*outlined);
  // The wrapper now holds the call: put it in the wrapper's place.
  rewriter.moveOpBefore(call, wrapper);
  rewriter.eraseOp(wrapper);
  return success();
}

struct TrellisOutlineParallelRegionsPass
    : trellis::impl::TrellisOutlineParallelRegionsBase<
          TrellisOutlineParallelRegionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (minRegions <= 0)
      return;
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    IRRewriter rewriter(&getContext());
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      SmallVector<omp::ParallelOp> regions;
      func.walk<WalkOrder::PreOrder>([&](omp::ParallelOp region) {
        regions.push_back(region);
        return WalkResult::skip();
      });
      if (static_cast<int64_t>(regions.size()) < minRegions)
        continue;
      unsigned counter = 0;
      for (omp::ParallelOp region : regions)
        if (failed(outlineParallelRegion(rewriter, region, func, symbols,
                                         counter))) {
          region.emitError("cannot outline this parallel region");
          return signalPassFailure();
        }
    }
  }
};
} // namespace
