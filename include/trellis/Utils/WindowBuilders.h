//===- WindowBuilders.h - Sliding-window pieces of vision layers -===//
//
// The structured pieces nn.conv2d's lowering and reverse rule share: zero
// padding, the im2col gather (one linalg.generic whose input map is the
// window's affine access, so the convolution becomes one GEMM), and the
// adjoint of that gather, which adds each window tap's cotangents into a
// strided slice of the padded input (docs/vision.md).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_UTILS_WINDOWBUILDERS_H
#define TRELLIS_UTILS_WINDOWBUILDERS_H

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

/// The adjoint of buildIm2Col followed by padSpatial: `cols :
/// (N·H'·W')x(KH·KW·C)` summed back into an `NxHxWxC` tensor of `xType`
/// (each tap's cotangents added into a strided slice of the padded
/// accumulator, which is then cropped).
mlir::Value buildCol2Im(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value cols, mlir::RankedTensorType xType,
                        const Window2D &win);

} // namespace trellis::builders

#endif // TRELLIS_UTILS_WINDOWBUILDERS_H
