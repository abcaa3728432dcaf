//===- TensorSizes.cpp - Static sizes a host can hold ---------------------===//
//
// trellis-check-tensor-sizes and trellis-fill-splats
// (dialects/Conversion/Passes.td): shapes too large for any host are
// rejected before lowering, and large splat constants are filled at run
// time instead of being written into the module.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/NNToLinalg/NNToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/MathExtras.h"

#include <optional>

namespace trellis {
#define GEN_PASS_DEF_TRELLISCHECKTENSORSIZES
#define GEN_PASS_DEF_TRELLISFILLSPLATS
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;

namespace {

/// Why `type` is too large (more than 2^63 elements, or than `maxBytes`
/// bytes), or nullopt if it is a statically shaped type that fits, or not
/// statically shaped.
std::optional<std::string> whyTooLarge(Type type, uint64_t maxBytes) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank() || !shaped.hasStaticShape())
    return std::nullopt;
  uint64_t elements = 1;
  bool overflow = false;
  for (int64_t size : shaped.getShape()) {
    elements = llvm::SaturatingMultiply(elements, static_cast<uint64_t>(size),
                                        &overflow);
    if (overflow || elements > static_cast<uint64_t>(INT64_MAX))
      return std::string("has more than 2^63 elements");
  }
  Type element = shaped.getElementType();
  uint64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
  uint64_t bytes =
      llvm::SaturatingMultiply(elements, (bits + 7) / 8, &overflow);
  if (overflow || bytes > maxBytes)
    return ("has " + llvm::Twine(elements) + " elements (" +
            (overflow ? llvm::Twine("over 2^64") : llvm::Twine(bytes)) +
            " bytes), more than the largest size allowed, " +
            llvm::Twine(maxBytes) + " bytes")
        .str();
  return std::nullopt;
}

struct TrellisCheckTensorSizesPass
    : trellis::impl::TrellisCheckTensorSizesBase<TrellisCheckTensorSizesPass> {
  using Base::Base;

  void runOnOperation() override {
    // The first type too large, in walk order (a value's own op before the
    // function whose signature repeats it): one error.
    auto check = [&](Operation *op, Type type) {
      std::optional<std::string> why = whyTooLarge(type, maxBytes);
      if (why)
        op->emitError() << type << " " << *why;
      return why ? WalkResult::interrupt() : WalkResult::advance();
    };
    WalkResult result =
        getOperation()->walk<WalkOrder::PostOrder>([&](Operation *op) {
          for (Type type : op->getResultTypes())
            if (check(op, type).wasInterrupted())
              return WalkResult::interrupt();
          for (Region &region : op->getRegions())
            for (Block &block : region)
              for (BlockArgument arg : block.getArguments())
                if (check(op, arg.getType()).wasInterrupted())
                  return WalkResult::interrupt();
          if (auto function = dyn_cast<FunctionOpInterface>(op))
            for (Type type : function.getResultTypes())
              if (check(op, type).wasInterrupted())
                return WalkResult::interrupt();
          return WalkResult::advance();
        });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

/// A splat tensor constant of more than `minElements` elements to a fill.
struct SplatToFill : OpRewritePattern<arith::ConstantOp> {
  SplatToFill(MLIRContext *ctx, int64_t minElements)
      : OpRewritePattern(ctx), minElements(minElements) {}

  LogicalResult matchAndRewrite(arith::ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!splat || !type || !type.hasStaticShape() ||
        type.getNumElements() <= minElements ||
        !type.getElementType().isIntOrFloat())
      return failure();
    Location loc = op.getLoc();
    Value value = arith::ConstantOp::create(
        rewriter, loc, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, value, empty);
    return success();
  }

  int64_t minElements;
};

struct TrellisFillSplatsPass
    : trellis::impl::TrellisFillSplatsBase<TrellisFillSplatsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SplatToFill>(&getContext(), minElements);
    // No folding: it would turn the new scalar constants' fills back into
    // splats.
    if (failed(applyPatternsGreedily(
            getOperation(), std::move(patterns),
            GreedyRewriteConfig().enableFolding(false).enableConstantCSE(
                false))))
      signalPassFailure();
  }
};

} // namespace
