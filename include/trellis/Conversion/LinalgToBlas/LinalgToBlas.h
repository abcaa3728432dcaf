//===- LinalgToBlas.h - Hand GEMM-shaped linalg ops to a BLAS ---*- C++ -*-===//

#ifndef TRELLIS_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H
#define TRELLIS_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H

#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <string>

namespace mlir {
class RewriterBase;
namespace linalg {
class LinalgOp;
} // namespace linalg
} // namespace mlir

namespace trellis {

/// The library that f32 GEMMs call (convert-linalg-to-blas's `sgemm`).
enum class GemmLibrary {
  /// cblas_sgemm (OpenBLAS).
  Cblas,
  /// oneDNN's dnnl_sgemm.
  Dnnl,
};

/// The spellings of GemmLibrary, for every option that takes one
/// (convert-linalg-to-blas' and trellis-lower-to-llvm's `sgemm`).
inline llvm::cl::ValuesClass gemmLibraryValues() {
  return llvm::cl::values(
      clEnumValN(GemmLibrary::Cblas, "cblas", "cblas_sgemm (OpenBLAS)"),
      clEnumValN(GemmLibrary::Dnnl, "dnnl", "oneDNN's row-major dnnl_sgemm"));
}

/// The size classes of f32 GEMMs, by their volume M·N·K and their inner
/// dimension K: each has a library of its own (GemmChoice), which the JIT
/// measures on the host (docs/performance.md, "Library choice").
enum class GemmClass {
  /// M·N·K below kMediumGemmVolume (64³): attention's per-head products of
  /// short sequences, small layers.
  Small,
  /// Below kLargeGemmVolume (256³).
  Medium,
  /// The rest but the thin and the short ones.
  Large,
  /// Large, with K at most kThinGemmK: a sum of few outer products, as a
  /// weight gradient over a short batch is (Xᵀ·dY, K = the batch). The
  /// libraries block such a product differently from a square one (Zen 3,
  /// 1024×1024×64 with A transposed: oneDNN 68 GFLOP/s, OpenBLAS 39-51,
  /// while OpenBLAS led on 64×1024×1024).
  Thin,
  /// Large, not thin, with M at most kShortGemmM: a layer's output or input
  /// gradient over a short batch of rows (64×1024×1024 on Zen 3: OpenBLAS
  /// 51-60 GFLOP/s, oneDNN 35, while the two were even on 512³).
  Short,
  /// Large, neither thin nor short, with N at most kNarrowGemmN: few output
  /// columns over many rows, as the im2col GEMM of a convolution with few
  /// filters is (100·14·14 × 16 × 144 in the Fashion-MNIST RevNet) and its
  /// weight gradient (144 × 16 × 19600). Zen 4, 2 threads: oneDNN 1.34 ms,
  /// OpenBLAS 2.8-3.5 ms on the first, while OpenBLAS led the large class.
  Narrow,
};
inline constexpr int64_t kMediumGemmVolume = int64_t(1) << 18;
inline constexpr int64_t kLargeGemmVolume = int64_t(1) << 24;
inline constexpr int64_t kThinGemmK = 128;
inline constexpr int64_t kShortGemmM = 128;
inline constexpr int64_t kNarrowGemmN = 32;
inline constexpr unsigned kNumGemmClasses = 6;

/// Returns the class of an M×N×K GEMM (sizes of at most 2^31, as a BLAS
/// takes them).
inline GemmClass classifyGemm(int64_t m, int64_t n, int64_t k) {
  // m·n fits in 62 bits; m·n·k is formed only once it is known to be small.
  int64_t mn = m * n;
  if (k > 0 && mn >= (kLargeGemmVolume + k - 1) / k)
    return k <= kThinGemmK     ? GemmClass::Thin
           : m <= kShortGemmM  ? GemmClass::Short
           : n <= kNarrowGemmN ? GemmClass::Narrow
                               : GemmClass::Large;
  return mn * k >= kMediumGemmVolume ? GemmClass::Medium : GemmClass::Small;
}

/// "small", "medium", "large", "thin", "short" or "narrow".
llvm::StringRef stringifyGemmClass(GemmClass gemmClass);

/// The library of the f32 GEMMs of each size class.
struct GemmChoice {
  GemmLibrary small = GemmLibrary::Dnnl;
  GemmLibrary medium = GemmLibrary::Dnnl;
  GemmLibrary large = GemmLibrary::Dnnl;
  GemmLibrary thin = GemmLibrary::Dnnl;
  GemmLibrary shortRows = GemmLibrary::Dnnl;
  GemmLibrary narrow = GemmLibrary::Dnnl;
  /// Compute short A·Bᵀ products as their transposes, B·Aᵀ
  /// (trellis-orient-contractions), where the host's short-class library
  /// runs the transposed chain faster.
  bool transposeShort = false;

