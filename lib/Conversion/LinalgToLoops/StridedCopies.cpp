//===- StridedCopies.cpp - Strided memref.copy ops to linalg.copy ---------===//
//
// trellis-strided-copies-to-linalg (dialects/Conversion/Passes.td): a copy
// with a strided side would call the runner utilities' element-by-element
// memrefCopy; as linalg.copy it becomes vectorized (and, with enough work,
// parallel) loops.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/LinalgToLoops/ParallelizeLinalg.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Builders.h"

namespace trellis {
#define GEN_PASS_DEF_TRELLISSTRIDEDCOPIESTOLINALG
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;

namespace {

struct TrellisStridedCopiesToLinalgPass
    : public trellis::impl::TrellisStridedCopiesToLinalgBase<
          TrellisStridedCopiesToLinalgPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (!source || !target || !source.hasStaticShape() ||
          !target.hasStaticShape() || source.getRank() == 0)
        return;
      if (memref::isStaticShapeAndContiguousRowMajor(source) &&
          memref::isStaticShapeAndContiguousRowMajor(target))
        return; // a memcpy
      copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
