//===- WindowBuilders.h - Sliding-window pieces of vision layers -===//
//
// The structured pieces the vision layers' lowerings and reverse rules
// share: padding, the im2col gather (one linalg.generic whose input map is
// the window's affine access, so the convolution becomes one GEMM), window
// reductions for pooling, and the adjoint of a window read, which adds each
// window tap's cotangents into a strided slice of the padded input
// (docs/vision.md).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_UTILS_WINDOWBUILDERS_H
#define TRELLIS_UTILS_WINDOWBUILDERS_H

#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/ArrayRef.h"

namespace trellis::builders {

/// The geometry of a 2-D window sliding over the H and W dims of an NHWC
/// tensor.
struct Window2D {
  int64_t kh, kw;                   // window extent
  int64_t sh, sw;                   // strides
  int64_t dh, dw;                   // dilations
  int64_t top, bottom, left, right; // zero padding
  int64_t outH, outW;               // output positions
};

/// `x : NxHxWxC` with `pad` rows and columns of `value` around its H and W
/// dims (a filled tensor with `x` inserted: no tensor.pad to lower).
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       const Window2D &win, double value);

/// The im2col matrix of the padded `xp : NxHpxWpxC`: an
/// `NxH'xW'xKHxKWxC` gather, collapsed to `(N·H'·W')x(KH·KW·C)`.
mlir::Value buildIm2Col(mlir::OpBuilder &b, mlir::Location loc, mlir::Value xp,
                        const Window2D &win);

/// Reduces every window of the padded `xp : NxHpxWpxC` into `NxH'xW'xC`,
/// starting from `init`; `combine(b, loc, {element, accumulator})`. The
/// loops are (n, i, j, p, q, c): the channel stays innermost, so the
/// reduction runs in vector lanes over channels.
mlir::Value buildWindowReduce(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value xp, const Window2D &win, double init,
                              ScalarFn combine);

/// The tap `p·kw + q` (an i32 `NxH'xW'xC` tensor) of each window's first
/// maximum over the elements of `x : NxHxWxC` (padding never wins; a NaN is
/// a maximum, the first NaN the one picked), as in PyTorch's max_pool2d.
mlir::Value buildWindowArgMax(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value x, const Window2D &win);

/// Builds tap `(p, q)`'s update of its `NxH'xW'xC` slice of the padded
/// accumulator: given the slice's current value, returns the new one.
using TapUpdateFn =
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value current, int64_t p, int64_t q)>;

/// The adjoint of a window read of `x` (after padSpatial): a zero
/// accumulator of `x`'s padded shape, each tap's strided slice updated by
/// `update` in turn, cropped back to `xType`.
mlir::Value buildTapScatter(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::RankedTensorType xType, const Window2D &win,
                            TapUpdateFn update);

/// Builds the value of one element of the input tile of a window: given
/// the window's elements of the `perWindow` tensors and the element's tap
/// index `p·kw + q` (i32).
using TileElementFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange perWindow,
    mlir::Value tap)>;

/// When the windows tile `x` exactly (strides = window, no dilation or
/// padding, H = H'·kh, W = W'·kw), every input element is one tap of one
/// window: the adjoint is one all-parallel map over the tiled view
/// `N x H' x kh x W' x kw x C` of `x` (a free reshape), written once, with
/// no zero fill and no read-modify-write per tap. Returns it, or a null
/// value when the windows do not tile `x` (use buildTapScatter).
mlir::Value buildTiledWindowAdjoint(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::RankedTensorType xType,
                                    const Window2D &win,
                                    mlir::ValueRange perWindow,
                                    TileElementFn element);

/// The adjoint of buildIm2Col followed by padSpatial: `cols :
/// (N·H'·W')x(KH·KW·C)` summed back into an `NxHxWxC` tensor of `xType`
/// (each tap's cotangents added into a strided slice of the padded
/// accumulator, which is then cropped).
mlir::Value buildCol2Im(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value cols, mlir::RankedTensorType xType,
                        const Window2D &win);

} // namespace trellis::builders

#endif // TRELLIS_UTILS_WINDOWBUILDERS_H