  /// The same library for every class, every product in its own form.
  static GemmChoice all(GemmLibrary library) {
    return {library, library, library, library, library, library, false};
  }
  GemmLibrary get(GemmClass gemmClass) const {
    switch (gemmClass) {
    case GemmClass::Small:
      return small;
    case GemmClass::Medium:
      return medium;
    case GemmClass::Large:
      return large;
    case GemmClass::Thin:
      return thin;
    case GemmClass::Short:
      return shortRows;
    case GemmClass::Narrow:
      return narrow;
    }
    return large;
  }
  bool operator==(const GemmChoice &other) const {
    return small == other.small && medium == other.medium &&
           large == other.large && thin == other.thin &&
           shortRows == other.shortRows && narrow == other.narrow &&
           transposeShort == other.transposeShort;
  }
};

/// One f32 GEMM call as a row-major BLAS takes it: C (M×N) = op(A)·op(B)
/// with inner dimension K, A and B read transposed or not. A column-major
/// call is the row-major one of Cᵀ, A and B exchanged.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  bool transA = false, transB = false;

  constexpr bool operator==(const GemmShape &other) const {
    return m == other.m && n == other.n && k == other.k &&
           transA == other.transA && transB == other.transB;
  }
  /// `MxNxK:ab`, a and b `n` or `t` (the choice files' spelling).
  std::string str() const;
};

/// Chooses the library of f32 GEMMs shape by shape, over their class's
/// (GemmChoice): convert-linalg-to-blas asks it once per module for the
/// distinct shapes of its GEMMs beyond the medium class. The JIT's measures
/// each shape it has not seen on the host and keeps the rates
/// (lib/Runtime/GemmChoice.cpp).
struct GemmShapeChooser {
  /// Returns a library per shape, given the one its class chose.
  using Choose = std::function<llvm::SmallVector<GemmLibrary>(
      llvm::ArrayRef<GemmShape> shapes,
      llvm::ArrayRef<GemmLibrary> classLibraries)>;

  /// Names the table the choices come from: two choosers with the same id
  /// choose alike (the compile cache keys code by it).
  std::string id;
  Choose choose;

  explicit operator bool() const { return static_cast<bool>(choose); }
};

/// The most ops the body of an op fused by trellis-fuse-elementwise may have
/// (two bodies' ops and terminators): longer elementwise chains are fused
/// in pieces of about this size, so that the pass takes time linear in a
/// chain's length.
inline constexpr size_t kMaxFusedBodyOps = 256;

/// True if trellis-fuse-elementwise's size rule lets a producer whose linalg
/// body has `producerOps` ops (terminator included) fuse into a consumer
/// whose body has `ownerOps`. ad-remat's lower bound asks it too, to know
/// which results the lowering keeps in buffers.
inline bool fusedBodyFits(size_t producerOps, size_t ownerOps) {
  return producerOps + ownerOps <= kMaxFusedBodyOps;
}

#define GEN_PASS_DECL_CONVERTLINALGTOBLAS
#define GEN_PASS_DECL_TRELLISPREPARECONTRACTIONS
#define GEN_PASS_DECL_TRELLISFUSEELEMENTWISE
#define GEN_PASS_DECL_TRELLISORIENTCONTRACTIONS
#define GEN_PASS_DECL_TRELLISFUSEGEMMUPDATES
#include "trellis/Conversion/Passes.h.inc"

/// convert-linalg-to-blas with its options and a chooser of per-shape
/// libraries (none if empty).
std::unique_ptr<mlir::Pass>
createConvertLinalgToBlas(const ConvertLinalgToBlasOptions &options,
                          GemmShapeChooser chooser);

/// Loop positions of a GEMM-shaped contraction
/// `C[batch.., m, n] += A[batch.., m, k] * B[batch.., k, n]`, the operands'
/// dimensions in any order.
struct GemmDims {
  llvm::SmallVector<unsigned, 2> batch;
  unsigned m = 0, n = 0, k = 0;
  /// The product's factor (BLAS's alpha) is `scale` (1 if null), negated if
  /// `negate`: `C += ±scale · A·B`.
  mlir::Value scale;
  bool negate = false;
};

/// The bodies matchGemm accepts.
enum class GemmBody {
  /// Exactly `out + a * b`.
  MulAdd,
  /// Also `out + (a * b) * c`, `out - (a * b) * c` and `out - a * b`, `c` a
  /// float defined outside the op (trellis-fuse-gemm-updates' form).
  Scaled,
};

/// Matches a linalg op (named or generic, tensors or memrefs) with two inputs
/// and one init whose body is `body` (arith.mulf/addf/subf, commutative
/// operands in either order), whose indexing maps are projected
/// permutations, and whose loops are batch dims (in all three operands,
/// parallel), one m (A and C, parallel), one n (B and C, parallel) and one k
/// (A and B, reduction).
mlir::FailureOr<GemmDims> matchGemm(mlir::linalg::LinalgOp op,
                                    GemmBody body = GemmBody::MulAdd);

/// Erases `op` if it is unused and a linalg.fill, a reshape or a
/// tensor.empty, then its operands' producers that became unused, as long
/// as they are such ops (the zero init a rewritten contraction left).
void eraseWithDeadFillChain(mlir::RewriterBase &rewriter, mlir::Operation *op);

} // namespace trellis

#endif // TRELLIS_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H
