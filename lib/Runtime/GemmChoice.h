//===- GemmChoice.h - The host's f32 GEMM library, by measurement -*- C++ -*-//
//
// Which library runs an f32 GEMM is measured on the host, not fixed:
// oneDNN's dnnl_sgemm and the CBLAS's cblas_sgemm (OpenBLAS) each run a few
// shapes per size class (GemmClass) on the threads the process gives them,
// and the faster takes the class (the two rank differently at 1 and 2
// threads). A library whose large-GEMM rate is under half the other's is
// sick (Debian's OpenBLAS 0.3.21 on CPUs it does not know falls back to slow
// kernels) and takes nothing. Beyond the medium class, each shape a module
// calls is measured too, the first time one has it, and leaves its class's
// library for the other one that runs it clearly faster. The choice and the
// table of shapes are kept in the tuning directory, one pair of files per
// host, pair of libraries, kernel setting and thread count, so that every
// later process — the ranks of a job, a resumed run — uses the same
// libraries and computes the same bits (docs/performance.md, "Library
// choice").
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_RUNTIME_GEMMCHOICE_H
#define TRELLIS_LIB_RUNTIME_GEMMCHOICE_H

#include "trellis/Pipelines/CompileOptions.h"

#include "llvm/Support/Error.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace trellis::runtime {

/// The threads the GEMM libraries run on in this process (0: the library
/// is missing): the choice is measured, and kept, per pair of counts.
struct GemmThreads {
  int openmp = 0;   // oneDNN's (omp_get_max_threads of LLVM's OpenMP)
  int openblas = 0; // openblas_get_num_threads
};

/// What a measurement of the libraries found (getHostGemmTuning).
struct GemmMeasurement {
  /// The threads it ran on.
  GemmThreads threads;
  /// GFLOP/s of each library (GemmLibrary's order: CBLAS, oneDNN) on each
  /// class's GEMMs (GemmClass order); 0 for a library that is missing.
  std::array<std::array<double, kNumGemmClasses>, 2> gflops{};
  /// GFLOP/s of each library (GemmLibrary's order) on the two forms of
  /// kOrientationGemms (theirs order: direct, transposed); 0 if missing.
  std::array<std::array<double, 2>, 2> orientationGflops{};
  /// The libraries found sick (or missing).
  std::array<bool, 2> sick{};
  GemmChoice choice;
  /// GFLOP/s of each library (GemmLibrary's order) on each GEMM timed:
  /// the first rates of the table of shapes.
  std::vector<std::pair<GemmShape, std::array<double, 2>>> shapeGflops;
};

/// One GEMM the measurement times, and the class whose rate it counts for.
struct MeasuredGemm {
  GemmClass gemmClass;
  GemmShape shape;
};

/// The GEMMs each class is measured on; a class's rate is its GEMMs' flops
/// over their time. The large class takes a cube and the six GEMMs of a
/// Transformer feed-forward block's training step over 2048 rows (width
/// 256, 1024 inside): each dense layer's forward product, input gradient
/// dY·Wᵀ and weight gradient Xᵀ·dY. The libraries rank them differently: on
/// a Zen 3 host the cube alone made them even (63 / 67 GFLOP/s) and sent the
/// LM step's large GEMMs to oneDNN, 15 % slower than OpenBLAS on one thread;
/// on Zen 5 capped to AVX2, at 2 threads, oneDNN ran the products with K =
/// 256 and the contraction's weight gradient at 96-133 GFLOP/s where
/// OpenBLAS ran them at 161-193; the other three were within about 10 %.
inline constexpr std::array<MeasuredGemm, 15> kMeasuredGemms = {{
    {GemmClass::Small, {64, 64, 32, false, false}},
    {GemmClass::Medium, {256, 128, 128, false, false}},
    {GemmClass::Large, {512, 512, 512, false, false}},
    // The expansion 256 -> 1024: forward, input and weight gradients.
    {GemmClass::Large, {2048, 1024, 256, false, false}},
    {GemmClass::Large, {2048, 256, 1024, false, true}},
    {GemmClass::Large, {256, 1024, 2048, true, false}},
    // The contraction 1024 -> 256.
    {GemmClass::Large, {2048, 256, 1024, false, false}},
    {GemmClass::Large, {2048, 1024, 256, false, true}},
    {GemmClass::Large, {1024, 256, 2048, true, false}},
    {GemmClass::Thin, {1024, 1024, 64, true, false}},
    // A dense layer over 64 rows: forward, from a 784-wide input too (an
    // odd K: oneDNN capped to AVX2 ran 64×1024×784 at 50 GFLOP/s on Zen 5,
    // OpenBLAS at 95, while the two were even on 64×1024×1024), and the
    // input gradient dY·Wᵀ.
    {GemmClass::Short, {64, 1024, 1024, false, false}},
    {GemmClass::Short, {64, 1024, 784, false, false}},
    {GemmClass::Short, {64, 1024, 1024, false, true}},
    // A convolution's im2col GEMM with 16 filters and its weight gradient.
    {GemmClass::Narrow, {8192, 16, 144, false, false}},
    {GemmClass::Narrow, {144, 16, 8192, true, false}},
}};

/// The orientation choice (GemmChoice::transposeShort,
/// trellis-orient-contractions) times a dense layer's input gradient over 64
/// rows in its direct form, dY·Wᵀ (a short product), against its transpose
/// as the transposed chain runs it, W·dHᵀ with dHᵀ held plain (a large
/// product): each in the library its class chose. On Zen 5 (AVX-512)
/// oneDNN ran them at 142 and 193 GFLOP/s.
inline constexpr std::array<MeasuredGemm, 2> kOrientationGemms = {{
    {GemmClass::Short, {64, 1024, 1024, false, true}},
    {GemmClass::Large, {1024, 64, 1024, false, false}},
}};

/// The direct form is one of the short class's own GEMMs, timed once: its
/// index in kMeasuredGemms.
inline constexpr size_t kDirectFormIndex = [] {
  const MeasuredGemm &direct = kOrientationGemms[0];
  for (size_t i = 0; i < kMeasuredGemms.size(); ++i)
    if (kMeasuredGemms[i].gemmClass == direct.gemmClass &&
        kMeasuredGemms[i].shape == direct.shape)
      return i;
  return kMeasuredGemms.size();
}();
static_assert(kDirectFormIndex < kMeasuredGemms.size(),
              "the direct form must be one of the measured GEMMs");

/// A class goes to the CBLAS only if it is this much faster than oneDNN
/// (noise does not flip the choice between two close libraries).
inline constexpr double kGemmChoiceMargin = 1.1;

/// A library whose rate on the large shape is under this fraction of the
/// other's is sick.
inline constexpr double kSickGemmFraction = 0.5;

/// Fills `measurement`'s `sick` and `choice` from its `gflops`: a library
/// whose large-shape rate is under kSickGemmFraction of the other's (or 0:
/// missing) is sick; each class goes to the CBLAS if it is not sick and
/// faster than oneDNN by kGemmChoiceMargin, or if oneDNN is sick, else to
/// oneDNN. If both are sick (neither could be measured) neither is. Short
/// products are transposed if the transposed form, in its class's library,
/// is faster than the direct one, in its own, by kGemmChoiceMargin.
void judgeGemmRates(GemmMeasurement &measurement);

/// The largest GEMM a shape's measurement times: at most 2^31 flops (a
/// call of ~10-20 ms; the shape's 36 calls then take under a second) and
/// 2^24 floats of operands (64 MiB). A larger shape keeps its class's
/// library: its measurement would cost more than a choice can win back
/// in most runs, and its operands might not fit.
inline constexpr int64_t kMaxMeasuredGemmFlops = int64_t(1) << 31;
inline constexpr int64_t kMaxMeasuredGemmFloats = int64_t(1) << 24;

/// True if `shape` is no larger than that (sizes of at most 2^31 each).
inline bool isMeasurableShape(const GemmShape &shape) {
  auto fitsIn = [](int64_t limit, int64_t x, int64_t y) {
    return x <= limit / y;
  };
  int64_t mn = shape.m * shape.n;
  return fitsIn(kMaxMeasuredGemmFlops / 2, mn, shape.k) &&
         fitsIn(kMaxMeasuredGemmFloats, shape.m, shape.k) &&
         fitsIn(kMaxMeasuredGemmFloats, shape.k, shape.n) &&
         shape.m * shape.k + shape.k * shape.n + mn <= kMaxMeasuredGemmFloats;
}

/// The library of one f32 GEMM shape whose class chose `classLibrary`,
/// given its `gflops` in each library (GemmLibrary's order): the other
/// library if it is not sick and runs the shape kGemmChoiceMargin faster,
/// else the class's. The libraries rank shapes of one class differently
/// (Zen 5 capped to AVX2, one thread: oneDNN ran the weight gradients Aᵀ·B
/// of a Transformer's feed-forward block at 47-63 GFLOP/s, OpenBLAS at
/// 87-95, while oneDNN led the class's other products).
GemmLibrary judgeShapeRates(GemmLibrary classLibrary,
                            std::array<double, 2> gflops,
                            std::array<bool, 2> sick);

/// What the JIT compiles f32 GEMMs with (getHostGemmTuning).
struct HostGemmTuning {
  /// The library of each size class.
  GemmChoice choice;
  /// The library of each shape beyond the medium class, by the table of
  /// shapes measured on the host (none if nothing is measured).
  GemmShapeChooser shapes;
};

/// Returns the host's choice: the one kept in `options.tuningDir` for this
/// host's CPU, these two libraries, their kernel variables and the threads
/// they run on in this process, or, the first time, a measurement,
/// kept there (under a lock: processes that start at once measure once).
/// With it, the chooser of the table of shapes kept beside it: a shape the
/// table lacks is measured when a module first has it, and its rates are
/// added (under the lock), so that every later process chooses alike.
/// `options.sgemm` and no chooser if the directory is empty or cannot be
/// written, or nothing can be measured: a choice that is not kept is not
/// made, so that two processes never differ.
HostGemmTuning getHostGemmTuning(const CompileOptions &options);

/// The path of the file getHostGemmTuning keeps the choice in, for
/// `options`' libraries, the host and the libraries' `threads`; empty
/// without a tuning directory.
std::string getGemmChoicePath(const CompileOptions &options,
                              GemmThreads threads);

/// The path of the table of shapes kept beside that choice.
std::string getGemmShapesPath(const CompileOptions &options,
                              GemmThreads threads);

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_GEMMCHOICE_H
